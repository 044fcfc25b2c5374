/* chrF and chrF++ statistics: the compiled twin of truebleu/_reference_chrf.py.
 *
 * Per hypothesis and reference, for each character order n = 1..C and then
 * each word order n = 1..W, three counts: [hyp n-grams (0 when the reference
 * has none), ref n-grams, clipped matches]. With several references the row
 * of the reference with the highest f-score is kept (the first on a tie).
 *
 * Counting is exact. Symbols are small ids (per segment for characters, per
 * pair of lines for chrF++'s words, which are compared by content: by their
 * characters' symbol ids, read in the same pass as the characters, or by their
 * code points where a line of the pair has no ids), so an
 * n-gram of every order usually fits in one 64-bit key: its symbols packed
 * side by side (count_packed; one pass over each line finds all the orders).
 * Where they do not fit (many distinct symbols, long orders, astral code
 * points), an n-gram of order n is the pair (id of its first n - 1 symbols,
 * its last symbol), and ids are handed out per pair, order by order
 * (count_chained). Either way equal keys mean equal n-grams (a hash collision
 * only costs a probe). Matches are counted by inserting the reference n-grams
 * with their counts and letting each hypothesis n-gram take one from its entry
 * while any is left, which sums min(hyp count, ref count) over the distinct
 * n-grams.
 *
 * Text is read from the PyUnicode storage (1, 2 or 4 bytes per code point)
 * with the GIL released, by chrf/lines.c (whitespace as str.split() sees it).
 * Lowercasing happens in Python (str.lower) before the call.
 */
#include "chrf/chrf.h"
#include "chrf/lines.h"
#include "runtime/memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHRF_EPS 1e-16

/* n-gram table entry. An n-gram is known by an exact 64-bit key: the id of
 * its first n - 1 symbols (0 for n = 1) and its last symbol, (id << 32) | sym;
 * every key gets a fresh id (from 1), so keys of different orders differ. */
typedef struct {
    uint64_t key;
    uint32_t id;     /* 0 = empty slot */
    int32_t left;    /* reference occurrences not yet matched by the hypothesis */
} chrf_slot;

/* word vocabulary entry: a word of one of the two sides, and its id; a slot
 * whose stamp is not the current pair's is empty (no clearing between pairs) */
typedef struct {
    const uint32_t *p;
    uint32_t len, hash, id1;  /* id1 = id + 1 */
    uint32_t stamp;
} chrf_word_slot;

/* packed n-gram table entry: key 0 = empty (a packed key never is 0) */
typedef struct {
    uint64_t key;
    uint32_t left;   /* reference occurrences not yet matched by the hypothesis */
    uint32_t at;     /* an anchor's (count_packed): 1 + its one reference position; 0: repeated */
} chrf_packed_slot;

/* A line's characters as symbol ids (code points renumbered 1, 2, ... per segment). */
typedef struct {
    uint32_t *a; size_t n, cap;
    int ok;       /* 0: a code point had no id (astral, or the ids ran out): count_chained */
    int decoded;  /* the line's code points are in its chrf_side's chars too (and, for
                     chrF++, its words) */
    int words_decoded;  /* chrF++'s words are in its chrf_side (spans of its code points) */
    int has_words;      /* chrF++'s words are in `words` (tb_chrf_symbols_words) */
    chrf_span *words; uint32_t *hashes; size_t nwords, words_cap, hashes_cap;  /* spans of a */
} chrf_symbols;

/* A line's words as word_ids reads them: spans of `base` with their hashes (NULL: to be
 * computed), the ids going to side->ids. */
typedef struct {
    const uint32_t *base;
    const chrf_span *spans;
    const uint32_t *hashes;
    size_t n;
    chrf_side *side;
} chrf_word_list;

/* The code point -> symbol id map of the current segment: cmap[c] is
 * (stamp << 16) | id for the code points seen in it (the BMP; astral ones have none). */
#define CMAP_SIZE 0x10000u

