/* truebleu core runtime: threads on POSIX and on Windows (see runtime/threads.h). */
#ifndef _WIN32
/* clock_gettime (POSIX.1-2008, the level Python.h asks for in the other files;
 * -std=c11 alone would hide it) */
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdint.h>
#include <stdlib.h>

#include "runtime/threads.h"

/* What a new thread runs: run(arg), from a block the thread frees. */
typedef struct {
    void (*run)(void *);
    void *arg;
} thread_start;

#ifdef _WIN32

#define WIN32_LEAN_AND_MEAN
#include <process.h>
#include <windows.h>

_Static_assert(sizeof(SRWLOCK) == sizeof(tb_mutex), "an SRWLOCK is one pointer");
_Static_assert(sizeof(CONDITION_VARIABLE) == sizeof(tb_cond), "a CONDITION_VARIABLE is one pointer");

#define SRW(m) ((PSRWLOCK)(void *)(m))
#define CV(c) ((PCONDITION_VARIABLE)(void *)(c))

static unsigned __stdcall thread_main(void *p)
{
    thread_start start = *(thread_start *)p;
    free(p);
    start.run(start.arg);
    return 0;
}

int tb_thread_start(void (*run)(void *), void *arg)
{
    thread_start *p = malloc(sizeof *p);
    if (!p)
        return -1;
    p->run = run;
    p->arg = arg;
    /* _beginthreadex, not CreateThread: the C runtime's state of the thread */
    uintptr_t handle = _beginthreadex(NULL, 0, thread_main, p, 0, NULL);
    if (!handle) {
        free(p);
        return -1;
    }
    CloseHandle((HANDLE)handle);  /* detached */
    return 0;
}

tb_thread_id tb_thread_self(void) { return GetCurrentThreadId(); }
int tb_thread_same(tb_thread_id a, tb_thread_id b) { return a == b; }

void tb_mutex_init(tb_mutex *m) { InitializeSRWLock(SRW(m)); }
void tb_mutex_destroy(tb_mutex *m) { (void)m; }  /* an SRWLOCK holds nothing */
void tb_mutex_lock(tb_mutex *m) { AcquireSRWLockExclusive(SRW(m)); }
void tb_mutex_unlock(tb_mutex *m) { ReleaseSRWLockExclusive(SRW(m)); }

void tb_cond_init(tb_cond *c) { InitializeConditionVariable(CV(c)); }
void tb_cond_destroy(tb_cond *c) { (void)c; }  /* nor does a CONDITION_VARIABLE */
void tb_cond_signal(tb_cond *c) { WakeConditionVariable(CV(c)); }

int tb_cond_wait_ms(tb_cond *c, tb_mutex *m, unsigned ms)
{
    if (SleepConditionVariableSRW(CV(c), SRW(m), ms, 0))
        return 0;
    return GetLastError() == ERROR_TIMEOUT;
}

#else

#include <errno.h>
#include <time.h>

static void *thread_main(void *p)
{
    thread_start start = *(thread_start *)p;
    free(p);
    start.run(start.arg);
    return NULL;
}

int tb_thread_start(void (*run)(void *), void *arg)
{
    thread_start *p = malloc(sizeof *p);
    if (!p)
        return -1;
    p->run = run;
    p->arg = arg;
    pthread_attr_t attr;
    pthread_t tid;
    int rc = pthread_attr_init(&attr);
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        rc = pthread_create(&tid, &attr, thread_main, p);
        pthread_attr_destroy(&attr);
    }
    if (rc != 0) {
        free(p);
        return -1;
    }
    return 0;
}

tb_thread_id tb_thread_self(void) { return pthread_self(); }
int tb_thread_same(tb_thread_id a, tb_thread_id b) { return pthread_equal(a, b) != 0; }

void tb_mutex_init(tb_mutex *m) { pthread_mutex_init(m, NULL); }
void tb_mutex_destroy(tb_mutex *m) { pthread_mutex_destroy(m); }
void tb_mutex_lock(tb_mutex *m) { pthread_mutex_lock(m); }
void tb_mutex_unlock(tb_mutex *m) { pthread_mutex_unlock(m); }

void tb_cond_init(tb_cond *c) { pthread_cond_init(c, NULL); }
void tb_cond_destroy(tb_cond *c) { pthread_cond_destroy(c); }
void tb_cond_signal(tb_cond *c) { pthread_cond_signal(c); }

/* ms from now on CLOCK_REALTIME, the condition variable's default clock
 * everywhere (a clock step changes one wait, never a result) */
int tb_cond_wait_ms(tb_cond *c, tb_mutex *m, unsigned ms)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return pthread_cond_timedwait(c, m, &t) == ETIMEDOUT;
}

#endif
