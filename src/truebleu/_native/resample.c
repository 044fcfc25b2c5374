/* Resampling without NumPy: NumPy's PCG64 stream, its bounded integers, the
 * bootstrap's summed statistics and BLEU of those sums.
 *
 * The draws are the ones NumPy's Generator makes for sacreBLEU's calls, so the
 * same seed gives the same samples (the tests compare every draw with NumPy):
 *
 * - PCG64 (O'Neill's PCG XSL RR 128/64): a 128-bit LCG whose output is the
 *   xor of the state's halves rotated by its top 6 bits. A 32-bit draw takes
 *   the low half of a 64-bit output and keeps the high half for the next one.
 * - `choice(n, size, replace=True)` is `integers(0, n)`: with range
 *   r = n - 1, r = 0 draws nothing; r < 2^32 - 1 uses Lemire's multiply-shift
 *   on 32-bit draws; r = 2^32 - 1 returns 32-bit draws as they are; larger
 *   ranges use Lemire on 64-bit draws (r = 2^64 - 1 returns them as they are).
 * - `integers(2, dtype=bool)` takes one bit at a time, low bit first, from a
 *   32-bit draw; the spare bits of the last draw of a call are dropped.
 *
 * The generator state lives in a Python-owned writable buffer of six uint64
 * words (state high, state low, increment high, increment low, has a spare
 * 32-bit half, the spare half), so consecutive calls continue one stream as
 * NumPy's consecutive calls do. Seeding (SeedSequence) is done in Python
 * (truebleu/significance/pcg64.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef unsigned __int128 u128;

typedef struct {
    u128 state, inc;
    int has_uint32;
    uint32_t uinteger;
} pcg64;

#define PCG_MULT (((u128)2549297995355413924ULL << 64) | 4865540595714422341ULL)

static inline uint64_t pcg64_next64(pcg64 *g)
{
    g->state = g->state * PCG_MULT + g->inc;
    uint64_t x = (uint64_t)(g->state >> 64) ^ (uint64_t)g->state;
    unsigned rot = (unsigned)(g->state >> 122);
    return (x >> rot) | (x << ((-rot) & 63));
}

static inline uint32_t pcg64_next32(pcg64 *g)
{
    if (g->has_uint32) {
        g->has_uint32 = 0;
        return g->uinteger;
    }
    uint64_t next = pcg64_next64(g);
    g->has_uint32 = 1;
    g->uinteger = (uint32_t)(next >> 32);
    return (uint32_t)next;
}

/* integers in [0, range], range < 2^32 - 1: Lemire's method on 32-bit draws */
static inline uint32_t lemire32(pcg64 *g, uint32_t range)
{
    const uint32_t bound = range + 1;
    uint64_t m = (uint64_t)pcg64_next32(g) * bound;
    uint32_t low = (uint32_t)m;
    if (low < bound) {
        const uint32_t threshold = (UINT32_MAX - range) % bound;
        while (low < threshold) {
            m = (uint64_t)pcg64_next32(g) * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* integers in [0, range], 2^32 - 1 < range < 2^64 - 1: Lemire on 64-bit draws */
static inline uint64_t lemire64(pcg64 *g, uint64_t range)
{
    const uint64_t bound = range + 1;
    u128 m = (u128)pcg64_next64(g) * bound;
    uint64_t low = (uint64_t)m;
    if (low < bound) {
        const uint64_t threshold = (UINT64_MAX - range) % bound;
        while (low < threshold) {
            m = (u128)pcg64_next64(g) * bound;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* `count` draws of integers(0, range + 1) into `out`, as NumPy's int64 fill does */
static void bounded_fill(pcg64 *g, uint64_t range, Py_ssize_t count, int64_t *out)
{
    Py_ssize_t i;
    if (range == 0) {
        memset(out, 0, (size_t)count * sizeof *out);
    } else if (range < 0xFFFFFFFFULL) {
        for (i = 0; i < count; i++)
            out[i] = lemire32(g, (uint32_t)range);
    } else if (range == 0xFFFFFFFFULL) {
        for (i = 0; i < count; i++)
            out[i] = pcg64_next32(g);
    } else if (range < UINT64_MAX) {
        for (i = 0; i < count; i++)
            out[i] = (int64_t)lemire64(g, range);
    } else {
        for (i = 0; i < count; i++)
            out[i] = (int64_t)pcg64_next64(g);
    }
}

/* ------------------------------------------------------------------ */
/* the state buffer                                                    */

typedef struct {
    Py_buffer view;
    pcg64 g;
} state_ref;

static int state_open(PyObject *obj, state_ref *s)
{
    if (PyObject_GetBuffer(obj, &s->view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (s->view.len != 6 * 8) {
        PyBuffer_Release(&s->view);
        PyErr_SetString(PyExc_ValueError, "a PCG64 state is a writable buffer of 48 bytes");
        return -1;
    }
    uint64_t w[6];
    memcpy(w, s->view.buf, sizeof w);
    s->g.state = ((u128)w[0] << 64) | w[1];
    s->g.inc = ((u128)w[2] << 64) | w[3];
    s->g.has_uint32 = w[4] != 0;
    s->g.uinteger = (uint32_t)w[5];
    return 0;
}

static void state_close(state_ref *s)
{
    uint64_t w[6] = {(uint64_t)(s->g.state >> 64), (uint64_t)s->g.state,
                     (uint64_t)(s->g.inc >> 64), (uint64_t)s->g.inc,
                     (uint64_t)s->g.has_uint32, s->g.uinteger};
    memcpy(s->view.buf, w, sizeof w);
    PyBuffer_Release(&s->view);
}

/* ------------------------------------------------------------------ */
/* draws                                                               */

PyObject *tb_pcg64_integers(PyObject *module, PyObject *args)
{
    PyObject *state_obj;
    unsigned long long n;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "OKn", &state_obj, &n, &count))
        return NULL;
    if (n == 0 || count < 0 || n > (unsigned long long)INT64_MAX + 1) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= n <= 2**63 and count >= 0");
        return NULL;
    }
    state_ref s;
    if (state_open(state_obj, &s) < 0)
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, count * 8);
    if (out != NULL)
        bounded_fill(&s.g, (uint64_t)(n - 1), count, (int64_t *)PyBytes_AS_STRING(out));
    state_close(&s);
    return out;
}

PyObject *tb_pcg64_bools(PyObject *module, PyObject *args)
{
    PyObject *state_obj;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "On", &state_obj, &count))
        return NULL;
    if (count < 0) {
        PyErr_SetString(PyExc_ValueError, "count must be >= 0");
        return NULL;
    }
    state_ref s;
    if (state_open(state_obj, &s) < 0)
        return NULL;
    PyObject *out = PyBytes_FromStringAndSize(NULL, count);
    if (out != NULL) {
        char *p = PyBytes_AS_STRING(out);
        uint32_t buf = 0;
        int left = 0;
        for (Py_ssize_t i = 0; i < count; i++) {
            if (left == 0) {
                buf = pcg64_next32(&s.g);
                left = 31;
            } else {
                buf >>= 1;
                left--;
            }
            p[i] = (char)(buf & 1);
        }
    }
    state_close(&s);
    return out;
}

/* ------------------------------------------------------------------ */
/* bootstrap sums                                                      */

/* resample_sums(state, n_samples, tables, width) -> bytes
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
#define GROUP 4
#define COLUMNS 8
#define FLOAT32_EXACT (INT64_C(1) << 24)

static void group_sums(const float *stats, Py_ssize_t row, const float *counts,
                       Py_ssize_t n, int64_t *out)
{
    for (Py_ssize_t c0 = 0; c0 < row; c0 += COLUMNS) {
        float acc[GROUP][COLUMNS] = {{0}};
        const Py_ssize_t w = row - c0 < COLUMNS ? row - c0 : COLUMNS;
        if (w == COLUMNS) {  /* constant bounds: the compiler keeps acc in registers */
            for (Py_ssize_t i = 0; i < n; i++) {
                const float *src = stats + i * row + c0, *m = counts + i * GROUP;
                for (int g = 0; g < GROUP; g++)
                    for (int c = 0; c < COLUMNS; c++)
                        acc[g][c] += m[g] * src[c];
            }
        } else {
            for (Py_ssize_t i = 0; i < n; i++) {
                const float *src = stats + i * row + c0, *m = counts + i * GROUP;
                for (int g = 0; g < GROUP; g++)
                    for (Py_ssize_t c = 0; c < w; c++)
                        acc[g][c] += m[g] * src[c];
            }
        }
        for (int g = 0; g < GROUP; g++)
            for (Py_ssize_t c = 0; c < w; c++)
                out[g * row + c0 + c] = (int64_t)acc[g][c];
    }
}

