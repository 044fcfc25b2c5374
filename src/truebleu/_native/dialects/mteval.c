/* truebleu core, dialects: mteval's corpus sums on token ids (see mteval.h). */
#include "dialects/mteval.h"
#include "dialects/exact_sum.h"
#include "runtime/memory.h"
#include "runtime/pool.h"
#include "runtime/portable.h"

#include <stdlib.h>
#include <string.h>

tb_status tb_mteval_lines(const int32_t *ids, size_t length, int64_t **lengths, size_t *lines, size_t *bad_at)
{
    size_t n = 0, cap = 0, start = 0;
    int64_t *out = NULL;
    *lengths = NULL;
    *lines = 0;
    for (size_t i = 0; i < length; i++) {
        const int32_t id = ids[i];  /* (read once: its check and its use are this value's) */
        if (id >= 0)
            continue;
        if (id != TB_LINE_END) {
            free(out);
            *bad_at = i;
            return TB_VALUE;
        }
        if (GROW(out, cap, n + 1) < 0) {
            free(out);
            return TB_NOMEM;
        }
        out[n++] = (int64_t)(i - start);
        start = i + 1;
    }
    if (start != length) {
        free(out);
        *bad_at = length;
        return TB_VALUE;
    }
    *lengths = out;
    *lines = n;
    return TB_OK;
}

typedef struct {
    int64_t *count;   /* n-gram number -> count, 0 outside the touched list */
    int32_t *touched; /* the numbers with a count, in order of first occurrence */
    size_t n;
} counter;

static int counter_open(counter *c, size_t size)
{
    c->count = calloc(size ? size : 1, sizeof *c->count);
    c->touched = malloc((size ? size : 1) * sizeof *c->touched);
    c->n = 0;
    return c->count && c->touched ? 0 : -1;
}

static void counter_close(counter *c)
{
    free(c->count);
    free(c->touched);
}

/* The slots of tb_mteval_pairs_build's table of pairs[0..n): 0, or 1 + an index in pairs. */
static uint32_t *pair_slots(const uint64_t *pairs, size_t n, size_t size)
{
    uint32_t *slots = calloc(size, sizeof *slots);
    for (size_t i = 0; slots && i < n; i++) {
        size_t at = tb_ngram_slot_of(pairs[i], size);
        while (slots[at] != 0)
            at = (at + 1) & (size - 1);
        slots[at] = (uint32_t)(i + 1);
    }
    return slots;
}

tb_status tb_mteval_pairs_build(const tb_ngram_table *table, int32_t no_context, uint64_t ref_words,
                                tb_mteval_pairs *p)
{
    size_t n = table->n, size = 256;  /* (the distinct pairs are few: the table grows with them) */
    uint32_t *slots = calloc(size, sizeof *slots);
    p->pairs = malloc((n ? n : 1) * sizeof *p->pairs);
    p->pair_of = malloc((n ? n : 1) * sizeof *p->pair_of);
    p->n = 0;
    for (size_t g = 0; g < n && slots && p->pairs && p->pair_of; g++) {
        int32_t prefix = table->prefix[g];
        int no_ctx = prefix < 0 || (table->order[g] == 2 && table->token[prefix] == no_context);
        uint64_t context = no_ctx ? ref_words : (uint64_t)table->count[prefix];
        uint64_t pair = (uint64_t)table->count[g] << 32 | context;  /* (a count is at least 1: never 0) */
        size_t at = tb_ngram_slot_of(pair, size);
        while (slots[at] != 0 && p->pairs[slots[at] - 1] != pair)
            at = (at + 1) & (size - 1);
        if (slots[at] == 0) {
            p->pairs[p->n++] = pair;
            if (2 * p->n > size) {  /* at most half full */
                free(slots);
                size *= 2;
                slots = pair_slots(p->pairs, p->n, size);
            } else {
                slots[at] = (uint32_t)p->n;
            }
            p->pair_of[g] = (int32_t)(p->n - 1);
        } else {
            p->pair_of[g] = (int32_t)(slots[at] - 1);
        }
    }
    if (!slots || !p->pairs || !p->pair_of) {
        free(slots);
        tb_mteval_pairs_free(p);
        return TB_NOMEM;
    }
    free(slots);
    return TB_OK;
}

