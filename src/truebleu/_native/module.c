/* truebleu._native_core: the CPython bindings of the compiled core.
 *
 * Every entry point first collects what it needs while holding the GIL (new
 * references to the strings, str.lower() results for non-ASCII text, buffer
 * views), then releases the GIL and runs the work on worker threads. Workers
 * take chunks of items from an atomic counter and write to disjoint rows, so
 * the result does not depend on the number of threads.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tb_core.h"
#include "tb_signals.h"
#include "ter.h"

/* ------------------------------------------------------------------ */
/* Prepared: tokenized segments, reusable (reference caching)          */

typedef struct {
    PyObject_HEAD
    tb_seg **segs;
    Py_ssize_t n;
    int mode, lowercase;
    size_t nbytes;
} PreparedObject;

static void prepared_free_segs(tb_seg **segs, Py_ssize_t n)
{
    if (!segs)
        return;
    for (Py_ssize_t i = 0; i < n; i++)
        free(segs[i]);
    free(segs);
}

static void Prepared_dealloc(PreparedObject *self)
{
    prepared_free_segs(self->segs, self->n);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t Prepared_len(PreparedObject *self) { return self->n; }

static PyObject *Prepared_tokens(PreparedObject *self, PyObject *args)
{
    /* the token strings of sequence `seq` of segment `index` (for tests) */
    Py_ssize_t index, seq;
    if (!PyArg_ParseTuple(args, "nn", &index, &seq))
        return NULL;
    if (index < 0 || index >= self->n) {
        PyErr_SetString(PyExc_IndexError, "segment index out of range");
        return NULL;
    }
    const tb_seg *s = self->segs[index];
    if (seq < 0 || seq >= (Py_ssize_t)s->nseq) {
        PyErr_SetString(PyExc_IndexError, "sequence index out of range");
        return NULL;
    }
    size_t start = 0;
    for (Py_ssize_t k = 0; k < seq; k++)
        start += s->seq_len[k];
    PyObject *out = PyList_New(s->seq_len[seq]);
    if (!out)
        return NULL;
    for (uint32_t k = 0; k < s->seq_len[seq]; k++) {
        const tb_tok *t = &s->vocab[s->ids[start + k]];
        PyObject *str = PyUnicode_DecodeUTF8(s->bytes + t->off, t->len, "surrogatepass");
        if (!str) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, str);
    }
    return out;
}

static PyObject *Prepared_get_nbytes(PreparedObject *self, void *closure)
{
    return PyLong_FromSize_t(self->nbytes);
}

static PyObject *Prepared_get_mode(PreparedObject *self, void *closure)
{
    return PyLong_FromLong(self->mode);
}

static PyObject *Prepared_get_lowercase(PreparedObject *self, void *closure)
{
    return PyBool_FromLong(self->lowercase);
}

static PyObject *Prepared_get_num_refs(PreparedObject *self, void *closure)
{
    /* references per segment: the common count, or -1 when it varies (sacreBLEU) */
    long common = self->n ? (long)self->segs[0]->nseq : -1;  /* none: -1, as sacreBLEU */
    for (Py_ssize_t k = 1; k < self->n; k++)
        if ((long)self->segs[k]->nseq != common)
            return PyLong_FromLong(-1);
    return PyLong_FromLong(common);
}

