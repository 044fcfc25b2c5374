/* truebleu core runtime: the string gatherer (see runtime/gather.h). */
#include "runtime/gather.h"

#include <string.h>

#include "runtime/spares.h"

/* A gatherer's arrays kept between calls (runtime/spares.h): a call of 20,000
 * sentences gathers 40,000 strings into 1.3 MB of arrays, and the fresh pages
 * of a new allocation each call cost it more time in the kernel (page faults,
 * and brk giving them back) than the gathering itself. The arrays come from
 * the raw domain (PyMem_Raw*: one allocator for the process, as spares are
 * the process's), and a kept owners array is all NULL: tb_gather_free clears
 * each slot it releases, so no pass zeroes it again. */
typedef struct {
    PyObject **owners;
    tb_text *texts;
    size_t cap;
} kept_arrays;

static tb_spares gather_spares;

static size_t footprint(size_t cap) { return cap * (sizeof(PyObject *) + sizeof(tb_text)); }

/* Kept arrays of at least cap slots into g (0), or -1: none kept (a kept pair
 * too small is freed: the next call is likely as large as this one). */
static int take_kept(tb_gather *g, size_t cap)
{
    kept_arrays *k = tb_spares_take(&gather_spares);
    if (!k)
        return -1;
    if (k->cap < cap) {
        PyMem_RawFree(k->owners);
        PyMem_RawFree(k->texts);
        PyMem_RawFree(k);
        return -1;
    }
    g->owners = k->owners;
    g->texts = k->texts;
    g->cap = k->cap;
    PyMem_RawFree(k);
    return 0;
}

/* g's arrays (every owner NULL) kept for the next gatherer, or freed. */
static void give_kept(tb_gather *g)
{
    if (!g->owners)
        return;
    kept_arrays *k = footprint(g->cap) <= TB_SPARE_MAX_BYTES ? PyMem_RawMalloc(sizeof(*k)) : NULL;
    if (k) {
        *k = (kept_arrays){g->owners, g->texts, g->cap};
        if (tb_spares_give(&gather_spares, k))
            return;
        PyMem_RawFree(k);
    }
    PyMem_RawFree(g->owners);
    PyMem_RawFree(g->texts);
}

static size_t release_kept(void *p)
{
    kept_arrays *k = p;
    size_t bytes = footprint(k->cap) + sizeof(*k);
    PyMem_RawFree(k->owners);
    PyMem_RawFree(k->texts);
    PyMem_RawFree(k);
    return bytes;
}

size_t tb_gather_release_spares(void) { return tb_spares_drain(&gather_spares, release_kept); }

void tb_gather_start(tb_gather *g, PyObject *lower_name)
{
    memset(g, 0, sizeof(*g));
    g->lower = lower_name;
}

/* Room for `need` slots (new ones without an owner; their texts are written
 * when they are set). */
static int reserve(tb_gather *g, size_t need)
{
    if (need <= g->cap)
        return 0;
    size_t cap = g->cap ? 2 * g->cap : 64;
    while (cap < need)
        cap *= 2;
    PyObject **owners = PyMem_RawRealloc(g->owners, cap * sizeof(PyObject *));
    if (owners)
        g->owners = owners;
    tb_text *texts = owners ? PyMem_RawRealloc(g->texts, cap * sizeof(tb_text)) : NULL;
    if (!texts) {
        PyErr_NoMemory();
        return -1;
    }
    g->texts = texts;
    memset(g->owners + g->cap, 0, (cap - g->cap) * sizeof(PyObject *));
    g->cap = cap;
    return 0;
}

int tb_gather_alloc(tb_gather *g, size_t n)
{
    size_t cap = n ? n : 1;
    tb_gather_free(g);  /* (nothing, on a gatherer just started) */
    if (take_kept(g, cap) < 0) {
        /* calloc: a large block comes zeroed from the system, without a pass over it */
        g->owners = PyMem_RawCalloc(cap, sizeof(PyObject *));
        g->texts = g->owners ? PyMem_RawMalloc(cap * sizeof(tb_text)) : NULL;
        if (!g->texts) {
            PyMem_RawFree(g->owners);
            g->owners = NULL;
            PyErr_NoMemory();
            return -1;
        }
        g->cap = cap;
    }
    g->n = n;
    return 0;
}

#if PY_VERSION_HEX < 0x030C0000
#define READY(s) PyUnicode_READY(s)
#else
#define READY(s) 0  /* (every str is ready since 3.12) */
#endif

/* A new reference to the str to read: obj itself, or str.lower()'s result when
 * lowercasing text that is not ASCII (*ascii_lower: ASCII text to lowercase as read). */
static PyObject *text_source(tb_gather *g, PyObject *obj, int flags, int *ascii_lower)
{
    *ascii_lower = 0;
    if (READY(obj) < 0)
        return NULL;
    if (!(flags & TB_GATHER_LOWER))
        return Py_NewRef(obj);
    if (PyUnicode_IS_ASCII(obj)) {
        *ascii_lower = 1;  /* str.lower() of ASCII text only maps A-Z */
        return Py_NewRef(obj);
    }
    PyObject *lowered = PyObject_CallMethodNoArgs(obj, g->lower);
    if (!lowered)
        return NULL;
    if (!PyUnicode_Check(lowered)) {
        PyErr_SetString(PyExc_TypeError, "str.lower() did not return a str");
        Py_DECREF(lowered);
        return NULL;
    }
    if (READY(lowered) < 0) {
        Py_DECREF(lowered);
        return NULL;
    }
    return lowered;
}

int tb_gather_set_any(tb_gather *g, size_t i, PyObject *obj, int flags)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "segments must be str, got %.100s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    int ascii_lower;
    PyObject *str = text_source(g, obj, flags, &ascii_lower);
    if (!str)
        return -1;
    tb_text *t = &g->texts[i];
    if (flags & TB_GATHER_UTF8) {
        Py_ssize_t size;
        const char *utf8 = PyUnicode_AsUTF8AndSize(str, &size);  /* (cached in the str) */
        if (!utf8) {  /* lone surrogates: their own bytes keep distinct words distinct */
            PyErr_Clear();
            PyObject *bytes = PyUnicode_AsEncodedString(str, "utf-8", "surrogatepass");
            Py_DECREF(str);
            if (!bytes)
                return -1;
            str = bytes;
            utf8 = PyBytes_AS_STRING(bytes);
            size = PyBytes_GET_SIZE(bytes);
        }
        *t = (tb_text){utf8, (size_t)size, TB_KIND_UTF8, ascii_lower};
    } else {
        *t = (tb_text){PyUnicode_DATA(str), (size_t)PyUnicode_GET_LENGTH(str), PyUnicode_KIND(str), ascii_lower};
    }
    Py_XSETREF(g->owners[i], str);
    g->owns = 1;
    return 0;
}

int tb_gather_append(tb_gather *g, PyObject *obj, int flags)
{
    if (reserve(g, g->n + 1) < 0 || tb_gather_set_any(g, g->n, obj, flags) < 0)
        return -1;
    g->n++;
    return 0;
}

void tb_gather_set_utf8(tb_gather *g, size_t i, const void *data, size_t length, int ascii_lower)
{
    Py_CLEAR(g->owners[i]);
    g->texts[i] = (tb_text){data, length, TB_KIND_UTF8, ascii_lower};
}

void tb_gather_free(tb_gather *g)
{
    if (g->owns)
        for (size_t i = 0; i < g->n; i++)
            Py_CLEAR(g->owners[i]);
    give_kept(g);
    PyObject *lower = g->lower;
    tb_gather_start(g, lower);
}
