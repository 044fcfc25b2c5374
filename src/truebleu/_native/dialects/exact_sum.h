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

#include "runtime/status.h"

#define TB_EXACT_SUM_SCALE 88 /* the fixed-point unit: 2**-88 */
#define TB_EXACT_SUM_TOP 37   /* the fixed-point terms: below 2**37 */

typedef struct {
    double *partials;
    size_t n, cap;
    uint64_t lo, hi; /* the fixed-point integer: hi * 2**64 + lo, below 2**126 */
} tb_exact_sum;

/* Adds x (finite). TB_OK or TB_NOMEM. */
tb_status tb_exact_sum_add(tb_exact_sum *s, double x);

/* The sum so far, correctly rounded; then empty again (the memory is kept). TB_OK or
 * TB_NOMEM (then *sum is not set). */
tb_status tb_exact_sum_take(tb_exact_sum *s, double *sum);

void tb_exact_sum_free(tb_exact_sum *s);

#endif