static PyMethodDef Prepared_methods[] = {
    {"tokens", (PyCFunction)Prepared_tokens, METH_VARARGS,
     "tokens(index, seq) -> list of the tokens of one sequence of one segment"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Prepared_getset[] = {
    {"nbytes", (getter)Prepared_get_nbytes, NULL, "memory held by the segments", NULL},
    {"mode", (getter)Prepared_get_mode, NULL, "tokenizer mode number", NULL},
    {"lowercase", (getter)Prepared_get_lowercase, NULL, "whether text was lowercased", NULL},
    {"num_refs", (getter)Prepared_get_num_refs, NULL, "references per segment (-1: varies)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Prepared_as_sequence = {
    .sq_length = (lenfunc)Prepared_len,
};

static PyTypeObject PreparedType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "truebleu._native_core.Prepared",
    .tp_doc = "Tokenized segments (token ids over a per-segment vocabulary), built by prepare().",
    .tp_basicsize = sizeof(PreparedObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)Prepared_dealloc,
    .tp_as_sequence = &Prepared_as_sequence,
    .tp_methods = Prepared_methods,
    .tp_getset = Prepared_getset,
};

/* ------------------------------------------------------------------ */
/* collecting strings under the GIL                                    */

typedef struct {
    PyObject **objs;   /* owned references */
    tb_text *texts;
    Py_ssize_t n;
} text_list;

static void text_list_free(text_list *t)
{
    if (t->objs) {
        for (Py_ssize_t i = 0; i < t->n; i++)
            Py_XDECREF(t->objs[i]);
    }
    PyMem_Free(t->objs);
    PyMem_Free(t->texts);
    t->objs = NULL;
    t->texts = NULL;
    t->n = 0;
}

static PyObject *str_lower_name;

/* A tuple copy of seq (str.lower() of a str subclass may run code that
 * mutates a list while we hold pointers into it). */
static PyObject *as_tuple(PyObject *seq, const char *message)
{
    if (PyTuple_CheckExact(seq))
        return Py_NewRef(seq);
    PyObject *t = PySequence_Tuple(seq);
    if (!t && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, message);
    }
    return t;
}

/* Store line (a str) at index i, lowercased as str.lower() would when asked. */
static int text_list_set(text_list *t, Py_ssize_t i, PyObject *line, int lowercase)
{
    if (!PyUnicode_Check(line)) {
        PyErr_Format(PyExc_TypeError, "segments must be str, got %.100s", Py_TYPE(line)->tp_name);
        return -1;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(line) < 0)
        return -1;
#endif
    int ascii_lower = 0;
    if (lowercase && PyUnicode_IS_ASCII(line)) {
        ascii_lower = 1;  /* str.lower() of ASCII text only maps A-Z */
        Py_INCREF(line);
    } else if (lowercase) {
        line = PyObject_CallMethodNoArgs(line, str_lower_name);
        if (!line)
            return -1;
        if (!PyUnicode_Check(line)) {
            PyErr_SetString(PyExc_TypeError, "str.lower() did not return a str");
            Py_DECREF(line);
            return -1;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(line) < 0) {
            Py_DECREF(line);
            return -1;
        }
#endif
    } else {
        Py_INCREF(line);
    }
    t->objs[i] = line;
    t->texts[i].data = PyUnicode_DATA(line);
    t->texts[i].length = (size_t)PyUnicode_GET_LENGTH(line);
    t->texts[i].kind = PyUnicode_KIND(line);
    t->texts[i].ascii_lower = ascii_lower;
    return 0;
}

static int text_list_alloc(text_list *t, Py_ssize_t n)
{
    t->n = n;
    t->objs = PyMem_Calloc(n ? n : 1, sizeof(PyObject *));
    t->texts = PyMem_Calloc(n ? n : 1, sizeof(tb_text));
    if (!t->objs || !t->texts) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* worker threads                                                      */

/* A team of threads for one job. Helpers are detached: one that the OS
 * schedules only after the work is done finds nothing left and leaves, so a
 * busy machine never makes the caller wait for a thread to start. The job
 * lives on the heap (team first) and is freed by whoever holds it last. */
typedef struct team {
    atomic_int refs, active, closed;
    void (*body)(struct team *);
} team;

static void *team_helper(void *arg)
{
    team *t = arg;
    atomic_fetch_add(&t->active, 1);
    if (!atomic_load(&t->closed))
        t->body(t);  /* claims work items until there are none */
    atomic_fetch_sub(&t->active, 1);
    if (atomic_fetch_sub(&t->refs, 1) == 1)
        free(t);
    return NULL;
}

#define MAX_THREADS 256

/* Runs t->body on this thread and up to nthreads - 1 helpers; returns when
 * every work item is done. Then read the results and call team_release(). */
static void team_run(team *t, int nthreads)
{
    atomic_init(&t->refs, 1);
    atomic_init(&t->active, 0);
    atomic_init(&t->closed, 0);
    if (nthreads > MAX_THREADS)
        nthreads = MAX_THREADS;
    if (nthreads > 1) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        for (int k = 1; k < nthreads; k++) {
            pthread_t tid;
            atomic_fetch_add(&t->refs, 1);
            if (pthread_create(&tid, &attr, team_helper, t) != 0) {
                atomic_fetch_sub(&t->refs, 1);
                break;  /* fewer threads: the same result, later */
            }
        }
        pthread_attr_destroy(&attr);
    }
    t->body(t);
    /* every item is claimed now; wait for the helpers still working on one */
    atomic_store(&t->closed, 1);
    while (atomic_load(&t->active) > 0)
        sched_yield();
}

static void team_release(team *t)
{
    if (atomic_fetch_sub(&t->refs, 1) == 1)
        free(t);
}

/* ------------------------------------------------------------------ */
/* Ctrl-C during a long call                                           */

/* See tb_signals.h. */

enum { JOB_OK = 0, JOB_NOMEM = 1, JOB_INTERRUPTED = 2 };

/* The first failure wins: a stop caused by an interrupt is not an out-of-memory. */
static void set_failure(atomic_int *failed, int code)
{
    int expected = JOB_OK;
    atomic_compare_exchange_strong(failed, &expected, code);
}

enum job_kind { JOB_PREPARE, JOB_STATS, JOB_PAIRS, JOB_SENT };

typedef struct {
    team t;  /* first: the job is the team's heap block */
    enum job_kind kind;
    size_t nitems, chunk;
    atomic_size_t next;
    atomic_int failed;             /* JOB_OK, JOB_NOMEM or JOB_INTERRUPTED */
    tb_signal_watch *watch;
    int mode, max_order;
    /* JOB_PREPARE */
    const tb_text *texts;
    const Py_ssize_t *offsets;     /* segment k has texts[offsets[k] .. offsets[k+1]) */
    tb_seg **out_segs;
    /* JOB_STATS */
    tb_seg *const *ref_segs;
    int64_t *out_rows;
    int64_t *totals;  /* JOB_STATS, JOB_SENT without out_rows: the rows' sum, and no rows */
    /* JOB_SENT: hypothesis k (texts[k]) against ref_texts[offsets[k] .. offsets[k+1]) */
    const tb_text *ref_texts;
    /* JOB_PAIRS */
    tb_seg *const *hyp_segs;
    const int64_t *hyp_index, *ref_index;  /* NULL, NULL: all pairs, hyp-major */
    size_t n_ref_segs;
} job;

/* A thread's poll of a job: signals (on the caller), then the job's failure flag. */
typedef struct {
    tb_poll base;  /* first */
    job *j;
} job_poll;

static int job_poll_check(tb_poll *p)
{
    job *j = ((job_poll *)p)->j;
    p->budget = TB_POLL_UNITS;
    if (tb_signal_watch_raised(j->watch))
        set_failure(&j->failed, JOB_INTERRUPTED);
    return atomic_load(&j->failed) != JOB_OK;
}

/* acc += row, both `width` long (apart: the compiler may use vector adds) */
static inline void add_row(int64_t *restrict acc, const int64_t *restrict row, size_t width)
{
    for (size_t c = 0; c < width; c++)
        acc[c] += row[c];
}

/* sum: with j->totals, the thread's row (width) and then its sum of rows (width) */
static void run_items(job *j, tb_builder *b, tb_builder *b2, tb_matcher *m, tb_poll *poll, size_t lo,
                      size_t hi, int64_t *sum)
{
    const size_t width = 2 + 2 * (size_t)j->max_order;
    const int only_sum = j->totals != NULL;
    for (size_t k = lo; k < hi && !atomic_load_explicit(&j->failed, memory_order_relaxed); k++) {
        int rc = 0;
        int64_t *row = only_sum ? sum : j->out_rows + k * width;
        if (j->kind == JOB_PREPARE) {
            tb_builder_reset(b);
            for (Py_ssize_t t = j->offsets[k]; t < j->offsets[k + 1] && rc == 0; t++)
                rc = tb_builder_add_line(b, &j->texts[t], j->mode);
            if (rc == 0) {
                j->out_segs[k] = tb_builder_freeze(b);
                rc = j->out_segs[k] ? 0 : -1;
            }
        } else if (j->kind == JOB_STATS) {
            tb_builder_reset(b);
            b->lookup = j->ref_segs[k];  /* hypothesis tokens straight to reference ids */
            rc = tb_builder_add_line(b, &j->texts[k], j->mode);
            b->lookup = NULL;
            if (rc == 0)
                rc = tb_segment_row_ids(m, b->ids, (uint32_t)b->nids, j->ref_segs[k], j->max_order, row);
        } else if (j->kind == JOB_SENT) {
            /* the references in b, the hypothesis in b2 as ids of b's vocabulary */
            tb_builder_reset(b);
            for (Py_ssize_t t = j->offsets[k]; t < j->offsets[k + 1] && rc == 0; t++)
                rc = tb_builder_add_line(b, &j->ref_texts[t], j->mode);
            if (rc == 0) {
                tb_seg ref;
                tb_builder_view(b, &ref);
                tb_builder_reset(b2);
                b2->lookup = &ref;
                rc = tb_builder_add_line(b2, &j->texts[k], j->mode);
                b2->lookup = NULL;
                if (rc == 0)
                    rc = tb_segment_row_ids(m, b2->ids, (uint32_t)b2->nids, &ref, j->max_order, row);
            }
        } else {
            size_t h, r;
            if (j->hyp_index) {
                h = (size_t)j->hyp_index[k];
                r = (size_t)j->ref_index[k];
            } else {
                h = k / j->n_ref_segs;
                r = k % j->n_ref_segs;
            }
            /* the pair's work, as the tokenizers count theirs (a unit per code point):
             * the hypothesis's vocabulary looked up, then both sides' n-grams */
            const tb_seg *hs = j->hyp_segs[h], *rs = j->ref_segs[r];
            if (tb_poll_spend(poll, 16 + (long)hs->nvocab + ((long)hs->ntok + rs->ntok) * j->max_order))
                break;
            rc = tb_segment_row(m, hs, rs, j->max_order, j->out_rows + k * width);
        }
        if (rc < 0)
            set_failure(&j->failed, JOB_NOMEM);  /* unless a stop came first */
        else if (only_sum)
            add_row(sum + width, sum, width);
    }
}

static void job_body(team *t)
{
    job *j = (job *)t;
    tb_builder b, b2;
    tb_matcher m;
    job_poll poll = {{job_poll_check, TB_POLL_UNITS}, j};
    tb_builder_init(&b);
    tb_builder_init(&b2);
    tb_matcher_init(&m);
    b.poll = b2.poll = &poll.base;
    const size_t width = 2 + 2 * (size_t)j->max_order;
    int64_t *sum = NULL;  /* with j->totals: this thread's row, then its sum */
    for (;;) {
        size_t lo = atomic_fetch_add(&j->next, j->chunk);
        if (lo >= j->nitems || atomic_load(&j->failed))
            break;
        if (j->totals && !sum && !(sum = calloc(2 * width, sizeof(int64_t)))) {
            set_failure(&j->failed, JOB_NOMEM);
            break;
        }
        size_t hi = lo + j->chunk < j->nitems ? lo + j->chunk : j->nitems;
        run_items(j, &b, &b2, &m, &poll.base, lo, hi, sum);
    }
    if (sum && atomic_load(&j->failed) == JOB_OK)  /* counts of tokens in memory: no overflow */
        for (size_t c = 0; c < width; c++)
            __atomic_fetch_add(&j->totals[c], sum[width + c], __ATOMIC_RELAXED);
    free(sum);
    tb_builder_free(&b);
    tb_builder_free(&b2);
    tb_matcher_free(&m);
}

/* Runs a copy of the job on up to `threads` threads, the calling one included.
 * JOB_OK, JOB_NOMEM or JOB_INTERRUPTED. Call without the GIL (watch->ts set). */
static int run_job(const job *spec, int threads, tb_signal_watch *watch)
{
    size_t nchunks = (spec->nitems + spec->chunk - 1) / spec->chunk;
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > nchunks)
        threads = nchunks ? (int)(nchunks < MAX_THREADS ? nchunks : MAX_THREADS) : 1;
    job *j = malloc(sizeof(job));
    if (!j)
        return JOB_NOMEM;
    memcpy(j, spec, sizeof(job));
    atomic_init(&j->next, 0);
    atomic_init(&j->failed, JOB_OK);
    j->watch = watch;
    j->t.body = job_body;
    team_run(&j->t, threads);
    int rc = atomic_load(&j->failed);
    team_release(&j->t);
    return rc;
}

/* run_job with the GIL released; -1 with an exception set on failure
 * (MemoryError, or what a signal handler raised). */
static int run_job_released(const job *spec, int threads)
{
    tb_signal_watch watch;
    tb_signal_watch_begin(&watch);
    int rc = run_job(spec, threads, &watch);
    tb_signal_watch_end(&watch);
    if (rc == JOB_NOMEM)
        PyErr_NoMemory();
    return rc == JOB_OK ? 0 : -1;
}

static void job_init(job *j, enum job_kind kind, size_t nitems, size_t chunk)
{
    memset(j, 0, sizeof(*j));
    j->kind = kind;
    j->nitems = nitems;
    j->chunk = chunk;
    atomic_init(&j->next, 0);
    atomic_init(&j->failed, 0);
}

