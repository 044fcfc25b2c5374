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

/* Whether hypothesis `line` ends in " ." as line.endswith(" .") says (sacreBLEU's
 * sign of tokenized output, on the unstripped line): 1, 0, or -1 with an
 * exception. An exact str is read here; anything else is asked through its own
 * endswith, as the Python expression would. */
int tb_ends_in_period(const tb_state *st, PyObject *line);

#endif
