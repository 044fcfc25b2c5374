/* truebleu core: the chrF matrix (MBR): cell (i, j) is the sentence chrF of
 * hypothesis i against reference j alone (plain C, no Python objects; see
 * chrf/matrix.c). A job on the runtime's pool over rows of the matrix. */
#ifndef TB_CHRF_MATRIX_H
#define TB_CHRF_MATRIX_H

#include <stddef.h>

#include "chrf/profile.h"
#include "runtime/pool.h"

typedef struct {
    tb_job base;  /* first: the pool's view of the job */
    const tb_chrf_profiles *profiles;
    size_t nhyps, nrefs;
    size_t first_ref;  /* profile of reference j: first_ref + j (0 when they are the hypotheses) */
    int eps_smoothing;
    double factor, one_plus_factor;
    double *out;       /* nhyps * nrefs scores, row by row */
} tb_chrf_matrix_job;

/* A job over the rows; the caller fills in the rest and runs it with
 * tb_job_run_released(&job.base, ...). */
void tb_chrf_matrix_job_init(tb_chrf_matrix_job *job, size_t nhyps, size_t nrefs);

#endif
