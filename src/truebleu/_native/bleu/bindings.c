/* truebleu core: BLEU's entry points that tokenize (bindings): prepare,
 * prepare_streams, statistics, sentence_statistics, stream_statistics and
 * stream_statistics_utf8.
 *
 * Each collects what it needs with the GIL (bleu/segments.c: new references to
 * the strings, str.lower() results for non-ASCII text, buffer views), then
 * runs a job of bleu/jobs.c without the GIL on the runtime's threads.
 */
#include "bleu/bindings.h"
#include "bleu/groups.h"
#include "bleu/jobs.h"
#include "bleu/ngram.h"
#include "bleu/prepared.h"
#include "bleu/segments.h"
#include "runtime/buffers.h"
#include "runtime/errors.h"
#include "state.h"
#include "text/text.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* prepare(segments, mode, lowercase, threads, loose=False) -> Prepared */

/* Tokenizes gathered segments into a new Prepared (g is left for the caller to free). */
static PyObject *prepare_gathered(const tb_state *st, const tb_segments *g, int mode, int lowercase, int threads)
{
    Py_ssize_t nseg = g->nseg;
    tb_seg **segs = calloc(nseg ? nseg : 1, sizeof(tb_seg *));
    if (!segs)
        return PyErr_NoMemory();
    tb_bleu_job j;
    tb_bleu_job_init(&j, TB_BLEU_PREPARE, (size_t)nseg, 16);
    j.mode = mode;
    j.texts = g->texts.texts;
    j.offsets = g->offsets;
    j.out_segs = segs;
    if (tb_bleu_run_job(&j, threads, st) < 0) {
        tb_prepared_free_segs(segs, nseg);
        return NULL;
    }
    return tb_prepared_new(st->prepared_type, segs, nseg, mode, lowercase);
}

PyObject *core_prepare(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"segments", "mode", "lowercase", "threads", "loose", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *segments;
    int mode, lowercase, threads, loose = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oipi|p", (char **)kwlist, &segments, &mode, &lowercase,
                                     &threads, &loose))
        return NULL;
    if (tb_check_mode(mode) < 0)
        return NULL;
    tb_segments g;
    if (tb_gather_segments(segments, st, lowercase, loose, &g) < 0)
        return NULL;
    PyObject *result = prepare_gathered(st, &g, mode, lowercase, threads);
    tb_segments_free(&g);
    return result;
}

/* prepare_streams(streams, mode, lowercase, threads) -> Prepared */
PyObject *core_prepare_streams(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"streams", "mode", "lowercase", "threads", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *streams;
    int mode, lowercase, threads;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oipi", (char **)kwlist, &streams, &mode, &lowercase, &threads))
        return NULL;
    if (tb_check_mode(mode) < 0)
        return NULL;
    tb_segments g;
    if (tb_gather_streams(streams, st, lowercase, 0, &g) < 0)
        return NULL;
    PyObject *result = prepare_gathered(st, &g, mode, lowercase, threads);
    tb_segments_free(&g);
    return result;
}

/* ------------------------------------------------------------------ */
/* statistics(hypotheses, prepared, mode, lowercase, max_order, threads, out, totals=None)
 *   -> tokenized_periods
 * Rows into out, or (out None) only their sum added to totals; returns how many
 * hypotheses end in " ." */

PyObject *core_statistics(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hypotheses", "prepared", "mode", "lowercase", "max_order",
                                         "threads", "out", "totals", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *hyps, *out, *totals = NULL;
    PreparedObject *prep;
    int mode, lowercase, max_order, threads;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!ipiiO|O", (char **)kwlist, &hyps, st->prepared_type,
                                     &prep, &mode, &lowercase, &max_order, &threads, &out, &totals))
        return NULL;
    if (tb_check_mode(mode) < 0 || tb_check_order(max_order) < 0)
        return NULL;
    PyObject *seq = tb_as_tuple(hyps, "hypotheses must be a sequence of str");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), periods = 0;
    tb_gather texts;
    tb_gather_start(&texts, st->lower);
    tb_bleu_output output = {0};
    PyObject *result = NULL;
    if (n != prep->n) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", n, prep->n);
        goto done;
    }
    if (tb_gather_alloc(&texts, (size_t)n) < 0)
        goto done;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t k = 0; k < n; k++) {
        if (tb_gather_set(&texts, (size_t)k, items[k], lowercase ? TB_GATHER_LOWER : 0) < 0)
            goto done;
        int yes = tb_ends_in_period(st, items[k]);
        if (yes < 0)
            goto done;
        periods += yes;
    }
    tb_bleu_job j;
    tb_bleu_job_init(&j, TB_BLEU_STATS, (size_t)n, 32);
    j.mode = mode;
    j.max_order = max_order;
    j.texts = texts.texts;
    j.ref_segs = prep->segs;
    if (tb_bleu_output_get(&output, &j, out, totals, (size_t)n) < 0 || tb_bleu_run_job(&j, threads, st) < 0)
        goto done;
    result = PyLong_FromSsize_t(periods);
