/* truebleu core: the tokenizers' builder (see text/tokenize.h): a segment's
 * lines tokenized one after another into token-id sequences over the segment's
 * vocabulary, then viewed in place or frozen into one block (a Prepared
 * reference). The tokenizers themselves are text/tok_*.c.
 */
#include "text/line.h"  /* (first: it brings Python.h, which must precede the system headers) */
#include "text/hot_vocab.h"

#include <stdlib.h>
#include <string.h>

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

int tb_vocab_rehash(tb_builder *b, size_t ncap)
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

uint32_t tb_seg_find(const tb_seg *seg, const char *tok, uint32_t len, uint32_t hash)
{
    return seg_find(seg, tok, len, hash);
}

/* The id of a token of 9 to 16 bytes (most long ones) in seg, or TB_ABSENT:
 * hash_bytes and probe written out for two words, the first the slot's head,
 * the last read whole. Its length is in the slot's tag, so a slot with the
 * token's tag and head holds it when the last words are equal. The probe's
 * loop compares the slots alone (a slot of another era, `(tag ^ sl->tag) >>
 * 16`, is empty), the last words only once a slot matches: fewer values live
 * through the loop (GCC 12 saves four registers, not six). */
static uint32_t seg_find_9_to_16(const tb_seg *seg, const char *tok, size_t len)
{
    const uint64_t head = load_word(tok);
    const uint32_t tag = tb_slot_tag(seg->vera, len), mask = seg->vcap - 1;
    const tb_slot *slots = seg->vslots;
    uint32_t j = HASH_BITS(fold_mix(fold_mix(0x9E3779B97F4A7C15ull ^ (uint64_t)len ^ head) ^ load_word(tok + len - 8)));
    for (;; j++) {
        const tb_slot *sl = &slots[j & mask];
        if (sl->tag == tag && sl->head == head) {
            if (load_word(seg->bytes + seg->vocab[sl->id].off + len - 8) == load_word(tok + len - 8))
                return sl->id;
        } else if ((sl->tag ^ tag) >> 16) {
            return TB_ABSENT;
        }
    }
}

/* The id of a token of more than 16 bytes in seg, or TB_ABSENT: a call of its
 * own, so that the registers its loops over the words take are saved only
 * when it runs, not at every call of tb_seg_find_long. */
static TB_NOINLINE uint32_t seg_find_over_16(const tb_seg *seg, const char *tok, size_t len)
{
    return find_any(seg->vslots, seg->vcap - 1, seg->vera, tok, len, load_word(tok),
                    hash_bytes((const unsigned char *)tok, len), seg->bytes, seg->vocab);
}

uint32_t tb_seg_find_long(const tb_seg *seg, const char *tok, size_t len)
{
    if (len <= 16)
        return seg_find_9_to_16(seg, tok, len);
    return seg_find_over_16(seg, tok, len);
}

/* ------------------------------------------------------------------ */
/* reading a line                                                      */

