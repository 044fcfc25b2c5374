/* Native tokenizers: the same token sequences as the modules of truebleu/tokenizers/.
 *
 * Each regex rule of the Python tokenizers is a two-character pattern, so
 * re.sub's left-to-right, non-overlapping scan is replayed exactly by a loop
 * that looks at (s[i], s[i+1]) and, on a match, emits the replacement and
 * moves on by two. Passes whose trigger characters are absent are skipped.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "tb_core.h"
#include "unicode_tables.h"

const char *tb_regex_version(void)
{
    return TB_REGEX_VERSION;
}

/* ------------------------------------------------------------------ */
/* growable buffers                                                    */


static int u32_reserve(tb_u32buf *b, size_t need) { return GROW(b->a, b->cap, need); }

/* ------------------------------------------------------------------ */
/* character classes                                                   */

static inline int is_space(uint32_t c)
{
    /* exactly the set of str.split() / str.strip() / str.isspace() */
    return Py_UNICODE_ISSPACE((Py_UCS4)c);
}

static inline int is_digit(uint32_t c) { return c >= '0' && c <= '9'; }

/* Byte classes for the scanners: one lookup per character of an ASCII line,
 * per byte of a UTF-8 line (A_HIGH: a byte of a non-ASCII character;
 * A_TRIGGER: a character 13a's replacements look for) */
enum { A_SPACE = 1, A_SYMBOL = 2, A_HARD = 4, A_HIGH = 8, A_TRIGGER = 16 };
static uint8_t ascii_class[256];

static void init_ascii_class(void)
{
    for (uint32_t c = 0; c < 256; c++) {
        uint8_t k = 0;
        if (c >= 0x80) {
            ascii_class[c] = A_HIGH;
            continue;
        }
        if (Py_UNICODE_ISSPACE(c))
            k |= A_SPACE;
        if ((c >= 0x20 && c <= 0x26) || (c >= 0x28 && c <= 0x2B) || c == 0x2F ||
            (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E))
            k |= A_SYMBOL;
        if (c == '.' || c == ',' || c == '-')
            k |= A_HARD;
        if (c == '<' || c == '&' || c == '\n')
            k |= A_TRIGGER;
        ascii_class[c] = k;
    }
}

/* 13a rule 1: the ASCII symbols that get a space on both sides (c < 128) */
static inline int is_13a_symbol(uint32_t c) { return ascii_class[c] & A_SYMBOL; }

int tb_char_class(uint32_t cp)
{
    if (cp < 256)
        return tb_latin1_class[cp];
    size_t lo = 0, hi = TB_N_CLASS_RANGES;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < tb_class_ranges[mid].first)
            hi = mid;
        else if (cp > tb_class_ranges[mid].last)
            lo = mid + 1;
        else
            return tb_class_ranges[mid].cls;
    }
    return 0;
}

/* tok_zh.py CHINESE_RANGES, including sacreBLEU's two mistyped ranges */
int tb_is_chinese(uint32_t c)
{
    if (c < 0x2001 || c > 0xFFEF)
        return 0;
    return (c >= 0x3400 && c <= 0x4DB5) || (c >= 0x4E00 && c <= 0x9FA5) ||
           (c >= 0x9FA6 && c <= 0x9FBB) || (c >= 0xF900 && c <= 0xFA2D) ||
           (c >= 0xFA30 && c <= 0xFA6A) || (c >= 0xFA70 && c <= 0xFAD9) ||
           (c >= 0x2001 && c <= 0x2A6D) || (c >= 0x2F81 && c <= 0x2FA1) ||
           (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x2E80 && c <= 0x2EFF) ||
           (c >= 0x3000 && c <= 0x303F) || (c >= 0x31C0 && c <= 0x31EF) ||
           (c >= 0x2F00 && c <= 0x2FDF) || (c >= 0x2FF0 && c <= 0x2FFF) ||
           (c >= 0x3100 && c <= 0x312F) || (c >= 0x31A0 && c <= 0x31BF) ||
           (c >= 0xFE10 && c <= 0xFE1F) || (c >= 0xFE30 && c <= 0xFE4F) ||
           (c >= 0x2600 && c <= 0x26FF) || (c >= 0x2700 && c <= 0x27BF) ||
           (c >= 0x3200 && c <= 0x32FF) || (c >= 0x3300 && c <= 0x33FF);
}

/* ------------------------------------------------------------------ */
/* whole-line passes (13a's replacements): read b->cp, write b->tmp, swap */

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
static inline __attribute__((always_inline)) size_t
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

static inline int is_period_or_comma(uint32_t c) { return c == '.' || c == ','; }

/* 13a rule 2: ([^0-9])([.,]) -> "\1 \2 " */
static int match_13a_2(uint32_t a, uint32_t b) { return !is_digit(a) && is_period_or_comma(b); }
/* 13a rule 3: ([.,])([^0-9]) -> " \1 \2" */
static int match_13a_3(uint32_t a, uint32_t b) { return is_period_or_comma(a) && !is_digit(b); }
/* 13a rule 4: ([0-9])(-) -> "\1 \2 " */
static int match_13a_4(uint32_t a, uint32_t b) { return is_digit(a) && b == '-'; }

/* intl's classes and whitespace in one look-up: tb_char_class's bits (1 \p{P},
 * 2 \p{S}, 4 \p{N}) and I_SPACE, derived once from the generated tables for
 * the code points of European text: Latin-1 and General Punctuation (quotes,
 * dashes, spaces). Other code points are looked up in the tables each time. */
enum { I_PUNCT = 1, I_SYMBOL = 2, I_NUMBER = 4, I_SPACE = 8 };
static uint8_t intl_latin1[0x100], intl_general_punctuation[0x70];

static uint8_t intl_class_slow(uint32_t c) { return (uint8_t)((is_space(c) ? I_SPACE : 0) | tb_char_class(c)); }

static void init_intl_classes(void)
{
    for (uint32_t c = 0; c < 0x100; c++)
        intl_latin1[c] = intl_class_slow(c);
    for (uint32_t c = 0; c < 0x70; c++)
        intl_general_punctuation[c] = intl_class_slow(0x2000 + c);
}

/* c's classes and I_SPACE */
static inline int intl_class(uint32_t c)
{
    if (c < 0x100)
        return intl_latin1[c];
    if (c - 0x2000 < 0x70)
        return intl_general_punctuation[c - 0x2000];
    return intl_class_slow(c);
}

/* c's classes alone, as tb_char_class gives them */
static inline __attribute__((always_inline)) int cls(uint32_t c)
{
    if (c < 0x100)
        return intl_latin1[c] & ~I_SPACE;
    if (c - 0x2000 < 0x70)
        return intl_general_punctuation[c - 0x2000] & ~I_SPACE;
    return tb_char_class(c);
}


/* ------------------------------------------------------------------ */
/* lines of two widths                                                 */

