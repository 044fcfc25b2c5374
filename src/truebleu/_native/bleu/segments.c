/* truebleu core: BLEU's inputs gathered under the GIL (see bleu/segments.h). */
#include "bleu/segments.h"

PyObject *tb_as_tuple(PyObject *seq, const char *message)
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

int tb_ends_in_period_any(const tb_state *st, PyObject *line)
{
    Py_INCREF(line);
    PyObject *ends = PyObject_CallMethodOneArg(line, st->endswith, st->space_period);
    Py_DECREF(line);
    int yes = ends ? PyObject_IsTrue(ends) : -1;
    Py_XDECREF(ends);
    return yes;
}

void tb_segments_free(tb_segments *g)
{
    tb_gather_free(&g->texts);
    PyMem_Free(g->offsets);
    g->offsets = NULL;
    if (g->holders) {
        for (Py_ssize_t s = 0; s < g->nholders; s++)
            Py_XDECREF(g->holders[s]);
        PyMem_Free(g->holders);
        g->holders = NULL;
    }
    g->nholders = 0;
}

/* Room for the offsets of nseg segments (offsets[0] = 0). */
static int alloc_offsets(tb_segments *g, Py_ssize_t nseg)
{
    g->nseg = nseg;
    g->offsets = PyMem_Malloc(((size_t)nseg + 1) * sizeof(size_t));
    if (!g->offsets) {
        PyErr_NoMemory();
        return -1;
    }
    g->offsets[0] = 0;
    return 0;
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
    return tb_as_tuple(refs, "each segment must be a sequence of str");
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

int tb_gather_segments(PyObject *segments, const tb_state *st, int lowercase, int loose, tb_segments *g)
{
    tb_gather_start(&g->texts, st->lower);
    g->offsets = NULL;
    g->nseg = 0;
    g->holders = NULL;
    g->nholders = 0;
    g->common_count = -1;
    PyObject *outer = tb_as_tuple(segments, "segments must be a sequence of sequences of str");
    if (!outer)
        return -1;
    Py_ssize_t nseg = PyTuple_GET_SIZE(outer);
    const int flags = lowercase ? TB_GATHER_LOWER : 0;
    int rc = -1;
    PyObject **inner = PyMem_Calloc(nseg ? nseg : 1, sizeof(PyObject *));
    if (!inner) {
        PyErr_NoMemory();
        goto done;
    }
    if (alloc_offsets(g, nseg) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < nseg; k++) {
        inner[k] = segment_holder(PyTuple_GET_ITEM(outer, k), loose);
        if (!inner[k])
            goto done;
        Py_ssize_t count;
        PyObject *const *items = holder_items(&inner[k], &count);
        if (loose)
            for (Py_ssize_t r = 0, m = count; r < m; r++)
                count -= items[r] == Py_None;
        g->offsets[k + 1] = g->offsets[k] + (size_t)count;
    }
    if (tb_gather_alloc(&g->texts, g->offsets[nseg]) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < nseg; k++) {
        /* str.lower() of a str subclass runs Python code, which may change a
         * list read in place: its items are fetched again after each string,
         * and a changed count is an error rather than a write out of bounds */
        size_t t = g->offsets[k];
        Py_ssize_t count, r = 0;
        int too_many = 0;
        for (;;) {
            PyObject *const *items = holder_items(&inner[k], &count);
            if (r >= count)
                break;
            PyObject *line = items[r++];
            if (loose && line == Py_None)
                continue;
            if (t == g->offsets[k + 1]) {  /* more strings than counted */
                too_many = 1;
                break;
            }
            if (loose && !PyUnicode_Check(line)) {  /* the message of references_of */
                PyErr_Format(PyExc_TypeError, "references of hypothesis %zd must be str, got %.100s", k,
                             Py_TYPE(line)->tp_name);
                goto done;
            }
            if (tb_gather_set(&g->texts, t++, line, flags) < 0)
                goto done;
        }
        if (too_many || t != g->offsets[k + 1]) {
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
        tb_segments_free(g);
    return rc;
}

/* The index of the first of segments 0 .. n-1 of the columns without any
 * reference, or -1. */
static Py_ssize_t first_without_reference(PyObject *const *cols, Py_ssize_t ns, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t s = 0;
        while (s < ns && PyTuple_GET_ITEM(cols[s], i) == Py_None)
            s++;
        if (s == ns)
            return i;
    }
    return -1;
}

int tb_gather_streams(PyObject *streams_obj, const tb_state *st, int lowercase, int require_reference, tb_segments *g)
{
    tb_gather_start(&g->texts, st->lower);
    g->offsets = NULL;
    g->nseg = 0;
    g->holders = NULL;
    g->nholders = 0;
    g->common_count = -1;
    PyObject *streams = tb_as_tuple(streams_obj, "streams must be a sequence of sequences of str");
    if (!streams)
        return -1;
    Py_ssize_t ns = PyTuple_GET_SIZE(streams), n = 0;
    /* the strings are read in place, borrowed from the columns' tuples, which
     * g keeps until tb_segments_free */
    int rc = -1;
    PyObject **cols = g->holders = PyMem_Calloc(ns ? ns : 1, sizeof(PyObject *));
    if (!cols) {
        PyErr_NoMemory();
        goto done;
    }
    g->nholders = ns;
    for (Py_ssize_t s = 0; s < ns; s++) {
        PyObject *stream = PyTuple_GET_ITEM(streams, s);
        if (PyUnicode_Check(stream)) {
            PyErr_SetString(PyExc_TypeError, "each stream must be a sequence of str, not a str");
            goto done;
        }
        cols[s] = tb_as_tuple(stream, "each stream must be a sequence of str");
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
    if (alloc_offsets(g, n) < 0)
        goto done;
    /* one pass: a slot for every string the columns may hold (n * ns: they are
     * that many pointers already), the offsets written as the strings are */
    if (tb_gather_alloc(&g->texts, (size_t)n * (size_t)ns) < 0)
        goto done;
    size_t *offsets = g->offsets, t = 0;
    if (ns == 1) {
        /* one stream (most calls): its own loop, about 12 instructions a segment
         * fewer than the general one's (which spills what it holds) */
        PyObject *const *col = &PyTuple_GET_ITEM(cols[0], 0);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *line = col[i];
            if (line != Py_None) {
                if (!PyUnicode_Check(line)) {
                    PyErr_Format(PyExc_TypeError, "references[0][%zd] must be a string or None, got %.100s", i,
                                 Py_TYPE(line)->tp_name);
                    goto fail;
                }
                if (tb_gather_borrow(&g->texts, t++, line, lowercase) < 0)
                    goto fail;
            } else if (require_reference) {
                PyErr_Format(PyExc_ValueError, "segment %zd has no reference (every reference is None)", i);
                goto done;
            }
            offsets[i + 1] = t;
        }
        g->common_count = n && t == (size_t)n ? 1 : n && t == 0 ? 0 : -1;
    } else {
        size_t varies = 0;  /* (nonzero: a segment's count is not segment 0's) */
        for (Py_ssize_t i = 0; i < n; i++) {
            const size_t t0 = t;
            for (Py_ssize_t s = 0; s < ns; s++) {
                PyObject *line = PyTuple_GET_ITEM(cols[s], i);
                if (line == Py_None)
                    continue;
                if (!PyUnicode_Check(line)) {
                    PyErr_Format(PyExc_TypeError, "references[%zd][%zd] must be a string or None, got %.100s",
                                 s, i, Py_TYPE(line)->tp_name);
                    goto fail;
                }
                if (tb_gather_borrow(&g->texts, t++, line, lowercase) < 0)
                    goto fail;
            }
            if (t == t0 && require_reference) {
                PyErr_Format(PyExc_ValueError, "segment %zd has no reference (every reference is None)", i);
                goto done;
            }
            offsets[i + 1] = t;
            varies |= (t - t0) ^ offsets[1];
        }
        g->common_count = n == 0 || varies ? -1 : (long)offsets[1];
    }
    g->texts.n = t;
    rc = 0;
    goto done;
fail:
    /* a segment without any reference is the error to report, wherever it is
     * (a pass over the columns once counted them before any string was read) */
    if (require_reference) {
        Py_ssize_t i = first_without_reference(cols, ns, n);
        if (i >= 0) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "segment %zd has no reference (every reference is None)", i);
        }
    }
done:
    Py_DECREF(streams);
    if (rc < 0)
        tb_segments_free(g);
    return rc;
}
