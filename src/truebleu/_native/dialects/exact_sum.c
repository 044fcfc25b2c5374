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

/* The fixed-point integer moved into the partials: its bits [0, 43), [43, 86) and
 * [86, 128) are each at most 43 bits, so each is a double exactly. */
static tb_status flush_fixed(tb_exact_sum *s)
{
    uint64_t parts[3] = {s->lo & ((UINT64_C(1) << 43) - 1), (s->lo >> 43 | s->hi << 21) & ((UINT64_C(1) << 43) - 1),
                         s->hi >> 22};
    for (int k = 0; k < 3; k++)
        if (parts[k] != 0 && add_partial(s, ldexp((double)parts[k], 43 * k - TB_EXACT_SUM_SCALE)) != TB_OK)
            return TB_NOMEM;
    s->lo = s->hi = 0;
    return TB_OK;
}

tb_status tb_exact_sum_add(tb_exact_sum *s, double x)
{
    if (x == 0.0)
        return TB_OK;  /* (nothing to add: the sum of no terms is 0.0) */
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    /* x = mantissa * 2**(exponent - 1075) for a normal x; in units of 2**-SCALE it is
     * mantissa << shift, a whole number when shift >= 0 */
    int exponent = (int)(bits >> 52);  /* (the sign bit included: a negative x is never in range) */
    int shift = exponent - 1075 + TB_EXACT_SUM_SCALE;
    if (exponent == 0 || shift < 0 || shift > TB_EXACT_SUM_TOP + TB_EXACT_SUM_SCALE - 53)
        return add_partial(s, x);
    if (s->hi >> 61 != 0 && flush_fixed(s) != TB_OK)  /* then the sum stays below 2**126 */
        return TB_NOMEM;
    uint64_t mantissa = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
    uint64_t lo = shift < 64 ? mantissa << shift : 0;
    uint64_t hi = shift == 0 ? 0 : shift < 64 ? mantissa >> (64 - shift) : mantissa << (shift - 64);
    s->lo += lo;
    s->hi += hi + (s->lo < lo);
    return TB_OK;
}

tb_status tb_exact_sum_take(tb_exact_sum *s, double *sum)
{
    if ((s->lo | s->hi) != 0 && flush_fixed(s) != TB_OK)
        return TB_NOMEM;
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
