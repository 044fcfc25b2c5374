/* truebleu core: BLEU's entry point on token ids (bindings): ids_statistics.
 *
 * With the GIL, every sequence's ids are copied into one int64 array (a
 * tb_id_batch, bleu/ids.h), the dropped ids (pads, skipped ids, -100) left
 * out; then a job of bleu/jobs.c computes the rows without the GIL. Nothing of
 * the caller's objects is read after the copy, so another thread may change
 * them meanwhile.
 *
 * A sequence is read here in the two forms a training loop holds: a list or
 * tuple of Python ints (exactly int: not bool, nor another subclass), or an
 * object with the buffer protocol of one dimension and an integer format
 * (NumPy arrays and their rows, array.array, memoryview). Once the dropped ids
 * are out, every id must be in [0, 2**63). Anything else (a NumPy integer in a
 * list, a torch tensor, a float, a negative or huge id, ...) is not read: the
 * call returns False and computes nothing, and the caller takes the written
 * form (truebleu.metrics.token_ids), which reads every input it accepts and
 * names the faults it does not.
 */
#include "bleu/bindings.h"
#include "bleu/ids.h"
#include "bleu/jobs.h"
#include "runtime/buffers.h"
#include "runtime/memory.h"
#include "state.h"

#include <string.h>

/* A segment's ids and sequences stay below this (bleu/ngram.c counts in uint32). */
#define MAX_SEGMENT_IDS ((size_t)1 << 30)

typedef struct {
    int64_t *ids; size_t nids, ids_cap;
    size_t *seq_off; size_t nseq, seq_off_cap;  /* nseq + 1 offsets */
    size_t *first;                               /* nitems + 1 */
    const int64_t *drop; size_t ndrop;           /* ascending */
    uint64_t drop_bits;                          /* bit id % 64 of every dropped id */
} id_gather;

static void id_gather_free(id_gather *g)
{
    free(g->ids);
    free(g->seq_off);
    free(g->first);
}

static int is_list_or_tuple(PyObject *obj)
{
    return PyList_CheckExact(obj) || PyTuple_CheckExact(obj);
}

/* The length of a list or tuple (0 for anything else: its ids grow the array as they come). */
static size_t known_length(PyObject *obj)
{
    return is_list_or_tuple(obj) ? (size_t)PySequence_Fast_GET_SIZE(obj) : 0;
}

/* What reading a sequence found: */
enum { READ_ERROR = -1, READ_OTHER = 0, READ_OK = 1 };

/* Whether `id` is one of the dropped ids: the bit of id % 64 first (a few dropped ids
 * leave most bits clear, so most ids are told apart there), then a binary search. */
static inline int is_dropped(const id_gather *g, int64_t id)
{
    if (!(g->drop_bits >> ((uint64_t)id & 63) & 1))
        return 0;
    size_t lo = 0, hi = g->ndrop;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->drop[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->ndrop && g->drop[lo] == id;
}

/* Keeps `id` unless dropped: READ_OK, or READ_OTHER for a negative id that is not dropped. */
static inline int keep(id_gather *g, int64_t id)
{
    if (is_dropped(g, id))
        return READ_OK;
    if (id < 0)
        return READ_OTHER;
    g->ids[g->nids++] = id;
    return READ_OK;
}

/* A list or tuple of exact ints. */
static int read_ints(id_gather *g, PyObject *seq)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    if (GROW(g->ids, g->ids_cap, g->nids + (size_t)n) < 0) {
        PyErr_NoMemory();
        return READ_ERROR;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyLong_CheckExact(items[i]))
            return READ_OTHER;
        int overflow;
        long long id = PyLong_AsLongLongAndOverflow(items[i], &overflow);
        if (overflow)
            return READ_OTHER;
        if (keep(g, (int64_t)id) != READ_OK)
            return READ_OTHER;
    }
    return READ_OK;
}

/* Whether a buffer format is one integer in the machine's byte order (the size
 * is the buffer's itemsize); *is_signed says its sign. */
