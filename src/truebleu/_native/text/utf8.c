/* UTF-8 text read as bytes: the command line's reader hands blocks of a file to
 * the core without ever making a Python str of a line.
 *
 * What Python's strict "utf-8" decoder accepts is exactly what tb_utf8_scan
 * accepts (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF),
 * including its rule for a character cut by the end of a block: a prefix that
 * can still become a valid character is left for the next block, anything else
 * is an error at once. The messages of errors are Python's own: the reader
 * decodes the failing block again with Python's codec, so only the decision
 * (valid or not, and where) has to be made here.
 */
#include "text/classes.h"  /* (first: it brings Python.h, for Py_UNICODE_ISSPACE) */
#include "text/text.h"

#include <string.h>
#ifdef TB_HAVE_SSE2
#include <emmintrin.h>
#endif

/* Length of the valid character starting at d[0] (1-4), 0 when d[0 .. n) is an
 * unfinished but so far valid prefix of one, -1 when the bytes are invalid. */
static int utf8_sequence(const uint8_t *d, size_t n)
{
    uint8_t c = d[0];
    int len;
    uint8_t lo = 0x80, hi = 0xBF;  /* the range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;          /* overlong */
        else if (c == 0xED)
            hi = 0x9F;          /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;          /* overlong */
        else if (c == 0xF4)
            hi = 0x8F;          /* above U+10FFFF */
    } else {
        return -1;              /* a continuation byte, C0/C1 or F5-FF */
    }
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n)
            return 0;
        uint8_t b = d[i];
        if (i == 1 && c == 0xED && n == 2 && (b & 0xC0) == 0x80)
            return 0;  /* as CPython: a surrogate's first two bytes at the end wait for the third */
        if (i == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80)
            return -1;
    }
    return len;
}

#ifdef TB_HAVE_SSE2
/* The bytes from d[0] while they are ASCII, 64 at a time: how many (a multiple of 64,
 * at most n), their newlines added to *newlines. Text is mostly ASCII: this is the
 * reader's pass over nearly every byte. Newlines are counted per byte lane (pcmpeqb
 * gives -1 per match, subtracted) and summed (psadbw) before a lane can overflow. */
static size_t ascii_run(const uint8_t *d, size_t n, size_t *newlines)
{
    const __m128i newline = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    size_t i = 0;
    while (i + 64 <= n) {
        /* each lane gains at most 4 per round: 63 rounds fit a byte */
        size_t rounds = (n - i) / 64 < 63 ? (n - i) / 64 : 63, round = 0;
        __m128i lanes = zero;
        for (; round < rounds; round++, i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(d + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(d + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(d + i + 32));
            __m128i e = _mm_loadu_si128((const __m128i *)(d + i + 48));
            if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, e))))
                break;  /* a byte >= 0x80 in these 64: the caller goes on from i */
            lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(a, newline));
            lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(b, newline));
            lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(c, newline));
            lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(e, newline));
        }
        __m128i sums = _mm_sad_epu8(lanes, zero);  /* two 16-bit sums, in 64-bit halves */
        *newlines += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
        if (round < rounds)
            break;
    }
    return i;
}
#endif

void tb_utf8_scan(const uint8_t *d, size_t n, tb_utf8_scan_result *r)
{
    size_t i = 0, chars = 0, newlines = 0;
    r->error = 0;
    while (i < n) {
#ifdef TB_HAVE_SSE2
        if (i + 16 <= n) {  /* sixteen bytes at a time while they are ASCII */
            __m128i v = _mm_loadu_si128((const __m128i *)(d + i));
            unsigned high = (unsigned)_mm_movemask_epi8(v);
            unsigned nl = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
            unsigned ascii = high ? (unsigned)TB_CTZ32(high) : 16;  /* ASCII bytes first */
            for (nl &= ascii == 16 ? 0xFFFFu : (1u << ascii) - 1; nl; nl &= nl - 1)
                newlines++;  /* mostly none: a line is about ten of these blocks */
            chars += ascii;
            i += ascii;
            if (ascii == 16) {  /* an ASCII stretch: on with 64 at a time */
                size_t run = ascii_run(d + i, n - i, &newlines);
                chars += run;
                i += run;
                continue;
            }
        }
#endif
        if (d[i] < 0x80) {
            newlines += d[i] == '\n';
            chars++;
            i++;
            continue;
        }
        int len = utf8_sequence(d + i, n - i);
        if (len <= 0) {
            r->error = len < 0;
            break;
        }
        chars++;
        i += (size_t)len;
    }
    r->valid = i;
    r->chars = chars;
    r->newlines = newlines;
}

/* Characters of valid UTF-8: the bytes that are not continuation bytes. */
size_t tb_utf8_chars(const uint8_t *d, size_t n)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; i++)
        chars += (d[i] & 0xC0) != 0x80;
    return chars;
}

long tb_utf8_first_long_line(const uint8_t *d, size_t n, size_t first_chars, size_t limit)
{
    size_t chars = first_chars;
    long line = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == '\n') {
            if (chars > limit)
                return line;
            line++;
            chars = 0;
        } else {
            chars += (d[i] & 0xC0) != 0x80;
        }
    }
    return -1;
}

size_t tb_utf8_rstrip(const uint8_t *d, size_t n)
{
    while (n > 0) {
        uint8_t c = d[n - 1];
        if (c < 0x80) {
            if (!Py_UNICODE_ISSPACE(c))
                break;
            n--;
            continue;
        }
        size_t start = n - 1;  /* back to the lead byte (valid UTF-8: at most 3 back) */
        while (start > 0 && n - start < 4 && (d[start] & 0xC0) == 0x80)
            start--;
        uint32_t cp;
        tb_utf8_decode(d + start, n - start, &cp);
        if (!Py_UNICODE_ISSPACE((Py_UCS4)cp))
            break;
        n = start;
    }
    return n;
}
