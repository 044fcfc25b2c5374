/* truebleu core runtime: a tb_status as the Python exception (bindings only). */
#ifndef TB_RUNTIME_ERRORS_H
#define TB_RUNTIME_ERRORS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "runtime/status.h"

/* With the GIL: sets the exception of `status` (not TB_OK) and returns NULL.
 * TB_NOMEM is MemoryError and TB_INTERRUPTED the exception the signal handler
 * raised (both ignore the message); any other is its exception class with the
 * message printf-formatted as PyErr_Format does. */
PyObject *tb_raise(tb_status status, const char *format, ...);

/* With the GIL: -1 with the exception of a job's failure (TB_NOMEM or
 * TB_INTERRUPTED, the ones that carry no message), 0 for TB_OK. */
int tb_raise_job_status(tb_status status);

#endif
