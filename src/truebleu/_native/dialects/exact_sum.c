/* truebleu core, dialects: a correctly rounded sum of doubles (see exact_sum.h). */
#include "dialects/exact_sum.h"
#include "runtime/memory.h"

#include <math.h>
#include <stdlib.h>

tb_status tb_exact_sum_add(tb_exact_sum *s, double x)
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

double tb_exact_sum_take(tb_exact_sum *s)
{
    size_t n = s->n;
    double hi = 0.0;
    s->n = 0;
    if (n == 0)
        return hi;
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
    return hi;
}

void tb_exact_sum_free(tb_exact_sum *s)
{
    free(s->partials);
    s->partials = NULL;
    s->n = s->cap = 0;
}