/* ------------------------------------------------------------------ */
/* argument helpers                                                    */

static int check_mode(int mode)
{
    if (mode < TB_NONE || mode > TB_CHAR) {
        PyErr_Format(PyExc_ValueError, "unknown tokenizer mode %d", mode);
        return -1;
    }
    return 0;
}

static int check_order(int max_order)
{
    if (max_order < 1 || max_order > 1000) {
        PyErr_Format(PyExc_ValueError, "max_order must be between 1 and 1000, got %d", max_order);
        return -1;
    }
    return 0;
}

/* A writable buffer of exactly `count` int64 items. */
static int get_out_buffer(PyObject *obj, Py_buffer *view, size_t count)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if ((size_t)view->len != count * sizeof(int64_t)) {
        PyErr_Format(PyExc_ValueError, "output buffer holds %zd bytes, expected %zu",
                     view->len, count * sizeof(int64_t));
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Where a statistics job's rows go: into `out`, an int64 buffer of n rows, or,
 * when out is None, nowhere: only their sum is added to `totals` (an int64
 * buffer of one row), which spares a caller that wants the corpus totals a
 * table of n rows. Release with job_output_release. */
typedef struct {
    Py_buffer rows, sum;
} job_output;

static int job_output_get(job_output *o, job *j, PyObject *out, PyObject *totals, size_t n)
{
    const size_t width = 2 + 2 * (size_t)j->max_order;
    if (out != Py_None) {
        if (get_out_buffer(out, &o->rows, n * width) < 0)
            return -1;
        j->out_rows = o->rows.buf;
        return 0;
    }
    if (!totals || totals == Py_None) {
        PyErr_SetString(PyExc_TypeError, "out is None: a totals buffer (one int64 row) is needed");
        return -1;
    }
    if (get_out_buffer(totals, &o->sum, width) < 0)
        return -1;
    j->totals = o->sum.buf;
    return 0;
}

static void job_output_release(job_output *o)
{
    if (o->rows.obj)
        PyBuffer_Release(&o->rows);
    if (o->sum.obj)
        PyBuffer_Release(&o->sum);
}

static PyObject *str_endswith_name, *space_period;

/* Whether hypothesis `line` ends in " ." as line.endswith(" .") says (sacreBLEU's
 * sign of tokenized output, on the unstripped line): 1, 0, or -1 with an
 * exception. An exact str is read here; anything else is asked through its own
 * endswith, as the Python expression would. */
static int ends_in_period(PyObject *line)
{
    if (PyUnicode_CheckExact(line)) {
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(line) < 0)
            return -1;
#endif
        Py_ssize_t len = PyUnicode_GET_LENGTH(line);
        return len >= 2 && PyUnicode_READ_CHAR(line, len - 2) == ' ' && PyUnicode_READ_CHAR(line, len - 1) == '.';
    }
    Py_INCREF(line);
    PyObject *ends = PyObject_CallMethodOneArg(line, str_endswith_name, space_period);
    Py_DECREF(line);
    int yes = ends ? PyObject_IsTrue(ends) : -1;
    Py_XDECREF(ends);
    return yes;
}

/* ------------------------------------------------------------------ */
/* prepare(segments, mode, lowercase, threads) -> Prepared             */

/* The strings of every segment, in order: segment k is texts[offsets[k] ..
 * offsets[k+1]). With loose, a str segment is one reference and None entries
 * are dropped. On error: -1 with an exception; free with gathered_free. */
typedef struct {
    text_list texts;
    Py_ssize_t *offsets;
    Py_ssize_t nseg;
} gathered;

static void gathered_free(gathered *g)
{
    text_list_free(&g->texts);
    PyMem_Free(g->offsets);
    g->offsets = NULL;
}

/* A new reference to what holds segment `refs`'s strings: an exact list or
 * tuple itself (read in place: no copy per segment), a str itself (loose: one
 * reference), anything else copied into a tuple. */
static PyObject *segment_holder(PyObject *refs, int loose)
{
    if (PyUnicode_Check(refs)) {
        if (!loose) {
            PyErr_SetString(PyExc_TypeError, "each segment must be a sequence of str, not a str");
            return NULL;
        }
        return Py_NewRef(refs);
    }
    if (PyList_CheckExact(refs) || PyTuple_CheckExact(refs))
        return Py_NewRef(refs);
    if (loose && (PyBytes_Check(refs) || PyByteArray_Check(refs) || !PySequence_Check(refs))) {
        PyErr_SetString(PyExc_TypeError, "each segment must be a str or a sequence of str");
        return NULL;
    }
    return as_tuple(refs, "each segment must be a sequence of str");
}

/* The strings of a holder: *n items from the returned array (valid until Python code runs). */
static PyObject *const *holder_items(PyObject *const *holder, Py_ssize_t *n)
{
    if (PyUnicode_Check(*holder)) {
        *n = 1;
        return holder;
    }
    *n = PySequence_Fast_GET_SIZE(*holder);
    return PySequence_Fast_ITEMS(*holder);
}

static int gather_segments(PyObject *segments, int lowercase, int loose, gathered *g)
{
    memset(g, 0, sizeof(*g));
    PyObject *outer = as_tuple(segments, "segments must be a sequence of sequences of str");
    if (!outer)
        return -1;
    Py_ssize_t nseg = PyTuple_GET_SIZE(outer);
    int rc = -1;
    PyObject **inner = PyMem_Calloc(nseg ? nseg : 1, sizeof(PyObject *));
    g->offsets = PyMem_Malloc((nseg + 1) * sizeof(Py_ssize_t));
    g->nseg = nseg;
    if (!inner || !g->offsets) {
        PyErr_NoMemory();
        goto done;
    }
    g->offsets[0] = 0;
    for (Py_ssize_t k = 0; k < nseg; k++) {
        inner[k] = segment_holder(PyTuple_GET_ITEM(outer, k), loose);
        if (!inner[k])
            goto done;
        Py_ssize_t count;
        PyObject *const *items = holder_items(&inner[k], &count);
        if (loose)
            for (Py_ssize_t r = 0, m = count; r < m; r++)
                count -= items[r] == Py_None;
        g->offsets[k + 1] = g->offsets[k] + count;
    }
    if (text_list_alloc(&g->texts, g->offsets[nseg]) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < nseg; k++) {
        /* str.lower() of a str subclass runs Python code, which may change a
         * list read in place: its items are fetched again after each string,
         * and a changed count is an error rather than a read out of bounds */
        Py_ssize_t t = g->offsets[k], count, r = 0;
        for (;;) {
            PyObject *const *items = holder_items(&inner[k], &count);
            if (r >= count)
                break;
            PyObject *line = items[r++];
            if (loose && line == Py_None)
                continue;
            if (t == g->offsets[k + 1]) {  /* more strings than counted */
                t = -1;
                break;
            }
            if (loose && !PyUnicode_Check(line)) {  /* the message of references_of */
                PyErr_Format(PyExc_TypeError, "references of hypothesis %zd must be str, got %.100s", k,
                             Py_TYPE(line)->tp_name);
                goto done;
            }
            if (text_list_set(&g->texts, t++, line, lowercase) < 0)
                goto done;
        }
        if (t != g->offsets[k + 1]) {
            PyErr_SetString(PyExc_RuntimeError, "a segment's list of strings changed during the call");
            goto done;
        }
    }
    rc = 0;
done:
    if (inner) {
        for (Py_ssize_t k = 0; k < nseg; k++)
            Py_XDECREF(inner[k]);
        PyMem_Free(inner);
    }
    Py_DECREF(outer);
    if (rc < 0)
        gathered_free(g);
    return rc;
}

/* Tokenizes gathered segments into a new Prepared (g is left for the caller to free). */
static PyObject *prepare_gathered(const gathered *g, int mode, int lowercase, int threads)
{
    Py_ssize_t nseg = g->nseg;
    PreparedObject *result = NULL;
    tb_seg **segs = calloc(nseg ? nseg : 1, sizeof(tb_seg *));
    if (!segs) {
        PyErr_NoMemory();
        goto done;
    }
    job j;
    job_init(&j, JOB_PREPARE, (size_t)nseg, 16);
    j.mode = mode;
    j.texts = g->texts.texts;
    j.offsets = g->offsets;
    j.out_segs = segs;
    if (run_job_released(&j, threads) < 0)
        goto done;
    result = PyObject_New(PreparedObject, &PreparedType);
    if (!result)
        goto done;
    result->segs = segs;
    result->n = nseg;
    result->mode = mode;
    result->lowercase = lowercase;
    result->nbytes = 0;
    for (Py_ssize_t k = 0; k < nseg; k++)
        result->nbytes += sizeof(tb_seg) + segs[k]->vcap * sizeof(tb_slot) + (segs[k]->nseq + segs[k]->ntok) * 4 +
                          segs[k]->nvocab * sizeof(tb_tok) + segs[k]->nbytes + TB_BYTES_PAD;
    segs = NULL;
done:
    prepared_free_segs(segs, nseg);
    return (PyObject *)result;
}

