/* N-gram counting and clipping with exact ids (the numbers of _reference.py).
 *
 * Only a token that occurs both in the hypothesis and in a reference can be part
 * of a match. Such "common" tokens get dense ids 0 .. C-1 per segment; any other
 * token ends every n-gram that reaches it, in the references as in the hypothesis.
 *
 * N-gram ids: a unigram's id is its common id; a longer n-gram gets the next free
 * id (C, C+1, ...) the first time the pair (id of its (n-1)-gram prefix, common id
 * of its last token) is seen in a reference. Only reference n-grams get ids, and
 * the ids are closed under prefixes, so a hypothesis n-gram without an id ends the
 * scan of longer n-grams at that position.
 *
 * The pair -> id table of a segment is bleu/pairs.h.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/memory.h"
#include "runtime/portable.h"
#include "bleu/ngram.h"
#include "bleu/pairs.h"

#define NONE TB_ABSENT

void tb_matcher_init(tb_matcher *m) { memset(m, 0, sizeof(*m)); }

void tb_matcher_free(tb_matcher *m)
{
    free(m->hmap);
    free(m->hyp_ids);
    free(m->common);
    free(m->hyp_common);
    free(m->cells);
    free(m->ng_slots);
    free(m->ng_keys);
    free(m->counts);
    free(m->touched);
    memset(m, 0, sizeof(*m));
}

size_t tb_matcher_footprint(const tb_matcher *m)
{
    return (m->hmap_cap + m->hyp_ids_cap + m->common_cap + m->hyp_common_cap + m->cells_cap +
            m->ng_slots_cap + m->touched_cap) * sizeof(uint32_t) +
           m->ng_keys_cap * sizeof(uint64_t) + m->counts_cap * sizeof(tb_counts);
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

/* Counts the n-grams at one position of a reference: those of at[0 .. top), the
 * longest first ... (see count_reference). Returns the new number of touched ids. */
static TB_ALWAYS_INLINE size_t
count_at(pair_table *t, const uint32_t *common, const uint32_t *at, const size_t top,
         uint32_t *touched, size_t ntouched, const int first, const int direct)
{
    tb_counts *counts = t->counts;
#define count(id) (*(first ? &counts[id].clip : &counts[id].cur))
    /* common NULL: every token is common, its common id its vocabulary id (a
     * reference's own ids, never NONE: no test) */
    uint32_t prev = common ? common[at[0]] : at[0];
    if (common && prev == NONE)
        return ntouched;
    if (count(prev)++ == 0 && !first)
        touched[ntouched++] = prev;
    for (size_t n = 2; n <= top; n++) {
        const uint32_t last = common ? common[at[n - 1]] : at[n - 1];
        if (common && last == NONE)
            break;
        uint32_t id;
        if (pair_add(t, prev, last, &id, direct)) {
            /* a new n-gram: its counts start at this occurrence (one store, no
             * zeroing first; most of a reference's longer n-grams are new) */
            counts[id] = first ? (tb_counts){1, 0} : (tb_counts){0, 1};
            if (!first)
                touched[ntouched++] = id;
        } else if (count(id)++ == 0 && !first) {
            touched[ntouched++] = id;
        }
        prev = id;
    }
#undef count
    return ntouched;
}

/* Counts the n-grams of one reference (its tokens: ids[0 .. len)): the first
 * reference straight into the clip counts (first = 1); any other into the cur
 * counts, noting in touched[] the ids it counted (returns how many). */
static TB_ALWAYS_INLINE size_t
count_reference(pair_table *t, const uint32_t *common, const uint32_t *ids, uint32_t len,
                uint32_t *touched, const int first, const size_t N, const int direct)
{
    size_t ntouched = 0, i = 0;
    for (; i + N <= len; i++)  /* every order fits: no bound to check (N is a constant) */
        ntouched = count_at(t, common, ids + i, N, touched, ntouched, first, direct);
    for (; i < len; i++)
        ntouched = count_at(t, common, ids + i, len - i, touched, ntouched, first, direct);
    return ntouched;
}

