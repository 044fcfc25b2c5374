/* truebleu core: the byte scanners' hot loops' vocabulary (internal to text/).
 *
 * What the hot loops of text/tok_13a.c and text/tok_intl.c share: the
 * vocabulary they append to held in local variables, and a token's id found
 * (a hypothesis) or added (a reference) with the hash and the probes of
 * text/vocab.h. Apart from vocab.h, which every tokenizer's generic path
 * (append_token) uses, so that each header keeps one job.
 */
#ifndef TB_TEXT_HOT_VOCAB_H
#define TB_TEXT_HOT_VOCAB_H

#include "text/vocab.h"  /* (first: it brings Python.h, which must precede the system headers) */

#include <stdint.h>

/* ------------------------------------------------------------------ */
/* the byte scanners' hot loops (13a, intl)                            */

/*
 * The hot loops of the byte scanners (text/tok_13a.c, text/tok_intl.c) take a
 * line placed by place_line (text/line.h): a reference's in b->bytes, where its
 * tokens are kept, or a hypothesis's, whose tokens are only looked up in
 * b->lookup. Their vocabulary: the builder's table and vocabulary (a
 * reference line: its tokens are added) or b->lookup's table (a hypothesis
 * line), and the next id's place, held in local variables. (Reached through b,
 * they would be read again after every store of an id, an entry or a slot, any
 * of which may alias them for the compiler.) A hot loop begins with hot_begin,
 * appends tokens with hot_token, and ends with hot_end before any other path
 * (append_token) appends to b.
 */
typedef struct {
    tb_slot *slots;
    size_t mask;
    uint32_t era;
    const char *bytes;  /* where the tokens of the table lie */
    tb_tok *vocab;      /* and their entries (kept: nvocab of them, new ones appended) */
    size_t nvocab;
    uint32_t *out;
} hot_vocab;

static TB_ALWAYS_INLINE void hot_begin(tb_builder *b, hot_vocab *v, int kept)
{
    if (kept) {
        v->slots = b->slots;
        v->mask = b->slots_cap - 1;
        v->era = b->slot_era;
        v->bytes = b->bytes;
        v->vocab = b->vocab;
        v->nvocab = b->nvocab;
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

static TB_ALWAYS_INLINE void hot_end(tb_builder *b, const hot_vocab *v, int kept)
{
    if (kept)
        b->nvocab = v->nvocab;
    b->nids = (size_t)(v->out - b->ids);
}

/* The new token tok[0..len) (hash h, head `head`, tag `tag`) into the empty
 * slot sl, kept where it lies in b->bytes (room reserved for the line); its id. */
static TB_ALWAYS_INLINE int64_t hot_add(tb_builder *b, hot_vocab *v, const char *tok, size_t len,
                                     uint32_t h, uint64_t head, uint32_t tag, tb_slot *sl)
{
    uint32_t id = (uint32_t)v->nvocab++;
    v->vocab[id] = (tb_tok){h, (uint32_t)(tok - v->bytes), (uint32_t)len};
    *sl = (tb_slot){head, tag, id};
    if (v->nvocab * 2 > v->mask + 1) {  /* more than half full */
        hot_end(b, v, 1);
        if (tb_vocab_rehash(b, b->slots_cap * 2) < 0)
            return -1;
        hot_begin(b, v, 1);
    }
    return id;
}

/* text/builder.c: the id of a token of more than 8 bytes in seg, or TB_ABSENT
 * (a function: out of the hot loops, about one token in ten, whose registers
 * its hash and comparison would take). */
uint32_t tb_seg_find_long(const tb_seg *seg, const char *tok, size_t len);

/* Appends the token tok[0..len) (len > 0; a reference's lies in its line in
 * b->bytes), a plain word or one symbol: its id in the table, added if new
 * and `kept`. A token of up to 8 bytes, nearly every one, is its head: hashed
 * by one multiplication and compared within its slot. 0, or -1: out of memory. */
static TB_ALWAYS_INLINE int hot_token(tb_builder *b, hot_vocab *v, const char *tok, size_t len, int kept)
{
    if (!kept) {  /* a hypothesis: only its id, found or not */
        /* (the tag as one addition to a one-byte token's, which the loops
         * need anyway: then they keep it alone in a register, not the era's too) */
        const uint32_t tag = (v->era << 16 | 1) + (uint32_t)len - 1;
        *v->out++ = len <= 8 ? find_short_tag(v->slots, v->mask, v->era, tag, first_bytes(load_word(tok), len),
                                              hash_head(first_bytes(load_word(tok), len)))
                             : tb_seg_find_long(b->lookup, tok, len);
        return 0;
    }
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
    int64_t id = slot_live(sl, v->era) ? sl->id : hot_add(b, v, tok, len, h, head, tag, (tb_slot *)sl);
    if (id < 0)
        return -1;
    *v->out++ = (uint32_t)id;
    return 0;
}

#endif
