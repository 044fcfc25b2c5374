/* truebleu core: the text entry points (bindings): tokenize() and
 * class_table() for tests and the intl table check, and the UTF-8 scans of
 * the command line's reader (truebleu.io.utf8_lines). */
#include "bleu/bindings.h"
#include "runtime/gather.h"
#include "state.h"
#include "text/bindings.h"
#include "text/text.h"
#include "text/tokenize.h"

#include <string.h>

/* tokenize(line, mode, lowercase) -> list[str]   (tests, debugging)   */

/* texts = the one line `line` (bytes: valid UTF-8), read as TB_KIND_UTF8 (13a
 * and intl scan its bytes, the other tokenizers decode a non-ASCII one to code points).
 * Lowercasing needs it ASCII: the core maps A-Z only, as str.lower() does on
 * ASCII; a reader lowercases any other line with str.lower() first. */
static int utf8_text(tb_gather *texts, PyObject *line, int lowercase)
{
    const char *data = PyBytes_AS_STRING(line);
    Py_ssize_t n = PyBytes_GET_SIZE(line), ascii = 1;
    for (Py_ssize_t i = 0; i < n && ascii; i++)
        ascii = (unsigned char)data[i] < 0x80;
    PyObject *valid = PyUnicode_DecodeUTF8(data, n, "strict");
    if (!valid)
        return -1;
    Py_DECREF(valid);
    if (!ascii && lowercase) {
        PyErr_SetString(PyExc_ValueError, "a non-ASCII UTF-8 line cannot be lowercased by the core");
        return -1;
    }
    if (tb_gather_alloc(texts, 1) < 0)
        return -1;
    tb_gather_set_utf8(texts, 0, data, (size_t)n, lowercase);  /* (`line` outlives the call) */
    return 0;
}

PyObject *core_tokenize(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"line", "mode", "lowercase", NULL};
    PyObject *line;
    int mode, lowercase;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oip", (char **)kwlist, &line, &mode, &lowercase))
        return NULL;
    if (tb_check_mode(mode) < 0)
        return NULL;
    tb_gather texts;
    tb_gather_start(&texts, tb_state_of(module)->lower);
    if (PyBytes_Check(line)) {
        /* a line given as UTF-8 (TB_KIND_UTF8), as a native reader passes it */
        if (utf8_text(&texts, line, lowercase) < 0) {
            tb_gather_free(&texts);
            return NULL;
        }
    } else if (tb_gather_alloc(&texts, 1) < 0 || tb_gather_set(&texts, 0, line, lowercase ? TB_GATHER_LOWER : 0) < 0) {
        tb_gather_free(&texts);
        return NULL;
    }
    tb_builder b;
    tb_builder_init(&b);
    int rc = tb_builder_add_line(&b, &texts.texts[0], mode);
    PyObject *out = NULL;
    if (rc < 0) {
        PyErr_NoMemory();
    } else if ((out = PyList_New(b.nids)) != NULL) {
        for (size_t k = 0; k < b.nids; k++) {
            const tb_tok *t = &b.vocab[b.ids[k]];
            PyObject *s = PyUnicode_DecodeUTF8(b.bytes + t->off, t->len, "surrogatepass");
            if (!s) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, k, s);
        }
    }
    tb_builder_free(&b);
    tb_gather_free(&texts);
    return out;
}

/* class_table() -> bytes: per code point, intl bits (1 P, 2 S, 4 N) | 8 zh Chinese */
PyObject *core_class_table(PyObject *module, PyObject *noargs)
{
    (void)module;
    (void)noargs;
    PyObject *out = PyBytes_FromStringAndSize(NULL, 0x110000);
    if (!out)
        return NULL;
    char *p = PyBytes_AS_STRING(out);
    for (uint32_t c = 0; c < 0x110000; c++)
        p[c] = (char)(tb_char_class(c) | (tb_is_chinese(c) ? 8 : 0));
    return out;
}

