/* truebleu core: placing a line where a tokenizer's scan reads it (internal to text/).
 *
 * 13a and intl read every line as its UTF-8 bytes (whatever its PyUnicode kind,
 * or given as UTF-8): a reference's line written after the vocabulary's bytes,
 * where its tokens stay, a hypothesis's in b->line8; then a ' ' (the sentinel
 * that ends the last word's scan), zeros, and a bitmap of its "plain" bytes,
 * which the scans step over without looking at them.
 */
#ifndef TB_TEXT_LINE_H
#define TB_TEXT_LINE_H

#include "text/vocab.h"  /* (first: it brings Python.h, which must precede the system headers) */

#ifdef TB_HAVE_SSE2
#include <emmintrin.h>
#endif

/* Room for the tokens of a line of n characters at `bytes_per_char` bytes
 * each at most: every token is a run of the line's characters (after the 13a
 * replacements, which only shorten the line), so the tokens of the line have
 * at most n ids and n * bytes_per_char bytes; then the padding read after a
 * token, or written after one copied in whole words. */
static inline int line_room(tb_builder *b, size_t n, size_t bytes_per_char)
{
    /* and the limits of a segment's uint32 counts (the line's new tokens at most n) */
    if (b->nvocab + n >= UINT32_MAX - 1 || b->nbytes + bytes_per_char * n >= UINT32_MAX)
        return -1;
    return tb_grow((void **)&b->bytes, &b->bytes_cap, b->nbytes + bytes_per_char * n + TB_BYTES_PAD, 1) < 0 ||
           GROW(b->ids, b->ids_cap, b->nids + n) < 0 ? -1 : 0;
}

/* The length of the UTF-8 of a non-ASCII whitespace character at p (U+0085,
 * U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), or 0.
 * Reads p[1] and p[2] only when p[0] is a lead byte that needs them. */
static inline size_t utf8_space(const uint8_t *p)
{
    switch (p[0]) {
    case 0xC2:
        return (p[1] == 0x85 || p[1] == 0xA0) ? 2 : 0;
    case 0xE1:
        return (p[1] == 0x9A && p[2] == 0x80) ? 3 : 0;
    case 0xE2:
        if (p[1] == 0x80)
            return ((uint8_t)(p[2] - 0x80) <= 0x0A || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF) ? 3 : 0;
        return (p[1] == 0x81 && p[2] == 0x9F) ? 3 : 0;
    case 0xE3:
        return (p[1] == 0x80 && p[2] == 0x80) ? 3 : 0;
    default:
        return 0;
    }
}

/* Bytes after the sentinel of a line in b->line8, zeros: the 64-byte blocks
 * that hold the line and its sentinel are readable (plain_bits). */
#define LINE8_PAD 64

/* The most bytes the UTF-8 of a line can take (before rstrip): a code point
 * below 0x100 takes 2 at most, one below 0x10000 3, any other 4. */
static inline size_t utf8_bound(const tb_text *t)
{
    static const size_t per_code_point[5] = {1, 2, 3, 3, 4};  /* by kind (TB_KIND_UTF8: the bytes) */
    return per_code_point[t->kind] * t->length;
}

/* Bytes (code points) of a line read, or classified, between two spends of
 * b->poll's budget: a long line's passes before the scan are polled too. */
#define POLL_BYTES 65536

/* text/line.c: the line as UTF-8 into o (room for utf8_bound + 1 + LINE8_PAD
 * bytes), rstripped, then a space (the sentinel) and LINE8_PAD zeros; its
 * length in *len. -1 when b->poll asked to stop. A line given as UTF-8 ends on a
 * whole character in o whatever its bytes (a first byte announcing a character
 * past the end reads as '?'): the scanners never step past the sentinel. */
int tb_read_utf8(tb_builder *b, uint8_t *o, const tb_text *t, size_t *len);

/* Which bytes a tokenizer's scan can step over without looking at them. */
enum plain_kind {
    PLAIN_13A,   /* ASCII letters, digits and the apostrophe: none of them is a space, a 13a
                  * symbol or one of '.', ',', '-' */
    PLAIN_INTL,  /* ASCII letters and digits (the apostrophe is a \p{P}) */
};

/* Bit i of the 16 bits: s[i] is plain for the kind (a constant at every call,
 * so each tokenizer gets its own classifier). */
