/* truebleu core: resampling's entry points (significance/bindings.c) and the report's
 * word-frequency buckets' (bindings_buckets.c), for module.c's method table. */
#ifndef TB_SIGNIFICANCE_BINDINGS_H
#define TB_SIGNIFICANCE_BINDINGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *core_pcg64_integers(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_pcg64_bools(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_resample_sums(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_randomization_sums(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_bleu_rows(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_word_bucket_counts(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_pairwise_sum(PyObject *module, PyObject *args, PyObject *kwargs);

#endif