/*
 * 13a and intl read every line as UTF-8 ("13a on UTF-8 bytes", "intl on UTF-8
 * bytes" below). The scanners of the other tokenizers are written once over the width of the line they read
 * and always inlined with a constant width, so that each width gets its own loops:
 *   width 1: an ASCII line, its bytes in b->line8. Each byte is a character
 *            and its UTF-8 at once, so tokens are hashed and compared where
 *            they lie, and copied only when a reference vocabulary keeps them;
 *   width 4: any other line, as code points in b->cp.
 * Either buffer holds a ' ' after the line (a sentinel that ends the last
 * word's scan) and TB_BYTES_PAD readable bytes after that.
 */
#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE uint32_t at(const void *s, size_t i, int width)
{
    return width == 1 ? ((const uint8_t *)s)[i] : ((const uint32_t *)s)[i];
}

/* &s[i] */
static ALWAYS_INLINE const void *from(const void *s, size_t i, int width)
{
    return (const char *)s + i * (size_t)width;
}

static ALWAYS_INLINE int space_at(uint32_t c, int width)
{
    return (width == 1 || c < 0x80) ? ascii_class[c] & A_SPACE : is_space(c);
}

/* ------------------------------------------------------------------ */
/* vocabulary                                                          */

/*
 * Token bytes are always followed by at least TB_BYTES_PAD readable bytes (a
 * line buffer and the builder reserve them, a frozen segment has them at its
 * end). So the hash and the comparison of a short token read whole 8-byte
 * words and mask off what follows the token: no loop over its last bytes and
 * no call to memcmp.
 */
static inline uint64_t load_word(const void *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* The first n (0..8) bytes in memory of the word w, zeros in place of the others. */
static inline uint64_t first_bytes(uint64_t w, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    static const uint64_t keep[9] = {0, 0xFFull << 56, 0xFFFFull << 48, 0xFFFFFFull << 40, 0xFFFFFFFFull << 32,
                                     0xFFFFFFFFFFull << 24, 0xFFFFFFFFFFFFull << 16, 0xFFFFFFFFFFFFFFull << 8,
                                     ~0ull};
#else
    static const uint64_t keep[9] = {0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFFFF, 0xFFFFFFFFFFFF,
                                     0xFFFFFFFFFFFFFF, ~0ull};
#endif
    return w & keep[n];
}

/* Both halves of the 128-bit product with an odd constant, folded: every bit
 * of x reaches the low bits (which pick a hash slot). */
static inline uint64_t fold_mix(uint64_t x)
{
    unsigned __int128 r = (unsigned __int128)x * 0xBF58476D1CE4E5B9ull;
    return (uint64_t)(r >> 64) ^ (uint64_t)r;
}

/* A build may keep only the low TB_VOCAB_HASH_BITS bits of every token hash
 * (tiny: most tokens collide, to test the probing and the comparisons). */
#ifdef TB_VOCAB_HASH_BITS
#define HASH_BITS(h) ((uint32_t)(h) & ((1u << TB_VOCAB_HASH_BITS) - 1))
#else
#define HASH_BITS(h) ((uint32_t)(h))
#endif

/* A token's head: its first bytes, up to 8, zeros in place of the others (what
 * a vocabulary slot holds besides its length). */
static inline uint64_t token_head(const char *tok, size_t len)
{
    return first_bytes(load_word(tok), len < 8 ? len : 8);
}

/* The hash of a token of up to 8 bytes: its head's (its length does not enter:
 * two such tokens with one head differ only in trailing NUL bytes). */
static inline uint32_t hash_head(uint64_t head)
{
    return HASH_BITS(fold_mix(head));
}
/* The hash of p[0..n): its head's for up to 8 bytes (nearly every token), else
 * one multiplication per 8 bytes. */
static inline uint32_t hash_bytes(const unsigned char *p, size_t n)
{
    if (n <= 8)
        return hash_head(first_bytes(load_word(p), n));
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    while (n > 8) {
        h = fold_mix(h ^ load_word(p));
        p += 8;
        n -= 8;
    }
    return HASH_BITS(fold_mix(h ^ first_bytes(load_word(p), n)));
}

/* Whether the len bytes at x and y are equal. */
static inline int same_bytes(const char *x, const char *y, size_t len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len - 1 < 7)  /* 1 .. 7 bytes: the low len bytes of one word */
        return ((load_word(x) ^ load_word(y)) & (~0ull >> (8 * (8 - len)))) == 0;
#endif
    return memcmp(x, y, len) == 0;
}

/*
 * A vocabulary's hash table: open addressing with linear probing, at most half
 * full, a token's slot found from its hash. A slot holds the token's head and
 * its length in the tag, so a token of up to 8 bytes is compared without
 * reading the vocabulary; a longer one's other bytes are compared where they
 * lie. A slot is live when its tag has the table's era: a new era empties the
 * table without clearing it. Entries are placed in id order (forget_vocab
 * relies on it).
 */

/* A build may set the eras' bits (small: to reach the wrap, where the table is cleared). */
#ifndef TB_SLOT_ERA_BITS
#define TB_SLOT_ERA_BITS 16
#endif
#define SLOT_ERA_END (1u << TB_SLOT_ERA_BITS)  /* eras are 1 .. SLOT_ERA_END - 1 */

/* The slot of a token of at most 8 bytes (its head and length are all of it,
 * hash h) in slots[0..mask] of era `era`: the one holding it, or an empty one
 * (of another era) where it belongs (the table is never full). */
static ALWAYS_INLINE const tb_slot *probe_short(const tb_slot *slots, size_t mask, uint32_t era, size_t len,
                                                uint64_t head, uint32_t h)
{
    const uint32_t tag = era << 16 | (uint32_t)len;
    for (size_t j = h & mask;; j = (j + 1) & mask) {
        const tb_slot *sl = &slots[j];
        if ((sl->tag == tag && sl->head == head) || sl->tag >> 16 != era)
            return sl;
    }
}

/* probe_short for any token tok[0..len): one of more than 8 bytes is compared
 * in full where it lies (`bytes` and `vocab`: where the table's tokens lie). */
static ALWAYS_INLINE const tb_slot *probe(const tb_slot *slots, size_t mask, uint32_t era, const char *tok,
                                          size_t len, uint64_t head, uint32_t h, const char *bytes,
                                          const tb_tok *vocab)
{
    if (len <= 8)
        return probe_short(slots, mask, era, len, head, h);
    const uint32_t tag = tb_slot_tag(era, len);
    for (size_t j = h & mask;; j = (j + 1) & mask) {
        const tb_slot *sl = &slots[j];
        if (sl->tag == tag && sl->head == head && vocab[sl->id].len == len &&
            same_bytes(bytes + vocab[sl->id].off + 8, tok + 8, len - 8))
            return sl;
        if (sl->tag >> 16 != era)
            return sl;
    }
}

/* Whether a slot probe() found is live (holds the token). */
static ALWAYS_INLINE int slot_live(const tb_slot *sl, uint32_t era) { return sl->tag >> 16 == era; }

