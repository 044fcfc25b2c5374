/* truebleu core: resampling's sums without NumPy (plain C, no Python; see
 * significance/resample.c; the entry points are significance/bindings.c). */
#ifndef TB_SIGNIFICANCE_RESAMPLE_H
#define TB_SIGNIFICANCE_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/signals.h"
#include "runtime/status.h"
#include "significance/pcg64.h"

/* int32 lanes summed at once, and vectors of them per pass over a sample's
 * draws (BLOCK x LANES columns: their accumulators stay in registers). */
#define LANES 4
#define BLOCK 12
/* Float32 sums are exact while every partial sum stays below this. */
#define FLOAT32_EXACT (INT64_C(1) << 24)
/* tb_resample's int32 accumulators are exact while n * largest |statistic| is below this. */
#define INT32_EXACT (INT64_C(1) << 31)
/* Columns of approximate randomization's sums at a time (and the padding of its rows). */
#define COLUMNS_AR 32

/* uint8 rows are summed in int16 for this many draws at a time (128 * 255 < 2^15). */
#define UINT8_DRAWS 128
/* uint8 rows: columns per pass over a sample's draws (their 12 int16 accumulators in registers). */
#define UINT8_COLUMNS 96
/* tb_resample's tables start on a cache line (64 bytes; a large allocation starts 16
 * bytes past a page): a padded row of 16, 32 or 64 bytes then never straddles two
 * lines, so a drawn row is one cache miss, never two. */
#define TB_ROW_ALIGN 64

/* The int64 sums of n_samples bootstrap samples of the table `stats` (n rows
 * of `row` statistics stored in `bytes` = 1 or 4 bytes each (uint8 or int32),
 * each row padded with zeros to `stride` statistics, a multiple of 16 / bytes;
 * TB_ROW_ALIGN-aligned) into sums (n_samples x row), the draws of
 * choice(n, n) from g in sample order; the sums on up to `threads` threads
 * (the same sums on any number; watch: the caller's, may be NULL). Exact while
 * n times the largest |statistic| is below INT32_EXACT (the caller checks).
 * TB_OK, or the job's failure (TB_NOMEM, TB_INTERRUPTED: g then part-way on). */
tb_status tb_resample(pcg64 *g, const void *stats, int bytes, ptrdiff_t n, ptrdiff_t row,
                      ptrdiff_t stride, ptrdiff_t n_samples, int64_t *sums, int threads,
                      tb_signal_watch *watch);

/* Whether each of the count values is below bound. */
int tb_below(const int64_t *values, ptrdiff_t count, int64_t bound);

/* Approximate randomization's gains: for each trial, the sum of delta's rows
 * (n rows of cols int32, cols a multiple of COLUMNS_AR) where its mask is set,
 * into gain (n_trials x cols). patterns: groups x n_trials (4 mask bits per
 * group of four segments and trial); scratch: table (16 x COLUMNS_AR), acc
 * (n_trials x COLUMNS_AR). */
void tb_masked_sums(const int32_t *delta, ptrdiff_t n, ptrdiff_t cols, const uint8_t *patterns,
                    ptrdiff_t n_trials, int32_t *table, int32_t *acc, int64_t *gain);

/* NumPy's pairwise summation of n doubles (np.add.reduce of a contiguous float64
 * array of at most 8192 values), from the identity 0.0; the specification is
 * truebleu/significance/native.py's pairwise_sum. */
double tb_pairwise_sum(const double *values, ptrdiff_t n);

#endif
