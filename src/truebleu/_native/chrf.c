/* chrF and chrF++ statistics: the compiled twin of truebleu/_reference_chrf.py.
 *
 * Per hypothesis and reference, for each character order n = 1..C and then
 * each word order n = 1..W, three counts: [hyp n-grams (0 when the reference
 * has none), ref n-grams, clipped matches]. With several references the row
 * of the reference with the highest f-score is kept (the first on a tie).
 *
 * Counting is exact: an n-gram of order n is the pair (id of its first n - 1
 * symbols, its last symbol), one 64-bit key, and ids are handed out per pair
 * of lines, order by order, so equal keys mean equal n-grams (a hash collision
 * only costs a probe). Symbols are code points, or word ids for chrF++'s
 * words (words are compared by content). Matches are counted by inserting the
 * reference n-grams with their counts and letting each hypothesis n-gram take
 * one from its entry while any is left, which sums min(hyp count, ref count)
 * over the distinct n-grams.
 *
 * Text is read from the PyUnicode storage (1, 2 or 4 bytes per code point)
 * with the GIL released; whitespace is Py_UNICODE_ISSPACE, as str.split()
 * sees it. Lowercasing happens in Python (str.lower) before the call.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tb_core.h"
#include "tb_signals.h"

#define CHRF_MAX_THREADS 256
#define CHRF_EPS 1e-16

typedef struct {
    const void *data;
    size_t length;
    int kind;
} chrf_text;

/* A piece of a code point buffer: a word. */
typedef struct {
    uint32_t start, len;
} chrf_span;

/* One side (hypothesis or reference) of a comparison, decoded. */
typedef struct {
    tb_u32buf all;            /* every code point */
    tb_u32buf chars;          /* the code points that enter character n-grams */
    chrf_span *words; size_t nwords, words_cap;
    uint32_t *ids; size_t ids_cap;  /* word ids in the shared vocabulary of one pair */
} chrf_side;

/* n-gram table entry. An n-gram is known by an exact 64-bit key: the id of
 * its first n - 1 symbols (0 for n = 1) and its last symbol, (id << 32) | sym;
 * every key gets a fresh id (from 1), so keys of different orders differ. */
typedef struct {
    uint64_t key;
    uint32_t id;     /* 0 = empty slot */
    int32_t left;    /* reference occurrences not yet matched by the hypothesis */
} chrf_slot;

/* word vocabulary entry: a word of one of the two sides, and its id */
typedef struct {
    const uint32_t *p;
    uint32_t len, hash, id1;  /* id1 = id + 1, 0 = empty slot */
} chrf_word_slot;

typedef struct {
    chrf_side hyp, ref;
    chrf_slot *slots; size_t slots_cap, slots_zeroed;
    uint32_t next_id;  /* ids only grow, so a slot whose id predates the pair is empty */
    uint32_t *hid, *rid; size_t hid_cap, rid_cap;  /* n-gram ids by start position */
    chrf_word_slot *vocab; size_t vocab_cap;
    int64_t *row; size_t row_cap;
} chrf_scratch;

static uint32_t hash_run(const uint32_t *p, uint32_t n)
{
    uint64_t h = 0x243F6A8885A308D3ULL;
    for (uint32_t k = 0; k < n; k++)
        h = (h ^ p[k]) * 0x9E3779B97F4A7C15ULL;
    return (uint32_t)(h ^ (h >> 32));
}

static uint32_t text_at(const chrf_text *t, size_t i)
{
    switch (t->kind) {
    case 1: return ((const uint8_t *)t->data)[i];
    case 2: return ((const uint16_t *)t->data)[i];
    default: return ((const uint32_t *)t->data)[i];
    }
}

static int is_punct(uint32_t c)
{
    /* string.punctuation */
    return c < 128 && c > 32 && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", (int)c) != NULL;
}

static int push_word(chrf_side *s, uint32_t start, uint32_t len)
{
    if (GROW(s->words, s->words_cap, s->nwords + 1) < 0)
        return -1;
    s->words[s->nwords].start = start;
    s->words[s->nwords].len = len;
    s->nwords++;
    return 0;
}

/* Decode a line: its character sequence and, if words, chrF++'s words
 * (whitespace split, one punctuation mark split off the end, else the start,
 * of words longer than one character). 0 ok, -1 out of memory. */
