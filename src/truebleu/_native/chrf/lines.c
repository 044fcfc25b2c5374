/* chrF's reading of a line (chrf/lines.h): PyUnicode storage of 1, 2 or 4 bytes a
 * code point (tb_text.kind). Whitespace is Py_UNICODE_ISSPACE,
 * as str.split() sees it; punctuation is string.punctuation. */
#include "text/classes.h"  /* (first: it brings Python.h, for Py_UNICODE_ISSPACE) */
#include "chrf/lines.h"

#include <stdlib.h>
#include <string.h>

/* string.punctuation, !"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~: 1 at its ASCII code points (a
 * table, not bit masks: one compare and one load where a word ends) */
static const unsigned char PUNCT[128] = {
    ['!'] = 1, ['"'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['('] = 1,
    [')'] = 1, ['*'] = 1, ['+'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1, ['/'] = 1, [':'] = 1,
    [';'] = 1, ['<'] = 1, ['='] = 1, ['>'] = 1, ['?'] = 1, ['@'] = 1, ['['] = 1, ['\\'] = 1,
    [']'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['{'] = 1, ['|'] = 1, ['}'] = 1, ['~'] = 1,
};

static inline int is_punct(uint32_t c)
{
    return c < 128 && PUNCT[c];
}

static int push_word(chrf_side *s, uint32_t start, uint32_t len)
{
    if (GROW(s->words, s->words_cap, s->nwords + 1) < 0)
        return -1;
    s->words[s->nwords].start = start;
    s->words[s->nwords].len = len;
    s->nwords++;
    return 0;
}

/* tb_chrf_hash_run, a step at a time (tb_chrf_symbols_words hashes words as it reads them) */
#define HASH_SEED 0x243F6A8885A308D3ULL

static inline uint64_t hash_step(uint64_t h, uint32_t x)
{
    return (h ^ x) * 0x9E3779B97F4A7C15ULL;
}

static inline uint32_t hash_final(uint64_t h)
{
    return (uint32_t)(h ^ (h >> 32));
}

uint32_t tb_chrf_hash_run(const uint32_t *p, uint32_t n)
{
    uint64_t h = HASH_SEED;
    for (uint32_t k = 0; k < n; k++)
        h = hash_step(h, p[k]);
    return hash_final(h);
}

/* The characters of t (of type T: its PyUnicode kind) into s->chars (whitespace
 * dropped unless kept) if `chars` and, for chrF++'s words, into s->all. One loop per
 * kind, so that the kind is not tested per character. */
#define DECODE_LOOP(T)                                                  \
    do {                                                                \
        const T *d = (const T *)t->data;                                \
        uint32_t *chars_out = s->chars.a, *all = s->all.a;              \
        if (words && !chars) {                                          \
            for (size_t i = 0; i < n; i++)                              \
                all[i] = d[i];                                          \
        } else if (words) {                                             \
            for (size_t i = 0; i < n; i++) {                            \
                uint32_t c = d[i];                                      \
                all[i] = c;                                             \
                chars_out[nc] = c;                                      \
                nc += whitespace || !Py_UNICODE_ISSPACE(c);             \
            }                                                           \
        } else if (whitespace) {                                        \
            for (size_t i = 0; i < n; i++)                              \
                chars_out[i] = d[i];                                    \
            nc = n;                                                     \
        } else {                                                        \
            for (size_t i = 0; i < n; i++) {                            \
                uint32_t c = d[i];                                      \
                chars_out[nc] = c;                                      \
                nc += !Py_UNICODE_ISSPACE(c);                           \
            }                                                           \
        }                                                               \
    } while (0)

/* A code point's entry in tb_chrf_symbols' map, the first time the line's segment meets
 * it: id 0 for dropped whitespace, else the next id; 0 when the ids ran out. */
static uint32_t new_symbol(uint32_t c, int whitespace, uint32_t tag, uint32_t *next)
{
    if (!whitespace && Py_UNICODE_ISSPACE(c))
        return tag;
    if (*next >= 0xFFFFu)
        return 0;
    return tag | ++*next;
}

/* (an entry numbered under `tag` is tag + id: e - tag is the id, and above 0xFFFF when
 * the entry is older) */
#define SYMBOLS_LOOP(T)                                                 \
    do {                                                                \
        const T *restrict d = (const T *)t->data;                       \
        for (size_t i = 0; i < len; i++) {                              \
            uint32_t c = d[i], id = map[c] - tag;                       \
            if (id > 0xFFFFu) {                                         \
                uint32_t e = new_symbol(c, whitespace, tag, next);      \
                if (!e)                                                 \
                    return 0;                                           \
                map[c] = e;                                             \
                id = e - tag;                                           \
            }                                                           \
            out[k] = id;                                                \
            k += id != 0;                                               \
        }                                                               \
    } while (0)

int tb_chrf_symbols(const tb_text *t, int whitespace, uint32_t *restrict map, uint32_t tag,
                    uint32_t *restrict next, uint32_t *restrict out, size_t *n)
{
    size_t k = 0, len = t->length;
    *n = 0;
    switch (t->kind) {
    case 1: SYMBOLS_LOOP(uint8_t); break;
    case 2: SYMBOLS_LOOP(uint16_t); break;
    default: return 0;  /* astral code points: no symbol ids */
    }
    *n = k;
    return 1;
}

/* The word out[start .. end) (end > start) into words[nw ..] and its hash into
 * hashes[nw ..], split as tb_chrf_decode splits words, given its first and last code
 * points and the running hashes of all its ids (whole) and of all but the last (prefix);
 * the new count of words. */
static inline size_t end_word(const uint32_t *out, uint32_t start, uint32_t end, uint32_t first,
                              uint32_t last, uint64_t whole, uint64_t prefix,
                              chrf_span *restrict words, uint32_t *restrict hashes, size_t nw)
{
    uint32_t len = end - start;
    if (len > 1 && is_punct(last)) {
        words[nw].start = start;
        words[nw].len = len - 1;
        hashes[nw++] = hash_final(prefix);
        words[nw].start = end - 1;
        words[nw].len = 1;
        hashes[nw++] = hash_final(hash_step(HASH_SEED, out[end - 1]));
    } else if (len > 1 && is_punct(first)) {
        words[nw].start = start;
        words[nw].len = 1;
        hashes[nw++] = hash_final(hash_step(HASH_SEED, out[start]));
        words[nw].start = start + 1;
        words[nw].len = len - 1;
        hashes[nw++] = tb_chrf_hash_run(out + start + 1, len - 1);
    } else {
        words[nw].start = start;
        words[nw].len = len;
        hashes[nw++] = hash_final(whole);
    }
    return nw;
}

/* id: the symbol id of code point c (0: whitespace), numbered if new (tb_chrf_symbols_words
 * returns 0 when the ids ran out) */
#define SYMBOL_OF(c, id)                                                                \
    do {                                                                                \
        id = map[c] - tag;                                                              \
        if (id > 0xFFFFu) {                                                             \
            uint32_t e_ = new_symbol(c, 0, tag, next);                                  \
            if (!e_)                                                                    \
                return 0;                                                               \
            map[c] = e_;                                                                \
            id = e_ - tag;                                                              \
        }                                                                               \
    } while (0)

/* SYMBOLS_LOOP with whitespace dropped: an outer loop over whitespace, an inner one over a
 * word's characters, which hashes them as it goes */
#define SYMBOLS_WORDS_LOOP(T)                                                           \
    do {                                                                                \
        const T *restrict d = (const T *)t->data;                                       \
        size_t i = 0;                                                                   \
        while (i < len) {                                                               \
            uint32_t c = d[i], id;                                                      \
            SYMBOL_OF(c, id);                                                           \
            i++;                                                                        \
            if (id == 0)                                                                \
                continue; /* whitespace between words */                                \
            uint32_t start = (uint32_t)k, first = c;                                    \
            uint64_t whole = HASH_SEED, prefix;                                         \
            for (;;) {                                                                  \
                prefix = whole;                                                         \
                whole = hash_step(whole, id);                                           \
                out[k++] = id;                                                          \
                if (i == len)                                                           \
                    break;                                                              \
                c = d[i];                                                               \
                SYMBOL_OF(c, id);                                                       \
                if (id == 0)                                                            \
                    break;                                                              \
                i++;                                                                    \
            }                                                                           \
            /* d[i - 1] is the word's last character; d[i], if any, whitespace */       \
            nw = end_word(out, start, (uint32_t)k, first, d[i - 1], whole, prefix, words, \
                          hashes, nw);                                                  \
            i++;                                                                        \
        }                                                                               \
    } while (0)

int tb_chrf_symbols_words(const tb_text *t, uint32_t *restrict map, uint32_t tag,
                          uint32_t *restrict next, uint32_t *restrict out, size_t *n,
                          chrf_span *restrict words, uint32_t *restrict hashes, size_t *nwords)
{
    size_t k = 0, nw = 0, len = t->length;
    *n = *nwords = 0;
    if (len >= UINT32_MAX)
        return 0;  /* (tb_chrf_decode refuses it) */
    switch (t->kind) {
    case 1: SYMBOLS_WORDS_LOOP(uint8_t); break;
    case 2: SYMBOLS_WORDS_LOOP(uint16_t); break;
    default: return 0;  /* astral code points: no symbol ids */
    }
    *n = k;
    *nwords = nw;
    return 1;
}

int tb_chrf_decode(chrf_side *s, const tb_text *t, int whitespace, int words, int chars)
{
    size_t n = t->length;
    s->all.n = s->chars.n = 0;
    s->nwords = 0;
    if (n >= UINT32_MAX)
        return -1;
    if ((chars && GROW(s->chars.a, s->chars.cap, n) < 0) ||
        (words && GROW(s->all.a, s->all.cap, n) < 0))
        return -1;
    size_t nc = 0;
    switch (t->kind) {
    case 1: DECODE_LOOP(uint8_t); break;
    case 2: DECODE_LOOP(uint16_t); break;
    default: DECODE_LOOP(uint32_t); break;
    }
    s->all.n = words ? n : 0;
    s->chars.n = nc;
    if (!words)
        return 0;
    const uint32_t *a = s->all.a;
    size_t i = 0;
    while (i < n) {
        while (i < n && Py_UNICODE_ISSPACE(a[i]))
            i++;
        if (i >= n)
            break;
        size_t start = i;
        while (i < n && !Py_UNICODE_ISSPACE(a[i]))
            i++;
        uint32_t len = (uint32_t)(i - start);
        int rc;
        if (len > 1 && is_punct(a[start + len - 1]))
            rc = push_word(s, (uint32_t)start, len - 1) | push_word(s, (uint32_t)(start + len - 1), 1);
        else if (len > 1 && is_punct(a[start]))
            rc = push_word(s, (uint32_t)start, 1) | push_word(s, (uint32_t)start + 1, len - 1);
        else
            rc = push_word(s, (uint32_t)start, len);
        if (rc < 0)
            return -1;
    }
    return 0;
}

void tb_chrf_side_free(chrf_side *s)
{
    free(s->all.a);
    free(s->chars.a);
    free(s->words);
    free(s->ids);
    memset(s, 0, sizeof(*s));
}

size_t tb_chrf_side_footprint(const chrf_side *s)
{
    return (s->all.cap + s->chars.cap + s->ids_cap) * sizeof(uint32_t) + s->words_cap * sizeof(chrf_span);
}
