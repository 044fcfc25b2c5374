/* chrF's reading of a line (chrf/lines.h): PyUnicode storage of 1, 2 or 4 bytes a
 * code point (tb_text.kind). Whitespace is Py_UNICODE_ISSPACE,
 * as str.split() sees it; punctuation is string.punctuation. */
#include "text/classes.h"  /* (first: it brings Python.h, for Py_UNICODE_ISSPACE) */
#include "chrf/lines.h"

#include <stdlib.h>
#include <string.h>

/* string.punctuation, !"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~: 1 at its ASCII code points (a
 * table, not bit masks: one compare and one load where a word ends; 256 entries, so that
 * for a line of one byte a code point the compiler drops the compare) */
static const unsigned char PUNCT[256] = {
    ['!'] = 1, ['"'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['('] = 1,
    [')'] = 1, ['*'] = 1, ['+'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1, ['/'] = 1, [':'] = 1,
    [';'] = 1, ['<'] = 1, ['='] = 1, ['>'] = 1, ['?'] = 1, ['@'] = 1, ['['] = 1, ['\\'] = 1,
    [']'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['{'] = 1, ['|'] = 1, ['}'] = 1, ['~'] = 1,
};

static inline int is_punct(uint32_t c)
{
    return c < 256 && PUNCT[c];
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

/* The word a[start .. start + len), with its hash. */
static inline chrf_span span_of(const uint32_t *a, uint32_t start, uint32_t len)
{
    chrf_span w = {start, len, tb_chrf_hash_run(a + start, len)};
    return w;
}

/* Where a word of a (spans of a, the symbols or code points it was read from), already
 * in *w, ends: chrF++ splits one punctuation mark (string.punctuation) off the end, else
 * off the start, of a word longer than one character. One rule for both readers
 * (tb_chrf_symbols_words, tb_chrf_decode). The next free span. */
static inline chrf_span *split_word(const uint32_t *a, chrf_span *w, uint32_t first, uint32_t last)
{
    uint32_t start = w->start, len = w->len;
    if (len < 2)
        return w + 1;
    if (is_punct(last)) {
        w[0] = span_of(a, start, len - 1);
        w[1] = span_of(a, start + len - 1, 1);
        return w + 2;
    }
    if (is_punct(first)) {
        w[0] = span_of(a, start, 1);
        w[1] = span_of(a, start + 1, len - 1);
        return w + 2;
    }
    return w + 1;
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
 * word's characters, which hashes them as it goes (a word that split_word splits is
 * hashed again there, about one in eight). A word's characters are consecutive in d, one
 * id each in out, so its first is found again at its end (d[i - its length]) rather than
 * kept in a register through the inner loop. */
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
            size_t start = k;                                                           \
            uint64_t whole = HASH_SEED;                                                 \
            for (;;) {                                                                  \
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
            w->start = (uint32_t)start;                                                 \
            w->len = (uint32_t)(k - start);                                             \
            w->hash = hash_final(whole);                                                \
            w = split_word(out, w, d[i - (k - start)], d[i - 1]);                       \
            i++;                                                                        \
        }                                                                               \
    } while (0)

int tb_chrf_symbols_words(const tb_text *t, uint32_t *restrict map, uint32_t tag,
                          uint32_t *restrict next, uint32_t *restrict out, size_t *n,
                          chrf_span *restrict words, size_t *nwords)
{
    size_t k = 0, len = t->length;
    chrf_span *w = words;
    *n = *nwords = 0;
    if (len >= UINT32_MAX)
        return 0;  /* (tb_chrf_decode refuses it) */
    switch (t->kind) {
    case 1: SYMBOLS_WORDS_LOOP(uint8_t); break;
    case 2: SYMBOLS_WORDS_LOOP(uint16_t); break;
    default: return 0;  /* astral code points: no symbol ids */
    }
    *n = k;
    *nwords = (size_t)(w - words);
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
    if (GROW(s->words, s->words_cap, n ? n : 1) < 0)  /* (at most one word a code point) */
        return -1;
    const uint32_t *a = s->all.a;
    chrf_span *w = s->words;
    size_t i = 0;
    while (i < n) {
        while (i < n && Py_UNICODE_ISSPACE(a[i]))
            i++;
        if (i >= n)
            break;
        size_t start = i;
        while (i < n && !Py_UNICODE_ISSPACE(a[i]))
            i++;
        *w = span_of(a, (uint32_t)start, (uint32_t)(i - start));
        w = split_word(a, w, a[start], a[i - 1]);
    }
    s->nwords = (size_t)(w - s->words);
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
