/* ter_statistics(): TER statistics of many segments, without the GIL.
 *
 * Under the GIL: new references to every string (UTF-8 views; strings with
 * lone surrogates are encoded with "surrogatepass", which keeps distinct
 * words distinct). Then worker threads take one segment at a time from an
 * atomic counter: split the hypothesis and its references on spaces, give
 * each distinct word of the segment an id, and run tb_ter_edits per
 * reference. Each segment writes its own row, so the result does not depend
 * on the number of threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "tb_core.h"
#include "tb_signals.h"
#include "ter.h"

typedef struct {
    const char *s;
    Py_ssize_t n;
} ter_text;

typedef struct {
    Py_ssize_t n_seg;
    const ter_text *hyps;
    const Py_ssize_t *first_ref;  /* references of segment i: refs[first_ref[i] .. first_ref[i+1]) */
    const ter_text *refs;
    double *out;
    atomic_size_t next;
    atomic_int error;             /* 0, -1 out of memory, -2 edit path outside the beam, -3 a
                                     signal handler raised (the first error wins) */
    atomic_size_t error_segment;
    tb_signal_watch *watch;
} ter_job;

#define TER_INTERRUPTED (-3)

/* The distinct words of one segment, by hash (open addressing). */
typedef struct {
    uint32_t *slot;  size_t cap_slot;   /* word id + 1, 0 = empty */
    const char **word; size_t cap_word;
    uint32_t *len;   size_t cap_len;
    uint32_t n;
    uint32_t *ids;   size_t cap_ids;    /* the ids of the text being split */
    uint32_t *hyp;   size_t cap_hyp;
} vocab;

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* Clear the vocabulary for a segment of at most `words` words. */
static int vocab_reset(vocab *v, size_t words)
{
    size_t want = 16;
    while (want < 2 * words)
        want *= 2;
    if (GROW(v->slot, v->cap_slot, want) < 0 || GROW(v->word, v->cap_word, words + 1) < 0 ||
        GROW(v->len, v->cap_len, words + 1) < 0)
        return -1;
    v->cap_slot = want;  /* use exactly `want` slots: a power of two */
    memset(v->slot, 0, want * sizeof(uint32_t));
    v->n = 0;
    return 0;
}

static uint32_t vocab_id(vocab *v, const char *s, size_t n)
{
    size_t mask = v->cap_slot - 1;
    for (size_t k = (size_t)hash_bytes(s, n) & mask;; k = (k + 1) & mask) {
        uint32_t id = v->slot[k];
        if (id == 0) {
            v->word[v->n] = s;
            v->len[v->n] = (uint32_t)n;
            v->slot[k] = ++v->n;
            return v->n - 1;
        }
        id--;
        if (v->len[id] == n && memcmp(v->word[id], s, n) == 0)
            return id;
    }
}

/* Word ids of a space-separated text into v->ids; returns the count. */
static size_t split_ids(vocab *v, const ter_text *t)
{
    size_t count = 0;
    Py_ssize_t i = 0;
    while (i < t->n) {
        while (i < t->n && t->s[i] == ' ')
            i++;
        Py_ssize_t start = i;
        while (i < t->n && t->s[i] != ' ')
            i++;
        if (i > start)
            v->ids[count++] = vocab_id(v, t->s + start, (size_t)(i - start));
    }
    return count;
}

static size_t max_words(const ter_text *t)
{
    return (size_t)(t->n / 2 + 1);  /* words are separated by at least one space */
}