typedef struct {
    chrf_side hyp, ref;
    chrf_symbols hsym, rsym;
    uint32_t *cmap; uint32_t cmap_stamp, nsyms;  /* nsyms: the segment's ids so far */
    chrf_packed_slot *packed; size_t packed_cap;  /* all empty between pairs */
    uint32_t *used; size_t used_cap;              /* the packed slots one pair filled */
    uint16_t *direct;                             /* DIRECT_SIZE, all 0 between pairs */
    uint32_t *repeats; size_t repeats_cap;          /* reference positions of repeated anchors */
    uint32_t *low_used; size_t low_used_cap;        /* the bigram keys one pair set in `direct` */
    unsigned char *best; size_t best_cap;           /* by reference position, all 0 between pairs */
    uint32_t *reached; size_t reached_cap;          /* the positions one pair set in `best` */
    uint32_t nword_ids;                           /* the pair's word ids are 1 .. nword_ids */
    chrf_slot *slots; size_t slots_cap, slots_zeroed;
    uint32_t next_id;  /* ids only grow, so a slot whose id predates the pair is empty */
    uint32_t *hid, *rid; size_t hid_cap, rid_cap;  /* n-gram ids by start position */
    unsigned char *common; size_t common_cap;       /* by id - first: held by both sides */
    chrf_word_slot *vocab; size_t vocab_cap, vocab_zeroed;
    uint32_t vocab_stamp;  /* the current pair's, from 1 */
    int64_t *row; size_t row_cap;
} chrf_scratch;

