/* truebleu core: the dialects' entry points (bindings).
 *
 * mteval_table numbers the n-grams of the references (token ids, lines ended by
 * -1) and returns the table in a capsule, with the distinct pairs of an n-gram's
 * count and context count, each packed as one uint64 (for NIST's weights, computed
 * in Python), and each line's length; mteval_sums then gives a system's corpus sums against it
 * (dialects/mteval.h). mteval_13a_ids gives those token ids straight from the lines
 * (dialects/mteval_text.h). exact_sum gives the sum mteval_sums adds NIST's information
 * with, for its tests. Kernels run without the GIL.
 */
#include "dialects/bindings.h"
#include "dialects/exact_sum.h"
#include "dialects/mteval.h"
#include "dialects/mteval_text.h"
#include "dialects/ngram_table.h"
#include "runtime/buffers.h"
#include "runtime/errors.h"
#include "runtime/gather.h"
#include "runtime/signals.h"
#include "state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TABLE_CAPSULE "truebleu._native_core.mteval_table"
#define VOCABULARY_CAPSULE "truebleu._native_core.mteval_vocabulary"

typedef struct {
    tb_ngram_table table;
    tb_mteval_clips clips;
    tb_mteval_pairs pairs;
    int max_order;
} mteval_table;

static void table_free(mteval_table *t)
{
    if (t) {
        tb_ngram_table_free(&t->table);
        tb_mteval_clips_free(&t->clips);
        tb_mteval_pairs_free(&t->pairs);
        free(t);
    }
}

static void table_destroy(PyObject *capsule)
{
    table_free(PyCapsule_GetPointer(capsule, TABLE_CAPSULE));
}

/* An int32 C-contiguous buffer of token ids; -1 and an error when it is not. */
static int open_ids(PyObject *obj, Py_buffer *view, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (tb_check_item(view, TB_ITEM_INT32, what) < 0) {
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

PyObject *core_mteval_table(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"ids", "nrefs", "max_order", "no_context_token", "threads", NULL};
    PyObject *ids_obj;
    Py_ssize_t nrefs;
    int max_order, threads = 1;
    long no_context;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Onil|i", (char **)kwlist, &ids_obj, &nrefs, &max_order,
                                     &no_context, &threads))
        return NULL;
    if (threads < 1)
        return PyErr_Format(PyExc_ValueError, "threads must be >= 1, got %d", threads);
    if (nrefs < 1)
        return PyErr_Format(PyExc_ValueError, "nrefs must be at least 1");
    if (max_order < 1 || max_order > TB_MTEVAL_MAX_ORDER)
        return PyErr_Format(PyExc_ValueError, "max_order must be in 1..%d", TB_MTEVAL_MAX_ORDER);
    Py_buffer view;
    if (open_ids(ids_obj, &view, "ids") < 0)
        return NULL;
    /* Nothing is read from the ids before the kernels run: they read the caller's buffer
     * without the GIL, so each id is checked where it is read (tb_mteval_lines), and the
     * lines' lengths found there, not the buffer, say where the lines lie afterwards. */
    const int32_t *ids = view.buf;
    const size_t length = (size_t)view.len / 4;
    mteval_table *t = calloc(1, sizeof *t);
    int64_t *lengths = NULL;
    size_t lines = 0, bad_at = 0;
    uint64_t total = 0;
    tb_status status = t ? TB_OK : TB_NOMEM;
    enum { FAULT_NONE, FAULT_ID, FAULT_NREFS, FAULT_WORDS } fault = FAULT_NONE;
    tb_signal_watch watch;
    tb_signal_watch_begin(&watch, tb_state_of(module)->main_thread);  /* (releases the GIL) */
    if (status == TB_OK && (status = tb_mteval_lines(ids, length, &lengths, &lines, &bad_at)) == TB_VALUE)
        fault = FAULT_ID;
    for (size_t k = 0; status == TB_OK && k < lines; k++)
        total += (uint64_t)lengths[k];
    if (status == TB_OK && (lines % (size_t)nrefs != 0 || total > UINT32_MAX)) {
        status = TB_VALUE;
        fault = lines % (size_t)nrefs != 0 ? FAULT_NREFS : FAULT_WORDS;
    }
    if (status == TB_OK)
        status = tb_mteval_refs_build(&t->table, ids, lengths, (size_t)nrefs, lines / (size_t)nrefs, max_order,
                                      threads, &watch, &t->clips);
    if (status == TB_OK)
        status = tb_mteval_pairs_build(&t->table,
                                       no_context < INT32_MIN || no_context > INT32_MAX ? TB_UNKNOWN_TOKEN
                                                                                        : (int32_t)no_context,
                                       total, &t->pairs);
    tb_signal_watch_end(&watch);
    PyBuffer_Release(&view);
    if (status != TB_OK) {
        free(lengths);
        table_free(t);
        if (fault == FAULT_NONE) {  /* out of memory, or a signal handler raised */
            tb_raise_job_status(status);
            return NULL;
        }
        if (fault == FAULT_ID && bad_at == length)
            return tb_raise(status, "ids must end with -1 (the last line's end)");
        if (fault == FAULT_ID)
            return tb_raise(status, "ids[%zu] is neither a token id (>= 0) nor -1 (a line's end)", bad_at);
        if (fault == FAULT_NREFS)
            return tb_raise(status, "ids hold %zu lines: not nrefs (%zd) lines per segment", lines, nrefs);
        return tb_raise(status, "ids hold more than 2**32 words");
    }
    t->max_order = max_order;
    PyObject *capsule = PyCapsule_New(t, TABLE_CAPSULE, table_destroy);
    if (!capsule) {
        table_free(t);
        free(lengths);
        return NULL;
    }
    PyObject *result = Py_BuildValue("(Ny#y#)", capsule, (const char *)t->pairs.pairs,
                                     (Py_ssize_t)(t->pairs.n * sizeof *t->pairs.pairs),
                                     lengths ? (const char *)lengths : "",  /* (y# makes None of NULL) */
                                     (Py_ssize_t)(lines * sizeof *lengths));
    free(lengths);
    return result;
}

