/* truebleu core: items with the same references next to each other (see bleu/groups.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bleu/groups.h"
#include "runtime/portable.h"

#define NO_ITEM SIZE_MAX

/* Both halves of the 128-bit product with an odd constant, folded. */
static inline uint64_t mix(uint64_t x)
{
    uint64_t hi, lo = tb_mul_64x64(x, 0x9E3779B97F4A7C15ull, &hi);
    return hi ^ lo;
}

/* The 8 bytes at p (any alignment). */
static inline uint64_t word_at(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* A text's look: its kind, length and lowercasing, and three of its 8-byte
 * words (first, middle, last; all of it when shorter). Equal texts look alike;
 * a few words per line keep this a small part of tokenizing the line. */
static uint64_t text_look(const tb_text *t, uint64_t h)
{
    const size_t unit = t->kind == TB_KIND_UTF8 ? 1 : (size_t)t->kind;
    const size_t nbytes = t->length * unit;
    const unsigned char *p = t->data;
    h = mix(h ^ ((uint64_t)nbytes << 8 | (uint64_t)t->kind << 1 | (uint64_t)(t->ascii_lower != 0)));
    if (nbytes < 8) {
        uint64_t w = 0;
        if (nbytes)
            memcpy(&w, p, nbytes);
        return mix(h ^ w);
    }
    h = mix(h ^ word_at(p));
    h = mix(h ^ word_at(p + (nbytes - 8) / 2));
    return mix(h ^ word_at(p + nbytes - 8));
}

int tb_group_by_references(const tb_text *ref_texts, const size_t *offsets, size_t n, size_t **order)
{
    *order = NULL;
    if (n < 2)
        return 0;
    size_t cap = 16;
    while (cap < 2 * n)  /* at most half full */
        cap *= 2;
    uint64_t *look = malloc(n * sizeof(uint64_t));
    size_t *next = malloc(n * sizeof(size_t));   /* the next item of the group, or NO_ITEM */
    size_t *last = malloc(n * sizeof(size_t));   /* a group's first item: its last item; others NO_ITEM */
    size_t *slots = calloc(cap, sizeof(size_t)); /* a group's first item + 1; 0: empty */
    size_t *out = NULL;
    int rc = -1, repeats = 0;
    if (!look || !next || !last || !slots)
        goto done;
    const size_t mask = cap - 1;
    for (size_t k = 0; k < n; k++) {
        uint64_t h = offsets[k + 1] - offsets[k];
        for (size_t t = offsets[k]; t < offsets[k + 1]; t++)
            h = text_look(&ref_texts[t], h);
        look[k] = h;
        next[k] = last[k] = NO_ITEM;
        size_t j = (size_t)(h >> 32) & mask;
        while (slots[j] && look[slots[j] - 1] != h)
            j = (j + 1) & mask;
        if (!slots[j]) {  /* a new group */
            slots[j] = k + 1;
            last[k] = k;
        } else {
            size_t first = slots[j] - 1;
            next[last[first]] = k;
            last[first] = k;
            repeats = 1;
        }
    }
    if (repeats) {
        if (!(out = malloc(n * sizeof(size_t))))
            goto done;
        size_t p = 0;
        for (size_t k = 0; k < n; k++)
            if (last[k] != NO_ITEM)  /* the first item of a group: the whole group */
                for (size_t m = k; m != NO_ITEM; m = next[m])
                    out[p++] = m;
        *order = out;
    }
    rc = 0;
done:
    free(look);
    free(next);
    free(last);
    free(slots);
    return rc;
}
