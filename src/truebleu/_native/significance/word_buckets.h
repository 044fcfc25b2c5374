/* truebleu core: the report's word-frequency buckets (plain C, no Python; see
 * significance/word_buckets.c; the entry point is significance/bindings_buckets.c). */
#ifndef TB_SIGNIFICANCE_WORD_BUCKETS_H
#define TB_SIGNIFICANCE_WORD_BUCKETS_H

#include <stddef.h>
#include <stdint.h>

/* What tb_word_bucket_counts found wrong in its inputs (TB_WB_OK: nothing). */
typedef enum {
    TB_WB_OK = 0,
    TB_WB_REF_LENGTHS,  /* a length negative, or the lengths not adding up to the ids */
    TB_WB_HYP_LENGTHS,
    TB_WB_REF_IDS,      /* an id not below n_words */
    TB_WB_HYP_IDS,
    TB_WB_BUCKET        /* a hypothesis word's bucket not below n_buckets */
} tb_word_bucket_error;

/* Per segment and bucket, a hypothesis's clipped word matches and its words: for segment s,
 * out[s * 2 * n_buckets + b] is the sum over words w of bucket b of min(hyp count of w,
 * ref count of w), out[s * 2 * n_buckets + n_buckets + b] the hypothesis's words of bucket b
 * (out: n x 2 * n_buckets, zeroed by the caller). The segments' words are ids below
 * n_words (n_ref_ids and n_hyp_ids of them), one segment after the other (ref_lengths/
 * hyp_lengths: each segment's number); bucket: n_words entries. Scratch: counts (n_words
 * int32, zero; left zero on success).
 *
 * Every value is checked where it is read, and read once for each use: the inputs are
 * the caller's buffers, read without the GIL, and a value checked beforehand could
 * change before its use. The first fault found is returned (out is then undefined). */
tb_word_bucket_error tb_word_bucket_counts(const int64_t *ref_lengths, const int64_t *ref_ids,
                                           ptrdiff_t n_ref_ids, const int64_t *hyp_lengths,
                                           const int64_t *hyp_ids, ptrdiff_t n_hyp_ids, ptrdiff_t n,
                                           const int64_t *bucket, ptrdiff_t n_words,
                                           ptrdiff_t n_buckets, int32_t *counts, int64_t *out);

#endif
