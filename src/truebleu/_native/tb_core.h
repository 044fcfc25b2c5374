/* truebleu compiled core: shared types.
 *
 * Pipeline for one segment, all without the GIL:
 *   str (PyUnicode data) or UTF-8 bytes -> 13a, intl: its UTF-8; the others: its bytes
 *   (an ASCII line) or code points (uint32) -> tokenizer passes -> whitespace split ->
 *   tokens as UTF-8 bytes in a per-segment vocabulary -> token-id sequences ->
 *   n-gram ids (exact 64-bit keys) -> statistics row.
 */
#ifndef TRUEBLEU_CORE_H
#define TRUEBLEU_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Grow *p to hold at least `need` elements of `elsize` bytes (doubling,
 * from 64). 0 on success, -1 when out of memory (then *p is unchanged). */
static inline int tb_grow(void **p, size_t *cap, size_t need, size_t elsize)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *q = realloc(*p, ncap * elsize);
    if (!q)
        return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

#define GROW(ptr, cap, need) tb_grow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

#define TB_ABSENT UINT32_MAX  /* a token id meaning: not in the vocabulary */

enum tb_mode { TB_NONE = 0, TB_13A = 1, TB_INTL = 2, TB_ZH = 3, TB_CHAR = 4 };

/* A growable array of code points. */
typedef struct {
    uint32_t *a;
    size_t n, cap;
} tb_u32buf;

/* One vocabulary entry: the token's bytes are bytes[off .. off+len). */
typedef struct {
    uint32_t hash, off, len;
} tb_tok;

/* One slot of a vocabulary hash table (tokenize.c): the token's first bytes
 * (up to 8, zeros after them) and a tag, the table's era and the token's length
 * (tb_slot_tag), so that a token of up to 8 bytes, nearly every token, is found
 * by comparing the slot alone. A slot whose tag is of another era is empty: a
 * builder empties its table by starting a new era. */
typedef struct {
    uint64_t head;
    uint32_t tag, id;
} tb_slot;

/* The tag of a token of `len` bytes in a table of era `era` (1 .. 0xFFFF): the
 * era in the high 16 bits, the length (0xFFFF: that or more) in the low 16. */
static inline uint32_t tb_slot_tag(uint32_t era, size_t len)
{
    return era << 16 | (uint32_t)(len < 0xFFFF ? len : 0xFFFF);
}

/* Readable bytes after the last token's bytes, in a builder and in a segment
 * (tokenize.c reads tokens in 8-byte words). */
#define TB_BYTES_PAD 8

/* A tokenized segment: nseq token sequences (the references, or the one
 * hypothesis) over a vocabulary local to the segment. Read-only once built. */
typedef struct {
    uint32_t nseq, nvocab, ntok, nbytes, vcap;
    uint32_t vera;             /* the era of the live slots of vslots */
    const tb_slot *vslots;     /* vocabulary hash (vcap slots, power of 2) */
    const uint32_t *seq_len;   /* nseq lengths, in tokens */
    const uint32_t *ids;       /* ntok ids, the sequences one after another */
    const tb_tok *vocab;       /* nvocab entries */
    const char *bytes;         /* nbytes of UTF-8, then TB_BYTES_PAD readable bytes */
} tb_seg;

/* A check for a reason to stop (a pending signal, another thread's error), made
 * every `budget` units of work (about one unit per code point), so that it costs
 * nothing measurable. check() refills the budget and returns nonzero to stop. */
typedef struct tb_poll {
    int (*check)(struct tb_poll *p);
    long budget;
} tb_poll;

#define TB_POLL_UNITS (1L << 20)

/* Spend `units` of p's budget; nonzero when the work must stop. */
static inline int tb_poll_spend(tb_poll *p, long units)
{
    return p && (p->budget -= units) < 0 && p->check(p);
}

/* Slots of the builder's cache of non-ASCII one-character tokens (tokenize.c: emit_char). */
#define TB_CP_CACHE 512

