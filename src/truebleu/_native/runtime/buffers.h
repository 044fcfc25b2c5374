/* truebleu core runtime: Python buffers the core writes into or reads from
 * without the GIL (bindings only). */
#ifndef TB_RUNTIME_BUFFERS_H
#define TB_RUNTIME_BUFFERS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* The element types the core reads from or writes into a caller's buffer. */
typedef enum { TB_ITEM_INT32, TB_ITEM_INT64, TB_ITEM_FLOAT64 } tb_item;

/* 0 if view (got with PyBUF_FORMAT) holds items of type `item` as this platform lays
 * them out: its format, in struct module syntax, says that type in native size and
 * byte order (int64: 'q', '@q', '=q', '<q' on little-endian, 'l' where long has 64
 * bits; int32: 'i', 'l' where long has 32 bits; float64: 'd', '=d', ...). Otherwise -1 with TypeError naming `name`, the type
 * needed and the format given. The one check of a buffer's type (every binding's). */
int tb_check_item(const Py_buffer *view, tb_item item, const char *name);

/* A writable C-contiguous buffer of exactly `count` items of type `item` (release it
 * with PyBuffer_Release). -1 otherwise: TypeError when its format is not `item`'s
 * (tb_check_item: an int64 buffer the core wrote doubles' bits into, or the reverse,
 * would read as wrong numbers), ValueError with `what` (the rule, as "scores must hold
 * one double per hypothesis") and the sizes when its size is not count items. */
int tb_out_buffer(PyObject *obj, Py_buffer *view, size_t count, tb_item item, const char *name,
                  const char *what);

/* tb_out_buffer of `count` int64 items named `name`, described as "the output buffer". */
int tb_int64_out_buffer(PyObject *obj, Py_buffer *view, size_t count, const char *name);

/* A C-contiguous buffer of whole rows of `width` int64 values (int64 items, tb_check_item,
 * or raw bytes as the core's own results are: format 'B', 'b' or 'c'), read in place; its
 * number of rows in *rows. -1 otherwise: TypeError naming `name` and the format for any
 * other type, ValueError naming `name` and the width for a size not whole rows. What the core reads from it without the GIL must be values whose
 * change by another thread could spoil a result but never an address (no indexes:
 * those are copied, tb_copy_index_buffer). */
int tb_int64_rows_buffer(PyObject *obj, Py_buffer *view, size_t width, const char *name,
                         size_t *rows);

/* A private copy of an int64 index buffer (tb_check_item), every entry checked to be in
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
