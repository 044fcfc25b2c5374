/* truebleu core: BLEU's entry points on prepared segments and on statistics
 * (bindings): pair_statistics, cross_statistics (pairwise matrices),
 * bleu_scores, column_sums and tokenized_periods. */
#include "bleu/bindings.h"
#include "bleu/jobs.h"
#include "bleu/ngram.h"
#include "bleu/prepared.h"
#include "bleu/score.h"
#include "bleu/segments.h"
#include "runtime/buffers.h"
#include "runtime/errors.h"
#include "runtime/portable.h"
#include "runtime/signals.h"
#include "state.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* pair_statistics(hyp_prepared, ref_prepared, hyp_index, ref_index, max_order, threads, out)
 * Row p compares sequence 0 of hyp segment hyp_index[p] with every sequence
 * of ref segment ref_index[p]; with both indexes None, all pairs hyp-major. */

PyObject *core_pair_statistics(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hyp_prepared", "ref_prepared", "hyp_index", "ref_index", "max_order",
                                         "threads", "out", NULL};
    const tb_state *st = tb_state_of(module);
    PreparedObject *hp, *rp;
    PyObject *hidx_obj, *ridx_obj, *out;
    int max_order, threads;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!OOiiO", (char **)kwlist, st->prepared_type, &hp,
                                     st->prepared_type, &rp, &hidx_obj, &ridx_obj, &max_order, &threads, &out))
        return NULL;
    if (tb_check_order(max_order) < 0)
        return NULL;
    Py_buffer view = {0};
    PyObject *result = NULL;
    size_t npairs, nr = 0;
    int64_t *hidx = NULL, *ridx = NULL;  /* private copies: the workers read them without the GIL */
    if (hidx_obj == Py_None && ridx_obj == Py_None) {
        npairs = (size_t)hp->n * (size_t)rp->n;
    } else {
        if (tb_copy_index_buffer(hidx_obj, hp->n, &hidx, &npairs) < 0 ||
            tb_copy_index_buffer(ridx_obj, rp->n, &ridx, &nr) < 0)
            goto done;
        if (nr != npairs) {
            PyErr_SetString(PyExc_TypeError, "indexes must be two int64 ('q') buffers of equal length");
            goto done;
        }
    }
    if (tb_int64_out_buffer(out, &view, npairs * tb_row_width(max_order), "out") < 0)
        goto done;
    if (npairs) {
        tb_bleu_job j;
        tb_bleu_job_init(&j, TB_BLEU_PAIRS, npairs, 256);
        j.max_order = max_order;
        j.hyp_segs = hp->segs;
        j.ref_segs = rp->segs;
        j.hyp_index = hidx;
        j.ref_index = ridx;
        j.n_ref_segs = (size_t)rp->n;
        j.out_rows = view.buf;
        if (tb_raise_job_status(tb_job_run_released(&j.base, threads, st->main_thread)) < 0)
            goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(hidx);
    PyMem_Free(ridx);
    tb_buffer_release(&view);
    return result;
}

/* ------------------------------------------------------------------ */
/* cross_statistics(prepared, a_index, b_index, max_order, threads, rows, scores,
 *                  smooth, smooth_value, effective_order)
 * prepared holds ONE segment whose sequences are the distinct strings. Row
 * i * len(b) + j: sequence a_index[i] against the single reference
 * b_index[j]; with `scores` (a double buffer, or None) also its BLEU. */

/* The calling thread's poll outside a job: a raised signal handler stops the work. */
typedef struct {
    tb_poll base;  /* first */
    tb_signal_watch *watch;
    int stopped;
} watch_poll;

static int watch_poll_check(tb_poll *p)
{
    watch_poll *w = (watch_poll *)p;
    p->budget = TB_POLL_UNITS;
    w->stopped = w->stopped || tb_signal_watch_raised(w->watch);
    return w->stopped;
}

/* The distinct values of b (each < nseq), marked in chosen (nseq bytes) and listed in *out. */
static int distinct_indexes(const int64_t *b, size_t nb, size_t nseq, uint8_t **chosen, uint32_t **out,
                            size_t *nout)
{
    *chosen = calloc(nseq ? nseq : 1, 1);
    *out = malloc((nb ? nb : 1) * sizeof(uint32_t));
    *nout = 0;
    if (!*chosen || !*out)
        return -1;
    for (size_t k = 0; k < nb; k++) {
        if (!(*chosen)[b[k]]) {
            (*chosen)[b[k]] = 1;
            (*out)[(*nout)++] = (uint32_t)b[k];
        }
    }
    return 0;
}