done:
    tb_bleu_output_release(&output);
    tb_gather_free(&texts);
    Py_DECREF(seq);
    return result;
}

/* ------------------------------------------------------------------ */
/* one pass: references and hypotheses tokenized together, nothing kept */

/* The one-pass job shared by sentence_statistics and stream_statistics: each
 * worker tokenizes segment k's references (g) and then hypothesis k of the
 * tuple seq, and writes its row into out (or adds it to totals: tb_bleu_output_get);
 * nothing is kept. With bleu, it also writes the row's BLEU into the double
 * buffer `scores` (n items; out may then be None). With periods, counts the
 * hypotheses that end in " .". 0 ok, -1 error. */
static int run_one_pass(const tb_state *st, PyObject *seq, const tb_segments *g, int mode, int lowercase,
                        int max_order, int threads, PyObject *out, PyObject *totals,
                        PyObject *scores, const tb_bleu_params *bleu, Py_ssize_t *periods)
{
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    tb_gather texts;
    tb_gather_start(&texts, st->lower);
    tb_bleu_output output = {0};
    tb_groups groups = {0};
    int rc = -1;
    if (tb_gather_alloc(&texts, (size_t)n) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < n; k++)
        if (tb_gather_hypothesis(st, &texts, (size_t)k, PyTuple_GET_ITEM(seq, k), lowercase, k, periods) < 0)
            goto done;
    tb_bleu_job j;
    tb_bleu_job_init(&j, TB_BLEU_SENT, (size_t)n, 32);
    j.mode = mode;
    j.max_order = max_order;
    j.texts = texts.texts;
    j.ref_texts = g->texts.texts;
    j.offsets = g->offsets;
    if (tb_group_by_references(j.texts, j.ref_texts, j.offsets, (size_t)n, &groups) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    j.order = groups.order;
    j.looks = groups.looks;
    if (bleu) {
        if (tb_out_buffer(scores, &output.scores, (size_t)n, TB_ITEM_FLOAT64, "scores",
                          "scores must hold one double per hypothesis") < 0)
            goto done;
        j.scores = output.scores.buf;
        j.bleu = *bleu;
    }
    if (tb_bleu_output_get(&output, &j, out, totals, (size_t)n) < 0)
        goto done;
    rc = tb_bleu_run_job(&j, threads, st);
done:
    tb_groups_release(&groups);
    tb_bleu_output_release(&output);
    tb_gather_free(&texts);
    return rc;
}

/* sentence_statistics(hypotheses, references_per_hyp, mode, lowercase, max_order, threads, out,
 *                     scores=None, smooth=3, smooth_value=0.0, effective_order=True) -> int
 * prepare() (loose) and statistics() in one pass: each worker tokenizes a
 * segment's references and then its hypothesis, with nothing kept. With
 * scores (a double buffer, one per hypothesis), the worker also writes each
 * row's BLEU there with the smoothing given (bleu_scores' arithmetic), and out
 * may be None: no rows. Returns -1, or the index of the first hypothesis
 * without any reference (then nothing is computed: the caller raises). */
PyObject *core_sentence_statistics(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hypotheses", "references_per_hyp", "mode", "lowercase", "max_order",
                                         "threads", "out", "scores", "smooth", "smooth_value",
                                         "effective_order", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *hyps, *refs, *out, *scores = Py_None;
    int mode, lowercase, max_order, threads, smooth = TB_SMOOTH_EXP, effective_order = 1;
    double smooth_value = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOipiiO|Oidp", (char **)kwlist, &hyps, &refs, &mode,
                                     &lowercase, &max_order, &threads, &out, &scores, &smooth, &smooth_value,
                                     &effective_order))
        return NULL;
    if (tb_check_mode(mode) < 0 || tb_check_order(max_order) < 0 || tb_check_smooth(smooth) < 0)
        return NULL;
    const tb_bleu_params bleu = {max_order, smooth, smooth_value, effective_order};
    PyObject *seq = tb_as_tuple(hyps, "hypotheses must be a sequence of str");
    if (!seq)
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    tb_segments g;
    PyObject *result = NULL;
    if (tb_gather_segments(refs, st, lowercase, 1, &g) < 0)
        goto done;
    if (g.nseg != n) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference lists", n, g.nseg);
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (g.offsets[k + 1] == g.offsets[k]) {
            result = PyLong_FromSsize_t(k);
            goto done;
        }
    }
    if (run_one_pass(st, seq, &g, mode, lowercase, max_order, threads, out, NULL,
                     scores, scores == Py_None ? NULL : &bleu, NULL) < 0)
        goto done;
    result = PyLong_FromLong(-1);
