/* tercom's tokenizer on UTF-8 bytes (see ter/tokenize.h): the steps of
 * truebleu/tokenizers/tokenizer_ter.py, one pass each, in the same order.
 *
 * Each regular expression of the specification becomes a scan with re.sub's
 * semantics (leftmost match, matches never overlap, the scan resumes after a
 * match). The rules read ASCII only, except "[^0-9]" (any character) and the
 * CJK ranges; on UTF-8 a non-ASCII character is never a digit, and an ASCII
 * byte always starts a character, so scanning bytes finds the matches the
 * specification finds on characters. Whitespace is Python's (Py_UNICODE_ISSPACE,
 * as str.split() and str.rstrip() see it): the only reason for Python.h here.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "runtime/memory.h"
#include "ter/tokenize.h"
#include "text/text.h"

void tb_tercom_scratch_free(tb_tercom_scratch *w)
{
    free(w->buf[0]);
    free(w->buf[1]);
    memset(w, 0, sizeof(*w));
}

/* The buffer of `w` that is not `current`, holding at least `need` bytes (NULL: out of memory). */
static uint8_t *next_buffer(tb_tercom_scratch *w, const uint8_t *current, size_t need)
{
    int k = current == w->buf[0] ? 1 : 0;
    if (tb_grow((void **)&w->buf[k], &w->cap[k], need, 1) < 0)
        return NULL;
    return w->buf[k];
}

static int is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

/* The character at s[0] (n > 0 bytes left) into *cp; its length in bytes. */
static size_t char_at(const uint8_t *s, size_t n, uint32_t *cp)
{
    return tb_utf8_decode(s, n, cp);
}

static int is_space(uint32_t cp)
{
    return Py_UNICODE_ISSPACE((Py_UCS4)cp);
}

/* n without the trailing whitespace str.rstrip() removes. */
static size_t rstripped_length(const uint8_t *s, size_t n)
{
    while (n > 0) {
        size_t start = n - 1;  /* back to the first byte of the last character */
        while (start > 0 && n - start < 4 && (s[start] & 0xC0) == 0x80)
            start--;
        uint32_t cp;
        char_at(s + start, n - start, &cp);
        if (!is_space(cp))
            break;
        n = start;
    }
    return n;
}

/* s with A-Z lowered (ASCII text: all that str.lower() changes in it). */
static size_t lower_ascii(const uint8_t *s, size_t n, uint8_t *d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    return n;
}

/* str.replace(pattern, replacement): every occurrence, left to right, none overlapping. */
static size_t replace_all(const uint8_t *s, size_t n, const char *pattern, const char *replacement,
                          uint8_t *d)
{
    size_t plen = strlen(pattern), rlen = strlen(replacement), out = 0, i = 0;
    while (i < n) {
        if (s[i] == (uint8_t)pattern[0] && n - i >= plen && memcmp(s + i, pattern, plen) == 0) {
            memcpy(d + out, replacement, rlen);
            out += rlen;
            i += plen;
        } else {
            d[out++] = s[i++];
        }
    }
    return out;
}

/* The line with a space on each side. */
static size_t pad(const uint8_t *s, size_t n, uint8_t *d)
{
    d[0] = ' ';
    memcpy(d + 1, s, n);
    d[n + 1] = ' ';
    return n + 2;
}

/* Rule 1, r"([\{-\~\[-\` -\&\(-\+\:-\@\/])" -> r" \1 ": these ASCII symbols (and the space). */
static int is_split_symbol(uint8_t c)
{
    return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
           (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

static size_t split_symbols(const uint8_t *s, size_t n, uint8_t *d)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_split_symbol(s[i])) {
            d[out++] = ' ';
            d[out++] = s[i];
            d[out++] = ' ';
        } else {
            d[out++] = s[i];
        }
    }
    return out;
}

