/* TER on token ids: the beam edit distance and the greedy shift search of
 * truebleu/metrics/ter/spec.py, decision for decision (read that file first:
 * the names here follow it). The work memory keeps what the last search did
 * (the shifts it applied, the final edit path): tb_ter_keep_path copies that
 * out, the alignment.
 *
 * Memory: row i of the matrix only holds its beam (lo[i] <= j < hi[i]); a
 * read outside the beam gives TB_TER_INFINITY, as the specification's
 * "infinite" cells. The rows of the current hypothesis (with their steps,
 * for the trace) are kept; a shifted candidate reuses those of the prefix it
 * shares with it and computes the rest in two rolling rows.
 *
 * The suffix a candidate shares with the current hypothesis is not computed
 * again either: the work memory also keeps the reverse matrix of the current
 * hypothesis (the cheapest path from each beam cell to the last one, through
 * beam cells), and a candidate's distance is the minimum over the cells of the
 * first shared row k of (its forward cost + that reverse cost). Every path of
 * the beam crosses row k, and costs add along a path, so that minimum is the
 * forward matrix's last cell: the same number, from the rows the shift changed
 * (only a candidate's distance is needed, never its trace).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/memory.h"
#include "runtime/portable.h"
#include "ter/ter.h"

#define BEAM_WIDTH 25
#define MAX_SHIFT_DIST 50
#define MAX_SHIFT_CANDIDATES 1000

enum {
    MATCH = TB_TER_MATCH,
    SUBSTITUTE = TB_TER_SUBSTITUTE,
    HYP_ONLY = TB_TER_HYP_ONLY,
    REF_ONLY = TB_TER_REF_ONLY,
    UNDEFINED = 0
};

struct tb_ter_work {
    int64_t *lo, *hi;       size_t cap_lo, cap_hi;  /* beam of each row */
    size_t *offset;         size_t cap_offset;   /* where row i starts in cost/step */
    int64_t *cost;          size_t cap_cost;     /* rows of the current hypothesis */
    int64_t *rcost;         size_t cap_rcost;    /* its reverse rows (same layout) */
    unsigned char *step;    size_t cap_step;
    int64_t *roll;          size_t cap_roll;     /* two rolling rows for candidates */
    uint32_t *words, *cand; size_t cap_words, cap_cand;
    unsigned char *steps;   size_t cap_steps, n_steps;  /* the trace, last step first */
    int64_t *align;         size_t cap_align;
    int32_t *hyp_err_sum, *ref_err_sum; size_t cap_hes, cap_res;  /* prefix sums */
    int64_t *shifts;        size_t cap_shifts, n_shifts;  /* (start, length, target) applied */
};

tb_ter_work *tb_ter_work_new(void)
{
    return calloc(1, sizeof(tb_ter_work));
}

void tb_ter_work_free(tb_ter_work *w)
{
    if (!w)
        return;
    free(w->lo); free(w->hi); free(w->offset); free(w->cost); free(w->rcost); free(w->step);
    free(w->roll); free(w->words); free(w->cand); free(w->steps); free(w->align);
    free(w->hyp_err_sum); free(w->ref_err_sum); free(w->shifts);
    free(w);
}

/* The beam of every row for hypotheses of n_h words against n_r reference words. */
static int set_bounds(tb_ter_work *w, size_t n_h, size_t n_r)
{
    if (GROW(w->lo, w->cap_lo, n_h + 1) < 0 || GROW(w->hi, w->cap_hi, n_h + 1) < 0 ||
        GROW(w->offset, w->cap_offset, n_h + 2) < 0)
        return -1;
    double ratio = n_h ? (double)n_r / (double)n_h : 1.0;
    int64_t beam = BEAM_WIDTH < ratio / 2 ? (int64_t)ceil(ratio / 2 + BEAM_WIDTH) : BEAM_WIDTH;
    w->lo[0] = 0;
    w->hi[0] = (int64_t)n_r + 1;
    w->offset[0] = 0;
    w->offset[1] = n_r + 1;
    for (size_t i = 1; i <= n_h; i++) {
        int64_t diagonal = (int64_t)floor((double)i * ratio);
        int64_t lo = diagonal - beam, hi = diagonal + beam;
        w->lo[i] = lo < 0 ? 0 : lo;
        w->hi[i] = (i == n_h || hi > (int64_t)n_r + 1) ? (int64_t)n_r + 1 : hi;
        w->offset[i + 1] = w->offset[i] + (size_t)(w->hi[i] - w->lo[i]);
    }
    if (GROW(w->cost, w->cap_cost, w->offset[n_h + 1]) < 0 ||
        GROW(w->rcost, w->cap_rcost, w->offset[n_h + 1]) < 0 ||
        GROW(w->step, w->cap_step, w->offset[n_h + 1]) < 0 ||
        GROW(w->roll, w->cap_roll, 2 * (n_r + 1)) < 0)
        return -1;
    return 0;
}

