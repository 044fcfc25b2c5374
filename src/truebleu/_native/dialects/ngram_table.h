/* truebleu core, dialects: every n-gram of a set of token-id lines, numbered
 * (plain C, no Python).
 *
 * An n-gram is its (n-1)-gram prefix's number and its last token id (a unigram's
 * prefix is -1), so one open-addressing table of (prefix, token) pairs holds every
 * order, and an n-gram's context is its prefix. Numbers are given in order of first
 * occurrence. Token ids are >= 0; a line ends at TB_LINE_END; TB_UNKNOWN_TOKEN is a
 * token that is in no table (a hypothesis word absent from the references).
 */
#ifndef TB_DIALECTS_NGRAM_TABLE_H
#define TB_DIALECTS_NGRAM_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/status.h"

#define TB_LINE_END (-1)
#define TB_UNKNOWN_TOKEN (-2)

typedef struct {
    uint64_t key;  /* (prefix + 1) << 32 | token, plus one: never 0 */
    int64_t id;    /* the n-gram's number */
} tb_ngram_slot;

typedef struct {
    tb_ngram_slot *slot_of_key; /* open addressing: (key, number), key 0 when free */
    size_t slots;       /* a power of two, at most 3/4 full */
    int32_t *prefix;    /* n-gram -> its prefix's number, -1 for a unigram */
    int32_t *token;     /* n-gram -> its last token */
    int32_t *order;     /* n-gram -> n */
    int64_t *count;     /* n-gram -> occurrences in the lines it was built from */
    size_t n, cap;
} tb_ngram_table;

/* The table's key of the n-gram (prefix, token): never 0 (0 marks a free slot). */
static inline uint64_t tb_ngram_key(int32_t prefix, int32_t token)
{
    return ((uint64_t)(uint32_t)(prefix + 1) << 32 | (uint32_t)token) + 1;
}

/* The first slot to probe for `key` in a table of `slots` slots (a power of two):
 * splitmix64's finalizer, so that every key bit reaches the low bits the mask keeps. */
static inline size_t tb_ngram_slot_of(uint64_t key, size_t slots)
{
    key ^= key >> 30;
    key *= UINT64_C(0xBF58476D1CE4E5B9);
    key ^= key >> 27;
    key *= UINT64_C(0x94D049BB133111EB);
    key ^= key >> 31;
    return (size_t)(key & (uint64_t)(slots - 1));
}

/* A hint to fetch the slot where the n-gram (prefix, token) is looked for first (the
 * table is large and probed at random: without the hint nearly every add waits on memory). */
static inline const void *tb_ngram_table_first_slot(const tb_ngram_table *t, int32_t prefix, int32_t token)
{
    return t->slots ? (const void *)&t->slot_of_key[tb_ngram_slot_of(tb_ngram_key(prefix, token), t->slots)]
                    : (const void *)t;
}

/* Counts one occurrence of the n-gram (prefix, token) of order `order`, whose key is `key`
 * and whose first slot is `at` (tb_ngram_slot_of(key, t->slots), found ahead by a caller that
 * prefetched it), added if new: its number. Only for a table reserved (tb_ngram_table_reserve)
 * for at least as many n-grams as it will ever be given, at most INT32_MAX: then no array and
 * no slot can run out, so nothing is checked and nothing grows. */
static inline int32_t tb_ngram_table_add_reserved(tb_ngram_table *t, uint64_t key, size_t at, int32_t prefix,
                                                 int32_t token, int32_t order)
{
    const size_t mask = t->slots - 1;
    for (;; at = (at + 1) & mask) {
        tb_ngram_slot *slot = &t->slot_of_key[at];
        if (slot->key == key) {
            const int32_t g = (int32_t)slot->id;
            t->count[g]++;
            return g;
        }
        if (slot->key == 0)
            break;
    }
    const int32_t g = (int32_t)t->n++;
    t->prefix[g] = prefix;
    t->token[g] = token;
    t->order[g] = order;
    t->count[g] = 1;
    t->slot_of_key[at].key = key;
    t->slot_of_key[at].id = g;
    return g;
}

/* An empty table (zeroed first) sized for `most` n-grams, for tb_ngram_table_add_reserved:
 * its arrays hold that many, and its slots are then at most 3/4 full. TB_OK or TB_NOMEM. */
tb_status tb_ngram_table_reserve(tb_ngram_table *t, size_t most);

/* The number of the n-gram (prefix, token), or -1 when the table does not hold it. */
int32_t tb_ngram_table_find(const tb_ngram_table *t, int32_t prefix, int32_t token);

void tb_ngram_table_free(tb_ngram_table *t);

#endif