/* the sums of n_samples samples, GROUP at a time (the draws in sample order) */
static void resample(pcg64 *g, const float *stats, Py_ssize_t n, Py_ssize_t row,
                     Py_ssize_t n_samples, int64_t *draws, float *counts, int64_t *group_out,
                     int64_t *sums)
{
    for (Py_ssize_t r0 = 0; r0 < n_samples; r0 += GROUP) {
        const Py_ssize_t take = n_samples - r0 < GROUP ? n_samples - r0 : GROUP;
        memset(counts, 0, (size_t)n * GROUP * sizeof *counts);
        for (Py_ssize_t s = 0; s < take; s++) {
            bounded_fill(g, (uint64_t)(n - 1), n, draws);
            for (Py_ssize_t i = 0; i < n; i++)
                counts[draws[i] * GROUP + s] += 1.0f;
        }
        group_sums(stats, row, counts, n, group_out);
        memcpy(sums + r0 * row, group_out, (size_t)take * row * sizeof *sums);
    }
}

PyObject *tb_resample_sums(PyObject *module, PyObject *args)
{
    PyObject *state_obj, *tables_obj;
    Py_ssize_t n_samples, width;
    if (!PyArg_ParseTuple(args, "OnOn", &state_obj, &n_samples, &tables_obj, &width))
        return NULL;
    PyObject *tables = PySequence_Fast(tables_obj, "tables must be a sequence of buffers");
    if (tables == NULL)
        return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(tables), n = -1;
    if (k < 1 || width < 1 || n_samples < 0) {
        Py_DECREF(tables);
        PyErr_SetString(PyExc_ValueError, "need at least one table, width >= 1, n_samples >= 0");
        return NULL;
    }
    const Py_ssize_t row = k * width;
    float *stats = NULL, *counts = NULL;
    int64_t *draws = NULL, *group_out = NULL, largest = 0;
    PyObject *out = NULL;
    for (Py_ssize_t j = 0; j < k; j++) {
        Py_buffer view;
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(tables, j), &view, PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        if (view.len % (8 * width) != 0 || (n >= 0 && view.len / (8 * width) != n)
                || view.len == 0) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "tables must be int64 buffers of equal, non-zero "
                                              "numbers of rows of `width`");
            goto done;
        }
        if (n < 0) {
            n = view.len / (8 * width);
            stats = PyMem_Malloc((size_t)n * row * sizeof *stats);
            if (stats == NULL) {
                PyBuffer_Release(&view);
                PyErr_NoMemory();
                goto done;
            }
        }
        const int64_t *src = view.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            for (Py_ssize_t c = 0; c < width; c++) {
                int64_t x = src[i * width + c];
                int64_t magnitude = x < 0 ? (x == INT64_MIN ? INT64_MAX : -x) : x;
                if (magnitude > largest)
                    largest = magnitude;
                stats[i * row + j * width + c] = (float)x;
            }
        PyBuffer_Release(&view);
    }
    if ((u128)largest * (u128)n >= (u128)FLOAT32_EXACT) {
        PyErr_SetString(PyExc_OverflowError, "statistics too large to resample exactly in "
                                             "float32 (segments * largest statistic >= 2**24)");
        goto done;
    }
    draws = PyMem_Malloc((size_t)n * sizeof *draws);
    counts = PyMem_Malloc((size_t)n * GROUP * sizeof *counts);
    group_out = PyMem_Malloc((size_t)GROUP * row * sizeof *group_out);
    if (draws == NULL || counts == NULL || group_out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, n_samples * row * 8);
    if (out == NULL)
        goto done;
    int64_t *sums = (int64_t *)PyBytes_AS_STRING(out);
    state_ref s;
    if (state_open(state_obj, &s) < 0) {
        Py_CLEAR(out);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    resample(&s.g, stats, n, row, n_samples, draws, counts, group_out, sums);
    Py_END_ALLOW_THREADS
    state_close(&s);
done:
    PyMem_Free(stats);
    PyMem_Free(counts);
    PyMem_Free(draws);
    PyMem_Free(group_out);
    Py_DECREF(tables);
    return out;
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
#define COLUMNS_AR 32
/* four int32 lanes (GCC/Clang vector extension; any alignment of int32) */
typedef int32_t i32x4 __attribute__((vector_size(16), aligned(4), may_alias));

/* patterns: groups x n_trials (4 mask bits per group and trial); acc: n_trials x COLUMNS_AR */
static void masked_sums(const int32_t *delta, Py_ssize_t n, Py_ssize_t cols,
                        const uint8_t *patterns, Py_ssize_t n_trials, int32_t *table,
                        int32_t *acc, int64_t *gain)
{
    const Py_ssize_t groups = (n + 3) / 4;
    for (Py_ssize_t c0 = 0; c0 < cols; c0 += COLUMNS_AR) {
        memset(acc, 0, (size_t)n_trials * COLUMNS_AR * sizeof *acc);
        for (Py_ssize_t g = 0; g < groups; g++) {
            /* the 16 subset sums of this group's differences (1 kB: stays in L1) ... */
            memset(table, 0, COLUMNS_AR * sizeof *table);
            for (int bit = 0; bit < 4; bit++) {
                const Py_ssize_t i = 4 * g + bit;
                const int32_t *d = delta + (i < n ? i : 0) * cols + c0;
                for (int p = 1 << bit; p < 2 << bit; p++)  /* subsets whose top bit is `bit` */
                    for (int c = 0; c < COLUMNS_AR; c++)
                        table[p * COLUMNS_AR + c] = table[(p - (1 << bit)) * COLUMNS_AR + c]
                                                    + (i < n ? d[c] : 0);
            }
            /* ... added to every trial's sums, trials in order (a sequential stream) */
            const uint8_t *pat = patterns + g * n_trials;
            for (Py_ssize_t r = 0; r < n_trials; r++) {
                i32x4 *sum = (i32x4 *)(acc + r * COLUMNS_AR);
                const i32x4 *add = (const i32x4 *)(table + pat[r] * COLUMNS_AR);
                for (int v = 0; v < COLUMNS_AR / 4; v++)
                    sum[v] += add[v];
            }
        }
        for (Py_ssize_t r = 0; r < n_trials; r++)
            for (int c = 0; c < COLUMNS_AR; c++)
                gain[r * cols + c0 + c] = acc[r * COLUMNS_AR + c];
    }
}

PyObject *tb_randomization_sums(PyObject *module, PyObject *args)
{
    Py_buffer masks, first;
    PyObject *others_obj;
    Py_ssize_t width;
    if (!PyArg_ParseTuple(args, "y*y*On", &masks, &first, &others_obj, &width))
        return NULL;
    PyObject *others = NULL, *a_obj = NULL, *b_obj = NULL, *result = NULL;
    int32_t *delta = NULL, *table = NULL, *acc = NULL;
    int64_t *base = NULL, *both = NULL, *gain = NULL;
    uint8_t *patterns = NULL;
    others = PySequence_Fast(others_obj, "others must be a sequence of buffers");
    if (others == NULL)
        goto done;
    const Py_ssize_t k = PySequence_Fast_GET_SIZE(others);
    if (k < 1 || width < 1 || first.len == 0 || first.len % (8 * width) != 0) {
        PyErr_SetString(PyExc_ValueError, "need int64 rows of `width` and at least one other table");
        goto done;
    }
    const Py_ssize_t n = first.len / (8 * width), row = k * width;
    const Py_ssize_t cols = (row + COLUMNS_AR - 1) / COLUMNS_AR * COLUMNS_AR;  /* padded */
    if (masks.len % n != 0) {
        PyErr_SetString(PyExc_ValueError, "masks must hold n_trials rows of one byte per segment");
        goto done;
    }
    const Py_ssize_t n_trials = masks.len / n, groups = (n + 3) / 4;
    delta = PyMem_Calloc((size_t)n * cols, sizeof *delta);
    base = PyMem_Calloc((size_t)row, sizeof *base);
    both = PyMem_Calloc((size_t)row, sizeof *both);
    table = PyMem_Malloc(16 * COLUMNS_AR * sizeof *table);
    acc = PyMem_Malloc((size_t)(n_trials ? n_trials : 1) * COLUMNS_AR * sizeof *acc);
    patterns = PyMem_Malloc((size_t)(n_trials ? n_trials : 1) * groups);
    gain = PyMem_Malloc((size_t)(n_trials ? n_trials : 1) * cols * sizeof *gain);
    if (delta == NULL || base == NULL || both == NULL || table == NULL || patterns == NULL
            || gain == NULL || acc == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *f = first.buf;
    for (Py_ssize_t j = 0; j < k; j++) {
        Py_buffer view;
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(others, j), &view, PyBUF_C_CONTIGUOUS) < 0)
            goto done;
        if (view.len != first.len) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "every table must have the shape of `first`");
            goto done;
        }
        const int64_t *o = view.buf;
        for (Py_ssize_t c = 0; c < width; c++) {
            int64_t magnitude = 0, sum_f = 0, sum_o = 0;
            int overflow = 0;
            for (Py_ssize_t i = 0; i < n; i++) {
                const int64_t x = f[i * width + c], y = o[i * width + c];
                int64_t d;
                overflow |= __builtin_sub_overflow(x, y, &d) || d == INT64_MIN;
                if (!overflow)
                    overflow |= __builtin_add_overflow(magnitude, d < 0 ? -d : d, &magnitude);
                overflow |= __builtin_add_overflow(sum_f, x, &sum_f);
                overflow |= __builtin_add_overflow(sum_o, y, &sum_o);
                delta[i * cols + j * width + c] = (int32_t)d;
            }
            if (overflow || magnitude >= (INT64_C(1) << 31)
                    || __builtin_add_overflow(sum_f, sum_o, &both[j * width + c])) {
                PyBuffer_Release(&view);
                PyErr_SetString(PyExc_OverflowError, "statistics too large to randomize in int32 "
                                                     "(sum of |differences| >= 2**31)");
                goto done;
            }
            base[j * width + c] = sum_o;
        }
        PyBuffer_Release(&view);
    }
    const uint8_t *m = masks.buf;
    for (Py_ssize_t r = 0; r < n_trials; r++)
        for (Py_ssize_t g = 0; g < groups; g++) {
            uint8_t p = 0;
            for (int bit = 0; bit < 4 && 4 * g + bit < n; bit++)
                p |= (uint8_t)((m[r * n + 4 * g + bit] != 0) << bit);
            patterns[g * n_trials + r] = p;
        }
    a_obj = PyBytes_FromStringAndSize(NULL, n_trials * row * 8);
    b_obj = PyBytes_FromStringAndSize(NULL, n_trials * row * 8);
    if (a_obj == NULL || b_obj == NULL)
        goto done;
    int64_t *a = (int64_t *)PyBytes_AS_STRING(a_obj), *b = (int64_t *)PyBytes_AS_STRING(b_obj);
    Py_BEGIN_ALLOW_THREADS
    masked_sums(delta, n, cols, patterns, n_trials, table, acc, gain);
    for (Py_ssize_t r = 0; r < n_trials; r++)
        for (Py_ssize_t c = 0; c < row; c++) {
            a[r * row + c] = base[c] + gain[r * cols + c];
            b[r * row + c] = both[c] - a[r * row + c];
        }
    Py_END_ALLOW_THREADS
    result = PyTuple_Pack(2, a_obj, b_obj);