/* Whether d[0..n) is ASCII. */
static int plain_ascii(const uint8_t *d, size_t n)
{
    size_t i = 0;
#ifdef TB_HAVE_SSE2
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

/* ------------------------------------------------------------------ */
/* builder                                                             */

void tb_builder_init(tb_builder *b)
{
    memset(b, 0, sizeof(*b));
    b->era = b->slot_era = 1;
    b->ascii_complete = 1;  /* (nothing in the vocabulary) */
}

/* Forgets the ids of one-character tokens (a new vocabulary, or another one to
 * look in); byte_id's lazily (ready_byte_ids). */
void tb_new_era(tb_builder *b)
{
    if (++b->era == 0) {
        memset(b->chars.cp_key, 0, sizeof(b->chars.cp_key));
        b->chars.bytes_era = 0;  /* (byte_id may be of the era that starts again) */
        b->era = 1;
    }
    b->era_lookup = b->lookup;
    b->ascii_complete = b->nvocab == 0;  /* (nothing to remember while the vocabulary is empty) */
}

/* byte_id with nothing remembered: TB_SPACE_ID for ASCII whitespace, else TB_ABSENT
 * (a constant expression: the compiler builds the table) */
#define FRESH_ID(c) (TB_ASCII_SPACE(c) ? TB_SPACE_ID : TB_ABSENT)
#define FRESH4(c) FRESH_ID(c), FRESH_ID((c) + 1), FRESH_ID((c) + 2), FRESH_ID((c) + 3)
#define FRESH16(c) FRESH4(c), FRESH4((c) + 4), FRESH4((c) + 8), FRESH4((c) + 12)
#define FRESH64(c) FRESH16(c), FRESH16((c) + 16), FRESH16((c) + 32), FRESH16((c) + 48)
static const uint32_t fresh_byte_ids[256] = {FRESH64(0), FRESH64(64), FRESH64(128), FRESH64(192)};

void tb_fresh_byte_ids(tb_builder *b)
{
    tb_char_ids *ch = &b->chars;
    if (ch->bytes_era == 0 || ch->nbyte_set > 256) {  /* (a new builder; more than every byte: never) */
        memcpy(ch->byte_id, fresh_byte_ids, sizeof(fresh_byte_ids));
    } else {  /* the few bytes given an id (other modes' eras give few or none) */
        for (uint32_t k = 0; k < ch->nbyte_set; k++)
            ch->byte_id[ch->byte_set[k]] = TB_ABSENT;
    }
    ch->nbyte_set = 0;
    ch->bytes_era = b->era;
}

void tb_builder_free(tb_builder *b)
{
    free(b->line8);
    free(b->other);
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

size_t tb_builder_footprint(const tb_builder *b)
{
    return b->line8_cap + b->other_cap * sizeof(uint64_t) +
           (b->cp.cap + b->tmp.cap + b->tmp2.cap) * sizeof(uint32_t) + b->bytes_cap +
           b->vocab_cap * sizeof(tb_tok) + b->slots_cap * sizeof(tb_slot) +
           (b->ids_cap + b->seq_cap) * sizeof(uint32_t);
}

void tb_builder_reset(tb_builder *b)
{
    if (++b->slot_era == SLOT_ERA_END) {  /* (every 65,535 resets) */
        if (b->slots)
            memset(b->slots, 0, b->slots_cap * sizeof(tb_slot));
        b->slot_era = 1;
    }
    b->nbytes = b->nvocab = b->nids = b->nseq = 0;
    tb_new_era(b);
}

int tb_builder_add_line(tb_builder *b, const tb_text *t, int mode)
{
    if (tb_poll_spend(b->poll, 16))
        return -1;
    if (b->lookup != b->era_lookup)
        tb_new_era(b);
    if (!b->lookup && !b->slots_cap && tb_vocab_rehash(b, MIN_SLOTS) < 0)  /* the vocabulary's first table */
        return -1;
    size_t first = b->nids;
    int ascii = mode == TB_13A || mode == TB_INTL ? 0 : read_ascii(b, t), rc;
    if (mode == TB_13A) {
        rc = tb_tokenize_13a(b, t);
    } else if (mode == TB_INTL) {
        rc = tb_tokenize_intl(b, t);
    } else if (ascii < 0) {
        return -1;
    } else if (ascii) {
        const uint8_t *s = b->line8;
        size_t n = b->line8_n;
        if (line_room(b, n, 1) < 0)
            return -1;
        rc = tb_tokenize_ascii(b, s, n, mode);
    } else {
        if (read_code_points(b, t) < 0 || line_room(b, b->cp.n, 4) < 0)
            return -1;
        const uint32_t *s = b->cp.a;
        size_t n = b->cp.n;
        b->cp.a[n] = ' ';  /* the sentinel */
        rc = tb_tokenize_code_points(b, s, n, mode);
    }
    if (mode == TB_13A || mode == TB_INTL)  /* (after the line: 13a may start an era in it) */
        b->ascii_complete = 0;  /* their hot loops add one-byte tokens they do not remember */
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
    /* the one-character ids it remembers are of its own vocabulary unless it
     * looked in another in this era */
    /* (and its byte_id is of this era: a builder that has not read a line in it
     * may hold another's; the view is valid until the builder changes) */
    out->chars = b->era_lookup == NULL && b->chars.bytes_era == b->era ? &b->chars : NULL;
    out->chars_era = b->era;
    out->ascii_complete = b->ascii_complete;
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
    seg->chars = NULL;  /* (the builder's remembered ids are not kept) */
    seg->chars_era = 0;
    seg->ascii_complete = 0;
    return seg;
}