/* Scratch state of one thread for tokenizing lines into a segment. */
typedef struct {
    unsigned char *line8;              /* the current line as bytes (13a, intl: as UTF-8), */
    size_t line8_n, line8_cap;         /* then a space and zeros (TB_BYTES_PAD, 13a, intl: 64) */
    uint64_t *plain; size_t plain_cap; /* 13a, intl: which bytes of the line are plain (letters, ...) */
    tb_u32buf cp, tmp, tmp2;           /* code points of any other line, pass buffers */
    char *bytes; size_t nbytes, bytes_cap;
    tb_tok *vocab; size_t nvocab, vocab_cap;
    tb_slot *slots; size_t slots_cap;  /* vocabulary hash */
    uint32_t slot_era;                 /* the era of its live slots (tb_slot_tag) */
    uint32_t *ids; size_t nids, ids_cap;
    uint32_t *seq_len; size_t nseq, seq_cap;
    const tb_seg *lookup;              /* if set: ids are this segment's ids (TB_ABSENT if not there);
                                          set it after tb_builder_reset, keep it unchanged until the next */
    uint32_t char_id[256], char_era[256]; /* id of a one-byte token, valid if its era is b->era */
    uint64_t cp_key[TB_CP_CACHE];      /* one-character tokens >= U+0080, direct-mapped by the low bits */
    uint32_t cp_id[TB_CP_CACHE];       /* of the code point: id of cp, valid if cp_key = tb_cp_key(era, cp) */
    uint32_t era;                      /* changes when the vocabulary or b->lookup changes */
    const tb_seg *era_lookup;          /* b->lookup in this era */
    tb_poll *poll;                     /* if set: checked while tokenizing (a stop looks like -1) */
} tb_builder;

/* The counts of one n-gram: its clip count, and its count in the sequence at hand. */
typedef struct {
    uint32_t clip, cur;
} tb_counts;

/* Scratch state of one thread for matching a hypothesis against references (see ngram.c). */
typedef struct {
    uint32_t *hmap; size_t hmap_cap;           /* hyp vocab id -> ref vocab id or NONE */
    uint32_t *hyp_ids; size_t hyp_ids_cap;     /* hypothesis as ref vocab ids */
    uint32_t *common; size_t common_cap;       /* ref vocab id -> common id or NONE */
    uint32_t *hyp_common; size_t hyp_common_cap;  /* hypothesis as common ids */
    uint32_t *cells; size_t cells_cap;         /* direct pair table: era << 18 | n-gram id */
    uint32_t cells_era;                        /* the era of the segment at hand (1, 2, ...) */
    uint32_t *ng_slots; size_t ng_slots_cap;   /* hashed pair table: id + 1, 0 = empty */
    uint64_t *ng_keys; size_t ng_keys_cap;     /* pair of each n-gram id */
    tb_counts *counts; size_t counts_cap;      /* per n-gram id */
    uint32_t *touched; size_t touched_cap;
} tb_matcher;

/* A line of text as the tokenizer sees it (PyUnicode storage, read without the
 * GIL, or valid UTF-8 bytes). */
typedef struct {
    const void *data;
    size_t length;     /* in code points; for TB_KIND_UTF8 in bytes */
    int kind;          /* 1, 2 or 4 bytes per code point (PyUnicode kinds), or TB_KIND_UTF8 */
    int ascii_lower;   /* lowercase ASCII letters while reading (the text is ASCII) */
} tb_text;

/* tb_text.kind of a line given as valid UTF-8 (13a and intl read it as it is; the other
 * tokenizers read it as bytes when it is ASCII, else decode it to code points). */
#define TB_KIND_UTF8 0

/* lines.c: UTF-8 read as bytes (see there) */
typedef struct {
    size_t valid;      /* bytes of whole valid characters from the start */
    size_t chars;      /* characters in them */
    size_t newlines;   /* "\n" bytes in them */
    int error;         /* 1: the bytes at `valid` are not UTF-8; 0: valid, or an unfinished
                        * character from `valid` to the end */
} tb_utf8_scan_result;
void tb_utf8_scan(const uint8_t *d, size_t n, tb_utf8_scan_result *r);
size_t tb_utf8_chars(const uint8_t *d, size_t n);
/* The index of the first line ("\n"-ended) of d[0 .. n) longer than `limit`
 * characters, the first one having `first_chars` more before d; -1 if none. */
