/* truebleu core: BLEU's inputs gathered under the GIL (bindings only): the
 * layouts sacreBLEU's users pass (a list of lists of references, reference
 * streams with None for a missing one, hypotheses) walked into one tb_gather
 * and the offsets of each segment's strings, with BLEU's own messages for
 * what is wrong in them. */
#ifndef TB_BLEU_SEGMENTS_H
#define TB_BLEU_SEGMENTS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "runtime/gather.h"
#include "state.h"

/* The strings of every segment, in order: segment k is texts.texts[offsets[k] .. offsets[k+1]). */
typedef struct {
    tb_gather texts;
    size_t *offsets;
    Py_ssize_t nseg;
    PyObject **holders;  /* tuples whose strings texts borrows (tb_gather_streams), or NULL */
    Py_ssize_t nholders;
    long common_count;   /* tb_gather_streams: the strings per segment, or -1 when the count varies or
                          * there is no segment (sacreBLEU's nrefs:var) */
} tb_segments;

/* segments: a sequence of segments, each a sequence of str (with loose, a str
 * segment is one reference and None entries are dropped). 0, or -1 with an
 * exception; free with tb_segments_free either way. */
int tb_gather_segments(PyObject *segments, const tb_state *st, int lowercase, int loose, tb_segments *g);

/* sacreBLEU's layout: one sequence per reference set, all of one length; None
 * marks a missing reference (dropped). With require_reference a segment
 * without any reference is an error. As tb_gather_segments otherwise. */
int tb_gather_streams(PyObject *streams, const tb_state *st, int lowercase, int require_reference, tb_segments *g);

void tb_segments_free(tb_segments *g);

/* A tuple copy of seq, or seq itself if a tuple (str.lower() of a str
 * subclass may run code that mutates a list while we hold pointers into it);
 * a TypeError of the copy becomes one with `message`. */
PyObject *tb_as_tuple(PyObject *seq, const char *message);

/* tb_ends_in_period of anything but an exact str: its own endswith, as the
 * Python expression would ask it. */
int tb_ends_in_period_any(const tb_state *st, PyObject *line);

/* Whether hypothesis `line` ends in " ." as line.endswith(" .") says (sacreBLEU's
 * sign of tokenized output, on the unstripped line): 1, 0, or -1 with an
 * exception. An exact str is read here, inline: a corpus asks it of every
 * hypothesis just after gathering it, and a call per line cost about 33
 * instructions of the 8 or so the test needs. */
static inline int tb_ends_in_period(const tb_state *st, PyObject *line)
{
    if (!PyUnicode_CheckExact(line))
        return tb_ends_in_period_any(st, line);
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(line) < 0)
        return -1;
#endif
    const Py_ssize_t len = PyUnicode_GET_LENGTH(line);
    if (len < 2)
        return 0;
    const int kind = PyUnicode_KIND(line);
    const void *data = PyUnicode_DATA(line);
    return PyUnicode_READ(kind, data, len - 1) == '.' && PyUnicode_READ(kind, data, len - 2) == ' ';
}

/* tb_ends_in_period of an exact str that t reads in place (its own code units:
 * tb_gather_borrow's fast path, kinds 1, 2 or 4): the str's fields, read once by
 * the gather, are not read again (about 6 instructions a hypothesis). */
static inline int tb_text_ends_in_period(const tb_text *t)
{
    const size_t len = t->length;
    if (len < 2)
        return 0;
    const void *d = t->data;
    switch (t->kind) {
    case PyUnicode_1BYTE_KIND:
        return ((const Py_UCS1 *)d)[len - 1] == '.' && ((const Py_UCS1 *)d)[len - 2] == ' ';
    case PyUnicode_2BYTE_KIND:
        return ((const Py_UCS2 *)d)[len - 1] == '.' && ((const Py_UCS2 *)d)[len - 2] == ' ';
    default:
        return ((const Py_UCS4 *)d)[len - 1] == '.' && ((const Py_UCS4 *)d)[len - 2] == ' ';
    }
}

/* Hypothesis `line` (hypotheses[index] of the caller's sequence) gathered into
 * slot `slot` of g, and, with periods, counted there if it ends in " ." (an
 * exact str read in place: its code units as gathered). 0, or -1 with an
 * exception: a TypeError naming hypotheses[index] for anything but a str.
 * The corpus's one-pass path and systems_statistics gather their hypotheses so. */
static inline int tb_gather_hypothesis(const tb_state *st, tb_gather *g, size_t slot, PyObject *line,
                                       int lowercase, Py_ssize_t index, Py_ssize_t *periods)
{
    if (!PyUnicode_Check(line)) {
        PyErr_Format(PyExc_TypeError, "hypotheses[%zd] must be a string, got %.100s", index,
                     Py_TYPE(line)->tp_name);
        return -1;
    }
    if (tb_gather_borrow(g, slot, line, lowercase) < 0)
        return -1;
    if (periods) {
        const int yes = PyUnicode_CheckExact(line) && !g->owners[slot] ? tb_text_ends_in_period(&g->texts[slot])
                                                                       : tb_ends_in_period(st, line);
        if (yes < 0)
            return -1;
        *periods += yes;
    }
    return 0;
}

#endif
