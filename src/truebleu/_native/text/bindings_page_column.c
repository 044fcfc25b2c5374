/* truebleu core: the page's token column of texts and their joined tokens
 * (truebleu.viewer.tokens.page_token_column, for tokens the core did not make:
 * tokens_stream, text/bindings_stream.c, makes its column itself). */
#include "text/bindings_stream.h"

/* Appends `at` to the list `offsets`: 0, or -1 with an exception. */
static int append_to(PyObject *offsets, Py_ssize_t at)
{
    PyObject *value = PyLong_FromSsize_t(at);
    int rc = value ? PyList_Append(offsets, value) : -1;
    Py_XDECREF(value);
    return rc;
}

/* The walk of inserted_spaces over one PyUnicode kind (`T`: its code unit type): both
 * strings are of that kind when the form holds (the same characters, and spaces). */
#define INSERTED_SPACES(T)                                                                  \
    do {                                                                                    \
        const T *t = td, *j = jd;                                                           \
        for (Py_ssize_t k = 0; k < jn; k++) {                                               \
            if (i < tn && t[i] == j[k]) {                                                   \
                utf16 += sizeof(T) == 4 && j[k] > 0xFFFF ? 2 : 1;                           \
                i++;                                                                        \
            } else if (j[k] == ' ') {                                                       \
                if (append_to(offsets, utf16) < 0)                                          \
                    return -1;                                                              \
            } else {                                                                        \
                return 0;                                                                   \
            }                                                                               \
        }                                                                                   \
    } while (0)

/* Appends to `offsets` the UTF-16 offsets into `text` where a space inserted makes
 * `joined`, read greedily (a character equal in both is the text's; any other space
 * of `joined` is inserted). 1 if that makes `joined`, 0 if not, -1 with an exception. */
static int inserted_spaces(PyObject *text, PyObject *joined, PyObject *offsets)
{
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0 || PyUnicode_READY(joined) < 0)
        return -1;
#endif
    int kind = PyUnicode_KIND(text);
    const void *td = PyUnicode_DATA(text), *jd = PyUnicode_DATA(joined);
    Py_ssize_t tn = PyUnicode_GET_LENGTH(text), jn = PyUnicode_GET_LENGTH(joined), i = 0;
    Py_ssize_t utf16 = 0;  /* the UTF-16 length of text[0 .. i) */
    if (jn < tn || PyUnicode_KIND(joined) != kind)  /* (other characters: not this form) */
        return 0;
    if (kind == PyUnicode_1BYTE_KIND)
        INSERTED_SPACES(Py_UCS1);
    else if (kind == PyUnicode_2BYTE_KIND)
        INSERTED_SPACES(Py_UCS2);
    else
        INSERTED_SPACES(Py_UCS4);
    return i == tn;
}

#undef INSERTED_SPACES

/* page_token_column(texts, joined) -> list: per segment, None where joined[i] is None
 * or equals texts[i], the list of UTF-16 offsets where spaces inserted into texts[i]
 * make joined[i] (13a's and intl's usual tokens: a space before punctuation), or else
 * joined[i] itself. */
PyObject *core_page_token_column(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"texts", "joined", NULL};
    PyObject *texts, *joined;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!", (char **)kwlist, &PyList_Type, &texts,
                                     &PyList_Type, &joined))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(joined);
    if (PyList_GET_SIZE(texts) != n) {
        PyErr_SetString(PyExc_ValueError, "texts and joined differ in length");
        return NULL;
    }
    PyObject *out = PyList_New(n);
    if (!out)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *text = PyList_GET_ITEM(texts, i), *tokens = PyList_GET_ITEM(joined, i), *item;
        if (tokens == Py_None) {
            item = Py_NewRef(Py_None);
        } else if (!PyUnicode_Check(tokens) || !PyUnicode_Check(text)) {
            PyErr_SetString(PyExc_TypeError, "a segment's text and tokens must be str");
            Py_DECREF(out);
            return NULL;
        } else {
            int equal = PyUnicode_Compare(text, tokens);
            if (equal == -1 && PyErr_Occurred()) {
                Py_DECREF(out);
                return NULL;
            }
            if (equal == 0) {
                item = Py_NewRef(Py_None);
            } else if (!(item = PyList_New(0))) {
                Py_DECREF(out);
                return NULL;
            } else {
                int found = inserted_spaces(text, tokens, item);
                if (found < 0) {
                    Py_DECREF(item);
                    Py_DECREF(out);
                    return NULL;
                }
                if (!found || PyList_GET_SIZE(item) == 0) {  /* (none: not equal, so not this form) */
                    Py_SETREF(item, Py_NewRef(tokens));
                }
            }
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}