/* Cell j of a row holding cells lo <= j < hi (stored from index 0). */
static inline int64_t cell(const int64_t *row, int64_t lo, int64_t hi, int64_t j)
{
    return (j >= lo && j < hi) ? row[j - lo] : TB_TER_INFINITY;
}

/* Row i from row i-1 (`above`, cells alo..ahi): the specification's _row. */
static void compute_row(uint32_t word, const uint32_t *ref,
                        const int64_t *above, int64_t alo, int64_t ahi,
                        int64_t *cur, unsigned char *step, int64_t lo, int64_t hi)
{
    for (int64_t j = lo; j < hi; j++) {
        int64_t k = j - lo;
        if (j == 0) {
            cur[k] = cell(above, alo, ahi, 0) + 1;
            if (step)
                step[k] = HYP_ONLY;
            continue;
        }
        int64_t best = TB_TER_INFINITY;
        unsigned char how = UNDEFINED;
        int same = word == ref[j - 1];
        int64_t option = cell(above, alo, ahi, j - 1) + (same ? 0 : 1);
        if (option < best) {
            best = option;
            how = same ? MATCH : SUBSTITUTE;
        }
        option = cell(above, alo, ahi, j) + 1;
        if (option < best) {
            best = option;
            how = HYP_ONLY;
        }
        option = (j - 1 >= lo ? cur[k - 1] : TB_TER_INFINITY) + 1;
        if (option < best) {
            best = option;
            how = REF_ONLY;
        }
        cur[k] = best;
        if (step)
            step[k] = how;
    }
}

/* Rows from..n_h of `words` into the kept matrix (rows before `from` are valid). */
static void kept_rows(tb_ter_work *w, const uint32_t *words, size_t n_h, const uint32_t *ref,
                      size_t from)
{
    if (from == 0) {
        for (size_t j = 0; j < (size_t)w->hi[0]; j++) {
            w->cost[j] = (int64_t)j;
            w->step[j] = REF_ONLY;
        }
        from = 1;
    }
    for (size_t i = from; i <= n_h; i++)
        compute_row(words[i - 1], ref, w->cost + w->offset[i - 1], w->lo[i - 1], w->hi[i - 1],
                    w->cost + w->offset[i], w->step + w->offset[i], w->lo[i], w->hi[i]);
}

static inline int64_t last_cell(const tb_ter_work *w, size_t n_h, size_t n_r)
{
    return w->cost[w->offset[n_h] + (n_r - (size_t)w->lo[n_h])];
}

/* The reverse matrix of `words`: the cheapest way from beam cell (i, j) to
 * (n_h, n_r) by the forward matrix's steps (a match or substitution of words[i]
 * and ref[j], words[i] alone, ref[j] alone), through beam cells only. Row i
 * depends on words[i..n_h) alone: rows from `from` on are kept (n_h + 1: none). */
