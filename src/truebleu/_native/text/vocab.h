/* truebleu core: what the files of text/ share (internal to the tokenizers).
 *
 * A segment's tokens live in a vocabulary local to the segment: their UTF-8
 * bytes one after another, an entry per token, and an open-addressing hash
 * table of slots. The scanners of every tokenizer (text/tok_*.c) append tokens
 * through append_token (13a's and intl's hot loops through text/hot_vocab.h),
 * which finds a token's id in the builder's own vocabulary (a reference line:
 * new tokens are added) or in b->lookup's (a hypothesis line: only ids in the
 * reference vocabulary matter). Everything
 * here is inlined into the scanners' loops (hence a header of static inline
 * functions); the rare slow paths are functions of text/builder.c.
 */
#ifndef TB_TEXT_VOCAB_H
#define TB_TEXT_VOCAB_H

#include "text/classes.h"  /* (first: it brings Python.h, which must precede the system headers) */
#include "runtime/memory.h"
#include "text/tokenize.h"

#include <stdint.h>
#include <string.h>

static inline int u32_reserve(tb_u32buf *b, size_t need) { return GROW(b->a, b->cap, need); }

/* Room for the rules on a stretch of n code points plus two context spaces. */
static inline int reserve_small(tb_builder *b, size_t n, int passes)
{
    size_t need = (n + 2) << passes;
    return (u32_reserve(&b->tmp, need) < 0 || u32_reserve(&b->tmp2, need) < 0) ? -1 : 0;
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
static TB_ALWAYS_INLINE uint32_t at(const void *s, size_t i, int width)
{
    return width == 1 ? ((const uint8_t *)s)[i] : ((const uint32_t *)s)[i];
}

/* &s[i] */
static TB_ALWAYS_INLINE const void *from(const void *s, size_t i, int width)
{
    return (const char *)s + i * (size_t)width;
}

static TB_ALWAYS_INLINE int space_at(uint32_t c, int width)
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
#ifdef TB_BIG_ENDIAN
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
    uint64_t hi, lo = tb_mul_64x64(x, 0xBF58476D1CE4E5B9ull, &hi);
    return hi ^ lo;
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
 * one multiplication per 8 bytes, the last 8 read whole (they overlap the
 * word before them: no mask). */
static inline uint32_t hash_bytes(const unsigned char *p, size_t n)
{
    if (n <= 8)
        return hash_head(first_bytes(load_word(p), n));
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    for (size_t i = 0; n - i > 8; i += 8)
        h = fold_mix(h ^ load_word(p + i));
    return HASH_BITS(fold_mix(h ^ load_word(p + n - 8)));
}

/* Whether two tokens x and y of len > 8 bytes whose first 8 are equal (their
 * heads) are equal: their later words, the last 8 bytes read whole as in
 * hash_bytes (no call to memcmp, no mask). */
static inline int same_after_head(const char *x, const char *y, size_t len)
{
    for (size_t i = 8; len - i > 8; i += 8) {
        if (load_word(x + i) != load_word(y + i))
            return 0;
    }
    return load_word(x + len - 8) == load_word(y + len - 8);
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
 * hash h, tag `tag`: tb_slot_tag in era `era`) in slots[0..mask] of era `era`:
 * the one holding it, or an empty one (of another era) where it belongs (the
 * table is never full). probe_short: the tag from the token's length. */
static TB_ALWAYS_INLINE const tb_slot *probe_short_tag(const tb_slot *slots, size_t mask, uint32_t era, uint32_t tag,
                                                    uint64_t head, uint32_t h)
{
    for (size_t j = h & mask;; j = (j + 1) & mask) {
        const tb_slot *sl = &slots[j];
        if ((sl->tag == tag && sl->head == head) || sl->tag >> 16 != era)
            return sl;
    }
}

static TB_ALWAYS_INLINE const tb_slot *probe_short(const tb_slot *slots, size_t mask, uint32_t era, size_t len,
                                                uint64_t head, uint32_t h)
{
    return probe_short_tag(slots, mask, era, era << 16 | (uint32_t)len, head, h);
}

/* probe_short for any token tok[0..len): one of more than 8 bytes is compared
 * in full where it lies (`bytes` and `vocab`: where the table's tokens lie). */
static TB_ALWAYS_INLINE const tb_slot *probe(const tb_slot *slots, size_t mask, uint32_t era, const char *tok,
                                          size_t len, uint64_t head, uint32_t h, const char *bytes,
                                          const tb_tok *vocab)
{
    if (len <= 8)
        return probe_short(slots, mask, era, len, head, h);
    const uint32_t tag = tb_slot_tag(era, len);
    for (size_t j = h & mask;; j = (j + 1) & mask) {
        const tb_slot *sl = &slots[j];
        if (sl->tag == tag && sl->head == head && vocab[sl->id].len == len &&
            same_after_head(bytes + vocab[sl->id].off, tok, len))
            return sl;
        if (sl->tag >> 16 != era)
            return sl;
    }
}

/* Whether a slot probe() found is live (holds the token). */
static TB_ALWAYS_INLINE int slot_live(const tb_slot *sl, uint32_t era) { return sl->tag >> 16 == era; }

/*
 * A reader's lookups (a hypothesis in the reference's table): the token's id,
 * or TB_ABSENT. The probe stops at the slot holding the token or at an empty
 * one, of another era; so the slot holds the token exactly when its tag is the
 * token's, the test the probe's loop has just made (the compiler reuses it),
 * where slot_live() would test the slot a second time.
 */

/* The id of a token of at most 8 bytes (head, hash h, its tag `tag` in era
 * `era`: tb_slot_tag) in slots[0..mask] of era `era`, or TB_ABSENT. */
static TB_ALWAYS_INLINE uint32_t find_short_tag(const tb_slot *slots, size_t mask, uint32_t era, uint32_t tag,
                                                uint64_t head, uint32_t h)
{
    const tb_slot *sl = probe_short_tag(slots, mask, era, tag, head, h);
    return sl->tag == tag ? sl->id : TB_ABSENT;
}


/* find_short_tag for any token tok[0..len). */
static TB_ALWAYS_INLINE uint32_t find_any(const tb_slot *slots, size_t mask, uint32_t era, const char *tok,
                                          size_t len, uint64_t head, uint32_t h, const char *bytes,
                                          const tb_tok *vocab)
{
    const tb_slot *sl = probe(slots, mask, era, tok, len, head, h, bytes, vocab);
    return sl->tag == tb_slot_tag(era, len) ? sl->id : TB_ABSENT;
}

/* text/builder.c: the builder's table grown to ncap slots (entries re-placed). 0, or -1: out of memory. */
int tb_vocab_rehash(tb_builder *b, size_t ncap);

/* text/builder.c: forget the ids of one-character tokens (a new vocabulary, or
 * another one to look in). */
void tb_new_era(tb_builder *b);

/* vocab_intern with the token's head known. */
static TB_ALWAYS_INLINE int64_t vocab_intern_head(tb_builder *b, const char *tok, size_t len, uint64_t head,
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
    if (b->nvocab * 2 > b->slots_cap && tb_vocab_rehash(b, b->slots_cap * 2) < 0)
        return -1;
    return (int64_t)id;
}

/* Id of the token tok[0..len) with hash h; adds it if new, copying its bytes
 * to the end of b->bytes unless they are there already, or (`kept`) are kept
 * where they are in b->bytes, room for the entry reserved (the 13a byte path). */
static TB_ALWAYS_INLINE int64_t vocab_intern(tb_builder *b, const char *tok, size_t len, uint32_t h, int kept)
{
    return vocab_intern_head(b, tok, len, token_head(tok, len), h, kept);
}

/* seg_find with the token's head known. */
static TB_ALWAYS_INLINE uint32_t seg_find_head(const tb_seg *seg, const char *tok, size_t len, uint64_t head,
                                            uint32_t hash)
{
    return find_any(seg->vslots, seg->vcap - 1, seg->vera, tok, len, head, hash, seg->bytes, seg->vocab);
}

static TB_ALWAYS_INLINE uint32_t seg_find(const tb_seg *seg, const char *tok, uint32_t len, uint32_t hash)
{
    return seg_find_head(seg, tok, len, token_head(tok, len), hash);
}

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

/* ------------------------------------------------------------------ */
/* one-character tokens (char, zh, intl's punctuation and symbols)     */

/*
 * The id of a one-character token depends only on the character (and on the
 * vocabulary or reference segment, which change with b->era), so it is
 * remembered (b->chars): an ASCII character's in byte_id (as append_token
 * does), any other's in cp_id, a direct-mapped cache indexed by the low bits of the
 * code point (Chinese text and the few non-ASCII punctuation marks of a
 * European line are runs of nearby code points). Only a character seen for
 * the first time in an era (or evicted by another with the same low bits)
 * pays for its UTF-8, hash and lookup.
 */
static inline uint64_t cp_key(uint32_t era, uint32_t c) { return (uint64_t)era << 21 | c; }  /* != 0 */

/* text/builder.c: b->chars.byte_id emptied (nothing remembered, whitespace
 * marked) for b's era. */
void tb_fresh_byte_ids(tb_builder *b);

/* Makes b->chars.byte_id b's era's (once per era: a builder may start several
 * eras before it reads a line, as a hypothesis's does, reset then given its
 * references). Each tokenizer calls it before it reads or writes byte_id (13a
 * again when it starts an era within a line); char's direct scan, which does
 * neither (a hypothesis reads its references' table), does not: a reset per
 * reference segment, none per hypothesis line. (Nothing writes byte_id in an
 * era before it is readied: the reset would drop it, and byte_set lists only
 * what was written since the last.) */
static TB_ALWAYS_INLINE void ready_byte_ids(tb_builder *b)
{
    if (b->chars.bytes_era != b->era) {
        if (b->chars.nbyte_set == 0 && b->chars.bytes_era != 0)  /* (nothing to reset: most hypotheses) */
            b->chars.bytes_era = b->era;
        else
            tb_fresh_byte_ids(b);
    }
}

/* Whether the id of the one-byte token c (an ASCII character) is remembered
 * in `ids` (of the era of the builder reading it: ready_byte_ids) (then *id is it). */
static TB_ALWAYS_INLINE int known_byte(const tb_char_ids *ids, uint8_t c, uint32_t *id)
{
    *id = ids->byte_id[c];
    return *id < TB_SPACE_ID;
}

/* known_byte for the one-character token of any character c. */
static TB_ALWAYS_INLINE int known_char(const tb_char_ids *ids, uint32_t era, uint32_t c, uint32_t *id)
{
    if (c < 0x80)
        return known_byte(ids, (uint8_t)c, id);
    size_t slot = c & (TB_CP_CACHE - 1);
    *id = ids->cp_id[slot];
    return ids->cp_key[slot] == cp_key(era, c);
}

/* Remembers id as the id of the one-byte token c in b's era (one not remembered
 * yet: so at most 256 of them, listed for tb_fresh_byte_ids). */
static TB_ALWAYS_INLINE void remember_byte(tb_builder *b, uint8_t c, uint32_t id)
{
    b->chars.byte_id[c] = id;
    b->chars.byte_set[b->chars.nbyte_set++ & 255] = c;
}

/* Adds the one-byte token c (ASCII), known not to be in b's vocabulary (it
 * remembers every one-byte token, b->ascii_complete, and not this one), room
 * for its entry and its bytes reserved: no comparison, the first empty slot
 * of its probe path takes it, and it is remembered. Its id, or -1 (out of
 * memory). vocab_intern_head's work for such a token. */
static TB_ALWAYS_INLINE int64_t vocab_add_byte(tb_builder *b, uint8_t c)
{
    const uint32_t era = b->slot_era;
    const size_t id = b->nvocab, mask = b->slots_cap - 1;
    char *o = b->bytes + b->nbytes;
    o[0] = (char)c;
    memset(o + 1, 0, TB_BYTES_PAD);
    const uint64_t head = token_head(o, 1);
    const uint32_t h = hash_head(head);
    size_t j = h & mask;
    while (slot_live(&b->slots[j], era))
        j = (j + 1) & mask;
    b->vocab[id] = (tb_tok){h, (uint32_t)b->nbytes, 1};
    b->nbytes += 1;
    b->slots[j] = (tb_slot){head, tb_slot_tag(era, 1), (uint32_t)id};
    b->nvocab = id + 1;
    if (b->nvocab * 2 > b->slots_cap && tb_vocab_rehash(b, b->slots_cap * 2) < 0)
        return -1;
    remember_byte(b, c, (uint32_t)id);
    return (int64_t)id;
}

/* Remembers id as the id of the one-character token c in b's era (another
 * character's in its slot is forgotten). */
static TB_ALWAYS_INLINE void remember_char(tb_builder *b, uint32_t c, uint32_t id)
{
    if (c < 0x80) {
        remember_byte(b, (uint8_t)c, id);
    } else {
        size_t slot = c & (TB_CP_CACHE - 1);
        b->chars.cp_key[slot] = cp_key(b->era, c);
        b->chars.cp_id[slot] = id;
    }
}

/*
 * A hypothesis's one-character token that b does not remember yet: when
 * b->lookup is a view of the builder that holds the references, their
 * builder may remember it (a character the references have, seen while they
 * were tokenized): its id then costs one load instead of its UTF-8, a hash and
 * a probe of their table. When it remembers every one-byte token of their
 * vocabulary (zh, char and none: ascii_complete), an ASCII character it does
 * not remember is not in the references (TB_ABSENT) and needs no look-up
 * either. (Not so for the others: two characters may take one slot of
 * cp_id.) Whether *id is the token's id; else it is to be looked up.
 */
static TB_ALWAYS_INLINE int known_in_lookup(const tb_builder *b, uint32_t c, uint32_t *id)
{
    const tb_seg *ref = b->lookup;
    if (ref->chars == NULL)
        return 0;
    if (known_char(ref->chars, ref->chars_era, c, id))
        return 1;
    *id = TB_ABSENT;
    return c < 0x80 && ref->ascii_complete;
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
static TB_ALWAYS_INLINE int append_token(tb_builder *b, const void *s, size_t len, int width, int ascii,
                                      enum token_home home)
{
    uint32_t known;
    if (len == 1 && (width == 1 ? known_byte(&b->chars, *(const uint8_t *)s, &known)
                                : known_char(&b->chars, b->era, at(s, 0, width), &known))) {
        b->ids[b->nids++] = known;  /* a one-character token seen before */
        return 0;
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
    if (len == 1) {  /* (every one-byte token is remembered: known_in_lookup) */
        if (width == 1)
            remember_byte(b, *(const uint8_t *)s, (uint32_t)id);
        else
            remember_char(b, at(s, 0, width), (uint32_t)id);
    }
    b->ids[b->nids++] = (uint32_t)id;
    return 0;
}

#endif