long tb_utf8_first_long_line(const uint8_t *d, size_t n, size_t first_chars, size_t limit);
/* The length of d[0 .. n) without the trailing whitespace str.rstrip() strips. */
size_t tb_utf8_rstrip(const uint8_t *d, size_t n);
/* The code point at d (n > 0 bytes left) into *cp; its length in bytes (1 and
 * U+FFFD for bytes that are not valid UTF-8, never reading past d + n). */
static inline size_t tb_utf8_decode(const uint8_t *d, size_t n, uint32_t *cp)
{
    uint8_t c = d[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (len > n || c < 0xC0) {  /* not valid UTF-8: never read past the end */
        *cp = 0xFFFD;
        return 1;
    }
    uint32_t v = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (size_t i = 1; i < len; i++)
        v = (v << 6) | (d[i] & 0x3F);
    *cp = v;
    return len;
}

/* tokenize.c */
void tb_init_tables(void);  /* once, at module import */
void tb_builder_init(tb_builder *b);
void tb_builder_free(tb_builder *b);
void tb_builder_reset(tb_builder *b);
/* Tokenizes one line and appends it as a new sequence. 0 on success, -1 on out of
 * memory or when b->poll asked to stop. */
int tb_builder_add_line(tb_builder *b, const tb_text *text, int mode);
/* A view of the builder's content (valid until the builder changes). */
void tb_builder_view(const tb_builder *b, tb_seg *out);
/* A malloc'ed copy of the builder's content (one block; free() it). NULL on out of memory. */
tb_seg *tb_builder_freeze(const tb_builder *b);
/* Id of a token in seg's vocabulary, or TB_ABSENT. */
uint32_t tb_seg_find(const tb_seg *seg, const char *tok, uint32_t len, uint32_t hash);
int tb_char_class(uint32_t cp);       /* intl classes: 1 P, 2 S, 4 N */
int tb_is_chinese(uint32_t cp);

/* ngram.c */
void tb_matcher_init(tb_matcher *m);
void tb_matcher_free(tb_matcher *m);
/* One statistics row [hyp_len, ref_len, matches_1..N, totals_1..N] of the
 * first sequence of hyp against every sequence of ref. 0 ok, -1 out of memory. */
int tb_segment_row(tb_matcher *m, const tb_seg *hyp, const tb_seg *ref,
                   int max_order, int64_t *row);
/* The same for a hypothesis already written as ref's ids (TB_ABSENT: not in ref). */
int tb_segment_row_ids(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                       int max_order, int64_t *row);


/* matrix.c: n-gram profiles of the sequences of one segment (shared vocabulary) */
typedef struct tb_profiles tb_profiles;
/* NULL: out of memory, or poll (may be NULL) said stop. */
tb_profiles *tb_profiles_build(const tb_seg *seg, int max_order, tb_poll *poll);
void tb_profiles_free(tb_profiles *p);
/* Index the sequences s with chosen[s] != 0 (the references) by n-gram. 0 ok, -1 out of
 * memory or stopped by poll (may be NULL). */
int tb_profiles_index(tb_profiles *p, const uint8_t *chosen, tb_poll *poll);
/* acc[r * N + n - 1] += clipped matches of order n of h against each indexed r
 * (acc: N int64 per sequence, zero at the indexed ones before the call).
 * Returns the work done: h's n-grams plus the postings visited. */
size_t tb_profiles_matches(const tb_profiles *p, uint32_t h, int64_t *acc);
/* The statistics row of h against the single reference r (indexed), from h's acc. */
void tb_profiles_row(const tb_profiles *p, uint32_t h, uint32_t r, const int64_t *acc, int64_t *row);

/* The regex module release the intl character classes were generated from. */
const char *tb_regex_version(void);

#endif
