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

/* pcg_u128: a 128-bit unsigned integer (the state, the increment, a jump's
 * constants), with the only arithmetic PCG64 needs: x * m + p mod 2^128. */
#ifdef TB_HAVE_INT128

typedef unsigned __int128 pcg_u128;

static inline pcg_u128 pcg_u128_of(uint64_t high, uint64_t low)
{
    return ((pcg_u128)high << 64) | low;
}

static inline uint64_t pcg_high(pcg_u128 x) { return (uint64_t)(x >> 64); }
static inline uint64_t pcg_low(pcg_u128 x) { return (uint64_t)x; }

static inline pcg_u128 pcg_muladd(pcg_u128 x, pcg_u128 m, pcg_u128 p)
{
    return x * m + p;
}

#else  /* the same arithmetic on halves of 64 bits */

typedef struct {
    uint64_t high, low;
} pcg_u128;

static inline pcg_u128 pcg_u128_of(uint64_t high, uint64_t low)
{
    pcg_u128 x = {high, low};
    return x;
}

static inline uint64_t pcg_high(pcg_u128 x) { return x.high; }
static inline uint64_t pcg_low(pcg_u128 x) { return x.low; }

static inline pcg_u128 pcg_muladd(pcg_u128 x, pcg_u128 m, pcg_u128 p)
{
    /* the low product whole, the cross products' low halves into the high word */
    uint64_t high, low = tb_mul_64x64(x.low, m.low, &high);
    high += x.low * m.high + x.high * m.low;
    pcg_u128 r;
    r.low = low + p.low;
    r.high = high + p.high + (r.low < low);
    return r;
}

#endif

#define PCG_MULT pcg_u128_of(PCG_MULT_HIGH, PCG_MULT_LOW)

typedef struct {
    pcg_u128 state, inc;
    int has_uint32;
    uint32_t uinteger;
} pcg64;

/* the output of a state: the xor of its halves rotated by its top 6 bits */
static inline uint64_t pcg64_output(pcg_u128 state)
{
    uint64_t x = pcg_high(state) ^ pcg_low(state);
    unsigned rot = (unsigned)(pcg_high(state) >> 58);
    return (x >> rot) | (x << ((64 - rot) & 63));
}

static inline uint64_t pcg64_next64(pcg64 *g)
{
    g->state = pcg_muladd(g->state, PCG_MULT, g->inc);
    return pcg64_output(g->state);
}

/* The state from 4 words (state high, state low, increment high, increment low),
 * and back. */
static inline void pcg64_set(pcg64 *g, const uint64_t w[4])
{
    g->state = pcg_u128_of(w[0], w[1]);
    g->inc = pcg_u128_of(w[2], w[3]);
}

static inline void pcg64_get(const pcg64 *g, uint64_t w[4])
{
    w[0] = pcg_high(g->state);
    w[1] = pcg_low(g->state);
    w[2] = pcg_high(g->inc);
    w[3] = pcg_low(g->inc);
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

/* `count` integers in [0, range], range < 2^32 - 1, into out (the bootstrap's
 * draws): lemire32 on each draw, with the two 32-bit halves of each 64-bit output
 * used as they come (low, then high) instead of through the spare half
 * (has_uint32, uinteger), which is used only around a draw that may be rejected.
 * A step is a 128-bit multiply-add on the previous state, so one stream waits
 * for each product in turn; the LCG's two-step jump lets two lanes make the
 * outputs k and k + 1 side by side (four lanes filling a buffer of outputs
 * were tried too: slower than one stream, the buffer costing more than the
 * wait). The same draws, in the same order, and the same final state as
 * lemire32 one draw at a time. */
static inline void lemire32_fill(pcg64 *g, uint32_t range, ptrdiff_t count, int64_t *out)
{
    const uint32_t bound = range + 1;
    int64_t *const end = out + count;
    /* two steps at once: state_(k+2) = a^2 state_k + inc (a + 1) */
    const pcg_u128 mult2 = pcg_muladd(PCG_MULT, PCG_MULT, pcg_u128_of(0, 0));
    const pcg_u128 plus2 = pcg_muladd(g->inc, PCG_MULT, g->inc);
    while (end - out >= 2) {
        if (g->has_uint32) {  /* a spare half first (on entry, or left by a rejection) */
            *out++ = lemire32(g, range);
            continue;
        }
        uint64_t next;
        if (end - out >= 6) {
            /* Four draws from two outputs at a time, made by two lanes (the states of
             * outputs k and k + 1, each stepping two at a time: neither waits for the
             * other's product), while no draw may be rejected and two draws are left
             * for output k after them. */
            pcg_u128 lane0 = pcg_muladd(g->state, PCG_MULT, g->inc);
            pcg_u128 lane1 = pcg_muladd(lane0, PCG_MULT, g->inc);
            while (end - out >= 6) {
                const uint64_t x0 = pcg64_output(lane0), x1 = pcg64_output(lane1);
                const uint64_t m0 = (uint64_t)(uint32_t)x0 * bound, m1 = (x0 >> 32) * bound;
                const uint64_t m2 = (uint64_t)(uint32_t)x1 * bound, m3 = (x1 >> 32) * bound;
                if (((uint32_t)m0 < bound) | ((uint32_t)m1 < bound) | ((uint32_t)m2 < bound)
                    | ((uint32_t)m3 < bound))
                    break;
                out[0] = (uint32_t)(m0 >> 32);
                out[1] = (uint32_t)(m1 >> 32);
                out[2] = (uint32_t)(m2 >> 32);
                out[3] = (uint32_t)(m3 >> 32);
                out += 4;
                lane0 = pcg_muladd(lane0, mult2, plus2);
                lane1 = pcg_muladd(lane1, mult2, plus2);
            }
            g->state = lane0;  /* output k: its draws follow */
            next = pcg64_output(lane0);
        } else {
            next = pcg64_next64(g);
        }
        /* one output's two draws, one at a time */
        g->uinteger = (uint32_t)(next >> 32);  /* kept, as pcg64_next32 keeps it */
        uint64_t m = (uint64_t)(uint32_t)next * bound;
        if ((uint32_t)m < bound) {  /* the high half is the spare of its redraws */
            g->has_uint32 = 1;
            *out++ = lemire32_finish(g, m, range);
            continue;
        }
        *out++ = (uint32_t)(m >> 32);
        m = (next >> 32) * bound;
        *out++ = (uint32_t)m < bound ? lemire32_finish(g, m, range) : (uint32_t)(m >> 32);
    }
    while (out < end)
        *out++ = lemire32(g, range);
}

/* integers in [0, range], 2^32 - 1 < range < 2^64 - 1: Lemire on 64-bit draws */
static inline uint64_t lemire64(pcg64 *g, uint64_t range)
{
    const uint64_t bound = range + 1;
#ifdef TB_HAVE_INT128
    unsigned __int128 m = (unsigned __int128)pcg64_next64(g) * bound;
    uint64_t low = (uint64_t)m;
    if (low < bound) {
        const uint64_t threshold = (UINT64_MAX - range) % bound;
        while (low < threshold) {
            m = (unsigned __int128)pcg64_next64(g) * bound;
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
