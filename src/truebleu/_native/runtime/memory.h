/* truebleu core runtime: growable arrays (plain C, no Python).
 *
 * Every scratch array of the core grows by doubling through tb_grow, so that a
 * worker that reuses its scratch from one item to the next allocates only while
 * the items still grow.
 */
#ifndef TB_RUNTIME_MEMORY_H
#define TB_RUNTIME_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Grow *p to hold at least `need` elements of `elsize` bytes (doubling,
 * from 64). 0 on success, -1 when out of memory (then *p is unchanged). */
static inline int tb_grow(void **p, size_t *cap, size_t need, size_t elsize)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *q = realloc(*p, ncap * elsize);
    if (!q)
        return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

#define GROW(ptr, cap, need) tb_grow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

/* A growable array of code points (or any uint32). */
typedef struct {
    uint32_t *a;
    size_t n, cap;
} tb_u32buf;

#endif
