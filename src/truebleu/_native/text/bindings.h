/* truebleu core: the text entry points (text/bindings.c), for module.c's method table. */
#ifndef TB_TEXT_BINDINGS_H
#define TB_TEXT_BINDINGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *core_tokenize(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_class_table(PyObject *module, PyObject *noargs);
PyObject *core_utf8_scan(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_utf8_first_long_line(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_utf8_line_chars(PyObject *module, PyObject *args, PyObject *kwargs);

#endif
