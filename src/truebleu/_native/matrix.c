/* N-gram profiles for pairwise matrices of single-reference sentence BLEU.
 *
 * All strings of a matrix are tokenized into one segment (one sequence per
 * distinct string, one shared vocabulary), so every n-gram gets one global
 * exact id: unigrams are vocabulary ids, a longer n-gram is keyed by
 * (id of its prefix << 32 | last token id) as in ngram.c. Each sequence's
 * profile is its sorted list of (n-gram id, count). A cell then costs one
 * pass over the reference's profile against the hypothesis's counts, loaded
 * once per matrix row into a dense array.
 */
#include <stdlib.h>
#include <string.h>

#include "tb_core.h"

struct tb_profiles {
    uint32_t nseq, nids;
    int max_order;
    uint32_t *seq_len;     /* nseq */
    size_t *prof_off;      /* nseq + 1: profile of s is pairs[prof_off[s] .. prof_off[s+1]) */
    uint32_t *pair_id, *pair_count;
    uint16_t *order;       /* nids: n-gram order minus 1 */
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void tb_profiles_free(tb_profiles *p)
{
    if (!p)
        return;
    free(p->seq_len);
    free(p->prof_off);
    free(p->pair_id);
    free(p->pair_count);
    free(p->order);
    free(p);
}

uint32_t tb_profiles_nids(const tb_profiles *p) { return p->nids; }

tb_profiles *tb_profiles_build(const tb_seg *seg, int max_order)
{
    const size_t N = (size_t)max_order, V = seg->nvocab, S = seg->nseq;
    size_t total = 0, higher = 0, longest = 0;
    for (size_t s = 0; s < S; s++) {
        size_t len = seg->seq_len[s];
        for (size_t n = 1; n <= N && len >= n; n++) {
            total += len - n + 1;
            if (n >= 2)
                higher += len - n + 1;
        }
        if (len > longest)
            longest = len;
    }
    if ((uint64_t)V + higher >= TB_ABSENT)
        return NULL;
    tb_profiles *p = calloc(1, sizeof(*p));
    size_t cap = 16;
    while (cap < 2 * higher + 2)
        cap *= 2;
    uint32_t *slots = calloc(cap, sizeof(uint32_t));
    uint64_t *keys = malloc((higher + 1) * sizeof(uint64_t));
    uint32_t *scratch = malloc((longest * N + 1) * sizeof(uint32_t));
    if (!p || !slots || !keys || !scratch)
        goto fail;
    p->nseq = (uint32_t)S;
    p->max_order = max_order;
    p->seq_len = malloc((S + 1) * sizeof(uint32_t));
    p->prof_off = malloc((S + 1) * sizeof(size_t));
    p->pair_id = malloc((total + 1) * sizeof(uint32_t));
    p->pair_count = malloc((total + 1) * sizeof(uint32_t));
    p->order = malloc((V + higher + 1) * sizeof(uint16_t));
    if (!p->seq_len || !p->prof_off || !p->pair_id || !p->pair_count || !p->order)
        goto fail;
    for (size_t v = 0; v < V; v++)
        p->order[v] = 0;

    uint32_t next_id = (uint32_t)V;
    const size_t mask = cap - 1;
    const uint32_t *ids = seg->ids;
    size_t npairs = 0;
    for (size_t s = 0; s < S; s++) {
        const uint32_t len = seg->seq_len[s];
        p->seq_len[s] = len;
        p->prof_off[s] = npairs;
        size_t k = 0;
        for (uint32_t i = 0; i < len; i++) {
            uint32_t prev = ids[i];
            scratch[k++] = prev;
            for (size_t n = 2; n <= N && i + n - 1 < len; n++) {
                uint64_t key = ((uint64_t)prev << 32) | ids[i + n - 1];
                size_t j = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
                uint32_t id;
                for (;;) {
                    uint32_t sl = slots[j];
                    if (!sl) {
                        id = next_id++;
                        slots[j] = id + 1;
                        keys[id - V] = key;
                        p->order[id] = (uint16_t)(n - 1);
                        break;
                    }
                    if (keys[sl - 1 - V] == key) {
                        id = sl - 1;
                        break;
                    }
                    j = (j + 1) & mask;
                }
                scratch[k++] = id;
                prev = id;
            }
        }
        qsort(scratch, k, sizeof(uint32_t), cmp_u32);
        for (size_t a = 0; a < k;) {
            size_t b = a + 1;
            while (b < k && scratch[b] == scratch[a])
                b++;
            p->pair_id[npairs] = scratch[a];
            p->pair_count[npairs] = (uint32_t)(b - a);
            npairs++;
            a = b;
        }
        ids += len;
    }
    p->prof_off[S] = npairs;
    p->nids = next_id;
    free(slots);
    free(keys);
    free(scratch);
    return p;
fail:
    free(slots);
    free(keys);
    free(scratch);
    tb_profiles_free(p);
    return NULL;
}

void tb_profiles_load(const tb_profiles *p, uint32_t h, uint32_t *cnt)
{
    for (size_t k = p->prof_off[h]; k < p->prof_off[h + 1]; k++)
        cnt[p->pair_id[k]] = p->pair_count[k];
}

void tb_profiles_unload(const tb_profiles *p, uint32_t h, uint32_t *cnt)
{
    for (size_t k = p->prof_off[h]; k < p->prof_off[h + 1]; k++)
        cnt[p->pair_id[k]] = 0;
}

/* The row of hypothesis h (loaded into cnt) against the single reference r. */
void tb_profiles_row(const tb_profiles *p, uint32_t h, uint32_t r, const uint32_t *cnt, int64_t *row)
{
    const size_t N = (size_t)p->max_order;
    const uint32_t hlen = p->seq_len[h];
    int64_t *matches = row + 2, *totals = row + 2 + N;
    memset(row, 0, (2 + 2 * N) * sizeof(int64_t));
    row[0] = hlen;
    row[1] = p->seq_len[r];
    for (size_t n = 1; n <= N; n++)
        totals[n - 1] = hlen >= n ? (int64_t)(hlen - n + 1) : 0;
    for (size_t k = p->prof_off[r]; k < p->prof_off[r + 1]; k++) {
        uint32_t c = cnt[p->pair_id[k]];
        if (c) {
            uint32_t rc = p->pair_count[k];
            matches[p->order[p->pair_id[k]]] += c < rc ? c : rc;
        }
    }
}
