/* truebleu core: resampling without NumPy (bindings): NumPy's PCG64 draws
 * (pcg64_integers, pcg64_bools), the bootstrap's summed statistics
 * (resample_sums), approximate randomization's (randomization_sums), BLEU
 * of those sums (bleu_rows, through bleu/score.h) and NumPy's pairwise sum
 * (pairwise_sum). The report's word-frequency buckets are in bindings_buckets.c.
 *
 * The generator state lives in a Python-owned writable buffer of six uint64
 * words (state high, state low, increment high, increment low, has a spare
 * 32-bit half, the spare half), so consecutive calls continue one stream as
 * NumPy's consecutive calls do. Seeding (SeedSequence) is done in Python
 * (truebleu/significance/pcg64.py).
 */
#include "significance/bindings.h"
#include "bleu/score.h"
#include "runtime/buffers.h"
#include "runtime/errors.h"
#include "runtime/portable.h"
#include "runtime/signals.h"
#include "significance/pcg64.h"
#include "significance/resample.h"
#include "state.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* the state buffer                                                    */

typedef struct {
    Py_buffer view;
    pcg64 g;
} state_ref;

static int state_open(PyObject *obj, state_ref *s)
{
    if (PyObject_GetBuffer(obj, &s->view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (s->view.len != 6 * 8) {
        PyBuffer_Release(&s->view);
        PyErr_SetString(PyExc_ValueError, "a PCG64 state is a writable buffer of 48 bytes");
        return -1;
    }
    uint64_t w[6];
    memcpy(w, s->view.buf, sizeof w);
    pcg64_set(&s->g, w);
    s->g.has_uint32 = w[4] != 0;
    s->g.uinteger = (uint32_t)w[5];
    return 0;
}

static void state_close(state_ref *s)
{
    uint64_t w[6];
    pcg64_get(&s->g, w);
    w[4] = (uint64_t)s->g.has_uint32;
    w[5] = s->g.uinteger;
    memcpy(s->view.buf, w, sizeof w);
    PyBuffer_Release(&s->view);
}

/* ------------------------------------------------------------------ */
/* draws                                                               */

PyObject *core_pcg64_integers(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"state", "n", "count", NULL};
    PyObject *state_obj;
    unsigned long long n;
    Py_ssize_t count;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OKn", (char **)kwlist, &state_obj, &n, &count))
        return NULL;
    if (n == 0 || count < 0 || n > (unsigned long long)INT64_MAX + 1) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= n <= 2**63 and count >= 0");
        return NULL;
    }
    state_ref s;
    if (state_open(state_obj, &s) < 0)
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, count * 8);
    if (out != NULL)
        bounded_fill(&s.g, (uint64_t)(n - 1), count, (int64_t *)PyBytes_AS_STRING(out));
    state_close(&s);
    return out;
}

PyObject *core_pcg64_bools(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"state", "count", NULL};
    PyObject *state_obj;
    Py_ssize_t count;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "On", (char **)kwlist, &state_obj, &count))
        return NULL;
    if (count < 0) {
        PyErr_SetString(PyExc_ValueError, "count must be >= 0");
        return NULL;
    }
    state_ref s;
    if (state_open(state_obj, &s) < 0)
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, count);
    if (out != NULL) {
        char *p = PyBytes_AS_STRING(out);
        uint32_t buf = 0;
        int left = 0;
        for (Py_ssize_t i = 0; i < count; i++) {
            if (left == 0) {
                buf = pcg64_next32(&s.g);
                left = 31;
            } else {
                buf >>= 1;
                left--;
            }
            p[i] = (char)(buf & 1);
        }
    }
    state_close(&s);
    return out;
}

/* resample_sums(state, n_samples, tables, width, float32=True, threads=1) -> bytes
 *
 * The draws in sample order on one generator; the drawn rows' sums on up to `threads`
 * threads (the same sums on any number: tb_resample).
 * The sums are exact int64 (int32 accumulators) while n * largest |statistic| < 2^31;
 * beyond that, OverflowError before any draw. float32=True also promises that they
 * are what float32 sums in any order give, which holds while every partial sum of
 * every sample stays below 2^24: for tables without negative values every partial
 * sum is at most its sample's sum, so the sums themselves are checked after the
 * draws; a negative value anywhere keeps the bound n * largest < 2^24, checked
 * before. Either refusal raises OverflowError and leaves `state` untouched. */
