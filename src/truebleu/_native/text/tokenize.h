/* truebleu core: the tokenizers' public interface (plain C, no Python objects).
 *
 * Pipeline for one segment, all without the GIL:
 *   tb_text (PyUnicode data or UTF-8 bytes) -> 13a, intl: its UTF-8; the others: its
 *   bytes (an ASCII line) or code points (uint32) -> tokenizer passes -> whitespace
 *   split -> tokens as UTF-8 bytes in a per-segment vocabulary -> token-id
 *   sequences (a tb_seg), which bleu/ngram.c turns into n-gram statistics.
 *
 * A tb_builder (one per worker thread) tokenizes the lines of a segment, each
 * line a sequence; tb_builder_freeze keeps the segment (a Prepared reference),
 * tb_builder_view reads it in place. The files of text/ share their internals
 * through text/vocab.h.
 */
#ifndef TB_TEXT_TOKENIZE_H
#define TB_TEXT_TOKENIZE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/memory.h"
#include "runtime/poll.h"
#include "text/text.h"

#define TB_ABSENT UINT32_MAX  /* a token id meaning: not in the vocabulary */

enum tb_mode { TB_NONE = 0, TB_13A = 1, TB_INTL = 2, TB_ZH = 3, TB_CHAR = 4 };

/* One vocabulary entry: the token's bytes are bytes[off .. off+len). */
typedef struct {
    uint32_t hash, off, len;
} tb_tok;

/* One slot of a vocabulary hash table (text/vocab.h): the token's first bytes
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
 * (text/vocab.h reads tokens in 8-byte words). */
#define TB_BYTES_PAD 8

/* Slots of the cache of non-ASCII one-character tokens (text/vocab.h: known_char). */
#define TB_CP_CACHE 512

/* What byte_id holds for a byte not remembered as a token: TB_ABSENT, or
 * TB_SPACE_ID for ASCII whitespace (never a token). Token ids stay below both
 * (text/line.h: line_room). */
#define TB_SPACE_ID (UINT32_MAX - 1)

/* The ids a builder remembers of one-character tokens (text/vocab.h:
 * known_char): an ASCII character's in byte_id, any other's in cp_id, a
 * direct-mapped cache by the low bits of its code point. byte_id is of era
 * bytes_era only (emptied again, lazily, once per era: text/builder.c's
 * tb_fresh_byte_ids, which resets the entries byte_set lists), so that the id
 * of a byte, or that it is whitespace or unknown, is one load; a cp_id entry
 * holds for the era it was written in (the builder's, which changes with its
 * vocabulary or the one it looks in). */
typedef struct {
    uint32_t byte_id[256];        /* id of a one-byte token, else TB_ABSENT or TB_SPACE_ID */
    uint8_t byte_set[256];        /* the bytes given an id in this era (nbyte_set: how many) */
    uint32_t nbyte_set;
    uint32_t bytes_era;           /* the era byte_id is of (0: none, its content unknown) */
    uint64_t cp_key[TB_CP_CACHE]; /* one-character tokens >= U+0080, by the low bits */
    uint32_t cp_id[TB_CP_CACHE];  /* of the code point: id of cp, valid if cp_key = cp_key(era, cp) */
} tb_char_ids;

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
    /* a view of a builder (tb_builder_view): the ids of one-character tokens
     * it remembers for this vocabulary (those of era chars_era), so that a
     * hypothesis looked up in it finds a character the references have by one
     * load; NULL (a frozen segment, or a builder that looked in another): none */
    const tb_char_ids *chars;
    uint32_t chars_era;
    int ascii_complete;        /* chars holds every one-byte token of the vocabulary */
} tb_seg;

/* Scratch state of one thread for tokenizing lines into a segment. */
typedef struct {
    unsigned char *line8;              /* the current line as bytes (13a, intl: as UTF-8), */
    size_t line8_n, line8_cap;         /* then a space and zeros (TB_BYTES_PAD, 13a, intl: 64) */
    uint64_t *other; size_t other_cap; /* 13a, intl: which bytes of the line are not plain (letters, ...) */
    tb_u32buf cp, tmp, tmp2;           /* code points of any other line, pass buffers */
    char *bytes; size_t nbytes, bytes_cap;
    tb_tok *vocab; size_t nvocab, vocab_cap;
    tb_slot *slots; size_t slots_cap;  /* vocabulary hash */
    uint32_t slot_era;                 /* the era of its live slots (tb_slot_tag) */
    uint32_t *ids; size_t nids, ids_cap;
    uint32_t *seq_len; size_t nseq, seq_cap;
    const tb_seg *lookup;              /* if set: ids are this segment's ids (TB_ABSENT if not there);
                                          set it after tb_builder_reset, keep it unchanged until the next */
    tb_char_ids chars;                 /* one-character tokens' ids, valid in era b->era */
    int ascii_complete;                /* in this era, every one-byte token of the vocabulary is in
                                          chars (zh, char and none: not 13a's or intl's hot loops) */
    uint32_t era;                      /* changes when the vocabulary or b->lookup changes */
    const tb_seg *era_lookup;          /* b->lookup in this era */
    tb_poll *poll;                     /* if set: checked while tokenizing (a stop looks like -1) */
} tb_builder;

/* text/builder.c */
void tb_builder_init(tb_builder *b);
void tb_builder_free(tb_builder *b);
void tb_builder_reset(tb_builder *b);
/* The heap memory a builder holds (its tables), in bytes. */
size_t tb_builder_footprint(const tb_builder *b);
/* Tokenizes one line and appends it as a new sequence. 0 on success, -1 on out of
 * memory or when b->poll asked to stop. */
int tb_builder_add_line(tb_builder *b, const tb_text *text, int mode);
/* A view of the builder's content (valid until the builder changes). */
void tb_builder_view(const tb_builder *b, tb_seg *out);
/* A malloc'ed copy of the builder's content (one block; free() it). NULL on out of memory. */
tb_seg *tb_builder_freeze(const tb_builder *b);
/* Id of a token in seg's vocabulary, or TB_ABSENT. */
uint32_t tb_seg_find(const tb_seg *seg, const char *tok, uint32_t len, uint32_t hash);

/* text/classes.c */
int tb_char_class(uint32_t cp);       /* intl classes: 1 P, 2 S, 4 N */
int tb_is_chinese(uint32_t cp);       /* tok_zh.py's CHINESE_RANGES */
/* The regex module release the intl character classes were generated from. */
const char *tb_regex_version(void);

#endif
