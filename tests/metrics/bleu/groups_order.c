/* bleu/groups.c's order of a one-pass job's items, checked on the plain C
 * (run by tests/metrics/bleu/test_native_groups_order.py: cc -std=c11 with
 * groups.c). The job compares texts before it reuses anything, so a broken
 * grouping changes no score, only the work: these checks are what sees it.
 *
 * Each case lays out items (references and a hypothesis each) from a few
 * distinct reference sets and hypotheses, as str objects shared (the same
 * storage), copied (equal by value only) or alike to the look only, and checks:
 * - the order is a permutation of the items (or NULL: the natural order);
 * - items with equal references have equal first looks;
 * - when the call is grouped and no two distinct sets look alike, the items of
 *   each reference set are one run, first seen where its first item is, in
 *   the items' order; within a run, each hypothesis one run too.
 * Prints "ok <checks>" or the first failure, and exits 0 or 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bleu/groups.h"

#define MAX_ITEMS 4096
#define MAX_TEXTS (4 * MAX_ITEMS)

static long checks;

/* A text of `len` code units of `kind` (1, 2, 4, or 0: UTF-8) made from the
 * ASCII string s, in its own storage (a new object) or at `at` (shared). */
static tb_text make_text(const char *s, int kind, const void *at)
{
    size_t len = strlen(s), unit = kind ? (size_t)kind : 1;
    if (!at) {
        unsigned char *p = calloc(len ? len * unit : 1, 1);
        for (size_t i = 0; i < len; i++)
            p[i * unit] = (unsigned char)s[i];  /* (little-endian code units) */
        at = p;
    }
    return (tb_text){at, len, kind, 0};
}

typedef struct {
    size_t n;
    tb_text hyps[MAX_ITEMS];
    tb_text refs[MAX_TEXTS];
    size_t offsets[MAX_ITEMS + 1];
    int set_of[MAX_ITEMS];  /* each item's reference set (equal sets: equal numbers) */
    int hyp_of[MAX_ITEMS];  /* each item's hypothesis (equal texts: equal numbers) */
} layout;

static int fail(const char *name, const char *what, size_t a, size_t b)
{
    printf("%s: %s (items %zu, %zu)\n", name, what, a, b);
    return 1;
}

/* The checks of the header comment; expect_grouped: the call must be grouped,
 * and its groups exact (no two distinct sets alike to the look). */
static int check(const char *name, const layout *L, int expect_grouped)
{
    tb_groups g;
    if (tb_group_by_references(L->hyps, L->refs, L->offsets, L->n, &g) < 0)
        return fail(name, "out of memory", 0, 0);
    int bad = 0;
    static size_t seen[MAX_ITEMS], pos[MAX_ITEMS];
    memset(seen, 0, sizeof(seen));
    for (size_t p = 0; p < L->n && !bad; p++) {
        size_t k = g.order ? g.order[p] : p;
        if (k >= L->n || seen[k]++)
            bad = fail(name, "not a permutation", p, k);
        pos[k] = p;
        checks++;
    }
    if (g.looks)
        for (size_t a = 0; a < L->n && !bad; a++)
            for (size_t b = a + 1; b < L->n && !bad; b++, checks++)
                if (L->set_of[a] == L->set_of[b] && g.looks[a] != g.looks[b])
                    bad = fail(name, "equal references, different first looks", a, b);
    if (!bad && expect_grouped && !g.order)
        bad = fail(name, "not grouped", 0, 0);
    if (!bad && expect_grouped) {
        /* each set one run, the runs in the order of their first items */
        for (size_t p = 1; p < L->n && !bad; p++) {
            size_t a = g.order[p - 1], b = g.order[p];
            checks++;
            if (L->set_of[a] != L->set_of[b]) {
                for (size_t q = p + 1; q < L->n && !bad; q++)
                    if (L->set_of[g.order[q]] == L->set_of[a])
                        bad = fail(name, "a reference set split", a, g.order[q]);
            } else if (L->hyp_of[a] != L->hyp_of[b]) {
                for (size_t q = p + 1; q < L->n && L->set_of[g.order[q]] == L->set_of[a] && !bad; q++)
                    if (L->hyp_of[g.order[q]] == L->hyp_of[a])
                        bad = fail(name, "a hypothesis split within its references", a, g.order[q]);
            }
        }
        size_t last_first = 0;
        for (size_t k = 0; k < L->n && !bad; k++) {
            size_t first = k;
            for (size_t m = 0; m < k; m++)
                if (L->set_of[m] == L->set_of[k]) {
                    first = m;
                    break;
                }
            if (first == k) {  /* a set's first item: its run after the earlier sets' */
                if (k && pos[k] < pos[last_first])
                    bad = fail(name, "groups out of the items' order", last_first, k);
                last_first = k;
            }
        }
    }
    tb_groups_release(&g);
    return bad;
}