/* Counts every reference's n-grams into the clip counts (the maximum over the
 * references); `common` maps a reference vocabulary id to its common id or
 * NONE (NULL: every token is common). The cur counts are zero afterwards.
 * N and direct are constants where this is inlined, so the loops over orders
 * unroll and the table's branch disappears. */
static TB_ALWAYS_INLINE void
count_references_of(pair_table *t, const uint32_t *common, const tb_seg *ref, uint32_t *touched, const size_t N,
                    const int direct)
{
    /* clip: the clip counts; cur: the counts in the reference at hand (from the
     * second on), zero between references */
    tb_counts *counts = t->counts;
    const uint32_t *ids = ref->ids;
    count_reference(t, common, ids, ref->seq_len[0], NULL, 1, N, direct);
    ids += ref->seq_len[0];
    for (uint32_t r = 1; r < ref->nseq; r++) {
        const uint32_t len = ref->seq_len[r];
        const size_t ntouched = count_reference(t, common, ids, len, touched, 0, N, direct);
        for (size_t k = 0; k < ntouched; k++) {
            tb_counts *c = &counts[touched[k]];
            if (c->cur > c->clip)
                c->clip = c->cur;
            c->cur = 0;
        }
        ids += len;
    }
}

/* count_references_of, with a copy for common NULL and one for the others (the
 * test of common leaves the loops). */
static TB_ALWAYS_INLINE void
count_references(pair_table *t, const uint32_t *common, const tb_seg *ref, uint32_t *touched, const size_t N,
                 const int direct)
{
    if (common)
        count_references_of(t, common, ref, touched, N, direct);
    else
        count_references_of(t, NULL, ref, touched, N, direct);
}

/*
 * A hypothesis's count of an n-gram sits in its cur count as base + count,
 * where base is at least every cur value an earlier hypothesis left: a cur
 * below base reads as zero. So a hypothesis after another against the same
 * learned references (tb_matcher_row) starts from the cur counts as they
 * are, instead of noting the ids it counted and zeroing them afterwards (a
 * store per n-gram, and a second loop). Values only grow: each hypothesis
 * raises base by its length (no count in it exceeds that) until base would
 * pass UINT32_MAX, when matcher_row zeroes them and starts again at 0.
 */

/* The most a base may grow to (a build may set it small, to reach the restart). */
#ifndef TB_MATCHER_BASE_MAX
#define TB_MATCHER_BASE_MAX UINT32_MAX
#endif
#define MATCHER_BASE_MAX ((uint64_t)TB_MATCHER_BASE_MAX)

/* Orders whose match sums count_hypothesis keeps in local variables. */
#define LOCAL_ORDERS 4

/* Counts one hypothesis n-gram, its counts c (its cur count read as base + count):
 * whether it matched, i.e. its count so far is still within its clip count. */
static TB_ALWAYS_INLINE int count_match(tb_counts *c, uint32_t base)
{
    const uint32_t cur = (c->cur > base ? c->cur : base) + 1;
    c->cur = cur;
    return cur - base <= c->clip;
}

/* The hypothesis's n-grams at one position, those of at[0 .. top) (ids in
 * common ids), into matches[0 .. top); the longest prefix that has an id
 * first: an n-gram without one is in no reference, nor is any longer n-gram
 * that starts with it. */
static TB_ALWAYS_INLINE void
count_hypothesis_at(const pair_table *t, const uint32_t *at, const size_t top, uint32_t base, const int direct,
                    int64_t *matches)
{
    uint32_t prev = at[0];
    if (prev == NONE)
        return;
    matches[0] += count_match(&t->counts[prev], base);
    for (size_t n = 2; n <= top; n++) {
        uint32_t id;
        if (!pair_find(t, prev, at[n - 1], &id, direct))  /* (a NONE token has no pair: pairs.h) */
            break;
        matches[n - 1] += count_match(&t->counts[id], base);
        prev = id;
    }
}

/* One order of count_local_at: the n-gram (prefix *prev, then last), if it
 * has an id, counted into *sum; whether it had one (*prev its id then). */
