/* truebleu core: BLEU's entry points (bleu/bindings.c, bleu/bindings_matrix.c),
 * for module.c's method table. Each takes its arguments by position or by
 * keyword (METH_VARARGS | METH_KEYWORDS). Entry points are named core_* and
 * never call each other (bench/bench_speed.py counts the instructions inside
 * core_* with callgrind's --toggle-collect). */
#ifndef TB_BLEU_BINDINGS_H
#define TB_BLEU_BINDINGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *core_prepare(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_prepare_streams(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_sentence_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_stream_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_stream_statistics_utf8(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_pair_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_cross_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_bleu_scores(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_column_sums(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_tokenized_periods(PyObject *module, PyObject *args, PyObject *kwargs);

/* The checks every BLEU entry point makes (bleu/bindings.c): 0, or -1 with ValueError. */
int tb_check_mode(int mode);
int tb_check_order(int max_order);

#endif
