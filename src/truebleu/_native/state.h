/* truebleu._native_core: the module's state (PEP 489 multi-phase init), which
 * the bindings reach from their module argument (bindings only).
 *
 * Everything the module needs that is not a compile-time constant lives here,
 * one copy per module object (per interpreter): the Prepared type and the
 * strings the bindings use on every call.
 */
#ifndef TB_STATE_H
#define TB_STATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    PyTypeObject *prepared_type;  /* truebleu._native_core.Prepared (bleu/prepared.c) */
    PyObject *lower;              /* "lower": str.lower() of text to lowercase (runtime/gather.c) */
    PyObject *endswith;           /* "endswith": the " ." test of a str subclass (bleu/bindings.c) */
    PyObject *space_period;       /* " ." */
    unsigned long main_thread;    /* threading.main_thread().ident, 0 if unknown (runtime/signals.c) */
} tb_state;

static inline tb_state *tb_state_of(PyObject *module)
{
    return (tb_state *)PyModule_GetState(module);
}

#endif