static int integer_format(const char *format, int *is_signed)
{
    if (!format)
        format = "B";  /* (PEP 3118: no format means unsigned bytes) */
#if PY_LITTLE_ENDIAN
    if (*format == '@' || *format == '=' || *format == '<')
#else
    if (*format == '@' || *format == '=' || *format == '>' || *format == '!')
#endif
        format++;
    if (format[0] == '\0' || format[1] != '\0')
        return 0;
    if (strchr("bhilqn", format[0]))
        *is_signed = 1;
    else if (strchr("BHILQN", format[0]))
        *is_signed = 0;
    else
        return 0;
    return 1;
}

/* The id at p (size bytes, signed or not) in *id: 1, or 0 past int64. */
static inline int item_id(const char *p, Py_ssize_t size, int is_signed, int64_t *id)
{
    switch (size * 2 + is_signed) {
    case 2: { uint8_t x; memcpy(&x, p, 1); *id = x; return 1; }
    case 3: { int8_t x; memcpy(&x, p, 1); *id = x; return 1; }
    case 4: { uint16_t x; memcpy(&x, p, 2); *id = x; return 1; }
    case 5: { int16_t x; memcpy(&x, p, 2); *id = x; return 1; }
    case 8: { uint32_t x; memcpy(&x, p, 4); *id = x; return 1; }
    case 9: { int32_t x; memcpy(&x, p, 4); *id = x; return 1; }
    case 16: { uint64_t x; memcpy(&x, p, 8); *id = (int64_t)x; return x <= (uint64_t)INT64_MAX; }
    case 17: { int64_t x; memcpy(&x, p, 8); *id = x; return 1; }
    default: return 0;
    }
}

/* A one-dimensional buffer of integers, any strides. */
static int read_buffer(id_gather *g, PyObject *obj)
{
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();  /* (not a buffer of that kind: the written form reads it, or says why not) */
        return READ_OTHER;
    }
    int rc = READ_OTHER, is_signed;
    if (view.ndim == 1 && integer_format(view.format, &is_signed)) {
        const Py_ssize_t n = view.shape[0], stride = view.strides[0];
        if (GROW(g->ids, g->ids_cap, g->nids + (size_t)n) < 0) {
            PyErr_NoMemory();
            rc = READ_ERROR;
        } else {
            const char *p = view.buf;
            int64_t id;
            rc = READ_OK;
            for (Py_ssize_t i = 0; i < n && rc == READ_OK; i++, p += stride)
                rc = item_id(p, view.itemsize, is_signed, &id) ? keep(g, id) : READ_OTHER;
        }
    }
    PyBuffer_Release(&view);
    return rc;
}

/* One more sequence, read from `obj`. */
static int read_sequence(id_gather *g, PyObject *obj)
{
    if (GROW(g->seq_off, g->seq_off_cap, g->nseq + 2) < 0) {
        PyErr_NoMemory();
        return READ_ERROR;
    }
    int rc;
    if (PyList_CheckExact(obj) || PyTuple_CheckExact(obj))
        rc = read_ints(g, obj);
    else if (PyObject_CheckBuffer(obj))
        rc = read_buffer(g, obj);
    else
        rc = READ_OTHER;
    if (rc == READ_OK)
        g->seq_off[++g->nseq] = g->nids;
    return rc;
}


/* Item k: hypothesis `hyp` and the sequences of the list or tuple `refs` (at least one). */
static int read_item(id_gather *g, Py_ssize_t k, PyObject *hyp, PyObject *refs)
{
    if (!is_list_or_tuple(refs) || PySequence_Fast_GET_SIZE(refs) == 0) {
        PyErr_Format(PyExc_TypeError, "references[%zd] must be a non-empty list or tuple of id sequences", k);
        return READ_ERROR;
    }
    const size_t start = g->nids;
    g->first[k] = g->nseq;
    int rc = read_sequence(g, hyp);
    for (Py_ssize_t r = 0; rc == READ_OK && r < PySequence_Fast_GET_SIZE(refs); r++)
        rc = read_sequence(g, PySequence_Fast_GET_ITEM(refs, r));
    if (rc == READ_OK && (g->nids - start >= MAX_SEGMENT_IDS || g->nseq - g->first[k] >= MAX_SEGMENT_IDS))
        rc = READ_OTHER;
    return rc;
}