static int same_text(const tb_text *a, const tb_text *b)
{
    size_t unit = a->kind ? (size_t)a->kind : 1;
    return a->kind == b->kind && a->length == b->length && a->ascii_lower == b->ascii_lower &&
           memcmp(a->data, b->data, a->length * unit) == 0;
}

/* set_of and hyp_of by value: items with equal references (count, kinds and
 * code units) share a set number, and with equal hypotheses too, a hypothesis
 * number. */
static void number_by_value(layout *L)
{
    for (size_t k = 0; k < L->n; k++) {
        L->set_of[k] = (int)k;
        L->hyp_of[k] = (int)k;
        for (size_t m = 0; m < k; m++) {
            size_t c = L->offsets[k + 1] - L->offsets[k];
            if (L->offsets[m + 1] - L->offsets[m] != c)
                continue;
            size_t t = 0;
            while (t < c && same_text(&L->refs[L->offsets[k] + t], &L->refs[L->offsets[m] + t]))
                t++;
            if (t == c) {
                L->set_of[k] = L->set_of[m];
                L->hyp_of[k] = same_text(&L->hyps[k], &L->hyps[m]) ? L->hyp_of[m] : (int)k;
                if (L->hyp_of[k] == (int)k)
                    for (size_t q = m + 1; q < k; q++)
                        if (L->set_of[q] == L->set_of[k] && same_text(&L->hyps[k], &L->hyps[q])) {
                            L->hyp_of[k] = L->hyp_of[q];
                            break;
                        }
                break;
            }
        }
    }
}

/* Reference sets: set s has count_of(s) references. */
#define NSETS 24
#define NHYPS 5
static const char *WORDS[] = {"the cat sat on the mat", "a dog", "", "x", "The cat sat on the mat.",
                              "the cat sat on the hat", "seven", "Und so weiter, und so fort."};

static void set_texts(int s, const char **texts, size_t *count)
{
    *count = (size_t)(s % 4);  /* 0 to 3 references (0: none, empty lists included) */
    for (size_t t = 0; t < *count; t++)
        texts[t] = WORDS[(s * 3 + (int)t * 5) % 8];
}

/* How the items' strings are made. */
enum { SHARED, COPIED, MIXED_KINDS };

/* Items: `systems` copies of NSETS items (item i of each copy: set i), the
 * hypotheses picked so that systems agree now and then; with `shuffle`, the
 * items' order scrambled. Sets that differ only in their count of references
 * or kinds are distinct sets (set numbers distinct). */
static void build(layout *L, int systems, int how, int shuffle)
{
    static tb_text shared[NSETS][3];
    static size_t shared_count[NSETS];
    for (int s = 0; s < NSETS; s++) {
        const char *texts[3];
        set_texts(s, texts, &shared_count[s]);
        for (size_t t = 0; t < shared_count[s]; t++)
            shared[s][t] = make_text(texts[t], how == MIXED_KINDS ? (s % 3 == 0 ? 1 : s % 3 == 1 ? 2 : 4) : 1,
                                     NULL);
    }
    size_t n = 0, r = 0;
    unsigned seed = 12345;
    for (int y = 0; y < systems; y++)
        for (int i = 0; i < NSETS; i++) {
            int s = i;
            if (shuffle) {
                seed = seed * 1103515245u + 12345u;
                s = (int)((seed >> 16) % NSETS);
            }
            L->offsets[n] = r;
            for (size_t t = 0; t < shared_count[s]; t++) {
                tb_text x = shared[s][t];
                if (how == COPIED && y > 0) {  /* equal by value: a new object */
                    const char *texts[3];
                    size_t c;
                    set_texts(s, texts, &c);
                    x = make_text(texts[t], 1, NULL);
                }
                L->refs[r++] = x;
            }
            int h = (i + y * (y % 2)) % NHYPS;
            static tb_text hyps[NSETS * NHYPS];
            if (!hyps[s * NHYPS + h].data) {
                char buf[64];
                snprintf(buf, sizeof(buf), "hypothesis %d of set %d", h, s);
                hyps[s * NHYPS + h] = make_text(buf, 1, NULL);
            }
            L->hyps[n] = hyps[s * NHYPS + h];
            /* (the same hypothesis text with other references: another pair) */
            n++;
        }
    L->offsets[n] = r;
    L->n = n;
    number_by_value(L);
}