static int decode(chrf_side *s, const chrf_text *t, int whitespace, int words)
{
    size_t n = t->length;
    s->all.n = s->chars.n = 0;
    s->nwords = 0;
    if (n >= UINT32_MAX)
        return -1;
    if (GROW(s->all.a, s->all.cap, n) < 0 || GROW(s->chars.a, s->chars.cap, n) < 0)
        return -1;
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = text_at(t, i);
        s->all.a[i] = c;
        if (whitespace || !Py_UNICODE_ISSPACE(c))
            s->chars.a[nc++] = c;
    }
    s->all.n = n;
    s->chars.n = nc;
    if (!words)
        return 0;
    const uint32_t *a = s->all.a;
    size_t i = 0;
    while (i < n) {
        while (i < n && Py_UNICODE_ISSPACE(a[i]))
            i++;
        if (i >= n)
            break;
        size_t start = i;
        while (i < n && !Py_UNICODE_ISSPACE(a[i]))
            i++;
        uint32_t len = (uint32_t)(i - start);
        int rc;
        if (len > 1 && is_punct(a[start + len - 1]))
            rc = push_word(s, (uint32_t)start, len - 1) | push_word(s, (uint32_t)(start + len - 1), 1);
        else if (len > 1 && is_punct(a[start]))
            rc = push_word(s, (uint32_t)start, 1) | push_word(s, (uint32_t)start + 1, len - 1);
        else
            rc = push_word(s, (uint32_t)start, len);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static size_t table_size(size_t count)
{
    size_t cap = 16;
    while (cap < 2 * count)
        cap *= 2;
    return cap;
}

static inline size_t slot_of(uint64_t key, size_t mask)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
}

/* [hyp n-grams, ref n-grams, matches] for n = 1..max_order between the symbol
 * sequences h and r (code points, or word ids), written to out[3 * (n - 1)..]. */
static int count_orders(chrf_scratch *w, const uint32_t *h, size_t hn, const uint32_t *r,
                        size_t rn, int max_order, int64_t *out)
{
    memset(out, 0, 3 * (size_t)max_order * sizeof(int64_t));
    if (rn == 0)
        return 0;
    size_t total = 0;
    for (int n = 1; n <= max_order && (size_t)n <= rn; n++)
        total += rn - (size_t)n + 1;
    if (total >= UINT32_MAX / 2)
        return -1;
    size_t cap = table_size(total);
    if (GROW(w->slots, w->slots_cap, cap) < 0 || GROW(w->rid, w->rid_cap, rn) < 0 ||
        GROW(w->hid, w->hid_cap, hn ? hn : 1) < 0)
        return -1;
    chrf_slot *slots = w->slots;
    uint32_t *rid = w->rid, *hid = w->hid;
    /* Instead of clearing the table for every pair, slots with an id below
     * `first` (from earlier pairs) count as empty; the table is cleared only
     * where it was never used, and when the ids would run out. */
    if (w->next_id == 0 || w->next_id > UINT32_MAX - total - 1) {
        memset(slots, 0, w->slots_zeroed * sizeof(chrf_slot));
        w->next_id = 1;
    }
    if (cap > w->slots_zeroed) {
        memset(slots + w->slots_zeroed, 0, (cap - w->slots_zeroed) * sizeof(chrf_slot));
        w->slots_zeroed = cap;
    }
    const uint32_t first = w->next_id;
    uint32_t next_id = first;
    size_t mask = cap - 1;
    for (int n = 1; n <= max_order; n++) {
        size_t ref_total = rn >= (size_t)n ? rn - (size_t)n + 1 : 0;
        size_t hyp_total = hn >= (size_t)n ? hn - (size_t)n + 1 : 0;
        if (!ref_total)
            break;  /* this order and the higher ones: no reference n-grams, all zero */
        int64_t *row = out + 3 * (n - 1);
        row[0] = (int64_t)hyp_total;
        row[1] = (int64_t)ref_total;
        for (size_t i = 0; i < ref_total; i++) {
            uint64_t key = ((uint64_t)(n == 1 ? 0 : rid[i]) << 32) | r[i + (size_t)n - 1];
            size_t k = slot_of(key, mask);
            while (slots[k].id >= first && slots[k].key != key)
                k = (k + 1) & mask;
            if (slots[k].id < first) {
                slots[k].key = key;
                slots[k].id = next_id++;
                slots[k].left = 0;
            }
            slots[k].left++;
            rid[i] = slots[k].id;
        }
        int64_t matches = 0;
        for (size_t i = 0; i < hyp_total; i++) {
            uint32_t prev = n == 1 ? 0 : hid[i];
            if (n > 1 && !prev) {
                continue;  /* its (n-1)-gram prefix is not in the reference: neither is it */
            }
            uint64_t key = ((uint64_t)prev << 32) | h[i + (size_t)n - 1];
            size_t k = slot_of(key, mask);
            while (slots[k].id >= first && slots[k].key != key)
                k = (k + 1) & mask;
            if (slots[k].id < first) {
                hid[i] = 0;  /* absent */
                continue;
            }
            hid[i] = slots[k].id;
            if (slots[k].left > 0) {
                slots[k].left--;
                matches++;
            }
        }
        row[2] = matches;
    }
    w->next_id = next_id;
    return 0;
}