/* ids_statistics(hypotheses, references, dropped, max_order, threads, out, totals=None) -> bool
 * hypotheses: a list or tuple of id sequences; references: one list or tuple of id
 * sequences per hypothesis; dropped: the ids to leave out, an int64 ('q') buffer in
 * ascending order. Fills out (one row per hypothesis), or with out None adds the
 * rows' sum to totals; True. False when a sequence is not in a form read here
 * (nothing computed). */
PyObject *core_ids_statistics(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hypotheses", "references", "dropped", "max_order", "threads",
                                         "out", "totals", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *hyps, *refs, *dropped, *out, *totals = NULL;
    int max_order, threads;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOiiO|O", (char **)kwlist, &hyps, &refs, &dropped,
                                     &max_order, &threads, &out, &totals))
        return NULL;
    if (tb_check_order(max_order) < 0)
        return NULL;
    if (!is_list_or_tuple(hyps) || !is_list_or_tuple(refs)) {
        PyErr_SetString(PyExc_TypeError, "hypotheses and references must be lists or tuples");
        return NULL;
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(hyps);
    if (PySequence_Fast_GET_SIZE(refs) != n) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference entries", n,
                     PySequence_Fast_GET_SIZE(refs));
        return NULL;
    }
    Py_buffer drop;
    if (PyObject_GetBuffer(dropped, &drop, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    id_gather g = {0};
    tb_bleu_output output = {0};
    PyObject *result = NULL;
    if (tb_check_item(&drop, TB_ITEM_INT64, "dropped") < 0)
        goto done;
    g.drop = drop.buf;
    g.ndrop = (size_t)drop.len / 8;
    for (size_t d = 0; d < g.ndrop; d++) {
        if (d && g.drop[d - 1] >= g.drop[d]) {
            PyErr_SetString(PyExc_ValueError, "dropped must be in ascending order, without repeats");
            goto done;
        }
        g.drop_bits |= (uint64_t)1 << ((uint64_t)g.drop[d] & 63);
    }
    /* room for every sequence, and for the ids of those that tell their length at no cost */
    size_t nseq = 0, nids = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *refs_k = PySequence_Fast_GET_ITEM(refs, k);
        nids += known_length(PySequence_Fast_GET_ITEM(hyps, k));
        if (is_list_or_tuple(refs_k)) {
            nseq += (size_t)PySequence_Fast_GET_SIZE(refs_k);
            for (Py_ssize_t r = 0; r < PySequence_Fast_GET_SIZE(refs_k); r++)
                nids += known_length(PySequence_Fast_GET_ITEM(refs_k, r));
        }
    }
    if (!(g.first = malloc(((size_t)n + 1) * sizeof(size_t))) ||
        GROW(g.seq_off, g.seq_off_cap, (size_t)n + nseq + 1) < 0 || GROW(g.ids, g.ids_cap, nids) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    g.seq_off[0] = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        int rc = read_item(&g, k, PySequence_Fast_GET_ITEM(hyps, k), PySequence_Fast_GET_ITEM(refs, k));
        if (rc == READ_ERROR)
            goto done;
        if (rc == READ_OTHER) {
            result = Py_NewRef(Py_False);
            goto done;
        }
    }
    g.first[n] = g.nseq;
    tb_id_batch batch = {g.ids, g.seq_off, g.first, (size_t)n};
    tb_bleu_job j;
    tb_bleu_job_init(&j, TB_BLEU_IDS, (size_t)n, 32);
    j.max_order = max_order;
    j.id_batch = &batch;
    if (tb_bleu_output_get(&output, &j, out, totals, (size_t)n) < 0 || tb_bleu_run_job(&j, threads, st) < 0)
        goto done;
    result = Py_NewRef(Py_True);
done:
    tb_bleu_output_release(&output);
    PyBuffer_Release(&drop);
    id_gather_free(&g);
    return result;
}

