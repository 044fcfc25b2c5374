/* truebleu core: BLEU on token ids (see bleu/ids.h): a vocabulary per segment
 * built from the ids themselves. */
#include <stdlib.h>
#include <string.h>

#include "bleu/ids.h"
#include "runtime/memory.h"

void tb_id_vocab_init(tb_id_vocab *v) { memset(v, 0, sizeof(*v)); }

void tb_id_vocab_free(tb_id_vocab *v)
{
    free(v->slots);
    free(v->ref_ids);
    free(v->seq_len);
    free(v->hyp_ids);
    memset(v, 0, sizeof(*v));
}

size_t tb_id_vocab_footprint(const tb_id_vocab *v)
{
    return v->slots_cap * sizeof(tb_id_slot) + (v->ref_ids_cap + v->seq_len_cap + v->hyp_ids_cap) * sizeof(uint32_t);
}

/* The first slot to probe for `id` (Fibonacci hashing: consecutive ids, the
 * usual vocabulary, spread over the table). */
static inline size_t slot_of(int64_t id, size_t mask)
{
    return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* A table of `cap` slots (a power of 2) with none live: a new era, so that the
 * slots of earlier segments are stale without clearing them. */
static int start_table(tb_id_vocab *v, size_t cap)
{
    if (cap > v->slots_cap) {
        size_t old = v->slots_cap;
        if (GROW(v->slots, v->slots_cap, cap) < 0)
            return -1;
        memset(v->slots + old, 0, (v->slots_cap - old) * sizeof(tb_id_slot));  /* era 0: never live */
    }
    if (++v->era == 0) {  /* the eras wrapped: clear once */
        memset(v->slots, 0, v->slots_cap * sizeof(tb_id_slot));
        v->era = 1;
    }
    v->mask = cap - 1;
    v->nvocab = 0;
    return 0;
}

/* The local index of `id`, a new one (the next) if it has none. */
static inline uint32_t local_add(tb_id_vocab *v, int64_t id)
{
    for (size_t j = slot_of(id, v->mask);; j = (j + 1) & v->mask) {
        tb_id_slot *s = &v->slots[j];
        if (s->era != v->era) {
            *s = (tb_id_slot){id, v->nvocab, v->era};
            return v->nvocab++;
        }
        if (s->id == id)
            return s->local;
    }
}

/* The local index of `id`, or TB_ABSENT. */
static inline uint32_t local_find(const tb_id_vocab *v, int64_t id)
{
    for (size_t j = slot_of(id, v->mask);; j = (j + 1) & v->mask) {
        const tb_id_slot *s = &v->slots[j];
        if (s->era != v->era)
            return TB_ABSENT;
        if (s->id == id)
            return s->local;
    }
}

int tb_id_references(tb_id_vocab *v, const tb_id_batch *b, size_t k, tb_seg *ref)
{
    const size_t s0 = b->first[k] + 1, s1 = b->first[k + 1];
    const size_t lo = b->seq_off[s0], ntok = b->seq_off[s1] - lo, nseq = s1 - s0;
    size_t cap = 16;
    while (cap < 2 * ntok)  /* at most half full: short probes */
        cap *= 2;
    if (start_table(v, cap) < 0 || GROW(v->ref_ids, v->ref_ids_cap, ntok) < 0 ||
        GROW(v->seq_len, v->seq_len_cap, nseq) < 0)
        return -1;
    for (size_t t = 0; t < ntok; t++)
        v->ref_ids[t] = local_add(v, b->ids[lo + t]);
    for (size_t s = 0; s < nseq; s++)
        v->seq_len[s] = (uint32_t)(b->seq_off[s0 + s + 1] - b->seq_off[s0 + s]);
    memset(ref, 0, sizeof(*ref));
    ref->nseq = (uint32_t)nseq;
    ref->nvocab = v->nvocab;
    ref->ntok = (uint32_t)ntok;
    ref->seq_len = v->seq_len;
    ref->ids = v->ref_ids;
    return 0;
}

int tb_id_hypothesis(tb_id_vocab *v, const tb_id_batch *b, size_t k, const uint32_t **hyp, uint32_t *hlen)
{
    const size_t s = b->first[k], lo = b->seq_off[s], n = b->seq_off[s + 1] - lo;
    if (GROW(v->hyp_ids, v->hyp_ids_cap, n) < 0)
        return -1;
    for (size_t t = 0; t < n; t++)
        v->hyp_ids[t] = local_find(v, b->ids[lo + t]);
    *hyp = v->hyp_ids;
    *hlen = (uint32_t)n;
    return 0;
}

int tb_id_same_references(const tb_id_batch *b, size_t a, size_t k)
{
    const size_t sa = b->first[a] + 1, sk = b->first[k] + 1, nseq = b->first[a + 1] - sa;
    if (b->first[k + 1] - sk != nseq)
        return 0;
    for (size_t s = 0; s < nseq; s++)
        if (b->seq_off[sa + s + 1] - b->seq_off[sa + s] != b->seq_off[sk + s + 1] - b->seq_off[sk + s])
            return 0;
    const size_t n = b->seq_off[sa + nseq] - b->seq_off[sa];
    return n == 0 || memcmp(b->ids + b->seq_off[sa], b->ids + b->seq_off[sk], n * sizeof(int64_t)) == 0;
}

size_t tb_id_item_size(const tb_id_batch *b, size_t k)
{
    return b->seq_off[b->first[k + 1]] - b->seq_off[b->first[k]];
}
