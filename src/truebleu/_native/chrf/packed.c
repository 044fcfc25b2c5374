/* chrF's packed n-gram keys (chrf/ngrams.h): an n-gram's symbols side by side in one
 * 64-bit key, every order found in one pass over each line; the chained ids
 * (chrf/chained.c) where they do not fit. */
#include "chrf/ngrams.h"
#include "runtime/memory.h"
#include "runtime/portable.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The bits a symbol id up to `largest` takes (0 for 0): halving steps, not a loop over
 * the bits (which cost corpus chrF++ 0.6% of its instructions, at every pair's two
 * counts). */
static unsigned id_bits(uint32_t largest)
{
    unsigned bits = 0;
    for (unsigned step = 16; step > 0; step >>= 1) {
        if (largest >> step) {
            largest >>= step;
            bits += step;
        }
    }
    return bits + largest;  /* (largest is 0 or 1 now) */
}

/* Whether count_packed can count orders 1..max_order of symbols of `bits` bits: the
 * max_order symbols of an n-gram, side by side, fit in 64 bits. */
static int packs(unsigned bits, int max_order)
{
    return (uint64_t)bits * (uint64_t)max_order <= 64;
}

/* Symbols of up to DIRECT_BITS bits: their unigrams and bigrams are counted in an
 * array indexed by the key itself (2^(2 DIRECT_BITS) uint16 counts), not hashed.
 * A build may set TB_CHRF_DIRECT_BITS (0 .. 12; 0: never direct), small so that a
 * sanitizer or fuzzer run reaches the hashed low orders with ordinary inputs
 * (bench/sanitize.sh). */
#ifndef TB_CHRF_DIRECT_BITS
#define TB_CHRF_DIRECT_BITS 7
#endif
_Static_assert(TB_CHRF_DIRECT_BITS >= 0 && TB_CHRF_DIRECT_BITS <= 12,
               "TB_CHRF_DIRECT_BITS: 0 .. 12 (a bigram key indexes 2^(2 bits) uint16 counts)");
#define DIRECT_BITS ((unsigned)TB_CHRF_DIRECT_BITS)
#define DIRECT_SIZE ((size_t)1 << (2 * DIRECT_BITS))

/* The slot of `key` in the packed table: its own, or the empty one where it goes. */
static inline size_t packed_slot(const chrf_packed_slot *tab, uint64_t key, unsigned shift,
                                 size_t mask)
{
    size_t s = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> shift);
    while (tab[s].key != key && tab[s].key != 0)
        s = (s + 1) & mask;
    return s;
}

/* A reference n-gram of a direct order whose key the pair clears without a list: one
 * more occurrence in `low` (1 + its count). Unigram keys are the symbols themselves,
 * below 2^bits (a bigram's key is at least 2^bits: its first symbol is not 0), so
 * count_packed clears them after the pair with one memset of that prefix of `low`
 * instead of listing each in low_used; count_anchored clears its bigrams from the
 * anchors it walks to empty the hash table (each bigram begins an anchor but the
 * last one). */
static inline void low_add_unigram(uint16_t *restrict low, uint64_t key)
{
    uint16_t v = low[key];
    low[key] = (uint16_t)(v + 1 + (v == 0));
}

/* A reference bigram (a direct order): one more occurrence in `low` (1 + its count;
 * the keys it sets go to low_used, to be cleared after the pair). Without a branch:
 * whether a bigram is new to the pair does not follow a pattern the processor could
 * predict, so the key is written to low_used always and kept only if new (low_used has
 * room for one per reference position). */
static inline void low_add(uint16_t *restrict low, uint32_t *restrict low_used, size_t *nlow,
                           uint64_t key)
{
    uint16_t v = low[key];
    low_used[*nlow] = (uint32_t)key;
    *nlow += v == 0;
    low[key] = (uint16_t)(v + 1 + (v == 0));
}

/* A hypothesis n-gram of a direct order: takes one of the reference's occurrences left
 * (a match, counted in *matches); 0 when the reference has none at all (then no longer
 * n-gram from the same position is in it either). */
static inline int low_take(uint16_t *restrict low, uint64_t key, int64_t *matches)
{
    uint32_t v = low[key];
    /* v > 1, with neither a branch (whether any is left is as good as random) nor a
     * flag: v + 0xFFFE reaches bit 16 exactly when v is 2 or more (v is below 2^16) */
    uint32_t take = (v + 0xFFFEu) >> 16;
    low[key] = (uint16_t)(v - take);
    *matches += take;
    return v != 0;
}

/* Each order's n-gram totals of the pair: hn - n + 1 and rn - n + 1 for the orders the
 * reference has (those it lacks, and their hypothesis totals, stay 0). */
