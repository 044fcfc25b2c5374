/* truebleu core: the tokenizers that read code points: none (a whitespace
 * split), zh (13a's rules, with each Chinese character a token) and char (every
 * character but whitespace a token); the same token sequences as the modules of
 * truebleu/tokenizers/.
 *
 * Each regex rule of the Python tokenizers is a two-character pattern, so
 * re.sub's left-to-right, non-overlapping scan is replayed exactly by a loop
 * that looks at (s[i], s[i+1]) and, on a match, emits the replacement and
 * moves on by two. Passes whose trigger characters are absent are skipped.
 *
 * An ASCII line is read as its bytes (width 1), any other as code points
 * (width 4): each scanner is written once over the width and inlined with a
 * constant one, so that each width gets its own loops (see text/vocab.h).
 */
#include "text/line.h"

/* ------------------------------------------------------------------ */
/* the two-character rules, on a short buffer: s[0..n) -> o, returns the new length.
 * o must hold 2 * n code points. */

/* Every two-character rule has the form (A)(B) -> "\1 \2 " (the pair is split
 * and a space follows each character) or " \1 \2" (a space precedes each).
 * A match consumes both characters, as a regex substitution does, so the
 * scan resumes after the pair. */
typedef int (*pair_match)(uint32_t first, uint32_t second);
enum pair_spacing { SPACE_AFTER_EACH, SPACE_BEFORE_EACH };

/* Always inlined: each call site gets its own loop with `match` inlined (a call
 * through the pointer per character cost more than the rule itself). */
static TB_ALWAYS_INLINE size_t
apply_pair_rule(const uint32_t *s, size_t n, uint32_t *o, pair_match match, enum pair_spacing spacing)
{
    size_t k = 0, i = 0;
    while (i < n) {
        if (i + 1 < n && match(s[i], s[i + 1])) {
            if (spacing == SPACE_BEFORE_EACH)
                o[k++] = ' ';
            o[k++] = s[i];
            o[k++] = ' ';
            o[k++] = s[i + 1];
            if (spacing == SPACE_AFTER_EACH)
                o[k++] = ' ';
            i += 2;
        } else {
            o[k++] = s[i++];
        }
    }
    return k;
}

/* 13a rule 2: ([^0-9])([.,]) -> "\1 \2 " */
static int match_13a_2(uint32_t a, uint32_t b) { return !is_digit(a) && is_period_or_comma(b); }
/* 13a rule 3: ([.,])([^0-9]) -> " \1 \2" */
static int match_13a_3(uint32_t a, uint32_t b) { return is_period_or_comma(a) && !is_digit(b); }
/* 13a rule 4: ([0-9])(-) -> "\1 \2 " */
static int match_13a_4(uint32_t a, uint32_t b) { return is_digit(a) && b == '-'; }

/* append_token after spending the token's share of b->poll's budget (the
 * 13a byte path spends per line instead) */
static TB_ALWAYS_INLINE int emit_token(tb_builder *b, const void *s, size_t len, int width, int ascii)
{
    if (tb_poll_spend(b->poll, (long)len + 1))
        return -1;
    return append_token(b, s, len, width, ascii, HOME_ANY);
}

static int emit_u8(tb_builder *b, const void *s, size_t len) { return emit_token(b, s, len, 1, 1); }

static int emit_u32(tb_builder *b, const void *s, size_t len) { return emit_token(b, s, len, 4, 0); }

static int emit_ascii_u32(tb_builder *b, const void *s, size_t len) { return emit_token(b, s, len, 4, 1); }

/* one character of an ASCII line: its own function, with the length known */
static int emit_u8_char(tb_builder *b, const void *s) { return emit_token(b, s, 1, 1, 1); }

static TB_ALWAYS_INLINE int emit(tb_builder *b, const void *s, size_t len, int width)
{
    if (width == 1 && TB_CONSTANT_P(len) && len == 1)
        return emit_u8_char(b, s);
    return width == 1 ? emit_u8(b, s, len) : emit_u32(b, s, len);
}

