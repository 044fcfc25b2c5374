/* truebleu core: items with the same references next to each other (see bleu/groups.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bleu/groups.h"
#include "runtime/spares.h"

#define NO_ITEM SIZE_MAX
/* the items are grouped when at least 1 in this many repeats an earlier one's first look */
#define GROUP_WHEN_REPEATS_IN 16

/* One step of the look: x into h, by a multiplication (the high bits of h,
 * which pick a slot, depend on every bit of x). */
static inline uint64_t step(uint64_t h, uint64_t x)
{
    return (h ^ x) * 0x9E3779B97F4A7C15ull;
}

/* The 8 bytes at p (any alignment). */
static inline uint64_t word_at(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* The look of a text shorter than 8 bytes (out of line: few lines are). */
static uint64_t short_look(const unsigned char *p, size_t nbytes, uint64_t meta, uint64_t h)
{
    uint64_t w = 0;
    if (nbytes)
        memcpy(&w, p, nbytes);
    return step(step(h, meta), w);
}

/* A text's look: its kind, length and lowercasing, and three of its 8-byte
 * words (first, middle, last; all of it when shorter). Equal texts look alike;
 * a few words per line keep this a small part of tokenizing the line. (The
 * first word goes in with the length: three multiplications a text.) */
static inline uint64_t text_look(const tb_text *t, uint64_t h)
{
    const size_t nbytes = t->length * (t->kind == TB_KIND_UTF8 ? 1 : (size_t)t->kind);
    const unsigned char *p = t->data;
    const uint64_t meta = (uint64_t)t->length << 8 | (uint64_t)t->kind << 1 | (uint64_t)t->ascii_lower;
    if (nbytes < 8) {
        h = short_look(p, nbytes, meta, h);
    } else {
        h = step(h ^ (meta << 32 | meta >> 32), word_at(p));
        h = step(h, word_at(p + (nbytes - 8) / 2));
        h = step(h, word_at(p + nbytes - 8));
    }
    return h ^ (h >> 31);  /* (the low bits of a product see only the low bits of its factors) */
}

/* A first look at an item's references: their count, and each one's length
 * (in code units) and first 8 bytes (the same for the same texts; a text
 * shorter than 8 units gives its length only). One multiplication a
 * reference: most calls look at every item this way and at nothing else. */
static inline uint64_t first_look(const tb_text *ref_texts, size_t lo, size_t hi)
{
    uint64_t h = hi - lo;
    if (h == 1) {  /* (most items: one reference) */
        const tb_text *r = ref_texts + lo;
        return step(1 + r->length, r->length >= 8 ? word_at(r->data) : 0) | 1;
    }
    for (const tb_text *r = ref_texts + lo, *end = ref_texts + hi; r < end; r++)
        h = step(h + r->length, r->length >= 8 ? word_at(r->data) : 0);
    return h | 1;  /* (0 marks an empty slot) */
}

/* looks[k]: item k's first look, for the items up to the returned index w;
 * whether many items (1 in GROUP_WHEN_REPEATS_IN at least) repeat an earlier
 * item's first look: 0 when not (every item looked at), else w, the index
 * after the item where the repeats were found many (at least SWITCH_REPEATS
 * of them; n when only all of them are), or SIZE_MAX: out of memory. Counted
 * in a set of first looks (slots: an item + 1); of many items, only of those
 * whose look's top 3 bits are zero: equal looks are in or out together, so
 * the share of repeats stays about the same, and the set costs an eighth (most
 * calls have few repeats: one test set's duplicate lines). Stopping at w, a
 * grouped call (several systems, concatenated: from the second one's first
 * items on) looks at the items from w as it chains them, once. */
#define SWITCH_REPEATS 8

static size_t many_repeats(const tb_text *ref_texts, const size_t *offsets, size_t n, uint64_t *looks)
{
    const unsigned skip = n >= 512 ? 61 : 64;  /* a look is counted when look >> skip is 0 */
    const size_t expect = skip == 64 ? n : n / 8 + 16;
    size_t cap = 16;
    while (cap < expect + expect / 2)  /* at most 2/3 full */
        cap *= 2;
    uint32_t *slots = calloc(cap, sizeof(uint32_t));
    if (!slots)
        return SIZE_MAX;
    /* (items past UINT32_MAX - 1 or a full set: looked at, not counted) */
    const size_t full = cap - cap / 3, last = n < UINT32_MAX ? n : UINT32_MAX - 1;
    size_t counted = 0, repeats = 0, in_set = 0, w = 0;
    for (size_t k = 0; k < n; k++) {
        const uint64_t h = looks[k] = first_look(ref_texts, offsets[k], offsets[k + 1]);
        if ((skip < 64 && h >> skip) || in_set == full || k >= last)
            continue;
        counted++;
        size_t j = (size_t)(h >> 32) & (cap - 1);
        while (slots[j] && looks[slots[j] - 1] != h)
            j = (j + 1) & (cap - 1);
        if (slots[j]) {
            if (++repeats >= SWITCH_REPEATS && repeats >= counted / GROUP_WHEN_REPEATS_IN) {
                w = k + 1;
                break;
            }
        } else {
            slots[j] = (uint32_t)k + 1;
            in_set++;
        }
    }
    free(slots);
    if (w)
        return w;
    return repeats > 0 && repeats >= counted / GROUP_WHEN_REPEATS_IN ? n : 0;
}

/* Whether items a and b have the very same reference texts: the same strings
 * (storage, length, kind, lowercasing), in the same order. Several systems'
 * outputs scored against one test set's references, concatenated, repeat the
 * same str objects; this pointer test is all such an item costs. */
static inline int same_object(const tb_text *x, const tb_text *y)
{
    return x->data == y->data && x->length == y->length && x->kind == y->kind && x->ascii_lower == y->ascii_lower;
}

static inline int same_objects(const tb_text *ref_texts, const size_t *offsets, size_t a, size_t b)
{
    const size_t lo = offsets[a], count = offsets[a + 1] - lo;
    if (offsets[b + 1] - offsets[b] != count)
        return 0;
    const tb_text *x = ref_texts + lo, *y = ref_texts + offsets[b];
    if (count == 1)
        return same_object(x, y);
    for (size_t t = 0; t < count; t++)
        if (!same_object(&x[t], &y[t]))
            return 0;
    return 1;
}

/* The look of item k's references: their count and each one's text_look
 * (never 0: 0 marks a look not yet taken). */
static inline uint64_t refs_look(const tb_text *ref_texts, const size_t *offsets, size_t k)
{
    const size_t lo = offsets[k], hi = offsets[k + 1];
    if (hi - lo == 1)  /* (most items: one reference; no loop) */
        return text_look(&ref_texts[lo], 1) | 1;
    uint64_t h = hi - lo;
    for (size_t t = lo; t < hi; t++)
        h = text_look(&ref_texts[t], h);
    return h | 1;
}

/* Chains the items with equal references (a call many_repeats found grouped),
 * in one pass that also writes the first looks of the items from `known` on
 * (looks[k]; many_repeats wrote those before) and counts the items that repeat
 * an earlier item's references (the return value). Item k is first tested
 * against the item after the one item k - 1 matched (a concatenation of
 * systems: item i of the second system has the same str objects as item i of
 * the first, and so does item i + 1): the same objects, so the same first look
 * and the same chain, taken without a look or a probe. Any other item is
 * probed in the table of slots by its first look; where a chain's first item
 * has the same first look, the refs_look of both (three words of each
 * reference, taken only then, and once for a chain) decides whether it joins
 * that chain, so first looks that collide (equal lengths and first words) make
 * no false chain. A slot holds stamp + (a chain's first item) + 1, and a value
 * of at most stamp is empty (an earlier call's, or zero), so the table is used
 * again without clearing. head[k]: the first item of k's chain; next[k]: the
 * next item of k's chain (NO_ITEM: the last); tail[h], for a first item h
 * only: its chain's last item. (Before, every item's first look was taken in a
 * pass of its own, and every item not found by its candidate had its
 * refs_look taken and probed: on WMT21 into English in one call, grouping cost
 * 20.8 M instructions, now 15.8 M with order_chain. The arrays never overlap:
 * restrict.) */
/* chain_references tests a candidate at every item until this many tests in a row failed */
#define FOLLOW_MISSES 64

static size_t chain_references(const tb_text *restrict ref_texts, const size_t *restrict offsets, size_t n,
                               size_t known, uint64_t *restrict looks, uint64_t *restrict refs, size_t *restrict slots,
                               size_t mask, size_t stamp, size_t *restrict tail, size_t *restrict next,
                               size_t *restrict head)
{
    size_t repeats = 0;
    size_t follow = NO_ITEM;  /* the earlier item whose references item k - 1 has */
    size_t misses = 0;  /* tests since the last one that found the same objects */
    for (size_t k = 0; k < n; k++) {
        next[k] = NO_ITEM;
        const size_t c = follow + 1;  /* (0 when none: a candidate as good as any) */
        size_t h0;
        /* (references equal but not the same objects, as the command line's lines
         * of a file: the test fails every time, and is made only every 64th item
         * after FOLLOW_MISSES failures in a row) */
        const int test = c < k && (misses < FOLLOW_MISSES || (k & 63) == 0);
        if (test && same_objects(ref_texts, offsets, c, k)) {
            looks[k] = looks[c];
            h0 = head[c];
            follow = c;
            misses = 0;
        } else {
            misses += (size_t)test;
            const uint64_t h = k < known ? looks[k] : (looks[k] = first_look(ref_texts, offsets[k], offsets[k + 1]));
            uint64_t full = 0;  /* refs_look of item k, once a chain's first look is h */
            size_t j = (size_t)(h >> 32) & mask;
            for (; slots[j] > stamp; j = (j + 1) & mask) {
                const size_t m = slots[j] - stamp - 1;
                if (looks[m] != h)
                    continue;
                if (!full)
                    full = refs_look(ref_texts, offsets, k);
                if (!refs[m])
                    refs[m] = refs_look(ref_texts, offsets, m);
                if (refs[m] == full)
                    break;
            }
            if (slots[j] <= stamp) {  /* a new chain */
                refs[k] = full;
                slots[j] = stamp + k + 1;
                tail[k] = head[k] = k;
                follow = k;  /* (item k + 1 has no candidate) */
                continue;
            }
            h0 = slots[j] - stamp - 1;
            follow = h0;
        }
        next[tail[h0]] = k;
        tail[h0] = k;
        head[k] = h0;
        repeats++;
    }
    return repeats;
}

/* The order: each chain of references where its first item was, and within a
 * chain (m items, from its first item `first`) the items whose hypotheses look
 * alike one after another, in the order of their first ones. The hypotheses
 * are looked at chain by chain, a chain's items numbered 0 .. m - 1 in `at`
 * and probed in the slots stamped for it alone (stamp + number + 1), so a
 * probe compares looks only (equal references hold within a chain), and the
 * hypothesis of a chain of one item is not looked at. hyp_next, hyp_tail,
 * looks: scratch of m entries, by number. Writes order[p ..]; returns the new
 * p. *stamp grows by m. */
static size_t order_chain(const tb_text *restrict hyp_texts, size_t first, const size_t *restrict next,
                          size_t *restrict slots, size_t mask, size_t *stamp, size_t *restrict at,
                          size_t *restrict hyp_next, size_t *restrict hyp_tail, uint64_t *restrict looks,
                          size_t *restrict order, size_t p)
{
    if (next[first] == NO_ITEM) {
        order[p] = first;
        return p + 1;
    }
    const size_t base = *stamp;
    size_t m = 0;
    for (size_t k = first; k != NO_ITEM; k = next[k], m++) {
        at[m] = k;
        hyp_next[m] = NO_ITEM;
        const uint64_t h = looks[m] = text_look(&hyp_texts[k], 0);
        size_t j = (size_t)(h >> 32) & mask;
        while (slots[j] > base && looks[slots[j] - base - 1] != h)
            j = (j + 1) & mask;
        if (slots[j] <= base) {  /* the first of its hypothesis */
            slots[j] = base + m + 1;
            hyp_tail[m] = m;
        } else {
            const size_t h0 = slots[j] - base - 1;
            hyp_next[hyp_tail[h0]] = m;
            hyp_tail[h0] = m;
            hyp_tail[m] = NO_ITEM;
        }
    }
    *stamp = base + m;
    for (size_t q = 0; q < m; q++)
        if (hyp_tail[q] != NO_ITEM)  /* the first of its hypothesis: its run */
            for (size_t r = q; r != NO_ITEM; r = hyp_next[r])
                order[p++] = at[r];
    return p;
}

/* The arrays of a grouping, for up to `items` items, and the chains' table. */
struct tb_groups_scratch {
    size_t items;
    uint64_t *looks;  /* each item's first look */
    uint64_t *refs;   /* the refs_look of a chain's first item (0: not taken) */
    uint64_t *hyps;   /* the looks of one chain's hypotheses, by number */
    size_t *arrays;   /* tail, next, head, at, hyp_next, hyp_tail: 6 * items */
    size_t *order;
    size_t *slots;    /* slots_cap entries (see chain_references) */
    size_t slots_cap;
    size_t stamp;     /* slots' values up to this are empty */
};

static tb_spares groups_spares;

/* The per-item arrays (not the table, which scratch_take keeps when it grows them). */
static void free_arrays(tb_groups_scratch *s)
{
    free(s->looks);
    free(s->refs);
    free(s->hyps);
    free(s->arrays);
    free(s->order);
}

static void scratch_free(tb_groups_scratch *s)
{
    free_arrays(s);
    free(s->slots);
    free(s);
}

/* A scratch with room for n items (its table not yet sized), or NULL: out of memory. */
static tb_groups_scratch *scratch_take(size_t n)
{
    tb_groups_scratch *s = tb_spares_take(&groups_spares);
    if (!s && !(s = calloc(1, sizeof(*s))))
        return NULL;
    if (s->items >= n)
        return s;
    free_arrays(s);
    s->items = n;
    s->looks = malloc(n * sizeof(uint64_t));
    s->refs = malloc(n * sizeof(uint64_t));
    s->hyps = malloc(n * sizeof(uint64_t));
    s->arrays = n <= SIZE_MAX / 6 / sizeof(size_t) ? malloc(6 * n * sizeof(size_t)) : NULL;
    s->order = malloc(n * sizeof(size_t));
    if (!s->looks || !s->refs || !s->hyps || !s->arrays || !s->order) {
        scratch_free(s);
        return NULL;
    }
    return s;
}

/* s's table with at least cap slots, every one empty at s->stamp. 0, or -1: out of memory. */
static int table_of(tb_groups_scratch *s, size_t cap)
{
    if (s->slots_cap < cap) {
        free(s->slots);
        s->slots_cap = 0;
        if (!(s->slots = calloc(cap, sizeof(size_t))))
            return -1;
        s->slots_cap = cap;
        s->stamp = 0;
    } else if (s->stamp > SIZE_MAX / 2) {  /* (never on 64 bits) the stamps start again */
        memset(s->slots, 0, s->slots_cap * sizeof(size_t));
        s->stamp = 0;
    }
    return 0;
}

/* The bytes s's arrays and table hold. */
static size_t scratch_footprint(const tb_groups_scratch *s)
{
    return s->items * (3 * sizeof(uint64_t) + 7 * sizeof(size_t)) + s->slots_cap * sizeof(size_t);
}

void tb_groups_release(tb_groups *g)
{
    tb_groups_scratch *s = g->scratch;
    g->scratch = NULL;
    g->order = NULL;
    g->looks = NULL;
    if (!s)
        return;
    if (scratch_footprint(s) <= TB_SPARE_MAX_BYTES && tb_spares_give(&groups_spares, s))
        return;
    scratch_free(s);
}

static size_t release_kept(void *p)
{
    size_t bytes = scratch_footprint(p) + sizeof(tb_groups_scratch);
    scratch_free(p);
    return bytes;
}

size_t tb_groups_release_spares(void) { return tb_spares_drain(&groups_spares, release_kept); }

int tb_group_by_references(const tb_text *hyp_texts, const tb_text *ref_texts, const size_t *offsets, size_t n,
                           tb_groups *out)
{
    *out = (tb_groups){NULL, NULL, NULL};
    if (n < 2)
        return 0;
    tb_groups_scratch *s = scratch_take(n);
    if (!s)
        return -1;
    out->scratch = s;
    out->looks = s->looks;
    /* few repeats (one test set's few duplicate lines): the natural order, as
     * cheap as it gets; grouping pays when many items share references */
    const size_t known = many_repeats(ref_texts, offsets, n, s->looks);
    if (known == 0 || known == SIZE_MAX) {
        if (known == SIZE_MAX)
            tb_groups_release(out);
        return known == 0 ? 0 : -1;
    }
    size_t cap = 16;
    while (cap < 2 * n)  /* at most half full */
        cap *= 2;
    if (table_of(s, cap) < 0) {
        tb_groups_release(out);
        return -1;
    }
    size_t *tail = s->arrays, *next = s->arrays + n, *head = s->arrays + 2 * n;
    const size_t repeats = chain_references(ref_texts, offsets, n, known, s->looks, s->refs, s->slots, cap - 1,
                                            s->stamp, tail, next, head);
    s->stamp += n;
    /* (the items counted exactly: a call whose repeats were all early stays in its order) */
    const int grouped = repeats > 0 && repeats >= n / GROUP_WHEN_REPEATS_IN;
    if (grouped) {
        /* the chains in the order of their first items, each with its hypotheses that look alike together */
        size_t *at = s->arrays + 3 * n, *hyp_next = s->arrays + 4 * n, *hyp_tail = s->arrays + 5 * n;
        size_t p = 0;
        for (size_t k = 0; k < n; k++)
            if (head[k] == k)
                p = order_chain(hyp_texts, k, next, s->slots, cap - 1, &s->stamp, at, hyp_next, hyp_tail, s->hyps,
                                s->order, p);
        out->order = s->order;
    }
    return 0;
}
