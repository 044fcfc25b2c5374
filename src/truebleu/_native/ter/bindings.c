/* truebleu core: ter_statistics(), ter_alignment() and ter_tokenize()
 * (bindings): TER of many segments, and tercom's tokenizer.
 *
 * Under the GIL: the UTF-8 of every string (runtime/gather.c; strings with
 * lone surrogates are encoded with "surrogatepass", which keeps distinct
 * words distinct; lowercased there when tercom lowercases), with a reference
 * keeping it alive. Then the job of ter/segments.c runs without the GIL on the
 * runtime's threads: the same job for both entry points, the alignment asking
 * it to keep what the search did. The hypotheses arrive tokenized, or as
 * lines the job tokenizes (`tokenize=True` and the tokenizer's options);
 * the references always arrive tokenized (ter_tokenize's `reference=True`).
 */
#include "runtime/buffers.h"
#include "runtime/errors.h"
#include "runtime/gather.h"
#include "runtime/memory.h"
#include "state.h"
#include "ter/bindings.h"
#include "ter/ter.h"

#include <string.h>

/* Appends the UTF-8 of `obj` (lowercased with `lower`), item `i` of `what` (a
 * TypeError naming it if not a str). */
static int add_text(tb_gather *g, PyObject *obj, const char *what, Py_ssize_t i, int lower)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s[%zd] must be a string, got %.80s", what, i, Py_TYPE(obj)->tp_name);
        return -1;
    }
    return tb_gather_append(g, obj, TB_GATHER_UTF8 | (lower ? TB_GATHER_LOWER : 0));
}

/* How the hypotheses arrive: tokenized, or as lines to tokenize with these options. */
typedef struct {
    int tokenize, normalized, no_punct, asian_support, case_sensitive;
} tercom_options;

/* The TB_TERCOM_* flags of `o`. */
static int tercom_flags(const tercom_options *o)
{
    return (o->normalized ? TB_TERCOM_NORMALIZED : 0) | (o->no_punct ? TB_TERCOM_NO_PUNCT : 0) |
           (o->asian_support ? TB_TERCOM_ASIAN : 0);
}

/* The strings of both entry points, gathered under the GIL. */
typedef struct {
    PyObject *hyps, *refs;       /* the arguments as fast sequences */
    tb_gather hyp_texts, ref_texts;
    size_t *first_ref;           /* segment i's references: ref_texts[first_ref[i] .. first_ref[i+1]) */
    Py_ssize_t n;                /* segments */
} ter_inputs;

static void inputs_free(ter_inputs *in)
{
    PyMem_Free(in->first_ref);
    tb_gather_free(&in->hyp_texts);
    tb_gather_free(&in->ref_texts);
    Py_XDECREF(in->hyps);
    Py_XDECREF(in->refs);
}

/* Checks and gathers `hypotheses` (str) and `references` (a sequence of str per
 * hypothesis, at least one): 0, or -1 with an exception set (free `in` either way). */
static int gather_inputs(const tb_state *st, PyObject *hyps_obj, PyObject *refs_obj,
                         const tercom_options *o, ter_inputs *in)
{
    int lower_hyps = o->tokenize && !o->case_sensitive;
    memset(in, 0, sizeof(*in));
    tb_gather_start(&in->hyp_texts, st->lower);
    tb_gather_start(&in->ref_texts, st->lower);
    in->hyps = PySequence_Fast(hyps_obj, "hypotheses must be a sequence");
    in->refs = PySequence_Fast(refs_obj, "references must be a sequence");
    if (!in->hyps || !in->refs)
        return -1;
    Py_ssize_t n = in->n = PySequence_Fast_GET_SIZE(in->hyps);
    if (PySequence_Fast_GET_SIZE(in->refs) != n) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", n,
                     PySequence_Fast_GET_SIZE(in->refs));
        return -1;
    }
    in->first_ref = PyMem_Malloc((size_t)(n + 1) * sizeof(size_t));
    if (!in->first_ref) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (add_text(&in->hyp_texts, PySequence_Fast_GET_ITEM(in->hyps, i), "hypotheses", i, lower_hyps) < 0)
            return -1;
        PyObject *seg = PySequence_Fast(PySequence_Fast_GET_ITEM(in->refs, i),
                                        "references[i] must be a sequence of strings");
        if (!seg)
            return -1;
        Py_ssize_t k = PySequence_Fast_GET_SIZE(seg);
        if (k == 0) {
            Py_DECREF(seg);
            PyErr_Format(PyExc_ValueError, "segment %zd has no reference", i);
            return -1;
        }
        in->first_ref[i] = in->ref_texts.n;
        for (Py_ssize_t j = 0; j < k; j++) {
            if (add_text(&in->ref_texts, PySequence_Fast_GET_ITEM(seg, j), "references", i, 0) < 0) {
                Py_DECREF(seg);
                return -1;
            }
        }
        Py_DECREF(seg);
    }
    in->first_ref[n] = in->ref_texts.n;
    return 0;
}

