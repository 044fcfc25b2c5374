/* truebleu core, dialects: a correctly rounded sum of doubles (see exact_sum.h). */
#include "dialects/exact_sum.h"
#include "runtime/memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* x added to the partials (the general accumulator). */
static tb_status add_partial(tb_exact_sum *s, double x)
{
    if (GROW(s->partials, s->cap, s->n + 1) < 0)
        return TB_NOMEM;
    size_t kept = 0;
    for (size_t j = 0; j < s->n; j++) {
        double y = s->partials[j];
        if (fabs(x) < fabs(y)) {
            double t = x;
            x = y;
            y = t;
        }
        double hi = x + y;
        double lo = y - (hi - x);  /* exact: hi + lo == x + y */
        if (lo != 0.0)
            s->partials[kept++] = lo;
        x = hi;
    }
    s->partials[kept] = x;
    s->n = kept + 1;
    return TB_OK;
}

#if TB_EXACT_SUM_SCALE != 88
#error "fixed_parts' powers of two are those of TB_EXACT_SUM_SCALE 88"
#endif

/* The fixed-point integer's bits [0, 43), [43, 86) and [86, 128): each at most 43 bits, so
 * each times its power of two is a double exactly; in increasing order, none overlapping. */
static void fixed_parts(const tb_exact_sum *s, double parts[3])
{
    uint64_t mask = (UINT64_C(1) << 43) - 1;
    parts[0] = (double)(s->lo & mask) * 0x1p-88;  /* 2**-SCALE, 2**(43 - SCALE), 2**(86 - SCALE): */
    parts[1] = (double)((s->lo >> 43 | s->hi << 21) & mask) * 0x1p-45;  /* (exact products) */
    parts[2] = (double)(s->hi >> 22) * 0x1p-2;
}

/* The fixed-point integer moved into the partials. */
static tb_status flush_fixed(tb_exact_sum *s)
{
    double parts[3];
    fixed_parts(s, parts);
    s->lo = s->hi = 0;
    for (int k = 0; k < 3; k++)
        if (parts[k] != 0.0 && add_partial(s, parts[k]) != TB_OK)
            return TB_NOMEM;
    return TB_OK;
}

tb_status tb_exact_sum_add_slow(tb_exact_sum *s, double x)
{
    if (x == 0.0)
        return TB_OK;  /* (nothing to add: the sum of no terms is 0.0) */
    if (s->hi >> 61 != 0) {  /* the integer moves to the partials: then the sum stays below 2**126 */
        if (flush_fixed(s) != TB_OK)
            return TB_NOMEM;
        return tb_exact_sum_add(s, x);
    }
    return add_partial(s, x);
}

tb_status tb_exact_sum_take(tb_exact_sum *s, double *sum)
{
    if ((s->lo | s->hi) != 0) {
        if (s->n == 0) {  /* (the usual case: the integer's parts are the partials as they are) */
            if (GROW(s->partials, s->cap, 3) < 0)
                return TB_NOMEM;
            double parts[3];
            fixed_parts(s, parts);
            s->lo = s->hi = 0;
            for (int k = 0; k < 3; k++)
                if (parts[k] != 0.0)
                    s->partials[s->n++] = parts[k];
        } else if (flush_fixed(s) != TB_OK) {
            return TB_NOMEM;
        }
    }
    size_t n = s->n;
    double hi = 0.0;
    s->n = 0;
    if (n == 0) {
        *sum = hi;
        return TB_OK;
    }
    hi = s->partials[--n];
    double lo = 0.0;
    /* add the partials from the largest down until the rounding loses something */
    while (n > 0) {
        double x = hi;
        double y = s->partials[--n];
        hi = x + y;
        lo = y - (hi - x);
        if (lo != 0.0)
            break;
    }
    /* hi + lo rounded to even may be wrong when lo is exactly half an ulp and the
     * partials below push the same way: then the true sum is past the halfway point */
    if (n > 0 && ((lo < 0.0 && s->partials[n - 1] < 0.0) || (lo > 0.0 && s->partials[n - 1] > 0.0))) {
        double y = lo * 2.0;
        double x = hi + y;
        if (y == x - hi)
            hi = x;
    }
    *sum = hi;
    return TB_OK;
}

void tb_exact_sum_free(tb_exact_sum *s)
{
    free(s->partials);
    memset(s, 0, sizeof *s);
}
