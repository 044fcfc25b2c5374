/* truebleu core runtime: the thread pool of every job (see runtime/pool.h).
 *
 * Why threads per job, joined, and not a pool of persistent threads: a job
 * makes its helpers (pthread_create costs tens of microseconds, a job that
 * has more than one chunk of work takes far longer) and joins them before it
 * returns, so between calls the process has no thread of the core. Persistent
 * threads would survive into a fork() (multiprocessing's default start on
 * Linux before Python 3.14), where they do not exist, and Python 3.12+ warns
 * at every os.fork() of a process with threads. The caller works as one of the
 * threads and then waits for its helpers on a condition variable (no spinning),
 * waking every TB_WAIT_POLL_MS to run pending signal handlers, so Ctrl-C stops
 * the job even while only helpers are still working.
 *
 * This file is the core's only caller of pthread_create.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "runtime/pool.h"

/* How often the caller, waiting for its helpers, checks for Ctrl-C. */
#define TB_WAIT_POLL_MS 20

void tb_job_init(tb_job *job, void (*worker)(tb_job *), size_t nitems, size_t chunk)
{
    job->worker = worker;
    job->nitems = nitems;
    job->chunk = chunk ? chunk : 1;
    job->watch = NULL;
    atomic_init(&job->next, 0);
    atomic_init(&job->status, TB_OK);
    atomic_init(&job->failed_item, 0);
}

void tb_job_fail(tb_job *job, tb_status status, size_t item)
{
    int expected = TB_OK;
    if (atomic_compare_exchange_strong(&job->status, &expected, (int)status))
        atomic_store(&job->failed_item, item);
}

static int job_poll_check(tb_poll *p)
{
    tb_job *job = ((tb_job_poll *)p)->job;
    p->budget = TB_POLL_UNITS;
    if (tb_signal_watch_raised(job->watch))
        tb_job_fail(job, TB_INTERRUPTED, 0);
    return tb_job_failed(job);
}

void tb_job_poll_init(tb_job_poll *p, tb_job *job)
{
    p->base.check = job_poll_check;
    p->base.budget = TB_POLL_UNITS;
    p->job = job;
}

/* What the helpers of one job share with its caller (on the caller's stack: it
 * outlives every helper, which are joined before tb_job_run returns). */
typedef struct {
    tb_job *job;
    pthread_mutex_t lock;
    pthread_cond_t finished_cond;
    int finished;  /* helpers whose worker returned */
} helpers;

static void *helper_main(void *arg)
{
    helpers *h = arg;
    h->job->worker(h->job);
    pthread_mutex_lock(&h->lock);
    h->finished++;
    pthread_cond_signal(&h->finished_cond);
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* The time TB_WAIT_POLL_MS from now (CLOCK_REALTIME, the condition variable's
 * default clock everywhere: a clock step changes one wait, never a result). */
static struct timespec soon(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += TB_WAIT_POLL_MS * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* Waits until `started` helpers have finished; while waiting, a signal handler
 * that raises fails the job (the helpers then stop at their next check). */
static void wait_for_helpers(helpers *h, int started)
{
    pthread_mutex_lock(&h->lock);
    while (h->finished < started) {
        struct timespec until = soon();
        int rc = pthread_cond_timedwait(&h->finished_cond, &h->lock, &until);
        if (rc == ETIMEDOUT && h->job->watch && !tb_job_failed(h->job)) {
            pthread_mutex_unlock(&h->lock);  /* (the check takes the GIL: never hold the lock then) */
            if (tb_signal_watch_raised(h->job->watch))
                tb_job_fail(h->job, TB_INTERRUPTED, 0);
            pthread_mutex_lock(&h->lock);
        }
    }
    pthread_mutex_unlock(&h->lock);
}

tb_status tb_job_run(tb_job *job, int threads, tb_signal_watch *watch)
{
    job->watch = watch;
    size_t chunks = job->nitems / job->chunk + (job->nitems % job->chunk != 0);
    if (threads > TB_MAX_THREADS)
        threads = TB_MAX_THREADS;
    if (threads < 1 || chunks <= 1)
        threads = 1;
    else if ((size_t)threads > chunks)
        threads = (int)chunks;
    if (threads == 1) {  /* no helper: nothing to create, join or wait for */
        job->worker(job);
        return (tb_status)atomic_load(&job->status);
    }
    helpers h = {.job = job, .finished = 0};
    pthread_cond_init(&h.finished_cond, NULL);
    pthread_mutex_init(&h.lock, NULL);
    pthread_t tids[TB_MAX_THREADS];
    int started = 0;
    while (started < threads - 1 && pthread_create(&tids[started], NULL, helper_main, &h) == 0)
        started++;  /* a thread that cannot be created: fewer threads, the same result */
    job->worker(job);
    if (started)
        wait_for_helpers(&h, started);
    for (int k = 0; k < started; k++)
        pthread_join(tids[k], NULL);
    pthread_cond_destroy(&h.finished_cond);
    pthread_mutex_destroy(&h.lock);
    return (tb_status)atomic_load(&job->status);
}