/* Give the words of both sides ids in one vocabulary (equal words, equal ids). */
static int word_ids(chrf_scratch *w)
{
    chrf_side *sides[2] = {&w->hyp, &w->ref};
    size_t cap = table_size(w->hyp.nwords + w->ref.nwords);
    if (GROW(w->vocab, w->vocab_cap, cap) < 0)
        return -1;
    memset(w->vocab, 0, cap * sizeof(chrf_word_slot));
    size_t mask = cap - 1;
    uint32_t next_id = 0;
    for (int s = 0; s < 2; s++) {
        chrf_side *side = sides[s];
        if (GROW(side->ids, side->ids_cap, side->nwords ? side->nwords : 1) < 0)
            return -1;
        for (size_t i = 0; i < side->nwords; i++) {
            const uint32_t *p = side->all.a + side->words[i].start;
            uint32_t len = side->words[i].len;
            uint32_t hv = hash_run(p, len);
            size_t k = hv & mask;
            for (;;) {
                chrf_word_slot *e = &w->vocab[k];
                if (!e->id1) {
                    e->p = p;
                    e->len = len;
                    e->hash = hv;
                    e->id1 = ++next_id;
                    side->ids[i] = e->id1;
                    break;
                }
                if (e->hash == hv && e->len == len && !memcmp(e->p, p, len * sizeof(uint32_t))) {
                    side->ids[i] = e->id1;
                    break;
                }
                k = (k + 1) & mask;
            }
        }
    }
    return 0;
}

double tb_chrf_f_score(const int64_t *row, int order, double factor, double one_plus_factor,
                       int eps_smoothing)
{
    /* _reference_chrf.f_score, operation by operation (Python's int / int and
     * int * float are the double operations on the converted integers). */
    double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
    int effective_order = 0;
    for (int i = 0; i < order; i++) {
        int64_t n_hyp = row[3 * i], n_ref = row[3 * i + 1], n_match = row[3 * i + 2];
        double prec = n_hyp > 0 ? (double)n_match / (double)n_hyp : CHRF_EPS;
        double rec = n_ref > 0 ? (double)n_match / (double)n_ref : CHRF_EPS;
        double denom = factor * prec + rec;
        score += denom > 0 ? one_plus_factor * prec * rec / denom : CHRF_EPS;
        if (n_hyp > 0 && n_ref > 0) {
            avg_prec += prec;
            avg_rec += rec;
            effective_order++;
        }
    }
    if (eps_smoothing)
        return 100.0 * score / (double)order;
    if (effective_order == 0) {
        avg_prec = avg_rec = 0.0;
    } else {
        avg_prec /= (double)effective_order;
        avg_rec /= (double)effective_order;
    }
    if (avg_prec + avg_rec != 0.0) {
        score = one_plus_factor * avg_prec * avg_rec;
        score /= (factor * avg_prec) + avg_rec;
        return 100.0 * score;
    }
    return 0.0;
}

typedef struct {
    /* input */
    const chrf_text *hyps;
    const chrf_text *refs;
    const size_t *ref_start;  /* references of hypothesis i: refs[ref_start[i] .. ref_start[i+1]) */
    size_t nitems;
    int char_order, word_order, whitespace, eps_smoothing;
    double factor, one_plus_factor;
    /* output */
    int64_t *out;
    double *scores;  /* may be NULL */
    /* work distribution */
    atomic_size_t next;
    atomic_int failed;  /* CHRF_OK, CHRF_NOMEM or CHRF_INTERRUPTED: the first failure wins */
    tb_signal_watch *watch;
} chrf_job;

enum { CHRF_OK = 0, CHRF_NOMEM = 1, CHRF_INTERRUPTED = 2 };

static void chrf_fail(chrf_job *j, int code)
{
    int expected = CHRF_OK;
    atomic_compare_exchange_strong(&j->failed, &expected, code);
}

/* Work units of hypothesis i and its references (about one per code point), for the
 * signal checks of tb_signals.h. */