/* Places the entries of vocab[0..n) into slots[0..cap) (none of era `era`), in id order. */
static void fill_slots(tb_slot *slots, size_t cap, uint32_t era, const tb_tok *vocab, size_t n, const char *bytes)
{
    for (size_t id = 0; id < n; id++) {
        const tb_tok *e = &vocab[id];
        size_t j = e->hash & (cap - 1);
        while (slot_live(&slots[j], era))
            j = (j + 1) & (cap - 1);
        slots[j] = (tb_slot){token_head(bytes + e->off, e->len), tb_slot_tag(era, e->len), (uint32_t)id};
    }
}

static int vocab_rehash(tb_builder *b, size_t ncap)
{
    tb_slot *slots = calloc(ncap, sizeof(tb_slot));  /* (tags of era 0: empty) */
    if (!slots)
        return -1;
    fill_slots(slots, ncap, b->slot_era, b->vocab, b->nvocab, b->bytes);
    free(b->slots);
    b->slots = slots;
    b->slots_cap = ncap;
    return 0;
}

/* The smallest table a builder has (a segment of up to 32 distinct tokens). */
#define MIN_SLOTS 64

/* vocab_intern with the token's head known. */
static ALWAYS_INLINE int64_t vocab_intern_head(tb_builder *b, const char *tok, size_t len, uint64_t head,
                                               uint32_t h, int kept)
{
    const uint32_t era = b->slot_era;  /* (the table exists: tb_builder_add_line) */
    tb_slot *sl = (tb_slot *)probe(b->slots, b->slots_cap - 1, era, tok, len, head, h, b->bytes, b->vocab);
    if (slot_live(sl, era))
        return sl->id;
    size_t id = b->nvocab;
    if (kept) {
        b->vocab[id] = (tb_tok){h, (uint32_t)(tok - b->bytes), (uint32_t)len};
    } else {
        if (GROW(b->vocab, b->vocab_cap, id + 1) < 0)
            return -1;
        char *o = b->bytes + b->nbytes;
        if (tok != o) {
            /* from a line buffer: whole words (both sides have room for the
             * last one, see tb_builder_add_line) */
            for (size_t i = 0; i < len; i += 8)
                memcpy(o + i, tok + i, 8);
        }
        memset(o + len, 0, TB_BYTES_PAD);
        b->vocab[id] = (tb_tok){h, (uint32_t)b->nbytes, (uint32_t)len};
        b->nbytes += len;
    }
    *sl = (tb_slot){head, tb_slot_tag(era, len), (uint32_t)id};
    b->nvocab = id + 1;
    if (b->nvocab * 2 > b->slots_cap && vocab_rehash(b, b->slots_cap * 2) < 0)
        return -1;
    return (int64_t)id;
}

/* Id of the token tok[0..len) with hash h; adds it if new, copying its bytes
 * to the end of b->bytes unless they are there already, or (`kept`) are kept
 * where they are in b->bytes, room for the entry reserved (the 13a byte path). */
static ALWAYS_INLINE int64_t vocab_intern(tb_builder *b, const char *tok, size_t len, uint32_t h, int kept)
{
    return vocab_intern_head(b, tok, len, token_head(tok, len), h, kept);
}

/* seg_find with the token's head known. */
static ALWAYS_INLINE uint32_t seg_find_head(const tb_seg *seg, const char *tok, size_t len, uint64_t head,
                                            uint32_t hash)
{
    const tb_slot *sl = probe(seg->vslots, seg->vcap - 1, seg->vera, tok, len, head, hash, seg->bytes, seg->vocab);
    return slot_live(sl, seg->vera) ? sl->id : TB_ABSENT;
}

static ALWAYS_INLINE uint32_t seg_find(const tb_seg *seg, const char *tok, uint32_t len, uint32_t hash)
{
    return seg_find_head(seg, tok, len, token_head(tok, len), hash);
}

uint32_t tb_seg_find(const tb_seg *seg, const char *tok, uint32_t len, uint32_t hash)
{
    return seg_find(seg, tok, len, hash);
}

/* ------------------------------------------------------------------ */
/* emitting tokens                                                     */

static inline size_t utf8_put(char *o, uint32_t c)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | (c >> 6));
        o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {  /* lone surrogates included: only equality matters */
        o[0] = (char)(0xE0 | (c >> 12));
        o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (c >> 18));
    o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Where a token's id comes from: b->lookup if set, else b's vocabulary (the
 * generic paths); or, known to the caller, the vocabulary keeping the token
 * where it lies (a reference line of the 13a byte path), or b->lookup. */
enum token_home { HOME_ANY, HOME_KEPT, HOME_LOOKUP };

/* Appends the token s[0..len) to the current sequence: its id in b->lookup
 * (a hypothesis: only its ids in the reference vocabulary matter, nothing is
 * stored) or in b's own vocabulary. Room for its id and bytes was reserved
 * for the whole line. `ascii` (width 4) says the caller knows every code
 * point is below 0x80 (then the UTF-8 is a plain narrowing copy). */
static ALWAYS_INLINE int append_token(tb_builder *b, const void *s, size_t len, int width, int ascii,
                                      enum token_home home)
{
    if (width == 1 && len == 1) {  /* one byte (an ASCII character): its id may be known */
        uint8_t c = *(const uint8_t *)s;
        if (b->char_era[c] == b->era) {
            b->ids[b->nids++] = b->char_id[c];
            return 0;
        }
    }
    const char *tok = s;  /* width 1: the bytes are the token's UTF-8 */
    size_t k = len;
    if (width == 4) {  /* UTF-8 after the vocabulary's bytes: kept there if new */
        char *o = b->bytes + b->nbytes;
        const uint32_t *c = s;
        if (ascii) {
            for (size_t i = 0; i < len; i++)
                o[i] = (char)c[i];
        } else {
            k = 0;
            for (size_t i = 0; i < len; i++) {
                if (c[i] < 0x80)
                    o[k++] = (char)c[i];
                else
                    k += utf8_put(o + k, c[i]);
            }
        }
        tok = o;
    }
    uint64_t head = token_head(tok, k);
    uint32_t h = k <= 8 ? hash_head(head) : hash_bytes((const unsigned char *)tok, k);
    int64_t id = home == HOME_LOOKUP ? (int64_t)seg_find_head(b->lookup, tok, k, head, h)
                 : home == HOME_KEPT ? vocab_intern_head(b, tok, k, head, h, 1)
                 : b->lookup ? (int64_t)seg_find_head(b->lookup, tok, k, head, h)
                 : vocab_intern_head(b, tok, k, head, h, 0);
    if (id < 0)
        return -1;
    if (width == 1 && len == 1) {
        uint8_t c = *(const uint8_t *)s;
        b->char_era[c] = b->era;
        b->char_id[c] = (uint32_t)id;
    }
    b->ids[b->nids++] = (uint32_t)id;
    return 0;
}

/* append_token after spending the token's share of b->poll's budget (the
 * 13a byte path spends per line instead) */
static ALWAYS_INLINE int emit_token(tb_builder *b, const void *s, size_t len, int width, int ascii)
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

