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
 * This is the one place in the core that starts threads (tb_job_run).
 */
/* clock_gettime (POSIX.1-2008, the level Python.h asks for in the other files;
 * -std=c11 alone would hide it) */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
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

/* What a job's caller and its helpers share (on the heap: a late helper may
 * still hold it after the caller has returned). */
typedef struct {
    atomic_int refs;      /* the caller's and each helper's */
    pthread_mutex_t lock;
    pthread_cond_t idle;  /* signalled when the last active helper leaves */
    int closed;           /* no helper may join the job any more */
    int active;           /* helpers working on the job */
    tb_job *job;          /* read only by helpers that joined while it was open */
} crew;

static void crew_release(crew *c)
{
    if (atomic_fetch_sub(&c->refs, 1) == 1) {
        pthread_cond_destroy(&c->idle);
        pthread_mutex_destroy(&c->lock);
        free(c);
    }
}

static void *helper_main(void *arg)
{
    crew *c = arg;
    pthread_mutex_lock(&c->lock);
    if (!c->closed) {
        c->active++;
        pthread_mutex_unlock(&c->lock);
        c->job->worker(c->job);  /* claims chunks until there are none */
        pthread_mutex_lock(&c->lock);
        if (--c->active == 0)
            pthread_cond_signal(&c->idle);
    }
    pthread_mutex_unlock(&c->lock);
    crew_release(c);
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

/* Closes the job to helpers not yet started and waits until the active ones
 * have left; while waiting, a signal handler that raises fails the job (the
 * helpers then stop at their next check). */
static void close_and_wait(crew *c)
{
    tb_job *job = c->job;
    pthread_mutex_lock(&c->lock);
    c->closed = 1;
    while (c->active > 0) {
        struct timespec until = soon();
        int rc = pthread_cond_timedwait(&c->idle, &c->lock, &until);
        if (rc == ETIMEDOUT && job->watch && !tb_job_failed(job)) {
            pthread_mutex_unlock(&c->lock);  /* (the check takes the GIL: never hold the lock then) */
            if (tb_signal_watch_raised(job->watch))
                tb_job_fail(job, TB_INTERRUPTED, 0);
            pthread_mutex_lock(&c->lock);
        }
    }
    pthread_mutex_unlock(&c->lock);
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
        return (tb_status)atomic_load(&job->status);
    }
    atomic_init(&c->refs, 1);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->idle, NULL);
    c->job = job;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int k = 1; k < threads; k++) {
        pthread_t tid;
        atomic_fetch_add(&c->refs, 1);
        if (pthread_create(&tid, &attr, helper_main, c) != 0) {
            atomic_fetch_sub(&c->refs, 1);
            break;  /* fewer threads: the same result, later */
        }
    }
    pthread_attr_destroy(&attr);
    job->worker(job);
    close_and_wait(c);
    crew_release(c);
    return (tb_status)atomic_load(&job->status);
}
