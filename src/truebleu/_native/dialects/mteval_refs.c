/* truebleu core, dialects: the references' n-grams numbered and each segment's clip counts
 * (tb_mteval_refs_build, see mteval.h).
 *
 * Two steps. The corpus-wide table numbers every reference n-gram on the calling thread (a
 * number depends on every line before it), and writes each occurrence's number and key into
 * the clip arrays, in its segment's place. Then each segment's clip counts are gathered from
 * those occurrences alone, in a job on the runtime's pool: segment s reads and writes only
 * its own part of the arrays (its occurrences start at the sum of the n-grams of the
 * segments before it, known from the lines' lengths), so nothing depends on the threads.
 */
#include "dialects/mteval.h"
#include "runtime/pool.h"
#include "runtime/portable.h"

#include <stdlib.h>
#include <string.h>

/* The n-grams of a line of `length` tokens, orders 1..max_order. */
static size_t line_ngrams(size_t length, int max_order)
{
    size_t all = 0;
    for (size_t n = 1; n <= (size_t)max_order && n <= length; n++)
        all += length - n + 1;
    return all;
}

/* Segment s's slots: a power of two, at least twice `ngrams` (none without n-grams). */
static size_t segment_slots(size_t ngrams)
{
    size_t size = 4;
    if (ngrams == 0)
        return 0;
    while (size < 2 * ngrams)
        size *= 2;
    return size;
}

/* Where each segment's n-grams go, from the lines' lengths alone: starts[s], the first place
 * of segment s's occurrences (the sum of the n-grams of the segments before it) and
 * slot_starts[s], its hash table's first slot; per_segment[s], its references' n-grams;
 * *longest, the longest line. Both starts end with their totals at [segments]. */
static void plan_segments(const int64_t *lengths, size_t nrefs, size_t segments, int max_order,
                          size_t *per_segment, size_t *starts, size_t *slot_starts, size_t *longest)
{
    size_t all = 0, slots = 0;
    *longest = 0;
    for (size_t s = 0; s < segments; s++) {
        size_t ngrams = 0;
        for (size_t r = 0; r < nrefs; r++) {
            const size_t line = (size_t)lengths[s * nrefs + r];
            ngrams += line_ngrams(line, max_order);
            *longest = line > *longest ? line : *longest;
        }
        per_segment[s] = ngrams;
        starts[s] = all;
        slot_starts[s] = slots;
        all += ngrams;
        slots += segment_slots(ngrams);
    }
    starts[segments] = all;
    slot_starts[segments] = slots;
}

/* How many n-grams ahead number_occurrences finds an n-gram's first slot in the large table
 * and asks for it (a power of two). */
#define PREFETCH_AHEAD 8

/* Step one, on the calling thread: every n-gram occurrence of refs numbered in `table`
 * (reserved for all of them, at most INT32_MAX: tb_ngram_table_add_reserved), with its count,
 * its number into c->ids and its key into c->keys, at its segment's starts[s] onwards, line
 * after line, order after order within a line, position after position within an order (the
 * order collect_segment reads them in). Each n-gram's key and first slot are computed once,
 * PREFETCH_AHEAD n-grams before it is added, when its slot is fetched. */