static ALWAYS_INLINE int emit(tb_builder *b, const void *s, size_t len, int width)
{
    if (width == 1 && __builtin_constant_p(len) && len == 1)
        return emit_u8_char(b, s);
    return width == 1 ? emit_u8(b, s, len) : emit_u32(b, s, len);
}

/* ------------------------------------------------------------------ */
/* one-character tokens (char, zh, intl's punctuation and symbols)     */

/*
 * The id of a one-character token depends only on the character (and on the
 * vocabulary or reference segment, which change with b->era), so it is
 * remembered: an ASCII character's in b->char_id (as emit_token does), any
 * other's in b->cp_id, a direct-mapped cache indexed by the low bits of the
 * code point (Chinese text and the few non-ASCII punctuation marks of a
 * European line are runs of nearby code points). Only a character seen for
 * the first time in an era (or evicted by another with the same low bits)
 * pays for its UTF-8, hash and lookup.
 */
static inline uint64_t cp_key(uint32_t era, uint32_t c) { return (uint64_t)era << 21 | c; }  /* != 0 */

/* Whether the id of the one-character token c is remembered in this era (then *id is it). */
static ALWAYS_INLINE int known_char(const tb_builder *b, uint32_t era, uint32_t c, uint32_t *id)
{
    if (c < 0x80) {
        *id = b->char_id[c];
        return b->char_era[c] == era;
    }
    size_t slot = c & (TB_CP_CACHE - 1);
    *id = b->cp_id[slot];
    return b->cp_key[slot] == cp_key(era, c);
}

/* Appends the one-character token c, not known yet, and remembers its id
 * (emit_token's work for one character, without its checks: the caller
 * reserved room for the line and spends its poll budget). */
static __attribute__((noinline)) int emit_new_char(tb_builder *b, uint32_t c)
{
    char *o = b->bytes + b->nbytes;  /* its UTF-8 after the vocabulary's bytes: kept there if new */
    size_t k = utf8_put(o, c);
    uint64_t head = token_head(o, k);  /* (k <= 4) */
    uint32_t h = hash_head(head);
    int64_t id = b->lookup ? (int64_t)seg_find_head(b->lookup, o, k, head, h) : vocab_intern_head(b, o, k, head, h, 0);
    if (id < 0)
        return -1;
    if (c < 0x80) {
        b->char_era[c] = b->era;
        b->char_id[c] = (uint32_t)id;
    } else {
        size_t slot = c & (TB_CP_CACHE - 1);
        b->cp_key[slot] = cp_key(b->era, c);
        b->cp_id[slot] = (uint32_t)id;
    }
    b->ids[b->nids++] = (uint32_t)id;
    return 0;
}

/* Appends the one-character token c (room reserved as for emit_token). Does
 * not poll: the caller spends the line's budget. */
static ALWAYS_INLINE int emit_char(tb_builder *b, uint32_t c)
{
    uint32_t id;
    if (known_char(b, b->era, c, &id)) {
        b->ids[b->nids++] = id;
        return 0;
    }
    return emit_new_char(b, c);
}

/* s[0..n) holds no whitespace but the ' ' the rules inserted: one token per run */
static ALWAYS_INLINE int emit_space_separated(tb_builder *b, const void *s, size_t n, int width)
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

/* Room for the rules on a stretch of n code points plus two context spaces. */
static int reserve_small(tb_builder *b, size_t n, int passes)
{
    size_t need = (n + 2) << passes;
    return (u32_reserve(&b->tmp, need) < 0 || u32_reserve(&b->tmp2, need) < 0) ? -1 : 0;
}

/* x = the stretch s[0..n) as code points, with a space before/after it
 * standing for the whitespace around it; returns the length written. */
