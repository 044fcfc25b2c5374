/* truebleu core: the dialects' entry points (dialects/bindings.c), for module.c's method table. */
#ifndef TB_DIALECTS_BINDINGS_H
#define TB_DIALECTS_BINDINGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *core_mteval_table(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_mteval_sums(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_exact_sum(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_mteval_13a_ids(PyObject *module, PyObject *args, PyObject *kwargs);

#endif