static PyObject *core_prepare(PyObject *module, PyObject *args)
{
    PyObject *segments;
    int mode, lowercase, threads, loose = 0;
    if (!PyArg_ParseTuple(args, "Oipi|p", &segments, &mode, &lowercase, &threads, &loose))
        return NULL;
    if (check_mode(mode) < 0)
        return NULL;
    gathered g;
    if (gather_segments(segments, lowercase, loose, &g) < 0)
        return NULL;
    PyObject *result = prepare_gathered(&g, mode, lowercase, threads);
    gathered_free(&g);
    return result;
}

/* The one-pass job shared by sentence_statistics and stream_statistics: each
 * worker tokenizes segment k's references (g) and then hypothesis k of the
 * tuple seq, and writes its row into out (or adds it to totals: job_output_get);
 * nothing is kept. With periods, counts the hypotheses that end in " .".
 * 0 ok, -1 error. */
static int run_one_pass(PyObject *seq, const gathered *g, int mode, int lowercase, int max_order,
                        int threads, PyObject *out, PyObject *totals, Py_ssize_t *periods)
{
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    text_list texts = {0};
    job_output output = {0};
    int rc = -1;
    if (text_list_alloc(&texts, n) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *line = PyTuple_GET_ITEM(seq, k);
        if (!PyUnicode_Check(line)) {
            PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a string, got %.100s", k,
                         Py_TYPE(line)->tp_name);
            goto done;
        }
        if (text_list_set(&texts, k, line, lowercase) < 0)
            goto done;
        if (periods) {
            int yes = ends_in_period(line);
            if (yes < 0)
                goto done;
            *periods += yes;
        }
    }
    job j;
    job_init(&j, JOB_SENT, (size_t)n, 32);
    j.mode = mode;
    j.max_order = max_order;
    j.texts = texts.texts;
    j.ref_texts = g->texts.texts;
    j.offsets = g->offsets;
    if (job_output_get(&output, &j, out, totals, (size_t)n) < 0)
        goto done;
    rc = run_job_released(&j, threads);
done:
    job_output_release(&output);
    text_list_free(&texts);
    return rc;
}

/* sentence_statistics(hyps, refs_per_hyp, mode, lowercase, max_order, threads, out) -> int
 * prepare() (loose) and statistics() in one pass: each worker tokenizes a
 * segment's references and then its hypothesis, with nothing kept. Returns -1,
 * or the index of the first hypothesis without any reference (then nothing is
 * computed: the caller raises). */
static PyObject *core_sentence_statistics(PyObject *module, PyObject *args)
{
    PyObject *hyps, *refs, *out;
    int mode, lowercase, max_order, threads;
    if (!PyArg_ParseTuple(args, "OOipiiO", &hyps, &refs, &mode, &lowercase, &max_order, &threads, &out))
        return NULL;
    if (check_mode(mode) < 0 || check_order(max_order) < 0)
        return NULL;
    PyObject *seq = as_tuple(hyps, "hypotheses must be a sequence of str");
    if (!seq)
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    gathered g = {0};
    PyObject *result = NULL;
    if (gather_segments(refs, lowercase, 1, &g) < 0)
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
    if (run_one_pass(seq, &g, mode, lowercase, max_order, threads, out, NULL, NULL) < 0)
        goto done;
    result = PyLong_FromLong(-1);
done:
    gathered_free(&g);
    Py_DECREF(seq);
    return result;
}

/* sacreBLEU's layout: one sequence per reference set, all of the same length;
 * None marks a missing reference (dropped). The strings are gathered straight
 * from the columns into g, segment by segment: no segment lists, in Python or
 * here. A reference that is neither a str nor None is an error naming it, and
 * so is, with require_reference, a segment without any reference (the messages
 * of truebleu.references). */
static int gather_streams(PyObject *streams_obj, int lowercase, int require_reference, gathered *g)
{
    memset(g, 0, sizeof(*g));
    PyObject *streams = as_tuple(streams_obj, "streams must be a sequence of sequences of str");
    if (!streams)
        return -1;
    Py_ssize_t ns = PyTuple_GET_SIZE(streams), n = 0;
    int rc = -1;
    PyObject **cols = PyMem_Calloc(ns ? ns : 1, sizeof(PyObject *));
    if (!cols) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t s = 0; s < ns; s++) {
        PyObject *st = PyTuple_GET_ITEM(streams, s);
        if (PyUnicode_Check(st)) {
            PyErr_SetString(PyExc_TypeError, "each stream must be a sequence of str, not a str");
            goto done;
        }
        cols[s] = as_tuple(st, "each stream must be a sequence of str");
        if (!cols[s])
            goto done;
        if (s == 0)
            n = PyTuple_GET_SIZE(cols[0]);
        else if (PyTuple_GET_SIZE(cols[s]) != n) {
            PyErr_Format(PyExc_ValueError, "reference streams differ in length: %zd and %zd",
                         n, PyTuple_GET_SIZE(cols[s]));
            goto done;
        }
    }
    g->nseg = n;
    g->offsets = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    if (!g->offsets) {
        PyErr_NoMemory();
        goto done;
    }
    g->offsets[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t count = 0;
        for (Py_ssize_t s = 0; s < ns; s++)
            count += PyTuple_GET_ITEM(cols[s], i) != Py_None;
        if (count == 0 && require_reference) {
            PyErr_Format(PyExc_ValueError, "segment %zd has no reference (every reference is None)", i);
            goto done;
        }
        g->offsets[i + 1] = g->offsets[i] + count;
    }
    if (text_list_alloc(&g->texts, g->offsets[n]) < 0)
        goto done;
    for (Py_ssize_t i = 0, t = 0; i < n; i++) {
        for (Py_ssize_t s = 0; s < ns; s++) {
            PyObject *line = PyTuple_GET_ITEM(cols[s], i);
            if (line == Py_None)
                continue;
            if (!PyUnicode_Check(line)) {
                PyErr_Format(PyExc_TypeError, "references[%zd][%zd] must be a string or None, got %.100s",
                             s, i, Py_TYPE(line)->tp_name);
                goto done;
            }
            if (text_list_set(&g->texts, t++, line, lowercase) < 0)
                goto done;
        }
    }
    rc = 0;
done:
    if (cols) {
        for (Py_ssize_t s = 0; s < ns; s++)
            Py_XDECREF(cols[s]);
        PyMem_Free(cols);
    }
    Py_DECREF(streams);
    if (rc < 0)
        gathered_free(g);
    return rc;
}

/* References per segment: the common count, or -1 when it varies (sacreBLEU's nrefs:var). */
static long common_count(const Py_ssize_t *offsets, Py_ssize_t n)
{
    long common = n ? (long)(offsets[1] - offsets[0]) : -1;  /* no segment: -1, as sacreBLEU */
    for (Py_ssize_t k = 1; k < n; k++)
        if ((long)(offsets[k + 1] - offsets[k]) != common)
            return -1;
    return common;
}

/* prepare_streams(streams, mode, lowercase, threads) -> Prepared */
static PyObject *core_prepare_streams(PyObject *module, PyObject *args)
{
    PyObject *streams;
    int mode, lowercase, threads;
    if (!PyArg_ParseTuple(args, "Oipi", &streams, &mode, &lowercase, &threads))
        return NULL;
    if (check_mode(mode) < 0)
        return NULL;
    gathered g;
    if (gather_streams(streams, lowercase, 0, &g) < 0)
        return NULL;
    PyObject *result = prepare_gathered(&g, mode, lowercase, threads);
    gathered_free(&g);
    return result;
}

/* stream_statistics(hyps, streams, mode, lowercase, max_order, threads, out, totals=None)
 *   -> (num_refs, tokenized_periods)
 * A cold corpus: prepare_streams() and statistics() in one pass, as
 * sentence_statistics: each worker tokenizes a segment's references and then
 * its hypothesis, writes the row (out None: adds it to totals), and keeps
 * nothing. Returns the references per segment (-1 when the number varies) and
 * how many hypotheses end in " .". */
static PyObject *core_stream_statistics(PyObject *module, PyObject *args)
{
    PyObject *hyps, *streams, *out, *totals = NULL;
    int mode, lowercase, max_order, threads;
    if (!PyArg_ParseTuple(args, "OOipiiO|O", &hyps, &streams, &mode, &lowercase, &max_order, &threads,
                          &out, &totals))
        return NULL;
    if (check_mode(mode) < 0 || check_order(max_order) < 0)
        return NULL;
    gathered g;
    if (gather_streams(streams, lowercase, 1, &g) < 0)
        return NULL;
    PyObject *result = NULL;
    PyObject *seq = as_tuple(hyps, "hypotheses must be a sequence of str");
    if (!seq)
        goto done;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    if (n != g.nseg) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", n, g.nseg);
        goto done;
    }
    Py_ssize_t periods = 0;
    if (run_one_pass(seq, &g, mode, lowercase, max_order, threads, out, totals, &periods) < 0)
        goto done;
    result = Py_BuildValue("ln", common_count(g.offsets, n), periods);
