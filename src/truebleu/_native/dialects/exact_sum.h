/* truebleu core, dialects: a correctly rounded sum of doubles (plain C, no Python).
 *
 * mteval's NIST adds each segment's information terms exactly and rounds once
 * (the Python specification: math.fsum), so the order of the terms cannot change
 * a bit. The sum is kept as non-overlapping partials (Shewchuk's algorithm); the
 * result is the exact sum rounded to nearest, ties to even: the one double
 * math.fsum returns. Needs IEEE double arithmetic without extended precision
 * (FLT_EVAL_METHOD 0: SSE2 on x86, every 64-bit target). Finite terms only.
 */
#ifndef TB_DIALECTS_EXACT_SUM_H
#define TB_DIALECTS_EXACT_SUM_H

#include <stddef.h>

#include "runtime/status.h"

typedef struct {
    double *partials;
    size_t n, cap;
} tb_exact_sum;

/* Adds x (finite). TB_OK or TB_NOMEM. */
tb_status tb_exact_sum_add(tb_exact_sum *s, double x);

/* The sum so far, correctly rounded; then empty again (the memory is kept). */
double tb_exact_sum_take(tb_exact_sum *s);

void tb_exact_sum_free(tb_exact_sum *s);

#endif