static void reverse_rows(tb_ter_work *w, const uint32_t *words, size_t n_h, const uint32_t *ref,
                         size_t n_r, size_t from)
{
    if (from > n_h) {  /* the last row: reference words alone */
        int64_t *row = w->rcost + w->offset[n_h];
        for (int64_t j = w->hi[n_h] - 1; j >= w->lo[n_h]; j--)
            row[j - w->lo[n_h]] = (int64_t)n_r - j;
        from = n_h;
    }
    for (size_t i = from; i-- > 0;) {
        const int64_t *below = w->rcost + w->offset[i + 1];
        int64_t blo = w->lo[i + 1], bhi = w->hi[i + 1], lo = w->lo[i];
        int64_t *row = w->rcost + w->offset[i];
        uint32_t word = words[i];
        int64_t right = TB_TER_INFINITY;  /* cell (i, j + 1) */
        for (int64_t j = w->hi[i] - 1; j >= lo; j--) {
            int64_t best = TB_TER_INFINITY;
            if (j < (int64_t)n_r && j + 1 >= blo && j + 1 < bhi)
                best = below[j + 1 - blo] + (word != ref[j]);
            if (j >= blo && j < bhi && below[j - blo] + 1 < best)
                best = below[j - blo] + 1;
            if (right + 1 < best)
                best = right + 1;
            row[j - lo] = right = best;
        }
    }
}

static size_t common_suffix(const uint32_t *a, const uint32_t *b, size_t n)
{
    size_t k = 0;
    while (k < n && a[n - 1 - k] == b[n - 1 - k])
        k++;
    return k;
}

/* The distance of `cand`, whose first `prefix` words are those of the kept
 * rows (`words`): forward rows while the words differ, then the reverse rows
 * of the suffix both share (see the top of this file). */
static int64_t candidate_cost(tb_ter_work *w, const uint32_t *words, const uint32_t *cand, size_t n_h,
                              const uint32_t *ref, size_t n_r, size_t prefix)
{
    if (prefix >= n_h)
        return last_cell(w, n_h, n_r);
    size_t k = n_h - common_suffix(words, cand, n_h);  /* > prefix: word `prefix` differs */
    const int64_t *above = w->cost + w->offset[prefix];
    int64_t *rows[2] = {w->roll, w->roll + (n_r + 1)};
    int64_t *cur = NULL;
    for (size_t i = prefix + 1; i <= k; i++) {
        cur = rows[i & 1];
        compute_row(cand[i - 1], ref, above, w->lo[i - 1], w->hi[i - 1], cur, NULL,
                    w->lo[i], w->hi[i]);
        above = cur;
    }
    if (k == n_h)
        return cur[n_r - (size_t)w->lo[n_h]];
    const int64_t *rev = w->rcost + w->offset[k];
    int64_t best = 2 * TB_TER_INFINITY + 2 * (int64_t)(n_h + n_r);  /* above any sum of two cells */
    for (int64_t j = w->lo[k]; j < w->hi[k]; j++) {
        int64_t total = cur[j - w->lo[k]] + rev[j - w->lo[k]];
        if (total < best)
            best = total;
    }
    return best;
}

/* The trace of the kept rows, then the alignment and the error prefix sums
 * (the specification's trace + alignment). TB_RUNTIME if the path leaves the beam. */
static tb_status align_kept(tb_ter_work *w, size_t n_h, size_t n_r)
{
    if (GROW(w->steps, w->cap_steps, n_h + n_r) < 0 || GROW(w->align, w->cap_align, n_r) < 0 ||
        GROW(w->hyp_err_sum, w->cap_hes, n_h + 1) < 0 ||
        GROW(w->ref_err_sum, w->cap_res, n_r + 1) < 0)
        return TB_NOMEM;
    size_t n = 0;
    int64_t i = (int64_t)n_h, j = (int64_t)n_r;
    while (i > 0 || j > 0) {
        unsigned char how = (j >= w->lo[i] && j < w->hi[i])
                                ? w->step[w->offset[i] + (size_t)(j - w->lo[i])] : UNDEFINED;
        w->steps[n++] = how;
        if (how == MATCH || how == SUBSTITUTE) {
            i--;
            j--;
        } else if (how == HYP_ONLY) {
            i--;
        } else if (how == REF_ONLY) {
            j--;
        } else {
            return TB_RUNTIME;
        }
    }
    w->n_steps = n;
    int64_t pos_hyp = -1;
    size_t h = 0, r = 0;
    w->hyp_err_sum[0] = w->ref_err_sum[0] = 0;
    while (n-- > 0) {  /* the steps were collected backwards */
        unsigned char how = w->steps[n];
        if (how != REF_ONLY) {
            pos_hyp++;
            w->hyp_err_sum[h + 1] = w->hyp_err_sum[h] + (how != MATCH);
            h++;
        }
        if (how != HYP_ONLY) {
            w->align[r] = pos_hyp;
            w->ref_err_sum[r + 1] = w->ref_err_sum[r] + (how != MATCH);
            r++;
        }
    }
    return TB_OK;
}

