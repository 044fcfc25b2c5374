/* TER's segments on the runtime's threads (plain C, see ter/ter.h): a worker
 * takes one segment at a time from the job's atomic counter, tokenizes the
 * hypothesis if asked (ter/tokenize.h), splits it and its references on
 * spaces, gives each distinct word of the segment an id, and runs
 * tb_ter_edits per reference. Each segment writes its own row, so the result
 * does not depend on the number of threads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/memory.h"
#include "ter/ter.h"

/* The distinct words of one segment, by hash (open addressing). */
typedef struct {
    uint32_t *slot;  size_t cap_slot;   /* word id + 1, 0 = empty */
    const char **word; size_t cap_word;
    uint32_t *len;   size_t cap_len;
    uint32_t n;
    uint32_t *ids;   size_t cap_ids;    /* the ids of the text being split */
    uint32_t *hyp;   size_t cap_hyp;
} vocab;

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* Clear the vocabulary for a segment of at most `words` words. */
static int vocab_reset(vocab *v, size_t words)
{
    size_t want = 16;
    while (want < 2 * words)
        want *= 2;
    if (GROW(v->slot, v->cap_slot, want) < 0 || GROW(v->word, v->cap_word, words + 1) < 0 ||
        GROW(v->len, v->cap_len, words + 1) < 0)
        return -1;
    v->cap_slot = want;  /* use exactly `want` slots: a power of two */
    memset(v->slot, 0, want * sizeof(uint32_t));
    v->n = 0;
    return 0;
}

static uint32_t vocab_id(vocab *v, const char *s, size_t n)
{
    size_t mask = v->cap_slot - 1;
    for (size_t k = (size_t)hash_bytes(s, n) & mask;; k = (k + 1) & mask) {
        uint32_t id = v->slot[k];
        if (id == 0) {
            v->word[v->n] = s;
            v->len[v->n] = (uint32_t)n;
            v->slot[k] = ++v->n;
            return v->n - 1;
        }
        id--;
        if (v->len[id] == n && memcmp(v->word[id], s, n) == 0)
            return id;
    }
}

/* Word ids of a space-separated text s[0 .. n) into v->ids; returns the count. */
static size_t split_ids(vocab *v, const char *s, size_t n)
{
    size_t count = 0, i = 0;
    while (i < n) {
        while (i < n && s[i] == ' ')
            i++;
        size_t start = i;
        while (i < n && s[i] != ' ')
            i++;
        if (i > start)
            v->ids[count++] = vocab_id(v, s + start, i - start);
    }
    return count;
}

static size_t max_words(size_t length)
{
    return length / 2 + 1;  /* words are separated by at least one space */
}

/* Segment i into its row of job->out (and, with job->paths, the best reference's
 * search into job->paths[i]). */
static tb_status ter_segment(const tb_ter_job *job, size_t i, tb_ter_work *w, vocab *v,
                             tb_tercom_scratch *scratch)
{
    const tb_text *line = &job->hyps[i];
    const char *hyp = line->data;
    size_t hyp_bytes = line->length;
    if (job->tokenize) {
        const uint8_t *tokens;
        if (tb_tercom_tokenize(scratch, line->data, line->length, line->ascii_lower, job->options, 0,
                               &tokens, &hyp_bytes) != TB_OK)
            return TB_NOMEM;
        hyp = (const char *)tokens;
    }
    size_t r0 = job->first_ref[i], r1 = job->first_ref[i + 1];
    size_t total = max_words(hyp_bytes), longest = max_words(hyp_bytes);
    for (size_t r = r0; r < r1; r++) {
        size_t n = max_words(job->refs[r].length);
        total += n;
        if (n > longest)
            longest = n;
    }
    if (vocab_reset(v, total) < 0 || GROW(v->ids, v->cap_ids, longest) < 0 ||
        GROW(v->hyp, v->cap_hyp, max_words(hyp_bytes)) < 0)
        return TB_NOMEM;
    size_t n_hyp = split_ids(v, hyp, hyp_bytes);
    memcpy(v->hyp, v->ids, n_hyp * sizeof(uint32_t));
    int64_t best = TB_TER_INFINITY, lengths = 0;
    for (size_t r = r0; r < r1; r++) {
        size_t n_ref = split_ids(v, job->refs[r].data, job->refs[r].length);
        int64_t edits;
        tb_status status = tb_ter_edits(w, v->hyp, n_hyp, v->ids, n_ref, job->max_shift, &edits);
        if (status != TB_OK)
            return status;
        lengths += (int64_t)n_ref;
        if (edits < best) {
            best = edits;
            if (job->paths) {
                if (tb_ter_keep_path(w, &job->paths[i]) != TB_OK)
                    return TB_NOMEM;
                job->paths[i].reference = r - r0;
            }
        }
    }
    job->out[2 * i] = (double)best;
    job->out[2 * i + 1] = (double)lengths / (double)(r1 - r0);
    return TB_OK;
}

/* Work units of segment i for the job's poll (runtime/poll.h): the edit-distance
 * search costs about (hypothesis bytes) x (reference bytes) per reference. */
static long segment_units(const tb_ter_job *job, size_t i)
{
    double units = 0;
    for (size_t r = job->first_ref[i]; r < job->first_ref[i + 1]; r++)
        units += ((double)job->hyps[i].length + 1) * ((double)job->refs[r].length + 1);
    return tb_poll_units_of(units >= (double)TB_POLL_UNITS ? (size_t)TB_POLL_UNITS : (size_t)units + 1);
}

static void ter_worker(tb_job *base)
{
    tb_ter_job *job = (tb_ter_job *)base;
    tb_ter_work *w = tb_ter_work_new();
    vocab v;
    memset(&v, 0, sizeof v);
    tb_tercom_scratch scratch;
    memset(&scratch, 0, sizeof scratch);
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    if (!w)
        tb_job_fail(base, TB_NOMEM, 0);
    size_t i, end;
    while (w && tb_job_claim(base, &i, &end)) {
        if (tb_poll_spend(&poll.base, segment_units(job, i)))
            break;
        tb_status status = ter_segment(job, i, w, &v, &scratch);
        if (status != TB_OK)
            tb_job_fail(base, status, i);
    }
    tb_ter_work_free(w);
    tb_tercom_scratch_free(&scratch);
    free(v.slot); free(v.word); free(v.len); free(v.ids); free(v.hyp);
}

void tb_ter_job_init(tb_ter_job *job, size_t nseg)
{
    memset(job, 0, sizeof(*job));
    tb_job_init(&job->base, ter_worker, nseg, 1);
    job->max_shift = TB_TER_MAX_SHIFT_SIZE;
}
