/* truebleu core, dialects: mteval-v13a's tokens of lines as token ids (see mteval_text.h). */
#include "dialects/mteval_text.h"
#include "dialects/ngram_table.h"
#include "runtime/memory.h"
#include "runtime/pool.h"
#include "runtime/portable.h"

#include <stdlib.h>
#include <string.h>
#ifdef TB_HAVE_SSE2
#include <emmintrin.h>
#endif

void tb_mteval_text_init(tb_mteval_text *m)
{
    m->line = NULL;
    m->line_cap = 0;
    tb_builder_init(&m->builder);
}

void tb_mteval_text_free(tb_mteval_text *m)
{
    free(m->line);
    tb_builder_free(&m->builder);
    tb_mteval_text_init(m);
}

static TB_ALWAYS_INLINE uint32_t read_at(const void *data, int kind, size_t i)
{
    return kind == 1 ? ((const uint8_t *)data)[i] : kind == 2 ? ((const uint16_t *)data)[i]
                                                              : ((const uint32_t *)data)[i];
}

static TB_ALWAYS_INLINE void write_at(void *data, int kind, size_t i, uint32_t c)
{
    if (kind == 1)
        ((uint8_t *)data)[i] = (uint8_t)c;
    else if (kind == 2)
        ((uint16_t *)data)[i] = (uint16_t)c;
    else
        ((uint32_t *)data)[i] = c;
}

/* Whether the entity `name` ("lt;" or "gt;") follows the '&' at s[i]. */
static TB_ALWAYS_INLINE int entity_at(const void *s, int kind, size_t n, size_t i, const char *name)
{
    if (i + 3 >= n)
        return 0;
    for (size_t k = 0; k < 3; k++)
        if (read_at(s, kind, i + 1 + k) != (uint32_t)(unsigned char)name[k])
            return 0;
    return 1;
}

#ifdef TB_HAVE_SSE2
/* The vector of 16 bytes of `kind`-byte code points whose lanes are in[i..] < 0x20 or '&',
 * '<', '>' (every character the rewrite changes but A-Z), and the one of A-Z, in *upper. */
static TB_ALWAYS_INLINE __m128i special_lanes(__m128i v, int kind, __m128i *upper)
{
    if (kind == 1) {
        *upper = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - 'A'))), _mm_set1_epi8((char)(-128 + 26)));
        __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
        return _mm_or_si128(_mm_or_si128(control, _mm_cmpeq_epi8(v, _mm_set1_epi8('&'))),
                            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('<')), _mm_cmpeq_epi8(v, _mm_set1_epi8('>'))));
    }
    if (kind == 2) {  /* (unsigned compares as signed ones, the lanes shifted by 0x8000) */
        *upper = _mm_cmplt_epi16(_mm_add_epi16(v, _mm_set1_epi16((short)(0x8000 - 'A'))),
                                 _mm_set1_epi16((short)(-32768 + 26)));
        __m128i control = _mm_cmplt_epi16(_mm_xor_si128(v, _mm_set1_epi16((short)0x8000)),
                                          _mm_set1_epi16((short)(-32768 + 0x20)));
        return _mm_or_si128(_mm_or_si128(control, _mm_cmpeq_epi16(v, _mm_set1_epi16('&'))),
                            _mm_or_si128(_mm_cmpeq_epi16(v, _mm_set1_epi16('<')), _mm_cmpeq_epi16(v, _mm_set1_epi16('>'))));
    }
    /* kind 4: code points, at most 0x10FFFF, are positive as int32 */
    *upper = _mm_and_si128(_mm_cmpgt_epi32(v, _mm_set1_epi32('A' - 1)), _mm_cmplt_epi32(v, _mm_set1_epi32('Z' + 1)));
    __m128i control = _mm_cmplt_epi32(v, _mm_set1_epi32(0x20));
    return _mm_or_si128(_mm_or_si128(control, _mm_cmpeq_epi32(v, _mm_set1_epi32('&'))),
                        _mm_or_si128(_mm_cmpeq_epi32(v, _mm_set1_epi32('<')), _mm_cmpeq_epi32(v, _mm_set1_epi32('>'))));
}
#endif

/* The start of in[0..n) that the rewrite leaves as it is but for A-Z (lowercased if asked),
 * copied to o 16 bytes at a time: its length, a multiple of 16 / kind, up to the first block
 * holding a character the rewrite changes otherwise. Nearly every line is such a prefix
 * (but its last few characters): rewrite() then goes on from there. 0 without SSE2. */