static void number_occurrences(tb_ngram_table *table, const int32_t *refs, const int64_t *lengths, size_t lines,
                               int max_order, int32_t *below, tb_mteval_clips *c)
{
    size_t pos = 0, k = 0;
    uint64_t keys[PREFETCH_AHEAD];  /* n-gram i's key at [i % PREFETCH_AHEAD], its first slot in firsts */
    size_t firsts[PREFETCH_AHEAD];
    for (size_t line_index = 0; line_index < lines; line_index++) {
        /* (the line's end is its length, not refs' TB_LINE_END: see mteval.h) */
        const size_t line = (size_t)lengths[line_index];
        /* order by order, so that every n-gram's prefix is known a few n-grams ahead and
         * its first slot in the large table can be fetched before it is needed (the
         * numbers are then given in another order than position by position: nothing
         * depends on which number an n-gram has) */
        for (int n = 1; n <= max_order && (size_t)n <= line; n++) {
            const int32_t *last = refs + pos + (size_t)n - 1;  /* last[i]: the n-gram at i's last token */
            const size_t count = line - (size_t)n + 1;
            for (size_t i = 0; i < count && i < PREFETCH_AHEAD; i++) {
                keys[i] = tb_ngram_key(n == 1 ? -1 : below[i], last[i]);
                firsts[i] = tb_ngram_slot_of(keys[i], table->slots);
                TB_PREFETCH(&table->slot_of_key[firsts[i]]);
            }
            for (size_t i = 0; i < count; i++) {
                const size_t ring = i & (PREFETCH_AHEAD - 1);
                const uint64_t key = keys[ring];
                const size_t first = firsts[ring];
                const int32_t prefix = n == 1 ? -1 : below[i], token = last[i];
                if (i + PREFETCH_AHEAD < count) {  /* (below[i + PREFETCH_AHEAD]: still order n - 1's) */
                    keys[ring] = tb_ngram_key(n == 1 ? -1 : below[i + PREFETCH_AHEAD], last[i + PREFETCH_AHEAD]);
                    firsts[ring] = tb_ngram_slot_of(keys[ring], table->slots);
                    TB_PREFETCH(&table->slot_of_key[firsts[ring]]);
                }
                const int32_t g = tb_ngram_table_add_reserved(table, key, first, prefix, token, n);
                c->ids[k] = g;
                c->keys[k++] = key;
                below[i] = g;  /* (below[i + 1 ..] still hold order n - 1's numbers) */
            }
        }
        pos += line + 1;
    }
}

/* The index (within segment s, whose n-grams start at `first` and whose `size` slots are at
 * `slots`) of the n-gram `key`, or, when it has none, the free slot where it goes (~slot). */
static inline int64_t segment_probe(const tb_mteval_clips *c, const uint32_t *slots, size_t size,
                                    size_t first, uint64_t key)
{
    for (size_t at = tb_ngram_slot_of(key, size);; at = (at + 1) & (size - 1)) {
        uint32_t j = slots[at];
        if (j == 0)
            return ~(int64_t)at;
        if (c->keys[first + j - 1] == key)
            return (int64_t)j - 1;
    }
}

/* Step two's job: each segment's clip counts from its occurrences. */
typedef struct {
    tb_job base;  /* first */
    tb_mteval_clips *clips;
    const int64_t *lengths;
    size_t nrefs;
    int max_order;
    size_t most;       /* the most n-grams of one segment */
    size_t *distinct;  /* segment s -> its distinct n-grams */
} clips_job;

/* Segment s's distinct n-grams with their clip counts (their largest count in any one of
 * its references), gathered in place: the occurrences that step one wrote from starts[s] on
 * are read in the order they were written, and the j-th distinct n-gram is written at
 * starts[s] + j, never after the occurrence being read, so each occurrence is read before
 * its place is reused. in_ref and ref_of: the worker's, room for the segment's n-grams. */
static size_t collect_segment(const clips_job *job, size_t s, int64_t *in_ref, size_t *ref_of)
{
    tb_mteval_clips *c = job->clips;
    const size_t first = c->starts[s], size = c->slot_starts[s + 1] - c->slot_starts[s];
    uint32_t *slots = c->slots + c->slot_starts[s];
    size_t m = 0, k = first;
    if (size)
        memset(slots, 0, size * sizeof *slots);
    for (size_t r = 0; r < job->nrefs; r++) {
        const size_t line = (size_t)job->lengths[s * job->nrefs + r];
        for (int n = 1; n <= job->max_order && (size_t)n <= line; n++) {
            for (size_t i = 0, count = line - (size_t)n + 1; i < count; i++, k++) {
                const uint64_t key = c->keys[k];
                const int32_t g = c->ids[k];
                int64_t j = segment_probe(c, slots, size, first, key);
                if (j < 0) {  /* the segment's first of this n-gram */
                    slots[~j] = (uint32_t)(m + 1);
                    j = (int64_t)m++;
                    c->ids[first + (size_t)j] = g;
                    c->counts[first + (size_t)j] = 0;
                    c->keys[first + (size_t)j] = key;
                    c->orders[first + (size_t)j] = n;
                    ref_of[j] = r;
                    in_ref[j] = 0;
                } else if (ref_of[j] != r) {
                    ref_of[j] = r;
                    in_ref[j] = 0;
                }
                if (++in_ref[j] > c->counts[first + (size_t)j])
                    c->counts[first + (size_t)j] = in_ref[j];
            }
        }
    }
    return m;
}

