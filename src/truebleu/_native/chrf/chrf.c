/* chrF and chrF++ statistics: the compiled twin of truebleu/_reference_chrf.py.
 *
 * Per hypothesis and reference, for each character order n = 1..C and then
 * each word order n = 1..W, three counts: [hyp n-grams (0 when the reference
 * has none), ref n-grams, clipped matches]. With several references the row
 * of the reference with the highest f-score is kept (the first on a tie).
 *
 * Counting is exact: an n-gram of order n is the pair (id of its first n - 1
 * symbols, its last symbol), one 64-bit key, and ids are handed out per pair
 * of lines, order by order, so equal keys mean equal n-grams (a hash collision
 * only costs a probe). Symbols are code points, or word ids for chrF++'s
 * words (words are compared by content). Matches are counted by inserting the
 * reference n-grams with their counts and letting each hypothesis n-gram take
 * one from its entry while any is left, which sums min(hyp count, ref count)
 * over the distinct n-grams.
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

typedef struct {
    chrf_side hyp, ref;
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
static int count_orders(chrf_scratch *w, const uint32_t *h, size_t hn, const uint32_t *r,
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

/* Give the words of both sides ids in one vocabulary (equal words, equal ids). */
static int word_ids(chrf_scratch *w)
{
    chrf_side *sides[2] = {&w->hyp, &w->ref};
    size_t cap = table_size(w->hyp.nwords + w->ref.nwords);
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
        chrf_side *side = sides[s];
        if (GROW(side->ids, side->ids_cap, side->nwords ? side->nwords : 1) < 0)
            return -1;
        for (size_t i = 0; i < side->nwords; i++) {
            const uint32_t *p = side->all.a + side->words[i].start;
            uint32_t len = side->words[i].len;
            uint32_t hv = tb_chrf_hash_run(p, len);
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
                if (e->hash == hv && e->len == len && !memcmp(e->p, p, len * sizeof(uint32_t))) {
                    side->ids[i] = e->id1;
                    break;
                }
                k = (k + 1) & mask;
            }
        }
    }
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

static int pair_row(chrf_scratch *w, const tb_chrf_job *j, int64_t *row)
{
    if (j->char_order > 0 &&
        count_orders(w, w->hyp.chars.a, w->hyp.chars.n, w->ref.chars.a, w->ref.chars.n,
                     j->char_order, row) < 0)
        return -1;
    if (j->word_order > 0) {
        if (word_ids(w) < 0)
            return -1;
        if (count_orders(w, w->hyp.ids, w->hyp.nwords, w->ref.ids, w->ref.nwords, j->word_order,
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
    int words = j->word_order > 0;
    if (GROW(w->row, w->row_cap, width) < 0)
        return -1;
    if (tb_chrf_decode(&w->hyp, &j->hyps[i], j->whitespace, words) < 0)
        return -1;
    double best = -1.0;
    size_t first = j->ref_start[i], last = j->ref_start[i + 1];
    memset(out, 0, width * sizeof(int64_t));
    for (size_t k = first; k < last; k++) {
        if (tb_chrf_decode(&w->ref, &j->refs[k], j->whitespace, words) < 0)
            return -1;
        if (pair_row(w, j, w->row) < 0)
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