static TB_ALWAYS_INLINE size_t copy_plain_prefix(const void *in, size_t n, int kind, int lowercase, void *o)
{
    size_t i = 0;
#ifdef TB_HAVE_SSE2
    const size_t lanes = 16 / (size_t)kind;
    const __m128i case_bit = kind == 1   ? _mm_set1_epi8(0x20)
                             : kind == 2 ? _mm_set1_epi16(0x20)
                                         : _mm_set1_epi32(0x20);
    for (; i + lanes <= n; i += lanes) {
        __m128i v = _mm_loadu_si128((const __m128i *)((const char *)in + i * (size_t)kind)), upper;
        if (_mm_movemask_epi8(special_lanes(v, kind, &upper)))
            break;
        if (lowercase)
            v = _mm_or_si128(v, _mm_and_si128(upper, case_bit));
        _mm_storeu_si128((__m128i *)((char *)o + i * (size_t)kind), v);
    }
#else
    (void)in, (void)n, (void)kind, (void)lowercase, (void)o;
#endif
    return i;
}

/* tb_mteval_13a_text's rewrite of in[0..n) into o, for one PyUnicode kind (inlined with a
 * constant kind: one loop per kind); the length written, or (size_t)-1 when refused. Every
 * character the rewrite changes but A-Z is at most '>' (0x3E): the rest are copied. The
 * plain prefix is copied in blocks first (copy_plain_prefix: the same characters). */
static TB_ALWAYS_INLINE size_t rewrite(const void *in, size_t n, int kind, int lowercase, void *o)
{
    size_t k = copy_plain_prefix(in, n, kind, lowercase, o);
    for (size_t i = k; i < n; i++) {
        uint32_t c = read_at(in, kind, i);
        if (c > '>') {
            if (lowercase && c - 'A' < 26u)
                c += 'a' - 'A';
            write_at(o, kind, k++, c);
            continue;
        }
        uint32_t padded = 0;  /* a symbol written with a space on each side */
        if (c == '&') {
            padded = '&';
            if (entity_at(in, kind, n, i, "lt;") || entity_at(in, kind, n, i, "gt;")) {
                padded = read_at(in, kind, i + 1) == 'l' ? '<' : '>';
                i += 3;
            }
        } else if (c == '<' || c == '>') {
            padded = c;
        } else if (c == 0 || (c >= 0x1C && c <= 0x1F)) {
            return (size_t)-1;  /* whitespace to Python's split, not to Perl's (U+0000: never read) */
        } else if (c == '\t' || c == '\n' || c == 0x0B || c == 0x0C || c == '\r') {
            c = ' ';
        }
        if (padded) {
            write_at(o, kind, k++, ' ');
            write_at(o, kind, k++, padded);
            c = ' ';
        }
        write_at(o, kind, k++, c);
    }
    return k;
}

int tb_mteval_13a_text(tb_mteval_text *m, const tb_text *t, int lowercase, tb_text *out)
{
    int kind = t->kind;
    size_t n = t->length;
    /* each character becomes at most three ("&lt;", four, becomes three) */
    if (n > (SIZE_MAX / 4 - 1) / 3 || tb_grow(&m->line, &m->line_cap, (3 * n + 1) * (size_t)kind, 1) < 0)
        return -1;
    size_t k = kind == 1   ? rewrite(t->data, n, 1, lowercase, m->line)
               : kind == 2 ? rewrite(t->data, n, 2, lowercase, m->line)
                           : rewrite(t->data, n, 4, lowercase, m->line);
    if (k == (size_t)-1)
        return TB_MTEVAL_REFUSED;
    *out = (tb_text){m->line, k, kind, 0};
    return 0;
}

/* lines[lo..hi) rewritten and added to m's builder: 0, -1 when out of memory (or when the
 * builder's poll said stop), or TB_MTEVAL_REFUSED. */
static int add_lines(tb_mteval_text *m, const tb_text *lines, size_t lo, size_t hi, int lowercase)
{
    int rc = 0;
    for (size_t i = lo; i < hi && rc == 0; i++) {
        tb_text text;
        rc = tb_mteval_13a_text(m, &lines[i], lowercase, &text);
        if (rc == 0 && tb_builder_add_line(&m->builder, &text, TB_13A) < 0)
            rc = -1;
    }
    return rc;
}

/* The ids of the builder's lines from line `first_line` (its ids from `first_id`) on, each
 * line's followed by TB_LINE_END, into *ids (malloc'ed, *length ids): 0 or -1 (out of
 * memory, or past INT32_MAX ids or vocabulary entries). */
static int take_ids(const tb_builder *b, size_t first_line, size_t first_id, int32_t **ids, size_t *length)
{
    const size_t lines = b->nseq - first_line;
    *ids = NULL;
    *length = 0;
    if (b->nids + lines > INT32_MAX || b->nvocab > INT32_MAX)
        return -1;
    int32_t *out = malloc((b->nids - first_id + lines + 1) * sizeof *out);
    if (!out)
        return -1;
    size_t k = 0, at = first_id;
    for (size_t line = first_line; line < b->nseq; line++) {
        for (uint32_t j = 0; j < b->seq_len[line]; j++) {
            uint32_t id = b->ids[at++];
            out[k++] = id == TB_ABSENT ? TB_UNKNOWN_TOKEN : (int32_t)id;
        }
        out[k++] = TB_LINE_END;
    }
    *ids = out;
    *length = k;
    return 0;
}