/* mteval_sums' result, the buffers open (bindings only). The hypotheses are not read
 * here: the kernel reads them without the GIL and finds the lines' ends where it reads
 * them (a count made here beforehand could be wrong by then); the weights are data. */
static PyObject *sums_of(const tb_state *st, const mteval_table *t, Py_buffer *info, Py_buffer *hyps, int threads)
{
    const size_t segments = t->clips.segments;
    int64_t *sizes = malloc((segments + 1) * sizeof *sizes);
    tb_mteval_sums sums;
    size_t lines_read = 0;
    tb_status status = TB_NOMEM;
    if (sizes) {
        tb_signal_watch watch;
        tb_signal_watch_begin(&watch, st->main_thread);
        status = tb_mteval_sums_compute(&t->clips, &t->pairs, info->buf, hyps->buf, (size_t)hyps->len / 4,
                                        t->max_order, threads, &watch, sizes, &sums, &lines_read);
        tb_signal_watch_end(&watch);
    }
    if (status != TB_OK) {
        free(sizes);
        if (status != TB_VALUE) {  /* out of memory, or a signal handler raised */
            tb_raise_job_status(status);
            return NULL;
        }
        if (lines_read < segments)
            return tb_raise(status, "hypotheses hold %zu lines ended by -1, not one per segment of the table (%zu)",
                            lines_read, segments);
        return tb_raise(status, "hypotheses hold ids after the line of the table's last segment (%zu)", segments);
    }
    PyObject *result = NULL;
    PyObject *matches = PyList_New(t->max_order), *totals = PyList_New(t->max_order);
    PyObject *information = PyList_New(t->max_order);
    if (matches && totals && information) {
        for (int o = 0; o < t->max_order; o++) {
            PyList_SET_ITEM(matches, o, PyLong_FromLongLong(sums.matches[o]));
            PyList_SET_ITEM(totals, o, PyLong_FromLongLong(sums.totals[o]));
            PyList_SET_ITEM(information, o, PyFloat_FromDouble(sums.info[o]));
        }
        if (!PyErr_Occurred())
            result = Py_BuildValue("(OOOy#)", matches, totals, information, (const char *)sizes,
                                   (Py_ssize_t)((size_t)segments * sizeof *sizes));
    }
    Py_XDECREF(matches);
    Py_XDECREF(totals);
    Py_XDECREF(information);
    free(sizes);
    return result;
}

