/* truebleu core: the 13a tokenizer (sacreBLEU's default), on UTF-8 bytes.
 *
 * The same tokens as truebleu/tokenizers/tokenizer_13a.py: the replacements
 * (<skipped>, -\n, \n, &quot; &amp; &lt; &gt;), rule 1 (symbols are tokens),
 * rules 2-4 (periods and commas not between digits, a dash after a digit).
 * A hot loop takes the commonest items (a plain word then a space, a symbol,
 * ", " or ". ") with the vocabulary in local variables; every other item goes
 * through scan_13a_item.
 */
#include "text/line.h"  /* (first: it brings Python.h, which must precede the system headers) */
#include "text/hot_vocab.h"

/* ------------------------------------------------------------------ */
/* 13a on UTF-8 bytes                                                  */

/*
 * Every line, whatever its PyUnicode kind (or given as UTF-8, TB_KIND_UTF8),
 * is tokenized by 13a as its UTF-8 bytes in b->line8. Every character 13a's
 * rules look at ('<', '&', '\n', its symbols, digits, '.', ',', '-') is ASCII,
 * and a byte >= 0x80 is part of a non-ASCII character, which every rule sees
 * only as "not one of those": a byte of it is also neither, and a rule that
 * matches such a character takes it as the second of a pair only when the
 * first is '.' or ',' (rule 3), after which no rule can start inside the
 * character. So the rules give the same spaces on the bytes as on the code
 * points. The exceptions are the non-ASCII whitespace characters (str.split()
 * splits on them): utf8_space() names them.
 */

/* str.replace(pat, rep) on s[0..n) in place (rep: one byte, or -1 for ""); returns the new length. */
static size_t replace_bytes(uint8_t *s, size_t n, const char *pat, int rep)
{
    size_t plen = strlen(pat), k = 0, i = 0;
    while (i < n) {
        if (s[i] == (uint8_t)pat[0] && i + plen <= n && memcmp(s + i, pat, plen) == 0) {
            if (rep >= 0)
                s[k++] = (uint8_t)rep;
            i += plen;
        } else {
            s[k++] = s[i++];
        }
    }
    return k;
}

/* 13a's replacements on s[0..n) in place (each only shortens the line);
 * returns the new length, the sentinel after it. */
static size_t replace_13a(uint8_t *s, size_t n)
{
    int triggers = 0;
    for (size_t i = 0; i < n; i++)
        triggers |= (s[i] == '<') | (s[i] == '&') << 1 | (s[i] == '\n') << 2;
    if (triggers & 1)
        n = replace_bytes(s, n, "<skipped>", -1);
    if (triggers & 4) {
        n = replace_bytes(s, n, "-\n", -1);
        n = replace_bytes(s, n, "\n", ' ');
    }
    if (triggers & 2) {  /* the removals above neither create nor remove an '&' */
        n = replace_bytes(s, n, "&quot;", '"');
        n = replace_bytes(s, n, "&amp;", '&');
        n = replace_bytes(s, n, "&lt;", '<');
        n = replace_bytes(s, n, "&gt;", '>');
    }
    s[n] = ' ';  /* the sentinel; what follows up to the old end stays readable */
    return n;
}

/* hard_13a on a stretch of UTF-8 bytes, as the code-point version but on
 * bytes (see above), a space on both sides (the line is padded). A rule that
 * cannot match is not run: rules 2 and 3 match only a '.' or ',' that is not
 * between two digits (`loose`: the stretch has one), rule 4 only a '-' after a
 * digit (`dash_after_digit`; rules 2 and 3 only insert spaces, so they make
 * no such pair). */
static int hard_13a_bytes(tb_builder *b, const uint8_t *s, size_t n, int loose, int dash_after_digit,
                          enum token_home home)
{
    /* (scan_13a_item took hard_13a's fast paths already) */
    if (reserve_small(b, n, 3) < 0)  /* (n + 2) << 3 code points: 4x the bytes needed */
        return -1;
    uint8_t *x = (uint8_t *)b->tmp.a, *y = (uint8_t *)b->tmp2.a;
    size_t k = 0, i;
    x[k++] = ' ';
    memcpy(x + k, s, n);
    k += n;
    x[k++] = ' ';
    size_t m = 0;
    if (loose) {
        /* rule 2: ([^0-9])([.,]) -> "\1 \2 " */
        for (i = 0; i < k;) {
            if (i + 1 < k && !is_digit(x[i]) && is_period_or_comma(x[i + 1])) {
                y[m++] = x[i], y[m++] = ' ', y[m++] = x[i + 1], y[m++] = ' ';
                i += 2;
            } else {
                y[m++] = x[i++];
            }
        }
        /* rule 3: ([.,])([^0-9]) -> " \1 \2" */
        k = 0;
        for (i = 0; i < m;) {
            if (i + 1 < m && is_period_or_comma(y[i]) && !is_digit(y[i + 1])) {
                x[k++] = ' ', x[k++] = y[i], x[k++] = ' ', x[k++] = y[i + 1];
                i += 2;
            } else {
                x[k++] = y[i++];
            }
        }
    }
    if (dash_after_digit) {
        /* rule 4: ([0-9])(-) -> "\1 \2 " */
        m = 0;
        for (i = 0; i < k;) {
            if (i + 1 < k && is_digit(x[i]) && x[i + 1] == '-') {
                y[m++] = x[i], y[m++] = ' ', y[m++] = x[i + 1], y[m++] = ' ';
                i += 2;
            } else {
                y[m++] = x[i++];
            }
        }
        x = y;
        k = m;
    }
    /* The rules only insert spaces: the tokens are the stretch's bytes in
     * order, so each is taken from the line (where a reference keeps it). */
    size_t at_s = 0;
    for (i = 0; i < k;) {
        if (x[i] == ' ') {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < k && x[j] != ' ')
            j++;
        if (append_token(b, s + at_s, j - i, 1, 1, home) < 0)
            return -1;
        at_s += j - i;
        i = j;
    }
    return 0;
}