PyObject *core_cross_statistics(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"prepared", "a_index", "b_index", "max_order", "threads", "rows",
                                         "scores", "smooth", "smooth_value", "effective_order", NULL};
    const tb_state *st = tb_state_of(module);
    PreparedObject *prep;
    PyObject *a_obj, *b_obj, *rows_obj, *scores_obj;
    int max_order, threads, smooth, effective_order;
    double smooth_value;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OOiiOOidp", (char **)kwlist, st->prepared_type, &prep,
                                     &a_obj, &b_obj, &max_order, &threads, &rows_obj, &scores_obj, &smooth,
                                     &smooth_value, &effective_order))
        return NULL;
    if (tb_check_order(max_order) < 0)
        return NULL;
    if (prep->n != 1) {
        PyErr_SetString(PyExc_ValueError, "cross_statistics needs a Prepared with one segment");
        return NULL;
    }
    if (tb_check_smooth(smooth) < 0)
        return NULL;
    Py_buffer rv = {0}, sv = {0};
    PyObject *result = NULL;
    tb_profiles *prof = NULL;
    const tb_seg *seg = prep->segs[0];
    int64_t *a = NULL, *b = NULL;  /* private copies: the workers read them without the GIL */
    size_t na = 0, nb = 0;
    if (tb_copy_index_buffer(a_obj, seg->nseq, &a, &na) < 0 || tb_copy_index_buffer(b_obj, seg->nseq, &b, &nb) < 0)
        goto done;
    if (tb_int64_out_buffer(rows_obj, &rv, na * nb * tb_row_width(max_order), "rows") < 0)
        goto done;
    if (scores_obj != Py_None
            && tb_out_buffer(scores_obj, &sv, na * nb, TB_ITEM_FLOAT64, "scores",
                             "scores buffer must hold one double per cell") < 0)
        goto done;
    tb_status status = TB_OK;
    uint8_t *chosen = NULL;
    uint32_t *refs = NULL;
    size_t nrefs = 0;
    tb_signal_watch watch;
    tb_signal_watch_begin(&watch, st->main_thread);
    /* the profiles of long segments take a while too: the caller polls there */
    watch_poll wp = {{watch_poll_check, TB_POLL_UNITS}, &watch, 0};
    prof = tb_profiles_build(seg, max_order, &wp.base);
    if (!prof || distinct_indexes(b, nb, seg->nseq, &chosen, &refs, &nrefs) < 0 ||
        tb_profiles_index(prof, chosen, &wp.base) < 0) {
        status = wp.stopped ? TB_INTERRUPTED : TB_NOMEM;
    } else if (na && nb) {
        tb_cross_job j;
        tb_cross_job_init(&j, na);
        j.prof = prof;
        j.a = a;
        j.b = b;
        j.na = na;
        j.nb = nb;
        j.nseq = seg->nseq;
        j.refs = refs;
        j.nrefs = nrefs;
        j.width = tb_row_width(max_order);
        j.rows = rv.buf;
        j.scores = sv.obj ? sv.buf : NULL;
        j.bleu = (tb_bleu_params){max_order, smooth, smooth_value, effective_order};
        /* cells are cheap (~0.15 us): more threads only pay off for larger matrices */
        int nthreads = threads < 1 ? 1 : threads;
        if (na * nb < 4096)
            nthreads = 1;
        status = tb_job_run(&j.base, nthreads, &watch);
    }
    tb_signal_watch_end(&watch);
    free(chosen);
    free(refs);
    if (tb_raise_job_status(status) < 0)
        goto done;
    result = Py_NewRef(Py_None);
done:
    tb_profiles_free(prof);
    PyMem_Free(a);
    PyMem_Free(b);
    tb_buffer_release(&rv);
    tb_buffer_release(&sv);
    return result;
}

/* ------------------------------------------------------------------ */
/* bleu_scores(rows, max_order, smooth, smooth_value, effective_order, out)
 * sacreBLEU's compute_bleu for each row (bleu/score.h). Exact only where
 * Python's float sum() adds left to right (before 3.12); SUM_IS_PLAIN tells
 * Python whether to use it. */

PyObject *core_bleu_scores(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"rows", "max_order", "smooth", "smooth_value", "effective_order",
                                         "out", NULL};
    PyObject *rows_obj, *out;
    int max_order, smooth, effective_order;
    double smooth_value;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OiidpO", (char **)kwlist, &rows_obj, &max_order, &smooth,
                                     &smooth_value, &effective_order, &out))
        return NULL;
    if (tb_check_order(max_order) < 0 || tb_check_smooth(smooth) < 0)
        return NULL;
    Py_buffer rv = {0}, ov = {0};
    PyObject *result = NULL;
    size_t width = tb_row_width(max_order);
    size_t n;
    if (tb_int64_rows_buffer(rows_obj, &rv, width, "rows", &n) < 0
            || tb_out_buffer(out, &ov, n, TB_ITEM_FLOAT64, "out", "output buffer must hold one double per row") < 0)
        goto done;
    const tb_bleu_params params = {max_order, smooth, smooth_value, effective_order};
    const int64_t *rows = rv.buf;
    double *scores = ov.buf;
    for (size_t i = 0; i < n; i++)
        scores[i] = tb_bleu_of_row(rows + i * width, &params, TB_BLEU_F64);
    result = Py_NewRef(Py_None);