PyObject *core_mteval_sums(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"table", "weights", "hypotheses", "threads", NULL};
    PyObject *capsule, *info_obj, *hyps_obj;
    int threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|i", (char **)kwlist, &capsule, &info_obj, &hyps_obj,
                                     &threads))
        return NULL;
    if (threads < 1)
        return PyErr_Format(PyExc_ValueError, "threads must be >= 1, got %d", threads);
    mteval_table *t = PyCapsule_GetPointer(capsule, TABLE_CAPSULE);
    if (!t)
        return NULL;
    Py_buffer info, hyps;  /* read without the GIL: see sums_of */
    if (PyObject_GetBuffer(info_obj, &info, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (tb_check_item(&info, TB_ITEM_FLOAT64, "weights") < 0) {  /* (a '>d' buffer: other numbers) */
        PyBuffer_Release(&info);
        return NULL;
    }
    if ((size_t)info.len / 8 != t->pairs.n) {
        PyBuffer_Release(&info);
        return PyErr_Format(PyExc_ValueError, "weights must be a buffer of float64, one per pair of the table");
    }
    if (open_ids(hyps_obj, &hyps, "hypotheses") < 0) {
        PyBuffer_Release(&info);
        return NULL;
    }
    PyObject *result = sums_of(tb_state_of(module), t, &info, &hyps, threads);
    PyBuffer_Release(&info);
    PyBuffer_Release(&hyps);
    return result;
}

PyObject *core_exact_sum(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"values", NULL};
    (void)module;
    PyObject *values_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", (char **)kwlist, &values_obj))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(values_obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (tb_check_item(&view, TB_ITEM_FLOAT64, "values") < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const double *values = view.buf;
    size_t n = (size_t)view.len / sizeof *values;
    int ok = 1;
    for (size_t i = 0; ok && i < n; i++)
        ok = isfinite(values[i]);
    if (!ok) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "values must be a buffer of finite float64");
    }
    tb_exact_sum sum = {0};
    tb_status status = TB_OK;
    double total = 0.0;
    for (size_t i = 0; i < n && status == TB_OK; i++)
        status = tb_exact_sum_add(&sum, values[i]);
    if (status == TB_OK)
        status = tb_exact_sum_take(&sum, &total);
    tb_exact_sum_free(&sum);
    PyBuffer_Release(&view);
    return status == TB_OK ? PyFloat_FromDouble(total) : tb_raise(status, "exact_sum");
}

static void vocabulary_destroy(PyObject *capsule)
{
    free(PyCapsule_GetPointer(capsule, VOCABULARY_CAPSULE));
}

PyObject *core_mteval_13a_ids(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"lines", "lowercase", "vocabulary", "threads", NULL};
    PyObject *lines, *vocabulary_obj = Py_None;
    int lowercase, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Op|Oi", (char **)kwlist, &lines, &lowercase, &vocabulary_obj,
                                     &threads))
        return NULL;
    if (threads < 1)
        return PyErr_Format(PyExc_ValueError, "threads must be >= 1, got %d", threads);
    const tb_seg *lookup = NULL;
    if (vocabulary_obj != Py_None && !(lookup = PyCapsule_GetPointer(vocabulary_obj, VOCABULARY_CAPSULE)))
        return NULL;
    if (!PyList_Check(lines))
        return PyErr_Format(PyExc_TypeError, "lines must be a list of str");
    tb_gather texts;
    tb_gather_start(&texts, tb_state_of(module)->lower);
    Py_ssize_t n = PyList_GET_SIZE(lines);
    if (tb_gather_alloc(&texts, (size_t)n) < 0) {
        tb_gather_free(&texts);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (tb_gather_set(&texts, (size_t)i, PyList_GET_ITEM(lines, i), 0) < 0) {
            tb_gather_free(&texts);
            return NULL;
        }
    int32_t *ids;
    size_t length;
    tb_seg *vocabulary = NULL;
    tb_signal_watch watch;
    tb_signal_watch_begin(&watch, tb_state_of(module)->main_thread);
    int rc = tb_mteval_13a_ids(texts.texts, (size_t)n, lowercase, lookup, threads, &watch, &ids, &length,
                               lookup ? NULL : &vocabulary);
    tb_signal_watch_end(&watch);
    tb_gather_free(&texts);
    if (rc == TB_MTEVAL_REFUSED)
        Py_RETURN_NONE;
    if (rc == TB_MTEVAL_INTERRUPTED)
        return NULL;  /* (the handler's exception) */
    if (rc != 0)
        return PyErr_NoMemory();
    PyObject *capsule = vocabulary ? PyCapsule_New(vocabulary, VOCABULARY_CAPSULE, vocabulary_destroy)
                                   : Py_NewRef(vocabulary_obj);
    if (!capsule) {
        free(vocabulary);
        free(ids);
        return NULL;
    }
    PyObject *result = Py_BuildValue("(Ny#)", capsule, (const char *)ids, (Py_ssize_t)(length * sizeof *ids));
    free(ids);
    return result;
}
