/* truebleu core runtime: Python buffers the core writes into or reads from
 * without the GIL (bindings only). */
#ifndef TB_RUNTIME_BUFFERS_H
#define TB_RUNTIME_BUFFERS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* A writable C-contiguous buffer of exactly `count` items of `itemsize` bytes
 * (release it with PyBuffer_Release). -1 with ValueError otherwise: `what` (the
 * rule, as "out must be a double buffer of one per hypothesis") and the sizes. */
int tb_out_buffer(PyObject *obj, Py_buffer *view, size_t count, size_t itemsize, const char *what);

/* tb_out_buffer of `count` int64 items, described as "the output buffer". */
int tb_int64_out_buffer(PyObject *obj, Py_buffer *view, size_t count);

/* A C-contiguous buffer of whole rows of `width` int64 values (items of 8 bytes, or raw
 * bytes as the core's own results are), read in place; its number of rows in *rows. -1 with ValueError naming `name` and the
 * width otherwise. What the core reads from it without the GIL must be values whose
 * change by another thread could spoil a result but never an address (no indexes:
 * those are copied, tb_copy_index_buffer). */
int tb_int64_rows_buffer(PyObject *obj, Py_buffer *view, size_t width, const char *name,
                         size_t *rows);

/* A private copy of an int64 ('q') index buffer, every entry checked to be in
 * [0, limit). The copy, not the caller's buffer, is what code without the GIL
 * reads: another thread may write the buffer meanwhile, and a value checked in
 * place could change after the check. 0 ok (free *out with PyMem_Free), -1 error. */
int tb_copy_index_buffer(PyObject *obj, Py_ssize_t limit, int64_t **out, size_t *count);

/* Releases view if it holds a buffer (a zeroed Py_buffer holds none). */
static inline void tb_buffer_release(Py_buffer *view)
{
    if (view->obj)
        PyBuffer_Release(view);
}

#endif
