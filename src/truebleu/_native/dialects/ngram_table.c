/* truebleu core, dialects: every n-gram of token-id lines, numbered (see ngram_table.h). */
#include "dialects/ngram_table.h"
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
    tb_ngram_slot *table = calloc(slots, sizeof *table);
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

/* The number of (prefix, token), added with count 0 if new; -1 when out of memory or full. */
static int32_t find_or_add(tb_ngram_table *t, int32_t prefix, int32_t token, int32_t order)
{
    int32_t found = tb_ngram_table_find(t, prefix, token);
    if (found >= 0)
        return found;
    if (t->n >= INT32_MAX)
        return -1;
    if (2 * (t->n + 1) > t->slots && rehash(t, t->slots ? 2 * t->slots : 1024) != TB_OK)
        return -1;
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
    t->count[g] = 0;
    uint64_t key = tb_ngram_key(prefix, token);
    size_t s = tb_ngram_slot_of(key, t->slots);
    while (t->slot_of_key[s].key != 0)
        s = (s + 1) & (t->slots - 1);
    t->slot_of_key[s].key = key;
    t->slot_of_key[s].id = g;
    return g;
}

tb_status tb_ngram_table_build(tb_ngram_table *t, const int32_t *ids, size_t length, int max_order)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < length; i++)
        if (ids[i] < TB_LINE_END)
            return TB_VALUE;
    for (size_t start = 0; start < length; start++) {
        if (ids[start] == TB_LINE_END)
            continue;
        int32_t prefix = -1;
        for (int n = 1; n <= max_order && start + (size_t)n - 1 < length; n++) {
            int32_t token = ids[start + (size_t)n - 1];
            if (token == TB_LINE_END)
                break;
            int32_t g = find_or_add(t, prefix, token, n);
            if (g < 0)
                return TB_NOMEM;
            t->count[g]++;
            prefix = g;
        }
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
