/* truebleu core runtime: the atomics of the core (plain C, no Python).
 *
 * C11's <stdatomic.h> everywhere but on MSVC, which has it only from VS 2022
 * 17.5 and behind /experimental:c11atomics: there, the Interlocked intrinsics
 * (full barriers). A build for Windows with TB_PORTABLE_FALLBACKS uses them
 * too, so that MinGW and zig compile MSVC's path (tools/check_portable_c.sh).
 * Every operation is sequentially consistent unless its name says relaxed.
 *
 *   tb_atomic_int:  init, load, load_relaxed, fetch_add, fetch_sub, cas
 *   tb_atomic_size: init, load, store, fetch_add
 *   tb_atomic_ptr:  exchange, cas (a void *; an object of static storage starts NULL)
 *   tb_atomic_add_i64_relaxed: an atomic += on a plain int64_t
 */
#ifndef TB_RUNTIME_ATOMICS_H
#define TB_RUNTIME_ATOMICS_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/portable.h"

#if (defined(_MSC_VER) && !defined(__clang__)) || (defined(_WIN32) && defined(TB_PORTABLE_FALLBACKS))
#define TB_WIN32_ATOMICS 1
#endif

#ifdef TB_WIN32_ATOMICS

#include <intrin.h>

typedef struct { volatile long v; } tb_atomic_int;
typedef struct { volatile long long v; } tb_atomic_size;  /* (size_t: 64 bits at most) */

static inline void tb_atomic_int_init(tb_atomic_int *a, int x) { a->v = x; }
static inline int tb_atomic_int_load(tb_atomic_int *a) { return (int)_InterlockedCompareExchange(&a->v, 0, 0); }
static inline int tb_atomic_int_load_relaxed(tb_atomic_int *a) { return (int)a->v; }
static inline int tb_atomic_int_fetch_add(tb_atomic_int *a, int x) { return (int)_InterlockedExchangeAdd(&a->v, x); }
static inline int tb_atomic_int_fetch_sub(tb_atomic_int *a, int x) { return (int)_InterlockedExchangeAdd(&a->v, -x); }
/* if *a == *expected: *a = desired, 1; else *expected = *a, 0 */
static inline int tb_atomic_int_cas(tb_atomic_int *a, int *expected, int desired)
{
    long old = _InterlockedCompareExchange(&a->v, desired, *expected);
    if (old == *expected)
        return 1;
    *expected = (int)old;
    return 0;
}

static inline void tb_atomic_size_init(tb_atomic_size *a, size_t x) { a->v = (long long)x; }
static inline size_t tb_atomic_size_load(tb_atomic_size *a)
{
    return (size_t)_InterlockedCompareExchange64(&a->v, 0, 0);
}
static inline void tb_atomic_size_store(tb_atomic_size *a, size_t x) { _InterlockedExchange64(&a->v, (long long)x); }
static inline size_t tb_atomic_size_fetch_add(tb_atomic_size *a, size_t x)
{
    return (size_t)_InterlockedExchangeAdd64(&a->v, (long long)x);
}

static inline void tb_atomic_add_i64_relaxed(int64_t *p, int64_t x)
{
    _InterlockedExchangeAdd64((volatile long long *)p, (long long)x);
}

typedef struct { void *volatile v; } tb_atomic_ptr;

static inline void *tb_atomic_ptr_exchange(tb_atomic_ptr *a, void *x) { return _InterlockedExchangePointer(&a->v, x); }
/* if *a == expected: *a = desired, 1; else 0 */
static inline int tb_atomic_ptr_cas(tb_atomic_ptr *a, void *expected, void *desired)
{
    return _InterlockedCompareExchangePointer(&a->v, desired, expected) == expected;
}

#else

#include <stdatomic.h>

typedef atomic_int tb_atomic_int;
typedef atomic_size_t tb_atomic_size;

static inline void tb_atomic_int_init(tb_atomic_int *a, int x) { atomic_init(a, x); }
static inline int tb_atomic_int_load(tb_atomic_int *a) { return atomic_load(a); }
static inline int tb_atomic_int_load_relaxed(tb_atomic_int *a) { return atomic_load_explicit(a, memory_order_relaxed); }
static inline int tb_atomic_int_fetch_add(tb_atomic_int *a, int x) { return atomic_fetch_add(a, x); }
static inline int tb_atomic_int_fetch_sub(tb_atomic_int *a, int x) { return atomic_fetch_sub(a, x); }
/* if *a == *expected: *a = desired, 1; else *expected = *a, 0 */
static inline int tb_atomic_int_cas(tb_atomic_int *a, int *expected, int desired)
{
    return atomic_compare_exchange_strong(a, expected, desired);
}

static inline void tb_atomic_size_init(tb_atomic_size *a, size_t x) { atomic_init(a, x); }
static inline size_t tb_atomic_size_load(tb_atomic_size *a) { return atomic_load(a); }
static inline void tb_atomic_size_store(tb_atomic_size *a, size_t x) { atomic_store(a, x); }
static inline size_t tb_atomic_size_fetch_add(tb_atomic_size *a, size_t x) { return atomic_fetch_add(a, x); }

static inline void tb_atomic_add_i64_relaxed(int64_t *p, int64_t x)
{
#ifdef TB_GNU_EXTENSIONS
    __atomic_fetch_add(p, x, __ATOMIC_RELAXED);
#else
    /* C11 has no atomic operation on a plain object: the same object as _Atomic
     * (a lock-free int64_t has the size and alignment of int64_t) */
    _Static_assert(sizeof(_Atomic int64_t) == sizeof(int64_t), "a lock-free atomic int64_t");
    atomic_fetch_add_explicit((_Atomic int64_t *)p, x, memory_order_relaxed);
#endif
}

typedef _Atomic(void *) tb_atomic_ptr;

static inline void *tb_atomic_ptr_exchange(tb_atomic_ptr *a, void *x) { return atomic_exchange(a, x); }
/* if *a == expected: *a = desired, 1; else 0 */
static inline int tb_atomic_ptr_cas(tb_atomic_ptr *a, void *expected, void *desired)
{
    return atomic_compare_exchange_strong(a, &expected, desired);
}

#endif

#endif
