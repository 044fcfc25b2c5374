/* truebleu core: the Prepared type, tokenized segments kept for reuse
 * (reference caching): a heap type made per module (PyType_FromModuleAndSpec),
 * held in the module state (bindings only). */
#ifndef TB_BLEU_PREPARED_H
#define TB_BLEU_PREPARED_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "bleu/ngram.h"
#include "text/tokenize.h"

/* The most memory the n-gram tables kept for one Prepared may take (they take
 * about three times its segments' for order 4): above it, every call counts
 * the references' n-grams again, as the first call does. */
#define TB_LEARNED_MAX_BYTES ((size_t)256 << 20)

typedef struct {
    PyObject_HEAD
    tb_seg **segs;
    Py_ssize_t n;
    int mode, lowercase;
    size_t nbytes;
    /* The references' n-grams, counted once for every later call
     * (bleu/ngram.h: tb_learned, one per segment): built by the second call of
     * statistics() (a Prepared scored once pays nothing for them), at that
     * call's max_order; installed under the GIL, only read afterwards and freed
     * with the object, so that a call running without the GIL may use them. */
    tb_learned **learned;      /* NULL: none (yet) */
    int learned_order;
    size_t learned_nbytes;
    long calls;                /* statistics() calls so far */
} PreparedObject;

/* The type, for the module's exec slot. */
PyObject *tb_prepared_type_new(PyObject *module);

/* A new Prepared of type `type` that takes over segs[0 .. n) (also on failure,
 * when it frees them). */
PyObject *tb_prepared_new(PyTypeObject *type, tb_seg **segs, Py_ssize_t n, int mode, int lowercase);

/* Frees segs[0 .. n) and the array (NULL: nothing). */
void tb_prepared_free_segs(tb_seg **segs, Py_ssize_t n);

/* Frees learned[0 .. n) and the array (NULL: nothing). */
void tb_prepared_free_learned(tb_learned **learned, Py_ssize_t n);

#endif