done:
    gathered_free(&g);
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
static PyObject *core_stream_statistics_utf8(PyObject *module, PyObject *args)
{
    PyObject *buffers_obj, *ends_obj, *rows, *totals_obj;
    Py_ssize_t n;
    int mode, lowercase, max_order, threads;
    if (!PyArg_ParseTuple(args, "OOnipiiOO", &buffers_obj, &ends_obj, &n, &mode, &lowercase, &max_order,
                          &threads, &rows, &totals_obj))
        return NULL;
    if (check_mode(mode) < 0 || check_order(max_order) < 0)
        return NULL;
    PyObject *buffers = as_tuple(buffers_obj, "buffers must be a sequence of buffers");
    PyObject *ends = buffers ? as_tuple(ends_obj, "ends must be a sequence of int") : NULL;
    Py_ssize_t nf = buffers ? PyTuple_GET_SIZE(buffers) : 0;
    Py_buffer *views = PyMem_Calloc(nf ? nf : 1, sizeof(Py_buffer));
    Py_buffer rows_view = {0}, totals_view = {0};
    text_list hyps = {0}, refs = {0};
    Py_ssize_t *offsets = NULL;
    int64_t *own_rows = NULL;  /* rows=None: the job's rows, summed and dropped */
    PyObject *consumed = NULL, *result = NULL;
    const size_t width = 2 + 2 * (size_t)max_order;
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
    if (text_list_alloc(&hyps, n) < 0 || text_list_alloc(&refs, n * (nf - 1)) < 0 ||
        !(consumed = PyTuple_New(nf)) || !(offsets = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t))))
        goto done;
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
            text_list *t = f == 0 ? &hyps : &refs;
            Py_ssize_t k = f == 0 ? i : i * (nf - 1) + (f - 1);
            int ascii = 1;
            if (lowercase)
                for (size_t b = 0; b < length && ascii; b++)
                    ascii = d[b] < 0x80;
            if (ascii) {
                t->texts[k] = (tb_text){d, length, TB_KIND_UTF8, lowercase};
            } else {  /* str.lower() of other text: Python's */
                PyObject *line = PyUnicode_DecodeUTF8((const char *)d, (Py_ssize_t)length, "strict");
                int rc = line ? text_list_set(t, k, line, 1) : -1;
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
    } else if (get_out_buffer(rows, &rows_view, (size_t)n * width) < 0) {
        goto done;
    }
    if (get_out_buffer(totals_obj, &totals_view, width) < 0)
        goto done;
    for (Py_ssize_t i = 0; i <= n; i++)
        offsets[i] = i * (nf - 1);
    job j;
    job_init(&j, JOB_SENT, (size_t)n, 32);
    j.mode = mode;
    j.max_order = max_order;
    j.texts = hyps.texts;
    j.ref_texts = refs.texts;
    j.offsets = offsets;
    j.out_rows = own_rows ? own_rows : rows_view.buf;
    if (run_job_released(&j, threads) < 0)
        goto done;
    int64_t *out = j.out_rows, *sum = totals_view.buf;
    for (Py_ssize_t i = 0; i < n; i++)
        for (size_t c = 0; c < width; c++)
            sum[c] += out[i * width + c];
    result = Py_BuildValue("Ol", consumed, periods);
done:
    PyMem_Free(own_rows);
    if (rows_view.obj)
        PyBuffer_Release(&rows_view);
    if (totals_view.obj)
        PyBuffer_Release(&totals_view);
    for (Py_ssize_t f = 0; views && f < nf; f++)
        if (views[f].obj)
            PyBuffer_Release(&views[f]);
    PyMem_Free(views);
    PyMem_Free(offsets);
    text_list_free(&hyps);
    text_list_free(&refs);
    Py_XDECREF(consumed);
    Py_XDECREF(ends);
    Py_XDECREF(buffers);
    return result;
}

/* ------------------------------------------------------------------ */
/* statistics(hyps, prepared, mode, lowercase, max_order, threads, out, totals=None)
 *   -> tokenized_periods
 * Rows into out, or (out None) only their sum added to totals; returns how many
 * hypotheses end in " ." */

static PyObject *core_statistics(PyObject *module, PyObject *args)
{
    PyObject *hyps, *out, *totals = NULL;
    PreparedObject *prep;
    int mode, lowercase, max_order, threads;
    if (!PyArg_ParseTuple(args, "OO!ipiiO|O", &hyps, &PreparedType, &prep, &mode, &lowercase,
                          &max_order, &threads, &out, &totals))
        return NULL;
    if (check_mode(mode) < 0 || check_order(max_order) < 0)
        return NULL;
    PyObject *seq = as_tuple(hyps, "hypotheses must be a sequence of str");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), periods = 0;
    text_list texts = {0};
    job_output output = {0};
    PyObject *result = NULL;
    if (n != prep->n) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", n, prep->n);
        goto done;
    }
    if (text_list_alloc(&texts, n) < 0)
        goto done;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t k = 0; k < n; k++) {
        if (text_list_set(&texts, k, items[k], lowercase) < 0)
            goto done;
        int yes = ends_in_period(items[k]);
        if (yes < 0)
            goto done;
        periods += yes;
    }
    job j;
    job_init(&j, JOB_STATS, (size_t)n, 32);
    j.mode = mode;
    j.max_order = max_order;
    j.texts = texts.texts;
    j.ref_segs = prep->segs;
    if (job_output_get(&output, &j, out, totals, (size_t)n) < 0)
        goto done;
    if (run_job_released(&j, threads) < 0)
        goto done;
    result = PyLong_FromSsize_t(periods);
done:
    job_output_release(&output);
    text_list_free(&texts);
    Py_DECREF(seq);
    return result;
}

/* A private copy of an int64 ('q') index buffer, every entry checked to be in
 * [0, limit). The copy, not the caller's buffer, is what code without the GIL
 * reads: another thread may write the buffer meanwhile, and a value checked in
 * place could change after the check. 0 ok (free *out with PyMem_Free), -1 error. */
static int copy_index_buffer(PyObject *obj, Py_ssize_t limit, int64_t **out, size_t *count)
{
    Py_buffer view;
    *out = NULL;
    *count = 0;
    if (PyObject_GetBuffer(obj, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view.itemsize != 8 || !view.format || strcmp(view.format, "q") != 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "indexes must be int64 ('q') buffers");
        return -1;
    }
    size_t n = (size_t)view.len / 8;
    int64_t *copy = PyMem_Malloc(n ? n * sizeof(int64_t) : 1);
    if (!copy) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return -1;
    }
    if (n)
        memcpy(copy, view.buf, n * sizeof(int64_t));
    PyBuffer_Release(&view);
    for (size_t k = 0; k < n; k++) {
        if (copy[k] < 0 || copy[k] >= limit) {
            PyMem_Free(copy);
            PyErr_Format(PyExc_IndexError, "index %zu refers to a missing sequence or segment", k);
            return -1;
        }
    }
    *out = copy;
    *count = n;
    return 0;
}

/* ------------------------------------------------------------------ */
/* pair_statistics(hyp_prep, ref_prep, hyp_index, ref_index, max_order, threads, out)
 * Row p compares sequence 0 of hyp segment hyp_index[p] with every sequence
 * of ref segment ref_index[p]; with both indexes None, all pairs hyp-major. */

