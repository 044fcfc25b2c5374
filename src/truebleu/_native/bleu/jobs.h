/* truebleu core: BLEU's jobs on the runtime's pool (plain C, no Python).
 *
 * Every BLEU entry point that tokenizes or matches runs one of these jobs:
 * the bindings (bleu/bindings*.c) gather the inputs with the GIL, fill a job,
 * and run it without the GIL. Each item writes its own row (or, summing, a
 * thread adds its rows into its own sum first), so the results do not depend
 * on the number of threads.
 */
#ifndef TB_BLEU_JOBS_H
#define TB_BLEU_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "bleu/ids.h"
#include "bleu/matrix.h"
#include "bleu/score.h"
#include "runtime/pool.h"
#include "text/tokenize.h"

typedef enum {
    TB_BLEU_PREPARE,  /* item k: tokenize segment k's lines into out_segs[k] */
    TB_BLEU_STATS,    /* item k: hypothesis k against the prepared ref_segs[k] */
    TB_BLEU_PAIRS,    /* item k: sequence 0 of a hypothesis segment against a reference segment */
    TB_BLEU_SENT,     /* item k: hypothesis k against ref_texts[offsets[k] .. offsets[k+1]),
                       * tokenized together, nothing kept */
    TB_BLEU_IDS,      /* item k: id_batch's item k (bleu/ids.h), no tokenizer */
    TB_BLEU_SYSTEMS,  /* item k: hypothesis k of each of n_systems systems against the prepared
                       * ref_segs[k] (texts[s * nitems + k]), into system_rows[s]'s row k */
} tb_bleu_job_kind;

typedef struct {
    tb_job base;  /* first: the pool's view of the job */
    tb_bleu_job_kind kind;
    int mode, max_order;
    /* PREPARE: segment k has texts[offsets[k] .. offsets[k+1]); STATS, SENT: texts[k] */
    const tb_text *texts;
    const size_t *offsets;
    tb_seg **out_segs;             /* PREPARE */
    tb_seg *const *ref_segs;       /* STATS, PAIRS, SYSTEMS */
    const tb_text *ref_texts;      /* SENT */
    const size_t *order;           /* SENT: the items in this order (bleu/groups.h); NULL: 0 .. nitems-1 */
    const uint64_t *looks;         /* SENT: first looks (bleu/groups.h): unequal, other references; NULL: none */
    const tb_id_batch *id_batch;   /* IDS */
    int64_t *out_rows;             /* one row per item (STATS, SENT, PAIRS, IDS) */
    int64_t *const *system_rows;   /* SYSTEMS: each system's rows (nitems each) */
    size_t n_systems;              /* SYSTEMS */
    int64_t *totals;               /* STATS, SENT, IDS without out_rows: the rows' sum, and no rows */
    /* SENT: each item's BLEU (bleu/score.h, the F64 arithmetic of bleu_scores) by
     * the worker that counted its row, while the row is in cache and in parallel;
     * with neither out_rows nor totals, no rows are kept. NULL: none. */
    double *scores;
    tb_bleu_params bleu;           /* SENT with scores */
    /* PAIRS: hypothesis hyp_segs[hyp_index[k]] against ref_segs[ref_index[k]]; both
     * NULL: all pairs, hyp-major (n_ref_segs references per hypothesis) */
    tb_seg *const *hyp_segs;
    const int64_t *hyp_index, *ref_index;
    size_t n_ref_segs;
} tb_bleu_job;

/* A job of `kind` over nitems items (claimed `chunk` at a time); the caller
 * fills in its inputs and outputs, then runs it with tb_job_run_released(&job.base, ...). */
void tb_bleu_job_init(tb_bleu_job *job, tb_bleu_job_kind kind, size_t nitems, size_t chunk);

/* Frees the workers' scratch kept between jobs (a running job's stays with it);
 * the bytes freed. (Any thread, GIL or not.) */
size_t tb_bleu_release_spares(void);

/* The matrix of single-reference statistics (and BLEU) of cross_statistics:
 * row i * nb + j is sequence a[i] against the one reference b[j], all
 * sequences of one segment profiled in `prof`. Items are rows of the matrix. */
typedef struct {
    tb_job base;  /* first */
    const tb_profiles *prof;
    const int64_t *a, *b;
    size_t na, nb, nseq, width;
    const uint32_t *refs;  /* the distinct sequences of b (nrefs) */
    size_t nrefs;
    int64_t *rows;
    double *scores;        /* NULL: statistics only */
    tb_bleu_params bleu;
} tb_cross_job;

void tb_cross_job_init(tb_cross_job *job, size_t na);

#endif
