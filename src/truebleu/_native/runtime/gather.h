/* truebleu core runtime: collecting Python strings for work without the GIL.
 *
 * Every entry point that reads text (BLEU's tokenizers, chrF, TER) first walks
 * its arguments with the GIL held and, for each str, asks tb_gather for a
 * tb_text: a pointer to the str's own storage (PyUnicode: 1, 2 or 4 bytes per
 * code point) or to its UTF-8, and a new reference that keeps that storage
 * alive while the GIL is released. Lowercasing, where asked, happens here too:
 * an ASCII str is read as it is and lowercased by the reader (A-Z only, all
 * that str.lower() changes in ASCII), any other is replaced by str.lower()'s
 * result. The walk of each argument's layout (a list of lists, columns with
 * None for missing references, ...) stays with the metric, which names the
 * faults it finds in its own words.
 */
#ifndef TB_RUNTIME_GATHER_H
#define TB_RUNTIME_GATHER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "text/text.h"

enum {
    TB_GATHER_LOWER = 1,  /* as str.lower() would (an ASCII str: texts[i].ascii_lower is set,
                           * and the reader must honour it) */
    TB_GATHER_UTF8 = 2,   /* the str's UTF-8 (TB_KIND_UTF8; lone surrogates kept apart by
                           * "surrogatepass"), not its PyUnicode storage */
    TB_GATHER_BORROWED = 4,  /* the caller keeps the str alive until tb_gather_free (an item of
                              * a tuple it holds): read in place, no reference taken (a corpus
                              * of 120,000 lines spent about 3 M instructions on taking and
                              * dropping them). Lowercased text is still owned. */
};

typedef struct {
    tb_text *texts;      /* what the workers read, without the GIL */
    PyObject **owners;   /* owners[i] keeps texts[i] alive (NULL: a buffer the caller holds) */
    size_t n, cap;
    int owns;            /* whether any slot may have an owner (tb_gather_free looks only then) */
    PyObject *lower;     /* the interned name "lower" (borrowed from the module state) */
} tb_gather;

/* An empty gatherer (nothing to free yet). */
void tb_gather_start(tb_gather *g, PyObject *lower_name);

/* n empty slots for tb_gather_set / tb_gather_set_utf8 (arrays a gatherer
 * before kept, when they are large enough). -1 with MemoryError. */
int tb_gather_alloc(tb_gather *g, size_t n);

/* Slot i (< n) from the str `obj` (TB_GATHER_* flags). -1 with an exception:
 * TypeError "segments must be str" when obj is not a str (callers with their
 * own message check first), or what str.lower() or the UTF-8 encoder raised. */
int tb_gather_set_any(tb_gather *g, size_t i, PyObject *obj, int flags);

/* tb_gather_set_any, with its commonest case inline (a corpus gathers every
 * line through here): a str read in its own storage, not lowercased or ASCII. */
static inline int tb_gather_set(tb_gather *g, size_t i, PyObject *obj, int flags)
{
    if (!PyUnicode_Check(obj) || (flags & TB_GATHER_UTF8) || g->owners[i])
        return tb_gather_set_any(g, i, obj, flags);
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(obj) < 0)
        return -1;
#endif
    int ascii = PyUnicode_IS_ASCII(obj);
    if ((flags & TB_GATHER_LOWER) && !ascii)
        return tb_gather_set_any(g, i, obj, flags);
    if (!(flags & TB_GATHER_BORROWED)) {
        g->owners[i] = Py_NewRef(obj);
        g->owns = 1;
    }
    g->texts[i] = (tb_text){PyUnicode_DATA(obj), (size_t)PyUnicode_GET_LENGTH(obj), PyUnicode_KIND(obj),
                            (flags & TB_GATHER_LOWER) != 0};
    return 0;
}

/* tb_gather_set(g, i, obj, TB_GATHER_BORROWED, and TB_GATHER_LOWER where lower) on a
 * slot not set since tb_gather_alloc (its owner NULL): what a corpus does for every
 * hypothesis and reference. A compact str (every str since Python 3.12, and before it
 * every str but those of the legacy C API) is read where CPython keeps it, its flags
 * read once: tb_gather_set's macros test readiness and compactness again for each
 * field, about 30 instructions a line where 12 do. Anything else: tb_gather_set_any. */
static inline int tb_gather_borrow(tb_gather *g, size_t i, PyObject *obj, int lower)
{
    if (PyUnicode_Check(obj) && PyUnicode_IS_COMPACT(obj)) {
        const size_t length = (size_t)PyUnicode_GET_LENGTH(obj);
        if (PyUnicode_IS_ASCII(obj)) {
            g->texts[i] = (tb_text){(const PyASCIIObject *)obj + 1, length, PyUnicode_1BYTE_KIND, lower != 0};
            return 0;
        }
        if (!lower) {
            g->texts[i] = (tb_text){(const PyCompactUnicodeObject *)obj + 1, length, (int)PyUnicode_KIND(obj), 0};
            return 0;
        }
    }
    return tb_gather_set_any(g, i, obj, (lower ? TB_GATHER_LOWER : 0) | TB_GATHER_BORROWED);
}

/* tb_gather_set on a new slot at the end. */
int tb_gather_append(tb_gather *g, PyObject *obj, int flags);

/* Slot i (< n) from valid UTF-8 bytes the caller keeps alive (ASCII if ascii_lower). */
void tb_gather_set_utf8(tb_gather *g, size_t i, const void *data, size_t length, int ascii_lower);

/* Releases the references, and keeps the arrays for the next gatherer
 * (runtime/spares.h; up to TB_SPARE_MAX_BYTES) or frees them (g is empty again). */
void tb_gather_free(tb_gather *g);

/* Frees the arrays kept for the next gatherer; the bytes freed. (Any thread.) */
size_t tb_gather_release_spares(void);

#endif
