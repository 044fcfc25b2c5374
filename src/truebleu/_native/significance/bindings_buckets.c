/* truebleu core: the report's word-frequency buckets (bindings): word_bucket_counts, the
 * clipped word matches per segment and bucket that viewer/buckets.py resamples (its NumPy
 * code is the specification; the kernel is significance/word_buckets.c). Apart from
 * bindings.c, which holds the resampling's entry points. */
#include "significance/bindings.h"
#include "runtime/buffers.h"
#include "significance/word_buckets.h"

#include <stdint.h>
#include <string.h>

/* the message of each fault tb_word_bucket_counts finds */
static const char *const FAULTS[] = {
    [TB_WB_REF_LENGTHS] = "ref_lengths must be non-negative and add up to the ids",
    [TB_WB_HYP_LENGTHS] = "hyp_lengths must be non-negative and add up to the ids",
    [TB_WB_REF_IDS] = "ref_ids out of range",
    [TB_WB_HYP_IDS] = "hyp_ids out of range",
    [TB_WB_BUCKET] = "bucket out of range",
};

/* word_bucket_counts(ref_lengths, ref_ids, hyp_lengths, hyp_ids, bucket, n_buckets) -> bytes
 *
 * int64 buffers: each segment's number of reference and hypothesis words, their word ids
 * (below len(bucket)) one segment after the other, and each word id's bucket (below
 * n_buckets). Returns int64, one row of 2 * n_buckets per segment: the clipped matches
 * per bucket, then the hypothesis's words per bucket (significance/word_buckets.h). */
PyObject *core_word_bucket_counts(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static const char *const kwlist[] = {"ref_lengths", "ref_ids", "hyp_lengths", "hyp_ids",
                                         "bucket", "n_buckets", NULL};
    PyObject *objects[5];
    Py_buffer views[5] = {{0}};
    Py_ssize_t n_buckets;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOn", (char **)kwlist, &objects[0],
                                     &objects[1], &objects[2], &objects[3], &objects[4], &n_buckets))
        return NULL;
    const int64_t *values[5];
    Py_ssize_t counts[5];
    PyObject *out = NULL;
    int32_t *scratch = NULL;
    for (int j = 0; j < 5; j++) {
        size_t count;
        if (tb_int64_rows_buffer(objects[j], &views[j], 1, kwlist[j], &count) < 0)
            goto done;
        values[j] = views[j].buf;
        counts[j] = (Py_ssize_t)count;
    }
    const Py_ssize_t n = counts[0], n_words = counts[4];
    if (counts[2] != n || n_buckets < 1 || n_buckets > PY_SSIZE_T_MAX / 16 / (n ? n : 1)) {
        PyErr_SetString(PyExc_ValueError, "need one length per segment for both streams and "
                                          "n_buckets >= 1");
        goto done;
    }
    scratch = PyMem_Calloc((size_t)(n_words ? n_words : 1), sizeof *scratch);
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, n * 2 * n_buckets * 8);
    if (out == NULL)
        goto done;
    int64_t *sums = (int64_t *)PyBytes_AS_STRING(out);
    memset(sums, 0, (size_t)n * 2 * (size_t)n_buckets * 8);
    tb_word_bucket_error fault;
    Py_BEGIN_ALLOW_THREADS
    fault = tb_word_bucket_counts(values[0], values[1], counts[1], values[2], values[3], counts[3], n,
                                  values[4], n_words, n_buckets, scratch, sums);
    Py_END_ALLOW_THREADS
    if (fault != TB_WB_OK) {
        PyErr_SetString(PyExc_ValueError, FAULTS[fault]);
        Py_CLEAR(out);
    }
done:
    PyMem_Free(scratch);
    for (int j = 0; j < 5; j++)
        tb_buffer_release(&views[j]);
    return out;
}