/* Rule 4, r"([^0-9])([\.,])" -> r"\1 \2 ": a period or comma after a non-digit.
 * (The byte before an ASCII byte ends a character; it is a digit only if that
 * character is one.) */
static size_t split_after_non_digit(const uint8_t *s, size_t n, uint8_t *d)
{
    size_t out = 0, i = 0;
    while (i < n) {
        if (i + 1 < n && !is_digit(s[i]) && (s[i + 1] == '.' || s[i + 1] == ',')) {
            d[out++] = s[i];
            d[out++] = ' ';
            d[out++] = s[i + 1];
            d[out++] = ' ';
            i += 2;
        } else {
            d[out++] = s[i++];
        }
    }
    return out;
}

/* Rule 5, r"([\.,])([^0-9])" -> r" \1 \2": a period or comma before a non-digit.
 * (A match takes one more byte than the character \2 when \2 is not ASCII; the
 * rest of that character are continuation bytes, which start no match.) */
static size_t split_before_non_digit(const uint8_t *s, size_t n, uint8_t *d)
{
    size_t out = 0, i = 0;
    while (i < n) {
        if (i + 1 < n && (s[i] == '.' || s[i] == ',') && !is_digit(s[i + 1])) {
            d[out++] = ' ';
            d[out++] = s[i];
            d[out++] = ' ';
            d[out++] = s[i + 1];
            i += 2;
        } else {
            d[out++] = s[i++];
        }
    }
    return out;
}

/* Rule 6, r"([0-9])(-)" -> r"\1 \2 ": a dash after a digit. */
static size_t split_dash_after_digit(const uint8_t *s, size_t n, uint8_t *d)
{
    size_t out = 0, i = 0;
    while (i < n) {
        if (i + 1 < n && is_digit(s[i]) && s[i + 1] == '-') {
            d[out++] = s[i];
            d[out++] = ' ';
            d[out++] = '-';
            d[out++] = ' ';
            i += 2;
        } else {
            d[out++] = s[i++];
        }
    }
    return out;
}

/* ASIAN_PUNCTUATION of the specification. */
static int is_asian_punctuation(uint32_t c)
{
    return c == 0x3001 || c == 0x3002 || (c >= 0x3008 && c <= 0x3011) || (c >= 0x3014 && c <= 0x301F) ||
           (c >= 0xFF61 && c <= 0xFF65) || c == 0x30FB || c == 0xFF0E || c == 0xFF0C || c == 0xFF1F ||
           c == 0xFF1A || c == 0xFF1B || c == 0xFF01 || c == 0xFF02 || c == 0xFF08 || c == 0xFF09;
}

/* ASIAN_CHARS of the specification (all of them three bytes long in UTF-8). */
static int is_asian_char(uint32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x31C0 && c <= 0x31EF) ||
           (c >= 0x2E80 && c <= 0x2EFF) || (c >= 0x3300 && c <= 0x33FF) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0x3200 && c <= 0x3F22) || is_asian_punctuation(c);
}

/* The code point of a three-byte character at s[i] (0 if there is none). */
static uint32_t three_byte_char(const uint8_t *s, size_t n, size_t i)
{
    if (s[i] < 0xE0 || s[i] >= 0xF0)
        return 0;
    uint32_t cp;
    return char_at(s + i, n - i, &cp) == 3 ? cp : 0;
}

/* ASIAN_CHARS -> r" \1 ": each such character a token of its own. */
static size_t split_asian(const uint8_t *s, size_t n, uint8_t *d)
{
    size_t out = 0, i = 0;
    while (i < n) {
        if (is_asian_char(three_byte_char(s, n, i))) {
            d[out++] = ' ';
            memcpy(d + out, s + i, 3);
            out += 3;
            d[out++] = ' ';
            i += 3;
        } else {
            d[out++] = s[i++];
        }
    }
    return out;
}