PyObject *core_resample_sums(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"state", "n_samples", "tables", "width", "float32",
                                         "threads", NULL};
    PyObject *state_obj, *tables_obj;
    Py_ssize_t n_samples, width;
    int float32 = 1, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OnOn|pi", (char **)kwlist, &state_obj,
                                     &n_samples, &tables_obj, &width, &float32, &threads))
        return NULL;
    if (threads < 1)
        return PyErr_Format(PyExc_ValueError, "threads must be >= 1, got %d", threads);
    PyObject *tables = PySequence_Fast(tables_obj, "tables must be a sequence of buffers");
    if (tables == NULL)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(tables), n = -1;
    if (k < 1 || width < 1 || n_samples < 0) {
        Py_DECREF(tables);
        PyErr_SetString(PyExc_ValueError, "need at least one table, width >= 1, n_samples >= 0");
        return NULL;
    }
    const Py_ssize_t row = k * width;
    Py_buffer *views = PyMem_Calloc((size_t)k, sizeof *views);
    Py_ssize_t opened = 0, stride = 0;
    void *stats_block = NULL, *stats = NULL;
    int64_t largest = 0;
    int negative = 0, bytes = 4;
    PyObject *out = NULL;
    if (views == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* the largest |statistic| first: it decides the table's storage (tb_resample) */
    for (; opened < k; opened++) {
        Py_buffer *view = &views[opened];
        size_t rows;
        if (tb_int64_rows_buffer(PySequence_Fast_GET_ITEM(tables, opened), view, (size_t)width,
                                 "tables", &rows) < 0)
            goto done;
        if (rows == 0 || (n >= 0 && (Py_ssize_t)rows != n)) {
            opened++;  /* (released below) */
            PyErr_SetString(PyExc_ValueError, "tables must be int64 buffers of equal, non-zero "
                                              "numbers of rows of `width`");
            goto done;
        }
        n = (Py_ssize_t)rows;
        const int64_t *src = view->buf;
        for (Py_ssize_t i = 0; i < n * width; i++) {
            int64_t x = src[i];
            int64_t magnitude = x < 0 ? (x == INT64_MIN ? INT64_MAX : -x) : x;
            largest = magnitude > largest ? magnitude : largest;
            negative |= x < 0;
        }
    }
    uint64_t product_high, product = tb_mul_64x64((uint64_t)largest, (uint64_t)n, &product_high);
    if (product_high || product >= (uint64_t)INT32_EXACT) {
        tb_raise(TB_OVERFLOW, "statistics too large to resample exactly in int32 "
                              "(segments * largest statistic >= 2**31)");
        goto done;
    }
    if (float32 && negative && product >= (uint64_t)FLOAT32_EXACT) {
        tb_raise(TB_OVERFLOW, "statistics too large to resample exactly in float32 "
                              "(a negative value, and segments * largest statistic >= 2**24)");
        goto done;
    }
    /* uint8 where every statistic is from 0 to 255 and that makes a padded row shorter:
     * fewer cache lines per drawn row (the same sums); else int32 (tb_resample) */
    stride = (row + LANES - 1) / LANES * LANES;
    if (!negative && largest < 256 && (row + 15) / 16 * 16 < stride * 4) {
        bytes = 1;
        stride = (row + 15) / 16 * 16;
    }
    /* rows padded with zeros to `stride`, the table on a cache line (tb_resample) */
    stats_block = PyMem_Calloc((size_t)n * stride * bytes + TB_ROW_ALIGN, 1);
    if (stats_block == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    stats = (void *)(((uintptr_t)stats_block + TB_ROW_ALIGN - 1) & ~(uintptr_t)(TB_ROW_ALIGN - 1));
    for (Py_ssize_t j = 0; j < k; j++) {
        const int64_t *src = views[j].buf;
        for (Py_ssize_t i = 0; i < n; i++)
            for (Py_ssize_t c = 0; c < width; c++) {
                const int64_t x = src[i * width + c];
                const Py_ssize_t at = i * stride + j * width + c;
                if (bytes == 1)
                    ((uint8_t *)stats)[at] = (uint8_t)x;
                else
                    ((int32_t *)stats)[at] = (int32_t)x;
            }
    }
    out = PyBytes_FromStringAndSize(NULL, n_samples * row * 8);
    if (out == NULL)
        goto done;
    int64_t *sums = (int64_t *)PyBytes_AS_STRING(out);
    state_ref s;
    if (state_open(state_obj, &s) < 0) {
        Py_CLEAR(out);
        goto done;
    }
    tb_signal_watch watch;
    tb_signal_watch_begin(&watch, tb_state_of(module)->main_thread);  /* (releases the GIL) */
    const tb_status status = tb_resample(&s.g, stats, bytes, n, row, stride, n_samples, sums,
                                         threads, &watch);
    tb_signal_watch_end(&watch);
    if (status != TB_OK) {
        PyBuffer_Release(&s.view);  /* the state as it was */
        Py_CLEAR(out);
        tb_raise_job_status(status);
        goto done;
    }
    if (float32 && !negative && !tb_below(sums, n_samples * row, FLOAT32_EXACT)) {
        PyBuffer_Release(&s.view);  /* the state as it was: the caller's path starts over */
        Py_CLEAR(out);
        tb_raise(TB_OVERFLOW, "a resampled sum is beyond float32's exact integers (2**24)");
        goto done;
    }
    state_close(&s);
done:
    for (Py_ssize_t j = 0; j < opened; j++)
        PyBuffer_Release(&views[j]);
    PyMem_Free(views);
    PyMem_Free(stats_block);
    Py_DECREF(tables);
    return out;
}


PyObject *core_randomization_sums(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"masks", "first", "others", "width", NULL};
    Py_buffer masks, first;
    PyObject *others_obj;
    Py_ssize_t width;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*y*On", (char **)kwlist, &masks, &first, &others_obj,
                                     &width))
        return NULL;
    PyObject *others = NULL, *a_obj = NULL, *b_obj = NULL, *result = NULL;
    int32_t *delta = NULL, *table = NULL, *acc = NULL;
    int64_t *base = NULL, *both = NULL, *gain = NULL;
    uint8_t *patterns = NULL;
    others = PySequence_Fast(others_obj, "others must be a sequence of buffers");
    if (others == NULL)
        goto done;
    const Py_ssize_t k = PySequence_Fast_GET_SIZE(others);
    if (k < 1 || width < 1 || first.len == 0 || first.len % (8 * width) != 0) {
        PyErr_SetString(PyExc_ValueError, "need int64 rows of `width` and at least one other table");
        goto done;
    }
    const Py_ssize_t n = first.len / (8 * width), row = k * width;
    const Py_ssize_t cols = (row + COLUMNS_AR - 1) / COLUMNS_AR * COLUMNS_AR;  /* padded */
    if (masks.len % n != 0) {
        PyErr_SetString(PyExc_ValueError, "masks must hold n_trials rows of one byte per segment");
        goto done;
    }
    const Py_ssize_t n_trials = masks.len / n, groups = (n + 3) / 4;
    delta = PyMem_Calloc((size_t)n * cols, sizeof *delta);
    base = PyMem_Calloc((size_t)row, sizeof *base);
    both = PyMem_Calloc((size_t)row, sizeof *both);
    table = PyMem_Malloc(16 * COLUMNS_AR * sizeof *table);
    acc = PyMem_Malloc((size_t)(n_trials ? n_trials : 1) * COLUMNS_AR * sizeof *acc);
    patterns = PyMem_Malloc((size_t)(n_trials ? n_trials : 1) * groups);
    gain = PyMem_Malloc((size_t)(n_trials ? n_trials : 1) * cols * sizeof *gain);
    if (delta == NULL || base == NULL || both == NULL || table == NULL || patterns == NULL
            || gain == NULL || acc == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *f = first.buf;
    for (Py_ssize_t j = 0; j < k; j++) {
        Py_buffer view;
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(others, j), &view, PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        if (view.len != first.len) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "every table must have the shape of `first`");
            goto done;
        }
        const int64_t *o = view.buf;
        for (Py_ssize_t c = 0; c < width; c++) {
            int64_t magnitude = 0, sum_f = 0, sum_o = 0;
            int overflow = 0;
            for (Py_ssize_t i = 0; i < n; i++) {
                const int64_t x = f[i * width + c], y = o[i * width + c];
                int64_t d;
                overflow |= TB_SUB_OVERFLOW_I64(x, y, &d) || d == INT64_MIN;
                if (!overflow)
                    overflow |= TB_ADD_OVERFLOW_I64(magnitude, d < 0 ? -d : d, &magnitude);
                overflow |= TB_ADD_OVERFLOW_I64(sum_f, x, &sum_f);
                overflow |= TB_ADD_OVERFLOW_I64(sum_o, y, &sum_o);
                delta[i * cols + j * width + c] = (int32_t)d;
            }
            if (overflow || magnitude >= (INT64_C(1) << 31)
                    || TB_ADD_OVERFLOW_I64(sum_f, sum_o, &both[j * width + c])) {
                PyBuffer_Release(&view);
                tb_raise(TB_OVERFLOW, "statistics too large to randomize in int32 "
                                      "(sum of |differences| >= 2**31)");
                goto done;
            }
            base[j * width + c] = sum_o;
        }
        PyBuffer_Release(&view);
    }
    const uint8_t *m = masks.buf;
    for (Py_ssize_t r = 0; r < n_trials; r++)
        for (Py_ssize_t g = 0; g < groups; g++) {
            uint8_t p = 0;
            for (int bit = 0; bit < 4 && 4 * g + bit < n; bit++)
                p |= (uint8_t)((m[r * n + 4 * g + bit] != 0) << bit);
            patterns[g * n_trials + r] = p;
        }
    a_obj = PyBytes_FromStringAndSize(NULL, n_trials * row * 8);
    b_obj = PyBytes_FromStringAndSize(NULL, n_trials * row * 8);
    if (a_obj == NULL || b_obj == NULL)
        goto done;
    int64_t *a = (int64_t *)PyBytes_AS_STRING(a_obj), *b = (int64_t *)PyBytes_AS_STRING(b_obj);
    Py_BEGIN_ALLOW_THREADS
    tb_masked_sums(delta, n, cols, patterns, n_trials, table, acc, gain);
    for (Py_ssize_t r = 0; r < n_trials; r++)
        for (Py_ssize_t c = 0; c < row; c++) {
            a[r * row + c] = base[c] + gain[r * cols + c];
            b[r * row + c] = both[c] - a[r * row + c];
        }
    Py_END_ALLOW_THREADS
    result = PyTuple_Pack(2, a_obj, b_obj);
