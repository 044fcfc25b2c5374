/* truebleu core: the intl tokenizer (sacreBLEU's tokenizer_intl: \p{P}, \p{S},
 * \p{N} of the regex module), on UTF-8 bytes. */
#include "text/line.h"  /* (first: it brings Python.h, which must precede the system headers) */
#include "text/hot_vocab.h"

/* ------------------------------------------------------------------ */
/* intl on UTF-8 bytes                                                 */

/*
 * intl reads every line as its UTF-8 bytes too (whatever its PyUnicode kind,
 * or given as UTF-8), in place as 13a does: a reference's line after the
 * vocabulary's bytes, where its tokens stay; a hypothesis's in b->line8. Its
 * rules look at three classes of code points (\p{P}, \p{S}, \p{N}) and only
 * insert spaces, so every token is a run of the line's characters, that is,
 * of its bytes, and is hashed and looked up where it lies.
 *
 * Most characters of a line are letters and digits, which no rule changes
 * unless they stand beside a \p{P}: an ASCII letter or digit is "plain" (a
 * bit clear in b->other), and a stretch of plain bytes up to a ' ' is a token with no
 * look-up per character. Every other byte starts a character that is decoded
 * (when not ASCII) and classified (intl_class) by scan_intl_item, which sorts
 * the stretch into the shapes of the old scanner.
 */

/* The code point of the (valid UTF-8) character at p into *c; its length in bytes. */
static TB_ALWAYS_INLINE size_t utf8_char(const uint8_t *p, uint32_t *c)
{
    if (p[0] < 0x80) {
        *c = p[0];
        return 1;
    }
    return tb_utf8_decode(p, 4, c);  /* (a line is followed by a sentinel and padding) */
}
/* Appends the one-character token c, whose UTF-8 is p[0..len) in the line,
 * and remembers its id as tok_simple.c's emit_new_char does (append_token does so for ASCII). */
static TB_ALWAYS_INLINE int intl_char_token(tb_builder *b, const uint8_t *p, size_t len, uint32_t c,
                                         enum token_home home)
{
    if (len == 1)
        return append_token(b, p, 1, 1, 1, home);
    uint32_t id;
    if (known_char(&b->chars, b->era, c, &id)) {
        b->ids[b->nids++] = id;
        return 0;
    }
    if (home != HOME_KEPT && b->lookup && known_in_lookup(b, c, &id)) {  /* (a hypothesis) */
        b->ids[b->nids++] = id;
    } else if (append_token(b, p, len, 1, 1, home) < 0) {
        return -1;
    }
    remember_char(b, c, b->ids[b->nids - 1]);
    return 0;
}

/* The tokens of the stretch s[0..n) with \p{S} but no \p{P}: rule 3 alone
 * applies, so they are the runs between its symbols, and each symbol. */
static int intl_split_symbols(tb_builder *b, const uint8_t *s, size_t n, enum token_home home)
{
    size_t start = 0;
    for (size_t k = 0; k < n;) {
        uint32_t c;
        size_t len = utf8_char(s + k, &c);
        if (cls(c) & I_SYMBOL) {
            if ((k > start && append_token(b, s + start, k - start, 1, 1, home) < 0) ||
                intl_char_token(b, s + k, len, c, home) < 0)
                return -1;
            start = k + len;
        }
        k += len;
    }
    return n > start ? append_token(b, s + start, n - start, 1, 1, home) : 0;
}

/*
 * A stretch without \p{S} in which no two \p{P} stand side by side: each
 * \p{P} is split off or not by its two neighbours alone. Its neighbours are
 * letters (no class), \p{N}, or (with `before` / `after`) the whitespace
 * around the stretch, none of them \p{P}, so no match of either rule that
 * could consume a neighbour first involves another \p{P}:
 *  - after a letter or the whitespace before (\P{N}), rule 1 matches the pair
 *    and puts a space on each side of the \p{P};
 *  - after a number, or first on the line, rule 1 cannot match it; rule 2
 *    then matches it with what follows if that is a letter or the whitespace
 *    after (\P{N}), a space on each side again, and nothing otherwise: before
 *    a number or last on the line it stays inside its token ("3.5", "9:30",
 *    "in 2021." at the end of a line).
 * No other pair of characters is a match, so these are the only spaces.
 */
