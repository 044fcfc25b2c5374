/* truebleu core: the report's word-frequency buckets (see significance/word_buckets.h).
 *
 * The specification is truebleu/viewer/buckets.py's NumPy path (one sort of every
 * (segment, word) key per stream); here one pass over the tokens does it: a segment's
 * reference words are counted in a table indexed by word id, each hypothesis word takes
 * one of its word's remaining counts (a match) if there is one, and the reference words'
 * counts are set back to zero for the next segment. */
#include "significance/word_buckets.h"

void tb_word_bucket_counts(const int64_t *ref_lengths, const int64_t *ref_ids,
                           const int64_t *hyp_lengths, const int64_t *hyp_ids, ptrdiff_t n,
                           const int64_t *bucket, ptrdiff_t n_buckets, int32_t *counts,
                           int64_t *out)
{
    for (ptrdiff_t s = 0; s < n; s++) {
        int64_t *matched = out + s * 2 * n_buckets, *words = matched + n_buckets;
        for (int64_t i = 0; i < ref_lengths[s]; i++)
            counts[ref_ids[i]]++;
        for (int64_t i = 0; i < hyp_lengths[s]; i++) {
            const int64_t id = hyp_ids[i], b = bucket[id];
            words[b]++;
            if (counts[id] > 0) {
                counts[id]--;
                matched[b]++;
            }
        }
        for (int64_t i = 0; i < ref_lengths[s]; i++)
            counts[ref_ids[i]] = 0;
        ref_ids += ref_lengths[s];
        hyp_ids += hyp_lengths[s];
    }
}
