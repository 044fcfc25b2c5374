/* truebleu core: what BLEU's entry points share (bleu/bindings.h): the checks of
 * their arguments, running a job without the GIL, and where a statistics job's
 * rows, totals and scores go. Used by bleu/bindings.c, bindings_matrix.c and
 * bindings_ids.c.
 */
#include "bleu/bindings.h"
#include "bleu/ngram.h"
#include "bleu/score.h"
#include "runtime/buffers.h"
#include "runtime/errors.h"
#include "runtime/signals.h"
#include "text/tokenize.h"

int tb_check_mode(int mode)
{
    if (mode < TB_NONE || mode > TB_CHAR) {
        PyErr_Format(PyExc_ValueError, "unknown tokenizer mode %d", mode);
        return -1;
    }
    return 0;
}

int tb_check_order(int max_order)
{
    if (max_order < 1 || max_order > 1000) {
        PyErr_Format(PyExc_ValueError, "max_order must be between 1 and 1000, got %d", max_order);
        return -1;
    }
    return 0;
}

int tb_check_smooth(int smooth)
{
    if (smooth < TB_SMOOTH_NONE || smooth > TB_SMOOTH_EXP) {
        PyErr_SetString(PyExc_ValueError, "unknown smoothing code");
        return -1;
    }
    return 0;
}

int tb_bleu_run_job(tb_bleu_job *job, int threads, const tb_state *st)
{
    return tb_raise_job_status(tb_job_run_released(&job->base, threads, st->main_thread));
}

int tb_bleu_output_get(tb_bleu_output *o, tb_bleu_job *j, PyObject *out, PyObject *totals, size_t n)
{
    const size_t width = tb_row_width(j->max_order);
    if (out != Py_None) {
        if (tb_int64_out_buffer(out, &o->rows, n * width, "out") < 0)
            return -1;
        j->out_rows = o->rows.buf;
        return 0;
    }
    if (!totals || totals == Py_None) {
        if (j->scores)  /* the scores alone */
            return 0;
        PyErr_SetString(PyExc_TypeError, "out is None: a totals buffer (one int64 row) is needed");
        return -1;
    }
    if (tb_int64_out_buffer(totals, &o->sum, width, "totals") < 0)
        return -1;
    j->totals = o->sum.buf;
    return 0;
}

void tb_bleu_output_release(tb_bleu_output *o)
{
    tb_buffer_release(&o->rows);
    tb_buffer_release(&o->sum);
    tb_buffer_release(&o->scores);
}
