/* truebleu core runtime: Ctrl-C during a long call (see runtime/signals.h). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "runtime/pool.h"
#include "runtime/signals.h"

unsigned long tb_main_thread_ident(void)
{
    /* threading, where it is loaded; where not, the calling thread, which is what threading
     * records as its main thread when it is first imported (importing it here, as before,
     * gave the same ident and cost every command about 4 M instructions: threading is
     * otherwise not on the scoring command's path). */
    PyObject *name = PyUnicode_InternFromString("threading");
    PyObject *threading = name ? PyImport_GetModule(name) : NULL;
    Py_XDECREF(name);
    if (!threading && !PyErr_Occurred())
        return PyThread_get_thread_ident();
    PyObject *main_thread = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
    PyObject *ident = main_thread ? PyObject_GetAttrString(main_thread, "ident") : NULL;
    unsigned long result = ident ? PyLong_AsUnsignedLong(ident) : 0;
    Py_XDECREF(ident);
    Py_XDECREF(main_thread);
    Py_XDECREF(threading);
    if (PyErr_Occurred()) {  /* unknown: then every caller checks (a no-op off the main thread) */
        PyErr_Clear();
        result = 0;
    }
    return result;
}

void tb_signal_watch_begin(tb_signal_watch *w, unsigned long main_thread)
{
    w->caller = tb_thread_self();
    w->check_signals = !main_thread || PyThread_get_thread_ident() == main_thread;
    w->ts = PyEval_SaveThread();
}

void tb_signal_watch_end(tb_signal_watch *w)
{
    PyEval_RestoreThread((PyThreadState *)w->ts);
    w->ts = NULL;
}

int tb_signal_watch_raised(tb_signal_watch *w)
{
    if (!w || !w->check_signals || !w->ts || !tb_thread_same(tb_thread_self(), w->caller))
        return 0;
    PyEval_RestoreThread((PyThreadState *)w->ts);
    int raised = PyErr_CheckSignals() < 0;  /* the exception stays set in the thread state */
    w->ts = PyEval_SaveThread();
    return raised;
}

tb_status tb_job_run_released(tb_job *job, int threads, unsigned long main_thread)
{
    tb_signal_watch watch;
    tb_signal_watch_begin(&watch, main_thread);
    tb_status status = tb_job_run(job, threads, &watch);
    tb_signal_watch_end(&watch);
    return status;
}
