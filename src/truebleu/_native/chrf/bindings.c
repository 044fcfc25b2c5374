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
            Py_ssize_t m = PySequence_Fast_GET_SIZE(seg);
            for (Py_ssize_t k = 0; k < m; k++) {
                if (add_text(rt, PySequence_Fast_GET_ITEM(seg, k), "references", k) < 0) {
                    Py_DECREF(seg);
                    return -1;
                }
            }
            Py_DECREF(seg);
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
    PyObject *hyp_obj, *ref_obj, *out_obj, *scores_obj;
    int char_order, word_order, whitespace, eps_smoothing, threads, streams = 0;
    double factor, one_plus_factor;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOiippddiOO|p", (char **)kwlist, &hyp_obj, &ref_obj,
                                     &char_order, &word_order, &whitespace, &eps_smoothing, &factor,
                                     &one_plus_factor, &threads, &out_obj, &scores_obj, &streams))
        return NULL;
    if (char_order < 0 || word_order < 0 || char_order + word_order < 1 ||
        char_order + word_order > 10000) {
        PyErr_SetString(PyExc_ValueError, "char_order + word_order must be between 1 and 10000");
        return NULL;
    }
    if (threads < 1) {
        PyErr_SetString(PyExc_ValueError, "threads must be >= 1");
        return NULL;
    }
    PyObject *hyps = PySequence_Fast(hyp_obj, "hypotheses must be a sequence");
    if (!hyps)
        return NULL;
    PyObject *refs = PySequence_Fast(ref_obj, "references must be a sequence");
    if (!refs) {
        Py_DECREF(hyps);
        return NULL;
    }
    PyObject *result = NULL;
    tb_gather ht, rt;
    tb_gather_start(&ht, st->lower);
    tb_gather_start(&rt, st->lower);
    size_t *ref_start = NULL;
    Py_buffer ov = {0}, sv = {0};
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hyps);
    size_t width = 3 * (size_t)(char_order + word_order);
    ref_start = PyMem_Malloc(((size_t)n + 1) * sizeof(size_t));
    if (!ref_start) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (add_text(&ht, PySequence_Fast_GET_ITEM(hyps, i), "hypotheses", i) < 0)
            goto done;
    if (gather_references(&rt, refs, n, streams, ref_start) < 0)
        goto done;
    if (PyObject_GetBuffer(out_obj, &ov, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        goto done;
    if ((size_t)ov.len != (size_t)n * width * sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "out must be an int64 buffer of one row per hypothesis");
        goto done;
    }
    if (scores_obj != Py_None) {
        if (PyObject_GetBuffer(scores_obj, &sv, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        if ((size_t)sv.len != (size_t)n * sizeof(double)) {
            PyErr_SetString(PyExc_ValueError, "scores must be a double buffer of one per hypothesis");
            goto done;
        }
    }
    tb_chrf_job j;
    tb_chrf_job_init(&j, (size_t)n);
    j.hyps = ht.texts;
    j.refs = rt.texts;
    j.ref_start = ref_start;
    j.char_order = char_order;
    j.word_order = word_order;
    j.whitespace = whitespace;
    j.eps_smoothing = eps_smoothing;
    j.factor = factor;
    j.one_plus_factor = one_plus_factor;
    j.out = ov.buf;
    j.scores = sv.obj ? sv.buf : NULL;
    if (tb_raise_job_status(tb_job_run_released(&j.base, threads, st->main_thread)) < 0)
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
    PyObject *hyp_obj, *ref_obj, *out_obj;
    int char_order, word_order, whitespace, eps_smoothing, threads;
    double factor, one_plus_factor;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOiippddiO", (char **)kwlist, &hyp_obj, &ref_obj,
                                     &char_order, &word_order, &whitespace, &eps_smoothing, &factor,
                                     &one_plus_factor, &threads, &out_obj))
        return NULL;
    if (char_order < 0 || word_order < 0 || char_order + word_order < 1 ||
        char_order + word_order > 10000) {
        PyErr_SetString(PyExc_ValueError, "char_order + word_order must be between 1 and 10000");
        return NULL;
    }
    if (threads < 1) {
        PyErr_SetString(PyExc_ValueError, "threads must be >= 1");
        return NULL;
    }
    /* the same sequence on both sides (MBR): one profile per line */
    int same = hyp_obj == ref_obj;
    PyObject *hyps = PySequence_Fast(hyp_obj, "hypotheses must be a sequence");
    if (!hyps)
        return NULL;
    PyObject *refs = PySequence_Fast(ref_obj, "references must be a sequence");
    if (!refs) {
        Py_DECREF(hyps);
        return NULL;
    }
    PyObject *result = NULL;
    tb_gather ht, rt;
    tb_gather_start(&ht, st->lower);
    tb_gather_start(&rt, st->lower);
    Py_buffer ov = {0};
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hyps), m = PySequence_Fast_GET_SIZE(refs);
    for (Py_ssize_t i = 0; i < n; i++)
        if (add_text(&ht, PySequence_Fast_GET_ITEM(hyps, i), "hypotheses", i) < 0)
            goto done;
    for (Py_ssize_t k = 0; !same && k < m; k++)
        if (add_text(&rt, PySequence_Fast_GET_ITEM(refs, k), "references", k) < 0)
            goto done;
    if (PyObject_GetBuffer(out_obj, &ov, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        goto done;
    if ((size_t)ov.len != (size_t)n * (size_t)m * sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "out must be a double buffer of len(hypotheses) * len(references)");
        goto done;
    }
    tb_chrf_profiles profiles;
    tb_status status;
    Py_BEGIN_ALLOW_THREADS
    status = tb_chrf_profiles_build(&profiles, ht.texts, (size_t)n, rt.texts, (size_t)m, same,
                                    char_order, word_order, whitespace);
    Py_END_ALLOW_THREADS
    if (tb_raise_job_status(status) < 0)
        goto done;
    tb_chrf_matrix_job j;
    tb_chrf_matrix_job_init(&j, (size_t)n, (size_t)m);
    j.profiles = &profiles;
    j.first_ref = same ? 0 : (size_t)n;
    j.eps_smoothing = eps_smoothing;
    j.factor = factor;
    j.one_plus_factor = one_plus_factor;
    j.out = ov.buf;
    status = tb_job_run_released(&j.base, threads, st->main_thread);
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