static TB_ALWAYS_INLINE unsigned plain16(const uint8_t *s, enum plain_kind kind)
{
#ifdef TB_HAVE_SSE2
    const __m128i case_bit = _mm_set1_epi8(0x20), a_shift = _mm_set1_epi8((char)(0x80 - 'a')),
                  a_limit = _mm_set1_epi8((char)(-128 + 26)), d_shift = _mm_set1_epi8((char)(0x80 - '0')),
                  d_limit = _mm_set1_epi8((char)(-128 + 10));
    __m128i v = _mm_loadu_si128((const __m128i *)s);
    /* x + (0x80 - lo) < -128 + (hi - lo + 1) as signed bytes: lo <= x <= hi */
    __m128i letter = _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(v, case_bit), a_shift), a_limit);
    __m128i digit = _mm_cmplt_epi8(_mm_add_epi8(v, d_shift), d_limit);
    __m128i plain = _mm_or_si128(letter, digit);
    if (kind == PLAIN_13A)
        plain = _mm_or_si128(plain, _mm_cmpeq_epi8(v, _mm_set1_epi8('\'')));
    return (unsigned)_mm_movemask_epi8(plain);
#else
    unsigned m = 0;
    for (int i = 0; i < 16; i++) {
        uint8_t c = s[i];
        m |= (unsigned)((uint8_t)((c | 0x20) - 'a') < 26 || (uint8_t)(c - '0') < 10 ||
                        (kind == PLAIN_13A && c == '\'')) << i;
    }
    return m;
#endif
}

/* b->plain: bit i (of word i / 64) set when s[i] is plain, for every 64-byte
 * block up to the sentinel's (s[n]), and for the bytes after the sentinel (so
 * that it is the last byte that is not plain: no scan looks past it). 0, or -1:
 * out of memory or b->poll asked to stop. */
static TB_ALWAYS_INLINE int plain_bits(tb_builder *b, const uint8_t *s, size_t n, enum plain_kind kind)
{
    size_t words = (n + 1 + 63) / 64;
    if (GROW(b->plain, b->plain_cap, words) < 0)
        return -1;
    for (size_t q = 0; q < words; q++, s += 64) {
        b->plain[q] = (uint64_t)plain16(s, kind) | (uint64_t)plain16(s + 16, kind) << 16 |
                      (uint64_t)plain16(s + 32, kind) << 32 | (uint64_t)plain16(s + 48, kind) << 48;
        if (q % (POLL_BYTES / 64) == POLL_BYTES / 64 - 1 && tb_poll_spend(b->poll, POLL_BYTES))
            return -1;  /* (a long line) */
    }
    b->plain[words - 1] |= ~1ull << (n & 63);  /* the bytes after the sentinel count as plain */
    return 0;
}

/* The index of the first byte at or after j that is not plain (the sentinel's at most). */
static TB_ALWAYS_INLINE size_t next_other(const uint64_t *plain, size_t j)
{
    size_t q = j >> 6;
    uint64_t w = ~plain[q] >> (j & 63);
    if (w)
        return j + (size_t)TB_CTZ64(w);
    while (!~plain[++q])
        ;
    return (q << 6) + (size_t)TB_CTZ64(~plain[q]);
}

/* A line's UTF-8 where its scan reads it, and what the scan needs: a
 * reference's line is written after the vocabulary's bytes and stays there (its
 * tokens are kept where they lie, no copy); a hypothesis's goes to b->line8.
 * Then its plain bits (of the kind), and room for its ids and vocabulary
 * entries, so that b->bytes does not move during the scan. The line's start
 * (its length in *n), or NULL: out of memory or b->poll asked to stop. */
static TB_ALWAYS_INLINE uint8_t *place_line(tb_builder *b, const tb_text *t, enum plain_kind kind,
                                         size_t *n)
{
    size_t room = utf8_bound(t) + 1 + LINE8_PAD;
    int kept = b->lookup == NULL;
    uint8_t *s;
    if (kept) {
        if (tb_grow((void **)&b->bytes, &b->bytes_cap, b->nbytes + room, 1) < 0)
            return NULL;
        s = (uint8_t *)b->bytes + b->nbytes;
    } else {
        if (tb_grow((void **)&b->line8, &b->line8_cap, room, 1) < 0)
            return NULL;
        s = b->line8;
    }
    if (tb_read_utf8(b, s, t, n) < 0 || plain_bits(b, s, *n, kind) < 0 || line_room(b, *n, 1) < 0 ||
        (kept && GROW(b->vocab, b->vocab_cap, b->nvocab + *n) < 0))
        return NULL;
    return s;
}

/* The tokenizers (each appends one line to b as a new sequence; 0, or -1: out
 * of memory or b->poll asked to stop): */
int tb_tokenize_13a(tb_builder *b, const tb_text *t);                         /* text/tok_13a.c */
int tb_tokenize_intl(tb_builder *b, const tb_text *t);                        /* text/tok_intl.c */
/* none, zh, char on an ASCII line s[0..n) (s[n] is a space), or on code points (text/tok_simple.c) */
int tb_tokenize_ascii(tb_builder *b, const uint8_t *s, size_t n, int mode);
int tb_tokenize_code_points(tb_builder *b, const uint32_t *s, size_t n, int mode);

#endif