/* One storage read as several texts: a str's prefix, the str lowercased, its
 * bytes as code units of 2 bytes. Systems of three items (two other lines,
 * then one of the four texts of the one storage, another in each system):
 * an item whose text lies where an earlier item's does, but differs, is not
 * in that item's group. */
static int texts_at_one_address(void)
{
    static layout L;
    static const char base[] = "the cat sat on the mat and more words, more!";  /* (44 bytes) */
    const tb_text whole = make_text(base, 1, NULL), x = make_text("an unrelated line", 1, NULL),
                  y = make_text("and another one of them", 1, NULL);
    const size_t len = strlen(base);
    static tb_text hyps[3];
    const char *hyp_words[3] = {"one", "two words", "three more words"};
    for (int h = 0; h < 3; h++)
        hyps[h] = make_text(hyp_words[h], 1, NULL);
    const tb_text second[3] = {make_text("a second reference", 1, NULL), make_text("another second one", 1, NULL),
                               make_text("", 1, NULL)};
    size_t n = 0, r = 0;
    for (int sys = 0; sys < 16; sys++)
        for (int i = 0; i < 4; i++, n++) {
            L.offsets[n] = r;
            L.hyps[n] = hyps[(sys + i) % 3];
            if (i == 3) {  /* two references: the same first one, one of three second ones */
                L.refs[r++] = whole;
                L.refs[r++] = second[sys % 3];
                continue;
            }
            tb_text t = i == 0 ? x : i == 1 ? y : whole;
            if (i == 2) {  /* the first half of the storage, as one of four texts */
                int v = (sys * 3) % 4;  /* (3 and 4 coprime: every variant after every other) */
                t.length = v == 1 ? len / 4 : len / 2;  /* 1: a shorter prefix */
                t.ascii_lower = v == 2;                 /* 2: lowercased as read */
                if (v == 3)
                    t.kind = 2;  /* 3: all its bytes as code units of 2 (as many units) */
            }
            L.refs[r++] = t;
        }
    L.offsets[n] = r;
    L.n = n;
    number_by_value(&L);
    return check("texts at one address", &L, 1);
}

/* Reference sets whose first looks agree (one or two references of the same
 * lengths and first 8 bytes, different further on), each item's in a storage
 * of its own (equal by value only) and the items scrambled: the first looks
 * find the candidates, and each set must still be one run of its own, each
 * hypothesis (alike in the same way) one run within it. */
static int first_looks_alike(void)
{
    static layout L;
    size_t n = 0, r = 0;
    unsigned seed = 777;
    for (int y = 0; y < 8; y++)
        for (int i = 0; i < 32; i++, n++) {
            seed = seed * 1103515245u + 12345u;
            const int s = (int)((seed >> 16) % 32);
            char buf[64];
            L.offsets[n] = r;
            snprintf(buf, sizeof(buf), "the same first words, then set %02d", s / 2);
            L.refs[r++] = make_text(buf, 1, NULL);
            if (s % 2) {  /* (a second reference: the odd sets differ from the even ones there only) */
                snprintf(buf, sizeof(buf), "a second reference, number %02d", s % 5);
                L.refs[r++] = make_text(buf, 1, NULL);
            }
            snprintf(buf, sizeof(buf), "the same hypothesis words, %d", (y + s) % 3);
            L.hyps[n] = make_text(buf, 1, NULL);
        }
    L.offsets[n] = r;
    L.n = n;
    number_by_value(&L);
    return check("first looks alike, copied, scrambled", &L, 1);
}

int main(void)
{
    if (first_looks_alike())
        return 1;
    static layout L;
    const struct {
        const char *name;
        int systems, how, shuffle;
    } cases[] = {
        {"systems concatenated, shared strings", 12, SHARED, 0},
        {"systems concatenated, copied strings", 12, COPIED, 0},
        {"systems concatenated, kinds 1, 2 and 4", 12, MIXED_KINDS, 0},
        {"scrambled items, shared strings", 12, SHARED, 1},
        {"scrambled items, copied strings", 12, COPIED, 1},
        {"two systems", 2, SHARED, 0},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        build(&L, cases[c].systems, cases[c].how, cases[c].shuffle);
        if (check(cases[c].name, &L, 1))
            return 1;
    }
    if (texts_at_one_address())
        return 1;
    /* one system: nothing repeats, the natural order */
    build(&L, 1, SHARED, 0);
    if (check("one system", &L, 0))
        return 1;
    printf("ok %ld\n", checks);
    return 0;
}
