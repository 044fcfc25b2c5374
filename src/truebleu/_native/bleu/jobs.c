/* truebleu core: BLEU's jobs (see bleu/jobs.h): the workers that tokenize and
 * match on every thread of a job. */
#include <stdlib.h>
#include <string.h>

#include "bleu/jobs.h"
#include "bleu/ngram.h"
#include "runtime/portable.h"
#include "runtime/spares.h"

/* acc += row, both `width` long (apart: the compiler may use vector adds) */
static TB_ALWAYS_INLINE void add_row_of(int64_t *restrict acc, const int64_t *restrict row, size_t width)
{
    for (size_t c = 0; c < width; c++)
        acc[c] += row[c];
}

/* add_row_of, with a copy for the width of sacreBLEU's order 4 (a constant:
 * five vector adds, no loop; every item of a summing job pays it) */
static inline void add_row(int64_t *restrict acc, const int64_t *restrict row, size_t width)
{
    if (width == 10)
        add_row_of(acc, row, 10);
    else
        add_row_of(acc, row, width);
}

static inline int same_text(const tb_text *a, const tb_text *b)
{
    if (a->kind != b->kind || a->length != b->length || a->ascii_lower != b->ascii_lower)
        return 0;
    if (a->data == b->data)  /* the same str (references repeated per system): no size to work out */
        return 1;
    size_t unit = a->kind == TB_KIND_UTF8 ? 1 : (size_t)a->kind;
    return memcmp(a->data, b->data, a->length * unit) == 0;
}

/* Whether sentence items a and b have the same reference texts, in the same
 * order: an RL trainer scores a group of completions of one prompt, which
 * share its references, and several systems scored in one call repeat each
 * test set's references; the job visits such items one after another
 * (bleu/groups.h), and tokenizing the references again would cost most of each
 * item (comparing costs a pass of memcmp, nothing when they are the same str). */
static inline int same_references(const tb_bleu_job *j, size_t a, size_t b)
{
    const size_t *offsets = j->offsets;
    const size_t n = offsets[a + 1] - offsets[a];
    if (offsets[b + 1] - offsets[b] != n)
        return 0;
    const tb_text *x = j->ref_texts + offsets[a], *y = j->ref_texts + offsets[b];
    for (size_t t = 0; t < n; t++)
        if (!same_text(&x[t], &y[t]))
            return 0;
    return 1;
}

/* Whether items a and b may have the same references: their first looks
 * (bleu/groups.h) are equal, or there are none. */
static inline int may_share(const tb_bleu_job *j, size_t a, size_t b)
{
    return !j->looks || j->looks[a] == j->looks[b];
}

/* How a job counts a hypothesis against references counted for it alone. With
 * tokenize='char' nearly every reference token (a character) is in the
 * hypothesis, and finding the tokens they share first (tb_segment_row_ids)
 * costs more than it saves: every reference n-gram is counted instead
 * (tb_segment_row_all; on WMT21 de-en, 19 systems: 3% fewer instructions, about
 * 10% less time, busy machine). Not zh: its words make that 2.5% more there. */
typedef int (*tb_row_fn)(tb_matcher *, const uint32_t *, uint32_t, const tb_seg *, int, int64_t *);

static inline tb_row_fn single_row(const tb_bleu_job *j)
{
    return j->mode == TB_CHAR ? tb_segment_row_all : tb_segment_row_ids;
}

/* An item's BLEU from its row (bleu/score.h, F64: bleu_scores' arithmetic), the
 * logs of small precisions and the penalties of short sentences from memo. sacreBLEU's sentence_bleu defaults
 * (order 4, exp smoothing, effective order) have a copy compiled with them as
 * constants: its loops unrolled, the other smoothings' tests gone. */
static double sentence_bleu(const int64_t *row, const tb_bleu_params *p, tb_log_memo *memo)
{
    if (p->max_order == 4 && p->smooth == TB_SMOOTH_EXP && p->effective_order) {
        const tb_bleu_params defaults = {4, TB_SMOOTH_EXP, p->smooth_value, 1};
        return tb_bleu_of_row_memo(row, &defaults, TB_BLEU_F64, memo);
    }
    return tb_bleu_of_row_memo(row, p, TB_BLEU_F64, memo);
}