static int ter_segment(const ter_job *job, Py_ssize_t i, tb_ter_work *w, vocab *v)
{
    const ter_text *hyp = &job->hyps[i];
    Py_ssize_t r0 = job->first_ref[i], r1 = job->first_ref[i + 1];
    size_t total = max_words(hyp), longest = max_words(hyp);
    for (Py_ssize_t r = r0; r < r1; r++) {
        size_t n = max_words(&job->refs[r]);
        total += n;
        if (n > longest)
            longest = n;
    }
    if (vocab_reset(v, total) < 0 || GROW(v->ids, v->cap_ids, longest) < 0 ||
        GROW(v->hyp, v->cap_hyp, max_words(hyp)) < 0)
        return -1;
    size_t n_hyp = split_ids(v, hyp);
    memcpy(v->hyp, v->ids, n_hyp * sizeof(uint32_t));
    int64_t best = TB_TER_INFINITY, lengths = 0;
    for (Py_ssize_t r = r0; r < r1; r++) {
        size_t n_ref = split_ids(v, &job->refs[r]);
        int64_t edits = tb_ter_edits(w, v->hyp, n_hyp, v->ids, n_ref);
        if (edits < 0)
            return (int)edits;
        lengths += (int64_t)n_ref;
        if (edits < best)
            best = edits;
    }
    job->out[2 * i] = (double)best;
    job->out[2 * i + 1] = (double)lengths / (double)(r1 - r0);
    return 0;
}

/* Work units of segment i for the signal checks of tb_signals.h: the edit-distance
 * search costs about (hypothesis bytes) x (reference bytes) per reference. */
static long segment_units(const ter_job *job, size_t i)
{
    double units = 0;
    for (Py_ssize_t r = job->first_ref[i]; r < job->first_ref[i + 1]; r++)
        units += ((double)job->hyps[i].n + 1) * ((double)job->refs[r].n + 1);
    return units >= (double)TB_POLL_UNITS ? TB_POLL_UNITS : (long)units + 1;
}

static void *ter_worker(void *arg)
{
    ter_job *job = arg;
    tb_ter_work *w = tb_ter_work_new();
    vocab v;
    memset(&v, 0, sizeof v);
    if (!w) {
        int expected = 0;
        atomic_compare_exchange_strong(&job->error, &expected, -1);
    }
    long budget = TB_POLL_UNITS;
    while (w && !atomic_load(&job->error)) {
        size_t i = atomic_fetch_add(&job->next, 1);
        if (i >= (size_t)job->n_seg)
            break;
        if ((budget -= segment_units(job, i)) < 0) {
            budget = TB_POLL_UNITS;
            if (tb_signal_watch_raised(job->watch)) {
                int expected = 0;
                atomic_compare_exchange_strong(&job->error, &expected, TER_INTERRUPTED);
                break;
            }
        }
        int status = ter_segment(job, (Py_ssize_t)i, w, &v);
        if (status < 0) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&job->error, &expected, status))
                atomic_store(&job->error_segment, i);
        }
    }
    tb_ter_work_free(w);
    free(v.slot); free(v.word); free(v.len); free(v.ids); free(v.hyp);
    return NULL;
}

static void run_workers(ter_job *job, int threads)
{
    pthread_t tids[64];
    int started = 0;
    if (threads > 64)
        threads = 64;
    if ((Py_ssize_t)threads > job->n_seg)
        threads = job->n_seg > 0 ? (int)job->n_seg : 1;
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tids[started], NULL, ter_worker, job) != 0)
            break;
        started++;
    }
    ter_worker(job);
    for (int t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
}

/* A UTF-8 view of `obj` (a str), kept alive through `keep`. */
static int text_of(PyObject *obj, ter_text *t, PyObject *keep, const char *what, Py_ssize_t i)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s[%zd] must be a string, got %.80s", what, i,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8AndSize(obj, &t->n);
    if (s) {
        t->s = s;
        return PyList_Append(keep, obj);
    }
    PyErr_Clear();  /* lone surrogates */
    PyObject *bytes = PyUnicode_AsEncodedString(obj, "utf-8", "surrogatepass");
    if (!bytes)
        return -1;
    t->s = PyBytes_AS_STRING(bytes);
    t->n = PyBytes_GET_SIZE(bytes);
    int status = PyList_Append(keep, bytes);
    Py_DECREF(bytes);
    return status;
}

