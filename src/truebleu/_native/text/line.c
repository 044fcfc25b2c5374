/* truebleu core: any line as UTF-8 bytes, for the byte scanners of 13a and intl
 * (see text/line.h): PyUnicode storage of any kind encoded, UTF-8 copied,
 * ASCII lowercased where asked, trailing whitespace stripped (str.rstrip()). */
#include "text/line.h"

/* The length of s[0..n) without its trailing whitespace (line.rstrip()). */
static size_t utf8_rstrip(const uint8_t *s, size_t n)
{
    for (;;) {
        if (n > 0 && s[n - 1] < 0x80) {
            if (!(ascii_class[s[n - 1]] & A_SPACE))
                return n;
            n--;
        } else if (n >= 2 && utf8_space(s + n - 2) == 2) {
            n -= 2;
        } else if (n >= 3 && utf8_space(s + n - 3) == 3) {
            n -= 3;
        } else {
            return n;
        }
    }
}

/* d[0..n) to o, lowercasing A-Z if asked (o may not overlap d). */
static void copy_ascii_lower(uint8_t *o, const uint8_t *d, size_t n, int lower)
{
    if (!lower) {
        memcpy(o, d, n);
        return;
    }
    size_t i = 0;
#ifdef TB_HAVE_SSE2
    const __m128i shift = _mm_set1_epi8((char)(0x80 - 'A')), limit = _mm_set1_epi8((char)(-128 + 26)),
                  case_bit = _mm_set1_epi8(0x20);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(d + i));
        __m128i upper = _mm_cmplt_epi8(_mm_add_epi8(v, shift), limit);  /* v in 'A'..'Z' */
        _mm_storeu_si128((__m128i *)(o + i), _mm_or_si128(v, _mm_and_si128(upper, case_bit)));
    }
#endif
    for (; i < n; i++)
        o[i] = d[i] + ((uint8_t)(d[i] - 'A') < 26 ? 32 : 0);
}

/* UTF-8 of n code points of PyUnicode kind 1, 2 or 4 into o (room for 4n
 * bytes); returns its length. ASCII runs are narrowed 16 (8) at a time. */
static size_t encode_utf8(uint8_t *o, const void *data, size_t n, int kind)
{
    size_t k = 0, i = 0;
    if (kind == 1) {
        const uint8_t *d = data;
#ifdef TB_HAVE_SSE2
        for (; i + 16 <= n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(d + i));
            if (_mm_movemask_epi8(v) == 0) {
                _mm_storeu_si128((__m128i *)(o + k), v);
                k += 16;
            } else {
                for (size_t e = i + 16, j = i; j < e; j++)
                    k += utf8_put((char *)o + k, d[j]);
            }
        }
        if (k == i && i < n && n >= 16) {  /* ASCII so far: the last 16 at once if ASCII (overlapping) */
            __m128i v = _mm_loadu_si128((const __m128i *)(d + n - 16));
            if (_mm_movemask_epi8(v) == 0) {
                _mm_storeu_si128((__m128i *)(o + n - 16), v);
                return n;
            }
        }
#endif
        if (i + 8 <= n && !(load_word(d + i) & 0x8080808080808080ull)) {  /* 8 ASCII characters */
            memcpy(o + k, d + i, 8);
            i += 8;
            k += 8;
        }
        for (; i < n; i++)
            k += utf8_put((char *)o + k, d[i]);
    } else if (kind == 2) {
        const uint16_t *d = data;
#ifdef TB_HAVE_SSE2
        const __m128i high = _mm_set1_epi16((short)0xFF80), zero = _mm_setzero_si128();
        for (; i + 8 <= n; i += 8) {
            __m128i v = _mm_loadu_si128((const __m128i *)(d + i));
            if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, high), zero)) == 0xFFFF) {
                _mm_storel_epi64((__m128i *)(o + k), _mm_packus_epi16(v, v));
                k += 8;
            } else {
                for (size_t e = i + 8, j = i; j < e; j++)
                    k += utf8_put((char *)o + k, d[j]);
            }
        }
#endif
        for (; i < n; i++)
            k += utf8_put((char *)o + k, d[i]);
    } else {
        const uint32_t *d = data;
        for (; i < n; i++)
            k += utf8_put((char *)o + k, d[i]);
    }
    return k;
}

/* A line given as UTF-8 (TB_KIND_UTF8) is a caller's buffer read without the GIL: the
 * reader checked it in an earlier call, and another thread may have written it since (or a
 * caller passed bytes that are not UTF-8). The scanners read this copy, and step over a
 * character by the length its first byte announces (tb_utf8_decode): a first byte in the
 * last three whose character would end past the line would take them past the sentinel,
 * out of the line (the intl scan then read and wrote outside its buffers). Such a byte is
 * read as '?': the copy is checked where the scanners read it, and a change of the
 * caller's bytes spoils counts, never memory. Valid UTF-8 has no such byte. */
static TB_ALWAYS_INLINE void end_on_whole_character(uint8_t *o, size_t k)
{
    if (k >= 3 && !((o[k - 1] | o[k - 2] | o[k - 3]) & 0x80))
        return;  /* (the commonest end: ASCII) */
    for (size_t p = k > 3 ? k - 3 : 0; p < k; p++)
        if (o[p] >= 0xC0 && p + (o[p] < 0xE0 ? 2u : o[p] < 0xF0 ? 3u : 4u) > k)
            o[p] = '?';
}

/* The line as UTF-8 into o (room for utf8_bound + 1 + LINE8_PAD bytes),
 * rstripped, then a space (the sentinel) and LINE8_PAD zeros; its length in
 * *len. -1 when b->poll asked to stop. */
int tb_read_utf8(tb_builder *b, uint8_t *o, const tb_text *t, size_t *len)
{
    size_t n = t->length, k = 0, width = t->kind == TB_KIND_UTF8 ? 1 : (size_t)t->kind;
    for (size_t i = 0; i < n; i += POLL_BYTES) {
        size_t m = n - i < POLL_BYTES ? n - i : POLL_BYTES;
        const void *d = (const char *)t->data + i * width;
        if (t->kind == TB_KIND_UTF8 || (t->kind == 1 && t->ascii_lower)) {
            copy_ascii_lower(o + k, d, m, t->ascii_lower);  /* (ascii_lower: the text is ASCII) */
            k += m;
        } else {
            k += encode_utf8(o + k, d, m, t->kind);
        }
        if (n > POLL_BYTES && tb_poll_spend(b->poll, (long)m))
            return -1;
    }
    k = utf8_rstrip(o, k);
    if (t->kind == TB_KIND_UTF8)
        end_on_whole_character(o, k);
    o[k] = ' ';
    memset(o + k + 1, 0, LINE8_PAD);
    *len = k;
    return 0;
}
