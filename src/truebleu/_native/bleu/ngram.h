/* truebleu core: BLEU statistics of tokenized segments (plain C, no Python).
 *
 * A statistics row is [hyp_len, ref_len, matches_1..N, totals_1..N] (width
 * 2 + 2N, int64), additive over segments. ngram.c counts and clips the
 * n-grams of a hypothesis against a segment's references; the references'
 * n-gram ids are exact (no hash collision can change a count).
 */
#ifndef TB_BLEU_NGRAM_H
#define TB_BLEU_NGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "text/tokenize.h"

/* The width of a statistics row of order max_order. */
static inline size_t tb_row_width(int max_order)
{
    return 2 + 2 * (size_t)max_order;
}

/* The counts of one n-gram: its clip count, and its count in the sequence at
 * hand (a hypothesis's: above a base, see bleu/ngram.c). */
typedef struct {
    uint32_t clip, cur;
} tb_counts;

/* Scratch state of one thread for matching a hypothesis against references (see bleu/ngram.c). */
typedef struct {
    uint32_t *hmap; size_t hmap_cap;           /* hyp vocab id -> ref vocab id or NONE */
    uint32_t *hyp_ids; size_t hyp_ids_cap;     /* hypothesis as ref vocab ids */
    uint32_t *common; size_t common_cap;       /* ref vocab id -> common id or NONE */
    uint32_t *hyp_common; size_t hyp_common_cap;  /* hypothesis as common ids */
    uint32_t *cells; size_t cells_cap;         /* direct pair table: era << 18 | n-gram id */
    uint32_t cells_era;                        /* the era of the segment at hand (1, 2, ...) */
    uint32_t *ng_slots; size_t ng_slots_cap;   /* hashed pair table: id + 1, 0 = empty */
    uint64_t *ng_keys; size_t ng_keys_cap;     /* pair of each n-gram id */
    tb_counts *counts; size_t counts_cap;      /* per n-gram id */
    uint32_t *touched; size_t touched_cap;
    /* what tb_matcher_learn left in the tables above (learned_order 0: nothing) */
    uint32_t learned_C, learned_next, learned_era_tag;
    uint32_t learned_base;                     /* the cur counts' base for the next row (ngram.c) */
    size_t learned_mask;
    int learned_direct, learned_order;
} tb_matcher;

void tb_matcher_init(tb_matcher *m);
void tb_matcher_free(tb_matcher *m);
/* The heap memory a matcher holds (its tables), in bytes. */
size_t tb_matcher_footprint(const tb_matcher *m);
/* One statistics row [hyp_len, ref_len, matches_1..N, totals_1..N] of the
 * first sequence of hyp against every sequence of ref. 0 ok, -1 out of memory. */
int tb_segment_row(tb_matcher *m, const tb_seg *hyp, const tb_seg *ref,
                   int max_order, int64_t *row);
/* The same for a hypothesis already written as ref's ids (TB_ABSENT: not in ref). */
int tb_segment_row_ids(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                       int max_order, int64_t *row);

/* tb_segment_row_ids's row, every reference n-gram counted (not only those of
 * tokens the hypothesis has, which tb_segment_row_ids finds first): cheaper
 * when nearly every reference token is in the hypothesis, as with
 * tokenize='char''s one-character tokens (bleu/jobs.c chooses). Of order 4
 * (sacreBLEU's) only: any other order takes tb_segment_row_ids's way. */
int tb_segment_row_all(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                       int max_order, int64_t *row);

/* Several hypotheses against the same references: tb_matcher_learn counts the
 * references' n-grams (of every token, not only the ones a hypothesis shares)
 * once, and each tb_matcher_row then only walks its hypothesis's n-grams; the
 * rows are tb_segment_row_ids's. Any other use of m forgets what it learned.
 * 0 ok, -1 out of memory (then nothing is learned). */
int tb_matcher_learn(tb_matcher *m, const tb_seg *ref, int max_order);
/* tb_segment_row_ids's row, ref and max_order those of the last tb_matcher_learn. */
int tb_matcher_row(tb_matcher *m, const uint32_t *hyp_ids, uint32_t hlen, const tb_seg *ref,
                   int max_order, int64_t *row);


#endif