/* A worker's scratch: the builders of references and hypothesis, the
 * vocabulary of token ids, the matcher and (once a job scores) the logs of
 * precisions and brevity penalties (bleu/score.h), kept between jobs (runtime/spares.h). */
typedef struct {
    tb_builder b, b2;
    tb_id_vocab v;
    tb_matcher m;
    tb_log_memo *logs;
} bleu_scratch;

/* What a worker's scratch holds for the items it ran last, kept from one of its
 * chunks to the next (one per worker and job): a group of items sharing
 * references that straddles two chunks (32 items each; WMT21's systems make
 * groups of about 15) has them tokenized and learned once, not once per chunk
 * (the one cold call on WMT21 into English: 3,101 of 11,046 learns were repeats).
 * With several threads the next chunk is another part of the job; each item
 * compares its references with those held, as within a chunk. */
typedef struct {
    size_t refs_in_b;  /* SENT: the item whose references b holds (as ref); IDS: s->v (SIZE_MAX: none) */
    int learned;       /* SENT, IDS: m learned ref's n-grams (tb_matcher_learn) */
    size_t last_sent;  /* SENT: the item before, its row written (SIZE_MAX: none) */
    tb_seg ref;
} bleu_held;

/* Items lo .. hi - 1 of the job, after those `held` describes. own: without
 * j->out_rows, the thread's row (width) and then, with j->totals, its sum of
 * rows (width). */