done:
    Py_XDECREF(a_obj);
    Py_XDECREF(b_obj);
    Py_XDECREF(others);
    PyMem_Free(delta);
    PyMem_Free(base);
    PyMem_Free(both);
    PyMem_Free(table);
    PyMem_Free(acc);
    PyMem_Free(patterns);
    PyMem_Free(gain);
    PyBuffer_Release(&masks);
    PyBuffer_Release(&first);
    return result;
}

/* ------------------------------------------------------------------ */
/* BLEU of summed rows, in the arithmetic of the sums' NumPy dtype      */

enum { SMOOTH_NONE, SMOOTH_FLOOR, SMOOTH_ADD_K, SMOOTH_EXP };
#define LOG_ZERO (-9999999999.0)

/* One precision in float32 arithmetic (sacreBLEU on float32 sums, NumPy 2). */
static double precision32(double c_in, double t_in, int i, int smooth, double k,
                          int in_place, double *divisor, int *alive, int *zero)
{
    float c = (float)c_in, t = (float)t_in;
    if (smooth == SMOOTH_ADD_K && i > 0) {
        /* in place or not, a float32 column stays float32 */
        (void)in_place;
        c = c + (float)k;
        t = t + (float)k;
    }
    *alive = *alive && t != 0.0f;
    *zero = 0;
    if (!*alive)
        return 0.0;
    if (c != 0.0f)
        return (double)((100.0f * c) / t);
    *zero = 1;
    if (smooth == SMOOTH_EXP) {
        *divisor *= 2;
        return (double)(100.0f / ((float)*divisor * t));
    }
    if (smooth == SMOOTH_FLOOR)
        return (double)((float)(100.0 * k) / t);
    return 0.0;
}

