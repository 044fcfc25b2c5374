/* truebleu core: TER's entry points (ter/bindings.c), for module.c's method table. */
#ifndef TB_TER_BINDINGS_H
#define TB_TER_BINDINGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *core_ter_statistics(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_ter_alignment(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_ter_tokenize(PyObject *module, PyObject *args, PyObject *kwargs);

#endif
