/* truebleu core: a whole stream's BLEU tokens in one call, for the viewer's report.
 *
 * tokenize() (text/bindings.c) makes one Python str per token of one line: a report
 * of 200,000 segments x 3 streams made 18 million of them, then joined them again.
 * tokens_stream() tokenizes every line of a stream with one builder and gives, per
 * line, the page's item of its tokens (page_item: mostly None or where spaces go into
 * the text, so that a str of the tokens is made only for the few lines that need one),
 * its number of tokens, and every token's id in a vocabulary that may be shared by
 * several calls (a capsule made by tokens_vocabulary()): ids are numbered 0, 1, ... in
 * order of first occurrence over the calls, so that the viewer's frequency buckets
 * count words by id. No str is made per token.
 *
 * The vocabulary is a tb_builder whose lines are dropped after each call (its token
 * table is kept): the builder's vocabulary ids are exactly such ids. The builder runs
 * without the GIL, so a vocabulary refuses a second call while one is using it.
 */
#include "text/bindings_stream.h"
#include "bleu/bindings.h"
#include "runtime/gather.h"
#include "runtime/portable.h"
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

/* The vocabulary of a capsule tokens_vocabulary() made, unless a call is using it (its
 * builder is changed without the GIL): NULL with an exception. */
static vocabulary *idle_vocabulary(PyObject *capsule)
{
    vocabulary *v = PyCapsule_GetPointer(capsule, VOCABULARY_CAPSULE);
    if (v && v->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this tokens vocabulary is in use by another call");
        return NULL;
    }
    return v;
}

/* tokens_vocabulary_words(vocabulary) -> list of bytes: its words (UTF-8) in the order of
 * their ids, for a caller that numbers the words of several vocabularies as one (the
 * report's streams, each tokenized on a thread with a vocabulary of its own). */
PyObject *core_tokens_vocabulary_words(PyObject *module, PyObject *capsule)
{
    (void)module;
    vocabulary *v = idle_vocabulary(capsule);
    if (!v)
        return NULL;
    const tb_builder *b = &v->builder;
    PyObject *words = PyList_New((Py_ssize_t)b->nvocab);
    for (size_t k = 0; words && k < b->nvocab; k++) {
        const tb_tok *t = &b->vocab[k];
        PyObject *word = PyBytes_FromStringAndSize(b->bytes + t->off, (Py_ssize_t)t->len);
        if (!word)
            Py_CLEAR(words);
        else
            PyList_SET_ITEM(words, (Py_ssize_t)k, word);
    }
    return words;
}

/* Line k's tokens (the builder's ids[first .. first+n)) joined by single spaces, as
 * UTF-8 in `scratch` (grown to hold them); their size in bytes, or (size_t)-1 with
 * MemoryError. */