/* Python's out.extend(src[from:to]) for 0 <= from, to (clamped to len). */
static inline size_t put_slice(uint32_t *out, size_t n, const uint32_t *src, size_t len,
                               size_t from, size_t to)
{
    if (to > len)
        to = len;
    if (from < to) {
        memcpy(out + n, src + from, (to - from) * sizeof(uint32_t));
        n += to - from;
    }
    return n;
}

/* The specification's shifted(): the block words[start:start+length] moved by target. */
static void shift_words(uint32_t *out, const uint32_t *words, size_t len, size_t start,
                        size_t length, size_t target)
{
    size_t n = 0;
    if (target < start) {
        n = put_slice(out, n, words, len, 0, target);
        n = put_slice(out, n, words, len, start, start + length);
        n = put_slice(out, n, words, len, target, start);
        n = put_slice(out, n, words, len, start + length, len);
    } else if (target > start + length) {
        n = put_slice(out, n, words, len, 0, start);
        n = put_slice(out, n, words, len, start + length, target);
        n = put_slice(out, n, words, len, start, start + length);
        n = put_slice(out, n, words, len, target, len);
    } else {
        n = put_slice(out, n, words, len, 0, start);
        n = put_slice(out, n, words, len, start + length, length + target);
        n = put_slice(out, n, words, len, start, start + length);
        n = put_slice(out, n, words, len, length + target, len);
    }
}