static int intl_split_punctuation(tb_builder *b, const uint8_t *s, size_t i, size_t j, int before, int after,
                                  enum token_home home)
{
    /* the stretch s[i..j) of the line s (b->other: all but its ASCII letters and digits) */
    size_t start = i, number_end = before ? SIZE_MAX : i;  /* after the last other \p{N} (or, first
                                                            * on the line, as after one) */
    for (size_t k = next_other(b->other, i); k < j; k = next_other(b->other, k)) {
        uint32_t c;
        size_t len = utf8_char(s + k, &c);
        int kind = cls(c);
        if (kind & I_PUNCT) {
            int split = k != number_end && !(k > i && is_digit(s[k - 1]));
            if (!split) {
                uint32_t next;
                split = k + len < j ? (utf8_char(s + k + len, &next), !(cls(next) & I_NUMBER)) : after;
            }
            if (split) {
                if ((k > start && append_token(b, s + start, k - start, 1, 1, home) < 0) ||
                    intl_char_token(b, s + k, len, c, home) < 0)
                    return -1;
                start = k + len;
            }
        }
        k += len;
        if (kind & I_NUMBER)
            number_end = k;
    }
    return j > start ? append_token(b, s + start, j - start, 1, 1, home) : 0;
}

/* The token of the characters [first, end) of a stretch (off[t]: where
 * character t starts in s): one character through intl_char_token. */
static TB_ALWAYS_INLINE int intl_run_token(tb_builder *b, const uint8_t *s, const uint32_t *off, size_t first,
                                        size_t end, enum token_home home)
{
    if (end - first == 1) {
        uint32_t c;
        size_t len = utf8_char(s + off[first], &c);
        return intl_char_token(b, s + off[first], len, c, home);
    }
    return append_token(b, s + off[first], off[end] - off[first], 1, 1, home);
}

/*
 * Any stretch: the regex rules replayed on the classes of its characters,
 * noting where they put spaces. The elements are the stretch's characters,
 * numbered from 1, and the whitespace around it (element 0 if `before`, m + 1
 * if `after`: \P{N} and not \p{P}); gap[e] says whether a space lies between
 * elements e - 1 and e. Rule 1, (\P{N})(\p{P}) -> "\1 \2 ", scans the elements
 * left to right, a match taking both and spacing gaps e + 1 and e + 2. Rule 2,
 * (\p{P})(\P{N}) -> " \1 \2", scans the result, in which each space rule 1
 * put is an element too (\P{N}, never a \p{P}); a match spaces the gaps on
 * both sides of its \p{P} and takes what follows it. Rule 3 puts spaces around
 * every \p{S}. The tokens are the runs of characters between spaces.
 */
static int hard_intl_bytes(tb_builder *b, const uint8_t *s, size_t n, int before, int after,
                           enum token_home home)
{
    /* n bytes: n characters at most */
    if (u32_reserve(&b->tmp, n + 1) < 0 || u32_reserve(&b->tmp2, (2 * (n + 2) + 3) / 4) < 0)
        return -1;
    uint32_t *off = b->tmp.a;              /* off[t]: the first byte of character t (t = 0 .. m) */
    uint8_t *kind = (uint8_t *)b->tmp2.a;  /* kind[e]: the classes of element e (0 .. m + 1) */
    uint8_t *gap = kind + n + 2;           /* gap[e] (e = 0 .. m + 1) */
    size_t m = 0;
    kind[0] = 0;
    for (size_t i = 0; i < n; m++) {
        uint32_t c;
        off[m] = (uint32_t)i;
        i += utf8_char(s + i, &c);
        kind[m + 1] = (uint8_t)cls(c);
    }
    off[m] = (uint32_t)n;
    kind[m + 1] = 0;
    memset(gap, 0, m + 2);
    size_t first = before ? 0 : 1, last = after ? m + 1 : m;  /* the elements there are */
    for (size_t e = first; e < last;) {  /* rule 1 */
        if (!(kind[e] & I_NUMBER) && (kind[e + 1] & I_PUNCT)) {
            gap[e + 1] = gap[e + 2] = 1;
            e += 2;
        } else {
            e++;
        }
    }
    for (size_t e = 1; e <= m;) {  /* rule 2 (on characters: the whitespace is no \p{P}); after
                                    * element e comes rule 1's space (gap[e + 1]) or element e + 1 */
        int spaced = gap[e + 1];
        if ((kind[e] & I_PUNCT) && (spaced || (e < last && !(kind[e + 1] & I_NUMBER)))) {
            gap[e] = gap[e + 1] = 1;  /* (gaps behind the scan: rule 2 never reads them again) */
            e += spaced ? 1 : 2;
        } else {
            e++;
        }
    }
    size_t start = 0;  /* the first character of the current token */
    for (size_t t = 0; t < m; t++) {  /* character t is element t + 1 */
        int symbol = kind[t + 1] & I_SYMBOL;
        if (t > start && (gap[t + 1] || symbol)) {
            if (intl_run_token(b, s, off, start, t, home) < 0)
                return -1;
            start = t;
        }
        if (symbol) {
            if (intl_run_token(b, s, off, t, t + 1, home) < 0)
                return -1;
            start = t + 1;
        }
    }
    return m > start ? intl_run_token(b, s, off, start, m, home) : 0;
}