static TB_ALWAYS_INLINE int
count_next_order(const pair_table *t, uint32_t *prev, uint32_t last, uint32_t base, const int direct,
                 int64_t *sum)
{
    uint32_t id;
    if (!pair_find(t, *prev, last, &id, direct))
        return 0;
    *sum += count_match(&t->counts[id], base);
    *prev = id;
    return 1;
}

/* count_hypothesis_at for top <= LOCAL_ORDERS (a constant), each order's sum a
 * variable of its own: the caller's locals stay in registers (through the
 * array, GCC kept a flag per order of whether its sum had changed). */
static TB_ALWAYS_INLINE void
count_local_at(const pair_table *t, const uint32_t *at, const size_t top, uint32_t base, const int direct,
               int64_t *m1, int64_t *m2, int64_t *m3, int64_t *m4)
{
    uint32_t prev = at[0];
    if (prev == NONE)
        return;
    *m1 += count_match(&t->counts[prev], base);
    (void)(top >= 2 && count_next_order(t, &prev, at[1], base, direct, m2) &&
           top >= 3 && count_next_order(t, &prev, at[2], base, direct, m3) &&
           top >= 4 && count_next_order(t, &prev, at[3], base, direct, m4));
}

/* Counts the hypothesis's matches (hyp: its tokens in common ids) with the
 * clip counts in place, every cur count at most `base` (see above), written
 * to row_matches[0 .. N) (not added: the row's matches need no zeroing first). Counting up to the clip count gives min(count, clip).
 * Leaves cur counts of at most base + hlen. */
static TB_ALWAYS_INLINE void
count_hypothesis(const pair_table *t, const uint32_t *hyp, uint32_t hlen, uint32_t base, const size_t N,
                 const int direct, int64_t *row_matches)
{
    size_t i = 0;
    if (N <= LOCAL_ORDERS) {  /* (N is a constant then) the sums in locals: registers */
        int64_t m1 = 0, m2 = 0, m3 = 0, m4 = 0;
        for (; i + N + 1 <= hlen; i += 2) {  /* every order fits: no bound to check; two a turn */
            count_local_at(t, hyp + i, N, base, direct, &m1, &m2, &m3, &m4);
            count_local_at(t, hyp + i + 1, N, base, direct, &m1, &m2, &m3, &m4);
        }
        if (i + N <= hlen)
            count_local_at(t, hyp + i++, N, base, direct, &m1, &m2, &m3, &m4);
        /* the last hlen - i < N <= 4 positions, each with its top a constant */
        const size_t left = hlen - i;
        if (left >= 3)
            count_local_at(t, hyp + hlen - 3, 3, base, direct, &m1, &m2, &m3, &m4);
        if (left >= 2)
            count_local_at(t, hyp + hlen - 2, 2, base, direct, &m1, &m2, &m3, &m4);
        if (left >= 1)
            count_local_at(t, hyp + hlen - 1, 1, base, direct, &m1, &m2, &m3, &m4);
        const int64_t sums[LOCAL_ORDERS] = {m1, m2, m3, m4};
        for (size_t n = 0; n < N; n++)
            row_matches[n] = sums[n];
        return;
    }
    memset(row_matches, 0, N * sizeof(int64_t));
    for (; i + N <= hlen; i++)
        count_hypothesis_at(t, hyp + i, N, base, direct, row_matches);
    for (; i < hlen; i++)
        count_hypothesis_at(t, hyp + i, hlen - i, base, direct, row_matches);
}

/* The reference length closest to hlen, ties to the shorter (-1: no reference). */
static int64_t closest_length(uint32_t hlen, const tb_seg *ref)
{
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
    return best;
}

/* row[0], row[1] and the totals (row[2 + N ...]) of a hypothesis of hlen tokens
 * against ref; not the matches (row[2 .. 2 + N)): hypothesis_matches writes
 * them, or no_matches where there is none (every item of a job pays a
 * store per cell, not two). */
static TB_ALWAYS_INLINE void lengths_row(int64_t *row, uint32_t hlen, const tb_seg *ref, const size_t N)
{
    int64_t *totals = row + 2 + N;
    /* lengths: c, and the closest reference length (one reference, the
     * usual case: its own, no search) */
    row[0] = hlen;
    row[1] = ref->nseq == 1 ? (int64_t)ref->seq_len[0] : closest_length(hlen, ref);
    for (size_t n = 1; n <= N; n++)
        totals[n - 1] = hlen >= n ? (int64_t)(hlen - n + 1) : 0;
}