static size_t joined_bytes(const tb_builder *b, size_t first, size_t n, char **scratch, size_t *cap)
{
    size_t size = n ? n - 1 : 0;
    for (size_t k = 0; k < n; k++)
        size += b->vocab[b->ids[first + k]].len;
    if (size > *cap) {
        size_t want = size > 2 * *cap ? size : 2 * *cap;
        char *grown = realloc(*scratch, want);
        if (!grown) {
            PyErr_NoMemory();
            return (size_t)-1;
        }
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
    return size;
}

/* The offsets of inserted spaces page_walk finds, every line's after the last's. */
typedef struct {
    Py_ssize_t *at;
    size_t n, cap;
} offset_list;

/* Appends `at` to *offsets: 0, or -1 when out of memory (no exception set: the walk runs
 * without the GIL). */
static int append_offset(offset_list *offsets, Py_ssize_t at)
{
    if (offsets->n == offsets->cap) {
        size_t want = offsets->cap ? 2 * offsets->cap : 64;
        Py_ssize_t *grown = realloc(offsets->at, want * sizeof *grown);
        if (!grown)
            return -1;
        offsets->at = grown;
        offsets->cap = want;
    }
    offsets->at[offsets->n++] = at;
    return 0;
}

/* The first r (1..7) bytes in memory of the word w, zeros in place of the others. */
static inline uint64_t first_bytes_of(uint64_t w, size_t r)
{
#ifdef TB_BIG_ENDIAN
    return w & ~(~0ull >> (8 * r));
#else
    return w & ((1ull << (8 * r)) - 1);
#endif
}

static inline uint64_t word_at(const void *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

#define HIGH_BITS 0x8080808080808080ull

/* Whether a token's bytes p[0 .. len) are ASCII and the next len characters of a text
 * of one byte per character (`left` of them from t): the common case, compared 8 bytes
 * at a time. The token's bytes are followed by TB_BYTES_PAD readable bytes (the builder's);
 * the text is read only within its `left` characters. */
static inline int same_ascii_Py_UCS1(const Py_UCS1 *t, size_t left, const uint8_t *p, size_t len)
{
    if (len > left)
        return 0;
    uint64_t diff = 0, high = 0;
    size_t j = 0;
    for (; j + 8 <= len; j += 8) {
        uint64_t w = word_at(p + j);
        diff |= w ^ word_at(t + j);
        high |= w;
    }
    if (j < len && j + 8 <= left) {
        uint64_t w = first_bytes_of(word_at(p + j), len - j);
        diff |= w ^ first_bytes_of(word_at(t + j), len - j);
        high |= w;
    } else {
        for (; j < len; j++) {  /* (the text's last few characters) */
            diff |= (uint64_t)(p[j] ^ t[j]);
            high |= p[j];
        }
    }
    return !diff && !(high & HIGH_BITS);
}

/* same_ascii_Py_UCS1 for a text of 2 or 4 bytes per character (code units `T`). */
#define SAME_ASCII(T)                                                                       \
    static inline int same_ascii_##T(const T *t, size_t left, const uint8_t *p, size_t len) \
    {                                                                                       \
        if (len > left)                                                                     \
            return 0;                                                                       \
        uint32_t diff = 0, high = 0;                                                        \
        for (size_t j = 0; j < len; j++) {                                                  \
            diff |= p[j] ^ (uint32_t)t[j];                                                  \
            high |= p[j];                                                                   \
        }                                                                                   \
        return !diff && high < 0x80;                                                        \
    }
SAME_ASCII(Py_UCS2)
SAME_ASCII(Py_UCS4)
#undef SAME_ASCII

/* The walk of page_item over one PyUnicode kind (`T`: its code unit type), the tokens
 * read one after the other where they are kept (no joined copy): 1 if the tokens are
 * the text with spaces inserted (their offsets appended), 0 if not, -1 when out of
 * memory. A token of ASCII characters that the text has next is taken whole; any
 * other is read a character at a time (decoded only where it is not ASCII). */
#define PAGE_WALK(T)                                                                        \
    do {                                                                                    \
        const T *t = data;                                                                  \
        for (size_t k = 0; k < n; k++) {                                                    \
            const tb_tok *tok = &b->vocab[b->ids[first + k]];                               \
            const uint8_t *p = (const uint8_t *)b->bytes + tok->off, *end = p + tok->len;   \
            if (k) {  /* the space between two tokens: the text's, or inserted */           \
                if (i < tn && t[i] == ' ') {                                                \
                    utf16++;                                                                \
                    i++;                                                                    \
                } else if (append_offset(offsets, utf16) < 0) {                             \
                    return -1;                                                              \
                }                                                                           \
            }                                                                               \
            if (same_ascii_##T(t + i, (size_t)(tn - i), p, tok->len)) {                     \
                i += (Py_ssize_t)tok->len;                                                  \
                utf16 += (Py_ssize_t)tok->len;                                              \
                continue;                                                                   \
            }                                                                               \
            while (p < end) {                                                               \
                uint32_t cp = *p;                                                           \
                if (cp < 0x80)                                                              \
                    p++;                                                                    \
                else                                                                        \
                    p += tb_utf8_decode(p, (size_t)(end - p), &cp);                         \
                if (i < tn && t[i] == cp) {                                                 \
                    utf16 += sizeof(T) == 4 && cp > 0xFFFF ? 2 : 1;                         \
                    i++;                                                                    \
                } else if (cp == ' ') {                                                     \
                    if (append_offset(offsets, utf16) < 0)                                  \
                        return -1;                                                          \
                } else {                                                                    \
                    return 0;                                                               \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
    } while (0)

/* Appends to `offsets` the UTF-16 offsets into `text` where spaces inserted make
 * line's tokens (the builder's ids[first .. first+n)) joined by single spaces, read
 * greedily (a character equal in both is the text's, any other space of the tokens is
 * inserted): 1 if that makes them, 0 if not, -1 when out of memory. Reads only the
 * str's data (ready, kept alive by the caller): it runs without the GIL. */
static int page_walk(PyObject *text, const tb_builder *b, size_t first, size_t n, offset_list *offsets)
{
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t tn = PyUnicode_GET_LENGTH(text), i = 0;
    Py_ssize_t utf16 = 0;  /* the UTF-16 length of text[0 .. i) */
    if (kind == PyUnicode_1BYTE_KIND)
        PAGE_WALK(Py_UCS1);
    else if (kind == PyUnicode_2BYTE_KIND)
        PAGE_WALK(Py_UCS2);
    else
        PAGE_WALK(Py_UCS4);
    return i == tn;
}

#undef PAGE_WALK

/* page_walk of a line, its offsets left in `offsets` after the other lines': their
 * number (0: the tokens are the text's characters), WALK_JOINED where the item is the
 * joined tokens (nothing appended), WALK_NO_MEMORY. Without the GIL. */
#define WALK_JOINED (-1)
#define WALK_NO_MEMORY (-2)

static int64_t walk_line(PyObject *text, const tb_builder *b, size_t first, size_t n, offset_list *offsets)
{
    const size_t start = offsets->n;
    int found = page_walk(text, b, first, n, offsets);
    if (found < 0)
        return WALK_NO_MEMORY;
    if (!found) {
        offsets->n = start;
        return WALK_JOINED;
    }
    return (int64_t)(offsets->n - start);
}

/* The page's column item of a line (viewer/tokens.py's _page_tokens, its definition)
 * from its walk (walk_line: `walked`, and its offsets `at`) and its tokens (the
 * builder's ids[first .. first+n)): None where the tokens joined by single spaces are
 * the text; the list of UTF-16 offsets into the text before which a space inserted
 * makes them; else the joined tokens as a str (made in `scratch`; "surrogatepass": a
 * lone surrogate of the line comes back as it was). No str of the tokens is made unless
 * it is the item (at 13a, few are). NULL with an exception. */
static PyObject *page_item(const tb_builder *b, size_t first, size_t n, int64_t walked,
                           const Py_ssize_t *at, char **scratch, size_t *cap)
{
    if (walked == 0)  /* (the same characters) */
        return Py_NewRef(Py_None);
    if (walked > 0) {
        PyObject *list = PyList_New((Py_ssize_t)walked);
        for (int64_t k = 0; list && k < walked; k++) {
            PyObject *value = PyLong_FromSsize_t(at[k]);
            if (!value)
                Py_CLEAR(list);
            else
                PyList_SET_ITEM(list, (Py_ssize_t)k, value);
        }
        return list;
    }
    size_t size = joined_bytes(b, first, n, scratch, cap);
    if (size == (size_t)-1)
        return NULL;
    return PyUnicode_DecodeUTF8(*scratch, (Py_ssize_t)size, "surrogatepass");
}

/* tokens_stream(lines, mode, lowercase, vocabulary) -> (column, lengths, ids, size)
 *
 * lines: a list of str or None. column: the page's token column of the lines (per line,
 * page_item: None for None); lengths: bytes, each line's number of tokens as int64 (0
 * for None); ids: bytes, every token's id in `vocabulary` as uint32, line after line;
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
    vocabulary *v = idle_vocabulary(capsule);
    if (!v)
        return NULL;
    tb_builder *b = &v->builder;
    /* the lines as they are now: they are read again after the GIL was released, when
     * the caller's list may have changed (the copy keeps them alive: read in place) */
    PyObject *snapshot = PyList_GetSlice(lines, 0, PyList_GET_SIZE(lines));
    if (!snapshot)
        return NULL;
    size_t n = (size_t)PyList_GET_SIZE(snapshot), present = 0;
    tb_gather texts;
    tb_gather_start(&texts, tb_state_of(module)->lower);
    PyObject *column = NULL, *lengths = NULL, *ids = NULL, *out = NULL;
    char *scratch = NULL;
    size_t scratch_cap = 0;
    offset_list offsets = {NULL, 0, 0};
    int64_t *walked = NULL;  /* each present line's walk_line */
    v->busy = 1;
    if (tb_gather_alloc(&texts, n) < 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        PyObject *line = PyList_GET_ITEM(snapshot, (Py_ssize_t)i);
        if (line == Py_None)
            continue;
        if (!PyUnicode_Check(line)) {
            PyErr_Format(PyExc_TypeError, "segments must be str, got %.200s", Py_TYPE(line)->tp_name);
            goto done;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(line) < 0)  /* (page_walk reads its data without the GIL) */
            goto done;
#endif
        if (tb_gather_set(&texts, present++, line,
                          TB_GATHER_BORROWED | (lowercase ? TB_GATHER_LOWER : 0)) < 0)
            goto done;
    }
    if (!(walked = malloc((present ? present : 1) * sizeof *walked))) {
        PyErr_NoMemory();
        goto done;
    }
    /* the lines' tokens, after the vocabulary's (the previous calls' lines are dropped),
     * then each line's page walk: all without the GIL (the snapshot is this call's own
     * list, its str kept alive by it), so that streams tokenized on several threads run
     * side by side */
    b->nids = b->nseq = 0;
    int rc = 0;
    size_t first = 0;
    Py_BEGIN_ALLOW_THREADS
    for (size_t k = 0; k < present && rc == 0; k++)
        rc = tb_builder_add_line(b, &texts.texts[k], mode);
    for (size_t i = 0, k = 0; i < n && rc == 0; i++) {
        PyObject *text = PyList_GET_ITEM(snapshot, (Py_ssize_t)i);
        if (text == Py_None)
            continue;
        size_t len = b->seq_len[k];
        walked[k] = walk_line(text, b, first, len, &offsets);
        rc = walked[k++] == WALK_NO_MEMORY ? -1 : 0;
        first += len;
    }
    Py_END_ALLOW_THREADS
    if (rc < 0 || b->nvocab >= UINT32_MAX) {
        b->nids = b->nseq = 0;
        PyErr_NoMemory();
        goto done;
    }
    if (!(column = PyList_New((Py_ssize_t)n)) ||
        !(lengths = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * sizeof(int64_t)))) ||
        !(ids = PyBytes_FromStringAndSize((const char *)b->ids, (Py_ssize_t)(b->nids * sizeof(uint32_t)))))
        goto done;
    int64_t *count = (int64_t *)PyBytes_AS_STRING(lengths);
    size_t seq = 0, at = 0;
    first = 0;
    for (size_t i = 0; i < n; i++) {
        PyObject *text = PyList_GET_ITEM(snapshot, (Py_ssize_t)i), *item;
        if (text == Py_None) {
            count[i] = 0;
            item = Py_NewRef(Py_None);
        } else {
            size_t len = b->seq_len[seq];
            int64_t walk = walked[seq++];
            count[i] = (int64_t)len;
            item = page_item(b, first, len, walk, walk > 0 ? offsets.at + at : NULL, &scratch,
                             &scratch_cap);
            first += len;
            at += walk > 0 ? (size_t)walk : 0;
            if (!item)
                goto done;
        }
        PyList_SET_ITEM(column, (Py_ssize_t)i, item);
    }
    out = Py_BuildValue("(OOOn)", column, lengths, ids, (Py_ssize_t)b->nvocab);
done:
    b->nids = b->nseq = 0;
    v->busy = 0;
    free(scratch);
    free(offsets.at);
    free(walked);
    Py_XDECREF(column);
    Py_XDECREF(lengths);
    Py_XDECREF(ids);
    tb_gather_free(&texts);
    Py_DECREF(snapshot);
    return out;
}