static PyObject *core_pair_statistics(PyObject *module, PyObject *args)
{
    PreparedObject *hp, *rp;
    PyObject *hidx_obj, *ridx_obj, *out;
    int max_order, threads;
    if (!PyArg_ParseTuple(args, "O!O!OOiiO", &PreparedType, &hp, &PreparedType, &rp, &hidx_obj,
                          &ridx_obj, &max_order, &threads, &out))
        return NULL;
    if (check_order(max_order) < 0)
        return NULL;
    Py_buffer view = {0};
    PyObject *result = NULL;
    size_t npairs, nr = 0;
    int64_t *hidx = NULL, *ridx = NULL;  /* private copies: the workers read them without the GIL */
    if (hidx_obj == Py_None && ridx_obj == Py_None) {
        npairs = (size_t)hp->n * (size_t)rp->n;
    } else {
        if (copy_index_buffer(hidx_obj, hp->n, &hidx, &npairs) < 0 ||
            copy_index_buffer(ridx_obj, rp->n, &ridx, &nr) < 0)
            goto done;
        if (nr != npairs) {
            PyErr_SetString(PyExc_TypeError, "indexes must be two int64 ('q') buffers of equal length");
            goto done;
        }
    }
    if (get_out_buffer(out, &view, npairs * (2 + 2 * (size_t)max_order)) < 0)
        goto done;
    if (npairs) {
        job j;
        job_init(&j, JOB_PAIRS, npairs, 256);
        j.max_order = max_order;
        j.hyp_segs = hp->segs;
        j.ref_segs = rp->segs;
        j.hyp_index = hidx;
        j.ref_index = ridx;
        j.n_ref_segs = (size_t)rp->n;
        j.out_rows = view.buf;
        if (run_job_released(&j, threads) < 0)
            goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(hidx);
    PyMem_Free(ridx);
    if (view.obj)
        PyBuffer_Release(&view);
    return result;
}

/* ------------------------------------------------------------------ */
/* bleu_scores(rows, max_order, smooth, smooth_value, effective_order, out)
 * sacreBLEU's compute_bleu for each row, operation for operation. Exact
 * only where Python's float sum() adds left to right (before 3.12);
 * SUM_IS_PLAIN tells Python whether to use it. */

enum { SMOOTH_NONE = 0, SMOOTH_FLOOR = 1, SMOOTH_ADDK = 2, SMOOTH_EXP = 3 };

static double bleu_of_row(const int64_t *row, int N, int smooth, double smooth_value, int effective_order,
                          double *prec)
{
    const int64_t *correct = row + 2, *total = row + 2 + N;
    int64_t sys_len = row[0], ref_len = row[1];
    double bp = 1.0;
    if (sys_len < ref_len)
        bp = sys_len > 0 ? exp(1 - (double)ref_len / (double)sys_len) : 0.0;
    int any = 0;
    for (int i = 0; i < N; i++)
        any |= correct[i] != 0;
    if (!any)
        return 0.0;
    for (int i = 0; i < N; i++)
        prec[i] = 0.0;
    double divisor = 1.0;
    int eff_order = N;
    for (int n = 1; n <= N; n++) {
        double c = (double)correct[n - 1], t = (double)total[n - 1];
        if (smooth == SMOOTH_ADDK && n > 1) {
            c += smooth_value;
            t += smooth_value;
        }
        if (t == 0)
            break;
        if (effective_order)
            eff_order = n;
        if (c == 0) {
            if (smooth == SMOOTH_EXP) {
                divisor *= 2;
                prec[n - 1] = 100. / (divisor * t);
            } else if (smooth == SMOOTH_FLOOR) {
                prec[n - 1] = 100. * smooth_value / t;
            }
        } else {
            prec[n - 1] = 100. * c / t;
        }
    }
    double sum = 0.0;
    for (int i = 0; i < eff_order; i++)
        sum += prec[i] == 0.0 ? -9999999999.0 : log(prec[i]);
    return bp * exp(sum / eff_order);
}

static PyObject *core_bleu_scores(PyObject *module, PyObject *args)
{
    PyObject *rows_obj, *out;
    int max_order, smooth, effective_order;
    double smooth_value;
    if (!PyArg_ParseTuple(args, "OiidpO", &rows_obj, &max_order, &smooth, &smooth_value,
                          &effective_order, &out))
        return NULL;
    if (check_order(max_order) < 0)
        return NULL;
    if (smooth < SMOOTH_NONE || smooth > SMOOTH_EXP) {
        PyErr_SetString(PyExc_ValueError, "unknown smoothing code");
        return NULL;
    }
    Py_buffer rv = {0}, ov = {0};
    PyObject *result = NULL;
    double *prec = NULL;
    size_t width = 2 + 2 * (size_t)max_order;
    if (PyObject_GetBuffer(rows_obj, &rv, PyBUF_C_CONTIGUOUS) < 0)
        goto done;
    if (rv.itemsize != 8 || (size_t)rv.len % (8 * width)) {
        PyErr_SetString(PyExc_ValueError, "rows must be an int64 buffer of whole rows");
        goto done;
    }
    size_t n = (size_t)rv.len / (8 * width);
    if (PyObject_GetBuffer(out, &ov, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        goto done;
    if ((size_t)ov.len != n * sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "output buffer must hold one double per row");
        goto done;
    }
    prec = PyMem_Malloc(max_order * sizeof(double));
    if (!prec) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *rows = rv.buf;
    double *scores = ov.buf;
    for (size_t i = 0; i < n; i++)
        scores[i] = bleu_of_row(rows + i * width, max_order, smooth, smooth_value, effective_order, prec);
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(prec);
    if (rv.obj)
        PyBuffer_Release(&rv);
    if (ov.obj)
        PyBuffer_Release(&ov);
    return result;
}

/* ------------------------------------------------------------------ */
/* column_sums(table, width) -> list or None                           */

/* The column sums of a table of int64 ("q") or double ("d") rows, as the pure
 * Python loop of truebleu.stats.python_column_sums gives them: integers
 * exactly, doubles added one at a time in row order from 0.0 (no compensated
 * or reordered summation). None when the table is of another type or an int64
 * sum would overflow: the caller then sums in Python (unbounded integers). */
static PyObject *core_column_sums(PyObject *module, PyObject *args)
{
    PyObject *table;
    Py_ssize_t width;
    if (!PyArg_ParseTuple(args, "On", &table, &width))
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
                if (__builtin_add_overflow(sum[c], row[c], &sum[c])) {
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
 * h.endswith(" .")) counts them (ends_in_period), for lines the core does not
 * read itself (the statistics calls count theirs as they gather them). */
static PyObject *core_tokenized_periods(PyObject *module, PyObject *seq_obj)
{
    PyObject *seq = PySequence_Fast(seq_obj, "hypotheses must be a sequence of str");
    if (!seq)
        return NULL;
    Py_ssize_t count = 0;
    /* the size is read again at each step: an endswith of a str subclass may change a list */
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        /* the strings lie all over memory: ask for line i + 16's object and for
         * line i + 8's last characters ahead of time (a cold list: 1.4x faster) */
        if (i + 16 < PySequence_Fast_GET_SIZE(seq))
            __builtin_prefetch(PySequence_Fast_GET_ITEM(seq, i + 16));
        if (i + 8 < PySequence_Fast_GET_SIZE(seq)) {
            PyObject *ahead = PySequence_Fast_GET_ITEM(seq, i + 8);
            if (PyUnicode_CheckExact(ahead) && PyUnicode_GET_LENGTH(ahead) >= 2)
                __builtin_prefetch((const char *)PyUnicode_DATA(ahead) +
                                   (PyUnicode_GET_LENGTH(ahead) - 2) * PyUnicode_KIND(ahead));
        }
        int yes = ends_in_period(PySequence_Fast_GET_ITEM(seq, i));
        if (yes < 0) {
            Py_DECREF(seq);
            return NULL;
        }
        count += yes;
    }
    Py_DECREF(seq);
    return PyLong_FromSsize_t(count);
}

/* ------------------------------------------------------------------ */
/* cross_statistics(prepared, a_index, b_index, max_order, threads, rows, scores,
 *                  smooth, smooth_value, effective_order)
 * prepared holds ONE segment whose sequences are the distinct strings. Row
 * i * len(b) + j: sequence a_index[i] against the single reference
 * b_index[j]; with `scores` (a double buffer, or None) also its BLEU. */

typedef struct {
    team t;  /* first: the job is the team's heap block */
    const tb_profiles *prof;
    const int64_t *a, *b;
    size_t na, nb, width, nseq;
    const uint32_t *refs;  /* the distinct sequences of b (nrefs) */
    size_t nrefs;
    int64_t *rows;
    double *scores;
    int smooth, effective_order, max_order;
    double smooth_value;
    atomic_size_t next;
    atomic_int failed;  /* JOB_OK, JOB_NOMEM or JOB_INTERRUPTED */
    tb_signal_watch *watch;
} cross_job;

static void cross_body(team *t)
{
    cross_job *j = (cross_job *)t;
    const size_t N = (size_t)j->max_order;
    int64_t *acc = NULL;  /* N matches per sequence: the row's hypothesis against each reference */
    double *prec = NULL;
    /* the budget follows a row's real work (the tokenizers spend one unit per
     * code point): its n-grams and the postings they visit, the zeroing of the
     * references' counts, and each cell; a row of long segments can cost
     * millions, so a check comes after every row that spent the budget */
    long budget = TB_POLL_UNITS;
    const long per_row = (long)(j->nrefs * N / 8 + 16 * j->nb);
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->na || atomic_load(&j->failed))
            break;
        if (budget < 0) {
            budget = TB_POLL_UNITS;
            if (tb_signal_watch_raised(j->watch)) {
                set_failure(&j->failed, JOB_INTERRUPTED);
                break;
            }
        }
        if (!acc) {  /* only after a claim: late helpers must not touch the job's data */
            acc = malloc((j->nseq * N + 1) * sizeof(int64_t));
            prec = malloc((N + 1) * sizeof(double));
            if (!acc || !prec) {
                set_failure(&j->failed, JOB_NOMEM);
                break;
            }
        }
        uint32_t h = (uint32_t)j->a[i];
        for (size_t k = 0; k < j->nrefs; k++)
            memset(acc + (size_t)j->refs[k] * N, 0, N * sizeof(int64_t));
        budget -= per_row + (long)tb_profiles_matches(j->prof, h, acc);
        for (size_t k = 0; k < j->nb; k++) {
            size_t cell = i * j->nb + k;
            int64_t *row = j->rows + cell * j->width;
            tb_profiles_row(j->prof, h, (uint32_t)j->b[k], acc, row);
            if (j->scores)
                j->scores[cell] = bleu_of_row(row, j->max_order, j->smooth, j->smooth_value,
                                              j->effective_order, prec);
        }
    }
    free(acc);
    free(prec);
}

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

