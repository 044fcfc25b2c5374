/* truebleu core, dialects: every n-gram of token-id lines, numbered (see ngram_table.h). */
#include "dialects/ngram_table.h"
#include "runtime/large_table.h"
#include "runtime/memory.h"

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

static tb_status rehash(tb_ngram_table *t, size_t slots)
{
    tb_ngram_slot *table = tb_large_table_zeroed(slots, sizeof *table);
    if (!table)
        return TB_NOMEM;
    for (size_t g = 0; g < t->n; g++) {
        uint64_t key = tb_ngram_key(t->prefix[g], t->token[g]);
        size_t s = tb_ngram_slot_of(key, slots);
        while (table[s].key != 0)
            s = (s + 1) & (slots - 1);
        table[s].key = key;
        table[s].id = (int64_t)g;
    }
    free(t->slot_of_key);
    t->slot_of_key = table;
    t->slots = slots;
    return TB_OK;
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
    if (!t->prefix || !t->token || !t->order || !t->count || rehash(t, slots_for(most)) != TB_OK) {
        tb_ngram_table_free(t);
        return TB_NOMEM;
    }
    return TB_OK;
}

int32_t tb_ngram_table_add(tb_ngram_table *t, int32_t prefix, int32_t token, int32_t order)
{
    uint64_t key = tb_ngram_key(prefix, token);
    size_t s = t->slots ? tb_ngram_slot_of(key, t->slots) : 0;
    for (; t->slots; s = (s + 1) & (t->slots - 1)) {
        if (t->slot_of_key[s].key == key) {
            int32_t g = (int32_t)t->slot_of_key[s].id;
            t->count[g]++;
            return g;
        }
        if (t->slot_of_key[s].key == 0)
            break;
    }
    if (t->n >= INT32_MAX)
        return -1;
    if (t->n + 1 > t->slots / 4 * 3) {  /* (never, within the reserved size) */
        if (rehash(t, slots_for(t->n + 1)) != TB_OK)
            return -1;
        for (s = tb_ngram_slot_of(key, t->slots); t->slot_of_key[s].key != 0; s = (s + 1) & (t->slots - 1))
            ;
    }
    size_t cap = t->cap;
    if (GROW(t->prefix, cap, t->n + 1) < 0)
        return -1;
    cap = t->cap;
    if (GROW(t->token, cap, t->n + 1) < 0)
        return -1;
    cap = t->cap;
    if (GROW(t->order, cap, t->n + 1) < 0)
        return -1;
    cap = t->cap;
    if (GROW(t->count, cap, t->n + 1) < 0)
        return -1;
    t->cap = cap;
    int32_t g = (int32_t)t->n++;
    t->prefix[g] = prefix;
    t->token[g] = token;
    t->order[g] = order;
    t->count[g] = 1;
    t->slot_of_key[s].key = key;
    t->slot_of_key[s].id = g;
    return g;
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
