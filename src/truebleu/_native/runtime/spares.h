/* truebleu core runtime: spare scratch memory kept between jobs (plain C, no Python).
 *
 * A worker's scratch state (tokenizer builders, matchers: tables grown to the
 * largest item seen) costs more to allocate, zero and grow again than a small
 * job costs to run: a reward call of 64 short sentences spent a fifth of its
 * instructions re-growing and zeroing the tables its previous call had freed.
 * A job's worker therefore takes a spare scratch when it starts and gives it
 * back when it leaves; what does not fit in the slots (more threads than
 * slots) is freed by its owner.
 *
 * The slots are atomic pointers taken by exchange (never read and then
 * written), so a scratch is held by one worker at a time without a lock, on
 * any thread and with or without the GIL. Spares survive into a fork()ed child
 * as plain memory (no thread owns them), and are freed at exit by the system,
 * or earlier on request (tb_spares_drain: truebleu.release_scratch()).
 */
#ifndef TB_RUNTIME_SPARES_H
#define TB_RUNTIME_SPARES_H

#include <stddef.h>

#include "runtime/atomics.h"

/* Slots per kind of scratch: the threads of the jobs that run at once, as a
 * training loop's reward calls and a validation metric may. */
#define TB_SPARE_SLOTS 4

/* A scratch is kept only while it holds at most this much memory: a job on a
 * huge line must not pin its tables for the rest of the process. */
#define TB_SPARE_MAX_BYTES ((size_t)4 << 20)

typedef struct {
    tb_atomic_ptr slot[TB_SPARE_SLOTS];
} tb_spares;

/* A spare scratch, or NULL when none is kept. */
static inline void *tb_spares_take(tb_spares *s)
{
    for (int k = 0; k < TB_SPARE_SLOTS; k++) {
        void *p = tb_atomic_ptr_exchange(&s->slot[k], NULL);
        if (p)
            return p;
    }
    return NULL;
}

/* Keeps p (1) in a free slot, or returns 0: then the caller frees it. */
static inline int tb_spares_give(tb_spares *s, void *p)
{
    for (int k = 0; k < TB_SPARE_SLOTS; k++)
        if (tb_atomic_ptr_cas(&s->slot[k], NULL, p))
            return 1;
    return 0;
}

/* Frees every kept scratch (those a running job's workers hold are not in the
 * slots: they go back, or are freed, when their job ends); `release` frees one
 * and returns the bytes it held. The bytes freed. */
static inline size_t tb_spares_drain(tb_spares *s, size_t (*release)(void *))
{
    size_t bytes = 0;
    for (int k = 0; k < TB_SPARE_SLOTS; k++) {
        void *p = tb_atomic_ptr_exchange(&s->slot[k], NULL);
        if (p)
            bytes += release(p);
    }
    return bytes;
}

#endif