done:
    tb_segments_free(&g);
    Py_DECREF(seq);
    return result;
}

/* stream_statistics(hypotheses, streams, mode, lowercase, max_order, threads, out, totals=None)
 *   -> (num_refs, tokenized_periods)
 * A cold corpus: prepare_streams() and statistics() in one pass, as
 * sentence_statistics: each worker tokenizes a segment's references and then
 * its hypothesis, writes the row (out None: adds it to totals), and keeps
 * nothing. Returns the references per segment (-1 when the number varies) and
 * how many hypotheses end in " .". */
PyObject *core_stream_statistics(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hypotheses", "streams", "mode", "lowercase", "max_order",
                                         "threads", "out", "totals", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *hyps, *streams, *out, *totals = NULL;
    int mode, lowercase, max_order, threads;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOipiiO|O", (char **)kwlist, &hyps, &streams, &mode,
                                     &lowercase, &max_order, &threads, &out, &totals))
        return NULL;
    if (tb_check_mode(mode) < 0 || tb_check_order(max_order) < 0)
        return NULL;
    tb_segments g;
    if (tb_gather_streams(streams, st, lowercase, 1, &g) < 0)
        return NULL;
    PyObject *result = NULL;
    PyObject *seq = tb_as_tuple(hyps, "hypotheses must be a sequence of str");
    if (!seq)
        goto done;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    if (n != g.nseg) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", n, g.nseg);
        goto done;
    }
    Py_ssize_t periods = 0;
    if (run_one_pass(st, seq, &g, mode, lowercase, max_order, threads, out, totals, NULL, NULL, &periods) < 0)
        goto done;
    result = Py_BuildValue("ln", g.common_count, periods);
done:
    tb_segments_free(&g);
    Py_XDECREF(seq);
    return result;
}

/* stream_statistics_utf8(buffers, ends, n, mode, lowercase, max_order, threads, rows, totals)
 *   -> (consumed, tokenized_periods)
 * The command line's chunk, straight from the bytes read: buffers[0] holds the
 * hypotheses, each further buffer one reference file, each valid UTF-8 (the
 * reader checked it: tb_utf8_scan) with its first n lines ("\n"-ended, the last
 * one may end at ends[f] instead: a file's last line) in buffers[f][0 .. ends[f]).
 * Fills rows (n statistics rows; None: the rows are not kept), adds them to totals
 * (one row), and returns the bytes of each buffer the n lines took and the count of
 * hypotheses that end in " ." once str.rstrip() is applied (sacreBLEU's
 * tokenized-output warning). */
