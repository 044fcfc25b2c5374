/* truebleu core: chrF and chrF++ statistics (plain C, no Python objects; see
 * chrf/chrf.c for the counting, chrf/bindings.c for the entry point). */
#ifndef TB_CHRF_CHRF_H
#define TB_CHRF_CHRF_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/pool.h"
#include "text/text.h"

/* Hypotheses a worker claims at a time. */
#define TB_CHRF_CHUNK 16

/* Item i: hypothesis hyps[i] against its references refs[ref_start[i] .. ref_start[i+1]),
 * the row of the best reference into out[i * 3 * (char_order + word_order) ..]. */
typedef struct {
    tb_job base;  /* first: the pool's view of the job */
    const tb_text *hyps;      /* PyUnicode storage (kinds 1, 2, 4) */
    const tb_text *refs;
    const size_t *ref_start;
    int char_order, word_order, whitespace, eps_smoothing;
    double factor, one_plus_factor;
    int64_t *out;
    double *scores;           /* each row's f-score; may be NULL */
} tb_chrf_job;

/* A job over nitems hypotheses; the caller fills in the rest and runs it
 * with tb_job_run_released(&job.base, ...). */
void tb_chrf_job_init(tb_chrf_job *job, size_t nitems);

/* Frees the workers' scratch kept between jobs (a running job's stays with it);
 * the bytes freed. (Any thread, GIL or not.) */
size_t tb_chrf_release_spares(void);

/* _reference_chrf.f_score of one row, operation by operation. */
double tb_chrf_f_score(const int64_t *row, int order, double factor, double one_plus_factor, int eps_smoothing);

#endif