/* scan_intl_item's answer for out of memory */
#define INTL_ITEM_FAILED SIZE_MAX

/* One item of an intl line at s[i] (i < n; s[n] is the sentinel): a
 * whitespace character, or a stretch up to the next one, tokenized by its
 * shape (those of the code-point scanner it replaces). The general case, out
 * of the hot loop. Returns the index after the item, or INTL_ITEM_FAILED. */
static TB_NOINLINE size_t scan_intl_item(tb_builder *b, const uint8_t *s, size_t i, size_t n,
                                                       enum token_home home)
{
    uint32_t c;
    size_t len = utf8_char(s + i, &c);
    if (intl_class(c) & I_SPACE)
        return i + len;
    /* the stretch: whether it has a \p{P}, a \p{S}, two \p{P} side by side */
    size_t j = i, punct_end = SIZE_MAX;  /* after the last \p{P} */
    int puncts = 0, symbols = 0, chained = 0;
    for (;;) {  /* stops at the sentinel at the latest */
        j = next_other(b->other, j);  /* (plain: ASCII letters and digits) */
        len = utf8_char(s + j, &c);
        int k = intl_class(c);
        if (k & I_SPACE)
            break;
        if (k & I_PUNCT) {
            puncts = 1;
            chained |= j == punct_end;
            punct_end = j + len;
        }
        symbols |= k & I_SYMBOL;
        j += len;
    }
    const uint8_t *word = s + i;
    size_t bytes = j - i;
    uint32_t first;
    int rc;
    if (!puncts && !symbols) {  /* no rule applies */
        rc = append_token(b, word, bytes, 1, 1, home);
    } else if (bytes == utf8_char(word, &first)) {  /* one character: the rules only add spaces */
        rc = intl_char_token(b, word, bytes, first, home);
    } else if (!puncts) {  /* no rule but 3 (symbols) applies */
        rc = intl_split_symbols(b, word, bytes, home);
    } else if (!symbols && !chained) {  /* "don't", "3.5", quoted words */
        rc = intl_split_punctuation(b, s, i, j, i > 0, j < n, home);
    } else {
        rc = hard_intl_bytes(b, word, bytes, i > 0, j < n, home);
    }
    if (rc < 0)
        return INTL_ITEM_FAILED;
    return j + (s[j] == ' ' && j < n);  /* (a space: the commonest next item) */
}

/* The hot loop: the commonest items from s[i] on, up to the first of another
 * kind, or to the end of the 64-byte block where it reaches s[stop] (so it
 * may stop at s[n + 1]; s[0..n) the line, b->other its bytes not plain): letters
 * and digits up to a ' ' (one token), and up to an ASCII \p{P} or \p{S} and
 * a ' ' ("word," "word." "word)": two tokens, rule 1 or 2 splits the \p{P}
 * off, unless a digit ends the line with it, "in 2021.", and rule 3 the
 * \p{S}), through the hot vocabulary (text/hot_vocab.h). It walks the bytes
 * that are not plain as 13a's hot loop does (text/tok_13a.c). Returns where
 * it stopped, or NULL: out of memory. */
