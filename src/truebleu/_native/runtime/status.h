/* truebleu core runtime: the one vocabulary of outcomes (plain C, no Python).
 *
 * Every part of the core that can fail without the GIL (a worker thread, a
 * kernel such as TER's edit distance) says how with a tb_status, and a job
 * keeps the first one (runtime/pool.h); the bindings turn it into the Python
 * exception with tb_raise (runtime/errors.h) once the GIL is held again. Work
 * without the GIL ends in TB_OK, TB_NOMEM, TB_INTERRUPTED or TB_RUNTIME; the
 * other kinds serve bindings that report a computed fault through tb_raise
 * (significance's OverflowError). A binding's checks of its arguments raise
 * their TypeError or ValueError directly, as CPython's own functions do.
 */
#ifndef TB_RUNTIME_STATUS_H
#define TB_RUNTIME_STATUS_H

typedef enum {
    TB_OK = 0,
    TB_NOMEM,        /* out of memory: MemoryError */
    TB_INTERRUPTED,  /* a signal handler raised (Ctrl-C): its exception is already set */
    TB_TYPE,         /* TypeError */
    TB_VALUE,        /* ValueError */
    TB_INDEX,        /* IndexError */
    TB_OVERFLOW,     /* OverflowError: the exact arithmetic of a fast path would overflow */
    TB_RUNTIME,      /* RuntimeError: an algorithm met a state its specification rejects */
} tb_status;

#endif