static int check_settings(Py_ssize_t max_shift, int threads)
{
    if (max_shift < 1 || max_shift > 1000) {
        PyErr_Format(PyExc_ValueError, "max_shift_size must be between 1 and 1000, got %zd", max_shift);
        return -1;
    }
    if (threads < 1) {
        PyErr_Format(PyExc_ValueError, "threads must be >= 1, got %d", threads);
        return -1;
    }
    return 0;
}

/* Runs the job of `in` (rows into `out`, searches into `paths` if not NULL): 0, or
 * -1 with the exception of its status. */
static int run_job(const tb_state *st, const ter_inputs *in, const tercom_options *o, double *out,
                   tb_ter_path *paths, Py_ssize_t max_shift, int threads)
{
    tb_ter_job job;
    tb_ter_job_init(&job, (size_t)in->n);
    job.hyps = in->hyp_texts.texts;
    job.refs = in->ref_texts.texts;
    job.first_ref = in->first_ref;
    job.out = out;
    job.paths = paths;
    job.max_shift = (size_t)max_shift;
    job.tokenize = o->tokenize;
    job.options = tercom_flags(o);
    tb_status status = tb_job_run_released(&job.base, threads, st->main_thread);
    if (status == TB_RUNTIME) {
        tb_raise(status, "TER: the edit path left the beam in segment %zu", tb_atomic_size_load(&job.base.failed_item));
        return -1;
    }
    return tb_raise_job_status(status);
}

PyObject *core_ter_statistics(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hypotheses", "references", "threads", "out", "max_shift_size",
                                         "tokenize", "normalized", "no_punct", "asian_support",
                                         "case_sensitive", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *hyps_obj, *refs_obj, *out_obj;
    int threads;
    Py_ssize_t max_shift = TB_TER_MAX_SHIFT_SIZE;
    tercom_options o = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOiO|n$ppppp", (char **)kwlist, &hyps_obj, &refs_obj,
                                     &threads, &out_obj, &max_shift, &o.tokenize, &o.normalized, &o.no_punct,
                                     &o.asian_support, &o.case_sensitive))
        return NULL;
    if (check_settings(max_shift, threads) < 0)
        return NULL;

    PyObject *result = NULL;
    Py_buffer view = {0};
    ter_inputs in;
    if (gather_inputs(st, hyps_obj, refs_obj, &o, &in) < 0)
        goto done;
    if (tb_out_buffer(out_obj, &view, 2 * (size_t)in.n, TB_ITEM_FLOAT64, "out",
                      "out must be a float64 buffer of 2 numbers per hypothesis") < 0)
        goto done;
    if (run_job(st, &in, &o, view.buf, NULL, max_shift, threads) == 0)
        result = Py_NewRef(Py_None);

done:
    if (view.obj)
        PyBuffer_Release(&view);
    inputs_free(&in);
    return result;
}

/* (reference, edits, ref_length, shifts, steps) of one segment. */
static PyObject *alignment_tuple(const tb_ter_path *path, const double *row)
{
    PyObject *shifts = PyTuple_New((Py_ssize_t)path->n_shifts);
    if (!shifts)
        return NULL;
    for (size_t k = 0; k < path->n_shifts; k++) {
        const int64_t *s = path->shifts + 3 * k;
        PyObject *shift = Py_BuildValue("(LLL)", (long long)s[0], (long long)s[1], (long long)s[2]);
        if (!shift) {
            Py_DECREF(shifts);
            return NULL;
        }
        PyTuple_SET_ITEM(shifts, (Py_ssize_t)k, shift);
    }
    /* the steps are ASCII letters (ter/ter.h) */
    PyObject *steps = PyUnicode_FromStringAndSize(path->n_steps ? (const char *)path->steps : "",
                                                  (Py_ssize_t)path->n_steps);
    if (!steps) {
        Py_DECREF(shifts);
        return NULL;
    }
    return Py_BuildValue("(nLdNN)", (Py_ssize_t)path->reference, (long long)row[0], row[1], shifts, steps);
}

