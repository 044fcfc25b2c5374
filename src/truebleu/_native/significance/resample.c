/* truebleu core: the sums of resampling without NumPy (plain C, no Python):
 * the bootstrap's summed statistics of each sample and approximate
 * randomization's swapped sums (see significance/resample.h). */
#include <stdlib.h>
#include <string.h>

#include "runtime/pool.h"
#include "runtime/portable.h"
#include "runtime/threads.h"
#include "significance/resample.h"

#ifdef TB_HAVE_SSE2
#include <emmintrin.h>
#endif

/* ------------------------------------------------------------------ */
/* bootstrap sums                                                      */

/* tb_resample (the bindings' resample_sums(state, n_samples, tables, width) -> bytes)
 *
 * tables: a sequence of k int64 buffers of n_segments * width each (one per
 * system). Draws choice(n_segments, size=(n_samples, n_segments)) and returns
 * the int64 sums, one row of k * width per sample (system j at j * width).
 *
 * A sample's sums are its drawn rows added up, in int32: exact while
 * n_segments * max |statistic| < 2^31 (checked by the bindings; else
 * OverflowError, and the caller takes NumPy's path). NumPy's path sums in
 * float32, which is exact while every partial sum stays below 2^24: the
 * bindings check that too where the caller asks for float32's sums.
 * Adding the drawn rows is one vector add per LANES columns and draw; a
 * vector of counts times the table (NumPy's way) is a multiply and an add per
 * column and segment, and a count to clear and set first. BLOCK vectors of
 * accumulators are summed over a sample's draws at a time.
 *
 * The draws land anywhere in the table, so at 200,000 segments most drawn rows
 * are cache misses: a table of statistics from 0 to 255 (BLEU's and the report's
 * per-segment counts, as a rule) is stored in uint8, where that makes a padded
 * row shorter, and each drawn row added in 16-bit lanes (block_sums_uint8). Fewer
 * bytes per row, fewer cache lines per draw; the same sums. (int16 rows were tried: a 20-column
 * row of 48 bytes instead of 80 was slower, the widening costing more than the
 * bytes saved.)
 */
/* Draws looked ahead by the sums of a large table (RESAMPLE_AHEAD_BYTES or more): the
 * row of the draw that many places on is fetched while this one is added. The drawn
 * rows are random, so the hardware's prefetchers cannot guess them, and each row the
 * caches miss otherwise waits for the loads before it (200,000 segments of BLEU rows
 * of two systems, 6.4 MB in uint8: the sums about 6 ns a draw without, about 4 with).
 * Only a hint: a row fetched or not, the same sums. */
#define RESAMPLE_AHEAD 24
#define RESAMPLE_AHEAD_BYTES ((ptrdiff_t)1 << 20)

/* the cache lines of `vectors` 16-byte vectors from row (its first and last byte's) */
static TB_ALWAYS_INLINE void prefetch_row(const char *row, int vectors)
{
    (void)row;  /* (unused where TB_PREFETCH is nothing) */
    (void)vectors;
    TB_PREFETCH(row);
    TB_PREFETCH(row + 16 * vectors - 1);
}

#ifdef TB_HAVE_SSE2
/* block_sums_<type>: the sums of `vectors` 16-byte vectors of a row (from stats' first
 * byte; 16-byte aligned rows) over the n draws into out (its first `width` columns).
 * Inlined with `vectors` a constant, the loops over vectors unroll and the
 * accumulators stay in registers. */

/* uint8 statistics (0 to 255), summed in 16-bit lanes for up to 128 draws (128 * 255 < 2^15),
 * then added to int64 totals. A lane holds two columns, the even one in its low byte and the
 * odd one in its high byte: the lanes' sums (mod 2^16) are even + 256 * odd, and the high
 * bytes shifted down summed apart are odd, so even = lanes - 256 * odd (mod 2^16, exact: even
 * is below 2^15). Two additions and a shift a vector and draw, where widening both halves
 * with zeros (two unpacks, two copies, two additions) made six instructions. */
