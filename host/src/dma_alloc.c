/* dma_alloc.c: the memory the NIC can reach, handed out in pieces.
 *
 * For: a first-fit allocator over the transport's DMA region (every
 * allocation 64-byte aligned, so a WQE never straddles a cache line or a
 * DMA burst boundary of the ring), the public ndk_alloc_dma / ndk_free_dma /
 * ndk_dma_address, and the driver's own ring buffers, which also enter a
 * DMA-checker range saying what the NIC may do there.
 * Not for: registered memory regions (mr.c enters their ranges).
 *
 * The allocator's bookkeeping lives in ordinary heap memory, never in the
 * DMA region, so nothing the NIC writes can corrupt it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

int qpnic_heap_init(qpnic_heap *h, uint64_t size)
{
    memset(h, 0, sizeof *h);
    h->cap = 16;
    h->blocks = calloc(h->cap, sizeof *h->blocks);
    if (!h->blocks)
        return -1;
    h->size = size / QPNIC_DMA_ALIGN * QPNIC_DMA_ALIGN;
    h->blocks[0] = (qpnic_block){ .off = 0, .len = h->size, .used = 0 };
    h->count = h->size ? 1 : 0;
    return 0;
}

void qpnic_heap_fini(qpnic_heap *h)
{
    free(h->blocks);
    memset(h, 0, sizeof *h);
}

/* Make room for one more block at index i (blocks i.. shift up). */
static int insert_at(qpnic_heap *h, size_t i)
{
    if (h->count == h->cap) {
        size_t cap = h->cap * 2;
        qpnic_block *b = realloc(h->blocks, cap * sizeof *b);
        if (!b)
            return -1;
        h->blocks = b;
        h->cap = cap;
    }
    memmove(&h->blocks[i + 1], &h->blocks[i], (h->count - i) * sizeof *h->blocks);
    h->count++;
    return 0;
}

static void remove_at(qpnic_heap *h, size_t i)
{
    memmove(&h->blocks[i], &h->blocks[i + 1], (h->count - i - 1) * sizeof *h->blocks);
    h->count--;
}

int qpnic_heap_alloc(qpnic_heap *h, uint64_t len, enum qpnic_heap_owner owner, uint64_t *off)
{
    if (len == 0 || len > h->size || owner == QPNIC_HEAP_FREE)
        return -1;
    uint64_t need = round_up(len, QPNIC_DMA_ALIGN);
    for (size_t i = 0; i < h->count; i++) {
        qpnic_block *b = &h->blocks[i];
        if (b->used || b->len < need)
            continue;
        if (b->len > need) {
            if (insert_at(h, i + 1) != 0)
                return -1;
            b = &h->blocks[i];
            h->blocks[i + 1] = (qpnic_block){ .off = b->off + need, .len = b->len - need, .used = 0 };
            b->len = need;
        }
        b->used = (int)owner;
        *off = b->off;
        return 0;
    }
    return -1;
}

static long find_block(const qpnic_heap *h, uint64_t off)
{
    size_t lo = 0, hi = h->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const qpnic_block *b = &h->blocks[mid];
        if (off < b->off)
            hi = mid;
        else if (off >= b->off + b->len)
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}

int qpnic_heap_free(qpnic_heap *h, uint64_t off, enum qpnic_heap_owner owner)
{
    long i = find_block(h, off);
    if (i < 0 || owner == QPNIC_HEAP_FREE || h->blocks[i].used != (int)owner || h->blocks[i].off != off)
        return -1;
    h->blocks[i].used = 0;
    if ((size_t)i + 1 < h->count && !h->blocks[i + 1].used) {
        h->blocks[i].len += h->blocks[i + 1].len;
        remove_at(h, (size_t)i + 1);
    }
    if (i > 0 && !h->blocks[i - 1].used) {
        h->blocks[i - 1].len += h->blocks[i].len;
        remove_at(h, (size_t)i);
    }
    return 0;
}

int qpnic_heap_contains(const qpnic_heap *h, uint64_t off, uint64_t len, enum qpnic_heap_owner owner)
{
    long i = find_block(h, off);
    if (i < 0 || owner == QPNIC_HEAP_FREE || h->blocks[i].used != (int)owner)
        return -1;
    const qpnic_block *b = &h->blocks[i];
    return (len <= b->len && off - b->off <= b->len - len) ? 0 : -1;
}

/* ---- the public calls ---- */

void *ndk_alloc_dma(ndk_adapter *ad, size_t len)
{
    if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER) || len == 0)
        return NULL;
    uint64_t off;
    pthread_mutex_lock(&ad->lock);
    int rc = qpnic_heap_alloc(&ad->heap, len, QPNIC_HEAP_USER, &off);
    pthread_mutex_unlock(&ad->lock);
    if (rc != 0)
        return NULL;
    void *p = ad->t->dma + off;
    memset(p, 0, len);
    return p;
}

void ndk_free_dma(ndk_adapter *ad, void *p)
{
    if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER) || !p)
        return;
    uint8_t *b = p;
    if (b < ad->t->dma || b >= ad->t->dma + ad->t->dma_bytes)
        return;
    pthread_mutex_lock(&ad->lock);
    (void)qpnic_heap_free(&ad->heap, (uint64_t)(b - ad->t->dma), QPNIC_HEAP_USER);
    pthread_mutex_unlock(&ad->lock);
}

uint64_t ndk_dma_address(ndk_adapter *ad, const void *p)
{
    if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER) || !p)
        return 0;
    const uint8_t *b = p;
    if (b < ad->t->dma || b >= ad->t->dma + ad->t->dma_bytes)
        return 0;
    return ad->t->dma_base + (uint64_t)(b - ad->t->dma);
}

/* ---- the driver's rings ---- */

ndk_status qpnic_dma_buf_alloc(ndk_adapter *ad, uint64_t bytes, uint32_t perm,
                               qpnic_dma_buf *out)
{
    uint64_t off;
    if (qpnic_heap_alloc(&ad->heap, bytes, QPNIC_HEAP_DRIVER, &off) != 0)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    out->host = ad->t->dma + off;
    out->dev = ad->t->dma_base + off;
    out->bytes = bytes;
    memset(out->host, 0, bytes);
    out->range = ad->t->ops->range_add(ad->t, out->dev, bytes, perm);
    if (out->range < 0) {
        (void)qpnic_heap_free(&ad->heap, off, QPNIC_HEAP_DRIVER);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    return NDK_STATUS_SUCCESS;
}

void qpnic_dma_buf_free(ndk_adapter *ad, qpnic_dma_buf *b)
{
    if (!b->host)
        return;
    ad->t->ops->range_del(ad->t, b->range);
    (void)qpnic_heap_free(&ad->heap, (uint64_t)(b->host - ad->t->dma), QPNIC_HEAP_DRIVER);
    memset(b, 0, sizeof *b);
}