/* A row's matches (row[2 .. 2 + N)) zero, for a hypothesis without a token in
 * common or a row given up (out of memory: the row is still whole); returns
 * `status`, the caller's return value (0, or -1). */
static TB_ALWAYS_INLINE int no_matches(int64_t *row, const size_t N, int status)
{
    memset(row + 2, 0, N * sizeof(int64_t));
    return status;
}

/* The number of n-grams of orders 2 .. N in ref's sequences (the most ids they can take). */
static size_t reference_ngrams(const tb_seg *ref, const size_t N)
{
    size_t bound = 0;
    for (uint32_t r = 0; r < ref->nseq; r++)
        for (size_t n = 2; n <= N && ref->seq_len[r] >= n; n++)
            bound += ref->seq_len[r] - n + 1;
    return bound;
}

/* The one place a segment's references are counted (tb_segment_row_ids,
 * tb_segment_row_all, tb_matcher_learn): the pair table t of C common ids
 * (common: a reference vocabulary id's common id or NONE; NULL: every token is
 * common, its common id its vocabulary id), every reference n-gram of common
 * tokens given an id and its clip count, every cur count zero; *direct: the
 * kind of table. 0, or -1: out of memory. */
static TB_ALWAYS_INLINE int
reference_table(tb_matcher *m, const uint32_t *common, uint32_t C, const tb_seg *ref, const size_t N,
                pair_table *t, int *direct)
{
    /* ids for every reference n-gram at most (fewer are given where only the
     * common tokens count) */
    if (table_start(m, t, C, reference_ngrams(ref, N), direct) < 0)
        return -1;
    if (*direct)
        count_references(t, common, ref, m->touched, N, 1);
    else
        count_references(t, common, ref, m->touched, N, 0);
    return 0;
}

/* The one place a hypothesis is counted on a reference table (hyp: its tokens in
 * t's common ids; base: see count_hypothesis), written to matches[0 .. N). */
static TB_ALWAYS_INLINE void
hypothesis_matches(const pair_table *t, const int direct, const uint32_t *hyp, uint32_t hlen, uint32_t base,
                   const size_t N, int64_t *matches)
{
    if (direct)
        count_hypothesis(t, hyp, hlen, base, N, 1, matches);
    else
        count_hypothesis(t, hyp, hlen, base, N, 0, matches);
}

/* The body of tb_segment_row_ids; N is a constant where it is inlined for the
 * common order 4. */
static TB_ALWAYS_INLINE int
segment_row_ids(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                const size_t N, int64_t *row)
{
    lengths_row(row, hlen, ref, N);
    if (hlen == 0 || ref->nvocab == 0)
        return no_matches(row, N, 0);

    /* the common tokens, numbered in their order of appearance in the hypothesis */
    const uint32_t V = ref->nvocab;
    if (GROW(m->common, m->common_cap, V) < 0 || GROW(m->hyp_common, m->hyp_common_cap, hlen) < 0)
        return no_matches(row, N, -1);
    uint32_t *common = m->common, *hyp = m->hyp_common;
    memset(common, 0xFF, V * sizeof(uint32_t));  /* NONE */
    uint32_t C = 0;
    for (uint32_t i = 0; i < hlen; i++) {
        const uint32_t v = hyp_ids[i];
        uint32_t c = NONE;
        if (v != NONE && (c = common[v]) == NONE)
            c = common[v] = C++;
        hyp[i] = c;
    }
    if (C == 0)
        return no_matches(row, N, 0);

    pair_table t;
    int direct;
    if (reference_table(m, common, C, ref, N, &t, &direct) < 0)
        return no_matches(row, N, -1);
    hypothesis_matches(&t, direct, hyp, hlen, 0, N, row + 2);  /* (every cur count is zero) */
    return 0;
}

