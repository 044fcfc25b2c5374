/* truebleu core runtime: cheap checks for a reason to stop (plain C, no Python).
 *
 * Long work without the GIL must notice Ctrl-C and another thread's failure.
 * A tb_poll is a budget of work units (about one per code point or n-gram)
 * spent as the work goes; only when it runs out is check() called, which
 * refills it and says whether to stop. So a check costs a subtraction and a
 * branch, and the real test (taking the GIL back to run signal handlers, see
 * runtime/signals.h) happens every TB_POLL_UNITS units: a few milliseconds.
 */
#ifndef TB_RUNTIME_POLL_H
#define TB_RUNTIME_POLL_H

#include <stddef.h>

typedef struct tb_poll {
    int (*check)(struct tb_poll *p);  /* refills the budget; nonzero: stop */
    long budget;
} tb_poll;

#define TB_POLL_UNITS (1L << 20)

/* Spend `units` of p's budget (p may be NULL: never stop); nonzero when the work must stop. */
static inline int tb_poll_spend(tb_poll *p, long units)
{
    return p && (p->budget -= units) < 0 && p->check(p);
}

/* The units an item of `units` work spends, capped: an item of a whole budget or more
 * spends one unit over it. A check refills the budget to TB_POLL_UNITS, so spending
 * exactly that would leave it at 0, not below, and the caller would check before every
 * other such item only (BLEU on ids at order 1,000: 0.25 s an item, Ctrl-C up to five
 * items late on two threads). */
static inline long tb_poll_units_of(size_t units)
{
    return units >= (size_t)TB_POLL_UNITS ? TB_POLL_UNITS + 1 : (long)units;
}

#endif
