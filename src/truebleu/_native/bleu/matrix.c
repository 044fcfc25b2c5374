/* N-gram profiles for pairwise matrices of single-reference sentence BLEU.
 *
 * All strings of a matrix are tokenized into one segment (one sequence per
 * distinct string, one shared vocabulary), so every n-gram gets one global
 * exact id: unigrams are vocabulary ids, a longer n-gram is keyed by
 * (id of its prefix << 32 | last token id) as in ngram.c. Each sequence's
 * profile is its list of (n-gram id, count). The profiles of the references
 * are then indexed by n-gram (postings: which references hold it, how often),
 * so a matrix row costs one pass over the hypothesis's profile and, for each
 * of its n-grams, over the references that share it: the n-grams a pair does
 * not share (most of them) cost nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/memory.h"
#include "bleu/matrix.h"
#include "bleu/ngram.h"

struct tb_profiles {
    uint32_t nseq, nids;
    int max_order;
    uint32_t *seq_len;     /* nseq */
    size_t *prof_off;      /* nseq + 1: profile of s is pairs[prof_off[s] .. prof_off[s+1]) */
    uint32_t *pair_id, *pair_count;
    uint16_t *order;       /* nids: n-gram order minus 1 */
    /* postings (tb_profiles_index): n-gram id g is held by post_seq[post_off[g] ..
     * post_off[g+1]), post_count times each */
    size_t *post_off;
    uint32_t *post_seq, *post_count;
};

void tb_profiles_free(tb_profiles *p)
{
    if (!p)
        return;
    free(p->seq_len);
    free(p->prof_off);
    free(p->pair_id);
    free(p->pair_count);
    free(p->order);
    free(p->post_off);
    free(p->post_seq);
    free(p->post_count);
    free(p);
}


tb_profiles *tb_profiles_build(const tb_seg *seg, int max_order, tb_poll *poll)
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
    uint32_t *seen = calloc(V + higher + 1, sizeof(uint32_t));  /* count in the sequence at hand */
    if (!p || !slots || !keys || !scratch || !seen)
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
        size_t k = 0;  /* scratch[0 .. k): the distinct n-grams of s, first seen first */
        for (uint32_t i = 0; i < len; i++) {
            uint32_t prev = ids[i];
            if (seen[prev]++ == 0)
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
                if (seen[id]++ == 0)
                    scratch[k++] = id;
                prev = id;
            }
        }
        for (size_t a = 0; a < k; a++, npairs++) {
            p->pair_id[npairs] = scratch[a];
            p->pair_count[npairs] = seen[scratch[a]];
            seen[scratch[a]] = 0;
        }
        ids += len;
        /* 16 units per n-gram hashed: a probe of a table of tens of MB costs about as
         * much as tokenizing 16 code points (a unit each) */
        if (tb_poll_spend(poll, 1 + 16 * (long)(len * N)))
            goto fail;
    }
    p->prof_off[S] = npairs;
    p->nids = next_id;
    free(slots);
    free(keys);
    free(scratch);
    free(seen);
    return p;
fail:
    free(slots);
    free(keys);
    free(scratch);
    free(seen);
    tb_profiles_free(p);
    return NULL;
}

int tb_profiles_index(tb_profiles *p, const uint8_t *chosen, tb_poll *poll)
{
    const size_t G = p->nids;
    size_t *off = calloc(G + 1, sizeof(size_t));
    if (!off)
        return -1;
    for (size_t s = 0; s < p->nseq; s++)
        if (chosen[s])
            for (size_t k = p->prof_off[s]; k < p->prof_off[s + 1]; k++)
                off[p->pair_id[k] + 1]++;
    for (size_t g = 0; g < G; g++)
        off[g + 1] += off[g];
    uint32_t *seq = malloc((off[G] + 1) * sizeof(uint32_t));
    uint32_t *count = malloc((off[G] + 1) * sizeof(uint32_t));
    if (!seq || !count) {
        free(off);
        free(seq);
        free(count);
        return -1;
    }
    /* fill: off[g] walks to the end of g's range, which is where g + 1's begins */
    for (size_t s = 0; s < p->nseq; s++) {
        if (!chosen[s])
            continue;
        for (size_t k = p->prof_off[s]; k < p->prof_off[s + 1]; k++) {
            size_t at = off[p->pair_id[k]]++;
            seq[at] = (uint32_t)s;
            count[at] = p->pair_count[k];
        }
        if (tb_poll_spend(poll, 1 + 4 * (long)(p->prof_off[s + 1] - p->prof_off[s]))) {  /* scattered writes */
            free(off);
            free(seq);
            free(count);
            return -1;
        }
    }
    for (size_t g = G; g > 0; g--)
        off[g] = off[g - 1];
    off[0] = 0;
    free(p->post_off);
    free(p->post_seq);
    free(p->post_count);
    p->post_off = off;
    p->post_seq = seq;
    p->post_count = count;
    return 0;
}

size_t tb_profiles_matches(const tb_profiles *p, uint32_t h, int64_t *acc)
{
    const size_t N = (size_t)p->max_order;
    size_t visited = p->prof_off[h + 1] - p->prof_off[h];
    for (size_t k = p->prof_off[h]; k < p->prof_off[h + 1]; k++) {
        const uint32_t g = p->pair_id[k], c = p->pair_count[k];
        int64_t *col = acc + p->order[g];
        visited += p->post_off[g + 1] - p->post_off[g];
        for (size_t q = p->post_off[g]; q < p->post_off[g + 1]; q++) {
            uint32_t rc = p->post_count[q];
            col[(size_t)p->post_seq[q] * N] += c < rc ? c : rc;
        }
    }
    return visited;
}

/* The row of hypothesis h against the single reference r, from h's matches (acc). */
void tb_profiles_row(const tb_profiles *p, uint32_t h, uint32_t r, const int64_t *acc, int64_t *row)
{
    const size_t N = (size_t)p->max_order;
    const uint32_t hlen = p->seq_len[h];
    int64_t *matches = row + 2, *totals = row + 2 + N;
    row[0] = hlen;
    row[1] = p->seq_len[r];
    memcpy(matches, acc + (size_t)r * N, N * sizeof(int64_t));
    for (size_t n = 1; n <= N; n++)
        totals[n - 1] = hlen >= n ? (int64_t)(hlen - n + 1) : 0;
}
