/* truebleu core: a whole stream's BLEU tokens in one call, for the viewer's report.
 *
 * tokenize() (text/bindings.c) makes one Python str per token of one line: a report
 * of 200,000 segments x 3 streams made 18 million of them, then joined them again.
 * tokens_stream() tokenizes every line of a stream with one builder and gives, per
 * line, its tokens joined by single spaces (one str), its number of tokens, and every
 * token's id in a vocabulary that may be shared by several calls (a capsule made by
 * tokens_vocabulary()): ids are numbered 0, 1, ... in order of first occurrence over
 * the calls, so that the viewer's frequency buckets count words by id. No str is made
 * per token.
 *
 * The vocabulary is a tb_builder whose lines are dropped after each call (its token
 * table is kept): the builder's vocabulary ids are exactly such ids. The builder runs
 * without the GIL, so a vocabulary refuses a second call while one is using it.
 */
#include "text/bindings_stream.h"
#include "bleu/bindings.h"
#include "runtime/gather.h"
#include "state.h"
#include "text/tokenize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VOCABULARY_CAPSULE "truebleu.tokens_vocabulary"

typedef struct {
    tb_builder builder;
    int busy;  /* a call is using it (with the GIL released) */
} vocabulary;

static void vocabulary_destroy(PyObject *capsule)
{
    vocabulary *v = PyCapsule_GetPointer(capsule, VOCABULARY_CAPSULE);
    if (v) {
        tb_builder_free(&v->builder);
        free(v);
    }
}

/* tokens_vocabulary() -> an empty vocabulary for tokens_stream (a capsule) */
PyObject *core_tokens_vocabulary(PyObject *module, PyObject *noargs)
{
    (void)module;
    (void)noargs;
    vocabulary *v = malloc(sizeof *v);
    if (!v)
        return PyErr_NoMemory();
    tb_builder_init(&v->builder);
    v->busy = 0;
    PyObject *capsule = PyCapsule_New(v, VOCABULARY_CAPSULE, vocabulary_destroy);
    if (!capsule) {
        tb_builder_free(&v->builder);
        free(v);
    }
    return capsule;
}

/* Line k's tokens (the builder's ids[first .. first+n)) joined by single spaces, as a
 * str ("surrogatepass": a lone surrogate of the line comes back as it was). `scratch`
 * grows to hold the joined bytes. NULL with an exception. */
static PyObject *joined_line(const tb_builder *b, size_t first, size_t n, char **scratch, size_t *cap)
{
    size_t size = n ? n - 1 : 0;
    for (size_t k = 0; k < n; k++)
        size += b->vocab[b->ids[first + k]].len;
    if (size > *cap) {
        size_t want = size > 2 * *cap ? size : 2 * *cap;
        char *grown = realloc(*scratch, want);
        if (!grown)
            return PyErr_NoMemory();
        *scratch = grown;
        *cap = want;
    }
    char *p = *scratch;
    for (size_t k = 0; k < n; k++) {
        const tb_tok *t = &b->vocab[b->ids[first + k]];
        if (k)
            *p++ = ' ';
        memcpy(p, b->bytes + t->off, t->len);
        p += t->len;
    }
    return PyUnicode_DecodeUTF8(*scratch, (Py_ssize_t)size, "surrogatepass");
}

/* tokens_stream(lines, mode, lowercase, vocabulary) -> (joined, lengths, ids, size)
 *
 * lines: a list of str or None. joined: a list, each line's tokens joined by single
 * spaces (None for None); lengths: bytes, each line's number of tokens as int64 (0 for
 * None); ids: bytes, every token's id in `vocabulary` as uint32, line after line;
 * size: the vocabulary's number of distinct tokens after the call. */
PyObject *core_tokens_stream(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"lines", "mode", "lowercase", "vocabulary", NULL};
    PyObject *lines, *capsule;
    int mode, lowercase;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!ipO", (char **)kwlist, &PyList_Type, &lines,
                                     &mode, &lowercase, &capsule))
        return NULL;
    if (tb_check_mode(mode) < 0)
        return NULL;
    vocabulary *v = PyCapsule_GetPointer(capsule, VOCABULARY_CAPSULE);
    if (!v)
        return NULL;
    if (v->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this tokens vocabulary is in use by another call");
        return NULL;
    }
    tb_builder *b = &v->builder;
    size_t n = (size_t)PyList_GET_SIZE(lines), present = 0;
    tb_gather texts;
    tb_gather_start(&texts, tb_state_of(module)->lower);
    PyObject *joined = NULL, *lengths = NULL, *ids = NULL, *out = NULL;
    char *scratch = NULL, *absent = calloc(n ? n : 1, 1);  /* absent[i]: line i is None */
    size_t scratch_cap = 0;
    v->busy = 1;
    if (!absent) {
        PyErr_NoMemory();
        goto done;
    }
    if (tb_gather_alloc(&texts, n) < 0)
        goto done;
    for (size_t i = 0; i < n; i++) {  /* (each line is read from the list once) */
        PyObject *line = PyList_GET_ITEM(lines, (Py_ssize_t)i);
        if (line == Py_None) {
            absent[i] = 1;
            continue;
        }
        if (!PyUnicode_Check(line)) {
            PyErr_Format(PyExc_TypeError, "segments must be str, got %.200s", Py_TYPE(line)->tp_name);
            goto done;
        }
        if (tb_gather_set(&texts, present++, line, lowercase ? TB_GATHER_LOWER : 0) < 0)
            goto done;
    }
    /* the lines' tokens, after the vocabulary's (the previous calls' lines are dropped) */
    b->nids = b->nseq = 0;
    int rc = 0;
    Py_BEGIN_ALLOW_THREADS
    for (size_t k = 0; k < present && rc == 0; k++)
        rc = tb_builder_add_line(b, &texts.texts[k], mode);
    Py_END_ALLOW_THREADS
    if (rc < 0 || b->nvocab >= UINT32_MAX) {
        b->nids = b->nseq = 0;
        PyErr_NoMemory();
        goto done;
    }
    if (!(joined = PyList_New((Py_ssize_t)n)) ||
        !(lengths = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * sizeof(int64_t)))) ||
        !(ids = PyBytes_FromStringAndSize((const char *)b->ids, (Py_ssize_t)(b->nids * sizeof(uint32_t)))))
        goto done;
    int64_t *count = (int64_t *)PyBytes_AS_STRING(lengths);
    size_t first = 0, seq = 0;
    for (size_t i = 0; i < n; i++) {
        PyObject *text;
        if (absent[i]) {
            count[i] = 0;
            text = Py_NewRef(Py_None);
        } else {
            size_t len = b->seq_len[seq++];
            count[i] = (int64_t)len;
            text = joined_line(b, first, len, &scratch, &scratch_cap);
            first += len;
            if (!text)
                goto done;
        }
        PyList_SET_ITEM(joined, (Py_ssize_t)i, text);
    }
    out = Py_BuildValue("(OOOn)", joined, lengths, ids, (Py_ssize_t)b->nvocab);
done:
    b->nids = b->nseq = 0;
    v->busy = 0;
    free(scratch);
    free(absent);
    Py_XDECREF(joined);
    Py_XDECREF(lengths);
    Py_XDECREF(ids);
    tb_gather_free(&texts);
    return out;
}

/* ------------------------------------------------------------------ */
/* the page's token column (truebleu.viewer.tokens.page_token_column) */

/* Appends `at` to the list `offsets`: 0, or -1 with an exception. */
static int append_offset(PyObject *offsets, Py_ssize_t at)
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
                if (append_offset(offsets, utf16) < 0)                                      \
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