static ALWAYS_INLINE size_t copy_with_context(uint32_t *x, const void *s, size_t n, int before, int after,
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
static ALWAYS_INLINE int hard_13a(tb_builder *b, const void *s, size_t n, int before, int after, int width)
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
static ALWAYS_INLINE int scan_13a(tb_builder *b, const void *s, size_t n, int padded, int zh, int width)
{
    size_t i = 0;
    while (i < n) {
        uint32_t c = at(s, i, width);
        if (space_at(c, width)) {
            i++;
            continue;
        }
        if (((width == 1 || c < 0x80) && is_13a_symbol(c)) || (width == 4 && zh && tb_is_chinese(c))) {
            if (emit(b, from(s, i, width), 1, width) < 0)
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
            } else if (is_space(d) || (zh && tb_is_chinese(d))) {
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

static ALWAYS_INLINE int tokenize_zh(tb_builder *b, const void *s, size_t n, int width)
{
    /* line.strip(): the trailing side is already stripped */
    size_t start = 0;
    while (start < n && space_at(at(s, start, width), width))
        start++;
    return scan_13a(b, from(s, start, width), n - start, 0, 1, width);
}

static ALWAYS_INLINE int tokenize_none(tb_builder *b, const void *s, size_t n, int width)
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

/* Every character but whitespace is a token: one cache look-up each (known_char).
 * The poll budget is spent a block of characters at a time (a line may be long). */
static ALWAYS_INLINE int scan_char(tb_builder *b, const void *s, size_t n, int width)
{
    const uint32_t era = b->era;
    uint32_t *out = b->ids + b->nids, id;  /* (kept in a register: a store through b->ids may alias) */
    for (size_t i = 0; i < n;) {
        size_t end = n - i > 4096 ? i + 4096 : n;
        if (tb_poll_spend(b->poll, 2 * (long)(end - i))) {  /* what one emit_token per character spends */
            b->nids = (size_t)(out - b->ids);
            return -1;
        }
        for (; i < end; i++) {
            uint32_t c = at(s, i, width);
            if (known_char(b, era, c, &id)) {  /* (never whitespace: it is never a token) */
                *out++ = id;
                continue;
            }
            if (space_at(c, width))
                continue;
            b->nids = (size_t)(out - b->ids);
            if (emit_new_char(b, c) < 0)
                return -1;
            out = b->ids + b->nids;
        }
    }
    b->nids = (size_t)(out - b->ids);
    return 0;
}

/* char, one function per width, kept out of tb_builder_add_line: its other
 * scanners are compiled as well as without them. */
static __attribute__((noinline)) int tokenize_char_u8(tb_builder *b, const void *s, size_t n)
{
    return scan_char(b, s, n, 1);
}

static __attribute__((noinline)) int tokenize_char_u32(tb_builder *b, const void *s, size_t n)
{
    return scan_char(b, s, n, 4);
}

static ALWAYS_INLINE int tokenize_char(tb_builder *b, const void *s, size_t n, int width)
{
    return width == 1 ? tokenize_char_u8(b, s, n) : tokenize_char_u32(b, s, n);
}

/* The tokenizer `mode` (not 13a or intl: see tokenize_13a_bytes, tokenize_intl_bytes)
 * on s[0..n) (s[n] is a space). */
static ALWAYS_INLINE int tokenize(tb_builder *b, const void *s, size_t n, int mode, int width)
{
    switch (mode) {
    case TB_ZH: return tokenize_zh(b, s, n, width);
    case TB_CHAR: return tokenize_char(b, s, n, width);
    default: return tokenize_none(b, s, n, width);
    }
}

/* ------------------------------------------------------------------ */
/* reading a line                                                      */

/* Whether d[0..n) is ASCII. */
static int plain_ascii(const uint8_t *d, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    __m128i high = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16)
        high = _mm_or_si128(high, _mm_loadu_si128((const __m128i *)(d + i)));
    if (_mm_movemask_epi8(high))
        return 0;
#endif
    for (; i < n; i++) {
        if (d[i] >= 0x80)
            return 0;
    }
    return 1;
}

/* If the line is ASCII (kind 1, or UTF-8): its bytes, rstripped and lowercased
 * if asked, into b->line8 (then a space and TB_BYTES_PAD zeros), and 1.
 * Otherwise 0 (or -1: out of memory). */
static int read_ascii(tb_builder *b, const tb_text *t)
{
    const uint8_t *d = t->data;
    size_t n = t->length;
    if (t->kind != 1 && t->kind != TB_KIND_UTF8)
        return 0;
    while (n > 0 && d[n - 1] < 0x80 && (ascii_class[d[n - 1]] & A_SPACE))  /* line.rstrip() */
        n--;
    if (!plain_ascii(d, n))
        return 0;
    if (tb_grow((void **)&b->line8, &b->line8_cap, n + 1 + TB_BYTES_PAD, 1) < 0)
        return -1;
    uint8_t *o = b->line8;
    if (t->ascii_lower) {
        for (size_t i = 0; i < n; i++)
            o[i] = d[i] + ((uint8_t)(d[i] - 'A') < 26 ? 32 : 0);
    } else {
        memcpy(o, d, n);
    }
    o[n] = ' ';
    memset(o + n + 1, 0, TB_BYTES_PAD);
    b->line8_n = n;
    return 1;
}

/* The line as code points into b->cp, rstripped, with room for a space after it. */
static int read_code_points(tb_builder *b, const tb_text *t)
{
    size_t n = t->length;
    if (u32_reserve(&b->cp, n + 2) < 0)
        return -1;
    uint32_t *a = b->cp.a;
    if (t->kind == 1 || (t->kind == TB_KIND_UTF8 && t->ascii_lower)) {  /* UTF-8: an ASCII line */
        const uint8_t *d = t->data;
        if (t->ascii_lower) {
            for (size_t i = 0; i < n; i++)
                a[i] = d[i] + ((d[i] >= 'A' && d[i] <= 'Z') ? 32 : 0);
        } else {
            for (size_t i = 0; i < n; i++)
                a[i] = d[i];
        }
    } else if (t->kind == TB_KIND_UTF8) {
        const uint8_t *d = t->data;
        size_t m = 0;
        for (size_t i = 0; i < n; m++) {
            if (d[i] < 0x80)
                a[m] = d[i++];
            else
                i += tb_utf8_decode(d + i, n - i, &a[m]);
        }
        n = m;
    } else if (t->kind == 2) {
        const uint16_t *d = t->data;
        for (size_t i = 0; i < n; i++)
            a[i] = d[i];
    } else {
        memcpy(a, t->data, n * sizeof(uint32_t));
    }
    while (n > 0 && is_space(a[n - 1]))  /* line.rstrip() */
        n--;
    b->cp.n = n;
    return 0;
}

/* Room for the tokens of a line of n characters at `bytes_per_char` bytes
 * each at most: every token is a run of the line's characters (after the 13a
 * replacements, which only shorten the line), so the tokens of the line have
 * at most n ids and n * bytes_per_char bytes; then the padding read after a
 * token, or written after one copied in whole words. */
static int line_room(tb_builder *b, size_t n, size_t bytes_per_char)
{
    /* and the limits of a segment's uint32 counts (the line's new tokens at most n) */
    if (b->nvocab + n >= UINT32_MAX - 1 || b->nbytes + bytes_per_char * n >= UINT32_MAX)
        return -1;
    return tb_grow((void **)&b->bytes, &b->bytes_cap, b->nbytes + bytes_per_char * n + TB_BYTES_PAD, 1) < 0 ||
           GROW(b->ids, b->ids_cap, b->nids + n) < 0 ? -1 : 0;
}

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

/* Bytes after the sentinel of a line in b->line8, zeros: the 64-byte blocks
 * that hold the line and its sentinel are readable (plain_bits). */
#define LINE8_PAD 64

/* d[0..n) to o, lowercasing A-Z if asked (o may not overlap d). */
static void copy_ascii_lower(uint8_t *o, const uint8_t *d, size_t n, int lower)
{
    if (!lower) {
        memcpy(o, d, n);
        return;
    }
    size_t i = 0;
#if defined(__SSE2__)
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
#if defined(__SSE2__)
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
#if defined(__SSE2__)
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

/* The most bytes the UTF-8 of a line can take (before rstrip): a code point
 * below 0x100 takes 2 at most, one below 0x10000 3, any other 4. */
static size_t utf8_bound(const tb_text *t)
{
    static const size_t per_code_point[5] = {1, 2, 3, 3, 4};  /* by kind (TB_KIND_UTF8: the bytes) */
    return per_code_point[t->kind] * t->length;
}

/* Bytes (code points) of a line read, or classified, between two spends of
 * b->poll's budget: a long line's passes before the scan are polled too. */
#define POLL_BYTES 65536

/* The line as UTF-8 into o (room for utf8_bound + 1 + LINE8_PAD bytes),
 * rstripped, then a space (the sentinel) and LINE8_PAD zeros; its length in
 * *len. -1 when b->poll asked to stop. */
static int read_utf8(tb_builder *b, uint8_t *o, const tb_text *t, size_t *len)
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

/* Which bytes a tokenizer's scan can step over without looking at them. */
enum plain_kind {
    PLAIN_13A,   /* ASCII letters, digits and the apostrophe: none of them is a space, a 13a
                  * symbol or one of '.', ',', '-' */
    PLAIN_INTL,  /* ASCII letters and digits (the apostrophe is a \p{P}) */
};

/* Bit i of the 16 bits: s[i] is plain for the kind (a constant at every call,
 * so each tokenizer gets its own classifier). */
static ALWAYS_INLINE unsigned plain16(const uint8_t *s, enum plain_kind kind)
{
#if defined(__SSE2__)
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
static ALWAYS_INLINE int plain_bits(tb_builder *b, const uint8_t *s, size_t n, enum plain_kind kind)
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
static ALWAYS_INLINE size_t next_other(const uint64_t *plain, size_t j)
{
    size_t q = j >> 6;
    uint64_t w = ~plain[q] >> (j & 63);
    if (w)
        return j + (size_t)__builtin_ctzll(w);
    while (!~plain[++q])
        ;
    return (q << 6) + (size_t)__builtin_ctzll(~plain[q]);
}

/* hard_13a on a stretch of UTF-8 bytes, as the code-point version but on
 * bytes (see above), a space on both sides (the line is padded). */
static int hard_13a_bytes(tb_builder *b, const uint8_t *s, size_t n, enum token_home home)
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
    /* rule 2: ([^0-9])([.,]) -> "\1 \2 " */
    size_t m = 0;
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
    /* The rules only insert spaces: the tokens are the stretch's bytes in
     * order, so each is taken from the line (where a reference keeps it). */
    size_t at_s = 0;
    for (i = 0; i < m;) {
        if (y[i] == ' ') {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < m && y[j] != ' ')
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
static __attribute__((noinline)) size_t scan_13a_item(tb_builder *b, const uint8_t *s, size_t i,
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
        j = next_other(b->plain, j);
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
        /* no rule applies: one token ("well-known", "3.5", "1,000") */
        rc = append_token(b, s + i, len, 1, 1, home);
    } else if (!dash_after_digit && loose == 1 && last_loose == j - 1 && len >= 2) {
        /* "word," or "1,000.": rule 2 or 3 splits the last character off, and
         * no rule touches the rest (its '.' and ',' are between digits) */
        rc = append_token(b, s + i, len - 1, 1, 1, home);
        if (rc == 0)
            rc = append_token(b, s + j - 1, 1, 1, 1, home);
    } else {
        rc = hard_13a_bytes(b, s + i, len, home);
    }
    return rc < 0 ? ITEM_FAILED : j + (s[j] == ' ');  /* (a space: the commonest next item) */
}

/*
 * The hot loop's vocabulary: the builder's table and vocabulary (a reference
 * line: its tokens are added) or b->lookup's table (a hypothesis line), and
 * the next id's place, held in local variables. (Reached through b, they
 * would be read again after every store of an id, an entry or a slot, any of
 * which may alias them for the compiler.)
 */
typedef struct {
    tb_slot *slots;
    size_t mask;
    uint32_t era;
    const char *bytes;  /* where the tokens of the table lie */
    tb_tok *vocab;      /* and their entries (kept: nvocab of them, new ones appended) */
    size_t nvocab;
    uint32_t line_off;  /* kept: the line's offset in b->bytes */
    uint32_t *out;
} hot_vocab;

static ALWAYS_INLINE void hot_begin(tb_builder *b, hot_vocab *v, const uint8_t *s, int kept)
{
    if (kept) {
        v->slots = b->slots;
        v->mask = b->slots_cap - 1;
        v->era = b->slot_era;
        v->bytes = b->bytes;
        v->vocab = b->vocab;
        v->nvocab = b->nvocab;
        v->line_off = (uint32_t)((const char *)s - b->bytes);
    } else {
        const tb_seg *seg = b->lookup;
        v->slots = (tb_slot *)seg->vslots;  /* (only read) */
        v->mask = seg->vcap - 1;
        v->era = seg->vera;
        v->bytes = seg->bytes;
        v->vocab = (tb_tok *)seg->vocab;    /* (only read) */
    }
    v->out = b->ids + b->nids;
}

static ALWAYS_INLINE void hot_end(tb_builder *b, const hot_vocab *v, int kept)
{
    if (kept)
        b->nvocab = v->nvocab;
    b->nids = (size_t)(v->out - b->ids);
}

/* The new token s[at .. at+len) (hash h, head `head`, tag `tag`) into the
 * empty slot sl, kept where it lies (room reserved for the line); its id. */
static ALWAYS_INLINE int64_t hot_add(tb_builder *b, hot_vocab *v, const uint8_t *s, size_t at, size_t len,
                                     uint32_t h, uint64_t head, uint32_t tag, tb_slot *sl)
{
    uint32_t id = (uint32_t)v->nvocab++;
    v->vocab[id] = (tb_tok){h, v->line_off + (uint32_t)at, (uint32_t)len};
    *sl = (tb_slot){head, tag, id};
    if (v->nvocab * 2 > v->mask + 1) {  /* more than half full */
        hot_end(b, v, 1);
        if (vocab_rehash(b, b->slots_cap * 2) < 0)
            return -1;
        hot_begin(b, v, s, 1);
    }
    return id;
}

/* Appends the token s[at .. at+len) (len > 0), a plain word or one symbol: its
 * id in the table, added if new and `kept`. A token of up to 8 bytes, nearly
 * every one, is its head: hashed by one multiplication and compared within
 * its slot. 0, or -1: out of memory. */
static ALWAYS_INLINE int hot_token(tb_builder *b, hot_vocab *v, const uint8_t *s, size_t at, size_t len, int kept)
{
    const char *tok = (const char *)s + at;
    uint64_t head;
    uint32_t h, tag;
    const tb_slot *sl;
    if (len <= 8) {
        head = first_bytes(load_word(tok), len);
        h = hash_head(head);
        tag = v->era << 16 | (uint32_t)len;
        sl = probe_short(v->slots, v->mask, v->era, len, head, h);
    } else {
        head = load_word(tok);
        h = hash_bytes((const unsigned char *)tok, len);
        tag = tb_slot_tag(v->era, len);
        sl = probe(v->slots, v->mask, v->era, tok, len, head, h, v->bytes, v->vocab);
    }
    int64_t id = slot_live(sl, v->era) ? sl->id
                 : !kept ? TB_ABSENT
                 : hot_add(b, v, s, at, len, h, head, tag, (tb_slot *)sl);
    if (id < 0)
        return -1;
    *v->out++ = (uint32_t)id;
    return 0;
}

/* The hot loop: the items of the commonest kinds from s[i] on (a plain word
 * then a space, a symbol, or ", " or ". "; a symbol alone), up to the first
 * of another kind or `stop`; returns the index where it stopped, or ITEM_FAILED. */
static ALWAYS_INLINE size_t hot_items(tb_builder *b, const uint8_t *s, size_t i, size_t stop, int kept)
{
    const uint64_t *plain = b->plain;
    hot_vocab v;
    hot_begin(b, &v, s, kept);
    while (i < stop) {
        /* the word s[i..j) (maybe empty), then c: a space (the commonest), a
         * symbol (a token), or ", " or ". " (',' or '.' a token: rule 2 or 3
         * splits it off); any other item is not for this loop */
        size_t j = next_other(plain, i);
        uint8_t c = s[j];
        if (c == ' ') {
            if (j > i && hot_token(b, &v, s, i, j - i, kept) < 0)
                return ITEM_FAILED;
            i = j + 1;
            continue;
        }
        if (ascii_class[c] != A_SYMBOL && !((c == ',' || c == '.') && s[j + 1] == ' '))
            break;
        if ((j > i && hot_token(b, &v, s, i, j - i, kept) < 0) || hot_token(b, &v, s, j, 1, kept) < 0)
            return ITEM_FAILED;
        i = j + 1 + (s[j + 1] == ' ');  /* (a space after it: the commonest next item) */
    }
    hot_end(b, &v, kept);
    return i;
}

static __attribute__((noinline)) size_t hot_items_kept(tb_builder *b, const uint8_t *s, size_t i, size_t stop)
{
    return hot_items(b, s, i, stop, 1);
}

static __attribute__((noinline)) size_t hot_items_lookup(tb_builder *b, const uint8_t *s, size_t i, size_t stop)
{
    return hot_items(b, s, i, stop, 0);
}

static ALWAYS_INLINE int scan_13a_bytes(tb_builder *b, const uint8_t *s, size_t n, int kept, int replaced)
{
    enum token_home home = kept ? HOME_KEPT : HOME_LOOKUP;
    size_t i = 0, spent = 0;
    while (i < n) {
        size_t stop = n - i > POLL_BYTES ? i + POLL_BYTES : n;
        while (i < stop) {
            i = kept ? hot_items_kept(b, s, i, stop) : hot_items_lookup(b, s, i, stop);
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

static void new_era(tb_builder *b);

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
    new_era(b);
}

/* A line's UTF-8 where its scan reads it, and what the scan needs: a
 * reference's line is written after the vocabulary's bytes and stays there (its
 * tokens are kept where they lie, no copy); a hypothesis's goes to b->line8.
 * Then its plain bits (of the kind), and room for its ids and vocabulary
 * entries, so that b->bytes does not move during the scan. The line's start
 * (its length in *n), or NULL: out of memory or b->poll asked to stop. */
static ALWAYS_INLINE uint8_t *place_line(tb_builder *b, const tb_text *t, enum plain_kind kind,
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
    if (read_utf8(b, s, t, n) < 0 || plain_bits(b, s, *n, kind) < 0 || line_room(b, *n, 1) < 0 ||
        (kept && GROW(b->vocab, b->vocab_cap, b->nvocab + *n) < 0))
        return NULL;
    return s;
}

/* tokenize_13a on any line: its UTF-8 (place_line), the replacements, the scan. */
static int tokenize_13a_bytes(tb_builder *b, const tb_text *t)
{
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
        if (plain_bits(b, s, n, PLAIN_13A) < 0)
            return -1;
        rc = kept ? scan_13a_bytes(b, s, n, 1, 1) : scan_13a_bytes(b, s, n, 0, 1);
    }
    if (rc < 0)
        return -1;
    if (kept)
        b->nbytes += n;  /* the line; the next one may overwrite its sentinel */
    return 0;
}

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
 * bit of b->plain), and a stretch of plain bytes up to a ' ' is a token with no
 * look-up per character. Every other byte starts a character that is decoded
 * (when not ASCII) and classified (intl_class) by scan_intl_item, which sorts
 * the stretch into the shapes of the old scanner.
 */

/* The code point of the (valid UTF-8) character at p into *c; its length in bytes. */
static ALWAYS_INLINE size_t utf8_char(const uint8_t *p, uint32_t *c)
{
    if (p[0] < 0x80) {
        *c = p[0];
        return 1;
    }
    return tb_utf8_decode(p, 4, c);  /* (a line is followed by a sentinel and padding) */
}

/* The length of the UTF-8 of c (utf8_put's). */
static ALWAYS_INLINE size_t utf8_length(uint32_t c)
{
    return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/* Appends the one-character token c, whose UTF-8 is p[0..len) in the line,
 * and remembers its id as emit_char does (append_token does so for ASCII). */
static ALWAYS_INLINE int intl_char_token(tb_builder *b, const uint8_t *p, size_t len, uint32_t c,
                                         enum token_home home)
{
    if (len == 1)
        return append_token(b, p, 1, 1, 1, home);
    uint32_t id;
    if (known_char(b, b->era, c, &id)) {
        b->ids[b->nids++] = id;
        return 0;
    }
    if (append_token(b, p, len, 1, 1, home) < 0)
        return -1;
    size_t slot = c & (TB_CP_CACHE - 1);
    b->cp_key[slot] = cp_key(b->era, c);
    b->cp_id[slot] = b->ids[b->nids - 1];
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
    /* the stretch s[i..j) of the line s (b->plain: its ASCII letters and digits, skipped) */
    size_t start = i, number_end = before ? SIZE_MAX : i;  /* after the last other \p{N} (or, first
                                                            * on the line, as after one) */
    for (size_t k = next_other(b->plain, i); k < j; k = next_other(b->plain, k)) {
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
static ALWAYS_INLINE int intl_run_token(tb_builder *b, const uint8_t *s, const uint32_t *off, size_t first,
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
static __attribute__((noinline)) size_t scan_intl_item(tb_builder *b, const uint8_t *s, size_t i, size_t n,
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
        j = next_other(b->plain, j);  /* (plain: ASCII letters and digits) */
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

/* intl on s[0..n) (b->plain its plain bytes). The hot loop takes the
 * commonest items inline: letters and digits up to a ' ' (one token), and up
 * to an ASCII \p{P} or \p{S} and a ' ' ("word," "word." "word)": two tokens,
 * rule 1 or 2 splits the \p{P} off, unless a digit ends the line with it, "in
 * 2021.", and rule 3 the \p{S}); scan_intl_item every other. 0 done, -1 out of
 * memory or b->poll asked to stop. */
static ALWAYS_INLINE int scan_intl_bytes(tb_builder *b, const uint8_t *s, size_t n, enum token_home home)
{
    const uint64_t *plain = b->plain;
    size_t i = 0, spent = 0;
    while (i < n) {
        size_t stop = n - i > POLL_BYTES ? i + POLL_BYTES : n;
        while (i < stop) {
            size_t j = next_other(plain, i);
            if (j > i && s[j] == ' ') {
                if (append_token(b, s + i, j - i, 1, 1, home) < 0)
                    return -1;
                i = j + 1;
            } else if (j > i && s[j + 1] == ' ' && (intl_latin1[s[j]] & (I_PUNCT | I_SYMBOL)) &&
                       (j + 1 < n || !is_digit(s[j - 1]) || (intl_latin1[s[j]] & I_SYMBOL))) {
                if (append_token(b, s + i, j - i, 1, 1, home) < 0 || append_token(b, s + j, 1, 1, 1, home) < 0)
                    return -1;
                i = j + 2;
            } else if ((i = scan_intl_item(b, s, i, n, home)) == INTL_ITEM_FAILED) {
                return -1;
            }
        }
        if (tb_poll_spend(b->poll, (long)(i - spent)))
            return -1;
        spent = i;
    }
    return 0;
}

/* intl on any line: its UTF-8 (place_line: rstripped, ASCII lowercased if asked), the scan. */
static int tokenize_intl_bytes(tb_builder *b, const tb_text *t)
{
    int kept = b->lookup == NULL;
    size_t n;
    uint8_t *s = place_line(b, t, PLAIN_INTL, &n);
    if (s == NULL)
        return -1;
    if ((kept ? scan_intl_bytes(b, s, n, HOME_KEPT) : scan_intl_bytes(b, s, n, HOME_LOOKUP)) < 0)
        return -1;
    if (kept)
        b->nbytes += n;  /* the line; the next one may overwrite its sentinel */
    return 0;
}

/* ------------------------------------------------------------------ */
/* builder                                                             */

void tb_builder_init(tb_builder *b)
{
    memset(b, 0, sizeof(*b));
    b->era = b->slot_era = 1;
}

/* Forgets the ids of one-character tokens (a new vocabulary, or another one to look in). */
static void new_era(tb_builder *b)
{
    if (++b->era == 0) {
        memset(b->char_era, 0, sizeof(b->char_era));
        memset(b->cp_key, 0, sizeof(b->cp_key));
        b->era = 1;
    }
    b->era_lookup = b->lookup;
}

void tb_init_tables(void)
{
    init_ascii_class();
    init_intl_classes();
}

void tb_builder_free(tb_builder *b)
{
    free(b->line8);
    free(b->plain);
    free(b->cp.a);
    free(b->tmp.a);
    free(b->tmp2.a);
    free(b->bytes);
    free(b->vocab);
    free(b->slots);
    free(b->ids);
    free(b->seq_len);
    tb_builder_init(b);
}

void tb_builder_reset(tb_builder *b)
{
    if (++b->slot_era == SLOT_ERA_END) {  /* (every 65,535 resets) */
        if (b->slots)
            memset(b->slots, 0, b->slots_cap * sizeof(tb_slot));
        b->slot_era = 1;
    }
    b->nbytes = b->nvocab = b->nids = b->nseq = 0;
    new_era(b);
}

int tb_builder_add_line(tb_builder *b, const tb_text *t, int mode)
{
    if (tb_poll_spend(b->poll, 16))
        return -1;
    if (b->lookup != b->era_lookup)
        new_era(b);
    if (!b->lookup && !b->slots_cap && vocab_rehash(b, MIN_SLOTS) < 0)  /* the vocabulary's first table */
        return -1;
    size_t first = b->nids;
    int ascii = mode == TB_13A || mode == TB_INTL ? 0 : read_ascii(b, t), rc;
    if (mode == TB_13A) {
        rc = tokenize_13a_bytes(b, t);
    } else if (mode == TB_INTL) {
        rc = tokenize_intl_bytes(b, t);
    } else if (ascii < 0) {
        return -1;
    } else if (ascii) {
        const uint8_t *s = b->line8;
        size_t n = b->line8_n;
        if (line_room(b, n, 1) < 0)
            return -1;
        switch (mode) {  /* each case: the scanners inlined for this mode and width */
        case TB_ZH: rc = tokenize(b, s, n, TB_ZH, 1); break;
        case TB_CHAR: rc = tokenize(b, s, n, TB_CHAR, 1); break;
        default: rc = tokenize(b, s, n, TB_NONE, 1); break;
        }
    } else {
        if (read_code_points(b, t) < 0 || line_room(b, b->cp.n, 4) < 0)
            return -1;
        const uint32_t *s = b->cp.a;
        size_t n = b->cp.n;
        b->cp.a[n] = ' ';  /* the sentinel */
        switch (mode) {
        case TB_ZH: rc = tokenize(b, s, n, TB_ZH, 4); break;
        case TB_CHAR: rc = tokenize(b, s, n, TB_CHAR, 4); break;
        default: rc = tokenize(b, s, n, TB_NONE, 4); break;
        }
    }
    if (rc < 0 || b->nids - first >= UINT32_MAX || GROW(b->seq_len, b->seq_cap, b->nseq + 1) < 0)
        return -1;
    b->seq_len[b->nseq++] = (uint32_t)(b->nids - first);
    return 0;
}

void tb_builder_view(const tb_builder *b, tb_seg *out)
{
    out->nseq = (uint32_t)b->nseq;
    out->nvocab = (uint32_t)b->nvocab;
    out->ntok = (uint32_t)b->nids;
    out->nbytes = (uint32_t)b->nbytes;
    static const tb_slot no_slots[1];  /* (a table of one empty slot) */
    out->vcap = b->slots_cap ? (uint32_t)b->slots_cap : 1;  /* same slot format as a frozen segment */
    out->vslots = b->slots_cap ? b->slots : no_slots;
    out->vera = b->slot_era;
    out->seq_len = b->seq_len;
    out->ids = b->ids;
    out->vocab = b->vocab;
    out->bytes = b->bytes;
}

tb_seg *tb_builder_freeze(const tb_builder *b)
{
    size_t vcap = 4;  /* (at least one empty slot) */
    while (vcap < b->nvocab + b->nvocab / 3 + 1)  /* load <= 3/4 */
        vcap *= 2;
    size_t size = sizeof(tb_seg) + vcap * sizeof(tb_slot) + (b->nseq + b->nids) * sizeof(uint32_t) +
                  b->nvocab * sizeof(tb_tok) + b->nbytes + TB_BYTES_PAD;
    char *block = malloc(size);
    if (!block)
        return NULL;
    tb_seg *seg = (tb_seg *)block;
    char *p = block + sizeof(tb_seg);
    /* the slots first (8-byte aligned after tb_seg), then the uint32 arrays and
     * tb_tok (4-byte aligned) */
    tb_slot *vslots = (tb_slot *)p;
    if (vcap == b->slots_cap) {  /* the builder's table has this size: the same slots */
        memcpy(vslots, b->slots, vcap * sizeof(tb_slot));
    } else {
        memset(vslots, 0, vcap * sizeof(tb_slot));
        fill_slots(vslots, vcap, b->slot_era, b->vocab, b->nvocab, b->bytes);
    }
    p += vcap * sizeof(tb_slot);
    /* (the builder's arrays are NULL while empty: memcpy must not see them) */
    uint32_t *seq_len = (uint32_t *)p;
    if (b->nseq)
        memcpy(seq_len, b->seq_len, b->nseq * sizeof(uint32_t));
    p += b->nseq * sizeof(uint32_t);
    uint32_t *ids = (uint32_t *)p;
    if (b->nids)
        memcpy(ids, b->ids, b->nids * sizeof(uint32_t));
    p += b->nids * sizeof(uint32_t);
    tb_tok *vocab = (tb_tok *)p;
    if (b->nvocab)
        memcpy(vocab, b->vocab, b->nvocab * sizeof(tb_tok));
    p += b->nvocab * sizeof(tb_tok);
    if (b->nbytes)
        memcpy(p, b->bytes, b->nbytes);
    memset(p + b->nbytes, 0, TB_BYTES_PAD);
    seg->nseq = (uint32_t)b->nseq;
    seg->nvocab = (uint32_t)b->nvocab;
    seg->ntok = (uint32_t)b->nids;
    seg->nbytes = (uint32_t)b->nbytes;
    seg->vcap = (uint32_t)vcap;
    seg->vera = b->slot_era;
    seg->vslots = vslots;
    seg->seq_len = seq_len;
    seg->ids = ids;
    seg->vocab = vocab;
    seg->bytes = p;
    return seg;
}
