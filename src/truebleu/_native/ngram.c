/* N-gram counting and clipping with exact keys (the numbers of _reference.py).
 *
 * N-gram ids: a unigram's id is its reference vocabulary id (0 .. V-1); a
 * longer n-gram gets the next free id (V, V+1, ...) the first time the key
 * (id of its (n-1)-gram prefix << 32 | id of its last token) is seen. Keys
 * are compared in full, so a hash collision can cost time but never change a
 * count. Only reference n-grams whose tokens all occur in the hypothesis are
 * stored: the others cannot be matched. The reference table is closed under
 * prefixes, so a hypothesis n-gram missing from it ends the scan of longer
 * n-grams at that position.
 */
#include <stdlib.h>
#include <string.h>

#include "tb_core.h"

#define NONE TB_ABSENT


static size_t pow2_at_least(size_t n)
{
    size_t c = 16;
    while (c < n)
        c *= 2;
    return c;
}

static inline size_t key_slot(uint64_t key, size_t mask)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

void tb_matcher_init(tb_matcher *m) { memset(m, 0, sizeof(*m)); }

void tb_matcher_free(tb_matcher *m)
{
    free(m->hmap);
    free(m->in_hyp);
    free(m->hyp_ids);
    free(m->ng_slots);
    free(m->ng_keys);
    free(m->clip);
    free(m->cur);
    free(m->touched);
    memset(m, 0, sizeof(*m));
}

/* Reserve room for n-gram ids below `need` in the count arrays. */
static int counts_reserve(tb_matcher *m, size_t need)
{
    if (need <= m->counts_cap)
        return 0;
    size_t cap = m->counts_cap;
    if (GROW(m->clip, cap, need) < 0)
        return -1;
    cap = m->counts_cap;
    if (GROW(m->cur, cap, need) < 0)
        return -1;
    m->counts_cap = cap;
    return 0;
}

int tb_segment_row(tb_matcher *m, const tb_seg *hyp, const tb_seg *ref, int max_order, int64_t *row)
{
    /* the hypothesis (its first sequence) in reference ids */
    const uint32_t hlen = hyp->nseq ? hyp->seq_len[0] : 0;
    if (GROW(m->hmap, m->hmap_cap, hyp->nvocab) < 0 || GROW(m->hyp_ids, m->hyp_ids_cap, hlen) < 0)
        return -1;
    for (uint32_t h = 0; h < hyp->nvocab; h++) {
        const tb_tok *e = &hyp->vocab[h];
        m->hmap[h] = tb_seg_find(ref, hyp->bytes + e->off, e->len, e->hash);
    }
    for (uint32_t i = 0; i < hlen; i++)
        m->hyp_ids[i] = m->hmap[hyp->ids[i]];
    return tb_segment_row_ids(m, m->hyp_ids, hlen, ref, max_order, row);
}

/* The body of tb_segment_row_ids; N is a constant where it is inlined for the
 * common order 4, so that the loops over orders unroll. */