static TB_ALWAYS_INLINE void block_sums_uint8(const char *stats, ptrdiff_t stride,
                                              const int64_t *draws, ptrdiff_t n, int vectors,
                                              int ahead, ptrdiff_t width, int64_t *out)
{
    int64_t total[UINT8_COLUMNS] = {0};
    int16_t part[UINT8_COLUMNS] = {0};
    const __m128i zero = _mm_setzero_si128();
    for (ptrdiff_t first = 0; first < n; first += UINT8_DRAWS) {
        const ptrdiff_t last = n - first < UINT8_DRAWS ? n : first + UINT8_DRAWS;
        __m128i lanes[UINT8_COLUMNS / 16], odd[UINT8_COLUMNS / 16];
        for (int v = 0; v < vectors; v++)
            lanes[v] = odd[v] = zero;
        for (ptrdiff_t i = first; i < last; i++) {
            if (ahead && i + ahead < n)
                prefetch_row(stats + draws[i + ahead] * stride, vectors);
            const __m128i *src = (const __m128i *)(stats + draws[i] * stride);
            for (int v = 0; v < vectors; v++) {
                const __m128i x = _mm_load_si128(src + v);
                lanes[v] = _mm_add_epi16(lanes[v], x);
                odd[v] = _mm_add_epi16(odd[v], _mm_srli_epi16(x, 8));
            }
        }
        for (int v = 0; v < vectors; v++) {  /* columns back in order: even, odd, even, ... */
            const __m128i even = _mm_sub_epi16(lanes[v], _mm_slli_epi16(odd[v], 8));
            _mm_storeu_si128((__m128i *)(part + 16 * v), _mm_unpacklo_epi16(even, odd[v]));
            _mm_storeu_si128((__m128i *)(part + 16 * v + 8), _mm_unpackhi_epi16(even, odd[v]));
        }
        for (ptrdiff_t c = 0; c < width; c++)
            total[c] += part[c];
    }
    for (ptrdiff_t c = 0; c < width; c++)
        out[c] = total[c];
}

/* int32 statistics */
static TB_ALWAYS_INLINE void block_sums_int32(const char *stats, ptrdiff_t stride,
                                              const int64_t *draws, ptrdiff_t n, int vectors,
                                              int ahead, ptrdiff_t width, int64_t *out)
{
    __m128i acc[BLOCK];
    for (int v = 0; v < vectors; v++)
        acc[v] = _mm_setzero_si128();
    for (ptrdiff_t i = 0; i < n; i++) {
        if (ahead && i + ahead < n)
            prefetch_row(stats + draws[i + ahead] * stride, vectors);
        const __m128i *src = (const __m128i *)(stats + draws[i] * stride);
        for (int v = 0; v < vectors; v++)
            acc[v] = _mm_add_epi32(acc[v], _mm_load_si128(src + v));
    }
    int32_t sums[BLOCK * LANES] = {0};
    for (int v = 0; v < vectors; v++)
        _mm_storeu_si128((__m128i *)(sums + 4 * v), acc[v]);
    for (ptrdiff_t c = 0; c < width; c++)
        out[c] = sums[c];
}
#else
/* the same sums, one statistic at a time (T: the storage type; 16 / sizeof(T) of them
 * per 16-byte vector) */
#define TB_BLOCK_SUMS(name, T)                                                             \
    static TB_ALWAYS_INLINE void name(const char *stats, ptrdiff_t stride,                 \
                                      const int64_t *draws, ptrdiff_t n, int vectors,      \
                                      int ahead, ptrdiff_t width, int64_t *out)            \
    {                                                                                      \
        int32_t acc[UINT8_COLUMNS] = {0};  /* the most columns of a pass */             \
        for (ptrdiff_t i = 0; i < n; i++) {                                                \
            if (ahead && i + ahead < n)                                                    \
                prefetch_row(stats + draws[i + ahead] * stride, vectors);                  \
            const T *src = (const T *)(stats + draws[i] * stride);                         \
            for (int c = 0; c < vectors * (int)(16 / sizeof(T)); c++)                      \
                acc[c] += src[c];                                                          \
        }                                                                                  \
        for (ptrdiff_t c = 0; c < width; c++)                                              \
            out[c] = acc[c];                                                               \
    }
