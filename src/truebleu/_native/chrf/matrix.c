/* The chrF matrix (chrf/matrix.h).
 *
 * Each line's profile is made once, with an inverted index of the references'
 * n-grams (chrf/profile.c). A worker takes a row: for each n-gram the
 * hypothesis keeps, it walks the references that hold it and adds
 * min(hypothesis count, reference count) to that reference's matches of the
 * n-gram's order, so the work is the n-grams two lines share, not every n-gram
 * of every pair. A line against itself (the diagonal of an MBR matrix) matches
 * every n-gram. Each cell's row of counts then gives the f-score of
 * tb_chrf_f_score, as the statistics do.
 */
#include "chrf/matrix.h"
#include "chrf/chrf.h"

#include <stdlib.h>
#include <string.h>

/* The matches of hypothesis profile hp against every reference, by order, into
 * matches[r * orders + o]; returns the postings walked (the row's work). */
static size_t row_matches(const tb_chrf_profiles *pr, size_t hp, size_t nrefs, int64_t *matches)
{
    size_t walked = 0;
    size_t orders = (size_t)pr->orders;
    memset(matches, 0, nrefs * orders * sizeof(int64_t));
    const tb_chrf_entry *e = pr->entries + pr->start[hp * orders];
    const tb_chrf_entry *end = pr->entries + pr->start[(hp + 1) * orders];
    for (; e < end; e++) {
        uint32_t h = e->count;
        int64_t *by_order = matches + pr->order_of[e->id];
        const tb_chrf_posting *p = pr->postings + pr->post_start[e->id];
        const tb_chrf_posting *stop = pr->postings + pr->post_start[e->id + 1];
        walked += (size_t)(stop - p);
        for (; p < stop; p++)
            by_order[(size_t)p->ref * orders] += h < p->count ? h : p->count;
    }
    return walked;
}

/* The statistics row of hypothesis profile hp against reference profile rp. */
static void cell_row(const tb_chrf_profiles *pr, size_t hp, size_t rp, const int64_t *matches,
                     int64_t *row)
{
    size_t orders = (size_t)pr->orders;
    const int64_t *ht = pr->totals + hp * orders, *rt = pr->totals + rp * orders;
    for (size_t o = 0; o < orders; o++) {
        int64_t *cell = row + 3 * o;
        if (!rt[o]) {
            cell[0] = cell[1] = cell[2] = 0;  /* no reference n-gram: all zero */
            continue;
        }
        cell[0] = ht[o];
        cell[1] = rt[o];
        cell[2] = hp == rp ? rt[o] : matches[o];
    }
}

static void matrix_worker(tb_job *base)
{
    tb_chrf_matrix_job *j = (tb_chrf_matrix_job *)base;
    const tb_chrf_profiles *pr = j->profiles;
    size_t orders = (size_t)pr->orders;
    int64_t *matches = malloc((j->nrefs ? j->nrefs : 1) * orders * sizeof(int64_t));
    int64_t *row = malloc(3 * orders * sizeof(int64_t));
    if (!matches || !row) {
        tb_job_fail(base, TB_NOMEM, 0);
        free(matches);
        free(row);
        return;
    }
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    size_t lo, hi;
    while (tb_job_claim(base, &lo, &hi)) {
        for (size_t i = lo; i < hi; i++) {
            /* work units: the row's cells and the postings it walks (bounded) */
            size_t units = j->nrefs + row_matches(pr, i, j->nrefs, matches);
            double *out = j->out + i * j->nrefs;
            for (size_t r = 0; r < j->nrefs; r++) {
                cell_row(pr, i, j->first_ref + r, matches + r * orders, row);
                out[r] = tb_chrf_f_score(row, pr->orders, j->factor, j->one_plus_factor,
                                         j->eps_smoothing);
            }
            if (tb_poll_spend(&poll.base, tb_poll_units_of(units)))
                break;
        }
    }
    free(matches);
    free(row);
}

void tb_chrf_matrix_job_init(tb_chrf_matrix_job *job, size_t nhyps, size_t nrefs)
{
    memset(job, 0, sizeof(*job));
    job->nhyps = nhyps;
    job->nrefs = nrefs;
    /* about 4096 cells a claim, one row at least: chunks small enough to share evenly */
    size_t chunk = nrefs ? 4096 / nrefs : 4096;
    tb_job_init(&job->base, matrix_worker, nhyps, chunk ? chunk : 1);
}
