/* truebleu core: BLEU of one statistics row (plain C, no Python): the one
 * implementation behind bleu_scores, the scores of cross_statistics and the
 * resampling's bleu_rows.
 *
 * sacreBLEU's BLEU.compute_bleu, operation for operation (the brevity
 * penalty, the smoothed precisions, the mean of their logs with -9999999999
 * for a zero precision), so that the result is the same double. What differs
 * between the callers is the arithmetic sacreBLEU ran in, which decides the
 * roundings, so it is a parameter:
 *
 *   TB_BLEU_F64        Python floats from int counts: compute_bleu on a list
 *                      (bleu_scores, cross_statistics), or on NumPy int64 sums
 *                      (approximate randomization: int64 / float64 is float64);
 *   TB_BLEU_F64_TRUNC  the same, but add-k smoothing adds into the int64
 *                      columns in place, which truncates (BLEUBatchScorer with
 *                      in_place=True on int64 sums);
 *   TB_BLEU_F32        NumPy 2's float32 arithmetic on float32 sums (the
 *                      bootstrap's): each precision is a float32 quotient, the
 *                      add-k, floor and exp terms float32 too (NEP 50: a Python
 *                      float operand does not widen a float32 array).
 *
 * Why not one type for all: a float32 quotient is not the float64 quotient
 * rounded once more, and sacreBLEU's result keeps those float32 roundings, so
 * the float32 variant must really compute in float. The function is a header
 * template, always inlined, and every caller passes a constant arithmetic, so
 * each call site compiles to the straight code of its own arithmetic (the
 * per-cell score of a matrix costs what it did before there were three).
 *
 * A caller that scores many short sentences may pass a tb_log_memo: the logs
 * of the precisions of small counts and the brevity penalties of short
 * sentences, each computed once (the same function of the same double, so the
 * same result).
 */
#ifndef TB_BLEU_SCORE_H
#define TB_BLEU_SCORE_H

#include <math.h>
#include <stdint.h>

#include "runtime/portable.h"

enum { TB_SMOOTH_NONE = 0, TB_SMOOTH_FLOOR = 1, TB_SMOOTH_ADD_K = 2, TB_SMOOTH_EXP = 3 };

/* sacreBLEU's log of a zero precision */
#define TB_LOG_ZERO (-9999999999.0)

typedef enum { TB_BLEU_F64, TB_BLEU_F64_TRUNC, TB_BLEU_F32 } tb_bleu_arith;

typedef struct {
    int max_order;        /* N: the row is [sys_len, ref_len, matches_1..N, totals_1..N] */
    int smooth;           /* TB_SMOOTH_* */
    double smooth_value;  /* floor's and add-k's value */
    int effective_order;  /* average over the orders with n-grams only */
} tb_bleu_params;

/* Totals (and reference lengths) below this have their precisions' logs (and
 * brevity penalties) kept in a tb_log_memo. */
#define TB_LOG_MEMO_TOTALS 64

/* What a worker that scores many short sentences keeps from score to score:
 *
 * logs[t * (t + 1) / 2 + c]: log(100. * c / t), the log of a precision of the
 * F64 arithmetic with c matches of t n-grams and no add-k, for
 * 1 <= c <= t < TB_LOG_MEMO_TOTALS;
 * penalties[r * (r - 1) / 2 + c - 1]: exp(1 - r / c), the brevity penalty of a
 * hypothesis of c tokens against a closest reference length r, 1 <= c < r <
 * TB_LOG_MEMO_TOTALS;
 *
 * each 0.0 until it is first asked for (every such value is positive: a
 * precision here is at least 100 / 63, a penalty at least exp(-62)), then the
 * same function of the same double (the same bits). A sentence's counts are
 * small and repeat from sentence to sentence: 20,000 WMT21 sentences ask for
 * about 54,000 such logs, of under 1,500 pairs (c, t), and about 6,500
 * penalties; a log or an exp costs about 50 instructions, a look here about
 * 15. One per worker (not shared). */
typedef struct {
    double logs[TB_LOG_MEMO_TOTALS * (TB_LOG_MEMO_TOTALS + 1) / 2];
    double penalties[TB_LOG_MEMO_TOTALS * (TB_LOG_MEMO_TOTALS - 1) / 2];
} tb_log_memo;

/* Whether a tb_log_memo keeps the log of c matches of t n-grams: 1 <= c <= t < TB_LOG_MEMO_TOTALS. */
static TB_ALWAYS_INLINE int tb_memo_keeps(int64_t c, int64_t t)
{
    return (uint64_t)c - 1 < (uint64_t)t && (uint64_t)t < TB_LOG_MEMO_TOTALS;
}

/* log(100. * c / t) (tb_memo_keeps(c, t)), computed the first time only. */
static TB_ALWAYS_INLINE double tb_memo_log(tb_log_memo *memo, int64_t c, int64_t t)
{
    double *slot = &memo->logs[t * (t + 1) / 2 + c];
    if (*slot == 0.0)
        *slot = log(100. * (double)c / (double)t);  /* (tb_bleu_precision's quotient) */
    return *slot;
}

/* exp(1 - r / c) (1 <= c < r < TB_LOG_MEMO_TOTALS), computed the first time only. */
static TB_ALWAYS_INLINE double tb_memo_penalty(tb_log_memo *memo, int64_t c, int64_t r)
{
    double *slot = &memo->penalties[r * (r - 1) / 2 + c - 1];
    if (*slot == 0.0)
        *slot = exp(1 - (double)r / (double)c);  /* (tb_bleu_terms' penalty) */
    return *slot;
}