static void run_items(tb_bleu_job *j, bleu_scratch *s, tb_poll *poll, size_t lo, size_t hi, int64_t *own,
                      bleu_held *held)
{
    tb_builder *b = &s->b, *b2 = &s->b2;
    tb_matcher *m = &s->m;
    const size_t width = tb_row_width(j->max_order);
    const int only_sum = j->totals != NULL;
    size_t refs_in_b = held->refs_in_b;
    int learned = held->learned;
    size_t last_sent = held->last_sent;
    tb_seg ref = held->ref;
    size_t ahead = SIZE_MAX;  /* IDS: the item after the one whose references s->v holds */
    int ahead_same = 0;       /* IDS: whether it has the same references */
    for (size_t p = lo; p < hi && !tb_job_failed(&j->base); p++) {
        const size_t k = j->order ? j->order[p] : p;
        int rc = 0;
        int64_t *row = j->out_rows ? j->out_rows + k * width : own;
        if (j->kind == TB_BLEU_PREPARE) {
            tb_builder_reset(b);
            for (size_t t = j->offsets[k]; t < j->offsets[k + 1] && rc == 0; t++)
                rc = tb_builder_add_line(b, &j->texts[t], j->mode);
            if (rc == 0) {
                j->out_segs[k] = tb_builder_freeze(b);
                rc = j->out_segs[k] ? 0 : -1;
            }
        } else if (j->kind == TB_BLEU_STATS) {
            tb_builder_reset(b);
            b->lookup = j->ref_segs[k];  /* hypothesis tokens straight to reference ids */
            rc = tb_builder_add_line(b, &j->texts[k], j->mode);
            b->lookup = NULL;
            if (rc == 0)
                rc = single_row(j)(m, b->ids, (uint32_t)b->nids, j->ref_segs[k], j->max_order, row);
        } else if (j->kind == TB_BLEU_SENT) {
            /* the references in b (still there when they are those of the item
             * before), the hypothesis in b2 as ids of b's vocabulary */
            const int same_refs = refs_in_b != SIZE_MAX && may_share(j, refs_in_b, k) && same_references(j, refs_in_b, k);
            if (same_refs && last_sent != SIZE_MAX && same_text(&j->texts[k], &j->texts[last_sent])) {
                /* the item before again (systems often agree): its row (without
                 * out_rows, row is still the thread's copy of it) and its score.
                 * Its work spent (the comparison's, at most): a call of such items
                 * alone, which tokenizes nothing after its first, still polls */
                if (tb_poll_spend(poll, 16 + (long)j->texts[k].length))
                    break;
                if (j->out_rows)
                    memcpy(row, j->out_rows + last_sent * width, width * sizeof(int64_t));
                if (j->scores)
                    j->scores[k] = j->scores[last_sent];
            } else {
                if (!same_refs) {
                    refs_in_b = SIZE_MAX;
                    learned = 0;
                    tb_builder_reset(b);
                    for (size_t t = j->offsets[k]; t < j->offsets[k + 1] && rc == 0; t++)
                        rc = tb_builder_add_line(b, &j->ref_texts[t], j->mode);
                    if (rc == 0) {
                        tb_builder_view(b, &ref);
                        refs_in_b = k;
                    }
                    /* (past the chunk too: with one thread the next chunk is this worker's) */
                    const size_t n = j->base.nitems;
                    const size_t next = p + 1 < n ? (j->order ? j->order[p + 1] : p + 1) : SIZE_MAX;
                    if (rc == 0 && next != SIZE_MAX && may_share(j, k, next) && same_references(j, k, next)) {
                        /* the next hypothesis has these references too: their n-grams
                         * counted once for this one and the ones after it */
                        rc = tb_matcher_learn(m, &ref, j->max_order);
                        learned = rc == 0;
                    }
                }
                if (rc == 0) {
                    tb_builder_reset(b2);
                    b2->lookup = &ref;
                    rc = tb_builder_add_line(b2, &j->texts[k], j->mode);
                    b2->lookup = NULL;
                    if (rc == 0)
                        rc = (learned ? tb_matcher_row : single_row(j))(m, b2->ids, (uint32_t)b2->nids, &ref,
                                                                        j->max_order, row);
                    if (rc == 0 && j->scores)
                        j->scores[k] = sentence_bleu(row, &j->bleu, s->logs);
                }
            }
            last_sent = rc == 0 ? k : SIZE_MAX;
        } else if (j->kind == TB_BLEU_IDS) {
            /* the references' vocabulary in s->v (kept while the items share them),
             * the hypothesis looked up in it: the work is a unit per id and order */
            const tb_id_batch *ib = j->id_batch;
            const size_t work = 16 + tb_id_item_size(ib, k) * (size_t)j->max_order;
            const uint32_t *hyp;
            uint32_t hlen;
            if (tb_poll_spend(poll, tb_poll_units_of(work)))
                break;
            /* whether k has the references of s->v: known when the item before
             * looked ahead at k (so that a call without groups compares each
             * item's references with another's once, as before the look-ahead) */
            const int same_refs = refs_in_b != SIZE_MAX &&
                                  (ahead == k ? ahead_same : tb_id_same_references(ib, refs_in_b, k));
            if (!same_refs) {
                refs_in_b = SIZE_MAX;
                learned = 0;
                ahead = SIZE_MAX;
                rc = tb_id_references(&s->v, ib, k, &ref);
                if (rc == 0)
                    refs_in_b = k;
                /* the next item has these references too (a group of completions;
                 * past the chunk too, as SENT looks): their n-grams counted once */
                if (rc == 0 && p + 1 < ib->nitems) {
                    ahead = j->order ? j->order[p + 1] : p + 1;
                    ahead_same = tb_id_same_references(ib, k, ahead);
                    if (ahead_same) {
                        rc = tb_matcher_learn(m, &ref, j->max_order);
                        learned = rc == 0;
                    }
                }
            }
            if (rc == 0)
                rc = tb_id_hypothesis(&s->v, ib, k, &hyp, &hlen);
            if (rc == 0)
                rc = (learned ? tb_matcher_row : tb_segment_row_ids)(m, hyp, hlen, &ref, j->max_order, row);
        } else {
            size_t h, r;
            if (j->hyp_index) {
                h = (size_t)j->hyp_index[k];
                r = (size_t)j->ref_index[k];
            } else {
                h = k / j->n_ref_segs;
                r = k % j->n_ref_segs;
            }
            /* the pair's work, as the tokenizers count theirs (a unit per code point):
             * the hypothesis's vocabulary looked up, then both sides' n-grams */
            const tb_seg *hs = j->hyp_segs[h], *rs = j->ref_segs[r];
            if (tb_poll_spend(poll, 16 + (long)hs->nvocab + ((long)hs->ntok + rs->ntok) * j->max_order))
                break;
            rc = tb_segment_row(m, hs, rs, j->max_order, j->out_rows + k * width);
        }
        if (rc < 0)
            tb_job_fail(&j->base, TB_NOMEM, k);  /* (a stop asked by the poll came first: it wins) */
        else if (only_sum)
            add_row(own + width, own, width);
    }
    *held = (bleu_held){refs_in_b, learned, last_sent, ref};
}

