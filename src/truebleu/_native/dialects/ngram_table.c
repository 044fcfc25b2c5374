/* truebleu core, dialects: every n-gram of token-id lines, numbered (see ngram_table.h). */
#include "dialects/ngram_table.h"
#include "runtime/large_table.h"

#include <stdlib.h>
#include <string.h>

int32_t tb_ngram_table_find(const tb_ngram_table *t, int32_t prefix, int32_t token)
{
    if (t->slots == 0)
        return -1;
    uint64_t key = tb_ngram_key(prefix, token);
    for (size_t s = tb_ngram_slot_of(key, t->slots);; s = (s + 1) & (t->slots - 1)) {
        if (t->slot_of_key[s].key == key)
            return (int32_t)t->slot_of_key[s].id;
        if (t->slot_of_key[s].key == 0)
            return -1;
    }
}

/* The smallest power of two of slots (at least 1024) that keeps `n` n-grams at most 3/4 full. */
static size_t slots_for(size_t n)
{
    size_t slots = 1024;
    while (slots / 4 * 3 < n)
        slots *= 2;
    return slots;
}

tb_status tb_ngram_table_reserve(tb_ngram_table *t, size_t most)
{
    memset(t, 0, sizeof *t);
    size_t cap = most ? most : 1;
    t->prefix = malloc(cap * sizeof *t->prefix);
    t->token = malloc(cap * sizeof *t->token);
    t->order = malloc(cap * sizeof *t->order);
    t->count = malloc(cap * sizeof *t->count);
    t->cap = cap;
    t->slots = slots_for(most);
    t->slot_of_key = tb_large_table_zeroed(t->slots, sizeof *t->slot_of_key);
    if (!t->prefix || !t->token || !t->order || !t->count || !t->slot_of_key) {
        tb_ngram_table_free(t);
        return TB_NOMEM;
    }
    return TB_OK;
}

void tb_ngram_table_free(tb_ngram_table *t)
{
    free(t->slot_of_key);
    free(t->prefix);
    free(t->token);
    free(t->order);
    free(t->count);
    memset(t, 0, sizeof *t);
}
