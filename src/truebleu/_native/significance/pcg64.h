/* truebleu core: NumPy's PCG64 stream and its bounded integers, without NumPy
 * (plain C, no Python; the draws of significance/resample.c and of pcg64_*).
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
 */
#ifndef TB_SIGNIFICANCE_PCG64_H
#define TB_SIGNIFICANCE_PCG64_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/portable.h"

#define PCG_MULT_HIGH 2549297995355413924ULL
#define PCG_MULT_LOW 4865540595714422341ULL

#ifdef TB_HAVE_INT128

typedef unsigned __int128 u128;

typedef struct {
    u128 state, inc;
    int has_uint32;
    uint32_t uinteger;
} pcg64;

#define PCG_MULT (((u128)PCG_MULT_HIGH << 64) | PCG_MULT_LOW)

static inline uint64_t pcg64_next64(pcg64 *g)
{
    g->state = g->state * PCG_MULT + g->inc;
    uint64_t x = (uint64_t)(g->state >> 64) ^ (uint64_t)g->state;
    unsigned rot = (unsigned)(g->state >> 122);
    return (x >> rot) | (x << ((64 - rot) & 63));
}

/* The state from 4 words (state high, state low, increment high, increment low),
 * and back. */
static inline void pcg64_set(pcg64 *g, const uint64_t w[4])
{
    g->state = ((u128)w[0] << 64) | w[1];
    g->inc = ((u128)w[2] << 64) | w[3];
}

static inline void pcg64_get(const pcg64 *g, uint64_t w[4])
{
    w[0] = (uint64_t)(g->state >> 64);
    w[1] = (uint64_t)g->state;
    w[2] = (uint64_t)(g->inc >> 64);
    w[3] = (uint64_t)g->inc;
}

#else  /* the same arithmetic on halves of 64 bits */

typedef struct {
    uint64_t state_high, state_low, inc_high, inc_low;
    int has_uint32;
    uint32_t uinteger;
} pcg64;

static inline uint64_t pcg64_next64(pcg64 *g)
{
    /* state * PCG_MULT + inc, mod 2^128: the low product whole, the cross
     * products' low halves into the high word */
    uint64_t high, low = tb_mul_64x64(g->state_low, PCG_MULT_LOW, &high);
    high += g->state_low * PCG_MULT_HIGH + g->state_high * PCG_MULT_LOW;
    g->state_low = low + g->inc_low;
    g->state_high = high + g->inc_high + (g->state_low < low);
    uint64_t x = g->state_high ^ g->state_low;
    unsigned rot = (unsigned)(g->state_high >> 58);
    return (x >> rot) | (x << ((64 - rot) & 63));
}

static inline void pcg64_set(pcg64 *g, const uint64_t w[4])
{
    g->state_high = w[0];
    g->state_low = w[1];
    g->inc_high = w[2];
    g->inc_low = w[3];
}

static inline void pcg64_get(const pcg64 *g, uint64_t w[4])
{
    w[0] = g->state_high;
    w[1] = g->state_low;
    w[2] = g->inc_high;
    w[3] = g->inc_low;
}

#endif

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

/* Lemire's method for integers in [0, range], range < 2^32 - 1, from the product
 * m of a first 32-bit draw and bound = range + 1: the draw is kept unless the
 * product's low half falls below (2^32 - bound) % bound, when it is redrawn
 * from g (rare: fewer than bound in 2^32 draws). */
static inline uint32_t lemire32_finish(pcg64 *g, uint64_t m, uint32_t range)
{
    const uint32_t bound = range + 1;
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

/* integers in [0, range], range < 2^32 - 1: Lemire's method on 32-bit draws */
static inline uint32_t lemire32(pcg64 *g, uint32_t range)
{
    return lemire32_finish(g, (uint64_t)pcg64_next32(g) * (range + 1), range);
}

/* `count` integers in [0, range], range < 2^32 - 1, into out: lemire32 on each
 * draw, with the two 32-bit halves of each 64-bit output used as they come (low,
 * then high) instead of through the spare half (has_uint32, uinteger): the
 * generator's state goes to memory only when a draw is rejected, and a
 * step feeds two draws. The same draws, in the same order, and the same state. */
static inline void lemire32_fill(pcg64 *g, uint32_t range, ptrdiff_t count, int64_t *out)
{
    const uint32_t bound = range + 1;
    int64_t *const end = out + count;
    while (end - out >= 2) {
        if (g->has_uint32) {  /* a spare half first (on entry, or left by a rejection) */
            *out++ = lemire32(g, range);
            continue;
        }
        do {  /* two draws from each output, until a draw may be rejected */
            const uint64_t next = pcg64_next64(g);
            g->uinteger = (uint32_t)(next >> 32);  /* kept, as pcg64_next32 keeps it */
            uint64_t m = (uint64_t)(uint32_t)next * bound;
            if ((uint32_t)m < bound) {  /* the high half is the spare of its redraws */
                g->has_uint32 = 1;
                *out++ = lemire32_finish(g, m, range);
                break;
            }
            *out++ = (uint32_t)(m >> 32);
            m = (next >> 32) * bound;
            if ((uint32_t)m < bound) {  /* its redraws may leave a spare half */
                *out++ = lemire32_finish(g, m, range);
                break;
            }
            *out++ = (uint32_t)(m >> 32);
        } while (end - out >= 2);
    }
    while (out < end)
        *out++ = lemire32(g, range);
}

/* integers in [0, range], 2^32 - 1 < range < 2^64 - 1: Lemire on 64-bit draws */
static inline uint64_t lemire64(pcg64 *g, uint64_t range)
{
    const uint64_t bound = range + 1;
#ifdef TB_HAVE_INT128
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
#else
    uint64_t high, low = tb_mul_64x64(pcg64_next64(g), bound, &high);
    if (low < bound) {
        const uint64_t threshold = (UINT64_MAX - range) % bound;
        while (low < threshold)
            low = tb_mul_64x64(pcg64_next64(g), bound, &high);
    }
    return high;
#endif
}

/* `count` draws of integers(0, range + 1) into `out`, as NumPy's int64 fill does.
 * The generator is copied into a local for the loop and back at the end: through
 * the pointer, the compiler stores the state after every draw (`out` may alias it). */
static inline void bounded_fill(pcg64 *state, uint64_t range, ptrdiff_t count, int64_t *out)
{
    pcg64 local = *state, *g = &local;
    ptrdiff_t i;
    if (range == 0) {
        memset(out, 0, (size_t)count * sizeof *out);
    } else if (range < 0xFFFFFFFFULL) {
        lemire32_fill(g, (uint32_t)range, count, out);
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
    *state = local;
}

#endif
