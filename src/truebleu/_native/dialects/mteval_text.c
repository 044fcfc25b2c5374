/* truebleu core, dialects: mteval-v13a's tokens of lines as token ids (see mteval_text.h). */
#include "dialects/mteval_text.h"
#include "dialects/ngram_table.h"
#include "runtime/memory.h"
#include "runtime/portable.h"

#include <stdlib.h>
#include <string.h>

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

/* tb_mteval_13a_text's rewrite of in[0..n) into o, for one PyUnicode kind (inlined with a
 * constant kind: one loop per kind); the length written, or (size_t)-1 when refused. Every
 * character the rewrite changes but A-Z is at most '>' (0x3E): the rest are copied. */
static TB_ALWAYS_INLINE size_t rewrite(const void *in, size_t n, int kind, int lowercase, void *o)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
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

int tb_mteval_13a_ids(const tb_text *lines, size_t n, int lowercase, const tb_seg *lookup, int32_t **ids,
                      size_t *length, tb_seg **vocabulary)
{
    *ids = NULL;
    *length = 0;
    if (vocabulary)
        *vocabulary = NULL;
    tb_mteval_text m;
    tb_mteval_text_init(&m);
    tb_builder *b = &m.builder;
    b->lookup = lookup;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        tb_text text;
        rc = tb_mteval_13a_text(&m, &lines[i], lowercase, &text);
        if (rc == 0 && tb_builder_add_line(b, &text, TB_13A) < 0)
            rc = -1;
    }
    if (rc == 0 && (b->nids + n > INT32_MAX || b->nvocab > INT32_MAX))
        rc = -1;
    int32_t *out = rc == 0 ? malloc((b->nids + n + 1) * sizeof *out) : NULL;
    if (rc == 0 && !out)
        rc = -1;
    if (rc == 0) {
        size_t k = 0, at = 0;
        for (size_t line = 0; line < b->nseq; line++) {
            for (uint32_t j = 0; j < b->seq_len[line]; j++) {
                uint32_t id = b->ids[at++];
                out[k++] = id == TB_ABSENT ? TB_UNKNOWN_TOKEN : (int32_t)id;
            }
            out[k++] = TB_LINE_END;
        }
        *length = k;
        if (!lookup && vocabulary && (*vocabulary = tb_builder_freeze(b)) == NULL) {
            free(out);
            out = NULL;
            *length = 0;
            rc = -1;
        }
    }
    *ids = out;
    tb_mteval_text_free(&m);
    return rc;
}
