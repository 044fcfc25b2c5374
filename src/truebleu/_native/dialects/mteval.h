/* truebleu core, dialects: mteval's corpus sums on token ids (plain C, no Python).
 *
 * The sums of dialects/mteval.py's python_counts (its specification), for lines
 * already tokenized and numbered: per order n = 1..max_order, the hypothesis
 * n-grams clipped by their largest count in any reference of the segment
 * (matches), the hypothesis n-grams (totals), and NIST's information: each
 * segment's matched n-grams' info[g] * matched summed exactly and rounded once
 * (exact_sum.h), the segments' sums added in segment order. An n-gram's information
 * depends only on its count and its context's count: the table's distinct pairs of
 * them are listed once (tb_mteval_pairs), Python computes each pair's weight with
 * math.log, and info[g] is the weight of g's pair. The references' clip counts are
 * gathered once (tb_mteval_clips), from the occurrences the numbering pass writes.
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
#include "runtime/signals.h"
#include "runtime/status.h"

#define TB_MTEVAL_MAX_ORDER 9

/* Per segment, the references' n-grams with their largest count in any one reference. */
typedef struct {
    int32_t *ids;      /* n-gram numbers, segment after segment */
    int64_t *counts;   /* their clip counts */
    uint64_t *keys;    /* their keys (tb_ngram_key of their prefix and last token) */
    int32_t *orders;   /* their orders */
    size_t *starts;    /* segment s's first: ids[starts[s]], room up to starts[s + 1] for each of */
                       /* its references' n-grams; its distinct ones fill the start of it */
    size_t n, cap, segments;  /* n: the segments' distinct n-grams, all together */
    uint32_t *slots;   /* segment s's hash table: slots[slot_starts[s] .. slot_starts[s + 1]), */
    size_t *slot_starts; /* a power of two of them (or none), each 0 or 1 + an index into its ids */
    size_t slots_n, slots_cap, most;  /* most: the largest segment's n-grams */
} tb_mteval_clips;

/* The distinct (count << 32 | context count) of a table's n-grams, in order of first
 * occurrence, and each n-gram's index among them. mteval's context of an n-gram is its
 * prefix, but a unigram has none, nor has a bigram whose first token is no_context (a
 * token spelled "0": Perl's false); then NIST divides by the reference words. */
typedef struct {
    uint64_t *pairs;
    size_t n;
    int32_t *pair_of;  /* n-gram number -> index in pairs */
} tb_mteval_pairs;

/* ref_words: the reference words (the context count of an n-gram without context), at
 * most UINT32_MAX. TB_OK or TB_NOMEM (then p is freed). */
tb_status tb_mteval_pairs_build(const tb_ngram_table *table, int32_t no_context, uint64_t ref_words,
                                tb_mteval_pairs *p);

void tb_mteval_pairs_free(tb_mteval_pairs *p);

typedef struct {
    int64_t matches[TB_MTEVAL_MAX_ORDER];
    int64_t totals[TB_MTEVAL_MAX_ORDER];
    double info[TB_MTEVAL_MAX_ORDER];
} tb_mteval_sums;

/* The lines of reference ids[0..length) (token ids >= 0, each line ended by TB_LINE_END):
 * each line's number of tokens into *lengths (malloc'd; free it), their number in *lines.
 * Every id is read once and checked where it is read: the ids are the caller's buffer,
 * read without the GIL, and where the lines lie is known from *lengths alone afterwards
 * (tb_mteval_refs_build never looks for a line's end again). TB_OK; TB_VALUE with
 * *bad_at the index of an id that is neither a token id nor TB_LINE_END, or `length`
 * when the last line is not ended; TB_NOMEM. */
tb_status tb_mteval_lines(const int32_t *ids, size_t length, int64_t **lengths, size_t *lines, size_t *bad_at);

/* refs: segments * nrefs lines (segment by segment), the tokens of line k lengths[k]
 * (tb_mteval_lines), each line followed by one more id (its end, never read). Numbers their
 * n-grams of orders 1..max_order into `table` (with their counts) on the calling thread, then
 * gathers each segment's clip counts into c on up to `threads` threads (runtime/pool.h: call
 * without the GIL, `watch` the caller's, may be NULL; the same c on any number of threads;
 * mteval_refs.c): every array is sized once, from the lines' lengths. A token is read as data
 * alone (a key), never as an index or a bound: another thread changing refs meanwhile spoils
 * counts, never memory. TB_OK, TB_NOMEM or a stop of the job (TB_INTERRUPTED; then table
 * and c are freed). */
tb_status tb_mteval_refs_build(tb_ngram_table *table, const int32_t *refs, const int64_t *lengths, size_t nrefs,
                               size_t segments, int max_order, int threads, tb_signal_watch *watch,
                               tb_mteval_clips *c);

void tb_mteval_clips_free(tb_mteval_clips *c);

/* hyps[0..length): clips->segments lines, each ended by TB_LINE_END; hyp_sizes[i]: the
 * tokens of hypothesis i. weights[i]: NIST's information of the n-grams of pair i
 * (pairs->pairs[i]). The segments are counted on up to `threads` threads (runtime/pool.h;
 * call without the GIL, `watch` the caller's, may be NULL), each into a row of its own, and
 * the rows added in segment order: the sums never depend on the threads. hyps is the
 * caller's buffer, read without the GIL: the lines' ends are found once, first, and the
 * lines read within them (a token is data alone). TB_OK; TB_VALUE, with *lines_read the
 * complete lines found, when hyps holds fewer lines (*lines_read < clips->segments) or ids
 * after the last one (== clips->segments); TB_NOMEM; a stop of the job (TB_INTERRUPTED). */
tb_status tb_mteval_sums_compute(const tb_mteval_clips *clips, const tb_mteval_pairs *pairs,
                                 const double *weights, const int32_t *hyps, size_t length, int max_order,
                                 int threads, tb_signal_watch *watch, int64_t *hyp_sizes, tb_mteval_sums *out,
                                 size_t *lines_read);

#endif