/* ------------------------------------------------------------------ */
/* for the reader (truebleu.io.utf8_lines), with the GIL held           */

/* The bytes of buffer `obj` from `start` (checked), as a read-only view. An `*end` of
 * -1 becomes the buffer's length; any other must lie in [start, length] (the reader's
 * buffers hold their bytes in a prefix, with room to read into after it). */
static int view_from(PyObject *obj, Py_ssize_t start, Py_ssize_t *end, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0)
        return -1;
    if (*end == -1)
        *end = view->len;
    if (start < 0 || start > *end || *end > view->len) {
        PyErr_Format(PyExc_ValueError, "bytes %zd to %zd outside a buffer of %zd bytes", start, *end,
                     view->len);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* utf8_scan(buffer, start[, end]) -> (valid_end, chars, newlines, error, last_chars)
 * last_chars: the characters after the last newline (all of them if none). */
PyObject *core_utf8_scan(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"buffer", "start", "end", NULL};
    PyObject *obj;
    Py_ssize_t start, end = -1;
    Py_buffer view;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "On|n", (char **)kwlist, &obj, &start, &end) ||
        view_from(obj, start, &end, &view) < 0)
        return NULL;
    const uint8_t *d = (const uint8_t *)view.buf + start;
    tb_utf8_scan_result r;
    tb_utf8_scan(d, (size_t)(end - start), &r);
    size_t last = r.chars;
    if (r.newlines) {  /* the characters after the last newline; the walk back stops at d
                        * even if the bytes changed since the scan (a caller's buffer) */
        const uint8_t *after = d + r.valid;
        while (after > d && after[-1] != '\n')
            after--;
        last = tb_utf8_chars(after, (size_t)(d + r.valid - after));
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("nnnin", (Py_ssize_t)(start + r.valid), (Py_ssize_t)r.chars,
                         (Py_ssize_t)r.newlines, r.error, (Py_ssize_t)last);
}

/* utf8_first_long_line(buffer, start, end, first_chars, limit) -> index or -1 */
PyObject *core_utf8_first_long_line(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"buffer", "start", "end", "first_chars", "limit", NULL};
    PyObject *obj;
    Py_ssize_t start, end, first, limit;
    Py_buffer view;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Onnnn", (char **)kwlist, &obj, &start, &end, &first, &limit))
        return NULL;
    if (end < start) {
        PyErr_SetString(PyExc_ValueError, "bad range");
        return NULL;
    }
    if (view_from(obj, start, &end, &view) < 0)
        return NULL;
    long line = -1;
    if (first < 0 || limit < 0)
        PyErr_SetString(PyExc_ValueError, "bad range");
    else
        line = tb_utf8_first_long_line((const uint8_t *)view.buf + start, (size_t)(end - start),
                                       (size_t)first, (size_t)limit);
    PyBuffer_Release(&view);
    return PyErr_Occurred() ? NULL : PyLong_FromLong(line);
}

/* utf8_line_chars(buffer, lines[, end]) -> the characters of the first `lines` lines,
 * without their "\n" (the last may end at `end`, by default the end of the buffer) */
PyObject *core_utf8_line_chars(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"buffer", "lines", "end", NULL};
    PyObject *obj;
    Py_ssize_t lines, stop = -1;
    Py_buffer view;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "On|n", (char **)kwlist, &obj, &lines, &stop) ||
        view_from(obj, 0, &stop, &view) < 0)
        return NULL;
    const uint8_t *d = view.buf, *end = d + stop;
    size_t chars = 0;
    for (Py_ssize_t i = 0; i < lines && d < end; i++) {
        const uint8_t *nl = memchr(d, '\n', (size_t)(end - d));
        const uint8_t *stop = nl ? nl : end;
        chars += tb_utf8_chars(d, (size_t)(stop - d));
        d = nl ? nl + 1 : end;
    }
    PyBuffer_Release(&view);
    return PyLong_FromSize_t(chars);
}