/* Appends the one-character token c, not known yet, and remembers its id
 * (emit_token's work for one character, without its checks: the caller
 * reserved room for the line and spends its poll budget). Width 1: c is an
 * ASCII character (one byte, the ASCII cache); `lookup`: b->lookup is set (a
 * hypothesis: the id is looked up, nothing is stored). Each width and home gets
 * its own function (emit_new_char): the look-up alone needs few registers. */
static TB_ALWAYS_INLINE int new_char(tb_builder *b, uint32_t c, int width, int lookup)
{
    uint32_t known;
    int64_t id;
    if (lookup && known_in_lookup(b, c, &known)) {  /* remembered by the references' builder */
        id = known;
    } else {
        char *o = b->bytes + b->nbytes;  /* its UTF-8 after the vocabulary's bytes: kept there if new */
        size_t k = width == 1 ? (o[0] = (char)c, 1) : utf8_put(o, c);
        uint64_t head = token_head(o, k);  /* (k <= 4) */
        uint32_t h = hash_head(head);
        id = lookup ? (int64_t)seg_find_head(b->lookup, o, k, head, h) : vocab_intern_head(b, o, k, head, h, 0);
        if (!lookup && id < 0)
            return -1;
    }
    remember_char(b, c, (uint32_t)id);
    b->ids[b->nids++] = (uint32_t)id;
    return 0;
}

static TB_NOINLINE int new_char_u8_lookup(tb_builder *b, uint32_t c) { return new_char(b, c, 1, 1); }
static TB_NOINLINE int new_char_u8_vocab(tb_builder *b, uint32_t c) { return new_char(b, c, 1, 0); }
static TB_NOINLINE int new_char_u32_lookup(tb_builder *b, uint32_t c) { return new_char(b, c, 4, 1); }
static TB_NOINLINE int new_char_u32_vocab(tb_builder *b, uint32_t c) { return new_char(b, c, 4, 0); }

/* new_char for a line of width `width` (1: an ASCII line). 0, or -1: out of memory. */
static TB_ALWAYS_INLINE int emit_new_char(tb_builder *b, uint32_t c, int width)
{
    if (width == 1)
        return b->lookup ? new_char_u8_lookup(b, c) : new_char_u8_vocab(b, c);
    return b->lookup ? new_char_u32_lookup(b, c) : new_char_u32_vocab(b, c);
}

/* The one-character token c (of a line of code points): its remembered id
 * (known_char), else emit_new_char; the poll budget spent as emit_token spends it. */
static TB_ALWAYS_INLINE int emit_char(tb_builder *b, uint32_t c)
{
    uint32_t id;
    if (tb_poll_spend(b->poll, 2))
        return -1;
    if (known_char(&b->chars, b->era, c, &id)) {
        b->ids[b->nids++] = id;
        return 0;
    }
    return emit_new_char(b, c, 4);
}

