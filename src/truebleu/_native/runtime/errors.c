/* truebleu core runtime: the one place where a tb_status becomes a Python
 * exception (see runtime/status.h). */
#include "runtime/errors.h"

#include <stdarg.h>

static PyObject *exception_of(tb_status status)
{
    switch (status) {
    case TB_TYPE: return PyExc_TypeError;
    case TB_VALUE: return PyExc_ValueError;
    case TB_INDEX: return PyExc_IndexError;
    case TB_OVERFLOW: return PyExc_OverflowError;
    default: return PyExc_RuntimeError;
    }
}

PyObject *tb_raise(tb_status status, const char *format, ...)
{
    if (status == TB_NOMEM)
        return PyErr_NoMemory();
    if (status == TB_INTERRUPTED) {
        if (!PyErr_Occurred())  /* (never: the status is set only after a handler raised) */
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        return NULL;
    }
    va_list args;
    va_start(args, format);
    PyErr_FormatV(exception_of(status), format, args);
    va_end(args);
    return NULL;
}

int tb_raise_job_status(tb_status status)
{
    if (status == TB_OK)
        return 0;
    tb_raise(status, "the core's job failed");  /* (a message only for an unexpected status) */
    return -1;
}
