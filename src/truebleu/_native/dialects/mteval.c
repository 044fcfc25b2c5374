/* truebleu core, dialects: mteval's corpus sums on token ids (see mteval.h). */
#include "dialects/mteval.h"
#include "dialects/exact_sum.h"
#include "runtime/memory.h"

#include <stdlib.h>
#include <string.h>

int64_t tb_count_lines(const int32_t *ids, size_t length)
{
    int64_t lines = 0;
    for (size_t i = 0; i < length; i++)
        lines += ids[i] == TB_LINE_END;
    return length == 0 || ids[length - 1] == TB_LINE_END ? lines : -1;
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

/* The n-grams of the line at *pos into c (each start, orders 1..max_order, as long
 * as the table holds the n-gram); *pos moves past the line's end. The line's tokens. */
static int64_t count_line(const tb_ngram_table *t, const int32_t *ids, size_t *pos, int max_order,
                          counter *c)
{
    size_t start = *pos, end = start;
    while (ids[end] != TB_LINE_END)
        end++;
    for (size_t i = start; i < end; i++) {
        int32_t prefix = -1;
        for (int n = 1; n <= max_order && i + (size_t)n <= end; n++) {
            int32_t token = ids[i + (size_t)n - 1];
            int32_t g = token < 0 ? -1 : tb_ngram_table_find(t, prefix, token);
            if (g < 0)
                break;  /* no longer n-gram from here is in the table either */
            if (c->count[g]++ == 0)
                c->touched[c->n++] = g;
            prefix = g;
        }
    }
    *pos = end + 1;
    return (int64_t)(end - start);
}

tb_status tb_mteval_clips_build(const tb_ngram_table *table, const int32_t *refs, size_t nrefs,
                                size_t segments, int max_order, tb_mteval_clips *c)
{
    memset(c, 0, sizeof *c);
    c->segments = segments;
    size_t n = table->n;
    counter ref, clip;  /* one reference's counts; the segment's largest (clip.count) */
    int ref_open = counter_open(&ref, n) == 0;
    int clip_open = counter_open(&clip, n) == 0;
    c->starts = malloc((segments + 1) * sizeof *c->starts);
    tb_status status = ref_open && clip_open && c->starts ? TB_OK : TB_NOMEM;
    size_t pos = 0;
    for (size_t s = 0; s < segments && status == TB_OK; s++) {
        c->starts[s] = c->n;
        for (size_t r = 0; r < nrefs; r++) {
            count_line(table, refs, &pos, max_order, &ref);
            for (size_t k = 0; k < ref.n; k++) {
                int32_t g = ref.touched[k];
                if (clip.count[g] == 0)
                    clip.touched[clip.n++] = g;
                if (ref.count[g] > clip.count[g])
                    clip.count[g] = ref.count[g];
                ref.count[g] = 0;
            }
            ref.n = 0;
        }
        size_t ids_cap = c->cap, counts_cap = c->cap;  /* (both grow alike) */
        if (GROW(c->ids, ids_cap, c->n + clip.n) < 0 || GROW(c->counts, counts_cap, c->n + clip.n) < 0) {
            status = TB_NOMEM;
            break;
        }
        c->cap = ids_cap < counts_cap ? ids_cap : counts_cap;
        for (size_t k = 0; k < clip.n; k++) {
            int32_t g = clip.touched[k];
            c->ids[c->n] = g;
            c->counts[c->n++] = clip.count[g];
            clip.count[g] = 0;
        }
        clip.n = 0;
    }
    if (status == TB_OK)
        c->starts[segments] = c->n;
    counter_close(&ref);
    counter_close(&clip);
    if (status != TB_OK)
        tb_mteval_clips_free(c);
    return status;
}

void tb_mteval_clips_free(tb_mteval_clips *c)
{
    free(c->ids);
    free(c->counts);
    free(c->starts);
    memset(c, 0, sizeof *c);
}

tb_status tb_mteval_sums_compute(const tb_ngram_table *table, const tb_mteval_clips *clips,
                                 const double *info, const int32_t *hyps, int max_order,
                                 int64_t *hyp_sizes, tb_mteval_sums *out)
{
    memset(out, 0, sizeof *out);
    size_t n = table->n ? table->n : 1;
    int64_t *clip = calloc(n, sizeof *clip);
    counter hyp;
    tb_exact_sum sums[TB_MTEVAL_MAX_ORDER];
    memset(sums, 0, sizeof sums);
    tb_status status = counter_open(&hyp, n) == 0 && clip ? TB_OK : TB_NOMEM;
    size_t pos = 0;
    for (size_t s = 0; s < clips->segments && status == TB_OK; s++) {
        for (size_t k = clips->starts[s]; k < clips->starts[s + 1]; k++)
            clip[clips->ids[k]] = clips->counts[k];
        int64_t size = count_line(table, hyps, &pos, max_order, &hyp);
        hyp_sizes[s] = size;
        for (int o = 0; o < max_order; o++)
            if (size > o)
                out->totals[o] += size - o;
        for (size_t k = 0; k < hyp.n && status == TB_OK; k++) {
            int32_t g = hyp.touched[k];
            int64_t matched = hyp.count[g] < clip[g] ? hyp.count[g] : clip[g];
            if (matched > 0) {
                int o = table->order[g] - 1;
                out->matches[o] += matched;
                status = tb_exact_sum_add(&sums[o], info[g] * (double)matched);
            }
        }
        for (size_t k = 0; k < hyp.n; k++)  /* after a failure too */
            hyp.count[hyp.touched[k]] = 0;
        hyp.n = 0;
        for (int o = 0; o < max_order; o++)
            out->info[o] += tb_exact_sum_take(&sums[o]);
        for (size_t k = clips->starts[s]; k < clips->starts[s + 1]; k++)
            clip[clips->ids[k]] = 0;
    }
    for (int o = 0; o < TB_MTEVAL_MAX_ORDER; o++)
        tb_exact_sum_free(&sums[o]);
    free(clip);
    counter_close(&hyp);
    return status;
}
