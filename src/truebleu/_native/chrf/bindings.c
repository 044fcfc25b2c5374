/* truebleu core: chrf_statistics() and chrf_matrix() (bindings): the strings
 * gathered with the GIL (chrF lowercases in Python before the call), the jobs of
 * chrf/chrf.c and chrf/matrix.c run without it on the runtime's threads. */
#include "chrf/bindings.h"
#include "chrf/chrf.h"
#include "chrf/matrix.h"
#include "chrf/profile.h"
#include "runtime/buffers.h"
#include "runtime/errors.h"
#include "runtime/gather.h"
#include "state.h"

/* Appends the str `obj`, item `index` of `what` (a TypeError naming it if not a str). */
static int add_text(tb_gather *g, PyObject *obj, const char *what, Py_ssize_t index)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s[%zd] must be a string, got %.100s", what, index,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    return tb_gather_append(g, obj, 0);
}

/* The settings both entry points take, checked (a ValueError if not: -1). */
typedef struct {
    int char_order, word_order, whitespace, eps_smoothing, threads;
    double factor, one_plus_factor;
} chrf_options;

static int check_options(const chrf_options *o)
{
    if (o->char_order < 0 || o->word_order < 0 || o->char_order + o->word_order < 1 ||
        o->char_order + o->word_order > 10000) {
        PyErr_SetString(PyExc_ValueError, "char_order + word_order must be between 1 and 10000");
        return -1;
    }
    if (o->threads < 1) {
        PyErr_SetString(PyExc_ValueError, "threads must be >= 1");
        return -1;
    }
    return 0;
}

/* The hypotheses and references as sequences (new references in *hyps, *refs), or -1. */
static int open_sequences(PyObject *hyp_obj, PyObject *ref_obj, PyObject **hyps, PyObject **refs)
{
    *hyps = PySequence_Fast(hyp_obj, "hypotheses must be a sequence");
    if (!*hyps)
        return -1;
    *refs = PySequence_Fast(ref_obj, "references must be a sequence");
    if (!*refs) {
        Py_CLEAR(*hyps);
        return -1;
    }
    return 0;
}

/* Appends every item of the fast sequence `seq` (`what`: its name in errors). */
static int add_texts(tb_gather *g, PyObject *seq, const char *what)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++)
        if (add_text(g, PySequence_Fast_GET_ITEM(seq, i), what, i) < 0)
            return -1;
    return 0;
}

/* The references of every segment into rt, segment i's from ref_start[i]: from n lists of
 * references (`refs`: segment i's is refs[i]), or, with `streams`, from the k streams of
 * n references each that sacreBLEU takes (None: no reference of that stream). 0 ok. */
static int gather_references(tb_gather *rt, PyObject *refs, Py_ssize_t n, int streams,
                             size_t *ref_start)
{
    Py_ssize_t nstreams = streams ? PySequence_Fast_GET_SIZE(refs) : 0;
    for (Py_ssize_t k = 0; k < nstreams; k++) {
        PyObject *stream = PySequence_Fast_GET_ITEM(refs, k);
        if (!PyList_Check(stream) && !PyTuple_Check(stream)) {
            PyErr_Format(PyExc_TypeError, "references[%zd] must be a list or tuple", k);
            return -1;
        }
        if (PySequence_Fast_GET_SIZE(stream) != n) {
            PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", n,
                         PySequence_Fast_GET_SIZE(stream));
            return -1;
        }
    }
    if (!streams && PySequence_Fast_GET_SIZE(refs) != n) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", n,
                     PySequence_Fast_GET_SIZE(refs));
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        ref_start[i] = rt->n;
        if (streams) {
            for (Py_ssize_t k = 0; k < nstreams; k++) {
                PyObject *ref = PySequence_Fast_GET_ITEM(PySequence_Fast_GET_ITEM(refs, k), i);
                if (ref == Py_None)
                    continue;
                if (!PyUnicode_Check(ref)) {
                    PyErr_Format(PyExc_TypeError, "references[%zd][%zd] must be a string or None, "
                                 "got %.100s", k, i, Py_TYPE(ref)->tp_name);
                    return -1;
                }
                if (tb_gather_append(rt, ref, 0) < 0)
                    return -1;
            }
        } else {
            PyObject *seg = PySequence_Fast(PySequence_Fast_GET_ITEM(refs, i),
                                            "the references of a segment must be a sequence");
            if (!seg)
                return -1;
            int rc = add_texts(rt, seg, "references");
            Py_DECREF(seg);
            if (rc < 0)
                return -1;
        }
        if (rt->n == ref_start[i]) {
            PyErr_Format(PyExc_ValueError, "segment %zd has no reference", i);
            return -1;
        }
    }
    ref_start[n] = rt->n;
    return 0;
}