static void put_totals(int64_t *out, size_t order, size_t hn, size_t rn)
{
    for (size_t n = 1; n <= order && n <= rn; n++) {
        out[3 * (n - 1)] = hn >= n ? (int64_t)(hn - n + 1) : 0;
        out[3 * (n - 1) + 1] = (int64_t)(rn - n + 1);
    }
}

/* count_packed when every order is direct (max_order 1 or 2, as chrF++'s words, rn > 0):
 * one loop over each line that counts both orders at each position, with no test on the
 * way (a hypothesis bigram whose first symbol the reference lacks finds 0 left, as its
 * unigram did; unigram and bigram keys differ, so the order of the two does not matter). */
static void count_direct(uint16_t *restrict low, uint32_t *restrict low_used,
                         const uint32_t *restrict h, size_t hn, const uint32_t *restrict r,
                         size_t rn, size_t order, unsigned bits, int64_t *restrict out)
{
    size_t nlow = 0;
    int64_t unigrams = 0, bigrams = 0;
    /* positions with a bigram (order 2): all but the last; the rest, unigrams alone */
    const size_t rpairs = order == 2 ? rn - 1 : 0;
    const size_t hpairs = order == 2 && hn > 0 ? hn - 1 : 0;
    for (size_t i = 0; i < rpairs; i++) {
        low_add_unigram(low, r[i]);
        low_add(low, low_used, &nlow, ((uint64_t)r[i] << bits) | r[i + 1]);
    }
    for (size_t i = rpairs; i < rn; i++)
        low_add_unigram(low, r[i]);
    for (size_t i = 0; i < hpairs; i++) {
        low_take(low, h[i], &unigrams);
        low_take(low, ((uint64_t)h[i] << bits) | h[i + 1], &bigrams);
    }
    for (size_t i = hpairs; i < hn; i++)
        low_take(low, h[i], &unigrams);
    out[2] = unigrams;
    if (order == 2)
        out[5] = bigrams;
    for (size_t u = 0; u < nlow; u++)  /* the bigrams; then the unigrams, keys 1 .. 2^bits - 1 */
        low[low_used[u]] = 0;
    memset(low, 0, ((size_t)1 << bits) * sizeof(uint16_t));
    put_totals(out, order, hn, rn);
}

/* count_chained's rows, from the symbols' packed keys (count_packed's passes): an
 * n-gram's key is its symbols (ids from 1, `bits` bits each) side by side, first
 * symbol highest, so the key of order n + 1 at position i is the key of order n
 * shifted by one symbol, with the next symbol in; the first symbol is not 0, so keys
 * of different orders differ and no key is 0 (the empty slot).
 *
 * Low orders: keys below 2^(2 bits) (unigrams and bigrams, when symbols take at most
 * DIRECT_BITS bits) index w->direct, which holds 1 + the reference occurrences not yet
 * matched (0: not in the reference). The next order, the anchor, goes to a hash
 * table. Higher orders: most anchors occur once in a reference (an n-gram of three
 * characters seldom repeats within a sentence), and then each longer n-gram that
 * starts with it occurs once in the reference, at the anchor's one position j: it
 * matches exactly when some hypothesis position with the same anchor agrees with j on
 * all its symbols, so the hypothesis only extends its anchor's match symbol by symbol
 * (best[j]: the longest agreement there) instead of looking up each order. The
 * n-grams of anchors the reference repeats enter the hash table, every order.
 * Each hypothesis position takes its orders upward until one is not in the reference
 * (then no longer n-gram there is). Both tables are left empty for the next pair: the
 * reference's bigrams are not listed for that (low_used), as each is the first two
 * symbols of an anchor that the hash table's clear list reaches (key >> bits), but the
 * bigram at the line's end.
 *
 * The pair's tables are ready (cap slots in w->packed, all empty). `anchor` is 2
 * (direct low orders) or 0, a constant at each of count_packed's two calls, so that
 * the compiler makes each loop twice with no test of it inside (one loop that tested
 * it, and kept its variables on the stack, cost 5% more instructions). */
