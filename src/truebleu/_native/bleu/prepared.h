/* truebleu core: the Prepared type, tokenized segments kept for reuse
 * (reference caching): a heap type made per module (PyType_FromModuleAndSpec),
 * held in the module state (bindings only). */
#ifndef TB_BLEU_PREPARED_H
#define TB_BLEU_PREPARED_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "text/tokenize.h"

typedef struct {
    PyObject_HEAD
    tb_seg **segs;
    Py_ssize_t n;
    int mode, lowercase;
    size_t nbytes;
} PreparedObject;

/* The type, for the module's exec slot. */
PyObject *tb_prepared_type_new(PyObject *module);

/* A new Prepared of type `type` that takes over segs[0 .. n) (also on failure,
 * when it frees them). */
PyObject *tb_prepared_new(PyTypeObject *type, tb_seg **segs, Py_ssize_t n, int mode, int lowercase);

/* Frees segs[0 .. n) and the array (NULL: nothing). */
void tb_prepared_free_segs(tb_seg **segs, Py_ssize_t n);

#endif