static PyObject *core_cross_statistics(PyObject *module, PyObject *args)
{
    PreparedObject *prep;
    PyObject *a_obj, *b_obj, *rows_obj, *scores_obj;
    int max_order, threads, smooth, effective_order;
    double smooth_value;
    if (!PyArg_ParseTuple(args, "O!OOiiOOidp", &PreparedType, &prep, &a_obj, &b_obj, &max_order,
                          &threads, &rows_obj, &scores_obj, &smooth, &smooth_value, &effective_order))
        return NULL;
    if (check_order(max_order) < 0)
        return NULL;
    if (prep->n != 1) {
        PyErr_SetString(PyExc_ValueError, "cross_statistics needs a Prepared with one segment");
        return NULL;
    }
    if (smooth < SMOOTH_NONE || smooth > SMOOTH_EXP) {
        PyErr_SetString(PyExc_ValueError, "unknown smoothing code");
        return NULL;
    }
    Py_buffer rv = {0}, sv = {0};
    PyObject *result = NULL;
    tb_profiles *prof = NULL;
    const tb_seg *seg = prep->segs[0];
    int64_t *a = NULL, *b = NULL;  /* private copies: the workers read them without the GIL */
    size_t na = 0, nb = 0;
    if (copy_index_buffer(a_obj, seg->nseq, &a, &na) < 0 || copy_index_buffer(b_obj, seg->nseq, &b, &nb) < 0)
        goto done;
    if (get_out_buffer(rows_obj, &rv, na * nb * (2 + 2 * (size_t)max_order)) < 0)
        goto done;
    if (scores_obj != Py_None) {
        if (PyObject_GetBuffer(scores_obj, &sv, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        if ((size_t)sv.len != na * nb * sizeof(double)) {
            PyErr_SetString(PyExc_ValueError, "scores buffer must hold one double per cell");
            goto done;
        }
    }
    int failed = JOB_OK;
    uint8_t *chosen = NULL;
    uint32_t *refs = NULL;
    size_t nrefs = 0;
    tb_signal_watch watch;
    tb_signal_watch_begin(&watch);
    /* the profiles of long segments take a while too: the caller polls there */
    watch_poll wp = {{watch_poll_check, TB_POLL_UNITS}, &watch, 0};
    prof = tb_profiles_build(seg, max_order, &wp.base);
    if (!prof || distinct_indexes(b, nb, seg->nseq, &chosen, &refs, &nrefs) < 0 ||
        tb_profiles_index(prof, chosen, &wp.base) < 0) {
        failed = wp.stopped ? JOB_INTERRUPTED : JOB_NOMEM;
    } else if (na && nb) {
        cross_job *j = calloc(1, sizeof(cross_job));
        if (!j) {
            failed = JOB_NOMEM;
        } else {
            j->watch = &watch;
            j->t.body = cross_body;
            j->prof = prof;
            j->a = a;
            j->b = b;
            j->na = na;
            j->nb = nb;
            j->nseq = seg->nseq;
            j->refs = refs;
            j->nrefs = nrefs;
            j->width = 2 + 2 * (size_t)max_order;
            j->rows = rv.buf;
            j->scores = sv.obj ? sv.buf : NULL;
            j->smooth = smooth;
            j->smooth_value = smooth_value;
            j->effective_order = effective_order;
            j->max_order = max_order;
            atomic_init(&j->next, 0);
            atomic_init(&j->failed, JOB_OK);
            /* cells are cheap (~0.15 us): more threads only pay off for larger matrices */
            int nthreads = threads < 1 ? 1 : threads;
            if ((size_t)nthreads > na)
                nthreads = (int)na;
            if (na * nb < 4096)
                nthreads = 1;
            team_run(&j->t, nthreads);
            failed = atomic_load(&j->failed);
            team_release(&j->t);
        }
    }
    tb_signal_watch_end(&watch);
    free(chosen);
    free(refs);
    if (failed != JOB_OK) {
        if (failed == JOB_NOMEM)
            PyErr_NoMemory();  /* else: the exception a signal handler raised */
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    tb_profiles_free(prof);
    PyMem_Free(a);
    PyMem_Free(b);
    if (rv.obj)
        PyBuffer_Release(&rv);
    if (sv.obj)
        PyBuffer_Release(&sv);
    return result;
}

/* ------------------------------------------------------------------ */
/* tokenize(line, mode, lowercase) -> list[str]   (tests, debugging)   */

/* texts = the one line `line` (bytes: valid UTF-8), read as TB_KIND_UTF8 (13a
 * and intl scan its bytes, the other tokenizers decode a non-ASCII one to code points).
 * Lowercasing needs it ASCII: the core maps A-Z only, as str.lower() does on
 * ASCII; a reader lowercases any other line with str.lower() first. */
static int utf8_text(text_list *texts, PyObject *line, int mode, int lowercase)
{
    const char *data = PyBytes_AS_STRING(line);
    Py_ssize_t n = PyBytes_GET_SIZE(line), ascii = 1;
    for (Py_ssize_t i = 0; i < n && ascii; i++)
        ascii = (unsigned char)data[i] < 0x80;
    PyObject *valid = PyUnicode_DecodeUTF8(data, n, "strict");
    if (!valid)
        return -1;
    Py_DECREF(valid);
    if (!ascii && lowercase) {
        PyErr_SetString(PyExc_ValueError, "a non-ASCII UTF-8 line cannot be lowercased by the core");
        return -1;
    }
    if (text_list_alloc(texts, 1) < 0) {
        text_list_free(texts);
        return -1;
    }
    texts->objs[0] = Py_NewRef(line);
    texts->texts[0] = (tb_text){data, (size_t)n, TB_KIND_UTF8, lowercase};
    return 0;
}

static PyObject *core_tokenize(PyObject *module, PyObject *args)
{
    PyObject *line;
    int mode, lowercase;
    if (!PyArg_ParseTuple(args, "Oip", &line, &mode, &lowercase))
        return NULL;
    if (check_mode(mode) < 0)
        return NULL;
    text_list texts = {0};
    if (PyBytes_Check(line)) {
        /* a line given as UTF-8 (TB_KIND_UTF8), as a native reader passes it */
        if (utf8_text(&texts, line, mode, lowercase) < 0)
            return NULL;
    } else if (text_list_alloc(&texts, 1) < 0 || text_list_set(&texts, 0, line, lowercase) < 0) {
        text_list_free(&texts);
        return NULL;
    }
    tb_builder b;
    tb_builder_init(&b);
    int rc = tb_builder_add_line(&b, &texts.texts[0], mode);
    PyObject *out = NULL;
    if (rc < 0) {
        PyErr_NoMemory();
    } else if ((out = PyList_New(b.nids)) != NULL) {
        for (size_t k = 0; k < b.nids; k++) {
            const tb_tok *t = &b.vocab[b.ids[k]];
            PyObject *s = PyUnicode_DecodeUTF8(b.bytes + t->off, t->len, "surrogatepass");
            if (!s) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, k, s);
        }
    }
    tb_builder_free(&b);
    text_list_free(&texts);
    return out;
}

/* class_table() -> bytes: per code point, intl bits (1 P, 2 S, 4 N) | 8 zh Chinese */
static PyObject *core_class_table(PyObject *module, PyObject *noargs)
{
    PyObject *out = PyBytes_FromStringAndSize(NULL, 0x110000);
    if (!out)
        return NULL;
    char *p = PyBytes_AS_STRING(out);
    for (uint32_t c = 0; c < 0x110000; c++)
        p[c] = (char)(tb_char_class(c) | (tb_is_chinese(c) ? 8 : 0));
    return out;
}

/* chrf.c */
PyObject *tb_chrf_statistics(PyObject *module, PyObject *args);
PyObject *tb_py_utf8_scan(PyObject *module, PyObject *args);               /* lines.c */
PyObject *tb_py_utf8_first_long_line(PyObject *module, PyObject *args);
PyObject *tb_py_utf8_line_chars(PyObject *module, PyObject *args);
/* resample.c */
PyObject *tb_pcg64_integers(PyObject *module, PyObject *args);
PyObject *tb_pcg64_bools(PyObject *module, PyObject *args);
PyObject *tb_resample_sums(PyObject *module, PyObject *args);
PyObject *tb_bleu_rows(PyObject *module, PyObject *args);
PyObject *tb_randomization_sums(PyObject *module, PyObject *args);

static PyMethodDef core_methods[] = {
    {"chrf_statistics", tb_chrf_statistics, METH_VARARGS,
     "chrf_statistics(hypotheses, references, char_order, word_order, whitespace, eps_smoothing,\n"
     "                factor, one_plus_factor, threads, out, scores) -> None\n\n"
     "Fill `out` (int64 buffer, one row of 3 * (char_order + word_order) per hypothesis) with\n"
     "chrF statistics against the best of its references (references[i]: a sequence of str);\n"
     "`scores` (a double buffer or None) receives each row's f-score."},
    {"prepare", core_prepare, METH_VARARGS,
     "prepare(segments, mode, lowercase, threads, loose=False) -> Prepared\n\n"
     "Tokenize every string of every segment (a sequence of str) once. With loose,\n"
     "a str segment is one reference and None entries are dropped."},
    {"sentence_statistics", core_sentence_statistics, METH_VARARGS,
     "sentence_statistics(hypotheses, references_per_hyp, mode, lowercase, max_order, threads, out)\n\n"
     "prepare(references_per_hyp, loose=True) and statistics() in one pass, keeping nothing.\n"
     "Returns -1, or the index of the first hypothesis without a reference (nothing computed)."},
    {"prepare_streams", core_prepare_streams, METH_VARARGS,
     "prepare_streams(streams, mode, lowercase, threads) -> Prepared\n\n"
     "prepare() for sacreBLEU-style reference streams (None = missing reference)."},
    {"stream_statistics", core_stream_statistics, METH_VARARGS,
     "stream_statistics(hypotheses, streams, mode, lowercase, max_order, threads, out, totals=None)\n"
     "    -> (num_refs, tokenized_periods)\n\n"
     "prepare_streams() and statistics() in one pass, keeping nothing (a cold corpus); with\n"
     "out None, only the rows' sum, added to totals. Returns the number of references per\n"
     "segment (-1 when it varies) and how many hypotheses end in \" .\"."},
    {"stream_statistics_utf8", core_stream_statistics_utf8, METH_VARARGS,
     "stream_statistics_utf8(buffers, ends, n, mode, lowercase, max_order, threads, rows, totals)\n"
     "    -> (consumed, tokenized_periods)\n\n"
     "stream_statistics() of the first n lines of each buffer of valid UTF-8 (hypotheses first,\n"
     "then one per reference file) into rows (None: not kept); adds the rows to totals; the\n"
     "bytes each buffer's lines took."},
    {"utf8_scan", tb_py_utf8_scan, METH_VARARGS,
     "utf8_scan(buffer, start[, end]) -> (valid_end, chars, newlines, error, last_chars)\n\n"
     "Check buffer[start:end] as UTF-8 as Python's strict decoder would (an unfinished character\n"
     "at the end is not an error); last_chars: the characters after the last newline."},
    {"utf8_first_long_line", tb_py_utf8_first_long_line, METH_VARARGS,
     "utf8_first_long_line(buffer, start, end, first_chars, limit) -> index of the first\n"
     "newline-ended line of buffer[start:end] longer than limit characters, or -1"},
    {"utf8_line_chars", tb_py_utf8_line_chars, METH_VARARGS,
     "utf8_line_chars(buffer, lines[, end]) -> characters of the first `lines` lines (in\n"
     "buffer[:end]), newlines excluded"},
    {"statistics", core_statistics, METH_VARARGS,
     "statistics(hypotheses, prepared, mode, lowercase, max_order, threads, out, totals=None)\n"
     "    -> tokenized_periods\n\n"
     "Fill `out` (int64 buffer, one row per hypothesis) with BLEU statistics, or with out None\n"
     "add their sum to totals (one row); returns how many hypotheses end in \" .\"."},
    {"pair_statistics", core_pair_statistics, METH_VARARGS,
     "pair_statistics(hyp_prepared, ref_prepared, hyp_index, ref_index, max_order, threads, out)\n\n"
     "Statistics of chosen (hypothesis segment, reference segment) pairs; all pairs when\n"
     "both indexes are None."},
    {"cross_statistics", core_cross_statistics, METH_VARARGS,
     "cross_statistics(prepared, a_index, b_index, max_order, threads, rows, scores, smooth,\n"
     "                 smooth_value, effective_order)\n\n"
     "Single-reference statistics (and BLEU, when `scores` is a buffer) of every pair of\n"
     "sequences a_index[i], b_index[j] of the one segment of `prepared`, row-major."},
    {"bleu_scores", core_bleu_scores, METH_VARARGS,
     "bleu_scores(rows, max_order, smooth, smooth_value, effective_order, out)\n\n"
     "sacreBLEU's compute_bleu per statistics row (smooth: 0 none, 1 floor, 2 add-k, 3 exp)."},
    {"column_sums", core_column_sums, METH_VARARGS,
     "column_sums(table, width) -> list, or None for the caller to sum in Python\n\n"
     "Column sums of an int64 or double table of rows (doubles added in row order from 0.0);\n"
     "None when the table is of another type or an int64 sum would overflow."},
    {"tokenized_periods", core_tokenized_periods, METH_O,
     "tokenized_periods(hypotheses) -> int: how many end in \" .\" (str.endswith, unstripped)"},
    {"tokenize", core_tokenize, METH_VARARGS,
     "tokenize(line, mode, lowercase) -> list of tokens (as segment_tokens); line: str, or bytes of\n"
     "UTF-8 (a native reader's line; non-ASCII only for 13a without lowercase)"},
    {"ter_statistics", tb_ter_statistics, METH_VARARGS, TB_TER_STATISTICS_DOC},
    {"pcg64_integers", tb_pcg64_integers, METH_VARARGS,
     "pcg64_integers(state, n, count) -> bytes: NumPy's Generator.choice(n, count) as int64"},
    {"pcg64_bools", tb_pcg64_bools, METH_VARARGS,
     "pcg64_bools(state, count) -> bytes: NumPy's Generator.integers(2, count, dtype=bool)"},
    {"resample_sums", tb_resample_sums, METH_VARARGS,
     "resample_sums(state, n_samples, tables, width) -> bytes: int64 sums of bootstrap samples"},
    {"randomization_sums", tb_randomization_sums, METH_VARARGS,
     "randomization_sums(masks, first, others, width) -> (a, b): int64 sums of AR trials"},
    {"bleu_rows", tb_bleu_rows, METH_VARARGS,
     "bleu_rows(sums, max_order, smooth, smooth_value, effective_order, float32, in_place,\n"
     "          python_sum) -> bytes of doubles: BLEU of summed rows (resample.c)"},
    {"class_table", core_class_table, METH_NOARGS,
     "class_table() -> bytes of 0x110000 character classes (1 P, 2 S, 4 N, 8 zh)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "truebleu._native_core",
    .m_doc = "truebleu's compiled core: tokenizing, n-gram counting and clipping.",
    .m_size = -1,
    .m_methods = core_methods,
};

PyMODINIT_FUNC PyInit__native_core(void)
{
    if (PyType_Ready(&PreparedType) < 0)
        return NULL;
    tb_init_tables();
    tb_signals_init();
    str_lower_name = PyUnicode_InternFromString("lower");
    str_endswith_name = PyUnicode_InternFromString("endswith");
    space_period = PyUnicode_FromString(" .");
    if (!str_lower_name || !str_endswith_name || !space_period)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m)
        return NULL;
    Py_INCREF(&PreparedType);
    if (PyModule_AddObject(m, "Prepared", (PyObject *)&PreparedType) < 0 ||
        PyModule_AddIntConstant(m, "MODE_NONE", TB_NONE) < 0 ||
        PyModule_AddIntConstant(m, "MODE_13A", TB_13A) < 0 ||
        PyModule_AddIntConstant(m, "MODE_INTL", TB_INTL) < 0 ||
        PyModule_AddIntConstant(m, "MODE_ZH", TB_ZH) < 0 ||
        PyModule_AddIntConstant(m, "MODE_CHAR", TB_CHAR) < 0 ||
        PyModule_AddIntConstant(m, "SUM_IS_PLAIN", PY_VERSION_HEX < 0x030C0000) < 0 ||
        PyModule_AddStringConstant(m, "REGEX_VERSION", tb_regex_version()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
