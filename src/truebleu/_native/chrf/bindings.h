/* truebleu core: chrF's entry points (chrf/bindings.c), for module.c's method table. */
#ifndef TB_CHRF_BINDINGS_H
#define TB_CHRF_BINDINGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *core_chrf_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_chrf_matrix(PyObject *module, PyObject *args, PyObject *kwargs);

#endif