PyObject *core_chrf_statistics(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hypotheses", "references", "char_order", "word_order", "whitespace",
                                         "eps_smoothing", "factor", "one_plus_factor", "threads", "out",
                                         "scores", "streams", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *hyp_obj, *ref_obj, *out_obj, *scores_obj, *hyps, *refs;
    chrf_options o;
    int streams = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOiippddiOO|p", (char **)kwlist, &hyp_obj, &ref_obj,
                                     &o.char_order, &o.word_order, &o.whitespace, &o.eps_smoothing,
                                     &o.factor, &o.one_plus_factor, &o.threads, &out_obj, &scores_obj,
                                     &streams))
        return NULL;
    if (check_options(&o) < 0 || open_sequences(hyp_obj, ref_obj, &hyps, &refs) < 0)
        return NULL;
    PyObject *result = NULL;
    tb_gather ht, rt;
    tb_gather_start(&ht, st->lower);
    tb_gather_start(&rt, st->lower);
    size_t *ref_start = NULL;
    Py_buffer ov = {0}, sv = {0};
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hyps);
    size_t width = 3 * (size_t)(o.char_order + o.word_order);
    ref_start = PyMem_Malloc(((size_t)n + 1) * sizeof(size_t));
    if (!ref_start) {
        PyErr_NoMemory();
        goto done;
    }
    if (add_texts(&ht, hyps, "hypotheses") < 0)
        goto done;
    if (gather_references(&rt, refs, n, streams, ref_start) < 0)
        goto done;
    if (tb_out_buffer(out_obj, &ov, (size_t)n * width, TB_ITEM_INT64, "out",
                      "out must be an int64 buffer of one row per hypothesis") < 0)
        goto done;
    if (scores_obj != Py_None && tb_out_buffer(scores_obj, &sv, (size_t)n, TB_ITEM_FLOAT64, "scores",
                                               "scores must be a double buffer of one per hypothesis") < 0)
        goto done;
    tb_chrf_job j;
    tb_chrf_job_init(&j, (size_t)n);
    j.hyps = ht.texts;
    j.refs = rt.texts;
    j.ref_start = ref_start;
    j.char_order = o.char_order;
    j.word_order = o.word_order;
    j.whitespace = o.whitespace;
    j.eps_smoothing = o.eps_smoothing;
    j.factor = o.factor;
    j.one_plus_factor = o.one_plus_factor;
    j.out = ov.buf;
    j.scores = sv.obj ? sv.buf : NULL;
    if (tb_raise_job_status(tb_job_run_released(&j.base, o.threads, st->main_thread)) < 0)
        goto done;
    result = Py_NewRef(Py_None);
done:
    tb_buffer_release(&ov);
    tb_buffer_release(&sv);
    tb_gather_free(&ht);
    tb_gather_free(&rt);
    PyMem_Free(ref_start);
    Py_DECREF(hyps);
    Py_DECREF(refs);
    return result;
}

PyObject *core_chrf_matrix(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hypotheses", "references", "char_order", "word_order", "whitespace",
                                         "eps_smoothing", "factor", "one_plus_factor", "threads", "out", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *hyp_obj, *ref_obj, *out_obj, *hyps, *refs;
    chrf_options o;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOiippddiO", (char **)kwlist, &hyp_obj, &ref_obj,
                                     &o.char_order, &o.word_order, &o.whitespace, &o.eps_smoothing,
                                     &o.factor, &o.one_plus_factor, &o.threads, &out_obj))
        return NULL;
    /* the same sequence on both sides (MBR): one profile per line */
    int same = hyp_obj == ref_obj;
    if (check_options(&o) < 0 || open_sequences(hyp_obj, ref_obj, &hyps, &refs) < 0)
        return NULL;
    PyObject *result = NULL;
    tb_gather ht, rt;
    tb_gather_start(&ht, st->lower);
    tb_gather_start(&rt, st->lower);
    Py_buffer ov = {0};
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hyps), m = PySequence_Fast_GET_SIZE(refs);
    if (add_texts(&ht, hyps, "hypotheses") < 0 || (!same && add_texts(&rt, refs, "references") < 0))
        goto done;
    if (tb_out_buffer(out_obj, &ov, (size_t)n * (size_t)m, TB_ITEM_FLOAT64, "out",
                      "out must be a double buffer of len(hypotheses) * len(references)") < 0)
        goto done;
    tb_chrf_profiles profiles;
    tb_status status;
    Py_BEGIN_ALLOW_THREADS
    status = tb_chrf_profiles_build(&profiles, ht.texts, (size_t)n, rt.texts, (size_t)m, same,
                                    o.char_order, o.word_order, o.whitespace);
    Py_END_ALLOW_THREADS
    if (tb_raise_job_status(status) < 0)
        goto done;
    tb_chrf_matrix_job j;
    tb_chrf_matrix_job_init(&j, (size_t)n, (size_t)m);
    j.profiles = &profiles;
    j.first_ref = same ? 0 : (size_t)n;
    j.eps_smoothing = o.eps_smoothing;
    j.factor = o.factor;
    j.one_plus_factor = o.one_plus_factor;
    j.out = ov.buf;
    status = tb_job_run_released(&j.base, o.threads, st->main_thread);
    tb_chrf_profiles_free(&profiles);
    if (tb_raise_job_status(status) < 0)
        goto done;
    result = Py_NewRef(Py_None);
done:
    tb_buffer_release(&ov);
    tb_gather_free(&ht);
    tb_gather_free(&rt);
    Py_DECREF(hyps);
    Py_DECREF(refs);
    return result;
}