/* remove_punctuation: PUNCTUATION deleted (and ASIAN_PUNCTUATION with `asian`). */
static size_t delete_punctuation(const uint8_t *s, size_t n, int asian, uint8_t *d)
{
    size_t out = 0, i = 0;
    while (i < n) {
        if (s[i] < 0x80 && s[i] && strchr(".,?:;!\"()", s[i])) {
            i++;
        } else if (asian && is_asian_punctuation(three_byte_char(s, n, i))) {
            i += 3;
        } else {
            d[out++] = s[i++];
        }
    }
    return out;
}

/* " ".join(s.split()): the words, one space between them. */
static size_t join_words(const uint8_t *s, size_t n, uint8_t *d)
{
    size_t out = 0, i = 0;
    int gap = 0;
    while (i < n) {
        uint32_t cp = s[i];
        size_t len = cp < 0x80 ? 1 : char_at(s + i, n - i, &cp);
        if (is_space(cp)) {
            gap = out > 0;
        } else {
            if (gap)
                d[out++] = ' ';
            gap = 0;
            memcpy(d + out, s + i, len);
            out += len;
        }
        i += len;
    }
    return out;
}

/* One run of the tokenizer over *cur (*len bytes), the result in *cur again. */
static tb_status tokenize_once(tb_tercom_scratch *w, const uint8_t **cur, size_t *len, int options)
{
    const uint8_t *s = *cur;
    size_t n = *len;
    uint8_t *d;
    /* every step below at most triples the text, plus the padding */
#define STEP(call)                                      \
    do {                                                \
        if (!(d = next_buffer(w, s, 3 * n + 2)))        \
            return TB_NOMEM;                            \
        n = (call);                                     \
        s = d;                                          \
    } while (0)
    if (options & TB_TERCOM_NORMALIZED) {
        if (memchr(s, '\n', n)) {  /* join lines: "\n-" is end-of-line hyphenation */
            STEP(replace_all(s, n, "\n-", "", d));
            STEP(replace_all(s, n, "\n", " ", d));
        }
        if (memchr(s, '&', n)) {  /* the four entities, one after the other */
            STEP(replace_all(s, n, "&quot;", "\"", d));
            STEP(replace_all(s, n, "&amp;", "&", d));
            STEP(replace_all(s, n, "&lt;", "<", d));
            STEP(replace_all(s, n, "&gt;", ">", d));
        }
        STEP(pad(s, n, d));
        STEP(split_symbols(s, n, d));
        /* r"'s " -> r" 's "; the specification's next rule, r"'s$", never matches:
         * the padded line ends in a space and the rules so far keep it there */
        STEP(replace_all(s, n, "'s ", " 's ", d));
        STEP(split_after_non_digit(s, n, d));
        STEP(split_before_non_digit(s, n, d));
        STEP(split_dash_after_digit(s, n, d));
        if (options & TB_TERCOM_ASIAN)
            STEP(split_asian(s, n, d));
    }
    if (options & TB_TERCOM_NO_PUNCT)
        STEP(delete_punctuation(s, n, (options & TB_TERCOM_ASIAN) != 0, d));
    STEP(join_words(s, n, d));
#undef STEP
    *cur = s;
    *len = n;
    return TB_OK;
}

tb_status tb_tercom_tokenize(tb_tercom_scratch *w, const uint8_t *text, size_t n, int ascii_lower,
                             int options, int reference, const uint8_t **out, size_t *out_len)
{
    const uint8_t *s = text;
    n = rstripped_length(text, n);
    if (ascii_lower) {
        uint8_t *d = next_buffer(w, s, n + 1);
        if (!d)
            return TB_NOMEM;
        s = d;
        lower_ascii(text, n, d);
    }
    tb_status status = tokenize_once(w, &s, &n, options);
    /* the second run changes words only through normalized's rules: without them
     * it lowercases lowercased text and splits split words again */
    if (status == TB_OK && reference && (options & TB_TERCOM_NORMALIZED))
        status = tokenize_once(w, &s, &n, options);
    *out = s;
    *out_len = n;
    return status;
}
