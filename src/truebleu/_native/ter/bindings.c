/* truebleu core: ter_statistics() (bindings): TER statistics of many segments.
 *
 * Under the GIL: the UTF-8 of every string (runtime/gather.c; strings with
 * lone surrogates are encoded with "surrogatepass", which keeps distinct
 * words distinct), with a reference keeping it alive. Then the job of
 * ter/segments.c runs without the GIL on the runtime's threads.
 */
#include "runtime/errors.h"
#include "runtime/gather.h"
#include "state.h"
#include "ter/bindings.h"
#include "ter/ter.h"

#include <string.h>

/* Appends the UTF-8 of `obj`, item `i` of `what` (a TypeError naming it if not a str). */
static int add_text(tb_gather *g, PyObject *obj, const char *what, Py_ssize_t i)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s[%zd] must be a string, got %.80s", what, i, Py_TYPE(obj)->tp_name);
        return -1;
    }
    return tb_gather_append(g, obj, TB_GATHER_UTF8);
}

PyObject *core_ter_statistics(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"hypotheses", "references", "threads", "out", "max_shift_size",
                                         NULL};
    const tb_state *st = tb_state_of(module);
    PyObject *hyps_obj, *refs_obj, *out_obj;
    int threads;
    Py_ssize_t max_shift = TB_TER_MAX_SHIFT_SIZE;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOiO|n", (char **)kwlist, &hyps_obj, &refs_obj, &threads,
                                     &out_obj, &max_shift))
        return NULL;
    if (max_shift < 1 || max_shift > 1000)
        return PyErr_Format(PyExc_ValueError, "max_shift_size must be between 1 and 1000, got %zd", max_shift);
    if (threads < 1)
        return PyErr_Format(PyExc_ValueError, "threads must be >= 1, got %d", threads);

    PyObject *result = NULL;
    PyObject *hyps = PySequence_Fast(hyps_obj, "hypotheses must be a sequence");
    PyObject *refs = PySequence_Fast(refs_obj, "references must be a sequence");
    Py_buffer view = {0};
    tb_gather hyp_texts, ref_texts;
    tb_gather_start(&hyp_texts, st->lower);
    tb_gather_start(&ref_texts, st->lower);
    size_t *first_ref = NULL;
    if (!hyps || !refs)
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hyps);
    if (PySequence_Fast_GET_SIZE(refs) != n) {
        PyErr_Format(PyExc_ValueError, "%zd hypotheses but %zd reference segments", n,
                     PySequence_Fast_GET_SIZE(refs));
        goto done;
    }
    if (PyObject_GetBuffer(out_obj, &view, PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
        goto done;
    if (view.itemsize != 8 || !view.format || strcmp(view.format, "d") != 0 ||
        view.len != (Py_ssize_t)(2 * n * (Py_ssize_t)sizeof(double))) {
        PyErr_SetString(PyExc_ValueError, "out must be a float64 buffer of 2 numbers per hypothesis");
        goto done;
    }
    first_ref = PyMem_Malloc((size_t)(n + 1) * sizeof(size_t));
    if (!first_ref) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (add_text(&hyp_texts, PySequence_Fast_GET_ITEM(hyps, i), "hypotheses", i) < 0)
            goto done;
        PyObject *seg = PySequence_Fast(PySequence_Fast_GET_ITEM(refs, i),
                                        "references[i] must be a sequence of strings");
        if (!seg)
            goto done;
        Py_ssize_t k = PySequence_Fast_GET_SIZE(seg);
        if (k == 0) {
            Py_DECREF(seg);
            PyErr_Format(PyExc_ValueError, "segment %zd has no reference", i);
            goto done;
        }
        first_ref[i] = ref_texts.n;
        for (Py_ssize_t j = 0; j < k; j++) {
            if (add_text(&ref_texts, PySequence_Fast_GET_ITEM(seg, j), "references", i) < 0) {
                Py_DECREF(seg);
                goto done;
            }
        }
        Py_DECREF(seg);
    }
    first_ref[n] = ref_texts.n;

    tb_ter_job job;
    tb_ter_job_init(&job, (size_t)n);
    job.hyps = hyp_texts.texts;
    job.refs = ref_texts.texts;
    job.first_ref = first_ref;
    job.out = view.buf;
    job.max_shift = (size_t)max_shift;
    tb_status status = tb_job_run_released(&job.base, threads, st->main_thread);
    if (status == TB_RUNTIME)
        tb_raise(status, "TER: the edit path left the beam in segment %zu", tb_atomic_size_load(&job.base.failed_item));
    else if (tb_raise_job_status(status) == 0)
        result = Py_NewRef(Py_None);

done:
    if (view.obj)
        PyBuffer_Release(&view);
    PyMem_Free(first_ref);
    tb_gather_free(&hyp_texts);
    tb_gather_free(&ref_texts);
    Py_XDECREF(hyps);
    Py_XDECREF(refs);
    return result;
}
