/* truebleu core runtime: buffers the core reads or writes (see runtime/buffers.h). */
#include "runtime/buffers.h"

#include <string.h>

/* Each type's name and plain format (what tb_check_item says) and its size. */
static const struct {
    const char *name, *format;
    Py_ssize_t size;
} item_types[] = {[TB_ITEM_INT32] = {"int32", "i", sizeof(int32_t)},
                  [TB_ITEM_INT64] = {"int64", "q", sizeof(int64_t)},
                  [TB_ITEM_FLOAT64] = {"float64", "d", sizeof(double)}};

/* 1 if `format` (struct syntax; NULL means 'B', PEP 3118) with items of `itemsize`
 * bytes is `item` in this platform's size and byte order. */
static int format_is(const char *format, Py_ssize_t itemsize, tb_item item)
{
    int native_size = 1;  /* '@' or no prefix: C's sizes ('l' is a long); else the standard ones */
    if (!format)
        format = "B";
    if (*format == '@') {
        format++;
#if PY_LITTLE_ENDIAN
    } else if (*format == '=' || *format == '<') {
#else
    } else if (*format == '=' || *format == '>' || *format == '!') {
#endif
        format++;
        native_size = 0;
    }
    if (format[0] == '\0' || format[1] != '\0' || itemsize != item_types[item].size)
        return 0;
    switch (item) {
    case TB_ITEM_INT32:  /* ('l' in native size is a long: 32 bits on Windows) */
        return format[0] == 'i' || (format[0] == 'l' && native_size && sizeof(long) == 4);
    case TB_ITEM_INT64:  /* ('l' in standard size has 4 bytes: the itemsize refuses it) */
        return format[0] == 'q' || (format[0] == 'l' && native_size && sizeof(long) == 8);
    case TB_ITEM_FLOAT64:
        return format[0] == 'd';
    }
    return 0;
}

int tb_check_item(const Py_buffer *view, tb_item item, const char *name)
{
    if (format_is(view->format, view->itemsize, item))
        return 0;
    PyErr_Format(PyExc_TypeError, "%s must be a buffer of %s (format '%s'); got format '%s'", name,
                 item_types[item].name, item_types[item].format, view->format ? view->format : "B");
    return -1;
}

int tb_out_buffer(PyObject *obj, Py_buffer *view, size_t count, tb_item item, const char *name,
                  const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (tb_check_item(view, item, name) < 0) {
        PyBuffer_Release(view);
        return -1;
    }
    const size_t bytes = count * (size_t)item_types[item].size;
    if ((size_t)view->len != bytes) {
        PyErr_Format(PyExc_ValueError, "%s: it holds %zd bytes, not %zu", what, view->len, bytes);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

int tb_int64_out_buffer(PyObject *obj, Py_buffer *view, size_t count, const char *name)
{
    return tb_out_buffer(obj, view, count, TB_ITEM_INT64, name,
                         "the output buffer must hold one int64 per value");
}

/* 1 if `format` (NULL means 'B') is that of raw bytes: 'B', 'b' or 'c', any byte-order prefix. */
static int raw_bytes_format(const char *format)
{
    if (!format)
        return 1;
    if (*format && strchr("@=<>!", *format))
        format++;
    return format[0] != '\0' && format[1] == '\0' && strchr("Bbc", format[0]) != NULL;
}

int tb_int64_rows_buffer(PyObject *obj, Py_buffer *view, size_t width, const char *name,
                         size_t *rows)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    /* Items of 8 bytes must say int64 (an array('d') would be read as integers); raw bytes
     * are the core's own results (bytes, bytearray), read as the int64 rows they hold. */
    if (view->itemsize == 1 ? !raw_bytes_format(view->format)
                            : tb_check_item(view, TB_ITEM_INT64, name) < 0) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "%s must be a buffer of int64 (format 'q') or raw "
                         "bytes; got format '%s'", name, view->format);
        PyBuffer_Release(view);
        return -1;
    }
    if (width == 0 || (size_t)view->len % (8 * width) != 0) {
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
    if (tb_check_item(&view, TB_ITEM_INT64, "indexes") < 0) {
        PyBuffer_Release(&view);
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