/* s[0..n) holds no whitespace but the ' ' the rules inserted: one token per run */
static TB_ALWAYS_INLINE int emit_space_separated(tb_builder *b, const void *s, size_t n, int width)
{
    size_t i = 0;
    while (i < n) {
        if (at(s, i, width) == ' ') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && at(s, j, width) != ' ')
            j++;
        if (emit(b, from(s, i, width), j - i, width) < 0)
            return -1;
        i = j;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* tokenizers                                                          */

/* x = the stretch s[0..n) as code points, with a space before/after it
 * standing for the whitespace around it; returns the length written. */
static TB_ALWAYS_INLINE size_t copy_with_context(uint32_t *x, const void *s, size_t n, int before, int after,
                                              int width)
{
    size_t k = 0;
    if (before)
        x[k++] = ' ';
    if (width == 4) {
        memcpy(x + k, s, n * sizeof(uint32_t));
    } else {
        for (size_t i = 0; i < n; i++)
            x[k + i] = at(s, i, width);
    }
    k += n;
    if (after)
        x[k++] = ' ';
    return k;
}

/*
 * Why stretches: whitespace is neither a digit nor [.,-] (13a) and neither
 * \p{N} nor \p{P} (intl), so no rule can use it except as the non-digit /
 * non-number side of a pair, and a rule never needs whitespace as the *second*
 * character to decide where the next match starts. Replaying the rules on one
 * stretch between whitespace, with a space standing for the whitespace on
 * each side (when there is one), therefore gives exactly the spaces the rules
 * give on the whole line.
 */
static TB_ALWAYS_INLINE int hard_13a(tb_builder *b, const void *s, size_t n, int before, int after, int width)
{
    /* Fast paths for the two commonest shapes, where the rules' result is known
     * without replaying them: (a) no '.' or ',' and no '-' after a digit: no rule
     * matches, the stretch is one token ("well-known"); (b) the same plus one
     * final '.' or ',' that a rule splits off ("word," and, with a space after
     * it, "2021."): rule 2 or 3 separates it and touches nothing else. */
    size_t period_comma = 0;
    int dash_after_digit = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = at(s, i, width);
        period_comma += is_period_or_comma(c);
        dash_after_digit |= c == '-' && i > 0 && is_digit(at(s, i - 1, width));
    }
    if (!dash_after_digit) {
        if (period_comma == 0)
            return emit(b, s, n, width);
        if (period_comma == 1 && n >= 2 && is_period_or_comma(at(s, n - 1, width)) &&
            (after || !is_digit(at(s, n - 2, width))))
            return emit(b, s, n - 1, width) < 0 ? -1 : emit(b, from(s, n - 1, width), 1, width);
    }
    if (reserve_small(b, n, 3) < 0)
        return -1;
    uint32_t *x = b->tmp.a, *y = b->tmp2.a;
    size_t k = copy_with_context(x, s, n, before, after, width);
    k = apply_pair_rule(x, k, y, match_13a_2, SPACE_AFTER_EACH);
    k = apply_pair_rule(y, k, x, match_13a_3, SPACE_BEFORE_EACH);
    k = apply_pair_rule(x, k, y, match_13a_4, SPACE_AFTER_EACH);
    return emit_space_separated(b, y, k, 4);
}

static int hard_13a_u8(tb_builder *b, const void *s, size_t n, int before, int after)
{
    return hard_13a(b, s, n, before, after, 1);
}

static int hard_13a_u32(tb_builder *b, const void *s, size_t n, int before, int after)
{
    return hard_13a(b, s, n, before, after, 4);
}

/* 13a rule 1 symbols and (zh) Chinese characters are tokens on their own;
 * `padded` says the line was written as f" {line} ". s[n] is a space. */
static TB_ALWAYS_INLINE int scan_13a(tb_builder *b, const void *s, size_t n, int padded, int zh, int width)
{
    size_t i = 0;
    while (i < n) {
        uint32_t c = at(s, i, width);
        if (width == 4 && zh && is_cjk_ideograph(c)) {  /* Chinese text's commonest token (never whitespace) */
            if (emit_char(b, c) < 0)
                return -1;
            i++;
            continue;
        }
        if (space_at(c, width)) {
            i++;
            continue;
        }
        if (((width == 1 || c < 0x80) && is_13a_symbol(c)) || (width == 4 && zh && is_chinese(c))) {
            if ((width == 1 ? emit(b, from(s, i, width), 1, width) : emit_char(b, c)) < 0)
                return -1;
            i++;
            continue;
        }
        size_t j = i, hard = 0, last_hard = 0;
        int ascii = 1;
        for (;;) {  /* stops at the space after the line at the latest */
            uint32_t d = at(s, j, width);
            if (width == 1 || d < 0x80) {
                uint8_t k = ascii_class[d];
                if (k) {
                    if (k & (A_SYMBOL | A_SPACE))
                        break;
                    hard++;  /* '.', ',' or '-' */
                    last_hard = j;
                }
            } else if ((zh && is_chinese(d)) || is_space(d)) {
                break;
            } else {
                ascii = 0;
            }
            j++;
        }
        const void *word = from(s, i, width);
        size_t len = j - i;
        int before = padded || i > 0, after = padded || j < n, rc;
        if (hard == 0) {  /* the commonest token (inline on an ASCII line) */
            rc = width == 1 ? emit_token(b, word, len, 1, 1)
                            : ascii ? emit_ascii_u32(b, word, len) : emit_u32(b, word, len);
        } else if (hard == 1 && last_hard == j - 1 && len >= 2 && is_period_or_comma(at(s, j - 1, width)) &&
                   (after || !is_digit(at(s, j - 2, width)))) {
            /* the next commonest, "word," or "word.": hard_13a's fast path (b) */
            rc = width == 1 ? emit_token(b, word, len - 1, 1, 1)
                            : ascii ? emit_ascii_u32(b, word, len - 1) : emit_u32(b, word, len - 1);
            if (rc == 0)
                rc = emit(b, from(s, j - 1, width), 1, width);
        } else {
            rc = width == 1 ? hard_13a_u8(b, word, len, before, after) : hard_13a_u32(b, word, len, before, after);
        }
        if (rc < 0)
            return -1;
        i = j;
    }
    return 0;
}