/* scan_13a_item's answers besides an index */
#define ITEM_FAILED SIZE_MAX            /* out of memory */
#define ITEM_TRIGGER (SIZE_MAX - 1)     /* a character of 13a's replacements: do them first */

/* One item of a 13a line at s[i] (i < n): a space, a symbol, or a stretch up
 * to the next space or symbol with the rules applied; the general case, out
 * of the hot loop. Every '<', '&' and '\n' of the line starts an item (they
 * are symbols and spaces), so unless the line is `replaced`, the first one
 * stops the scan. Returns the index after the item, or ITEM_FAILED / ITEM_TRIGGER. */
static TB_NOINLINE size_t scan_13a_item(tb_builder *b, const uint8_t *s, size_t i,
                                                      enum token_home home, int replaced)
{
    uint8_t c = s[i], k = ascii_class[c];
    if ((k & A_TRIGGER) && !replaced)
        return ITEM_TRIGGER;
    if (k & A_SPACE)
        return i + 1;
    if (k & A_SYMBOL)
        return append_token(b, s + i, 1, 1, 1, home) < 0 ? ITEM_FAILED : i + 1 + (s[i + 1] == ' ');
    size_t sp;
    if ((k & A_HIGH) && (sp = utf8_space(s + i)) != 0)
        return i + sp;
    /* loose: the '.' and ',' not between two digits (only they can be split
     * off, by rule 2 or 3), and whether a '-' follows a digit (rule 4) */
    size_t j = i, loose = 0, last_loose = 0;
    int dash_after_digit = 0;
    for (;;) {  /* stops at the sentinel at the latest */
        j = next_other(b->other, j);
        k = ascii_class[s[j]];
        if (k & (A_SPACE | A_SYMBOL))
            break;
        if (k & A_HARD) {  /* '.', ',' or '-' */
            int after_digit = j > i && is_digit(s[j - 1]);
            if (s[j] == '-') {
                dash_after_digit |= after_digit;
            } else if (!(after_digit && is_digit(s[j + 1]))) {
                loose++;
                last_loose = j;
            }
            j++;
        } else if (k & A_HIGH) {
            if (utf8_space(s + j))
                break;
            j++;
            while ((s[j] & 0xC0) == 0x80)  /* the rest of the character */
                j++;
        } else {
            j++;  /* an ASCII control character */
        }
    }
    size_t len = j - i;
    int rc;
    if (!dash_after_digit && loose == 0) {
        /* no rule applies: one token ("well-known", "3.5", "1,000"), through
         * the hot loops' look-up (most such tokens are long) */
        hot_vocab v;
        hot_begin(b, &v, home == HOME_KEPT);
        rc = hot_token(b, &v, (const char *)s + i, len, home == HOME_KEPT);
        hot_end(b, &v, home == HOME_KEPT);
    } else if (!dash_after_digit && loose == 1 && last_loose == j - 1 && len >= 2) {
        /* "word," or "1,000.": rule 2 or 3 splits the last character off, and
         * no rule touches the rest (its '.' and ',' are between digits) */
        rc = append_token(b, s + i, len - 1, 1, 1, home);
        if (rc == 0)
            rc = append_token(b, s + j - 1, 1, 1, 1, home);
    } else {
        rc = hard_13a_bytes(b, s + i, len, loose != 0, dash_after_digit, home);
    }
    return rc < 0 ? ITEM_FAILED : j + (s[j] == ' ');  /* (a space: the commonest next item) */
}

/* The hot loop: the items of the commonest kinds from s[i] on (a plain word
 * then a space, a symbol, or ", " or ". "; a symbol alone), up to the first
 * of another kind, or to the end of the 64-byte block where it reaches
 * s[stop] (the caller's budget: the line's end, the sentinel's item, or a
 * poll; so it may stop at s[n + 1]); returns where it stopped (a pointer: the
 * loop keeps no s), or NULL: out of memory.
 *
 * It walks the bytes that are not plain (b->other's ones) one block at a
 * time, each found by one count of trailing zeros in `others` and cleared
 * there: every such byte ends a word, and `stop` is looked at only when a
 * block is done (the sentinel is the line's last byte that is not plain, so
 * every block read is the line's while the position is below stop <= n). */
