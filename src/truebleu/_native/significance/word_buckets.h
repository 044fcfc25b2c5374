/* truebleu core: the report's word-frequency buckets (plain C, no Python; see
 * significance/word_buckets.c; the entry point is significance/bindings_buckets.c). */
#ifndef TB_SIGNIFICANCE_WORD_BUCKETS_H
#define TB_SIGNIFICANCE_WORD_BUCKETS_H

#include <stddef.h>
#include <stdint.h>

/* Per segment and bucket, a hypothesis's clipped word matches and its words: for segment s,
 * out[s * 2 * n_buckets + b] is the sum over words w of bucket b of min(hyp count of w,
 * ref count of w), out[s * 2 * n_buckets + n_buckets + b] the hypothesis's words of bucket b
 * (out: n x 2 * n_buckets, zeroed by the caller). The segments' words are ids below
 * n_words, one segment after the other (ref_lengths/hyp_lengths: each segment's number);
 * bucket[id] < n_buckets. Scratch: counts (n_words int32, zero; left zero). */
void tb_word_bucket_counts(const int64_t *ref_lengths, const int64_t *ref_ids,
                           const int64_t *hyp_lengths, const int64_t *hyp_ids, ptrdiff_t n,
                           const int64_t *bucket, ptrdiff_t n_buckets, int32_t *counts,
                           int64_t *out);

#endif