static long segment_units(const chrf_job *j, size_t i)
{
    size_t units = j->hyps[i].length + 1;
    for (size_t k = j->ref_start[i]; k < j->ref_start[i + 1]; k++)
        units += j->refs[k].length + 1;
    return units > (size_t)TB_POLL_UNITS ? TB_POLL_UNITS : (long)units;
}

static int pair_row(chrf_scratch *w, const chrf_job *j, int64_t *row)
{
    if (j->char_order > 0 &&
        count_orders(w, w->hyp.chars.a, w->hyp.chars.n, w->ref.chars.a, w->ref.chars.n,
                     j->char_order, row) < 0)
        return -1;
    if (j->word_order > 0) {
        if (word_ids(w) < 0)
            return -1;
        if (count_orders(w, w->hyp.ids, w->hyp.nwords, w->ref.ids, w->ref.nwords, j->word_order,
                         row + 3 * j->char_order) < 0)
            return -1;
    }
    return 0;
}

static int segment(chrf_scratch *w, const chrf_job *j, size_t i)
{
    int order = j->char_order + j->word_order;
    size_t width = 3 * (size_t)order;
    int64_t *out = j->out + i * width;
    int words = j->word_order > 0;
    if (GROW(w->row, w->row_cap, width) < 0)
        return -1;
    if (decode(&w->hyp, &j->hyps[i], j->whitespace, words) < 0)
        return -1;
    double best = -1.0;
    size_t first = j->ref_start[i], last = j->ref_start[i + 1];
    memset(out, 0, width * sizeof(int64_t));
    for (size_t k = first; k < last; k++) {
        if (decode(&w->ref, &j->refs[k], j->whitespace, words) < 0)
            return -1;
        if (pair_row(w, j, w->row) < 0)
            return -1;
        if (last - first == 1 && !j->scores) {
            memcpy(out, w->row, width * sizeof(int64_t));
            break;
        }
        double f = tb_chrf_f_score(w->row, order, j->factor, j->one_plus_factor, j->eps_smoothing);
        if (f > best) {
            best = f;
            memcpy(out, w->row, width * sizeof(int64_t));
        }
    }
    if (j->scores)
        j->scores[i] = best < 0 ? 0.0 : best;
    return 0;
}

static void scratch_free(chrf_scratch *w)
{
    chrf_side *sides[2] = {&w->hyp, &w->ref};
    for (int s = 0; s < 2; s++) {
        free(sides[s]->all.a);
        free(sides[s]->chars.a);
        free(sides[s]->words);
        free(sides[s]->ids);
    }
    free(w->slots);
    free(w->hid);
    free(w->rid);
    free(w->vocab);
    free(w->row);
}

#define CHRF_CHUNK 16

static void *chrf_worker(void *arg)
{
    chrf_job *j = arg;
    chrf_scratch w;
    memset(&w, 0, sizeof(w));
    long budget = TB_POLL_UNITS;
    for (;;) {
        if (atomic_load(&j->failed))
            break;
        size_t start = atomic_fetch_add(&j->next, CHRF_CHUNK);
        if (start >= j->nitems)
            break;
        size_t stop = start + CHRF_CHUNK < j->nitems ? start + CHRF_CHUNK : j->nitems;
        for (size_t i = start; i < stop; i++) {
            if ((budget -= segment_units(j, i)) < 0) {
                budget = TB_POLL_UNITS;
                if (tb_signal_watch_raised(j->watch)) {
                    chrf_fail(j, CHRF_INTERRUPTED);
                    break;
                }
            }
            if (segment(&w, j, i) < 0) {
                chrf_fail(j, CHRF_NOMEM);
                break;
            }
        }
    }
    scratch_free(&w);
    return NULL;
}

/* Runs the job on this thread and nthreads - 1 others: CHRF_OK, CHRF_NOMEM or
 * CHRF_INTERRUPTED. */
static int chrf_run(chrf_job *j, int nthreads)
{
    pthread_t tids[CHRF_MAX_THREADS];
    int started = 0;
    if (nthreads > CHRF_MAX_THREADS)
        nthreads = CHRF_MAX_THREADS;
    if ((size_t)nthreads > j->nitems / CHRF_CHUNK + 1)
        nthreads = (int)(j->nitems / CHRF_CHUNK + 1);
    for (int k = 1; k < nthreads; k++) {
        if (pthread_create(&tids[started], NULL, chrf_worker, j) != 0)
            break;  /* fewer threads: the same result, later */
        started++;
    }
    chrf_worker(j);
    for (int k = 0; k < started; k++)
        pthread_join(tids[k], NULL);
    return atomic_load(&j->failed);
}

/* Holds new references to the strings while the GIL is released. */
typedef struct {
    PyObject **objs;
    chrf_text *texts;
    size_t n, cap;
} chrf_texts;

