/* truebleu core runtime: threads, locks and condition variables (plain C, no
 * Python): POSIX threads, or Win32's on Windows (runtime/threads.c).
 *
 * Only what runtime/pool.c needs: detached threads, a mutex, a condition
 * variable with a timed wait, and the identity of the calling thread
 * (runtime/signals.c). tb_thread_start is the one function of the core that
 * starts a thread.
 */
#ifndef TB_RUNTIME_THREADS_H
#define TB_RUNTIME_THREADS_H

#ifdef _WIN32
/* an SRWLOCK and a CONDITION_VARIABLE are one pointer each (threads.c checks):
 * this header spares its includers <windows.h> */
typedef struct { void *opaque; } tb_mutex;
typedef struct { void *opaque; } tb_cond;
typedef unsigned long tb_thread_id;  /* GetCurrentThreadId's DWORD */
#else
#include <pthread.h>
typedef pthread_mutex_t tb_mutex;
typedef pthread_cond_t tb_cond;
typedef pthread_t tb_thread_id;
#endif

/* Starts run(arg) on a new detached thread: 0, or -1 if none could be started. */
int tb_thread_start(void (*run)(void *), void *arg);

/* The calling thread, and whether two identities are one thread's. */
tb_thread_id tb_thread_self(void);
int tb_thread_same(tb_thread_id a, tb_thread_id b);

void tb_mutex_init(tb_mutex *m);
void tb_mutex_destroy(tb_mutex *m);
void tb_mutex_lock(tb_mutex *m);
void tb_mutex_unlock(tb_mutex *m);

void tb_cond_init(tb_cond *c);
void tb_cond_destroy(tb_cond *c);
void tb_cond_signal(tb_cond *c);
/* With m locked: waits until c is signalled (or a spurious wake-up) or ms
 * milliseconds have passed, m locked again. 1 if the time ran out, else 0. */
int tb_cond_wait_ms(tb_cond *c, tb_mutex *m, unsigned ms);

#endif
