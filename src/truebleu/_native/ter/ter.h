/* TER in the compiled core: the edit distance with shifts of
 * truebleu/metrics/ter/spec.py (sacreBLEU 2.6.0's), on token ids (plain C).
 *
 * ter/edits.c is the algorithm; ter/segments.c splits each segment's
 * tokenized strings into word ids and runs the algorithm per reference as a
 * job on the runtime's threads; ter/bindings.c collects the strings under the
 * GIL (as UTF-8) and runs that job without it.
 */
#ifndef TB_TER_TER_H
#define TB_TER_TER_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/pool.h"
#include "runtime/status.h"
#include "ter/tokenize.h"
#include "text/text.h"

#define TB_TER_INFINITY 10000000000000000LL  /* 1e16: a cell outside the beam */

/* Reusable scratch memory of one worker (grown as needed, freed at the end). */
typedef struct tb_ter_work tb_ter_work;

tb_ter_work *tb_ter_work_new(void);
void tb_ter_work_free(tb_ter_work *w);

/* sacreBLEU's longest shifted block (torchmetrics' copy of the algorithm: 9) */
#define TB_TER_MAX_SHIFT_SIZE 10

/* The steps of an edit path, as the specification's letters: a hypothesis word
 * matched or substituted by a reference word, a hypothesis word alone (deleted
 * from the hypothesis), a reference word alone (inserted into it). */
enum {
    TB_TER_MATCH = '=',
    TB_TER_SUBSTITUTE = 's',
    TB_TER_HYP_ONLY = 'h',
    TB_TER_REF_ONLY = 'r'
};

/* What a search did to one hypothesis (the alignment): shifts[3k .. 3k+2] =
 * (start, length, target) of the k-th shift applied (the specification's
 * shifted()), steps[0 .. n_steps) the edit path from the shifted hypothesis to
 * the reference, first step first; `reference` is for the caller (segments.c:
 * the best reference's index). Grown as needed; a zeroed struct is empty;
 * tb_ter_path_free releases it. */
typedef struct {
    int64_t *shifts;      size_t n_shifts, cap_shifts;
    unsigned char *steps; size_t n_steps, cap_steps;
    size_t reference;
} tb_ter_path;

void tb_ter_path_free(tb_ter_path *path);

/* Edits (shifts + edit distance) turning hyp into ref, as the specification's
 * shift_search(...).edits, into *edits: TB_OK; TB_NOMEM; or TB_RUNTIME when the
 * edit path leaves the beam (the specification raises RuntimeError then).
 * ref_len 0: the hypothesis length. A shift moves at most max_shift words
 * (TB_TER_MAX_SHIFT_SIZE for sacreBLEU). `w` keeps what the search did until
 * its next search: tb_ter_keep_path copies it out. */
tb_status tb_ter_edits(tb_ter_work *w, const uint32_t *hyp, size_t hyp_len,
                       const uint32_t *ref, size_t ref_len, size_t max_shift, int64_t *edits);

/* The shifts and the edit path of w's last tb_ter_edits (TB_OK) into `path`,
 * or TB_NOMEM. */
tb_status tb_ter_keep_path(const tb_ter_work *w, tb_ter_path *path);

/* Item i: hypothesis hyps[i] (tercom-tokenized UTF-8, words separated by
 * spaces; or, with `tokenize`, the line as given, which the worker tokenizes
 * with tb_tercom_tokenize and the `options` TB_TERCOM_*) against refs[first_ref[i] .. first_ref[i+1]) (at least one):
 * out[2i] = the fewest edits, out[2i+1] = the references' average length; with
 * `paths`, paths[i] = the search against the first reference with the fewest
 * edits (its index among the segment's references in paths[i].reference). */
typedef struct {
    tb_job base;  /* first: the pool's view of the job; a failure's item is its segment */
    const tb_text *hyps;   /* TB_KIND_UTF8 */
    const tb_text *refs;
    const size_t *first_ref;
    double *out;
    tb_ter_path *paths;    /* NULL: the statistics only */
    size_t max_shift;      /* the longest shifted block: TB_TER_MAX_SHIFT_SIZE by default */
    int tokenize;          /* 1: hyps are lines to tokenize (the references never are) */
    int options;           /* TB_TERCOM_* of that tokenization */
} tb_ter_job;

/* A job over nseg segments; the caller fills in the rest and runs it with
 * tb_job_run_released(&job.base, ...). */
void tb_ter_job_init(tb_ter_job *job, size_t nseg);

#endif
