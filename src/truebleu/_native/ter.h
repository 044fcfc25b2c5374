/* TER in the compiled core: the edit distance with shifts of
 * truebleu/_reference_ter.py (sacreBLEU 2.6.0's), on token ids.
 *
 * ter.c is the algorithm (no Python); ter_module.c collects the tokenized
 * strings under the GIL and runs segments on worker threads without it.
 */
#ifndef TRUEBLEU_TER_H
#define TRUEBLEU_TER_H

#include <stddef.h>
#include <stdint.h>

#define TB_TER_INFINITY 10000000000000000LL  /* 1e16: a cell outside the beam */

/* Reusable scratch memory of one worker (grown as needed, freed at the end). */
typedef struct tb_ter_work tb_ter_work;

tb_ter_work *tb_ter_work_new(void);
void tb_ter_work_free(tb_ter_work *w);

/* Edits (shifts + edit distance) turning hyp into ref, as
 * _reference_ter.translation_edit_rate (ref_len must be > 0 or the caller
 * handles it). Returns -1 when out of memory, -2 when the edit path leaves
 * the beam (the specification raises RuntimeError then). */
int64_t tb_ter_edits(tb_ter_work *w, const uint32_t *hyp, size_t hyp_len,
                     const uint32_t *ref, size_t ref_len);

#ifdef PY_SSIZE_T_CLEAN
#include <Python.h>
PyObject *tb_ter_statistics(PyObject *self, PyObject *args);
#define TB_TER_STATISTICS_DOC \
    "ter_statistics(hypotheses, references, threads, out) -> None\n\n" \
    "TER statistics [edits, average reference length] (float64, one row per hypothesis)\n" \
    "into `out`. Hypotheses and references are tercom-tokenized strings (tokens separated\n" \
    "by single spaces); references[i] is the list of references of hypothesis i."
#endif

#endif