static int texts_add(chrf_texts *t, PyObject *obj, const char *what, Py_ssize_t index)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s[%zd] must be a string, got %.100s", what, index,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(obj) < 0)
        return -1;
#endif
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        PyObject **o = PyMem_Realloc(t->objs, cap * sizeof(PyObject *));
        if (!o) {
            PyErr_NoMemory();
            return -1;
        }
        t->objs = o;
        chrf_text *x = PyMem_Realloc(t->texts, cap * sizeof(chrf_text));
        if (!x) {
            PyErr_NoMemory();
            return -1;
        }
        t->texts = x;
        t->cap = cap;
    }
    Py_INCREF(obj);
    t->objs[t->n] = obj;
    t->texts[t->n].data = PyUnicode_DATA(obj);
    t->texts[t->n].length = (size_t)PyUnicode_GET_LENGTH(obj);
    t->texts[t->n].kind = PyUnicode_KIND(obj);
    t->n++;
    return 0;
}

static void texts_free(chrf_texts *t)
{
    for (size_t i = 0; i < t->n; i++)
        Py_DECREF(t->objs[i]);
    PyMem_Free(t->objs);
    PyMem_Free(t->texts);
}

PyObject *tb_chrf_statistics(PyObject *module, PyObject *args)
{
    PyObject *hyp_obj, *ref_obj, *out_obj, *scores_obj;
    int char_order, word_order, whitespace, eps_smoothing, threads;
    double factor, one_plus_factor;
    (void)module;
    if (!PyArg_ParseTuple(args, "OOiippddiOO", &hyp_obj, &ref_obj, &char_order, &word_order,
                          &whitespace, &eps_smoothing, &factor, &one_plus_factor, &threads,
                          &out_obj, &scores_obj))
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
    chrf_texts ht = {0}, rt = {0};
    size_t *ref_start = NULL;
    Py_buffer ov = {0}, sv = {0};
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hyps);
    size_t width = 3 * (size_t)(char_order + word_order);
    if (PySequence_Fast_GET_SIZE(refs) != n) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", n,
                     PySequence_Fast_GET_SIZE(refs));
        goto done;
    }
    ref_start = PyMem_Malloc(((size_t)n + 1) * sizeof(size_t));
    if (!ref_start) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (texts_add(&ht, PySequence_Fast_GET_ITEM(hyps, i), "hypotheses", i) < 0)
            goto done;
        ref_start[i] = rt.n;
        PyObject *seg = PySequence_Fast(PySequence_Fast_GET_ITEM(refs, i),
                                        "the references of a segment must be a sequence");
        if (!seg)
            goto done;
        Py_ssize_t m = PySequence_Fast_GET_SIZE(seg);
        for (Py_ssize_t k = 0; k < m; k++) {
            if (texts_add(&rt, PySequence_Fast_GET_ITEM(seg, k), "references", k) < 0) {
                Py_DECREF(seg);
                goto done;
            }
        }
        Py_DECREF(seg);
        if (m == 0) {
            PyErr_Format(PyExc_ValueError, "segment %zd has no reference", i);
            goto done;
        }
    }
    ref_start[n] = rt.n;
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
    chrf_job *j = calloc(1, sizeof(chrf_job));
    if (!j) {
        PyErr_NoMemory();
        goto done;
    }
    j->hyps = ht.texts;
    j->refs = rt.texts;
    j->ref_start = ref_start;
    j->nitems = (size_t)n;
    j->char_order = char_order;
    j->word_order = word_order;
    j->whitespace = whitespace;
    j->eps_smoothing = eps_smoothing;
    j->factor = factor;
    j->one_plus_factor = one_plus_factor;
    j->out = ov.buf;
    j->scores = sv.obj ? sv.buf : NULL;
    atomic_init(&j->next, 0);
    atomic_init(&j->failed, 0);
    tb_signal_watch watch;
    j->watch = &watch;
    tb_signal_watch_begin(&watch);
    int rc = chrf_run(j, threads);
    tb_signal_watch_end(&watch);
    free(j);
    if (rc != CHRF_OK) {
        if (rc == CHRF_NOMEM)
            PyErr_NoMemory();  /* else: the exception a signal handler raised */
        goto done;
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    if (ov.obj)
        PyBuffer_Release(&ov);
    if (sv.obj)
        PyBuffer_Release(&sv);
    texts_free(&ht);
    texts_free(&rt);
    PyMem_Free(ref_start);
    Py_DECREF(hyps);
    Py_DECREF(refs);
    return result;
}
