/* chrF's chained n-gram ids (chrf/ngrams.h): every order's n-gram is the pair (id of
 * its first n - 1 symbols, its last symbol), ids handed out per pair, order by order.
 * For symbols that do not pack into 64-bit keys (many distinct symbols, long orders,
 * astral code points). */
#include "chrf/ngrams.h"
#include "runtime/memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline size_t slot_of(uint64_t key, size_t mask)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
}

/* [hyp n-grams, ref n-grams, matches] for n = 1..max_order between the symbol
 * sequences h and r (code points, or word ids), written to out[3 * (n - 1)..].
 *
 * Only n-grams that both sides hold can match, and an n-gram is common only if
 * its first n - 1 symbols are: so from order 2 on, a reference n-gram enters
 * the table only where its (n - 1)-gram prefix was found in the hypothesis
 * (every occurrence of a common n-gram still enters, so its count is whole),
 * and a hypothesis n-gram is looked up only where its prefix is in the table.
 * The totals of each order are the lengths; only matches need the table. */
int tb_chrf_count_chained(tb_chrf_ngrams *w, const uint32_t *h, size_t hn, const uint32_t *r,
                          size_t rn, int max_order, int64_t *out)
{
    memset(out, 0, 3 * (size_t)max_order * sizeof(int64_t));
    if (rn == 0)
        return 0;
    size_t total = 0;
    for (int n = 1; n <= max_order && (size_t)n <= rn; n++)
        total += rn - (size_t)n + 1;
    if (total >= UINT32_MAX / 2)
        return -1;
    size_t cap = tb_chrf_table_size(total);
    if (GROW(w->slots, w->slots_cap, cap) < 0 || GROW(w->rid, w->rid_cap, rn) < 0 ||
        GROW(w->hid, w->hid_cap, hn ? hn : 1) < 0 || GROW(w->common, w->common_cap, total + 1) < 0)
        return -1;
    chrf_slot *slots = w->slots;
    uint32_t *rid = w->rid, *hid = w->hid;
    /* Instead of clearing the table for every pair, slots with an id below
     * `first` (from earlier pairs) count as empty; the table is cleared only
     * where it was never used, and when the ids would run out. */
    if (w->next_id == 0 || w->next_id > UINT32_MAX - total - 1) {
        memset(slots, 0, w->slots_zeroed * sizeof(chrf_slot));
        w->next_id = 1;
    }
    if (cap > w->slots_zeroed) {
        memset(slots + w->slots_zeroed, 0, (cap - w->slots_zeroed) * sizeof(chrf_slot));
        w->slots_zeroed = cap;
    }
    const uint32_t first = w->next_id;
    uint32_t next_id = first;
    /* common[id - first]: the hypothesis holds n-gram `id` too */
    unsigned char *common = w->common;
    size_t mask = cap - 1;
    for (int n = 1; n <= max_order; n++) {
        size_t ref_total = rn >= (size_t)n ? rn - (size_t)n + 1 : 0;
        size_t hyp_total = hn >= (size_t)n ? hn - (size_t)n + 1 : 0;
        if (!ref_total)
            break;  /* this order and the higher ones: no reference n-grams, all zero */
        int64_t *row = out + 3 * (n - 1);
        row[0] = (int64_t)hyp_total;
        row[1] = (int64_t)ref_total;
        for (size_t i = 0; i < ref_total; i++) {
            uint32_t prev = 0;
            if (n > 1) {
                prev = rid[i];
                if (!prev || !common[prev - first]) {
                    rid[i] = 0;  /* its prefix is not common: neither is it, nor what it starts */
                    continue;
                }
            }
            uint64_t key = ((uint64_t)prev << 32) | r[i + (size_t)n - 1];
            size_t k = slot_of(key, mask);
            while (slots[k].id >= first && slots[k].key != key)
                k = (k + 1) & mask;
            if (slots[k].id < first) {
                slots[k].key = key;
                slots[k].id = next_id;
                slots[k].left = 0;
                common[next_id - first] = 0;
                next_id++;
            }
            slots[k].left++;
            rid[i] = slots[k].id;
        }
        int64_t matches = 0;
        for (size_t i = 0; i < hyp_total; i++) {
            uint32_t prev = n == 1 ? 0 : hid[i];
            if (n > 1 && !prev) {
                continue;  /* its (n-1)-gram prefix is not in the reference: neither is it */
            }
            uint64_t key = ((uint64_t)prev << 32) | h[i + (size_t)n - 1];
            size_t k = slot_of(key, mask);
            while (slots[k].id >= first && slots[k].key != key)
                k = (k + 1) & mask;
            if (slots[k].id < first) {
                hid[i] = 0;  /* absent */
                continue;
            }
            hid[i] = slots[k].id;
            common[slots[k].id - first] = 1;
            if (slots[k].left > 0) {
                slots[k].left--;
                matches++;
            }
        }
        row[2] = matches;
    }
    w->next_id = next_id;
    return 0;
}

void tb_chrf_ngrams_free(tb_chrf_ngrams *w)
{
    free(w->slots);
    free(w->hid);
    free(w->rid);
    free(w->common);
    free(w->packed);
    free(w->used);
    free(w->direct);
    free(w->repeats);
    free(w->low_used);
    free(w->best);
    free(w->reached);
    memset(w, 0, sizeof(*w));
}
