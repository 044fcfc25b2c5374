/* truebleu core: the sums of resampling without NumPy (plain C, no Python):
 * the bootstrap's summed statistics of each sample and approximate
 * randomization's swapped sums (see significance/resample.h). */
#include <string.h>

#include "significance/resample.h"

/* ------------------------------------------------------------------ */
/* bootstrap sums                                                      */

/* tb_resample (the bindings' resample_sums(state, n_samples, tables, width) -> bytes)
 *
 * tables: a sequence of k int64 buffers of n_segments * width each (one per
 * system). Draws choice(n_segments, size=(n_samples, n_segments)) and returns
 * the int64 sums, one row of k * width per sample (system j at j * width).
 *
 * As NumPy's path does, a sample is a vector of counts (how often each segment
 * was drawn) times the statistics matrix, here in float32: with
 * n_segments * max |statistic| < 2^24 every product and partial sum is an
 * integer below 2^24, so float32 is exact (checked; else OverflowError, and
 * the caller takes NumPy's path, which adds in sacreBLEU's order). GROUP
 * samples share each load of a statistics row, COLUMNS accumulators per
 * sample stay in registers.
 */
#define COLUMNS 8

static void group_sums(const float *stats, ptrdiff_t row, const float *counts,
                       ptrdiff_t n, int64_t *out)
{
    for (ptrdiff_t c0 = 0; c0 < row; c0 += COLUMNS) {
        float acc[GROUP][COLUMNS] = {{0}};
        const ptrdiff_t w = row - c0 < COLUMNS ? row - c0 : COLUMNS;
        if (w == COLUMNS) {  /* constant bounds: the compiler keeps acc in registers */
            for (ptrdiff_t i = 0; i < n; i++) {
                const float *src = stats + i * row + c0, *m = counts + i * GROUP;
                for (int g = 0; g < GROUP; g++)
                    for (int c = 0; c < COLUMNS; c++)
                        acc[g][c] += m[g] * src[c];
            }
        } else {
            for (ptrdiff_t i = 0; i < n; i++) {
                const float *src = stats + i * row + c0, *m = counts + i * GROUP;
                for (int g = 0; g < GROUP; g++)
                    for (ptrdiff_t c = 0; c < w; c++)
                        acc[g][c] += m[g] * src[c];
            }
        }
        for (int g = 0; g < GROUP; g++)
            for (ptrdiff_t c = 0; c < w; c++)
                out[g * row + c0 + c] = (int64_t)acc[g][c];
    }
}

/* the sums of n_samples samples, GROUP at a time (the draws in sample order) */
void tb_resample(pcg64 *g, const float *stats, ptrdiff_t n, ptrdiff_t row,
                 ptrdiff_t n_samples, int64_t *draws, float *counts, int64_t *group_out,
                 int64_t *sums)
{
    for (ptrdiff_t r0 = 0; r0 < n_samples; r0 += GROUP) {
        const ptrdiff_t take = n_samples - r0 < GROUP ? n_samples - r0 : GROUP;
        memset(counts, 0, (size_t)n * GROUP * sizeof *counts);
        for (ptrdiff_t s = 0; s < take; s++) {
            bounded_fill(g, (uint64_t)(n - 1), n, draws);
            for (ptrdiff_t i = 0; i < n; i++)
                counts[draws[i] * GROUP + s] += 1.0f;
        }
        group_sums(stats, row, counts, n, group_out);
        memcpy(sums + r0 * row, group_out, (size_t)take * row * sizeof *sums);
    }
}


/* ------------------------------------------------------------------ */
/* approximate randomization sums                                      */

/* randomization_sums(masks, first, others, width) -> (a, b)
 *
 * masks: n_trials * n bytes (0/1, NumPy's bool draws); first and each of the
 * k buffers in others: int64, n rows of `width`. Pseudo-system A of trial t
 * takes first's segment i where masks[t, i] else the other's, B the opposite;
 * a and b are their int64 column sums, one row of k * width per trial
 * (system j at j * width), as resampling.swapped_sums gives them.
 *
 * a = sum(other) + sum over masked segments of (first - other). The masked
 * sums are looked up four segments at a time: for each group of four, the 16
 * subset sums of their differences are tabulated (COLUMNS_AR columns at a
 * time), and every trial adds the table row of its four mask bits. The differences are summed in int32: sum |first - other| < 2^31 per
 * column is checked (else OverflowError, and the caller takes NumPy's path).
 */
#ifdef TB_GNU_EXTENSIONS
/* four int32 lanes (GCC/Clang vector extension; any alignment of int32) */
typedef int32_t i32x4 __attribute__((vector_size(16), aligned(4), may_alias));
#endif

/* patterns: groups x n_trials (4 mask bits per group and trial); acc: n_trials x COLUMNS_AR */
void tb_masked_sums(const int32_t *delta, ptrdiff_t n, ptrdiff_t cols,
                    const uint8_t *patterns, ptrdiff_t n_trials, int32_t *table,
                    int32_t *acc, int64_t *gain)
{
    const ptrdiff_t groups = (n + 3) / 4;
    for (ptrdiff_t c0 = 0; c0 < cols; c0 += COLUMNS_AR) {
        memset(acc, 0, (size_t)n_trials * COLUMNS_AR * sizeof *acc);
        for (ptrdiff_t g = 0; g < groups; g++) {
            /* the 16 subset sums of this group's differences (1 kB: stays in L1) ... */
            memset(table, 0, COLUMNS_AR * sizeof *table);
            for (int bit = 0; bit < 4; bit++) {
                const ptrdiff_t i = 4 * g + bit;
                const int32_t *d = delta + (i < n ? i : 0) * cols + c0;
                for (int p = 1 << bit; p < 2 << bit; p++)  /* subsets whose top bit is `bit` */
                    for (int c = 0; c < COLUMNS_AR; c++)
                        table[p * COLUMNS_AR + c] = table[(p - (1 << bit)) * COLUMNS_AR + c]
                                                    + (i < n ? d[c] : 0);
            }
            /* ... added to every trial's sums, trials in order (a sequential stream) */
            const uint8_t *pat = patterns + g * n_trials;
            for (ptrdiff_t r = 0; r < n_trials; r++) {
#ifdef TB_GNU_EXTENSIONS
                i32x4 *sum = (i32x4 *)(acc + r * COLUMNS_AR);
                const i32x4 *add = (const i32x4 *)(table + pat[r] * COLUMNS_AR);
                for (int v = 0; v < COLUMNS_AR / 4; v++)
                    sum[v] += add[v];
#else
                int32_t *sum = acc + r * COLUMNS_AR;
                const int32_t *add = table + pat[r] * COLUMNS_AR;
                for (int c = 0; c < COLUMNS_AR; c++)
                    sum[c] += add[c];
#endif
            }
        }
        for (ptrdiff_t r = 0; r < n_trials; r++)
            for (int c = 0; c < COLUMNS_AR; c++)
                gain[r * cols + c0 + c] = acc[r * COLUMNS_AR + c];
    }
}