static TB_ALWAYS_INLINE const uint8_t *intl_hot_items(tb_builder *b, const uint8_t *s, size_t i, size_t stop,
                                                      size_t n, int kept)
{
    const uint64_t *other = b->other + (i >> 6);           /* the block's bits */
    const uint8_t *block = s + (i & ~(size_t)63);          /* and its bytes */
    const uint8_t *word = s + i, *const end = s + stop, *const last = s + n - 1;
    uint64_t others = *other & (~0ull << (i & 63));       /* its bytes not plain from i on */
    hot_vocab v;
    hot_begin(b, &v, kept);
    for (;;) {
        while (others == 0) {
            if (word >= end)
                goto done;
            others = *++other;
            block += 64;
        }
        const uint8_t *e = block + TB_CTZ64(others);  /* the word [word, e) ends */
        others &= others - 1;
        if (e > word && *e == ' ') {
            if (hot_token(b, &v, (const char *)word, (size_t)(e - word), kept) < 0)
                return NULL;
            word = e + 1;
        } else if (e > word && e[1] == ' ' && (tb_intl_latin1[*e] & (I_PUNCT | I_SYMBOL)) &&
                   (e < last || !is_digit(e[-1]) || (tb_intl_latin1[*e] & I_SYMBOL))) {
            if (hot_token(b, &v, (const char *)word, (size_t)(e - word), kept) < 0 ||
                hot_token(b, &v, (const char *)e, 1, kept) < 0)
                return NULL;
            others &= others - 1;  /* the space's bit when in this block (else the next item stops the loop) */
            word = e + 2;
        } else {
            break;
        }
    }
done:
    hot_end(b, &v, kept);
    return word;
}

static TB_NOINLINE const uint8_t *intl_hot_items_kept(tb_builder *b, const uint8_t *s, size_t i, size_t stop,
                                                     size_t n)
{
    return intl_hot_items(b, s, i, stop, n, 1);
}

static TB_NOINLINE const uint8_t *intl_hot_items_lookup(tb_builder *b, const uint8_t *s, size_t i, size_t stop,
                                                       size_t n)
{
    return intl_hot_items(b, s, i, stop, n, 0);
}

/* intl on s[0..n) (b->other its bytes not plain): the hot loop, and scan_intl_item
 * for every other item. 0 done, -1 out of memory or b->poll asked to stop. */
static TB_ALWAYS_INLINE int scan_intl_bytes(tb_builder *b, const uint8_t *s, size_t n, int kept)
{
    enum token_home home = kept ? HOME_KEPT : HOME_LOOKUP;
    size_t i = 0, spent = 0;
    while (i < n) {
        size_t stop = n - i > POLL_BYTES ? i + POLL_BYTES : n;
        while (i < stop) {
            const uint8_t *at = kept ? intl_hot_items_kept(b, s, i, stop, n) : intl_hot_items_lookup(b, s, i, stop, n);
            if (at == NULL)
                return -1;
            i = (size_t)(at - s);
            if (i >= stop)
                break;
            if ((i = scan_intl_item(b, s, i, n, home)) == INTL_ITEM_FAILED)
                return -1;
        }
        if (tb_poll_spend(b->poll, (long)(i - spent)))
            return -1;
        spent = i;
    }
    return 0;
}

/* intl on any line: its UTF-8 (place_line: rstripped, ASCII lowercased if asked), the scan. */
int tb_tokenize_intl(tb_builder *b, const tb_text *t)
{
    ready_byte_ids(b);
    int kept = b->lookup == NULL;
    size_t n;
    uint8_t *s = place_line(b, t, PLAIN_INTL, &n);
    if (s == NULL)
        return -1;
    if ((kept ? scan_intl_bytes(b, s, n, 1) : scan_intl_bytes(b, s, n, 0)) < 0)
        return -1;
    if (kept)
        b->nbytes += n;  /* the line; the next one may overwrite its sentinel */
    return 0;
}