static TB_ALWAYS_INLINE int tokenize_zh(tb_builder *b, const void *s, size_t n, int width)
{
    /* line.strip(): the trailing side is already stripped */
    size_t start = 0;
    while (start < n && space_at(at(s, start, width), width))
        start++;
    return scan_13a(b, from(s, start, width), n - start, 0, 1, width);
}

static TB_ALWAYS_INLINE int tokenize_none(tb_builder *b, const void *s, size_t n, int width)
{
    size_t i = 0;
    while (i < n) {
        if (space_at(at(s, i, width), width)) {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < n && !space_at(at(s, j, width), width))
            j++;
        if (emit(b, from(s, i, width), j - i, width) < 0)
            return -1;
        i = j;
    }
    return 0;
}

/* The id of the ASCII character c in the table byte_id to *out, which moves on
 * unless c is whitespace (TB_SPACE_ID): a select, not a branch. */
static TB_ALWAYS_INLINE void put_byte_id(uint32_t **out, const uint32_t *byte_id, uint32_t c)
{
    const uint32_t id = byte_id[c];
    **out = id;
    *out += id != TB_SPACE_ID;
}

/*
 * char: every character but whitespace is a token. An ASCII character's id
 * is one load in the table of remembered one-byte ids (byte_id), which holds
 * TB_SPACE_ID for whitespace: it is skipped by not advancing the output rather
 * than by a branch (a branch at each word's end, which the predictor misses),
 * and any other value not an id is TB_ABSENT. A hypothesis whose references
 * remember every one-byte token (known_in_lookup's ascii_complete: `direct`)
 * reads their table: TB_ABSENT there is the id it takes, with no look-up.
 * Otherwise the builder's own table: a reference's ASCII character it does
 * not remember yet is new to its vocabulary (vocab_add_byte, inline), any
 * other such character goes to emit_new_char. A non-ASCII character: its
 * remembered id (known_char's cache), else emit_new_char. The poll budget is
 * spent a block of characters at a time (a line may be long).
 */
