/* truebleu core runtime: Ctrl-C during a long call without the GIL.
 *
 * The calling thread releases the GIL with tb_signal_watch_begin. While it
 * works (and while it waits for its helper threads, runtime/pool.c), it takes
 * the GIL back briefly every TB_POLL_UNITS of work to run pending signal
 * handlers (Python runs them in the main thread only). A handler that raises
 * (SIGINT: KeyboardInterrupt) stops the job: every thread leaves at its next
 * check, everything is freed, and the exception propagates. Helper threads
 * never touch Python; they only see their job's status.
 *
 * This header is plain C (the thread state is held as a void *), so that the
 * pool and the kernels can poll without including Python.h.
 */
#ifndef TB_RUNTIME_SIGNALS_H
#define TB_RUNTIME_SIGNALS_H

#include "runtime/threads.h"

typedef struct tb_signal_watch {
    void *ts;            /* the caller's PyThreadState while the GIL is released */
    tb_thread_id caller;
    int check_signals;   /* the caller is the main thread: handlers can run */
} tb_signal_watch;

/* With the GIL, at module exec: threading.main_thread().ident (0 if unknown), without
 * importing threading: where it is not loaded yet, the calling thread's ident (what
 * threading would record as its main thread if imported now). */
unsigned long tb_main_thread_ident(void);

/* With the GIL: start watching and release the GIL (as Py_BEGIN_ALLOW_THREADS).
 * main_thread: the ident of threading.main_thread() (0: unknown, then every
 * caller checks, which is a no-op off the main thread). */
void tb_signal_watch_begin(tb_signal_watch *w, unsigned long main_thread);

/* Without the GIL, on the thread that called begin: take the GIL back (as
 * Py_END_ALLOW_THREADS). An exception raised by a handler is then set. */
void tb_signal_watch_end(tb_signal_watch *w);

/* On any thread while watching (w may be NULL): 1 if a signal handler run now
 * raised (only the caller runs them; on other threads, or off the main thread,
 * always 0). */
int tb_signal_watch_raised(tb_signal_watch *w);

#endif