TB_BLOCK_SUMS(block_sums_uint8, uint8_t)
TB_BLOCK_SUMS(block_sums_int32, int32_t)
#undef TB_BLOCK_SUMS
#endif

/* GCC's partial-redundancy elimination (-ftree-pre, on from -O2) turns the uint8 loop's
 * accumulators into copies and stack spills: 50 instructions a draw of six vectors instead
 * of 30 (GCC 12). Without it the loop is the loads, shifts and additions alone. Only the
 * code GCC makes changes: the same sums. */
#if defined(__GNUC__) && !defined(__clang__)
#define TB_NO_TREE_PRE __attribute__((optimize("no-tree-pre")))
#else
#define TB_NO_TREE_PRE
#endif

/* block_sums_<type> with `vectors` (1 to its most) and `ahead` (0 or RESAMPLE_AHEAD) as
 * constants: a small table's loop has no look-ahead at all */
#define TB_BLOCK_CASE(v)                                                          \
    case v:                                                                       \
        if (ahead)                                                                \
            SUMS(stats, stride, draws, n, v, RESAMPLE_AHEAD, width, out);         \
        else                                                                      \
            SUMS(stats, stride, draws, n, v, 0, width, out);                      \
        break;
static TB_NO_TREE_PRE void block_sums_of(const char *stats, int bytes, ptrdiff_t stride, const int64_t *draws,
                          ptrdiff_t n, int vectors, int ahead, ptrdiff_t width, int64_t *out)
{
    if (bytes == 1) {
#define SUMS block_sums_uint8
        switch (vectors) {
        TB_BLOCK_CASE(1) TB_BLOCK_CASE(2) TB_BLOCK_CASE(3) TB_BLOCK_CASE(4)
        TB_BLOCK_CASE(5) TB_BLOCK_CASE(6) default: break;
        }
#undef SUMS
        return;
    }
#define SUMS block_sums_int32
    switch (vectors) {
    TB_BLOCK_CASE(1) TB_BLOCK_CASE(2) TB_BLOCK_CASE(3) TB_BLOCK_CASE(4)
    TB_BLOCK_CASE(5) TB_BLOCK_CASE(6) TB_BLOCK_CASE(7) TB_BLOCK_CASE(8)
    TB_BLOCK_CASE(9) TB_BLOCK_CASE(10) TB_BLOCK_CASE(11) TB_BLOCK_CASE(12)
    default: break;
    }
#undef SUMS
}
#undef TB_BLOCK_CASE

/* One sample's sums: its draws' rows added up, a pass per `columns` columns. */
static void sample_sums(const void *stats, int bytes, ptrdiff_t n, ptrdiff_t row, ptrdiff_t stride,
                        const int64_t *draws, int64_t *sums)
{
    const ptrdiff_t lanes = 16 / bytes, stride_bytes = stride * bytes;
    const ptrdiff_t columns = bytes == 1 ? UINT8_COLUMNS : BLOCK * LANES;  /* per pass */
    const int ahead = n * stride_bytes >= RESAMPLE_AHEAD_BYTES;
    for (ptrdiff_t c0 = 0; c0 < row; c0 += columns) {
        const ptrdiff_t left = stride - c0;
        const int vectors = (int)(left < columns ? left / lanes : columns / lanes);
        const ptrdiff_t width = row - c0 < columns ? row - c0 : columns;
        block_sums_of((const char *)stats + c0 * bytes, bytes, stride_bytes, draws, n, vectors,
                      ahead, width, sums + c0);
    }
}

/* The resampling job: items are samples. The draws must come out of the one generator
 * in sample order, the sums need not: a worker takes its next chunk of samples and
 * draws them under the job's lock (claim and draws together, so chunks are drawn in
 * the order they are claimed, which is sample order), then sums them without it while
 * another worker draws. Each sample's sums are integers of its own draws: the same on
 * any number of threads. */
