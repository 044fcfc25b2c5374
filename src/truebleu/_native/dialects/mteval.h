/* truebleu core, dialects: mteval's corpus sums on token ids (plain C, no Python).
 *
 * The sums of dialects/mteval.py's python_counts (its specification), for lines
 * already tokenized and numbered: per order n = 1..max_order, the hypothesis
 * n-grams clipped by their largest count in any reference of the segment
 * (matches), the hypothesis n-grams (totals), and NIST's information: each
 * segment's matched n-grams' info[g] * matched summed exactly and rounded once
 * (exact_sum.h), the segments' sums added in segment order. info[] is indexed by
 * the reference table's n-gram numbers (ngram_table.h); Python computes it, with
 * math.log. The references' clip counts are gathered once (tb_mteval_clips).
 *
 * A hypothesis n-gram counts only if its segment's references hold it, and then so
 * do its prefixes: each segment's n-grams get a small hash table of their own
 * (keyed as the reference table is), in which a hypothesis is counted without
 * touching the corpus-wide table (a cache miss per lookup on a large corpus).
 */
#ifndef TB_DIALECTS_MTEVAL_H
#define TB_DIALECTS_MTEVAL_H

#include <stddef.h>
#include <stdint.h>

#include "dialects/ngram_table.h"
#include "runtime/status.h"

#define TB_MTEVAL_MAX_ORDER 9

/* Per segment, the references' n-grams with their largest count in any one reference. */
typedef struct {
    int32_t *ids;      /* n-gram numbers, segment after segment */
    int64_t *counts;   /* their clip counts */
    uint64_t *keys;    /* their keys (tb_ngram_key of their prefix and last token) */
    int32_t *orders;   /* their orders */
    size_t *starts;    /* segment s: ids[starts[s] .. starts[s + 1]) */
    size_t n, cap, segments;
    uint32_t *slots;   /* segment s's hash table: slots[slot_starts[s] .. slot_starts[s + 1]), */
    size_t *slot_starts; /* a power of two of them (or none), each 0 or 1 + an index into its ids */
    size_t slots_n, slots_cap, most;  /* most: the largest segment's n-grams */
} tb_mteval_clips;

typedef struct {
    int64_t matches[TB_MTEVAL_MAX_ORDER];
    int64_t totals[TB_MTEVAL_MAX_ORDER];
    double info[TB_MTEVAL_MAX_ORDER];
} tb_mteval_sums;

/* The lines of ids[0..length): every line ends with TB_LINE_END; -1 when the last does not. */
int64_t tb_count_lines(const int32_t *ids, size_t length);

/* refs: segments * nrefs lines (segment by segment), those `table` was built from.
 * TB_OK or TB_NOMEM (then c is freed). */
tb_status tb_mteval_clips_build(const tb_ngram_table *table, const int32_t *refs, size_t nrefs,
                                size_t segments, int max_order, tb_mteval_clips *c);

void tb_mteval_clips_free(tb_mteval_clips *c);

/* hyps: clips->segments lines; hyp_sizes[i]: the tokens of hypothesis i. TB_OK or TB_NOMEM. */
tb_status tb_mteval_sums_compute(const tb_mteval_clips *clips,
                                 const double *info, const int32_t *hyps, int max_order,
                                 int64_t *hyp_sizes, tb_mteval_sums *out);

#endif
