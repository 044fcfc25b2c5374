/* truebleu compiled core: Ctrl-C during a long call (see tb_signals.h). */
#include "tb_signals.h"

static unsigned long main_thread_ident;  /* threading.main_thread().ident, 0 if unknown */

void tb_signals_init(void)
{
    PyObject *threading = PyImport_ImportModule("threading");
    PyObject *main_thread = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
    PyObject *ident = main_thread ? PyObject_GetAttrString(main_thread, "ident") : NULL;
    main_thread_ident = ident ? PyLong_AsUnsignedLong(ident) : 0;
    Py_XDECREF(ident);
    Py_XDECREF(main_thread);
    Py_XDECREF(threading);
    if (PyErr_Occurred()) {  /* unknown: then every caller checks (a no-op off the main thread) */
        PyErr_Clear();
        main_thread_ident = 0;
    }
}

void tb_signal_watch_begin(tb_signal_watch *w)
{
    w->caller = pthread_self();
    w->check_signals = !main_thread_ident || PyThread_get_thread_ident() == main_thread_ident;
    w->ts = PyEval_SaveThread();
}

void tb_signal_watch_end(tb_signal_watch *w)
{
    PyEval_RestoreThread(w->ts);
    w->ts = NULL;
}

int tb_signal_watch_raised(tb_signal_watch *w)
{
    if (!w || !w->check_signals || !w->ts || !pthread_equal(pthread_self(), w->caller))
        return 0;
    PyEval_RestoreThread(w->ts);
    int raised = PyErr_CheckSignals() < 0;  /* the exception stays set in the thread state */
    w->ts = PyEval_SaveThread();
    return raised;
}