static void clips_worker(tb_job *base)
{
    clips_job *job = (clips_job *)base;
    int64_t *in_ref = malloc((job->most ? job->most : 1) * sizeof *in_ref);
    size_t *ref_of = malloc((job->most ? job->most : 1) * sizeof *ref_of);
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    int ready = in_ref && ref_of;
    if (!ready)
        tb_job_fail(base, TB_NOMEM, 0);
    size_t lo, hi;
    while (ready && tb_job_claim(base, &lo, &hi)) {
        for (size_t s = lo; s < hi && ready; s++) {
            long units = (long)(job->clips->starts[s + 1] - job->clips->starts[s]) + 1;
            if (tb_poll_spend(&poll.base, units))
                ready = 0;  /* (the poll recorded why: the job stops) */
            else
                job->distinct[s] = collect_segment(job, s, in_ref, ref_of);
        }
    }
    free(in_ref);
    free(ref_of);
}

/* Segments a worker claims at a time: a few hundred n-grams each. */
#define CLIPS_CHUNK 16

tb_status tb_mteval_refs_build(tb_ngram_table *table, const int32_t *refs, const int64_t *lengths, size_t nrefs,
                               size_t segments, int max_order, int threads, tb_signal_watch *watch,
                               tb_mteval_clips *c)
{
    memset(c, 0, sizeof *c);
    memset(table, 0, sizeof *table);
    c->segments = segments;
    size_t *per_segment = malloc((segments ? segments : 1) * sizeof *per_segment), longest = 0;
    c->starts = malloc((segments + 1) * sizeof *c->starts);
    c->slot_starts = malloc((segments + 1) * sizeof *c->slot_starts);
    if (!per_segment || !c->starts || !c->slot_starts) {
        free(per_segment);
        tb_mteval_clips_free(c);
        return TB_NOMEM;
    }
    plan_segments(lengths, nrefs, segments, max_order, per_segment, c->starts, c->slot_starts, &longest);
    /* every array at its largest size at once: the pages of what is never written are
     * never touched, and nothing is copied to grow */
    const size_t all = c->starts[segments], cap = all ? all : 1;
    c->ids = malloc(cap * sizeof *c->ids);
    c->counts = malloc(cap * sizeof *c->counts);
    c->keys = malloc(cap * sizeof *c->keys);
    c->orders = malloc(cap * sizeof *c->orders);
    c->slots = malloc((c->slot_starts[segments] ? c->slot_starts[segments] : 1) * sizeof *c->slots);
    c->cap = cap;
    c->slots_cap = c->slot_starts[segments];
    /* the numbers of a line's (n-1)-grams, by position, while its n-grams are numbered */
    int32_t *below = malloc((longest ? longest : 1) * sizeof *below);
    tb_status status = TB_OK;
    if (!c->ids || !c->counts || !c->keys || !c->orders || !c->slots || !below)
        status = TB_NOMEM;
    if (status == TB_OK && all > INT32_MAX)  /* (more n-grams than numbers: as out of memory) */
        status = TB_NOMEM;
    if (status == TB_OK)
        status = tb_ngram_table_reserve(table, all);
    if (status == TB_OK)
        number_occurrences(table, refs, lengths, segments * nrefs, max_order, below, c);
    clips_job job;
    memset(&job, 0, sizeof job);
    for (size_t s = 0; s < segments; s++)
        job.most = per_segment[s] > job.most ? per_segment[s] : job.most;
    free(below);
    free(per_segment);
    job.distinct = malloc((segments ? segments : 1) * sizeof *job.distinct);
    if (status == TB_OK && !job.distinct)
        status = TB_NOMEM;
    if (status == TB_OK) {
        tb_job_init(&job.base, clips_worker, segments, CLIPS_CHUNK);
        job.clips = c;
        job.lengths = lengths;
        job.nrefs = nrefs;
        job.max_order = max_order;
        status = tb_job_run(&job.base, threads, watch);
    }
    for (size_t s = 0; s < segments && status == TB_OK; s++) {
        c->n += job.distinct[s];
        c->most = job.distinct[s] > c->most ? job.distinct[s] : c->most;
    }
    free(job.distinct);
    if (status != TB_OK) {
        tb_mteval_clips_free(c);
        tb_ngram_table_free(table);
    }
    return status;
}

void tb_mteval_clips_free(tb_mteval_clips *c)
{
    free(c->ids);
    free(c->counts);
    free(c->keys);
    free(c->orders);
    free(c->starts);
    free(c->slots);
    free(c->slot_starts);
    memset(c, 0, sizeof *c);
}