static size_t table_size(size_t count)
{
    size_t cap = 16;
    while (cap < 2 * count)
        cap *= 2;
    return cap;
}

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
static int count_chained(chrf_scratch *w, const uint32_t *h, size_t hn, const uint32_t *r,
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
    size_t cap = table_size(total);
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

/* The bits a symbol id up to `largest` takes. */
static unsigned id_bits(uint32_t largest)
{
    unsigned bits = 0;
    while (bits < 32 && (largest >> bits) != 0)
        bits++;
    return bits;
}

/* Whether count_packed can count orders 1..max_order of symbols whose ids are at most
 * `largest`: the max_order symbols of an n-gram, side by side, fit in 64 bits. */
static int packs(uint32_t largest, int max_order)
{
    return (uint64_t)id_bits(largest) * (uint64_t)max_order <= 64;
}

/* Symbols of up to DIRECT_BITS bits: their unigrams and bigrams are counted in an
 * array indexed by the key itself (2^(2 DIRECT_BITS) uint16 counts), not hashed. */
#define DIRECT_BITS 7u
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

/* A reference unigram: one more occurrence in `low` (1 + its count). Unigram keys are
 * the symbols themselves, below 2^bits (a bigram's key is at least 2^bits: its first
 * symbol is not 0), so count_packed clears them after the pair with one memset of that
 * prefix of `low` instead of listing each in low_used. */
static inline void low_add_unigram(uint16_t *restrict low, uint64_t key)
{
    uint16_t v = low[key];
    low[key] = (uint16_t)(v + 1 + (v == 0));
}

/* A reference bigram (a direct order): one more occurrence in `low` (1 + its count;
 * the keys it sets go to low_used, to be cleared after the pair). */
static inline void low_add(uint16_t *restrict low, uint32_t *restrict low_used, size_t *nlow,
                           uint64_t key)
{
    uint16_t v = low[key];
    if (v == 0)
        low_used[(*nlow)++] = (uint32_t)key;
    low[key] = (uint16_t)(v + 1 + (v == 0));
}

/* A hypothesis n-gram of a direct order: takes one of the reference's occurrences left
 * (a match, counted in *matches); 0 when the reference has none at all (then no longer
 * n-gram from the same position is in it either). */
static inline int low_take(uint16_t *restrict low, uint64_t key, int64_t *matches)
{
    uint16_t v = low[key];
    if (v > 1) {
        low[key] = (uint16_t)(v - 1);
        ++*matches;
    }
    return v != 0;
}

/* count_chained's rows, from the symbols' packed keys: an n-gram's key is its symbols
 * (ids from 1, `bits` bits each) side by side, first symbol highest, so the key of
 * order n + 1 at position i is the key of order n shifted by one symbol, with the
 * next symbol in; the first symbol is not 0, so keys of different orders differ and no
 * key is 0 (the empty slot).
 *
 * Low orders: keys below `direct` (unigrams and bigrams, when symbols take at most
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
 * (then no longer n-gram there is). Both tables are left empty for the next pair. */
static int count_packed(chrf_scratch *w, const uint32_t *restrict h, size_t hn,
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
    /* the anchor order's index (order - 1): the one after the direct orders */
    const size_t anchor = direct ? 2 : 0;
    /* the most entries the hash table takes: the reference's n-grams from the anchor
     * order up (the direct orders never enter it) */
    size_t total = 0;
    for (size_t n = anchor + 1; n <= order && n <= rn; n++)
        total += rn - n + 1;
    if (total >= UINT32_MAX / 2)
        return -1;
    size_t cap = table_size(total);
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
        GROW(w->low_used, w->low_used_cap, rn) < 0 || GROW(w->best, w->best_cap, rn) < 0 ||
        GROW(w->reached, w->reached_cap, rn) < 0)
        return -1;
    if (w->best_cap > best_was)  /* (what realloc kept is all 0 already) */
        memset(w->best + best_was, 0, w->best_cap - best_was);
    uint16_t *restrict low = w->direct;
    chrf_packed_slot *restrict tab = w->packed;
    uint32_t *restrict used = w->used, *restrict repeats = w->repeats;
    uint32_t *restrict low_used = w->low_used, *restrict reached = w->reached;
    unsigned char *restrict best = w->best;
    /* positions before `full` (rfull, hfull) hold both direct orders and the anchor:
     * their low orders are read without the general loop's tests */
    const size_t rfull = anchor == 2 && order > 2 && rn > 2 ? rn - 2 : 0;
    const size_t hfull = anchor == 2 && order > 2 && hn > 2 ? hn - 2 : 0;
    size_t nused = 0, mask = cap - 1;
    unsigned shift = 64;
    for (size_t c = cap; c > 1; c >>= 1)
        shift--;
    /* the reference, up to the anchor order; `repeats` collects the positions of the
     * anchors it holds more than once (their first position when the second comes) */
    size_t nlow = 0, nrepeats = 0, nreached = 0;
    for (size_t i = 0; i < rn; i++) {
        uint64_t key = 0;
        size_t k = 0;
        if (i < rfull) {
            key = r[i];
            low_add_unigram(low, key);
            key = (key << bits) | r[i + 1];
            low_add(low, low_used, &nlow, key);
            k = 2;
        } else {
            size_t len = rn - i < order ? rn - i : order;
            for (; k < anchor && k < len; k++) {
                key = (key << bits) | r[i + k];
                if (k == 0)
                    low_add_unigram(low, key);
                else
                    low_add(low, low_used, &nlow, key);
            }
            if (k == len)
                continue;
        }
        key = (key << bits) | r[i + k];
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
    for (size_t i = 0; i < hn; i++) {
        uint64_t key = 0;
        size_t k = 0;
        /* a low order the reference lacks: so does any longer n-gram from i */
        if (i < hfull) {
            key = h[i];
            if (!low_take(low, key, &out[2]))
                continue;
            key = (key << bits) | h[i + 1];
            if (!low_take(low, key, &out[5]))
                continue;
            k = 2;
        } else {
            size_t len = hn - i < order ? hn - i : order;
            for (; k < anchor && k < len; k++) {
                key = (key << bits) | h[i + k];
                if (!low_take(low, key, &out[3 * k + 2]))
                    break;
            }
            if (k == len || k < anchor)
                continue;  /* (the line ends before the anchor order) */
        }
        /* the anchor (k == anchor) */
        key = (key << bits) | h[i + anchor];
        size_t s = packed_slot(tab, key, shift, mask);
        if (tab[s].key == 0)
            continue;
        if (tab[s].left > 0) {
            tab[s].left--;
            out[3 * anchor + 2]++;
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
        for (k = anchor + 1; k < len; k++) {  /* after a repeated anchor: the higher orders */
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
    for (size_t u = 0; u < nused; u++)  /* (an entry's other fields are set as it is filled) */
        tab[used[u]].key = 0;
    for (size_t u = 0; u < nlow; u++)  /* the bigrams; then the unigrams, keys 1 .. 2^bits - 1 */
        low[low_used[u]] = 0;
    if (direct)
        memset(low, 0, ((size_t)1 << bits) * sizeof(uint16_t));
    for (size_t n = 1; n <= order && n <= rn; n++) {
        out[3 * (n - 1)] = hn >= n ? (int64_t)(hn - n + 1) : 0;
        out[3 * (n - 1) + 1] = (int64_t)(rn - n + 1);
    }
    return 0;
}

/* Start a segment's symbol ids (the map is cleared when its stamps run out). */
static int symbols_start(chrf_scratch *w)
{
    if (!w->cmap) {
        w->cmap = calloc(CMAP_SIZE, sizeof(uint32_t));
        if (!w->cmap)
            return -1;
    }
    if (++w->cmap_stamp > 0xFFFFu) {
        memset(w->cmap, 0, CMAP_SIZE * sizeof(uint32_t));
        w->cmap_stamp = 1;
    }
    w->nsyms = 0;
    return 0;
}

/* Read the line t: its characters as symbol ids (sym) and, for chrF++ without
 * whitespace, its words in the same pass; decoded (side) what has no ids: the characters
 * where a code point had none, the words where they were not read with the ids. */
static int read_line(chrf_scratch *w, const tb_chrf_job *j, const tb_text *t, chrf_side *side,
                     chrf_symbols *sym)
{
    sym->ok = sym->decoded = sym->words_decoded = sym->has_words = 0;
    sym->n = sym->nwords = 0;
    if (j->char_order > 0) {
        size_t room = t->length ? t->length : 1;
        if (GROW(sym->a, sym->cap, room) < 0)
            return -1;
        if (j->word_order > 0 && !j->whitespace) {
            if (GROW(sym->words, sym->words_cap, room) < 0 ||
                GROW(sym->hashes, sym->hashes_cap, room) < 0)
                return -1;
            sym->ok = sym->has_words = tb_chrf_symbols_words(
                t, w->cmap, w->cmap_stamp << 16, &w->nsyms, sym->a, &sym->n, sym->words,
                sym->hashes, &sym->nwords);
        } else {
            sym->ok = tb_chrf_symbols(t, j->whitespace, w->cmap, w->cmap_stamp << 16, &w->nsyms,
                                      sym->a, &sym->n);
        }
    }
    int chars = j->char_order > 0 && !sym->ok;  /* code points for count_chained */
    int words = j->word_order > 0 && !sym->has_words;
    if (words || chars) {
        if (tb_chrf_decode(side, t, j->whitespace, words, chars) < 0)
            return -1;
        sym->decoded = chars;
        sym->words_decoded = words;
    }
    return 0;
}

/* Whether the n symbols at a and b are the same (a word is a few symbols: a loop in
 * line, not a call to memcmp). */
static inline int same_symbols(const uint32_t *a, const uint32_t *b, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (a[k] != b[k])
            return 0;
    return 1;
}

/* Give the words of both sides ids in one vocabulary (equal words, equal ids). */
static int word_ids(chrf_scratch *w, const chrf_word_list *hyp, const chrf_word_list *ref)
{
    const chrf_word_list *sides[2] = {hyp, ref};
    size_t cap = table_size(hyp->n + ref->n);
    if (GROW(w->vocab, w->vocab_cap, cap) < 0)
        return -1;
    if (w->vocab_stamp == UINT32_MAX) {  /* the stamps ran out: clear what was used */
        memset(w->vocab, 0, w->vocab_zeroed * sizeof(chrf_word_slot));
        w->vocab_stamp = 0;
    }
    if (cap > w->vocab_zeroed) {
        memset(w->vocab + w->vocab_zeroed, 0, (cap - w->vocab_zeroed) * sizeof(chrf_word_slot));
        w->vocab_zeroed = cap;
    }
    const uint32_t stamp = ++w->vocab_stamp;
    size_t mask = cap - 1;
    uint32_t next_id = 0;
    for (int s = 0; s < 2; s++) {
        const chrf_word_list *list = sides[s];
        chrf_side *side = list->side;
        if (GROW(side->ids, side->ids_cap, list->n ? list->n : 1) < 0)
            return -1;
        for (size_t i = 0; i < list->n; i++) {
            const uint32_t *p = list->base + list->spans[i].start;
            uint32_t len = list->spans[i].len;
            uint32_t hv = list->hashes ? list->hashes[i] : tb_chrf_hash_run(p, len);
            size_t k = hv & mask;
            for (;;) {
                chrf_word_slot *e = &w->vocab[k];
                if (e->stamp != stamp) {
                    e->stamp = stamp;
                    e->p = p;
                    e->len = len;
                    e->hash = hv;
                    e->id1 = ++next_id;
                    side->ids[i] = e->id1;
                    break;
                }
                if (e->hash == hv && e->len == len && same_symbols(e->p, p, len)) {
                    side->ids[i] = e->id1;
                    break;
                }
                k = (k + 1) & mask;
            }
        }
    }
    w->nword_ids = next_id;
    return 0;
}

double tb_chrf_f_score(const int64_t *row, int order, double factor, double one_plus_factor,
                       int eps_smoothing)
{
    /* _reference_chrf.f_score, operation by operation (Python's int / int and
     * int * float are the double operations on the converted integers). */
    double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
    int effective_order = 0;
    for (int i = 0; i < order; i++) {
        int64_t n_hyp = row[3 * i], n_ref = row[3 * i + 1], n_match = row[3 * i + 2];
        double prec = n_hyp > 0 ? (double)n_match / (double)n_hyp : CHRF_EPS;
        double rec = n_ref > 0 ? (double)n_match / (double)n_ref : CHRF_EPS;
        double denom = factor * prec + rec;
        score += denom > 0 ? one_plus_factor * prec * rec / denom : CHRF_EPS;
        if (n_hyp > 0 && n_ref > 0) {
            avg_prec += prec;
            avg_rec += rec;
            effective_order++;
        }
    }
    if (eps_smoothing)
        return 100.0 * score / (double)order;
    if (effective_order == 0) {
        avg_prec = avg_rec = 0.0;
    } else {
        avg_prec /= (double)effective_order;
        avg_rec /= (double)effective_order;
    }
    if (avg_prec + avg_rec != 0.0) {
        score = one_plus_factor * avg_prec * avg_rec;
        score /= (factor * avg_prec) + avg_rec;
        return 100.0 * score;
    }
    return 0.0;
}

/* Work units of hypothesis i and its references (about one per code point), for the
 * poll (runtime/poll.h). */
static long segment_units(const tb_chrf_job *j, size_t i)
{
    size_t units = j->hyps[i].length + 1;
    for (size_t k = j->ref_start[i]; k < j->ref_start[i + 1]; k++)
        units += j->refs[k].length + 1;
    return units > (size_t)TB_POLL_UNITS ? TB_POLL_UNITS : (long)units;
}

/* The orders 1..max_order of symbols h against r (ids up to `largest`; packed: ids
 * exist for both sides) into out: packed keys where they fit. */
static int count_orders(chrf_scratch *w, const uint32_t *h, size_t hn, const uint32_t *r,
                        size_t rn, int max_order, uint32_t largest, int packed, int64_t *out)
{
    if (packed && packs(largest, max_order))
        return count_packed(w, h, hn, r, rn, max_order, id_bits(largest), out);
    return count_chained(w, h, hn, r, rn, max_order, out);
}

/* Line t's code points (and chrF++'s words) into side, if read_line did not read them. */
static int decoded(const tb_chrf_job *j, const tb_text *t, chrf_side *side, chrf_symbols *sym)
{
    if (sym->decoded)
        return 0;
    if (tb_chrf_decode(side, t, j->whitespace, j->word_order > 0, 1) < 0)
        return -1;
    sym->decoded = 1;
    sym->words_decoded |= j->word_order > 0;
    return 0;
}

/* The words of a line for word_ids: spans of its symbol ids where both lines of the pair
 * were read so (ids stand for the same code points in both), else (`symbols` 0) spans of
 * its code points. */
static chrf_word_list word_list(int symbols, chrf_side *side, const chrf_symbols *sym)
{
    chrf_word_list list;
    list.side = side;
    if (symbols) {
        list.base = sym->a;
        list.spans = sym->words;
        list.hashes = sym->hashes;
        list.n = sym->nwords;
    } else {
        list.base = side->all.a;
        list.spans = side->words;
        list.hashes = NULL;
        list.n = side->nwords;
    }
    return list;
}

static int pair_row(chrf_scratch *w, const tb_chrf_job *j, const tb_text *hyp, const tb_text *ref,
                    int64_t *row)
{
    if (j->char_order > 0) {
        int packed = w->hsym.ok && w->rsym.ok;
        if (!packed && (decoded(j, hyp, &w->hyp, &w->hsym) < 0 || decoded(j, ref, &w->ref, &w->rsym) < 0))
            return -1;  /* (one side had ids, the other not: count_chained reads both decoded) */
        int rc = packed ? count_orders(w, w->hsym.a, w->hsym.n, w->rsym.a, w->rsym.n,
                                       j->char_order, w->nsyms, 1, row)
                        : count_orders(w, w->hyp.chars.a, w->hyp.chars.n, w->ref.chars.a,
                                       w->ref.chars.n, j->char_order, 0, 0, row);
        if (rc < 0)
            return -1;
    }
    if (j->word_order > 0) {
        int symbols = w->hsym.has_words && w->rsym.has_words;
        if (!symbols && ((!w->hsym.words_decoded && decoded(j, hyp, &w->hyp, &w->hsym) < 0) ||
                         (!w->rsym.words_decoded && decoded(j, ref, &w->ref, &w->rsym) < 0)))
            return -1;  /* (one side's words read with ids, the other's not: both decoded) */
        chrf_word_list hw = word_list(symbols, &w->hyp, &w->hsym);
        chrf_word_list rw = word_list(symbols, &w->ref, &w->rsym);
        if (word_ids(w, &hw, &rw) < 0)
            return -1;
        if (count_orders(w, w->hyp.ids, hw.n, w->ref.ids, rw.n, j->word_order, w->nword_ids, 1,
                         row + 3 * j->char_order) < 0)
            return -1;
    }
    return 0;
}

static int segment(chrf_scratch *w, const tb_chrf_job *j, size_t i)
{
    int order = j->char_order + j->word_order;
    size_t width = 3 * (size_t)order;
    int64_t *out = j->out + i * width;
    if (GROW(w->row, w->row_cap, width) < 0)
        return -1;
    if ((j->char_order > 0 && symbols_start(w) < 0) ||
        read_line(w, j, &j->hyps[i], &w->hyp, &w->hsym) < 0)
        return -1;
    double best = -1.0;
    size_t first = j->ref_start[i], last = j->ref_start[i + 1];
    memset(out, 0, width * sizeof(int64_t));
    for (size_t k = first; k < last; k++) {
        if (read_line(w, j, &j->refs[k], &w->ref, &w->rsym) < 0 ||
            pair_row(w, j, &j->hyps[i], &j->refs[k], w->row) < 0)
            return -1;
        if (last - first == 1 && !j->scores) {
            memcpy(out, w->row, width * sizeof(int64_t));
            break;
        }
        double f = tb_chrf_f_score(w->row, order, j->factor, j->one_plus_factor, j->eps_smoothing);
        if (f > best) {
            best = f;
            memcpy(out, w->row, width * sizeof(int64_t));
        }
    }
    if (j->scores)
        j->scores[i] = best < 0 ? 0.0 : best;
    return 0;
}

static void scratch_free(chrf_scratch *w)
{
    tb_chrf_side_free(&w->hyp);
    tb_chrf_side_free(&w->ref);
    free(w->slots);
    free(w->hid);
    free(w->rid);
    free(w->common);
    free(w->vocab);
    free(w->row);
    free(w->hsym.a);
    free(w->rsym.a);
    free(w->hsym.words);
    free(w->rsym.words);
    free(w->hsym.hashes);
    free(w->rsym.hashes);
    free(w->cmap);
    free(w->packed);
    free(w->used);
    free(w->direct);
    free(w->repeats);
    free(w->low_used);
    free(w->best);
    free(w->reached);
}

static void chrf_worker(tb_job *base)
{
    tb_chrf_job *j = (tb_chrf_job *)base;
    chrf_scratch w;
    memset(&w, 0, sizeof(w));
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    size_t start, stop;
    while (tb_job_claim(base, &start, &stop)) {
        for (size_t i = start; i < stop; i++) {
            if (tb_poll_spend(&poll.base, segment_units(j, i)))
                break;
            if (segment(&w, j, i) < 0) {
                tb_job_fail(base, TB_NOMEM, i);
                break;
            }
        }
    }
    scratch_free(&w);
}

void tb_chrf_job_init(tb_chrf_job *job, size_t nitems)
{
    memset(job, 0, sizeof(*job));
    tb_job_init(&job->base, chrf_worker, nitems, TB_CHRF_CHUNK);
}