/* Precision n (1-based) from its matches c and total t, in the arithmetic
 * `arith`, the smoothing's divisor updated: 0.0 for a zero precision; *stop
 * set when the total is zero (this and every higher order count as zero, and
 * no longer as part of the effective order). */
static TB_ALWAYS_INLINE double
tb_bleu_precision(int64_t matches, int64_t total, int n, int smooth, double k, tb_bleu_arith arith,
                  double *divisor, int *stop)
{
    if (arith == TB_BLEU_F32) {
        float c = (float)(double)matches, t = (float)(double)total;  /* (via double, as the sums were) */
        if (smooth == TB_SMOOTH_ADD_K && n > 1) {
            c = c + (float)k;
            t = t + (float)k;
        }
        if (t == 0.0f) {
            *stop = 1;
            return 0.0;
        }
        if (c != 0.0f)
            return (double)((100.0f * c) / t);
        if (smooth == TB_SMOOTH_EXP) {
            *divisor *= 2;
            return (double)(100.0f / ((float)*divisor * t));
        }
        if (smooth == TB_SMOOTH_FLOOR)
            return (double)((float)(100.0 * k) / t);
        return 0.0;
    }
    double c = (double)matches, t = (double)total;
    if (smooth == TB_SMOOTH_ADD_K && n > 1) {
        c += k;
        t += k;
        if (arith == TB_BLEU_F64_TRUNC) {  /* added into an int64 array: truncated back */
            c = trunc(c);
            t = trunc(t);
        }
    }
    if (t == 0) {
        *stop = 1;
        return 0.0;
    }
    if (c != 0)
        return 100. * c / t;
    if (smooth == TB_SMOOTH_EXP) {
        *divisor *= 2;
        return 100. / (*divisor * t);
    }
    if (smooth == TB_SMOOTH_FLOOR)
        return 100. * k / t;
    return 0.0;
}

/* The terms of BLEU of `row`: 0 when no order has a match (the BLEU is 0.0,
 * nothing else is set); else 1, with *bp the brevity penalty, *eff the number
 * of orders averaged, *sum the sum of their logs added left to right from 0.0
 * as Python's sum() before 3.12 (0.0 + x is x: the same as starting from the
 * first), and, unless logs is NULL, logs[0 .. *eff) the logs themselves
 * (TB_LOG_ZERO for a zero precision; logs must hold max_order doubles). */
static TB_ALWAYS_INLINE int
tb_bleu_terms_memo(const int64_t *row, const tb_bleu_params *p, tb_bleu_arith arith, tb_log_memo *memo, double *logs,
                   double *sum, int *eff, double *bp)
{
    const int N = p->max_order, smooth = p->smooth, effective_order = p->effective_order;
    const double k = p->smooth_value;  /* (in locals: the stores to logs could alias p's fields) */
    const int64_t *correct = row + 2, *total = row + 2 + N;
    int any = 0;
    for (int i = 0; i < N; i++)
        any |= correct[i] != 0;
    if (!any)
        return 0;
    const int64_t sys_len = row[0], ref_len = row[1];
    double penalty = 1.0;
    if (sys_len < ref_len) {
        if (memo && sys_len > 0 && ref_len < TB_LOG_MEMO_TOTALS)
            penalty = tb_memo_penalty(memo, sys_len, ref_len);
        else
            penalty = sys_len > 0 ? exp(1 - (double)ref_len / (double)sys_len) : 0.0;
    }
    double divisor = 1.0, log_sum = 0.0;
    int orders = N, n = 1, stop = 0;
    for (; n <= N; n++) {
        double term;
        if (memo && arith == TB_BLEU_F64 && !(smooth == TB_SMOOTH_ADD_K && n > 1) &&
            tb_memo_keeps(correct[n - 1], total[n - 1])) {
            term = tb_memo_log(memo, correct[n - 1], total[n - 1]);  /* (a nonzero precision) */
        } else {
            double prec = tb_bleu_precision(correct[n - 1], total[n - 1], n, smooth, k, arith, &divisor, &stop);
            if (stop)
                break;
            term = prec == 0.0 ? TB_LOG_ZERO : log(prec);
        }
        if (effective_order)
            orders = n;
        if (logs)
            logs[n - 1] = term;
        log_sum += term;
    }
    for (int i = n - 1; i < orders; i++) {  /* orders past a zero total (not effective_order) */
        if (logs)
            logs[i] = TB_LOG_ZERO;
        log_sum += TB_LOG_ZERO;
    }
    *eff = orders;
    *sum = log_sum;
    *bp = penalty;
    return 1;
}

/* tb_bleu_terms_memo without a memo. */
static TB_ALWAYS_INLINE int
tb_bleu_terms(const int64_t *row, const tb_bleu_params *p, tb_bleu_arith arith, double *logs, double *sum, int *eff,
              double *bp)
{
    return tb_bleu_terms_memo(row, p, arith, NULL, logs, sum, eff, bp);
}

/* BLEU of `row`, its logs added left to right; memo: NULL, or (F64) the
 * precisions' logs and the brevity penalties kept (tb_log_memo). */
static TB_ALWAYS_INLINE double
tb_bleu_of_row_memo(const int64_t *row, const tb_bleu_params *p, tb_bleu_arith arith, tb_log_memo *memo)
{
    double bp, sum;
    int eff;
    if (!tb_bleu_terms_memo(row, p, arith, memo, NULL, &sum, &eff, &bp))
        return 0.0;
    return bp * exp(sum / eff);
}

/* BLEU of `row`, its logs added left to right. */
static TB_ALWAYS_INLINE double
tb_bleu_of_row(const int64_t *row, const tb_bleu_params *p, tb_bleu_arith arith)
{
    return tb_bleu_of_row_memo(row, p, arith, NULL);
}

#endif
