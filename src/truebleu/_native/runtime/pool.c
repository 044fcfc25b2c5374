/* truebleu core runtime: the threads of every job (see runtime/pool.h).
 *
 * Threads per job, not a pool of persistent threads: a job makes its helpers
 * (starting a thread costs tens of microseconds; a job with more than one
 * chunk of work takes far longer), so between calls the process has no
 * thread of the core. Persistent threads would survive into a fork() (multiprocessing's
 * default start on Linux before Python 3.14), where they do not exist, and
 * Python 3.12+ warns at every os.fork() of a process with threads.
 *
 * The helpers are detached, and the caller waits only for those that joined
 * the work: on a busy machine a helper may be scheduled only after the caller
 * has done every item alone, and then the caller must not wait for it to
 * start (joining it cost a 100-call loop of corpus_bleu 45% with the other
 * core busy). A late helper finds the job closed and leaves without touching
 * it. What the caller and its helpers share is a small heap block (a crew)
 * freed by whoever leaves it last; the job itself stays on the caller's stack,
 * read only by helpers that joined before it was closed. The caller waits on
 * a condition variable (no spinning), waking every TB_WAIT_POLL_MS to run
 * pending signal handlers, so Ctrl-C stops the job even while only helpers
 * are still working.
 *
 * This is the one place in the core that starts threads (tb_job_run, through
 * runtime/threads.c: POSIX threads, or Win32's).
 */
#include <stdlib.h>

#include "runtime/pool.h"
#include "runtime/threads.h"

/* How often the caller, waiting for its helpers, checks for Ctrl-C. */
#define TB_WAIT_POLL_MS 20

void tb_job_init(tb_job *job, void (*worker)(tb_job *), size_t nitems, size_t chunk)
{
    job->worker = worker;
    job->nitems = nitems;
    job->chunk = chunk ? chunk : 1;
    job->watch = NULL;
    tb_atomic_size_init(&job->next, 0);
    tb_atomic_int_init(&job->status, TB_OK);
    tb_atomic_size_init(&job->failed_item, 0);
}

void tb_job_fail(tb_job *job, tb_status status, size_t item)
{
    int expected = TB_OK;
    if (tb_atomic_int_cas(&job->status, &expected, (int)status))
        tb_atomic_size_store(&job->failed_item, item);
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

/* What a job's caller and its helpers share (on the heap: a late helper may
 * still hold it after the caller has returned). */
typedef struct {
    tb_atomic_int refs;   /* the caller's and each helper's */
    tb_mutex lock;
    tb_cond idle;         /* signalled when the last active helper leaves */
    int closed;           /* no helper may join the job any more */
    int active;           /* helpers working on the job */
    tb_job *job;          /* read only by helpers that joined while it was open */
} crew;

static void crew_release(crew *c)
{
    if (tb_atomic_int_fetch_sub(&c->refs, 1) == 1) {
        tb_cond_destroy(&c->idle);
        tb_mutex_destroy(&c->lock);
        free(c);
    }
}

static void helper_main(void *arg)
{
    crew *c = arg;
    tb_mutex_lock(&c->lock);
    if (!c->closed) {
        c->active++;
        tb_mutex_unlock(&c->lock);
        c->job->worker(c->job);  /* claims chunks until there are none */
        tb_mutex_lock(&c->lock);
        if (--c->active == 0)
            tb_cond_signal(&c->idle);
    }
    tb_mutex_unlock(&c->lock);
    crew_release(c);
}

/* Closes the job to helpers not yet started and waits until the active ones
 * have left; while waiting, a signal handler that raises fails the job (the
 * helpers then stop at their next check). */
static void close_and_wait(crew *c)
{
    tb_job *job = c->job;
    tb_mutex_lock(&c->lock);
    c->closed = 1;
    while (c->active > 0) {
        int timed_out = tb_cond_wait_ms(&c->idle, &c->lock, TB_WAIT_POLL_MS);
        if (timed_out && job->watch && !tb_job_failed(job)) {
            tb_mutex_unlock(&c->lock);  /* (the check takes the GIL: never hold the lock then) */
            if (tb_signal_watch_raised(job->watch))
                tb_job_fail(job, TB_INTERRUPTED, 0);
            tb_mutex_lock(&c->lock);
        }
    }
    tb_mutex_unlock(&c->lock);
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
    crew *c = threads > 1 ? calloc(1, sizeof(crew)) : NULL;
    if (!c) {  /* one thread (or no memory for a crew: the same result, on this thread) */
        job->worker(job);
        return (tb_status)tb_atomic_int_load(&job->status);
    }
    tb_atomic_int_init(&c->refs, 1);
    tb_mutex_init(&c->lock);
    tb_cond_init(&c->idle);
    c->job = job;
    for (int k = 1; k < threads; k++) {
        tb_atomic_int_fetch_add(&c->refs, 1);
        if (tb_thread_start(helper_main, c) != 0) {
            tb_atomic_int_fetch_sub(&c->refs, 1);
            break;  /* fewer threads: the same result, later */
        }
    }
    job->worker(job);
    close_and_wait(c);
    crew_release(c);
    return (tb_status)tb_atomic_int_load(&job->status);
}
