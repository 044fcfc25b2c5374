/* chrF's reading of a line (chrf/lines.h). Whitespace is Py_UNICODE_ISSPACE,
 * as str.split() sees it; punctuation is string.punctuation. */
#include "text/classes.h"  /* (first: it brings Python.h, for Py_UNICODE_ISSPACE) */
#include "chrf/lines.h"

#include <stdlib.h>
#include <string.h>

static uint32_t text_at(const tb_text *t, size_t i)
{
    switch (t->kind) {
    case 1: return ((const uint8_t *)t->data)[i];
    case 2: return ((const uint16_t *)t->data)[i];
    default: return ((const uint32_t *)t->data)[i];
    }
}

static int is_punct(uint32_t c)
{
    /* string.punctuation */
    return c < 128 && c > 32 && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", (int)c) != NULL;
}

static int push_word(chrf_side *s, uint32_t start, uint32_t len)
{
    if (GROW(s->words, s->words_cap, s->nwords + 1) < 0)
        return -1;
    s->words[s->nwords].start = start;
    s->words[s->nwords].len = len;
    s->nwords++;
    return 0;
}

uint32_t tb_chrf_hash_run(const uint32_t *p, uint32_t n)
{
    uint64_t h = 0x243F6A8885A308D3ULL;
    for (uint32_t k = 0; k < n; k++)
        h = (h ^ p[k]) * 0x9E3779B97F4A7C15ULL;
    return (uint32_t)(h ^ (h >> 32));
}

int tb_chrf_decode(chrf_side *s, const tb_text *t, int whitespace, int words)
{
    size_t n = t->length;
    s->all.n = s->chars.n = 0;
    s->nwords = 0;
    if (n >= UINT32_MAX)
        return -1;
    if (GROW(s->all.a, s->all.cap, n) < 0 || GROW(s->chars.a, s->chars.cap, n) < 0)
        return -1;
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = text_at(t, i);
        s->all.a[i] = c;
        if (whitespace || !Py_UNICODE_ISSPACE(c))
            s->chars.a[nc++] = c;
    }
    s->all.n = n;
    s->chars.n = nc;
    if (!words)
        return 0;
    const uint32_t *a = s->all.a;
    size_t i = 0;
    while (i < n) {
        while (i < n && Py_UNICODE_ISSPACE(a[i]))
            i++;
        if (i >= n)
            break;
        size_t start = i;
        while (i < n && !Py_UNICODE_ISSPACE(a[i]))
            i++;
        uint32_t len = (uint32_t)(i - start);
        int rc;
        if (len > 1 && is_punct(a[start + len - 1]))
            rc = push_word(s, (uint32_t)start, len - 1) | push_word(s, (uint32_t)(start + len - 1), 1);
        else if (len > 1 && is_punct(a[start]))
            rc = push_word(s, (uint32_t)start, 1) | push_word(s, (uint32_t)start + 1, len - 1);
        else
            rc = push_word(s, (uint32_t)start, len);
        if (rc < 0)
            return -1;
    }
    return 0;
}

void tb_chrf_side_free(chrf_side *s)
{
    free(s->all.a);
    free(s->chars.a);
    free(s->words);
    free(s->ids);
    memset(s, 0, sizeof(*s));
}
