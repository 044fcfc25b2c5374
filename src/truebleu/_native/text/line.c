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
    o[k] = ' ';
    memset(o + k + 1, 0, LINE8_PAD);
    *len = k;
    return 0;
}

/* ------------------------------------------------------------------ */
/* a line and its plain bits in one pass                               */

/*
 * Nearly every line is ASCII (or given as UTF-8) and short: it is copied 16
 * bytes at a time (lowercased if asked), and the plain bits of each block are
 * taken while it is at hand, instead of a second pass over the line (and a
 * call to memset for its padding). Bytes after the line
 * (rstripped) are then as tb_read_utf8 and plain_bits leave them: the
 * sentinel, zeros, and plain bits set after the sentinel.
 */

#ifdef TB_HAVE_SSE2
/* How a block of the line is read: copied, lowercased (the text is ASCII), or
 * copied if ASCII (kind 1: Latin-1 would need encoding). */
enum block_read { BLOCK_COPY, BLOCK_LOWER, BLOCK_ASCII };

/* The 16 bytes at d, read as `how` says, stored at o; their plain bits, or -1
 * (BLOCK_ASCII: a byte is not ASCII). */
static TB_ALWAYS_INLINE int32_t read_block(uint8_t *o, __m128i v, enum block_read how, enum plain_kind kind)
{
    if (how == BLOCK_ASCII && _mm_movemask_epi8(v))
        return -1;
    if (how == BLOCK_LOWER)  /* A-Z | 0x20 */
        v = _mm_or_si128(v, _mm_and_si128(_mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - 'A'))),
                                                         _mm_set1_epi8((char)(-128 + 26))),
                                          _mm_set1_epi8(0x20)));
    _mm_storeu_si128((__m128i *)o, v);
    return (int32_t)plain16(o, kind);
}

/* The line d[0..n) read as `how` says into o and its plain bits into plain
 * (the blocks' words), 64 bytes at a time, then 16, then the last 16 (a short
 * line from a copy padded with zeros). 0, or -1 (BLOCK_ASCII: not ASCII). */
static TB_ALWAYS_INLINE int read_blocks(uint8_t *o, const uint8_t *d, size_t n, uint64_t *plain,
                                        enum block_read how, enum plain_kind kind)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        int32_t m0 = read_block(o + i, _mm_loadu_si128((const __m128i *)(d + i)), how, kind),
                m1 = read_block(o + i + 16, _mm_loadu_si128((const __m128i *)(d + i + 16)), how, kind),
                m2 = read_block(o + i + 32, _mm_loadu_si128((const __m128i *)(d + i + 32)), how, kind),
                m3 = read_block(o + i + 48, _mm_loadu_si128((const __m128i *)(d + i + 48)), how, kind);
        if ((m0 | m1 | m2 | m3) < 0)
            return -1;
        plain[i >> 6] = (uint64_t)m0 | (uint64_t)m1 << 16 | (uint64_t)m2 << 32 | (uint64_t)m3 << 48;
    }
    uint64_t bits = 0;
    for (; i + 16 <= n; i += 16) {
        int32_t m = read_block(o + i, _mm_loadu_si128((const __m128i *)(d + i)), how, kind);
        if (m < 0)
            return -1;
        bits |= (uint64_t)m << (i & 63);
    }
    if (i < n && n >= 16) {  /* the last 16 bytes, over some read already: their last n - i bits */
        int32_t m = read_block(o + n - 16, _mm_loadu_si128((const __m128i *)(d + n - 16)), how, kind);
        if (m < 0)
            return -1;
        bits |= (uint64_t)((uint32_t)m >> (16 - (n - i))) << (i & 63);
    } else if (i < n) {  /* a short line, from a copy padded with zeros (it may end anywhere) */
        uint8_t last[16] = {0};
        memcpy(last, d, n);
        int32_t m = read_block(o, _mm_loadu_si128((const __m128i *)last), how, kind);
        if (m < 0)
            return -1;
        bits = (uint64_t)m;
    }
    plain[n >> 6] = bits;  /* (the last word: the sentinel's if no block reaches it) */
    return 0;
}
#endif

/* The one pass, or 0 when the line is not for it (a non-ASCII line of kind 1, to
 * be encoded; any other kind; a long line, to be read between polls; a build
 * without SSE2, whose two passes compute the same bytes and bits); 1 done. */
static TB_ALWAYS_INLINE int read_plain_one_pass(tb_builder *b, uint8_t *o, const tb_text *t, size_t *len,
                                                enum plain_kind kind)
{
#ifdef TB_HAVE_SSE2
    size_t n = t->length;
    if ((t->kind != 1 && t->kind != TB_KIND_UTF8) || n > POLL_BYTES)
        return 0;
    if (GROW(b->plain, b->plain_cap, (n + 1 + 63) / 64) < 0)
        return -1;
    const uint8_t *d = t->data;
    int rc = t->ascii_lower ? read_blocks(o, d, n, b->plain, BLOCK_LOWER, kind)
             : t->kind == 1 ? read_blocks(o, d, n, b->plain, BLOCK_ASCII, kind)
                            : read_blocks(o, d, n, b->plain, BLOCK_COPY, kind);
    if (rc < 0)
        return 0;
    size_t k = utf8_rstrip(o, n);
    o[k] = ' ';
    for (size_t p = 0; p < LINE8_PAD; p += 16)
        _mm_storeu_si128((__m128i *)(o + k + 1 + p), _mm_setzero_si128());
    /* the bytes after the sentinel count as plain (as in plain_bits; those of the
     * whitespace rstripped, and the sentinel's, are clear: not plain) */
    b->plain[k >> 6] |= ~1ull << (k & 63);
    *len = k;
    return 1;
#else
    (void)b, (void)o, (void)t, (void)len, (void)kind;
    return 0;
#endif
}

int tb_read_line_plain(tb_builder *b, uint8_t *o, const tb_text *t, size_t *len, enum plain_kind kind)
{
    int done = kind == PLAIN_13A ? read_plain_one_pass(b, o, t, len, PLAIN_13A)
                                 : read_plain_one_pass(b, o, t, len, PLAIN_INTL);
    if (done)
        return done > 0 ? 0 : -1;
    if (tb_read_utf8(b, o, t, len) < 0)
        return -1;
    return kind == PLAIN_13A ? plain_bits(b, o, *len, PLAIN_13A) : plain_bits(b, o, *len, PLAIN_INTL);
}
