/* truebleu core: BLEU's entry points (bleu/bindings.c, bleu/bindings_systems.c,
 * bleu/bindings_matrix.c, bleu/bindings_ids.c),
 * for module.c's method table. Each takes its arguments by position or by
 * keyword (METH_VARARGS | METH_KEYWORDS). Entry points are named core_* and
 * never call each other (bench/bench_speed.py counts the instructions inside
 * core_* with callgrind's --toggle-collect). */
#ifndef TB_BLEU_BINDINGS_H
#define TB_BLEU_BINDINGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "bleu/jobs.h"
#include "state.h"

PyObject *core_prepare(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_prepare_streams(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_systems_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_sentence_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_stream_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_stream_statistics_utf8(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_pair_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_cross_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_bleu_scores(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_column_sums(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_tokenized_periods(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_ids_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_ids_statistics_streams(PyObject *module, PyObject *args, PyObject *kwargs);

/* The checks every BLEU entry point makes (bleu/bindings_shared.c): 0, or -1 with ValueError. */
int tb_check_mode(int mode);
int tb_check_order(int max_order);
/* 0, or -1 with a ValueError when smooth is no TB_SMOOTH_* code (bleu/score.h). */
int tb_check_smooth(int smooth);

/* Runs a BLEU job without the GIL (bleu/bindings_shared.c); 0, or -1 with the exception of its failure. */
int tb_bleu_run_job(tb_bleu_job *job, int threads, const tb_state *st);

/* Where a statistics job's rows go: into `out`, an int64 buffer of n rows, or,
 * when out is None, nowhere: only their sum is added to `totals` (an int64
 * buffer of one row), which spares a caller that wants the corpus totals a
 * table of n rows; or, for a job whose scores were set first (sentence_statistics'
 * `scores`, j->scores), nowhere at all. tb_bleu_output_get sets j's outputs: 0, or
 * -1 with an exception; release with tb_bleu_output_release either way (bleu/bindings_shared.c). */
typedef struct {
    Py_buffer rows, sum, scores;
} tb_bleu_output;

int tb_bleu_output_get(tb_bleu_output *o, tb_bleu_job *j, PyObject *out, PyObject *totals, size_t n);
void tb_bleu_output_release(tb_bleu_output *o);

#endif