static TB_ALWAYS_INLINE const uint8_t *hot_items(tb_builder *b, const uint8_t *s, size_t i, size_t stop,
                                                 int kept)
{
    /* (pointers, not indexes: fewer registers, which the lookups need) */
    const uint64_t *other = b->other + (i >> 6);           /* the block's bits */
    const uint8_t *block = s + (i & ~(size_t)63);          /* and its bytes */
    const uint8_t *word = s + i, *const end = s + stop;
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
        /* the word [word, e) (maybe empty, or e < word after a skipped
         * space), then c = *e: a space (the commonest), a symbol (a token),
         * or ", " or ". " (',' or '.' a token: rule 2 or 3 splits it off);
         * any other item is not for this loop */
        const uint8_t *e = block + TB_CTZ64(others);
        others &= others - 1;
        uint8_t c = *e;
        if (c == ' ') {
            if (e > word && hot_token(b, &v, (const char *)word, (size_t)(e - word), kept) < 0)
                return NULL;
            word = e + 1;
            continue;
        }
        if (ascii_class[c] != A_SYMBOL && !((c == ',' || c == '.') && e[1] == ' '))
            break;
        if ((e > word && hot_token(b, &v, (const char *)word, (size_t)(e - word), kept) < 0) ||
            hot_token(b, &v, (const char *)e, 1, kept) < 0)
            return NULL;
        /* a space after it (the commonest next item) is skipped: its bit is
         * the next one when it is in this block (else it comes as an empty word) */
        unsigned space_next = e[1] == ' ';
        others &= others - space_next;
        word = e + 1 + space_next;
    }
done:
    hot_end(b, &v, kept);
    return word;
}

static TB_NOINLINE const uint8_t *hot_items_kept(tb_builder *b, const uint8_t *s, size_t i, size_t stop)
{
    return hot_items(b, s, i, stop, 1);
}

static TB_NOINLINE const uint8_t *hot_items_lookup(tb_builder *b, const uint8_t *s, size_t i, size_t stop)
{
    return hot_items(b, s, i, stop, 0);
}

static TB_ALWAYS_INLINE int scan_13a_bytes(tb_builder *b, const uint8_t *s, size_t n, int kept, int replaced)
{
    enum token_home home = kept ? HOME_KEPT : HOME_LOOKUP;
    size_t i = 0, spent = 0;
    while (i < n) {
        size_t stop = n - i > POLL_BYTES ? i + POLL_BYTES : n;
        while (i < stop) {
            const uint8_t *at = kept ? hot_items_kept(b, s, i, stop) : hot_items_lookup(b, s, i, stop);
            i = at == NULL ? ITEM_FAILED : (size_t)(at - s);
            if (i >= stop)
                break;
            if ((i = scan_13a_item(b, s, i, home, replaced)) >= ITEM_TRIGGER)
                return i == ITEM_TRIGGER ? 1 : -1;
        }
        if (i == ITEM_FAILED)
            return -1;
        if (tb_poll_spend(b->poll, (long)(i - spent)))
            return -1;
        spent = i;
    }
    return 0;
}

/* Removes the vocabulary entries from id `from` on (and the one-character ids
 * remembered: some may be theirs), newest first, so that each probe path is
 * still intact when it is walked. */
static void forget_vocab(tb_builder *b, size_t from)
{
    size_t mask = b->slots_cap - 1;
    for (size_t id = b->nvocab; id-- > from;) {
        size_t j = b->vocab[id].hash & mask;
        while (!(b->slots[j].id == id && slot_live(&b->slots[j], b->slot_era)))
            j = (j + 1) & mask;
        b->slots[j].tag = 0;  /* (era 0: empty) */
    }
    b->nvocab = from;
    tb_new_era(b);
    ready_byte_ids(b);  /* (the line goes on) */
}

/* tokenize_13a on any line: its UTF-8 (place_line), the replacements, the scan. */
int tb_tokenize_13a(tb_builder *b, const tb_text *t)
{
    ready_byte_ids(b);
    int kept = b->lookup == NULL;
    size_t n, first_id = b->nids, first_vocab = b->nvocab;
    uint8_t *s = place_line(b, t, PLAIN_13A, &n);
    if (s == NULL)
        return -1;
    int rc = kept ? scan_13a_bytes(b, s, n, 1, 0) : scan_13a_bytes(b, s, n, 0, 0);
    if (rc == 1) {  /* (rare) forget the line's tokens, replace, scan the shorter line */
        forget_vocab(b, first_vocab);
        b->nids = first_id;
        n = replace_13a(s, n);
        if (other_bits(b, s, n, PLAIN_13A) < 0)
            return -1;
        rc = kept ? scan_13a_bytes(b, s, n, 1, 1) : scan_13a_bytes(b, s, n, 0, 1);
    }
    if (rc < 0)
        return -1;
    if (kept)
        b->nbytes += n;  /* the line; the next one may overwrite its sentinel */
    return 0;
}