void tb_mteval_pairs_free(tb_mteval_pairs *p)
{
    free(p->pairs);
    free(p->pair_of);
    memset(p, 0, sizeof *p);
}

/* The index (within its segment) of the n-gram `key` in segment s's table, or -1. */
static inline int64_t segment_find(const tb_mteval_clips *c, size_t s, uint64_t key)
{
    size_t size = c->slot_starts[s + 1] - c->slot_starts[s];
    if (size == 0)
        return -1;
    const uint32_t *slots = c->slots + c->slot_starts[s];
    const uint64_t *keys = c->keys + c->starts[s];
    for (size_t at = tb_ngram_slot_of(key, size);; at = (at + 1) & (size - 1)) {
        uint32_t j = slots[at];
        if (j == 0)
            return -1;
        if (keys[j - 1] == key)
            return (int64_t)j - 1;
    }
}

/* The hypothesis line ids[start..end) counted against segment s's n-grams (only the
 * n-grams its references hold: the others match nothing) into c, indexed within the
 * segment. A token is data alone: a negative one (the caller's buffer written by another
 * thread meanwhile) matches nothing. */
static void count_segment_line(const tb_mteval_clips *clips, size_t s, const int32_t *ids, size_t start,
                               size_t end, int max_order, counter *c)
{
    const int32_t *numbers = clips->ids + clips->starts[s];
    for (size_t i = start; i < end; i++) {
        int32_t prefix = -1;
        for (int n = 1; n <= max_order && i + (size_t)n <= end; n++) {
            int32_t token = ids[i + (size_t)n - 1];
            int64_t j = token < 0 ? -1 : segment_find(clips, s, tb_ngram_key(prefix, token));
            if (j < 0)
                break;  /* no longer n-gram from here is in the segment's references either */
            if (c->count[j]++ == 0)
                c->touched[c->n++] = (int32_t)j;
            prefix = numbers[j];
        }
    }
}

/* Where each of the `segments` lines of ids[0..length) ends (its TB_LINE_END), into
 * ends[0..segments): every id that says where a line ends is read once, here, and the
 * workers then read the lines within these bounds alone (see mteval.h). TB_OK; TB_VALUE
 * with *lines_read the complete lines found when there are fewer, or == segments when ids
 * follow the last one. */
static tb_status find_lines(const int32_t *ids, size_t length, size_t segments, size_t *ends, size_t *lines_read)
{
    size_t s = 0;
    for (size_t i = 0; i < length && s < segments; i++)
        if (ids[i] == TB_LINE_END)
            ends[s++] = i;
    *lines_read = s;
    if (s < segments)
        return TB_VALUE;
    return (segments ? ends[segments - 1] + 1 : 0) == length ? TB_OK : TB_VALUE;
}

/* A system's segments counted in the pool: each segment writes a row of its own (its
 * matches and NIST information per order), which tb_mteval_sums_compute then adds in
 * segment order, so the sums never depend on the threads. */
typedef struct {
    tb_job base;  /* first */
    const tb_mteval_clips *clips;
    const tb_mteval_pairs *pairs;
    const double *weights;
    const int32_t *hyps;
    const size_t *ends;  /* segment s's line: hyps[(s ? ends[s - 1] + 1 : 0) .. ends[s]) */
    int max_order;
    int64_t *matches;    /* segments x max_order */
    double *info;        /* segments x max_order */
} sums_job;

static size_t line_start(const sums_job *job, size_t s)
{
    return s ? job->ends[s - 1] + 1 : 0;
}

/* Segment s's row: its hypothesis n-grams clipped, their information summed exactly and
 * rounded once per order (exact_sum.h). hyp and sums are the worker's, left empty. */