int tb_segment_row_ids(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                       int max_order, int64_t *row)
{
    m->learned_order = 0;  /* (its tables are this segment's now) */
    if (max_order == 4)  /* sacreBLEU's default: a copy with the order known */
        return segment_row_ids(m, hyp_ids, hlen, ref, 4, row);
    return segment_row_ids(m, hyp_ids, hlen, ref, (size_t)max_order, row);
}

/* The body of tb_segment_row_all: the references' table as tb_matcher_learn
 * makes it (every reference token common), then the hypothesis (in reference
 * ids: the common ids here) on cur counts all zero (base 0). */
static TB_ALWAYS_INLINE int
segment_row_all(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref, const size_t N,
                int64_t *row)
{
    lengths_row(row, hlen, ref, N);
    if (hlen == 0 || ref->nvocab == 0)
        return no_matches(row, N, 0);
    pair_table t;
    int direct;
    if (reference_table(m, NULL, ref->nvocab, ref, N, &t, &direct) < 0)
        return no_matches(row, N, -1);
    hypothesis_matches(&t, direct, hyp_ids, hlen, 0, N, row + 2);
    return 0;
}

int tb_segment_row_all(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                       int max_order, int64_t *row)
{
    m->learned_order = 0;  /* (its tables are this segment's now) */
    if (max_order == 4)  /* (a copy for any order would loosen the compiler's loops in this one: 3% more) */
        return segment_row_all(m, hyp_ids, hlen, ref, 4, row);
    return tb_segment_row_ids(m, hyp_ids, hlen, ref, max_order, row);
}

/* ------------------------------------------------------------------ */
/* one set of references, several hypotheses                           */

/* The body of tb_matcher_learn: every reference token is common (its common id
 * its vocabulary id), every reference n-gram gets an id and its clip count. */
static TB_ALWAYS_INLINE int learn(tb_matcher *m, const tb_seg *ref, const size_t N)
{
    pair_table t;
    int direct;
    if (reference_table(m, NULL, ref->nvocab, ref, N, &t, &direct) < 0)
        return -1;
    m->learned_C = t.C;
    m->learned_next = t.next_id;
    m->learned_era_tag = t.era_tag;
    m->learned_mask = t.mask;
    m->learned_direct = direct;
    m->learned_base = 0;  /* (every cur count is zero) */
    return 0;
}

int tb_matcher_learn(tb_matcher *m, const tb_seg *ref, int max_order)
{
    m->learned_order = 0;
    if (ref->nvocab > 0 && (max_order == 4 ? learn(m, ref, 4) : learn(m, ref, (size_t)max_order)) < 0)
        return -1;
    m->learned_order = max_order;
    return 0;
}

/* The body of tb_matcher_row: the hypothesis (in reference ids, the common
 * ids here) counted on the cur counts as the hypotheses before left them, its
 * counts above their values (count_hypothesis). */
static TB_ALWAYS_INLINE int matcher_row(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                                        const size_t N, int64_t *row)
{
    lengths_row(row, hlen, ref, N);
    if (hlen == 0 || ref->nvocab == 0)
        return no_matches(row, N, 0);
    pair_table t = {.C = m->learned_C, .next_id = m->learned_next, .counts = m->counts, .cells = m->cells,
                    .era_tag = m->learned_era_tag, .slots = m->ng_slots, .keys = m->ng_keys,
                    .mask = m->learned_mask, .stride = m->learned_C + 1};
    if ((uint64_t)m->learned_base + hlen > MATCHER_BASE_MAX) {  /* (rare) the values start again at 0 */
        for (uint32_t id = 0; id < t.next_id; id++)
            t.counts[id].cur = 0;
        m->learned_base = 0;
    }
    const uint32_t base = m->learned_base;
    hypothesis_matches(&t, m->learned_direct, hyp_ids, hlen, base, N, row + 2);
    m->learned_base = base + hlen;  /* at least every cur count now */
    return 0;
}

int tb_matcher_row(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                   int max_order, int64_t *row)
{
    if (max_order == 4)
        return matcher_row(m, hyp_ids, hlen, ref, 4, row);
    return matcher_row(m, hyp_ids, hlen, ref, (size_t)max_order, row);
}
