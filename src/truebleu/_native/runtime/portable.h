/* truebleu core runtime: what C compilers differ in (plain C, no Python).
 *
 * The core is C11 plus, where the compiler has them, GCC's extensions (GCC,
 * Clang, MinGW-w64, zig cc): 128-bit integers, builtins (ctz, checked
 * arithmetic, prefetch, __builtin_constant_p) and vectors (resample.c); and on
 * x86-64 SSE2 intrinsics (the text scanners). Every such fast path has a
 * fallback in standard C that computes the same results, bit for bit; MSVC
 * uses the C fallbacks (with SSE2), ARM the SSE2 paths' fallbacks. A build with
 * TB_PORTABLE_FALLBACKS defined (TRUEBLEU_PORTABLE_FALLBACKS=1 at build time,
 * see setup.py) uses every fallback, SSE2's included, on any compiler, and the
 * native tests run on such a build (tests/native/test_portable_fallbacks.py).
 *
 * Attributes that only steer inlining (TB_NOINLINE, TB_ALWAYS_INLINE) follow
 * the compiler alone: they change no result. Threads are runtime/threads.h,
 * atomics runtime/atomics.h.
 */
#ifndef TB_RUNTIME_PORTABLE_H
#define TB_RUNTIME_PORTABLE_H

#include <stdint.h>

/* GCC's extensions: the fast paths (TB_PORTABLE_FALLBACKS: none) */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(TB_PORTABLE_FALLBACKS)
#define TB_GNU_EXTENSIONS 1
#endif
#if defined(TB_GNU_EXTENSIONS) && defined(__SIZEOF_INT128__)
#define TB_HAVE_INT128 1
#endif

/* SSE2 intrinsics (<emmintrin.h>): every x86-64 compiler has them (MSVC does
 * not say so with __SSE2__); without them, the paths ARM takes */
#if (defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64)) && !defined(TB_PORTABLE_FALLBACKS)
#define TB_HAVE_SSE2 1
#endif

/* The byte order, where the compiler tells it (Windows: always little-endian);
 * code that needs it has a path for neither. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define TB_BIG_ENDIAN 1
#elif (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) || defined(_WIN32)
#define TB_LITTLE_ENDIAN 1
#endif

/* inlining (no effect on any result) */
#if defined(__GNUC__) || defined(__clang__)
#define TB_NOINLINE __attribute__((noinline))
#define TB_ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define TB_NOINLINE __declspec(noinline)
#define TB_ALWAYS_INLINE __forceinline
#else
#define TB_NOINLINE
#define TB_ALWAYS_INLINE inline
#endif

/* A hint to fetch the memory at p (no effect on any result; never evaluates p
 * without GCC's builtins). */
#ifdef TB_GNU_EXTENSIONS
#define TB_PREFETCH(p) __builtin_prefetch(p)
#else
#define TB_PREFETCH(p) ((void)0)
#endif

/* 1 if the compiler knows x as a constant here (may be 0 where it is: only a
 * choice between two equivalent paths may depend on it) */
#ifdef TB_GNU_EXTENSIONS
#define TB_CONSTANT_P(x) __builtin_constant_p(x)
#else
#define TB_CONSTANT_P(x) 0
#endif

/* The number of trailing zero bits of x != 0 (an int; GCC's builtins as
 * macros: an inline function changes how GCC inlines the scanners around it). */
#ifdef TB_GNU_EXTENSIONS
#define TB_CTZ64(x) __builtin_ctzll(x)
#define TB_CTZ32(x) __builtin_ctz(x)
#else
#define TB_CTZ64(x) tb_ctz64_portable(x)
#define TB_CTZ32(x) tb_ctz64_portable(x)
#endif

static inline int tb_ctz64_portable(uint64_t x)
{
    /* the lowest set bit times a de Bruijn sequence: its top 6 bits are unique */
    static const unsigned char index64[64] = {
        0,  1,  2,  53, 3,  7,  54, 27, 4,  38, 41, 8,  34, 55, 48, 28, 62, 5,  39, 46, 44, 42,
        22, 9,  24, 35, 59, 56, 49, 18, 29, 11, 63, 52, 6,  26, 37, 40, 33, 47, 61, 45, 43, 21,
        23, 58, 17, 10, 51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12};
    return index64[((x & (0 - x)) * UINT64_C(0x022FDD63CC95386D)) >> 58];
}

/* The 128-bit product of a and b: the low half, and the high half in *hi. */
static inline uint64_t tb_mul_64x64(uint64_t a, uint64_t b, uint64_t *hi)
{
#ifdef TB_HAVE_INT128
    unsigned __int128 r = (unsigned __int128)a * b;
    *hi = (uint64_t)(r >> 64);
    return (uint64_t)r;
#else
    /* four 32x32 -> 64 products (schoolbook) */
    const uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;  /* < 3 * 2^32 */
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return (mid << 32) | (uint32_t)p00;
#endif
}

/* Checked int64 arithmetic: *r = a + b (a - b), wrapped as two's complement;
 * 1 if the exact result does not fit in int64, else 0 (with GCC's builtins: a,
 * b and *r are int64_t at every use). */
#ifdef TB_GNU_EXTENSIONS
#define TB_ADD_OVERFLOW_I64(a, b, r) __builtin_add_overflow(a, b, r)
#define TB_SUB_OVERFLOW_I64(a, b, r) __builtin_sub_overflow(a, b, r)
#else
#define TB_ADD_OVERFLOW_I64(a, b, r) tb_add_overflow_i64_portable(a, b, r)
#define TB_SUB_OVERFLOW_I64(a, b, r) tb_sub_overflow_i64_portable(a, b, r)
#endif

/* The compiler that built the core and whether every fallback is forced, for
 * `truebleu --version` (module.c exports them as COMPILER and PORTABLE_FALLBACKS). */
#define TB_STRINGIFY_(x) #x
#define TB_STRINGIFY(x) TB_STRINGIFY_(x)
#if defined(__clang__)
#define TB_COMPILER "Clang " __clang_version__
#elif defined(__MINGW64__) || defined(__MINGW32__)
#define TB_COMPILER "MinGW-w64 GCC " __VERSION__
#elif defined(__GNUC__)
#define TB_COMPILER "GCC " __VERSION__
#elif defined(_MSC_VER)
#define TB_COMPILER "MSVC " TB_STRINGIFY(_MSC_FULL_VER)
#else
#define TB_COMPILER "an unnamed C11 compiler"
#endif
#ifdef TB_PORTABLE_FALLBACKS
#define TB_FALLBACKS_FORCED 1
#else
#define TB_FALLBACKS_FORCED 0
#endif

static inline int tb_add_overflow_i64_portable(int64_t a, int64_t b, int64_t *r)
{
    const int64_t s = (int64_t)((uint64_t)a + (uint64_t)b);
    *r = s;
    return ((a ^ s) & (b ^ s)) < 0;  /* a and b of one sign, the sum of the other */
}

static inline int tb_sub_overflow_i64_portable(int64_t a, int64_t b, int64_t *r)
{
    const int64_t d = (int64_t)((uint64_t)a - (uint64_t)b);
    *r = d;
    return ((a ^ b) & (a ^ d)) < 0;  /* a and b of opposite signs, the difference of b's */
}

#endif