static tb_status segment_row(const sums_job *job, size_t s, counter *hyp, tb_exact_sum *sums)
{
    const tb_mteval_clips *clips = job->clips;
    const size_t width = (size_t)job->max_order, first = clips->starts[s];
    int64_t *matches = job->matches + s * width;
    double *info = job->info + s * width;
    count_segment_line(clips, s, job->hyps, line_start(job, s), job->ends[s], job->max_order, hyp);
    tb_status status = TB_OK;
    for (size_t k = 0; k < hyp->n && status == TB_OK; k++) {
        int32_t j = hyp->touched[k];
        int64_t clip = clips->counts[first + (size_t)j];
        int64_t matched = hyp->count[j] < clip ? hyp->count[j] : clip;
        int o = clips->orders[first + (size_t)j] - 1;
        matches[o] += matched;
        double weight = job->weights[job->pairs->pair_of[clips->ids[first + (size_t)j]]];
        status = tb_exact_sum_add(&sums[o], weight * (double)matched);
    }
    for (size_t k = 0; k < hyp->n; k++)  /* after a failure too */
        hyp->count[hyp->touched[k]] = 0;
    hyp->n = 0;
    for (size_t o = 0; o < width && status == TB_OK; o++)
        status = tb_exact_sum_take(&sums[o], &info[o]);
    return status;
}

static void sums_worker(tb_job *base)
{
    sums_job *job = (sums_job *)base;
    counter hyp;
    tb_exact_sum sums[TB_MTEVAL_MAX_ORDER];
    memset(sums, 0, sizeof sums);
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    int ready = counter_open(&hyp, job->clips->most) == 0;
    if (!ready)
        tb_job_fail(base, TB_NOMEM, 0);
    size_t lo, hi;
    while (ready && tb_job_claim(base, &lo, &hi)) {
        for (size_t s = lo; s < hi && ready; s++) {
            long units = (long)(job->ends[s] - line_start(job, s)) * job->max_order + 1;
            if (tb_poll_spend(&poll.base, units)) {
                ready = 0;  /* (the poll recorded why: the job stops) */
            } else {
                tb_status status = segment_row(job, s, &hyp, sums);
                if (status != TB_OK) {
                    tb_job_fail(base, status, s);
                    ready = 0;
                }
            }
        }
    }
    for (int o = 0; o < TB_MTEVAL_MAX_ORDER; o++)
        tb_exact_sum_free(&sums[o]);
    counter_close(&hyp);
}

/* Segments a worker claims at a time: a few hundred n-gram lookups each. */
#define SUMS_CHUNK 16

tb_status tb_mteval_sums_compute(const tb_mteval_clips *clips, const tb_mteval_pairs *pairs,
                                 const double *weights, const int32_t *hyps, size_t length, int max_order,
                                 int threads, tb_signal_watch *watch, int64_t *hyp_sizes, tb_mteval_sums *out,
                                 size_t *lines_read)
{
    memset(out, 0, sizeof *out);
    const size_t segments = clips->segments, width = (size_t)max_order;
    sums_job job;
    memset(&job, 0, sizeof job);
    size_t *ends = malloc((segments ? segments : 1) * sizeof *ends);
    job.matches = calloc(segments ? segments * width : 1, sizeof *job.matches);
    job.info = calloc(segments ? segments * width : 1, sizeof *job.info);
    *lines_read = 0;
    tb_status status = ends && job.matches && job.info ? TB_OK : TB_NOMEM;
    if (status == TB_OK)
        status = find_lines(hyps, length, segments, ends, lines_read);
    if (status == TB_OK) {
        tb_job_init(&job.base, sums_worker, segments, SUMS_CHUNK);
        job.clips = clips;
        job.pairs = pairs;
        job.weights = weights;
        job.hyps = hyps;
        job.ends = ends;
        job.max_order = max_order;
        status = tb_job_run(&job.base, threads, watch);
    }
    for (size_t s = 0; s < segments && status == TB_OK; s++) {  /* in segment order: the specification's */
        const int64_t size = (int64_t)(ends[s] - line_start(&job, s));
        hyp_sizes[s] = size;
        for (size_t o = 0; o < width; o++) {
            if (size > (int64_t)o)
                out->totals[o] += size - (int64_t)o;
            out->matches[o] += job.matches[s * width + o];
            out->info[o] += job.info[s * width + o];
        }
    }
    free(ends);
    free(job.matches);
    free(job.info);
    return status;
}