static size_t common_prefix(const uint32_t *a, const uint32_t *b, size_t n)
{
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

typedef struct {
    int found;
    int64_t gain, length, start, target;
} shift_key;

/* (gain, length, -start, -target) greater than the best so far? */
static int better(const shift_key *best, int64_t gain, int64_t length, int64_t start,
                  int64_t target)
{
    if (!best->found)
        return 1;
    if (gain != best->gain)
        return gain > best->gain;
    if (length != best->length)
        return length > best->length;
    if (start != best->start)
        return start < best->start;
    return target < best->target;
}

/* One round: the best shift of w->words (kept rows are current). */
static shift_key best_shift(tb_ter_work *w, size_t n_h, const uint32_t *ref, size_t n_r,
                            size_t max_shift, int64_t cost, int64_t *checked)
{
    shift_key best = {0, 0, 0, 0, 0};
    const uint32_t *words = w->words;
    for (size_t h = 0; h < n_h; h++) {
        size_t r_first = h > MAX_SHIFT_DIST ? h - MAX_SHIFT_DIST : 0;
        size_t r_end = h + MAX_SHIFT_DIST + 1 < n_r ? h + MAX_SHIFT_DIST + 1 : n_r;
        for (size_t r = r_first; r < r_end; r++) {
            for (size_t length = 1; length <= max_shift && h + length <= n_h &&
                                    r + length <= n_r && words[h + length - 1] == ref[r + length - 1];
                 length++) {
                if (w->hyp_err_sum[h + length] == w->hyp_err_sum[h] ||
                    w->ref_err_sum[r + length] == w->ref_err_sum[r] ||
                    ((int64_t)h <= w->align[r] && w->align[r] < (int64_t)(h + length)))
                    continue;
                int64_t previous = -1;
                for (int64_t offset = -1; offset < (int64_t)length; offset++) {
                    int64_t target = (int64_t)r + offset == -1 ? 0 : w->align[r + offset] + 1;
                    if (target == previous)
                        continue;
                    previous = target;
                    shift_words(w->cand, words, n_h, h, length, (size_t)target);
                    size_t prefix = common_prefix(words, w->cand, n_h);
                    int64_t gain = cost - candidate_cost(w, words, w->cand, n_h, ref, n_r, prefix);
                    (*checked)++;
                    if (better(&best, gain, (int64_t)length, (int64_t)h, target)) {
                        best.found = 1;
                        best.gain = gain;
                        best.length = (int64_t)length;
                        best.start = (int64_t)h;
                        best.target = target;
                    }
                }
                if (*checked >= MAX_SHIFT_CANDIDATES)
                    return best;
            }
        }
    }
    return best;
}

void tb_ter_path_free(tb_ter_path *path)
{
    free(path->shifts);
    free(path->steps);
    memset(path, 0, sizeof(*path));
}

tb_status tb_ter_keep_path(const tb_ter_work *w, tb_ter_path *path)
{
    if (GROW(path->shifts, path->cap_shifts, 3 * w->n_shifts + 1) < 0 ||
        GROW(path->steps, path->cap_steps, w->n_steps + 1) < 0)
        return TB_NOMEM;
    if (w->n_shifts)
        memcpy(path->shifts, w->shifts, 3 * w->n_shifts * sizeof(int64_t));
    path->n_shifts = w->n_shifts;
    for (size_t k = 0; k < w->n_steps; k++)  /* the trace was collected last step first */
        path->steps[k] = w->steps[w->n_steps - 1 - k];
    path->n_steps = w->n_steps;
    return TB_OK;
}

/* What the search did, kept in w for tb_ter_keep_path: out of line, so that the
 * search's hot loops (inlined into tb_ter_edits) compile as they would without it
 * (inlined, this bookkeeping cost the statistics 3.7% more instructions). */
static TB_NOINLINE tb_status keep_shift(tb_ter_work *w, const shift_key *shift)
{
    if (GROW(w->shifts, w->cap_shifts, 3 * (w->n_shifts + 1)) < 0)
        return TB_NOMEM;
    int64_t *kept = w->shifts + 3 * w->n_shifts++;
    kept[0] = shift->start;
    kept[1] = shift->length;
    kept[2] = shift->target;
    return TB_OK;
}

/* The edit path against an empty reference: every hypothesis word alone. */
static TB_NOINLINE tb_status keep_hyp_only(tb_ter_work *w, size_t n_h)
{
    if (GROW(w->steps, w->cap_steps, n_h + 1) < 0)
        return TB_NOMEM;
    memset(w->steps, HYP_ONLY, n_h);
    w->n_steps = n_h;
    return TB_OK;
}

tb_status tb_ter_edits(tb_ter_work *w, const uint32_t *hyp, size_t n_h,
                       const uint32_t *ref, size_t n_r, size_t max_shift, int64_t *edits)
{
    w->n_shifts = 0;
    if (n_r == 0) {
        *edits = (int64_t)n_h;
        return keep_hyp_only(w, n_h);
    }
    if (set_bounds(w, n_h, n_r) < 0 || GROW(w->words, w->cap_words, n_h + 1) < 0 ||
        GROW(w->cand, w->cap_cand, n_h + 1) < 0)
        return TB_NOMEM;
    memcpy(w->words, hyp, n_h * sizeof(uint32_t));
    kept_rows(w, w->words, n_h, ref, 0);
    reverse_rows(w, w->words, n_h, ref, n_r, n_h + 1);
    int64_t shifts = 0, checked = 0;
    for (;;) {
        int64_t cost = last_cell(w, n_h, n_r);
        tb_status status = align_kept(w, n_h, n_r);
        if (status != TB_OK)
            return status;
        shift_key best = best_shift(w, n_h, ref, n_r, max_shift, cost, &checked);
        if (checked >= MAX_SHIFT_CANDIDATES || !best.found || best.gain <= 0) {
            *edits = shifts + cost;  /* w->steps holds the trace of the final words */
            return TB_OK;
        }
        if (keep_shift(w, &best) != TB_OK)
            return TB_NOMEM;
        shift_words(w->cand, w->words, n_h, (size_t)best.start, (size_t)best.length,
                    (size_t)best.target);
        size_t prefix = common_prefix(w->words, w->cand, n_h);
        size_t suffix = common_suffix(w->words, w->cand, n_h);
        uint32_t *tmp = w->words;  /* the candidate becomes the current hypothesis */
        w->words = w->cand;
        w->cand = tmp;
        size_t cap = w->cap_words;
        w->cap_words = w->cap_cand;
        w->cap_cand = cap;
        kept_rows(w, w->words, n_h, ref, prefix + 1);
        reverse_rows(w, w->words, n_h, ref, n_r, n_h - suffix);
        shifts++;
    }
}