static inline __attribute__((always_inline)) int
segment_row_ids(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                const size_t N, int64_t *row)
{
    int64_t *matches = row + 2, *totals = row + 2 + N;
    memset(row, 0, (2 + 2 * N) * sizeof(int64_t));

    /* lengths: c, and the closest reference length, ties to the shorter */
    row[0] = hlen;
    int64_t best = -1;
    for (uint32_t r = 0; r < ref->nseq; r++) {
        int64_t len = ref->seq_len[r];
        if (best == -1) {
            best = len;
            continue;
        }
        int64_t d = llabs((int64_t)hlen - len), bd = llabs((int64_t)hlen - best);
        if (d < bd || (d == bd && len < best))
            best = len;
    }
    row[1] = best;
    for (size_t n = 1; n <= N; n++)
        totals[n - 1] = hlen >= n ? (int64_t)(hlen - n + 1) : 0;
    if (hlen == 0 || ref->nvocab == 0)
        return 0;

    /* which reference tokens occur in the hypothesis */
    const uint32_t V = ref->nvocab;
    if (GROW(m->in_hyp, m->in_hyp_cap, V) < 0)
        return -1;
    uint8_t *in_hyp = m->in_hyp;
    memset(in_hyp, 0, V);
    int any_common = 0;
    for (uint32_t i = 0; i < hlen; i++) {
        if (hyp_ids[i] != NONE) {
            in_hyp[hyp_ids[i]] = 1;
            any_common = 1;
        }
    }
    if (!any_common)
        return 0;

    /* the n-gram table for orders >= 2, sized for every reference n-gram (load
     * at most 2/3; fewer are stored: only those whose tokens are all common) */
    size_t bound = 0;
    for (uint32_t r = 0; r < ref->nseq; r++)
        for (size_t n = 2; n <= N && ref->seq_len[r] >= n; n++)
            bound += ref->seq_len[r] - n + 1;
    if ((uint64_t)V + bound >= NONE)
        return -1;
    size_t ncap = pow2_at_least(bound + bound / 2 + 2), mask = ncap - 1;
    if (GROW(m->ng_slots, m->ng_slots_cap, ncap) < 0 || GROW(m->ng_keys, m->ng_keys_cap, bound + 1) < 0 ||
        counts_reserve(m, V + bound + 1) < 0 || GROW(m->touched, m->touched_cap, V + bound + 1) < 0)
        return -1;
    uint32_t *slots = m->ng_slots;
    uint64_t *keys = m->ng_keys;
    /* clip: the clip counts; cur: the counts in the reference at hand (from the
     * second on; the first counts straight into clip), zero between references,
     * then the hypothesis's counts */
    uint32_t *clip = m->clip, *cur = m->cur, *touched = m->touched;
    if (N >= 2)
        memset(slots, 0, ncap * sizeof(uint32_t));
    memset(clip, 0, V * sizeof(uint32_t));
    memset(cur, 0, V * sizeof(uint32_t));
    uint32_t next_id = V;

    /* clip counts: for each reference, count its n-grams; keep the maximum */
    const uint32_t *ids = ref->ids;
    for (uint32_t r = 0; r < ref->nseq; r++) {
        const uint32_t len = ref->seq_len[r];
        uint32_t *count = r == 0 ? clip : cur;
        size_t ntouched = 0;
        for (uint32_t i = 0; i < len; i++) {
            uint32_t prev = ids[i];
            if (!in_hyp[prev])
                continue;
            if (count[prev]++ == 0 && r)
                touched[ntouched++] = prev;
            const size_t top = len - i < N ? len - i : N;  /* the longest n-gram at i */
            for (size_t n = 2; n <= top; n++) {
                uint32_t t = ids[i + n - 1];
                if (!in_hyp[t])
                    break;
                uint64_t key = ((uint64_t)prev << 32) | t;
                size_t j = key_slot(key, mask);
                uint32_t id;
                for (;;) {
                    uint32_t s = slots[j];
                    if (!s) {
                        id = next_id++;
                        slots[j] = id + 1;
                        keys[id - V] = key;
                        clip[id] = cur[id] = 0;
                        break;
                    }
                    if (keys[s - 1 - V] == key) {
                        id = s - 1;
                        break;
                    }
                    j = (j + 1) & mask;
                }
                if (count[id]++ == 0 && r)
                    touched[ntouched++] = id;
                prev = id;
            }
        }
        for (size_t k = 0; k < ntouched; k++) {
            uint32_t id = touched[k];
            if (cur[id] > clip[id])
                clip[id] = cur[id];
            cur[id] = 0;
        }
        ids += len;
    }

    /* matches: counting up to the clip count gives min(count, clip) */
    uint32_t *hcount = cur;
    const uint32_t *h = hyp_ids;
    for (uint32_t i = 0; i < hlen; i++) {
        uint32_t prev = h[i];
        if (prev == NONE)
            continue;
        if (++hcount[prev] <= clip[prev])
            matches[0]++;
        const size_t top = hlen - i < N ? hlen - i : N;
        for (size_t n = 2; n <= top; n++) {
            uint32_t t = h[i + n - 1];
            if (t == NONE)
                break;
            uint64_t key = ((uint64_t)prev << 32) | t;
            size_t j = key_slot(key, mask);
            uint32_t id = NONE, s;
            while ((s = slots[j]) != 0) {
                if (keys[s - 1 - V] == key) {
                    id = s - 1;
                    break;
                }
                j = (j + 1) & mask;
            }
            if (id == NONE)
                break;
            if (++hcount[id] <= clip[id])
                matches[n - 1]++;
            prev = id;
        }
    }
    return 0;
}

int tb_segment_row_ids(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                       int max_order, int64_t *row)
{
    if (max_order == 4)  /* sacreBLEU's default: a copy with the order known */
        return segment_row_ids(m, hyp_ids, hlen, ref, 4, row);
    return segment_row_ids(m, hyp_ids, hlen, ref, (size_t)max_order, row);
}