static TB_ALWAYS_INLINE void count_anchored(tb_chrf_ngrams *w, const uint32_t *restrict h,
                                            size_t hn, const uint32_t *restrict r, size_t rn,
                                            size_t order, unsigned bits, size_t cap,
                                            const size_t anchor, int64_t *restrict out)
{
    uint16_t *restrict low = w->direct;
    chrf_packed_slot *restrict tab = w->packed;
    uint32_t *restrict used = w->used, *restrict repeats = w->repeats;
    uint32_t *restrict reached = w->reached;
    unsigned char *restrict best = w->best;
    /* positions before ranchors (hanchors) start an anchor: one n-gram of each direct
     * order, then the anchor; the last `anchor` positions of a line hold low orders only */
    const size_t ranchors = rn > anchor ? rn - anchor : 0;
    const size_t hanchors = hn > anchor ? hn - anchor : 0;
    size_t nused = 0, mask = cap - 1;
    unsigned shift = 64;
    for (size_t c = cap; c > 1; c >>= 1)
        shift--;
    /* the reference, up to the anchor order; `repeats` collects the positions of the
     * anchors it holds more than once (their first position when the second comes) */
    size_t nrepeats = 0, nreached = 0;
    for (size_t i = 0; i < ranchors; i++) {
        uint64_t key = r[i];
        if (anchor) {
            low_add_unigram(low, key);
            key = (key << bits) | r[i + 1];
            low_add_unigram(low, key);  /* (cleared through its anchor) */
            key = (key << bits) | r[i + 2];
        }
        size_t s = packed_slot(tab, key, shift, mask);
        if (tab[s].key == 0) {
            tab[s].key = key;
            tab[s].at = (uint32_t)i + 1;
            tab[s].left = 1;
            used[nused++] = (uint32_t)s;
        } else {
            if (tab[s].at != 0)
                repeats[nrepeats++] = tab[s].at - 1;
            tab[s].at = 0;  /* a repeated anchor */
            repeats[nrepeats++] = (uint32_t)i;
            tab[s].left++;
        }
    }
    /* the slots the anchors took, first in `used` (the higher orders of repeated anchors
     * follow them) */
    const size_t nanchors = nused;
    for (size_t i = ranchors; i < rn; i++) {  /* (only with direct orders) */
        low_add_unigram(low, r[i]);
        if (i + 1 < rn)  /* (the line's last bigram, cleared on its own) */
            low_add_unigram(low, ((uint64_t)r[i] << bits) | r[i + 1]);
    }
    /* the reference's higher orders, after a repeated anchor */
    for (size_t q = 0; q < nrepeats; q++) {
        size_t i = repeats[q];
        size_t len = rn - i < order ? rn - i : order;
        uint64_t key = 0;
        for (size_t k = 0; k <= anchor; k++)
            key = (key << bits) | r[i + k];
        for (size_t k = anchor + 1; k < len; k++) {
            key = (key << bits) | r[i + k];
            size_t s = packed_slot(tab, key, shift, mask);
            if (tab[s].key == 0) {
                tab[s].key = key;
                tab[s].at = 0;
                tab[s].left = 1;
                used[nused++] = (uint32_t)s;
            } else {
                tab[s].left++;
            }
        }
    }
    /* the matches of the direct orders and of the anchor order */
    int64_t unigrams = 0, bigrams = 0, anchors = 0;
    for (size_t i = 0; i < hanchors; i++) {
        uint64_t key = h[i];
        /* a low order the reference lacks: so does any longer n-gram from i */
        if (anchor) {
            if (!low_take(low, key, &unigrams))
                continue;
            key = (key << bits) | h[i + 1];
            if (!low_take(low, key, &bigrams))
                continue;
            key = (key << bits) | h[i + 2];
        }
        size_t s = packed_slot(tab, key, shift, mask);
        if (tab[s].key == 0)
            continue;
        if (tab[s].left > 0) {
            tab[s].left--;
            anchors++;
        }
        size_t len = hn - i < order ? hn - i : order;
        if (tab[s].at != 0) {  /* an anchor the reference holds once: extend its match */
            size_t j = tab[s].at - 1, l = anchor + 1;
            size_t stop = rn - j < len ? rn - j : len;
            while (l < stop && h[i + l] == r[j + l])
                l++;
            if (l > best[j]) {
                if (best[j] == 0)
                    reached[nreached++] = (uint32_t)j;
                best[j] = (unsigned char)l;
            }
            continue;
        }
        for (size_t k = anchor + 1; k < len; k++) {  /* after a repeated anchor: the higher orders */
            key = (key << bits) | h[i + k];
            s = packed_slot(tab, key, shift, mask);
            if (tab[s].key == 0)
                break;
            if (tab[s].left > 0) {
                tab[s].left--;
                out[3 * k + 2]++;
            }
        }
    }
    for (size_t i = hanchors; i < hn; i++) {  /* (only with direct orders) */
        if (low_take(low, h[i], &unigrams) && i + 1 < hn)
            low_take(low, ((uint64_t)h[i] << bits) | h[i + 1], &bigrams);
    }
    out[3 * anchor + 2] += anchors;
    if (anchor) {
        out[2] += unigrams;
        out[5] += bigrams;
    }
    /* the higher orders of the anchors the reference holds once: one match each where
     * some hypothesis position agrees that far (reach[l]: positions j with best[j] == l;
     * `best` is left all 0 again) */
    size_t reach[65];
    for (size_t l = 0; l <= order; l++)
        reach[l] = 0;
    for (size_t q = 0; q < nreached; q++) {
        reach[best[reached[q]]]++;
        best[reached[q]] = 0;
    }
    size_t beyond = 0;
    for (size_t k = order; k > anchor + 1; k--) {
        beyond += reach[k];  /* positions that agree on k symbols or more */
        out[3 * (k - 1) + 2] += (int64_t)beyond;
    }
    /* the hash table (an entry's other fields are set as it is filled); with direct
     * orders, each anchor's bigram with it, then the line's last bigram (which begins no
     * anchor) and the unigrams, keys 1 .. 2^bits - 1 */
    size_t u = 0;
    if (anchor) {
        for (; u < nanchors; u++) {
            chrf_packed_slot *slot = &tab[used[u]];
            low[slot->key >> bits] = 0;
            slot->key = 0;
        }
        if (rn >= 2)
            low[((uint64_t)r[rn - 2] << bits) | r[rn - 1]] = 0;
        memset(low, 0, ((size_t)1 << bits) * sizeof(uint16_t));
    }
    for (; u < nused; u++)
        tab[used[u]].key = 0;
    put_totals(out, order, hn, rn);
}