typedef struct {
    tb_job base;  /* first */
    tb_mutex lock;  /* the generator and the claims */
    pcg64 *g;
    const void *stats;
    int bytes;
    ptrdiff_t n, row, stride;
    int64_t *sums;
} resample_job;

static void resample_worker(tb_job *base)
{
    resample_job *job = (resample_job *)base;
    const ptrdiff_t n = job->n;
    int64_t *draws = malloc(base->chunk * (size_t)n * sizeof *draws);
    if (draws == NULL) {
        tb_job_fail(base, TB_NOMEM, 0);
        return;
    }
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    for (;;) {
        size_t lo, hi;
        tb_mutex_lock(&job->lock);
        const int claimed = tb_job_claim(base, &lo, &hi);
        if (claimed)
            for (size_t r = lo; r < hi; r++)
                bounded_fill(job->g, (uint64_t)(n - 1), n, draws + (r - lo) * (size_t)n);
        tb_mutex_unlock(&job->lock);
        if (!claimed)
            break;
        for (size_t r = lo; r < hi; r++) {
            if (tb_poll_spend(&poll.base, (long)(n * (1 + job->row / 16))))
                break;  /* (the poll recorded why: the job stops) */
            sample_sums(job->stats, job->bytes, n, job->row, job->stride,
                        draws + (r - lo) * (size_t)n, job->sums + r * (size_t)job->row);
        }
    }
    free(draws);
}

/* Draws per chunk of samples: a worker's draws stay in the caches (128 kB). */
#define RESAMPLE_CHUNK_DRAWS 16384

tb_status tb_resample(pcg64 *g, const void *stats, int bytes, ptrdiff_t n, ptrdiff_t row,
                      ptrdiff_t stride, ptrdiff_t n_samples, int64_t *sums, int threads,
                      tb_signal_watch *watch)
{
    resample_job job;
    const ptrdiff_t chunk = n < RESAMPLE_CHUNK_DRAWS ? RESAMPLE_CHUNK_DRAWS / n : 1;
    tb_job_init(&job.base, resample_worker, (size_t)n_samples, (size_t)chunk);
    tb_mutex_init(&job.lock);
    job.g = g;
    job.stats = stats;
    job.bytes = bytes;
    job.n = n;
    job.row = row;
    job.stride = stride;
    job.sums = sums;
    const tb_status status = tb_job_run(&job.base, threads, watch);
    tb_mutex_destroy(&job.lock);
    return status;
}

int tb_below(const int64_t *values, ptrdiff_t count, int64_t bound)
{
    int64_t largest = 0;
    for (ptrdiff_t i = 0; i < count; i++)
        largest = values[i] > largest ? values[i] : largest;
    return largest < bound;
}


/* ------------------------------------------------------------------ */
/* NumPy's pairwise sum                                                */

/* NumPy's PW_BLOCKSIZE: up to it, eight running sums */
#define PAIRWISE_BLOCK 128

/* pairwise_sum's steps (native.py's _pairwise): fewer than 8 values left to right;
 * up to PAIRWISE_BLOCK, eight running sums (one per position modulo 8) combined as
 * ((0+1)+(2+3))+((4+5)+(6+7)), then the rest; longer, the two halves (split at
 * half rounded down to a multiple of 8) summed apart */
static double pairwise(const double *a, ptrdiff_t n)
{
    if (n < 8) {
        double total = 0.0;
        for (ptrdiff_t i = 0; i < n; i++)
            total += a[i];
        return total;
    }
    if (n <= PAIRWISE_BLOCK) {
        double r[8];
        for (int k = 0; k < 8; k++)
            r[k] = a[k];
        const ptrdiff_t end = n - n % 8;
        for (ptrdiff_t i = 8; i < end; i += 8)
            for (int k = 0; k < 8; k++)
                r[k] += a[i + k];
        double total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (ptrdiff_t i = end; i < n; i++)
            total += a[i];
        return total;
    }
    ptrdiff_t half = n / 2;
    half -= half % 8;
    return pairwise(a, half) + pairwise(a + half, n - half);
}

double tb_pairwise_sum(const double *values, ptrdiff_t n)
{
    return 0.0 + pairwise(values, n);
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