static tb_spares bleu_spares;

static bleu_scratch *scratch_take(void)
{
    bleu_scratch *s = tb_spares_take(&bleu_spares);
    if (!s && (s = malloc(sizeof(*s)))) {
        tb_builder_init(&s->b);
        tb_builder_init(&s->b2);
        tb_id_vocab_init(&s->v);
        tb_matcher_init(&s->m);
        s->logs = NULL;
    }
    return s;
}

static size_t scratch_footprint(const bleu_scratch *s)
{
    return tb_builder_footprint(&s->b) + tb_builder_footprint(&s->b2) + tb_id_vocab_footprint(&s->v) +
           tb_matcher_footprint(&s->m) + (s->logs ? sizeof(tb_log_memo) : 0);
}

static void scratch_free(bleu_scratch *s)
{
    tb_builder_free(&s->b);
    tb_builder_free(&s->b2);
    tb_id_vocab_free(&s->v);
    tb_matcher_free(&s->m);
    free(s->logs);
    free(s);
}

static void scratch_give(bleu_scratch *s)
{
    s->b.poll = s->b2.poll = NULL;  /* (the job's poll dies with the job) */
    if (scratch_footprint(s) <= TB_SPARE_MAX_BYTES && tb_spares_give(&bleu_spares, s))
        return;
    scratch_free(s);
}

static size_t release_kept(void *p)
{
    size_t bytes = scratch_footprint(p) + sizeof(bleu_scratch);
    scratch_free(p);
    return bytes;
}

size_t tb_bleu_release_spares(void) { return tb_spares_drain(&bleu_spares, release_kept); }

/* This thread's scratch once it has claimed items (a helper with nothing to do
 * takes nothing): `s` if it has one, else one taken now; NULL, with the job
 * failed, when none can be had. */
static TB_ALWAYS_INLINE bleu_scratch *scratch_at_claim(tb_job *base, bleu_scratch *s, tb_job_poll *poll,
                                                       size_t lo)
{
    if (s)
        return s;
    if (!(s = scratch_take())) {
        tb_job_fail(base, TB_NOMEM, lo);
        return NULL;
    }
    s->b.poll = s->b2.poll = &poll->base;
    return s;
}

static void bleu_worker(tb_job *base)
{
    tb_bleu_job *j = (tb_bleu_job *)base;
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    const size_t width = tb_row_width(j->max_order);
    bleu_scratch *s = NULL;
    int64_t *own = NULL;  /* without j->out_rows: this thread's row, then (with j->totals) its sum */
    bleu_held held = {SIZE_MAX, 0, SIZE_MAX, {0}};
    size_t lo, hi;
    while (tb_job_claim(base, &lo, &hi)) {
        if (!(s = scratch_at_claim(base, s, &poll, lo)))
            break;
        if (j->scores && !s->logs && !(s->logs = calloc(1, sizeof(tb_log_memo)))) {
            tb_job_fail(base, TB_NOMEM, lo);
            break;
        }
        if (!j->out_rows && (j->totals || j->scores) && !own && !(own = calloc(2 * width, sizeof(int64_t)))) {
            tb_job_fail(base, TB_NOMEM, lo);
            break;
        }
        run_items(j, s, &poll.base, lo, hi, own, &held);
    }
    if (j->totals && own && !tb_job_failed(base))  /* counts of tokens in memory: no overflow */
        for (size_t c = 0; c < width; c++)
            tb_atomic_add_i64_relaxed(&j->totals[c], own[width + c]);
    free(own);
    if (s)
        scratch_give(s);
}

/* SYSTEMS' item k (see bleu/jobs.h): segment k's references learned once
 * when two systems or more are matched against them (as the SENT items of a
 * group), each system's hypothesis tokenized straight to their ids and its
 * row written. 0, or -1 (out of memory, or a stop the poll asked for). */
