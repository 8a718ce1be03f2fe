/* handles.c: which object pointers the library has handed out and not yet
 * taken back, so that a call given a destroyed, closed or wrong-kind handle
 * refuses it (INVALID_PARAMETER) instead of reading freed memory.
 *
 * For: the first check of every public call that takes an ndk_adapter,
 * ndk_pd, ndk_cq, ndk_qp, ndk_mr, ndk_mw or ndk_prepared (internal.h,
 * QPNIC_LIVE). A handle is entered when its create call succeeds and leaves
 * when its destroy (close, free) call succeeds, before the memory goes.
 * Not for: making use and destroy of one object from two threads at once
 * safe (the contract leaves that undefined: the check and the use are not
 * one atomic step), nor for telling a dead handle from a new object that
 * malloc placed at the same address (that one is live, like a reused file
 * descriptor).
 *
 * One table for the process, since a handle may come from any adapter: open
 * addressing on the pointer's bits, linear probing, tombstones on removal,
 * grown at half full. Readers (every call) share a read lock.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

#define TOMB ((uintptr_t)1) /* a removed slot; probing goes on past it */

typedef struct {
    uintptr_t key;          /* the pointer; 0 empty, TOMB removed */
    enum qpnic_handle_kind kind;
} slot;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static slot *slots;
static size_t cap;          /* a power of two, or 0 before the first add */
static size_t used;         /* live + tombstones: what probing must pass */
static size_t live;         /* live entries */

static size_t hash(uintptr_t k)
{
    uint64_t x = (uint64_t)k;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static slot *find(uintptr_t k)
{
    if (!cap)
        return NULL;
    for (size_t i = hash(k) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (slots[i].key == k)
            return &slots[i];
        if (slots[i].key == 0)
            return NULL;
    }
}

/* Rehash the live entries into a table of n slots (tombstones dropped). */
static int regrow(size_t n)
{
    slot *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < cap; i++) {
        if (slots[i].key == 0 || slots[i].key == TOMB)
            continue;
        size_t j = hash(slots[i].key) & (n - 1);
        while (s[j].key)
            j = (j + 1) & (n - 1);
        s[j] = slots[i];
    }
    free(slots);
    slots = s;
    cap = n;
    used = live;
    return 0;
}

int qpnic_handle_add(const void *p, enum qpnic_handle_kind kind)
{
    uintptr_t k = (uintptr_t)p;
    int rc = 0;
    pthread_rwlock_wrlock(&lock);
    if ((used + 1) * 2 > cap) {
        /* rehash: at the same size when tombstones made it full, larger
         * when live entries did */
        size_t n = cap ? cap : 64;
        while ((live + 1) * 2 > n)
            n *= 2;
        rc = regrow(n);
    }
    if (rc == 0) {
        size_t i = hash(k) & (cap - 1);
        while (slots[i].key != 0 && slots[i].key != TOMB)
            i = (i + 1) & (cap - 1);
        if (slots[i].key == 0)
            used++;
        live++;
        slots[i].key = k;
        slots[i].kind = kind;
    }
    pthread_rwlock_unlock(&lock);
    return rc;
}

void qpnic_handle_del(const void *p)
{
    pthread_rwlock_wrlock(&lock);
    slot *s = find((uintptr_t)p);
    if (s) {
        s->key = TOMB;
        live--;
    }
    pthread_rwlock_unlock(&lock);
}

int qpnic_handle_live(const void *p, enum qpnic_handle_kind kind)
{
    if (!p)
        return 0;
    pthread_rwlock_rdlock(&lock);
    slot *s = find((uintptr_t)p);
    int ok = s && s->kind == kind;
    pthread_rwlock_unlock(&lock);
    return ok;
}
