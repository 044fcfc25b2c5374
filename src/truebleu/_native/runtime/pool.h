/* truebleu core runtime: the one way the core runs work on several threads
 * (plain C, no Python; threads and atomics: runtime/threads.h, runtime/atomics.h).
 *
 * A job is a number of items (segments, pairs of segments, rows of a matrix)
 * and a worker function. tb_job_run runs the worker on the calling thread and
 * on up to threads - 1 helper threads created for the job; every worker takes
 * chunks of items from the job's atomic counter (tb_job_claim) until none are
 * left, and writes each item's result to a place of its own (a row of an
 * output table), so results never depend on the number of threads or on which
 * thread took which chunk. The first failure (tb_job_fail) wins and stops every
 * worker at its next claim or poll. tb_job_run returns when every helper that
 * took part has left the job (one that the system starts only after the work
 * is done leaves at once, without touching it: runtime/pool.c).
 *
 * A metric's job embeds a tb_job as its first member and its worker casts the
 * tb_job * back, e.g.
 *
 *     typedef struct { tb_job base; const tb_text *texts; int64_t *rows; } my_job;
 *     static void my_worker(tb_job *j) {
 *         my_job *job = (my_job *)j;
 *         tb_job_poll poll;
 *         tb_job_poll_init(&poll, j);
 *         size_t lo, hi;
 *         while (tb_job_claim(j, &lo, &hi))
 *             for (size_t k = lo; k < hi; k++)
 *                 if (tb_poll_spend(&poll.base, units of item k) || do_item(job, k) < 0) ...
 *     }
 */
#ifndef TB_RUNTIME_POOL_H
#define TB_RUNTIME_POOL_H

#include <stddef.h>

#include "runtime/atomics.h"
#include "runtime/poll.h"
#include "runtime/signals.h"
#include "runtime/status.h"

/* The most threads a job runs on (the caller's included). */
#define TB_MAX_THREADS 256

typedef struct tb_job tb_job;

struct tb_job {
    void (*worker)(tb_job *job);  /* runs on every thread of the job, the caller's first */
    size_t nitems, chunk;         /* items 0 .. nitems - 1, claimed `chunk` at a time */
    tb_signal_watch *watch;       /* the caller's (tb_job_run sets it; may be NULL) */
    tb_atomic_size next;          /* the first item not claimed yet */
    tb_atomic_int status;         /* TB_OK until the first failure */
    tb_atomic_size failed_item;   /* the item of the first failure */
};

/* A job of nitems items in chunks of `chunk` (>= 1), run by `worker`. */
void tb_job_init(tb_job *job, void (*worker)(tb_job *), size_t nitems, size_t chunk);

/* Runs the job on the calling thread and up to threads - 1 helpers (fewer when
 * there are fewer chunks, or when a thread cannot be created: the same result,
 * later). Call without the GIL; `watch` (may be NULL) is the caller's signal
 * watch, polled while the caller works (tb_job_poll) and while it waits for
 * the helpers. Returns the job's status: TB_OK or the first failure. */
tb_status tb_job_run(tb_job *job, int threads, tb_signal_watch *watch);

/* tb_job_run with the GIL released and a signal watch of the caller (from
 * runtime/signals.c: call it with the GIL, get it back with the job done).
 * main_thread: the module's threading.main_thread().ident. */
tb_status tb_job_run_released(tb_job *job, int threads, unsigned long main_thread);

/* The next chunk [*lo, *hi) for this worker: 1, or 0 when no items are left or
 * the job failed. */
static inline int tb_job_claim(tb_job *job, size_t *lo, size_t *hi)
{
    size_t first = tb_atomic_size_fetch_add(&job->next, job->chunk);
    if (first >= job->nitems || tb_atomic_int_load(&job->status) != TB_OK)
        return 0;
    *lo = first;
    *hi = job->nitems - first > job->chunk ? first + job->chunk : job->nitems;
    return 1;
}

/* Whether the job failed (every worker stops at its next check). */
static inline int tb_job_failed(tb_job *job)
{
    return tb_atomic_int_load_relaxed(&job->status) != TB_OK;
}

/* Records a failure of item `item`, unless another came first (a stop caused by
 * an interrupt is not an out-of-memory). */
void tb_job_fail(tb_job *job, tb_status status, size_t item);

/* A worker's poll of its job: the caller's pending signals (on the caller's
 * thread only), then the job's status. Spend it with tb_poll_spend(&p.base, units). */
typedef struct {
    tb_poll base;  /* first */
    tb_job *job;
} tb_job_poll;

void tb_job_poll_init(tb_job_poll *p, tb_job *job);

#endif
