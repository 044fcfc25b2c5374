/* truebleu core: systems_statistics, several systems' statistics against the
 * same prepared references in one call (bindings).
 *
 * A paired test (-pbs, -par) or a table of systems scores every system against
 * one test set: one statistics() call per system starts the pool's threads for
 * each and counts each segment's reference n-grams once per system. Here every
 * system's hypotheses are gathered with the GIL, then one job of bleu/jobs.c
 * (TB_BLEU_SYSTEMS) runs without it: an item is a segment, whose references'
 * n-grams are learned once (tb_matcher_learn) and matched against each
 * system's hypothesis in turn. The rows are statistics()'s, bit for bit.
 */
#include "bleu/bindings.h"
#include "bleu/ngram.h"
#include "bleu/prepared.h"
#include "bleu/segments.h"
#include "runtime/buffers.h"
#include "state.h"
#include "text/text.h"

/* The state of one call, released in one place. */
typedef struct {
    Py_ssize_t nsys;
    PyObject **seqs;       /* each system's hypotheses, as a tuple */
    Py_buffer *views;      /* each system's rows (the caller's out buffers) */
    int64_t **rows;
    tb_gather texts;       /* system s's hypothesis k at s * n + k */
} systems_call;

static void systems_call_release(systems_call *c)
{
    tb_gather_free(&c->texts);  /* (before the tuples that hold the str it borrowed) */
    for (Py_ssize_t s = 0; s < c->nsys; s++) {
        if (c->seqs)
            Py_XDECREF(c->seqs[s]);
        if (c->views)
            tb_buffer_release(&c->views[s]);
    }
    PyMem_Free(c->seqs);
    PyMem_Free(c->views);
    PyMem_Free(c->rows);
}

/* System s: its hypotheses gathered (k of n at s * n + k), its " ." lines
 * counted into *periods, its out buffer taken. 0, or -1 with an exception. */
static int gather_system(const tb_state *st, systems_call *c, Py_ssize_t s, PyObject *hyps, PyObject *out,
                         Py_ssize_t n, int lowercase, size_t width, Py_ssize_t *periods)
{
    PyObject *seq = c->seqs[s] = tb_as_tuple(hyps, "hypotheses must be a sequence of str");
    if (!seq)
        return -1;
    if (PyTuple_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", PyTuple_GET_SIZE(seq), n);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (tb_gather_hypothesis(st, &c->texts, (size_t)(s * n + k), PyTuple_GET_ITEM(seq, k), lowercase, k,
                                 periods) < 0)
            return -1;
    if (tb_int64_out_buffer(out, &c->views[s], (size_t)n * width, "out") < 0)
        return -1;
    c->rows[s] = c->views[s].buf;
    return 0;
}

/* systems_statistics(systems, prepared, mode, lowercase, max_order, threads, outs)
 *   -> tokenized_periods (a tuple: one count per system)
 * statistics() of each system (a sequence of str, one per segment) against the
 * same prepared references, into outs[s] (an int64 buffer of its rows), in one
 * job; the count of each system's hypotheses that end in " .". */
PyObject *core_systems_statistics(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"systems", "prepared", "mode", "lowercase", "max_order",
                                         "threads", "outs", NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *systems_obj, *outs_obj;
    PreparedObject *prep;
    int mode, lowercase, max_order, threads;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!ipiiO", (char **)kwlist, &systems_obj, st->prepared_type,
                                     &prep, &mode, &lowercase, &max_order, &threads, &outs_obj))
        return NULL;
    if (tb_check_mode(mode) < 0 || tb_check_order(max_order) < 0)
        return NULL;
    PyObject *systems = tb_as_tuple(systems_obj, "systems must be a sequence of sequences of str");
    PyObject *outs = systems ? tb_as_tuple(outs_obj, "outs must be a sequence of buffers") : NULL;
    PyObject *periods = NULL, *result = NULL;
    systems_call c = {0};
    tb_gather_start(&c.texts, st->lower);
    if (!outs)
        goto done;
    const Py_ssize_t nsys = PyTuple_GET_SIZE(systems), n = prep->n;
    if (PyTuple_GET_SIZE(outs) != nsys) {
        PyErr_Format(PyExc_ValueError, "%zd systems but %zd out buffers", nsys, PyTuple_GET_SIZE(outs));
        goto done;
    }
    const size_t width = tb_row_width(max_order);
    c.seqs = PyMem_Calloc(nsys ? (size_t)nsys : 1, sizeof(PyObject *));
    c.views = PyMem_Calloc(nsys ? (size_t)nsys : 1, sizeof(Py_buffer));
    c.rows = PyMem_Calloc(nsys ? (size_t)nsys : 1, sizeof(int64_t *));
    c.nsys = nsys;
    if (!c.seqs || !c.views || !c.rows || (size_t)n > PY_SSIZE_T_MAX / sizeof(tb_text) / (size_t)(nsys ? nsys : 1)) {
        PyErr_NoMemory();
        goto done;
    }
    if (!(periods = PyTuple_New(nsys)) || tb_gather_alloc(&c.texts, (size_t)(nsys * n)) < 0)
        goto done;
    for (Py_ssize_t s = 0; s < nsys; s++) {
        Py_ssize_t count = 0;
        if (gather_system(st, &c, s, PyTuple_GET_ITEM(systems, s), PyTuple_GET_ITEM(outs, s), n, lowercase, width,
                          &count) < 0)
            goto done;
        PyObject *number = PyLong_FromSsize_t(count);
        if (!number)
            goto done;
        PyTuple_SET_ITEM(periods, s, number);
    }
    tb_bleu_job j;
    /* an item is a segment of every system: a claim of 32 hypotheses or so */
    tb_bleu_job_init(&j, TB_BLEU_SYSTEMS, (size_t)n, nsys < 32 ? (size_t)(32 / (nsys ? nsys : 1)) : 1);
    j.mode = mode;
    j.max_order = max_order;
    j.texts = c.texts.texts;
    j.ref_segs = prep->segs;
    j.system_rows = c.rows;
    j.n_systems = (size_t)nsys;
    if (nsys && tb_bleu_run_job(&j, threads, st) < 0)
        goto done;
    result = periods;
    periods = NULL;
done:
    systems_call_release(&c);
    Py_XDECREF(periods);
    Py_XDECREF(outs);
    Py_XDECREF(systems);
    return result;
}