/* The lines looked up in a vocabulary in the pool: each chunk of lines into ids of its own,
 * joined in order afterwards (the ids are lookup's: no worker writes a shared vocabulary). */
typedef struct {
    tb_job base;  /* first */
    const tb_text *lines;
    int lowercase;
    const tb_seg *lookup;
    int32_t **chunk_ids;  /* chunk c: lines [c * base.chunk, ...) */
    size_t *chunk_length;
} ids_job;

/* Lines a worker claims at a time: enough that a chunk's own array costs nothing. */
#define IDS_CHUNK 32

static void ids_worker(tb_job *base)
{
    ids_job *job = (ids_job *)base;
    tb_job_poll poll;
    tb_job_poll_init(&poll, base);
    tb_mteval_text m;
    tb_mteval_text_init(&m);
    m.builder.lookup = job->lookup;
    m.builder.poll = &poll.base;
    size_t lo, hi;
    while (tb_job_claim(base, &lo, &hi)) {
        const size_t first_line = m.builder.nseq, first_id = m.builder.nids, c = lo / base->chunk;
        int rc = add_lines(&m, job->lines, lo, hi, job->lowercase);
        if (rc == 0)
            rc = take_ids(&m.builder, first_line, first_id, &job->chunk_ids[c], &job->chunk_length[c]);
        if (rc == TB_MTEVAL_REFUSED) {
            tb_job_fail(base, TB_VALUE, lo);
        } else if (rc != 0) {
            if (!tb_job_failed(base))  /* (else the poll stopped the builder) */
                tb_job_fail(base, TB_NOMEM, lo);
        }
        if (rc != 0)
            break;
    }
    tb_mteval_text_free(&m);
}

/* The job's chunks joined into *ids, *length; 0 or -1 (out of memory, or past INT32_MAX ids). */
static int join_chunks(const ids_job *job, size_t chunks, int32_t **ids, size_t *length)
{
    size_t total = 0;
    for (size_t c = 0; c < chunks; c++)
        total += job->chunk_length[c];
    if (total > INT32_MAX)
        return -1;
    int32_t *out = malloc((total + 1) * sizeof *out);
    if (!out)
        return -1;
    size_t k = 0;
    for (size_t c = 0; c < chunks; c++) {
        if (job->chunk_length[c])
            memcpy(out + k, job->chunk_ids[c], job->chunk_length[c] * sizeof *out);
        k += job->chunk_length[c];
    }
    *ids = out;
    *length = k;
    return 0;
}

/* tb_mteval_13a_ids with a lookup: the job, then its chunks joined. */
static int looked_up_ids(const tb_text *lines, size_t n, int lowercase, const tb_seg *lookup, int threads,
                         tb_signal_watch *watch, int32_t **ids, size_t *length)
{
    const size_t chunks = (n + IDS_CHUNK - 1) / IDS_CHUNK;
    ids_job job;
    memset(&job, 0, sizeof job);
    job.chunk_ids = calloc(chunks ? chunks : 1, sizeof *job.chunk_ids);
    job.chunk_length = calloc(chunks ? chunks : 1, sizeof *job.chunk_length);
    tb_status status = job.chunk_ids && job.chunk_length ? TB_OK : TB_NOMEM;
    if (status == TB_OK) {
        tb_job_init(&job.base, ids_worker, n, IDS_CHUNK);
        job.lines = lines;
        job.lowercase = lowercase;
        job.lookup = lookup;
        status = tb_job_run(&job.base, threads, watch);
    }
    int rc = status == TB_OK ? join_chunks(&job, chunks, ids, length)
             : status == TB_VALUE ? TB_MTEVAL_REFUSED
             : status == TB_INTERRUPTED ? TB_MTEVAL_INTERRUPTED : -1;
    for (size_t c = 0; job.chunk_ids && c < chunks; c++)
        free(job.chunk_ids[c]);
    free(job.chunk_ids);
    free(job.chunk_length);
    return rc;
}

int tb_mteval_13a_ids(const tb_text *lines, size_t n, int lowercase, const tb_seg *lookup, int threads,
                      tb_signal_watch *watch, int32_t **ids, size_t *length, tb_seg **vocabulary)
{
    *ids = NULL;
    *length = 0;
    if (vocabulary)
        *vocabulary = NULL;
    if (lookup)
        return looked_up_ids(lines, n, lowercase, lookup, threads, watch, ids, length);
    /* a new vocabulary: one thread, so that the ids follow the lines' first occurrences */
    tb_mteval_text m;
    tb_mteval_text_init(&m);
    int rc = add_lines(&m, lines, 0, n, lowercase);
    if (rc == 0)
        rc = take_ids(&m.builder, 0, 0, ids, length);
    if (rc == 0 && vocabulary && (*vocabulary = tb_builder_freeze(&m.builder)) == NULL) {
        free(*ids);
        *ids = NULL;
        *length = 0;
        rc = -1;
    }
    tb_mteval_text_free(&m);
    return rc;
}
