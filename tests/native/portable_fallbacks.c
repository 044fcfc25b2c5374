/* The standard-C fallbacks of runtime/portable.h and significance/pcg64.h against GCC's
 * builtins and unsigned __int128, on edge cases and pseudo-random inputs (run by
 * tests/native/test_portable_fallbacks.py: cc -std=c11 -DTB_PORTABLE_FALLBACKS, GCC or Clang).
 * Prints "ok <checks>" or the first difference, and exits 0 or 1. */
#include <inttypes.h>
#include <stdio.h>

#include "runtime/portable.h"
#include "significance/pcg64.h"

#ifdef TB_HAVE_INT128
#error "build with -DTB_PORTABLE_FALLBACKS: the fallbacks are what is checked"
#endif

typedef unsigned __int128 ref_u128;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* a value with some structure: random, or near 0, a power of two or a limit */
static uint64_t draw(uint64_t *s)
{
    uint64_t r = splitmix(s);
    switch (r & 7) {
    case 0: return r >> (r >> 58);
    case 1: return (uint64_t)1 << (r >> 58);
    case 2: return UINT64_MAX - (r >> 60);
    case 3: return (uint64_t)INT64_MAX + (r >> 62) - 1;  /* around INT64_MAX and INT64_MIN */
    case 4: return r >> 60;
    default: return splitmix(s);
    }
}

static long checks;

#define CHECK(cond, ...)              \
    do {                              \
        checks++;                     \
        if (!(cond)) {                \
            printf(__VA_ARGS__);      \
            printf("\n");             \
            return 1;                 \
        }                             \
    } while (0)

static uint64_t ref_next64(ref_u128 *state, ref_u128 inc)
{
    const ref_u128 mult = ((ref_u128)PCG_MULT_HIGH << 64) | PCG_MULT_LOW;
    *state = *state * mult + inc;
    uint64_t x = (uint64_t)(*state >> 64) ^ (uint64_t)*state;
    unsigned rot = (unsigned)(*state >> 122);
    return (x >> rot) | (x << ((64 - rot) & 63));
}

int main(void)
{
    uint64_t seed = 20261125;
    for (int i = 0; i < 2000000; i++) {
        const uint64_t a = draw(&seed), b = draw(&seed);
        if (a) {
            CHECK(tb_ctz64_portable(a) == __builtin_ctzll(a), "ctz64 %" PRIx64, a);
            CHECK(TB_CTZ32((uint32_t)a | 0x80000000u) == __builtin_ctz((uint32_t)a | 0x80000000u),
                  "ctz32 %" PRIx64, a);
        }
        uint64_t hi, lo = tb_mul_64x64(a, b, &hi);
        const ref_u128 p = (ref_u128)a * b;
        CHECK(lo == (uint64_t)p && hi == (uint64_t)(p >> 64), "mul %" PRIx64 " %" PRIx64, a, b);
        const int64_t x = (int64_t)a, y = (int64_t)b;
        int64_t r, e;
        int o = TB_ADD_OVERFLOW_I64(x, y, &r), eo = __builtin_add_overflow(x, y, &e);
        CHECK(o == eo && r == e, "add %" PRId64 " %" PRId64, x, y);
        o = TB_SUB_OVERFLOW_I64(x, y, &r);
        eo = __builtin_sub_overflow(x, y, &e);
        CHECK(o == eo && r == e, "sub %" PRId64 " %" PRId64, x, y);
    }
    /* PCG64 streams: the fallback's state and draws against the 128-bit reference */
    for (int stream = 0; stream < 64; stream++) {
        uint64_t w[4] = {draw(&seed), draw(&seed), draw(&seed), draw(&seed) | 1};
        pcg64 g = {0};
        pcg64_set(&g, w);
        ref_u128 state = ((ref_u128)w[0] << 64) | w[1], inc = ((ref_u128)w[2] << 64) | w[3];
        for (int k = 0; k < 20000; k++)
            CHECK(pcg64_next64(&g) == ref_next64(&state, inc), "pcg64 stream %d draw %d", stream, k);
        uint64_t back[4];
        pcg64_get(&g, back);
        CHECK(back[0] == (uint64_t)(state >> 64) && back[1] == (uint64_t)state && back[2] == w[2]
                  && back[3] == w[3], "pcg64 state of stream %d", stream);
        /* lemire64 on 64-bit ranges: the reference's multiply-shift on the same draws */
        const uint64_t range = (draw(&seed) | 0x100000000ull) - 1;
        pcg64 g2 = g;
        ref_u128 s2 = state;
        for (int k = 0; k < 2000; k++) {
            const uint64_t got = lemire64(&g2, range), bound = range + 1;
            ref_u128 m = (ref_u128)ref_next64(&s2, inc) * bound;
            const uint64_t threshold = (UINT64_MAX - range) % bound;
            while ((uint64_t)m < bound && (uint64_t)m < threshold)
                m = (ref_u128)ref_next64(&s2, inc) * bound;
            CHECK(got == (uint64_t)(m >> 64), "lemire64 stream %d draw %d", stream, k);
        }
    }
    printf("ok %ld\n", checks);
    return 0;
}
