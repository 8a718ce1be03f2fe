/* handles.c: which object pointers the library has handed out and not yet
 * taken back, so that a call given a destroyed, closed or wrong-kind handle
 * refuses it (INVALID_PARAMETER) instead of reading freed memory.
 *
 * For: the first check of every public call that takes an ndk_adapter,
 * ndk_pd, ndk_cq, ndk_qp, ndk_mr, ndk_mw or ndk_prepared (internal.h,
 * qpnic_handle_live). A handle is entered while its create call runs and
 * leaves when its destroy (close, free) call succeeds, before the memory
 * goes. Not for: making use and destroy of one object from two threads at
 * once safe (the contract leaves that undefined: the check and the use are
 * not one atomic step), nor for telling a dead handle from a new object
 * that malloc placed at the same address (that one is live, like a reused
 * file descriptor).
 *
 * One table for the process, since a handle may come from any adapter:
 * open addressing on the pointer's bits, linear probing, tombstones on
 * removal. The check is on every post, so readers take no lock and write
 * nothing shared (a lock would make every post of every thread write one
 * cache line): they read under a sequence count (a seqlock) and look again
 * if a writer changed the table meanwhile. Writers (creates and destroys)
 * take a mutex and make the count odd while they change slots. A table
 * that grows is replaced, and the old one is kept, never freed, since a
 * reader may still be looking at it: tables only double, so all the old
 * ones together are smaller than the current one. Tombstones are cleared
 * by rehashing in place, under the count.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

#define TOMB ((uintptr_t)1) /* a removed slot; probing goes on past it */

typedef struct {
    _Atomic uintptr_t key;  /* the pointer; 0 empty, TOMB removed */
    _Atomic int kind;       /* enum qpnic_handle_kind */
} slot;

typedef struct table {
    size_t cap;             /* a power of two */
    slot *s;
    struct table *older;    /* the tables this one replaced (kept) */
} table;

static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned long seq;    /* odd while a writer changes slots */
static _Atomic(table *) cur;         /* NULL before the first add */
static size_t used;                  /* live + tombstones (under wlock) */
static size_t live;                  /* live entries (under wlock) */

static size_t hash(uintptr_t k)
{
    uint64_t x = (uint64_t)k;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

/* ---- writers (under wlock) ---- */

static void write_begin(void)
{
    unsigned long s = atomic_load_explicit(&seq, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

static void write_end(void)
{
    unsigned long s = atomic_load_explicit(&seq, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 1, memory_order_release);
}

static void put(table *t, uintptr_t k, int kind)
{
    size_t i = hash(k) & (t->cap - 1);
    for (;;) {
        uintptr_t sk = atomic_load_explicit(&t->s[i].key, memory_order_relaxed);
        if (sk == 0 || sk == TOMB)
            break;
        i = (i + 1) & (t->cap - 1);
    }
    if (atomic_load_explicit(&t->s[i].key, memory_order_relaxed) == 0)
        used++;
    atomic_store_explicit(&t->s[i].kind, kind, memory_order_relaxed);
    atomic_store_explicit(&t->s[i].key, k, memory_order_relaxed);
}

/* Room for one more entry: a larger table when live entries fill half of
 * it (built aside, then published), or the same one rehashed in place when
 * tombstones do. */
static int make_room(void)
{
    table *t = atomic_load_explicit(&cur, memory_order_relaxed);
    size_t cap = t ? t->cap : 0;
    if ((used + 1) * 2 <= cap)
        return 0;
    size_t n = cap ? cap : 64;
    while ((live + 1) * 2 > n)
        n *= 2;
    if (t && n == cap) { /* tombstones: rehash in place */
        uintptr_t *keys = malloc(live * sizeof *keys + 1);
        int *kinds = malloc(live * sizeof *kinds + 1);
        if (!keys || !kinds) {
            free(keys);
            free(kinds);
            return -1;
        }
        size_t m = 0;
        for (size_t i = 0; i < cap; i++) {
            uintptr_t k = atomic_load_explicit(&t->s[i].key, memory_order_relaxed);
            if (k != 0 && k != TOMB) {
                keys[m] = k;
                kinds[m++] = atomic_load_explicit(&t->s[i].kind, memory_order_relaxed);
            }
        }
        write_begin();
        for (size_t i = 0; i < cap; i++)
            atomic_store_explicit(&t->s[i].key, 0, memory_order_relaxed);
        used = 0;
        for (size_t i = 0; i < m; i++)
            put(t, keys[i], kinds[i]);
        write_end();
        free(keys);
        free(kinds);
        return 0;
    }
    table *nt = malloc(sizeof *nt);
    slot *s = calloc(n, sizeof *s);
    if (!nt || !s) {
        free(nt);
        free(s);
        return -1;
    }
    *nt = (table){ n, s, t };
    used = 0;
    for (size_t i = 0; i < cap; i++) {
        uintptr_t k = atomic_load_explicit(&t->s[i].key, memory_order_relaxed);
        if (k != 0 && k != TOMB)
            put(nt, k, atomic_load_explicit(&t->s[i].kind, memory_order_relaxed));
    }
    write_begin();
    atomic_store_explicit(&cur, nt, memory_order_relaxed);
    write_end();
    return 0;
}

int qpnic_handle_add(const void *p, enum qpnic_handle_kind kind)
{
    pthread_mutex_lock(&wlock);
    int rc = make_room();
    if (rc == 0) {
        write_begin();
        put(atomic_load_explicit(&cur, memory_order_relaxed), (uintptr_t)p, (int)kind);
        write_end();
        live++;
    }
    pthread_mutex_unlock(&wlock);
    return rc;
}

void qpnic_handle_del(const void *p)
{
    uintptr_t k = (uintptr_t)p;
    pthread_mutex_lock(&wlock);
    table *t = atomic_load_explicit(&cur, memory_order_relaxed);
    for (size_t i = t ? hash(k) & (t->cap - 1) : 0, n = 0; t && n < t->cap;
         i = (i + 1) & (t->cap - 1), n++) {
        uintptr_t sk = atomic_load_explicit(&t->s[i].key, memory_order_relaxed);
        if (sk == k) {
            write_begin();
            atomic_store_explicit(&t->s[i].key, TOMB, memory_order_relaxed);
            write_end();
            live--;
            break;
        }
        if (sk == 0)
            break;
    }
    pthread_mutex_unlock(&wlock);
}

/* ---- readers: no lock, no shared write ---- */

int qpnic_handle_live(const void *p, enum qpnic_handle_kind kind)
{
    if (!p)
        return 0;
    uintptr_t k = (uintptr_t)p;
    for (;;) {
        unsigned long s1 = atomic_load_explicit(&seq, memory_order_acquire);
        if (s1 & 1)
            continue; /* a writer is in the middle of a change */
        table *t = atomic_load_explicit(&cur, memory_order_acquire);
        int ok = 0;
        /* bounded by the table's size: a torn view cannot loop for ever */
        for (size_t i = t ? hash(k) & (t->cap - 1) : 0, n = 0; t && n < t->cap;
             i = (i + 1) & (t->cap - 1), n++) {
            uintptr_t sk = atomic_load_explicit(&t->s[i].key, memory_order_relaxed);
            if (sk == k) {
                ok = atomic_load_explicit(&t->s[i].kind, memory_order_relaxed) == (int)kind;
                break;
            }
            if (sk == 0)
                break;
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&seq, memory_order_relaxed) == s1)
            return ok;
    }
}
