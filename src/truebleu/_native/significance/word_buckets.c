/* truebleu core: the report's word-frequency buckets (see significance/word_buckets.h).
 *
 * The specification is truebleu/viewer/buckets.py's NumPy path (one sort of every
 * (segment, word) key per stream); here one pass over the tokens does it: a segment's
 * reference words are counted in a table indexed by word id, each hypothesis word takes
 * one of its word's remaining counts (a match) if there is one, and the reference words'
 * counts are set back to zero for the next segment. */
#include "significance/word_buckets.h"

tb_word_bucket_error tb_word_bucket_counts(const int64_t *ref_lengths, const int64_t *ref_ids,
                                           ptrdiff_t n_ref_ids, const int64_t *hyp_lengths,
                                           const int64_t *hyp_ids, ptrdiff_t n_hyp_ids, ptrdiff_t n,
                                           const int64_t *bucket, ptrdiff_t n_words,
                                           ptrdiff_t n_buckets, int32_t *counts, int64_t *out)
{
    const uint64_t words = (uint64_t)n_words, buckets = (uint64_t)n_buckets;
    ptrdiff_t ref_at = 0, hyp_at = 0;
    tb_word_bucket_error error = TB_WB_OK;
    for (ptrdiff_t s = 0; s < n && error == TB_WB_OK; s++) {
        int64_t *matched = out + s * 2 * n_buckets, *hyp_words = matched + n_buckets;
        const int64_t rn = ref_lengths[s], hn = hyp_lengths[s];
        if (rn < 0 || rn > n_ref_ids - ref_at)
            return TB_WB_REF_LENGTHS;
        if (hn < 0 || hn > n_hyp_ids - hyp_at)
            return TB_WB_HYP_LENGTHS;
        const int64_t *refs = ref_ids + ref_at, *hyps = hyp_ids + hyp_at;
        int64_t counted = 0;  /* the reference words counted: the ones to set back to zero */
        for (; counted < rn; counted++) {
            const int64_t id = refs[counted];
            if ((uint64_t)id >= words) {
                error = TB_WB_REF_IDS;
                break;
            }
            counts[id]++;
        }
        for (int64_t i = 0; i < hn && error == TB_WB_OK; i++) {
            const int64_t id = hyps[i];
            if ((uint64_t)id >= words) {
                error = TB_WB_HYP_IDS;
                break;
            }
            const int64_t b = bucket[id];
            if ((uint64_t)b >= buckets) {
                error = TB_WB_BUCKET;
                break;
            }
            hyp_words[b]++;
            if (counts[id] > 0) {
                counts[id]--;
                matched[b]++;
            }
        }
        /* set back what was counted (each id read again is checked again: a caller's
         * thread may have changed it since, which may spoil the counts but never makes
         * a write outside `counts`) */
        for (int64_t i = 0; i < counted; i++) {
            const int64_t id = refs[i];
            if ((uint64_t)id < words)
                counts[id] = 0;
            else
                error = TB_WB_REF_IDS;
        }
        ref_at += rn;
        hyp_at += hn;
    }
    if (error == TB_WB_OK && ref_at != n_ref_ids)
        return TB_WB_REF_LENGTHS;
    if (error == TB_WB_OK && hyp_at != n_hyp_ids)
        return TB_WB_HYP_LENGTHS;
    return error;
}
