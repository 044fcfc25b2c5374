/* truebleu core runtime: zeroed memory for a large table probed at random (plain C,
 * no Python).
 *
 * mteval's corpus-wide n-gram table is a few MB (4 MB for WMT21 en-de's 1,002
 * references) written at random, so every 4 KB page of it is faulted in, one by one:
 * on Linux about 5 ms of kernel time per build of the references, more than the
 * build's own work. A block of 2 MB or more is therefore aligned to 2 MB and advised
 * for transparent huge pages (MADV_HUGEPAGE; where the kernel's setting is "madvise",
 * the default of several distributions, nothing else asks for them): one fault per
 * 2 MB. Elsewhere, or for a smaller block, it is calloc. Free it with free(). (In the
 * runtime because madvise is system-specific: the layout's rule, _native/README.md.)
 */
#ifndef TB_RUNTIME_LARGE_TABLE_H
#define TB_RUNTIME_LARGE_TABLE_H

#include <stddef.h>

/* `count` zeroed elements of `size` bytes (NULL when out of memory or too large). */
void *tb_large_table_zeroed(size_t count, size_t size);

#endif
