/* truebleu core, dialects: a correctly rounded sum of doubles (plain C, no Python).
 *
 * mteval's NIST adds each segment's information terms exactly and rounds once
 * (the Python specification: math.fsum), so the order of the terms cannot change
 * a bit. The result is the exact sum rounded to nearest, ties to even: the one
 * double math.fsum returns. Needs IEEE double arithmetic without extended
 * precision (FLT_EVAL_METHOD 0: SSE2 on x86, every 64-bit target). Finite terms only.
 *
 * Two exact accumulators hold the sum between them:
 * - a fixed-point one, a 128-bit integer count of 2**-TB_EXACT_SUM_SCALE (two uint64
 *   limbs): every positive normal double from 2**(52 - TB_EXACT_SUM_SCALE) up to
 *   below 2**TB_EXACT_SUM_TOP is a whole number of those units, so adding it there is
 *   an integer addition. NIST's terms (a weight from 0 to 32 times a small count)
 *   always are, at any corpus size up to 2**32 words (the smallest nonzero weight is
 *   about 2**-33: -log2(1 - 2**-32));
 * - the general one for any other term (zero, negative, tiny, huge): non-overlapping
 *   partials (Shewchuk's algorithm).
 * Taking the sum moves the fixed-point integer into the partials as three doubles,
 * each exactly a part of it, and rounds the partials once.
 */
#ifndef TB_DIALECTS_EXACT_SUM_H
#define TB_DIALECTS_EXACT_SUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/status.h"

#define TB_EXACT_SUM_SCALE 88 /* the fixed-point unit: 2**-88 */
#define TB_EXACT_SUM_TOP 37   /* the fixed-point terms: below 2**37 */

typedef struct {
    double *partials;
    size_t n, cap;
    uint64_t lo, hi; /* the fixed-point integer: hi * 2**64 + lo, below 2**126 */
} tb_exact_sum;

/* Adds x to the partials, or to the integer after moving it there first (the
 * out-of-line cases of tb_exact_sum_add). TB_OK or TB_NOMEM. */
tb_status tb_exact_sum_add_slow(tb_exact_sum *s, double x);

/* Adds x (finite). TB_OK or TB_NOMEM. Inline: the fixed-point case is a few integer
 * instructions, as NIST's terms are. */
static inline tb_status tb_exact_sum_add(tb_exact_sum *s, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    /* a positive normal x = mantissa * 2**(exponent - 1075); in units of 2**-SCALE it is
     * mantissa << shift, a whole number when shift >= 0 (the sign bit, the zero and
     * subnormal exponent 0 all put shift out of range) */
    int shift = (int)(bits >> 52) - 1075 + TB_EXACT_SUM_SCALE;
    if ((unsigned)shift > (unsigned)(TB_EXACT_SUM_TOP + TB_EXACT_SUM_SCALE - 53) || s->hi >> 61 != 0)
        return x == 0.0 ? TB_OK : tb_exact_sum_add_slow(s, x);  /* (many of NIST's weights are 0) */
    uint64_t mantissa = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
    uint64_t lo = shift < 64 ? mantissa << shift : 0;
    uint64_t hi = shift < 64 ? (mantissa >> 1) >> (63 - shift) : mantissa << (shift - 64);
    s->lo += lo;
    s->hi += hi + (s->lo < lo);  /* (below 2**125 before, each term too: no overflow) */
    return TB_OK;
}

/* The sum so far, correctly rounded; then empty again (the memory is kept). TB_OK or
 * TB_NOMEM (then *sum is not set). */
tb_status tb_exact_sum_take(tb_exact_sum *s, double *sum);

void tb_exact_sum_free(tb_exact_sum *s);

#endif
