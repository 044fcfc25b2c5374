/* truebleu core runtime: buffers the core reads or writes (see runtime/buffers.h). */
#include "runtime/buffers.h"

#include <string.h>

int tb_out_buffer(PyObject *obj, Py_buffer *view, size_t count, size_t itemsize, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if ((size_t)view->len != count * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: it holds %zd bytes, not %zu", what, view->len,
                     count * itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

int tb_int64_out_buffer(PyObject *obj, Py_buffer *view, size_t count)
{
    return tb_out_buffer(obj, view, count, sizeof(int64_t), "the output buffer must hold one int64 per value");
}

int tb_int64_rows_buffer(PyObject *obj, Py_buffer *view, size_t width, const char *name,
                         size_t *rows)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if ((view->itemsize != 8 && view->itemsize != 1) || width == 0 || (size_t)view->len % (8 * width) != 0) {
        PyErr_Format(PyExc_ValueError, "%s must be an int64 buffer of whole rows of %zu values",
                     name, width);
        PyBuffer_Release(view);
        return -1;
    }
    *rows = (size_t)view->len / (8 * width);
    return 0;
}

int tb_copy_index_buffer(PyObject *obj, Py_ssize_t limit, int64_t **out, size_t *count)
{
    Py_buffer view;
    *out = NULL;
    *count = 0;
    if (PyObject_GetBuffer(obj, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view.itemsize != 8 || !view.format || strcmp(view.format, "q") != 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "indexes must be int64 ('q') buffers");
        return -1;
    }
    size_t n = (size_t)view.len / 8;
    int64_t *copy = PyMem_Malloc(n ? n * sizeof(int64_t) : 1);
    if (!copy) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return -1;
    }
    if (n)
        memcpy(copy, view.buf, n * sizeof(int64_t));
    PyBuffer_Release(&view);
    for (size_t k = 0; k < n; k++) {
        if (copy[k] < 0 || copy[k] >= limit) {
            PyMem_Free(copy);
            PyErr_Format(PyExc_IndexError, "index %zu refers to a missing sequence or segment", k);
            return -1;
        }
    }
    *out = copy;
    *count = n;
    return 0;
}