/* ------------------------------------------------------------------ */
/* ids_statistics_streams: a report's tokens, already ids, counted as BLEU counts them */

/* One stream's ids (int32 or int64, one after another) and each line's number of them
 * (int64), both C-contiguous; checked to agree: `n` lines, every length >= 0, their sum the
 * number of ids. Names the stream in errors (`which`: "hyp" or "references[r]"; its
 * buffers as "hyp_ids", "references[0] lengths", ...). */
typedef struct {
    Py_buffer ids, lengths;
    int wide; /* the ids are int64 (else int32) */
} id_stream;

static int id_stream_get(id_stream *s, PyObject *ids, PyObject *lengths, size_t n, const char *which)
{
    char ids_name[48], lengths_name[48];
    const char *joint = strcmp(which, "hyp") ? " " : "_";  /* hyp_ids: the argument's name */
    snprintf(ids_name, sizeof ids_name, "%s%sids", which, joint);
    snprintf(lengths_name, sizeof lengths_name, "%s%slengths", which, joint);
    if (PyObject_GetBuffer(ids, &s->ids, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (PyObject_GetBuffer(lengths, &s->lengths, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    s->wide = s->ids.itemsize == 8;
    if (tb_check_item(&s->ids, s->wide ? TB_ITEM_INT64 : TB_ITEM_INT32, ids_name) < 0 ||
        tb_check_item(&s->lengths, TB_ITEM_INT64, lengths_name) < 0)
        return -1;
    if ((size_t)s->lengths.len / 8 != n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd lengths for %zu hypotheses", which, s->lengths.len / 8, n);
        return -1;
    }
    const int64_t *len = s->lengths.buf;
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        if (len[k] < 0 || (uint64_t)len[k] >= MAX_SEGMENT_IDS) {
            PyErr_Format(PyExc_ValueError, "%s: line %zu has %lld ids", which, k, (long long)len[k]);
            return -1;
        }
        total += (size_t)len[k];
    }
    if (total != (size_t)s->ids.len / (size_t)s->ids.itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: the lengths add up to %zu ids, but there are %zd", which, total,
                     s->ids.len / s->ids.itemsize);
        return -1;
    }
    return 0;
}

static void id_stream_release(id_stream *s)
{
    tb_buffer_release(&s->ids);
    tb_buffer_release(&s->lengths);
}

/* Appends `count` ids of stream s from its id `at` to g (room made): 0, or -1 (ValueError) for a
 * negative id. */
static int append_stream_ids(id_gather *g, const id_stream *s, size_t at, size_t count)
{
    int64_t *to = g->ids + g->nids, smallest = 0;
    if (s->wide) {
        const int64_t *from = (const int64_t *)s->ids.buf + at;
        for (size_t i = 0; i < count; i++) {
            to[i] = from[i];
            smallest = from[i] < smallest ? from[i] : smallest;
        }
    } else {
        const int32_t *from = (const int32_t *)s->ids.buf + at;
        for (size_t i = 0; i < count; i++) {
            to[i] = from[i];
            smallest = from[i] < smallest ? from[i] : smallest;
        }
    }
    if (smallest < 0) {
        PyErr_SetString(PyExc_ValueError, "ids must not be negative");
        return -1;
    }
    g->nids += count;
    g->seq_off[++g->nseq] = g->nids;
    return 0;
}

/* ids_statistics_streams(hyp_ids, hyp_lengths, references, max_order, threads, out) -> None
 * The rows of a stream of hypotheses given as ids (int32 or int64: every line's ids one
 * after another) and each line's number of ids (int64), against `references`, a list of
 * (ids, lengths) pairs of the same form, one per reference stream: line k's references are
 * line k of every stream. Each id is one token (the rows of the ids' written form with
 * tokenize="none"), so ids numbered by one vocabulary of tokens (tokens_stream's) give the
 * rows of the tokens' text. Fills out (one row per line). */
PyObject *core_ids_statistics_streams(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hyp_ids", "hyp_lengths", "references", "max_order",
                                         "threads", "out", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *hyp_ids, *hyp_lengths, *refs, *out;
    int max_order, threads;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO!iiO", (char **)kwlist, &hyp_ids, &hyp_lengths,
                                     &PyList_Type, &refs, &max_order, &threads, &out))
        return NULL;
    if (tb_check_order(max_order) < 0)
        return NULL;
    const size_t nrefs = (size_t)PyList_GET_SIZE(refs);
    if (nrefs == 0) {
        PyErr_SetString(PyExc_ValueError, "at least one reference stream is needed");
        return NULL;
    }
    Py_buffer probe;
    if (PyObject_GetBuffer(hyp_lengths, &probe, PyBUF_SIMPLE) < 0)
        return NULL;
    const size_t n = (size_t)probe.len / 8;  /* (checked to be whole int64s by id_stream_get) */
    PyBuffer_Release(&probe);
    id_stream *streams = calloc(nrefs + 1, sizeof *streams);
    size_t *at = calloc(nrefs + 1, sizeof *at);  /* each stream's next id */
    id_gather g = {0};
    tb_bleu_output output = {0};
    PyObject *result = NULL;
    size_t nids = 0;
    if (!streams || !at) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t s = 0; s <= nrefs; s++) {
        char which[40] = "hyp";
        PyObject *ids = hyp_ids, *lengths = hyp_lengths;
        if (s) {
            PyObject *pair = PyList_GET_ITEM(refs, (Py_ssize_t)(s - 1));
            snprintf(which, sizeof which, "references[%zu]", s - 1);
            if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
                PyErr_Format(PyExc_TypeError, "%s must be a pair (ids, lengths)", which);
                goto done;
            }
            ids = PyTuple_GET_ITEM(pair, 0);
            lengths = PyTuple_GET_ITEM(pair, 1);
        }
        if (id_stream_get(&streams[s], ids, lengths, n, which) < 0)
            goto done;
        nids += (size_t)streams[s].ids.len / (size_t)streams[s].ids.itemsize;
    }
    if (!(g.first = malloc((n + 1) * sizeof(size_t))) ||
        GROW(g.seq_off, g.seq_off_cap, n * (nrefs + 1) + 1) < 0 || GROW(g.ids, g.ids_cap, nids) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    /* line k: its hypothesis, then its references; the ids copied (what the job reads) */
    g.seq_off[0] = 0;
    for (size_t k = 0; k < n; k++) {
        g.first[k] = g.nseq;
        for (size_t s = 0; s <= nrefs; s++) {
            size_t count = (size_t)((const int64_t *)streams[s].lengths.buf)[k];
            if (append_stream_ids(&g, &streams[s], at[s], count) < 0)
                goto done;
            at[s] += count;
        }
        if (g.nids - g.seq_off[g.first[k]] >= MAX_SEGMENT_IDS) {
            PyErr_Format(PyExc_ValueError, "line %zu has too many ids", k);
            goto done;
        }
    }
    g.first[n] = g.nseq;
    tb_id_batch batch = {g.ids, g.seq_off, g.first, n};
    tb_bleu_job j;
    tb_bleu_job_init(&j, TB_BLEU_IDS, n, 32);
    j.max_order = max_order;
    j.id_batch = &batch;
    if (tb_bleu_output_get(&output, &j, out, NULL, n) < 0 || tb_bleu_run_job(&j, threads, st) < 0)
        goto done;
    result = Py_NewRef(Py_None);
done:
    tb_bleu_output_release(&output);
    for (size_t s = 0; streams && s <= nrefs; s++)
        id_stream_release(&streams[s]);
    free(streams);
    free(at);
    id_gather_free(&g);
    return result;
}
