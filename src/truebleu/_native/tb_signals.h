/* truebleu compiled core: Ctrl-C during a long call, for every job system
 * (BLEU's in module.c, chrF's in chrf.c, TER's in ter_module.c).
 *
 * The calling thread, while it works without the GIL, takes the GIL back
 * briefly every TB_POLL_UNITS of its own work to run pending signal handlers
 * (Python runs them in the main thread only). A handler that raises (SIGINT:
 * KeyboardInterrupt) stops the job: every thread leaves at its next check,
 * everything is freed and the exception propagates. Helper threads never touch
 * Python; they only see their job's failure flag.
 */
#ifndef TRUEBLEU_SIGNALS_H
#define TRUEBLEU_SIGNALS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>

typedef struct {
    PyThreadState *ts;   /* the caller's thread state while the GIL is released */
    pthread_t caller;
    int check_signals;   /* the caller is the main thread */
} tb_signal_watch;

/* At module import, with the GIL: remember which thread is the main one. */
void tb_signals_init(void);

/* With the GIL: start watching and release the GIL (as Py_BEGIN_ALLOW_THREADS). */
void tb_signal_watch_begin(tb_signal_watch *w);

/* Without the GIL, on the thread that called begin: take the GIL back (as
 * Py_END_ALLOW_THREADS). An exception raised by a handler is then set. */
void tb_signal_watch_end(tb_signal_watch *w);

/* On any thread while watching: 1 if a signal handler run now raised (only the
 * caller runs them; on other threads, or off the main thread, always 0). */
int tb_signal_watch_raised(tb_signal_watch *w);

#endif
