/* truebleu core runtime: zeroed memory for a large table (see large_table.h). */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE  /* madvise: -std=c11 alone would hide it */
#endif

#include "runtime/large_table.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HUGE_PAGE ((size_t)1 << 21)

void *tb_large_table_zeroed(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_PAGE && bytes <= SIZE_MAX - HUGE_PAGE) {
        size_t whole = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);  /* aligned_alloc: a multiple */
        void *p = aligned_alloc(HUGE_PAGE, whole);
        if (p) {
            (void)madvise(p, whole, MADV_HUGEPAGE);  /* only a hint: refused, it changes nothing */
            memset(p, 0, bytes);
        }
        return p;
    }
#endif
    return bytes ? calloc(count, size) : calloc(1, 1);
}
