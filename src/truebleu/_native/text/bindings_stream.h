/* truebleu core: a whole stream's BLEU tokens in one call (text/bindings_stream.c) and
 * the page's column of given tokens (text/bindings_page_column.c), for module.c's method
 * table. */
#ifndef TB_TEXT_BINDINGS_STREAM_H
#define TB_TEXT_BINDINGS_STREAM_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyObject *core_tokens_vocabulary(PyObject *module, PyObject *noargs);
PyObject *core_tokens_vocabulary_words(PyObject *module, PyObject *capsule);
PyObject *core_tokens_stream(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *core_page_token_column(PyObject *module, PyObject *args, PyObject *kwargs);

#endif