/* One precision in float64 arithmetic (integer sums: approximate randomization). */
static double precision64(double c, double t, int i, int smooth, double k,
                          int in_place, double *divisor, int *alive, int *zero)
{
    if (smooth == SMOOTH_ADD_K && i > 0) {
        c = c + k;
        t = t + k;
        if (in_place) {  /* added into an int64 array: truncated back */
            c = trunc(c);
            t = trunc(t);
        }
    }
    *alive = *alive && t != 0.0;
    *zero = 0;
    if (!*alive)
        return 0.0;
    if (c != 0.0)
        return (100.0 * c) / t;
    *zero = 1;
    if (smooth == SMOOTH_EXP) {
        *divisor *= 2;
        return 100.0 / (*divisor * t);
    }
    if (smooth == SMOOTH_FLOOR)
        return (100.0 * k) / t;
    return 0.0;
}

/* bleu_rows(sums, max_order, smooth, smooth_value, effective_order, float32, in_place,
 *           python_sum) -> bytes of doubles
 *
 * What BLEUBatchScorer.score_rows (exact) gives for the int64 rows `sums`
 * holding float32 sums (float32=True) or int64 sums: the same IEEE operations
 * in the same types, math's log/exp (the C library). `python_sum` is the
 * builtin sum (Python >= 3.12 compensates) or None for a left-to-right sum.
 */