done:
    tb_buffer_release(&rv);
    tb_buffer_release(&ov);
    return result;
}

/* ------------------------------------------------------------------ */
/* column_sums(table, width) -> list or None                           */

/* The column sums of a table of int64 ("q") or double ("d") rows, as the pure
 * Python loop of truebleu.stats.python_column_sums gives them: integers
 * exactly, doubles added one at a time in row order from 0.0 (no compensated
 * or reordered summation). None when the table is of another type or an int64
 * sum would overflow: the caller then sums in Python (unbounded integers). */
PyObject *core_column_sums(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"table", "width", NULL};
    PyObject *table;
    Py_ssize_t width;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "On", (char **)kwlist, &table, &width))
        return NULL;
    if (width < 1) {
        PyErr_SetString(PyExc_ValueError, "width must be >= 1");
        return NULL;
    }
    Py_buffer v;
    if (PyObject_GetBuffer(table, &v, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    PyObject *result = NULL;
    const char *fmt = v.format ? v.format : "B";
    int ints = strcmp(fmt, "q") == 0, doubles = strcmp(fmt, "d") == 0;
    void *acc = NULL;
    if ((!ints && !doubles) || v.itemsize != 8) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if ((size_t)v.len % (8 * (size_t)width)) {
        PyErr_SetString(PyExc_ValueError, "the table is not a whole number of rows");
        goto done;
    }
    size_t n = (size_t)v.len / (8 * (size_t)width), w = (size_t)width;
    acc = PyMem_Calloc(w, 8);
    if (!acc) {
        PyErr_NoMemory();
        goto done;
    }
    if (ints) {
        const int64_t *row = v.buf;
        int64_t *sum = acc;
        for (size_t i = 0; i < n; i++, row += w)
            for (size_t c = 0; c < w; c++)
                if (TB_ADD_OVERFLOW_I64(sum[c], row[c], &sum[c])) {
                    result = Py_NewRef(Py_None);
                    goto done;
                }
    } else {
        const double *row = v.buf;
        double *sum = acc;  /* 0.0, then += in row order: Python's `total += value` */
        for (size_t i = 0; i < n; i++, row += w)
            for (size_t c = 0; c < w; c++)
                sum[c] += row[c];
    }
    result = PyList_New(width);
    for (size_t c = 0; result && c < w; c++) {
        PyObject *x = ints ? PyLong_FromLongLong(((int64_t *)acc)[c]) : PyFloat_FromDouble(((double *)acc)[c]);
        if (!x)
            Py_CLEAR(result);
        else
            PyList_SET_ITEM(result, c, x);
    }
done:
    PyMem_Free(acc);
    PyBuffer_Release(&v);
    return result;
}

/* ------------------------------------------------------------------ */
/* tokenized_periods(hypotheses) -> int                                */

/* How many of `hypotheses` end in " .", as sum(1 for h in hypotheses if
 * h.endswith(" .")) counts them (tb_ends_in_period), for lines the core does
 * not read itself (the statistics calls count theirs as they gather them). */
PyObject *core_tokenized_periods(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hypotheses", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *seq_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", (char **)kwlist, &seq_obj))
        return NULL;
    PyObject *seq = PySequence_Fast(seq_obj, "hypotheses must be a sequence of str");
    if (!seq)
        return NULL;
    Py_ssize_t count = 0;
    /* the size is read again at each step: an endswith of a str subclass may change a list */
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        /* the strings lie all over memory: ask for line i + 16's object and for
         * line i + 8's last characters ahead of time (a cold list: 1.4x faster) */
        if (i + 16 < PySequence_Fast_GET_SIZE(seq))
            TB_PREFETCH(PySequence_Fast_GET_ITEM(seq, i + 16));
        if (i + 8 < PySequence_Fast_GET_SIZE(seq)) {
            PyObject *ahead = PySequence_Fast_GET_ITEM(seq, i + 8);
            if (PyUnicode_CheckExact(ahead) && PyUnicode_GET_LENGTH(ahead) >= 2)
                TB_PREFETCH((const char *)PyUnicode_DATA(ahead) +
                                   (PyUnicode_GET_LENGTH(ahead) - 2) * PyUnicode_KIND(ahead));
        }
        int yes = tb_ends_in_period(st, PySequence_Fast_GET_ITEM(seq, i));
        if (yes < 0) {
            Py_DECREF(seq);
            return NULL;
        }
        count += yes;
    }
    Py_DECREF(seq);
    return PyLong_FromSsize_t(count);
}