done:
    Py_XDECREF(a_obj);
    Py_XDECREF(b_obj);
    Py_XDECREF(others);
    PyMem_Free(delta);
    PyMem_Free(base);
    PyMem_Free(both);
    PyMem_Free(table);
    PyMem_Free(acc);
    PyMem_Free(patterns);
    PyMem_Free(gain);
    PyBuffer_Release(&masks);
    PyBuffer_Release(&first);
    return result;
}


/* ------------------------------------------------------------------ */
/* BLEU of summed rows, in the arithmetic of the sums' NumPy dtype      */

/* bleu_rows(sums, max_order, smooth, smooth_value, effective_order, float32, in_place,
 *           python_sum) -> bytes of doubles
 *
 * What BLEUBatchScorer.score_rows (exact) gives for the int64 rows `sums`
 * holding float32 sums (float32=True) or int64 sums: the same IEEE operations
 * in the same types, math's log/exp (the C library). `python_sum` is the
 * builtin sum (Python >= 3.12 compensates) or None for a left-to-right sum.
 */
PyObject *core_bleu_rows(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"sums", "max_order", "smooth", "smooth_value", "effective_order",
                                         "float32", "in_place", "python_sum", NULL};
    PyObject *sums_obj, *python_sum;
    int max_order, smooth, effective_order, float32, in_place;
    double k;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OiidpppO", (char **)kwlist, &sums_obj, &max_order, &smooth,
                                     &k, &effective_order, &float32, &in_place, &python_sum))
        return NULL;
    if (max_order < 1 || max_order > 64 || smooth < TB_SMOOTH_NONE || smooth > TB_SMOOTH_EXP) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= max_order <= 64 and a known smoothing code");
        return NULL;
    }
    if (python_sum == Py_None)
        python_sum = NULL;
    Py_buffer view;
    const Py_ssize_t width = 2 + 2 * (Py_ssize_t)max_order;
    size_t n_rows;
    if (tb_int64_rows_buffer(sums_obj, &view, (size_t)width, "sums", &n_rows) < 0)
        return NULL;
    const Py_ssize_t rows = (Py_ssize_t)n_rows;
    PyObject *out = PyBytes_FromStringAndSize(NULL, rows * 8);
    if (out == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    double *scores = (double *)PyBytes_AS_STRING(out);
    const tb_bleu_params params = {max_order, smooth, k, effective_order};
    double logs[64];
    for (Py_ssize_t r = 0; r < rows; r++) {
        const int64_t *row = (const int64_t *)view.buf + r * width;
        if (python_sum == NULL) {  /* left to right, as sum() before 3.12 */
            scores[r] = float32    ? tb_bleu_of_row(row, &params, TB_BLEU_F32)
                        : in_place ? tb_bleu_of_row(row, &params, TB_BLEU_F64_TRUNC)
                                   : tb_bleu_of_row(row, &params, TB_BLEU_F64);
            continue;
        }
        double bp, plain_sum;
        int eff;
        int any = float32    ? tb_bleu_terms(row, &params, TB_BLEU_F32, logs, &plain_sum, &eff, &bp)
                  : in_place ? tb_bleu_terms(row, &params, TB_BLEU_F64_TRUNC, logs, &plain_sum, &eff, &bp)
                             : tb_bleu_terms(row, &params, TB_BLEU_F64, logs, &plain_sum, &eff, &bp);
        if (!any) {
            scores[r] = 0.0;
            continue;
        }
        /* the builtin, as the scalar code calls it (ints for log(0)) */
        PyObject *terms = PyList_New(eff), *total_obj = NULL;
        for (int i = 0; terms != NULL && i < eff; i++) {
            PyObject *term = logs[i] == TB_LOG_ZERO ? PyLong_FromDouble(TB_LOG_ZERO) : PyFloat_FromDouble(logs[i]);
            if (term == NULL)
                Py_CLEAR(terms);
            else
                PyList_SET_ITEM(terms, i, term);
        }
        if (terms != NULL)
            total_obj = PyObject_CallOneArg(python_sum, terms);
        Py_XDECREF(terms);
        double sum = total_obj == NULL ? -1.0 : PyFloat_AsDouble(total_obj);
        Py_XDECREF(total_obj);
        if (PyErr_Occurred()) {
            PyBuffer_Release(&view);
            Py_DECREF(out);
            return NULL;
        }
        scores[r] = bp * exp(sum / eff);
    }
    PyBuffer_Release(&view);
    return out;
}


/* ------------------------------------------------------------------ */
/* NumPy's pairwise sum                                                */

PyObject *core_pairwise_sum(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"values", NULL};
    PyObject *values_obj;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", (char **)kwlist, &values_obj))
        return NULL;
    PyObject *values = PySequence_Fast(values_obj, "values must be a sequence of floats");
    if (values == NULL)
        return NULL;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
    PyObject **items = PySequence_Fast_ITEMS(values);
    double *a = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
    PyObject *result = NULL;
    if (a == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        a[i] = PyFloat_AsDouble(items[i]);
        if (a[i] == -1.0 && PyErr_Occurred())
            goto done;
    }
    result = PyFloat_FromDouble(tb_pairwise_sum(a, n));
done:
    PyMem_Free(a);
    Py_DECREF(values);
    return result;
}