PyObject *tb_bleu_rows(PyObject *module, PyObject *args)
{
    PyObject *sums_obj, *python_sum;
    int max_order, smooth, effective_order, float32, in_place;
    double k;
    if (!PyArg_ParseTuple(args, "OiidpppO", &sums_obj, &max_order, &smooth, &k,
                          &effective_order, &float32, &in_place, &python_sum))
        return NULL;
    if (max_order < 1 || max_order > 64 || smooth < SMOOTH_NONE || smooth > SMOOTH_EXP) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= max_order <= 64 and a known smoothing code");
        return NULL;
    }
    if (python_sum == Py_None)
        python_sum = NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(sums_obj, &view, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    const Py_ssize_t width = 2 + 2 * (Py_ssize_t)max_order;
    if (view.len % (8 * width) != 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "sums must be an int64 buffer of rows of 2 + 2 * max_order");
        return NULL;
    }
    const Py_ssize_t rows = view.len / (8 * width);
    PyObject *out = PyBytes_FromStringAndSize(NULL, rows * 8);
    if (out == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    double *scores = (double *)PyBytes_AS_STRING(out);
    double logs[64];
    int zeros[64];
    for (Py_ssize_t r = 0; r < rows; r++) {
        const int64_t *row = (const int64_t *)view.buf + r * width;
        const double sys_len = (double)row[0], ref_len = (double)row[1];
        const int64_t *correct = row + 2, *total = row + 2 + max_order;
        int has_match = 0, alive = 1, eff = max_order;
        double divisor = 1.0, bp = 1.0;
        if (sys_len < ref_len)
            bp = sys_len <= 0 ? 0.0 : exp(1 - ref_len / sys_len);
        for (int i = 0; i < max_order; i++) {
            int zero;
            has_match |= correct[i] != 0;
            double p = (float32 ? precision32 : precision64)(
                (double)correct[i], (double)total[i], i, smooth, k, in_place,
                &divisor, &alive, &zero);
            if (effective_order && alive)
                eff = i + 1;
            zeros[i] = p == 0.0;
            logs[i] = zeros[i] ? LOG_ZERO : log(p);
        }
        if (!has_match) {
            scores[r] = 0.0;
            continue;
        }
        double sum;
        if (python_sum == NULL) {
            sum = logs[0];
            for (int i = 1; i < eff; i++)
                sum += logs[i];
        } else {  /* the builtin, as the scalar code calls it (ints for log(0)) */
            PyObject *terms = PyList_New(eff), *total_obj = NULL;
            for (int i = 0; terms != NULL && i < eff; i++) {
                PyObject *term = zeros[i] ? PyLong_FromDouble(LOG_ZERO) : PyFloat_FromDouble(logs[i]);
                if (term == NULL)
                    Py_CLEAR(terms);
                else
                    PyList_SET_ITEM(terms, i, term);
            }
            if (terms != NULL)
                total_obj = PyObject_CallOneArg(python_sum, terms);
            Py_XDECREF(terms);
            sum = total_obj == NULL ? -1.0 : PyFloat_AsDouble(total_obj);
            Py_XDECREF(total_obj);
            if (PyErr_Occurred()) {
                PyBuffer_Release(&view);
                Py_DECREF(out);
                return NULL;
            }
        }
        scores[r] = bp * exp(sum / eff);
    }
    PyBuffer_Release(&view);
    return out;
}