PyObject *tb_ter_statistics(PyObject *self, PyObject *args)
{
    PyObject *hyps_obj, *refs_obj, *out_obj;
    int threads;
    if (!PyArg_ParseTuple(args, "OOiO", &hyps_obj, &refs_obj, &threads, &out_obj))
        return NULL;
    if (threads < 1)
        return PyErr_Format(PyExc_ValueError, "threads must be >= 1, got %d", threads);

    PyObject *result = NULL, *keep = PyList_New(0);
    PyObject *hyps = PySequence_Fast(hyps_obj, "hypotheses must be a sequence");
    PyObject *refs = PySequence_Fast(refs_obj, "references must be a sequence");
    Py_buffer view = {0};
    ter_text *hyp_texts = NULL, *ref_texts = NULL;
    Py_ssize_t *first_ref = NULL, n_refs = 0;
    size_t cap_refs = 0;
    if (!keep || !hyps || !refs)
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hyps);
    if (PySequence_Fast_GET_SIZE(refs) != n) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", n,
                     PySequence_Fast_GET_SIZE(refs));
        goto done;
    }
    if (PyObject_GetBuffer(out_obj, &view, PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
        goto done;
    if (view.itemsize != 8 || !view.format || strcmp(view.format, "d") != 0 ||
        view.len != (Py_ssize_t)(2 * n * (Py_ssize_t)sizeof(double))) {
        PyErr_SetString(PyExc_ValueError, "out must be a float64 buffer of 2 numbers per hypothesis");
        goto done;
    }
    hyp_texts = PyMem_Malloc((size_t)(n + 1) * sizeof(ter_text));
    first_ref = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    if (!hyp_texts || !first_ref) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (text_of(PySequence_Fast_GET_ITEM(hyps, i), &hyp_texts[i], keep, "hypotheses", i) < 0)
            goto done;
        PyObject *seg = PySequence_Fast(PySequence_Fast_GET_ITEM(refs, i),
                                        "references[i] must be a sequence of strings");
        if (!seg)
            goto done;
        Py_ssize_t k = PySequence_Fast_GET_SIZE(seg);
        if (k == 0) {
            Py_DECREF(seg);
            PyErr_Format(PyExc_ValueError, "segment %zd has no reference", i);
            goto done;
        }
        first_ref[i] = n_refs;
        if (tb_grow((void **)&ref_texts, &cap_refs, (size_t)(n_refs + k),
                    sizeof(ter_text)) < 0) {
            Py_DECREF(seg);
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t j = 0; j < k; j++) {
            if (text_of(PySequence_Fast_GET_ITEM(seg, j), &ref_texts[n_refs++], keep,
                        "references", i) < 0) {
                Py_DECREF(seg);
                goto done;
            }
        }
        Py_DECREF(seg);
    }
    first_ref[n] = n_refs;

    ter_job job = {.n_seg = n, .hyps = hyp_texts, .first_ref = first_ref, .refs = ref_texts,
                   .out = view.buf};
    atomic_init(&job.next, 0);
    atomic_init(&job.error, 0);
    atomic_init(&job.error_segment, 0);
    tb_signal_watch watch;
    job.watch = &watch;
    tb_signal_watch_begin(&watch);
    run_workers(&job, threads);
    tb_signal_watch_end(&watch);
    int error = atomic_load(&job.error);
    if (error == TER_INTERRUPTED) {
        /* the exception a signal handler raised is set */
    } else if (error == -1) {
        PyErr_NoMemory();
    } else if (error == -2) {
        PyErr_Format(PyExc_RuntimeError, "TER: the edit path left the beam in segment %zu",
                     (size_t)atomic_load(&job.error_segment));
    } else {
        Py_INCREF(Py_None);
        result = Py_None;
    }

done:
    if (view.obj)
        PyBuffer_Release(&view);
    PyMem_Free(hyp_texts);
    PyMem_Free(first_ref);
    free(ref_texts);
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    Py_XDECREF(keep);
    return result;
}