PyObject *core_stream_statistics_utf8(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"buffers", "ends", "n", "mode", "lowercase", "max_order",
                                         "threads", "rows", "totals", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *buffers_obj, *ends_obj, *rows, *totals_obj;
    Py_ssize_t n;
    int mode, lowercase, max_order, threads;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOnipiiOO", (char **)kwlist, &buffers_obj, &ends_obj, &n,
                                     &mode, &lowercase, &max_order, &threads, &rows, &totals_obj))
        return NULL;
    if (tb_check_mode(mode) < 0 || tb_check_order(max_order) < 0)
        return NULL;
    PyObject *buffers = tb_as_tuple(buffers_obj, "buffers must be a sequence of buffers");
    PyObject *ends = buffers ? tb_as_tuple(ends_obj, "ends must be a sequence of int") : NULL;
    Py_ssize_t nf = buffers ? PyTuple_GET_SIZE(buffers) : 0;
    Py_buffer *views = PyMem_Calloc(nf ? nf : 1, sizeof(Py_buffer));
    Py_buffer rows_view = {0}, totals_view = {0};
    tb_gather hyps, refs;
    tb_gather_start(&hyps, st->lower);
    tb_gather_start(&refs, st->lower);
    size_t *offsets = NULL;
    tb_groups groups = {0};
    int64_t *own_rows = NULL;  /* rows=None: the job's rows, summed and dropped */
    PyObject *consumed = NULL, *result = NULL;
    const size_t width = tb_row_width(max_order);
    if (!ends)
        goto done;
    if (!views) {
        PyErr_NoMemory();
        goto done;
    }
    if (nf < 2 || PyTuple_GET_SIZE(ends) != nf || n < 1) {
        PyErr_SetString(PyExc_ValueError, "a hypothesis buffer, reference buffers and n >= 1 lines");
        goto done;
    }
    if (tb_gather_alloc(&hyps, (size_t)n) < 0 || tb_gather_alloc(&refs, (size_t)n * (size_t)(nf - 1)) < 0 ||
        !(consumed = PyTuple_New(nf)))
        goto done;
    if (!(offsets = PyMem_Malloc(((size_t)n + 1) * sizeof(size_t)))) {
        PyErr_NoMemory();
        goto done;
    }
    long periods = 0;
    for (Py_ssize_t f = 0; f < nf; f++) {
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(buffers, f), &views[f], PyBUF_SIMPLE) < 0)
            goto done;
        Py_ssize_t end = PyLong_AsSsize_t(PyTuple_GET_ITEM(ends, f));
        if (end == -1 && PyErr_Occurred())
            goto done;
        if (end < 0 || end > views[f].len) {
            PyErr_Format(PyExc_ValueError, "end %zd outside a buffer of %zd bytes", end, views[f].len);
            goto done;
        }
        const uint8_t *d = views[f].buf, *stop = d + end;
        for (Py_ssize_t i = 0; i < n; i++) {
            const uint8_t *nl = memchr(d, '\n', (size_t)(stop - d));
            if (!nl && (i != n - 1 || d == stop)) {
                PyErr_Format(PyExc_ValueError, "buffer %zd holds fewer than %zd lines", f, n);
                goto done;
            }
            size_t length = (size_t)((nl ? nl : stop) - d);
            tb_gather *t = f == 0 ? &hyps : &refs;
            size_t k = f == 0 ? (size_t)i : (size_t)(i * (nf - 1) + (f - 1));
            int ascii = 1;
            if (lowercase)
                for (size_t b = 0; b < length && ascii; b++)
                    ascii = d[b] < 0x80;
            if (ascii) {
                tb_gather_set_utf8(t, k, d, length, lowercase);
            } else {  /* str.lower() of other text: Python's */
                PyObject *line = PyUnicode_DecodeUTF8((const char *)d, (Py_ssize_t)length, "strict");
                int rc = line ? tb_gather_set(t, k, line, TB_GATHER_LOWER) : -1;
                Py_XDECREF(line);
                if (rc < 0)
                    goto done;
            }
            if (f == 0) {
                size_t m = tb_utf8_rstrip(d, length);
                periods += m >= 2 && d[m - 2] == ' ' && d[m - 1] == '.';
            }
            d = nl ? nl + 1 : stop;
        }
        PyTuple_SET_ITEM(consumed, f, PyLong_FromSsize_t((Py_ssize_t)(d - (const uint8_t *)views[f].buf)));
        if (!PyTuple_GET_ITEM(consumed, f))
            goto done;
    }
    if (rows == Py_None) {
        if ((size_t)n > PY_SSIZE_T_MAX / sizeof(int64_t) / width ||
            !(own_rows = PyMem_Malloc((size_t)n * width * sizeof(int64_t)))) {  /* every cell written */
            PyErr_NoMemory();
            goto done;
        }
    } else if (tb_int64_out_buffer(rows, &rows_view, (size_t)n * width, "rows") < 0) {
        goto done;
    }
    if (tb_int64_out_buffer(totals_obj, &totals_view, width, "totals") < 0)
        goto done;
    for (Py_ssize_t i = 0; i <= n; i++)
        offsets[i] = (size_t)(i * (nf - 1));
    tb_bleu_job j;
    tb_bleu_job_init(&j, TB_BLEU_SENT, (size_t)n, 32);
    j.mode = mode;
    j.max_order = max_order;
    j.texts = hyps.texts;
    j.ref_texts = refs.texts;
    j.offsets = offsets;
    if (tb_group_by_references(j.texts, j.ref_texts, j.offsets, (size_t)n, &groups) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    j.order = groups.order;
    j.looks = groups.looks;
    j.out_rows = own_rows ? own_rows : rows_view.buf;
    if (tb_bleu_run_job(&j, threads, st) < 0)
        goto done;
    int64_t *out = j.out_rows, *sum = totals_view.buf;
    for (Py_ssize_t i = 0; i < n; i++)
        for (size_t c = 0; c < width; c++)
            sum[c] += out[i * width + c];
    result = Py_BuildValue("Ol", consumed, periods);
done:
    tb_groups_release(&groups);
    PyMem_Free(own_rows);
    tb_buffer_release(&rows_view);
    tb_buffer_release(&totals_view);
    for (Py_ssize_t f = 0; views && f < nf; f++)
        tb_buffer_release(&views[f]);
    PyMem_Free(views);
    PyMem_Free(offsets);
    tb_gather_free(&hyps);
    tb_gather_free(&refs);
    Py_XDECREF(consumed);
    Py_XDECREF(ends);
    Py_XDECREF(buffers);
    return result;
}