static int systems_item(const tb_bleu_job *j, tb_builder *b, tb_matcher *m, size_t k, size_t width)
{
    const tb_seg *ref = j->ref_segs[k];
    const size_t n = j->base.nitems;
    tb_row_fn row_of = single_row(j);
    int rc = 0;
    if (j->n_systems > 1) {
        rc = tb_matcher_learn(m, ref, j->max_order);
        row_of = tb_matcher_row;
    }
    for (size_t s = 0; s < j->n_systems && rc == 0; s++) {
        tb_builder_reset(b);
        b->lookup = ref;  /* hypothesis tokens straight to reference ids */
        rc = tb_builder_add_line(b, &j->texts[s * n + k], j->mode);
        b->lookup = NULL;
        if (rc == 0)
            rc = row_of(m, b->ids, (uint32_t)b->nids, ref, j->max_order, j->system_rows[s] + k * width);
    }
    return rc;
}

/* The SYSTEMS job's worker: a loop of its own, so that run_items' (every other
 * job's) code stays as it was compiled without it. */
static void systems_worker(tb_job *base)
{
    tb_bleu_job *j = (tb_bleu_job *)base;
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    const size_t width = tb_row_width(j->max_order);
    bleu_scratch *s = NULL;
    size_t lo, hi;
    while (tb_job_claim(base, &lo, &hi)) {
        if (!(s = scratch_at_claim(base, s, &poll, lo)))
            break;
        for (size_t k = lo; k < hi && !tb_job_failed(base); k++)
            if (systems_item(j, &s->b, &s->m, k, width) < 0)
                tb_job_fail(base, TB_NOMEM, k);  /* (a stop asked by the poll came first: it wins) */
    }
    if (s)
        scratch_give(s);
}

void tb_bleu_job_init(tb_bleu_job *job, tb_bleu_job_kind kind, size_t nitems, size_t chunk)
{
    memset(job, 0, sizeof(*job));
    tb_job_init(&job->base, kind == TB_BLEU_SYSTEMS ? systems_worker : bleu_worker, nitems, chunk);
    job->kind = kind;
}

/* ------------------------------------------------------------------ */
/* cross_statistics' matrix                                            */

static void cross_worker(tb_job *base)
{
    tb_cross_job *j = (tb_cross_job *)base;
    const size_t N = (size_t)j->bleu.max_order;
    int64_t *acc = NULL;  /* N matches per sequence: the row's hypothesis against each reference */
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    /* a row's work as the tokenizers count theirs (a unit per code point): its
     * n-grams and the postings they visit, the zeroing of the references'
     * counts, and each cell; a row of long segments can cost millions, so the
     * poll is spent after every row */
    const long per_row = (long)(j->nrefs * N / 8 + 16 * j->nb);
    size_t i, end;
    while (tb_job_claim(base, &i, &end)) {
        if (!acc) {  /* only after a claim: a helper with nothing to do allocates nothing */
            acc = malloc((j->nseq * N + 1) * sizeof(int64_t));
            if (!acc) {
                tb_job_fail(base, TB_NOMEM, i);
                break;
            }
        }
        uint32_t h = (uint32_t)j->a[i];
        for (size_t k = 0; k < j->nrefs; k++)
            memset(acc + (size_t)j->refs[k] * N, 0, N * sizeof(int64_t));
        size_t work = tb_profiles_matches(j->prof, h, acc);
        for (size_t k = 0; k < j->nb; k++) {
            size_t cell = i * j->nb + k;
            int64_t *row = j->rows + cell * j->width;
            tb_profiles_row(j->prof, h, (uint32_t)j->b[k], acc, row);
            if (j->scores)
                j->scores[cell] = tb_bleu_of_row(row, &j->bleu, TB_BLEU_F64);
        }
        if (tb_poll_spend(&poll.base, per_row + (long)work))
            break;
    }
    free(acc);
}

void tb_cross_job_init(tb_cross_job *job, size_t na)
{
    memset(job, 0, sizeof(*job));
    tb_job_init(&job->base, cross_worker, na, 1);
}