PyObject *core_ter_alignment(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hypotheses", "references", "threads", "max_shift_size", "tokenize",
                                         "normalized", "no_punct", "asian_support", "case_sensitive", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *hyps_obj, *refs_obj;
    int threads;
    Py_ssize_t max_shift = TB_TER_MAX_SHIFT_SIZE;
    tercom_options o = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOi|n$ppppp", (char **)kwlist, &hyps_obj, &refs_obj,
                                     &threads, &max_shift, &o.tokenize, &o.normalized, &o.no_punct,
                                     &o.asian_support, &o.case_sensitive))
        return NULL;
    if (check_settings(max_shift, threads) < 0)
        return NULL;

    PyObject *result = NULL;
    double *out = NULL;
    tb_ter_path *paths = NULL;
    ter_inputs in;
    if (gather_inputs(st, hyps_obj, refs_obj, &o, &in) < 0)
        goto done;
    out = PyMem_Malloc((size_t)(2 * in.n + 1) * sizeof(double));
    paths = PyMem_Calloc((size_t)in.n + 1, sizeof(tb_ter_path));
    if (!out || !paths) {
        PyErr_NoMemory();
        goto done;
    }
    if (run_job(st, &in, &o, out, paths, max_shift, threads) < 0)
        goto done;
    PyObject *list = PyList_New(in.n);
    if (!list)
        goto done;
    for (Py_ssize_t i = 0; i < in.n; i++) {
        PyObject *item = alignment_tuple(&paths[i], out + 2 * i);
        if (!item) {
            Py_DECREF(list);
            goto done;
        }
        PyList_SET_ITEM(list, i, item);
    }
    result = list;

done:
    if (paths)
        for (Py_ssize_t i = 0; i < in.n; i++)
            tb_ter_path_free(&paths[i]);
    PyMem_Free(paths);
    PyMem_Free(out);
    inputs_free(&in);
    return result;
}

/* Every line's tokens, joined into one buffer without the GIL: line k is
 * bytes[ends[k - 1] .. ends[k]) (ends[-1] = 0). TB_OK or TB_NOMEM. */
static tb_status tokenize_lines(const tb_gather *g, int flags, int reference, uint8_t **bytes,
                                size_t *ends)
{
    tb_tercom_scratch scratch = {{NULL, NULL}, {0, 0}};
    size_t cap = 0, used = 0;
    tb_status status = TB_OK;
    for (size_t k = 0; k < g->n && status == TB_OK; k++) {
        const tb_text *t = &g->texts[k];
        const uint8_t *tokens;
        size_t length;
        status = tb_tercom_tokenize(&scratch, t->data, t->length, t->ascii_lower, flags, reference, &tokens,
                                    &length);
        if (status == TB_OK && tb_grow((void **)bytes, &cap, used + length + 1, 1) < 0)
            status = TB_NOMEM;
        if (status == TB_OK) {
            memcpy(*bytes + used, tokens, length);
            used += length;
            ends[k] = used;
        }
    }
    tb_tercom_scratch_free(&scratch);
    return status;
}

PyObject *core_ter_tokenize(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"lines", "normalized", "no_punct", "asian_support", "case_sensitive",
                                         "reference", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *lines_obj;
    tercom_options o = {0};
    int reference = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|ppppp", (char **)kwlist, &lines_obj, &o.normalized,
                                     &o.no_punct, &o.asian_support, &o.case_sensitive, &reference))
        return NULL;
    PyObject *lines = PySequence_Fast(lines_obj, "lines must be a sequence");
    if (!lines)
        return NULL;
    PyObject *result = NULL;
    uint8_t *bytes = NULL;
    size_t *ends = NULL;
    tb_gather g;
    tb_gather_start(&g, st->lower);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(lines);
    for (Py_ssize_t i = 0; i < n; i++)
        if (add_text(&g, PySequence_Fast_GET_ITEM(lines, i), "lines", i, !o.case_sensitive) < 0)
            goto done;
    ends = PyMem_Malloc(((size_t)n + 1) * sizeof(size_t));
    if (!ends) {
        PyErr_NoMemory();
        goto done;
    }
    tb_status status;
    Py_BEGIN_ALLOW_THREADS
    status = tokenize_lines(&g, tercom_flags(&o), reference, &bytes, ends);
    Py_END_ALLOW_THREADS
    if (tb_raise_job_status(status) < 0)
        goto done;
    PyObject *list = PyList_New(n);
    if (!list)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        size_t start = i ? ends[i - 1] : 0;
        /* "surrogatepass": back to the str's lone surrogates, as gathered */
        PyObject *line = PyUnicode_DecodeUTF8(bytes ? (const char *)bytes + start : "",
                                              (Py_ssize_t)(ends[i] - start), "surrogatepass");
        if (!line) {
            Py_DECREF(list);
            goto done;
        }
        PyList_SET_ITEM(list, i, line);
    }
    result = list;

done:
    free(bytes);
    PyMem_Free(ends);
    tb_gather_free(&g);
    Py_DECREF(lines);
    return result;
}