static TB_ALWAYS_INLINE int scan_char(tb_builder *b, const void *s, size_t n, const tb_char_ids *chars, uint32_t era,
                                      const int direct, const int width)
{
    uint32_t *out = b->ids + b->nids;  /* (kept in a register: a store through b->ids may alias) */
    const uint32_t *byte_id = chars->byte_id;
    for (size_t i = 0; i < n;) {
        size_t end = n - i > 4096 ? i + 4096 : n;
        if (tb_poll_spend(b->poll, 2 * (long)(end - i))) {  /* what one emit_token per character spends */
            b->nids = (size_t)(out - b->ids);
            return -1;
        }
        if (width == 1 && direct) {  /* four at a time (the loop's own work shared) */
            const uint8_t *p = s;
            for (; end - i >= 4; i += 4) {
                put_byte_id(&out, byte_id, p[i]);
                put_byte_id(&out, byte_id, p[i + 1]);
                put_byte_id(&out, byte_id, p[i + 2]);
                put_byte_id(&out, byte_id, p[i + 3]);
            }
        }
        for (; i < end; i++) {
            const uint32_t c = at(s, i, width);
            if (width == 1 || c < 0x80) {
                if (direct) {
                    put_byte_id(&out, byte_id, c);
                    continue;
                }
                if (byte_id[c] != TB_ABSENT) {  /* (a whitespace's is not kept: out does not move) */
                    put_byte_id(&out, byte_id, c);
                    continue;
                }
                if (!b->lookup && b->ascii_complete) {  /* a reference's new character (room reserved) */
                    const int64_t added = vocab_add_byte(b, (uint8_t)c);  /* (inline: no call's saves) */
                    if (added < 0) {
                        b->nids = (size_t)(out - b->ids);
                        return -1;
                    }
                    *out++ = (uint32_t)added;
                    continue;
                }
            } else {
                uint32_t id;
                if (known_char(chars, era, c, &id)) {
                    *out++ = id;
                    continue;
                }
                if (space_at(c, width))
                    continue;
            }
            b->nids = (size_t)(out - b->ids);
            if (emit_new_char(b, c, width) < 0)
                return -1;
            out = b->ids + b->nids;
        }
    }
    b->nids = (size_t)(out - b->ids);
    return 0;
}

/* scan_char on the table it reads: the references' (direct) or the builder's */
static TB_ALWAYS_INLINE int scan_char_in(tb_builder *b, const void *s, size_t n, const int width)
{
    const tb_seg *ref = b->lookup;
    if (ref && ref->chars && ref->ascii_complete)
        return scan_char(b, s, n, ref->chars, ref->chars_era, 1, width);
    if (!ref && GROW(b->vocab, b->vocab_cap, b->nvocab + n) < 0)  /* (the line's new tokens: at most n) */
        return -1;
    ready_byte_ids(b);  /* (not for the direct scan: it neither reads nor writes b's) */
    return scan_char(b, s, n, &b->chars, b->era, 0, width);
}

/* char, one function per width, kept out of tb_builder_add_line: its other
 * scanners are compiled as well as without them. */
static TB_NOINLINE int tokenize_char_u8(tb_builder *b, const void *s, size_t n)
{
    return scan_char_in(b, s, n, 1);
}

static TB_NOINLINE int tokenize_char_u32(tb_builder *b, const void *s, size_t n)
{
    return scan_char_in(b, s, n, 4);
}

static TB_ALWAYS_INLINE int tokenize_char(tb_builder *b, const void *s, size_t n, int width)
{
    return width == 1 ? tokenize_char_u8(b, s, n) : tokenize_char_u32(b, s, n);
}

/* The tokenizer `mode` (not 13a or intl: see tokenize_13a_bytes, tokenize_intl_bytes)
 * on s[0..n) (s[n] is a space). */
static TB_ALWAYS_INLINE int tokenize(tb_builder *b, const void *s, size_t n, int mode, int width)
{
    if (mode != TB_CHAR)  /* (char readies it where it reads it: scan_char_in) */
        ready_byte_ids(b);
    switch (mode) {
    case TB_ZH: return tokenize_zh(b, s, n, width);
    case TB_CHAR: return tokenize_char(b, s, n, width);
    default: return tokenize_none(b, s, n, width);
    }
}

int tb_tokenize_ascii(tb_builder *b, const uint8_t *s, size_t n, int mode)
{
    switch (mode) {  /* each case: the scanners inlined for this mode and width */
    case TB_ZH: return tokenize(b, s, n, TB_ZH, 1);
    case TB_CHAR: return tokenize(b, s, n, TB_CHAR, 1);
    default: return tokenize(b, s, n, TB_NONE, 1);
    }
}

int tb_tokenize_code_points(tb_builder *b, const uint32_t *s, size_t n, int mode)
{
    switch (mode) {
    case TB_ZH: return tokenize(b, s, n, TB_ZH, 4);
    case TB_CHAR: return tokenize(b, s, n, TB_CHAR, 4);
    default: return tokenize(b, s, n, TB_NONE, 4);
    }
}