/* count_chained's rows from the symbols' packed keys (how: count_anchored): the
 * pairs whose orders are all direct go to count_direct; the others get their tables
 * ready here. 0 ok, -1 out of memory (before any table is written). */
static int count_packed(tb_chrf_ngrams *w, const uint32_t *restrict h, size_t hn,
                        const uint32_t *restrict r, size_t rn, int max_order, unsigned bits,
                        int64_t *restrict out)
{
    memset(out, 0, 3 * (size_t)max_order * sizeof(int64_t));
    if (rn == 0)
        return 0;
    uint64_t direct = 0;
    if (bits <= DIRECT_BITS && rn < UINT16_MAX) {
        if (!w->direct && !(w->direct = calloc(DIRECT_SIZE, sizeof(uint16_t))))
            return -1;
        direct = (uint64_t)1 << (2 * bits);
    }
    const size_t order = (size_t)max_order;
    if (direct && order <= 2) {
        if (GROW(w->low_used, w->low_used_cap, rn) < 0)
            return -1;
        count_direct(w->direct, w->low_used, h, hn, r, rn, order, bits, out);
        return 0;
    }
    /* the anchor order's index (order - 1): the one after the direct orders */
    const size_t anchor = direct ? 2 : 0;
    /* the most entries the hash table takes: the reference's n-grams from the anchor
     * order up (the direct orders never enter it) */
    size_t total = 0;
    for (size_t n = anchor + 1; n <= order && n <= rn; n++)
        total += rn - n + 1;
    if (total >= UINT32_MAX / 2)
        return -1;
    size_t cap = tb_chrf_table_size(total);
    if (cap > w->packed_cap) {
        free(w->packed);
        w->packed_cap = 0;
        w->packed = calloc(cap, sizeof(chrf_packed_slot));
        if (!w->packed)
            return -1;
        w->packed_cap = cap;
    }
    size_t best_was = w->best_cap;
    if (GROW(w->used, w->used_cap, total ? total : 1) < 0 || GROW(w->repeats, w->repeats_cap, rn) < 0 ||
        GROW(w->best, w->best_cap, rn) < 0 ||
        GROW(w->reached, w->reached_cap, rn) < 0)
        return -1;
    if (w->best_cap > best_was)  /* (what realloc kept is all 0 already) */
        memset(w->best + best_was, 0, w->best_cap - best_was);
    if (anchor)
        count_anchored(w, h, hn, r, rn, order, bits, cap, 2, out);
    else
        count_anchored(w, h, hn, r, rn, order, bits, cap, 0, out);
    return 0;
}

int tb_chrf_count_orders(tb_chrf_ngrams *w, const uint32_t *h, size_t hn, const uint32_t *r,
                         size_t rn, int max_order, uint32_t largest, int packed, int64_t *out)
{
    unsigned bits = id_bits(largest);
    if (packed && packs(bits, max_order))
        return count_packed(w, h, hn, r, rn, max_order, bits, out);
    return tb_chrf_count_chained(w, h, hn, r, rn, max_order, out);
}

size_t tb_chrf_ngrams_footprint(const tb_chrf_ngrams *w)
{
    return w->packed_cap * sizeof(chrf_packed_slot) + (w->direct ? DIRECT_SIZE * sizeof(uint16_t) : 0) +
           (w->used_cap + w->repeats_cap + w->low_used_cap + w->reached_cap + w->hid_cap + w->rid_cap) *
               sizeof(uint32_t) +
           w->best_cap + w->common_cap + w->slots_cap * sizeof(chrf_slot);
}
