/* truebleu core: placing a line where a tokenizer's scan reads it (internal to text/).
 *
 * 13a and intl read every line as its UTF-8 bytes (whatever its PyUnicode kind,
 * or given as UTF-8): a reference's line written after the vocabulary's bytes,
 * where its tokens stay, a hypothesis's in b->line8; then a ' ' (the sentinel
 * that ends the last word's scan), zeros, and a bitmap of the bytes that are
 * not "plain": the scans step over the others without looking at them.
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
 * that hold the line and its sentinel are readable (other_bits). */
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

/* d[0..n) (n >= 16) to o if it is ASCII, and 1; else 0, o's bytes undefined.
 * The commonest line, kind 1 and ASCII, is its own UTF-8: one pass of plain
 * loads and stores, the high bits or-ed aside, instead of encode_utf8's test
 * and branch per block (the last block is read overlapping the one before). */
static TB_ALWAYS_INLINE int copy_if_ascii(uint8_t *o, const uint8_t *d, size_t n)
{
    size_t i = 0;
#ifdef TB_HAVE_SSE2
    __m128i high = _mm_loadu_si128((const __m128i *)(d + n - 16));
    _mm_storeu_si128((__m128i *)(o + n - 16), high);
    for (; i + 32 <= n; i += 32) {
        __m128i v = _mm_loadu_si128((const __m128i *)(d + i)), w = _mm_loadu_si128((const __m128i *)(d + i + 16));
        high = _mm_or_si128(high, _mm_or_si128(v, w));
        _mm_storeu_si128((__m128i *)(o + i), v);
        _mm_storeu_si128((__m128i *)(o + i + 16), w);
    }
    if (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(d + i));
        high = _mm_or_si128(high, v);
        _mm_storeu_si128((__m128i *)(o + i), v);
    }
    return _mm_movemask_epi8(high) == 0;
#else
    uint64_t high = load_word(d + n - 8);
    memcpy(o + n - 8, d + n - 8, 8);
    for (; i + 8 <= n; i += 8) {
        uint64_t w = load_word(d + i);
        high |= w;
        memcpy(o + i, &w, 8);
    }
    return !(high & 0x8080808080808080ull);
#endif
}

/* tb_read_utf8, the commonest line first: kind 1, ASCII, not lowercased, is
 * its own UTF-8, copied in one pass without a call (rstrip: ASCII whitespace). */
static TB_ALWAYS_INLINE int read_line(tb_builder *b, uint8_t *o, const tb_text *t, size_t *len)
{
    size_t n = t->length;
    if (t->kind != 1 || t->ascii_lower || n < 16 || n > POLL_BYTES || !copy_if_ascii(o, t->data, n))
        return tb_read_utf8(b, o, t, len);
    while (n > 0 && (ascii_class[o[n - 1]] & A_SPACE))  /* line.rstrip() */
        n--;
    o[n] = ' ';
    memset(o + n + 1, 0, LINE8_PAD);
    *len = n;
    return 0;
}

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

/* b->other: bit i (of word i / 64) set when s[i] is not plain, for every
 * 64-byte block up to the sentinel's (s[n]), and clear for the bytes after the
 * sentinel (so that it is the last byte a scan looks at: none looks past it).
 * Kept as the bytes that are not plain, the bits a scan looks for, so that
 * next_other, at every word, takes them as they are. 0, or -1: out of memory
 * or b->poll asked to stop. */
static TB_ALWAYS_INLINE int other_bits(tb_builder *b, const uint8_t *s, size_t n, enum plain_kind kind)
{
    size_t words = n / 64 + 1, q = 0;  /* (the last holds the sentinel) */
    if (GROW(b->other, b->other_cap, words) < 0)
        return -1;
    while (q + 1 < words) {  /* the whole blocks before the sentinel's, polled every POLL_BYTES */
        size_t end = words - 1 - q > POLL_BYTES / 64 ? q + POLL_BYTES / 64 : words - 1;
        for (; q < end; q++, s += 64)
            b->other[q] = ~((uint64_t)plain16(s, kind) | (uint64_t)plain16(s + 16, kind) << 16 |
                            (uint64_t)plain16(s + 32, kind) << 32 | (uint64_t)plain16(s + 48, kind) << 48);
        if (q % (POLL_BYTES / 64) == 0 && tb_poll_spend(b->poll, POLL_BYTES))
            return -1;  /* (a long line) */
    }
    /* the sentinel's block up to the 16 bytes that hold it (the rest counts as plain) */
    uint64_t w = plain16(s, kind);
    if ((n & 63) >= 16) {
        w |= (uint64_t)plain16(s + 16, kind) << 16;
        if ((n & 63) >= 32) {
            w |= (uint64_t)plain16(s + 32, kind) << 32;
            if ((n & 63) >= 48)
                w |= (uint64_t)plain16(s + 48, kind) << 48;
        }
    }
    b->other[q] = ~(w | ~1ull << (n & 63));  /* the bytes after the sentinel count as plain */
    return 0;
}

/* The index of the first byte at or after j that is not plain (the sentinel's at most). */
static TB_ALWAYS_INLINE size_t next_other(const uint64_t *other, size_t j)
{
    size_t q = j >> 6;
    uint64_t w = other[q] >> (j & 63);
    if (w)
        return j + (size_t)TB_CTZ64(w);
    while (!other[++q])
        ;
    return (q << 6) + (size_t)TB_CTZ64(other[q]);
}

/* A line's UTF-8 where its scan reads it, and what the scan needs: a
 * reference's line is written after the vocabulary's bytes and stays there (its
 * tokens are kept where they lie, no copy); a hypothesis's goes to b->line8.
 * Then the bits of its bytes that are not plain (of the kind), and room for
 * its ids and vocabulary entries, so that b->bytes does not move during the
 * scan. The line's start
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
    if (read_line(b, s, t, n) < 0 || other_bits(b, s, *n, kind) < 0)
        return NULL;
    if (kept ? line_room(b, *n, 1) < 0 || GROW(b->vocab, b->vocab_cap, b->nvocab + *n) < 0
             : GROW(b->ids, b->ids_cap, b->nids + *n) < 0)  /* (a hypothesis adds ids only) */
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
