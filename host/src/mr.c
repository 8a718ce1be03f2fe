/* mr.c: memory regions, their tokens, and the token table's entries.
 *
 * For: ndk_create_mr (an unregistered MR), ndk_register_mr (a token table
 * entry, two tokens, the NIC's MR_* staging registers and MR_CMD WRITE, a
 * DMA-checker range), the token getters, ndk_destroy_mr (MR_CMD INVALIDATE).
 * ndk_fast_register (the same entry, written by the NIC in SQ order from a
 * FAST_REG WQE, over a run of the NIC's page table entries written through
 * PT_IDX / PT_PFN). The entries themselves (taken, freed, given tokens,
 * killed at the NIC) for mw.c too. Not for: memory windows (mw.c).
 *
 * A token is (tag << TOKEN_INDEX_BITS) | table index. Tags come from a
 * per-adapter counter of 24 bits that skips 0, so a token is never 0, a
 * stale token of a reused entry no longer matches, and the local and remote
 * tokens of one MR (two successive tags) differ.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "regs.h"
#include "shm_proto.h"

#define TAG_BITS (32u - QPNIC_TOKEN_INDEX_BITS)

_Static_assert((1u << QPNIC_FREG_PAGE_SHIFT) == QPNIC_FREG_PAGE_BYTES,
               "layout: FREG_PAGE_SHIFT is not log2 of FREG_PAGE_BYTES");
#define TAG_MASK ((1u << TAG_BITS) - 1u)

#define MR_FLAGS_KNOWN (NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ | \
                        NDK_MR_FLAG_ALLOW_REMOTE_WRITE | NDK_MR_FLAG_RDMA_READ_SINK)

ndk_status ndk_create_mr(ndk_pd *pd, ndk_mr **out)
{
    if (!qpnic_handle_live(pd, QPNIC_H_PD) || !out)
        return NDK_STATUS_INVALID_PARAMETER;
    if (atomic_load(&pd->ad->dead))
        return NDK_STATUS_IO_ERROR;
    ndk_mr *mr = calloc(1, sizeof *mr);
    if (!mr)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    if (qpnic_handle_add(mr, QPNIC_H_MR) != 0) {
        free(mr);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    mr->ad = pd->ad;
    mr->pd = pd;
    pthread_mutex_lock(&pd->ad->lock);
    pd->refs++;
    pd->ad->live_objects++;
    pthread_mutex_unlock(&pd->ad->lock);
    *out = mr;
    return NDK_STATUS_SUCCESS;
}

/* ---- token table entries (mr.c and mw.c) ---- */

ndk_status qpnic_entry_take_locked(ndk_adapter *ad, void *owner, uint32_t *idx)
{
    for (uint32_t i = 0; i < ad->num_mr; i++)
        if (!ad->entries[i]) {
            ad->entries[i] = owner;
            *idx = i;
            return NDK_STATUS_SUCCESS;
        }
    return NDK_STATUS_INSUFFICIENT_RESOURCES;
}

void qpnic_entry_free_locked(ndk_adapter *ad, uint32_t idx)
{
    ad->entries[idx] = NULL;
}

uint32_t qpnic_token_locked(ndk_adapter *ad, uint32_t idx)
{
    uint32_t tag = ad->next_tag;
    ad->next_tag = (tag + 1) & TAG_MASK;
    if (ad->next_tag == 0)
        ad->next_tag = 1;
    return (tag << QPNIC_TOKEN_INDEX_BITS) | idx;
}

#define FENCE_TIMEOUT_MS 10000

/* One look for qpnic_poll after an INVALIDATE: is STATUS.mr_fence clear,
 * i.e. has every DMA job whose token check came before it finished
 * (rtl/qpnic_mr_fence.v)? */
static ndk_status mr_fenced(ndk_adapter *ad, void *arg, int *done)
{
    (void)arg;
    uint32_t status = 0;
    ndk_status st = qpnic_reg_read(ad, QPNIC_REG_STATUS, &status);
    *done = !QPNIC_FIELD_GET(&status, QPNIC_STATUS_MR_FENCE);
    return st;
}

ndk_status qpnic_entry_kill(ndk_adapter *ad, uint32_t idx)
{
    pthread_mutex_lock(&ad->lock);
    (void)qpnic_reg_write_locked(ad, QPNIC_REG_MR_IDX, idx);
    (void)qpnic_reg_write_locked(ad, QPNIC_REG_MR_CMD, QPNIC_MR_CMD_INVALIDATE);
    pthread_mutex_unlock(&ad->lock);
    if (qpnic_poll(ad, mr_fenced, NULL, FENCE_TIMEOUT_MS) == NDK_STATUS_TIMEOUT)
        return NDK_STATUS_DEVICE_BUSY;
    return NDK_STATUS_SUCCESS;
}

/* ---- a FAST_REG or BIND still in an SQ ---- */

void qpnic_sq_op_note(qpnic_sq_op *op, const ndk_qp *qp)
{
    op->set = 1;
    op->qpn = qp->qpn;
    op->index = qp->sq_pi - 1;
}

/* The live QP of op, or NULL when it was destroyed (its destroy waited
 * until the NIC had finished its SQ). Under ad->lock. */
static ndk_qp *sq_op_qp_locked(ndk_adapter *ad, const qpnic_sq_op *op)
{
    uint32_t idx = op->qpn & QPNIC_QP_NUM_INDEX_MASK;
    ndk_qp *qp = idx < ad->num_qp ? ad->qps[idx] : NULL;
    return qp && qp->qpn == op->qpn ? qp : NULL;
}

/* One look for qpnic_poll: has the QP's SQ_CI passed op's WQE, i.e. lies
 * in (index, sq_rung]? */
static ndk_status sq_op_passed(ndk_adapter *ad, void *arg, int *done)
{
    const qpnic_sq_op *op = arg;
    pthread_mutex_lock(&ad->lock);
    ndk_qp *qp = sq_op_qp_locked(ad, op);
    uint32_t reg = qp ? QPNIC_QPREG(qp->idx, SQ_CI) : 0, rung = qp ? qp->sq_rung : 0;
    pthread_mutex_unlock(&ad->lock);
    if (!qp) {
        *done = 1;
        return NDK_STATUS_SUCCESS;
    }
    uint32_t ci = 0;
    ndk_status st = qpnic_reg_read(ad, reg, &ci);
    uint32_t first = (op->index + 1) & HREG_INDEX_MASK;
    *done = ((ci - first) & HREG_INDEX_MASK) <= ((rung - first) & HREG_INDEX_MASK);
    return st;
}

ndk_status qpnic_sq_op_wait(ndk_adapter *ad, qpnic_sq_op *op)
{
    if (!op->set)
        return NDK_STATUS_SUCCESS;
    pthread_mutex_lock(&ad->lock);
    ndk_qp *qp = sq_op_qp_locked(ad, op);
    if (qp && qp->sq_rung - op->index - 1 >= qp->sq_pi - op->index)
        (void)qpnic_ring_sq_locked(qp); /* held by DEFER: hand it over */
    pthread_mutex_unlock(&ad->lock);
    if (qpnic_poll(ad, sq_op_passed, op, FENCE_TIMEOUT_MS) == NDK_STATUS_TIMEOUT)
        return NDK_STATUS_DEVICE_BUSY;
    op->set = 0;
    return NDK_STATUS_SUCCESS;
}

/* ---- regions ---- */

/* ---- rights (regions and windows) ---- */

const qpnic_rights qpnic_mr_rights = { NDK_MR_FLAG_ALLOW_LOCAL_WRITE, NDK_MR_FLAG_ALLOW_REMOTE_READ,
                                       NDK_MR_FLAG_ALLOW_REMOTE_WRITE };
const qpnic_rights qpnic_op_rights = { NDK_OP_FLAG_ALLOW_LOCAL_WRITE, NDK_OP_FLAG_ALLOW_REMOTE_READ,
                                       NDK_OP_FLAG_ALLOW_REMOTE_WRITE };

uint32_t qpnic_rights_access(uint32_t flags, const qpnic_rights *r)
{
    uint32_t a = 0;
    if (flags & r->local_write)
        a |= QPNIC_MR_ACCESS_LOCAL_WRITE;
    if (flags & r->remote_read)
        a |= QPNIC_MR_ACCESS_REMOTE_READ;
    if ((flags & r->remote_write) == r->remote_write)
        a |= QPNIC_MR_ACCESS_REMOTE_WRITE;
    return a;
}

int qpnic_rights_malformed(uint32_t flags, const qpnic_rights *r)
{
    return (flags & (r->remote_write & ~r->local_write)) && !(flags & r->local_write);
}

/* An MR_CMD: the staging registers it reads, then MR_CMD itself (the last
 * of seq), in order; the first failure stops it. Under ad->lock. */
typedef struct {
    uint32_t reg, val;
} reg_write;

static ndk_status mr_cmd_locked(ndk_adapter *ad, const reg_write *seq, size_t n)
{
    ndk_status st = NDK_STATUS_SUCCESS;
    for (size_t i = 0; i < n && st == NDK_STATUS_SUCCESS; i++)
        st = qpnic_reg_write_locked(ad, seq[i].reg, seq[i].val);
    return st;
}

/* Write MR table entry mr->idx through the staging registers. */
static ndk_status mr_program(ndk_adapter *ad, const ndk_mr *mr, uint64_t va, uint64_t dev,
                             uint32_t len, uint32_t access)
{
    const reg_write seq[] = {
        { QPNIC_REG_MR_IDX, mr->idx },
        { QPNIC_REG_MR_VA_LO, (uint32_t)va },
        { QPNIC_REG_MR_VA_HI, (uint32_t)(va >> 32) },
        { QPNIC_REG_MR_LEN, len },
        { QPNIC_REG_MR_DMA_LO, (uint32_t)dev },
        { QPNIC_REG_MR_DMA_HI, (uint32_t)(dev >> 32) },
        { QPNIC_REG_MR_LKEY, mr->lkey },
        { QPNIC_REG_MR_RKEY, mr->rkey },
        { QPNIC_REG_MR_ACCESS, access },
        { QPNIC_REG_MR_PD, mr->pd->id },
        { QPNIC_REG_MR_CMD, QPNIC_MR_CMD_WRITE },
    };
    return mr_cmd_locked(ad, seq, sizeof seq / sizeof seq[0]);
}

/* Take a table entry for mr: its index and two tokens; mr is registered
 * from here, as [va, va+len) (its checker ranges are added and the NIC's
 * entry written by the caller). Under ad->lock. */
static ndk_status mr_take_entry_locked(ndk_adapter *ad, ndk_mr *mr, uint64_t va, uint32_t len,
                                       uint32_t access)
{
    if (mr->registered)
        return NDK_STATUS_INVALID_DEVICE_STATE;
    uint32_t idx;
    ndk_status st = qpnic_entry_take_locked(ad, mr, &idx);
    if (st != NDK_STATUS_SUCCESS)
        return st;
    mr->idx = idx;
    mr->lkey = qpnic_token_locked(ad, idx);
    mr->rkey = qpnic_token_locked(ad, idx);
    mr->va = va;
    mr->len = len;
    mr->access = access;
    mr->registered = 1;
    return NDK_STATUS_SUCCESS;
}

/* One more checker range of mr: [dev, dev+len) of host memory, for the
 * rights in mr->access. Under ad->lock. */
static ndk_status mr_add_range_locked(ndk_adapter *ad, ndk_mr *mr, uint64_t dev, uint64_t len)
{
    uint32_t perm = QPNIC_RANGE_READ;
    if (mr->access & (QPNIC_MR_ACCESS_LOCAL_WRITE | QPNIC_MR_ACCESS_REMOTE_WRITE))
        perm |= QPNIC_RANGE_WRITE;
    int *grown = realloc(mr->ranges, (mr->nranges + 1) * sizeof *grown);
    if (!grown)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    mr->ranges = grown;
    int range = ad->t->ops->range_add(ad->t, dev, len, perm);
    if (range < 0)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    mr->ranges[mr->nranges++] = range;
    return NDK_STATUS_SUCCESS;
}

/* MR_CMD GRANT or GRANT_WINDOW (internal.h): through the staging registers,
 * which every MR_CMD writes afresh. Under ad->lock. */
ndk_status qpnic_grant_locked(ndk_adapter *ad, uint32_t idx, uint32_t pd, int window, uint32_t first,
                              uint32_t pages)
{
    uint64_t run = (1ull << QPNIC_PT_ADDR_BIT) | ((uint64_t)first << QPNIC_FREG_PAGE_SHIFT);
    const reg_write seq[] = {
        { QPNIC_REG_MR_IDX, idx },
        { QPNIC_REG_MR_DMA_LO, (uint32_t)run },
        { QPNIC_REG_MR_DMA_HI, (uint32_t)(run >> 32) },
        { QPNIC_REG_MR_LEN, pages << QPNIC_FREG_PAGE_SHIFT },
        { QPNIC_REG_MR_PD, pd },
        { QPNIC_REG_MR_CMD, window ? QPNIC_MR_CMD_GRANT_WINDOW : QPNIC_MR_CMD_GRANT },
    };
    return mr_cmd_locked(ad, seq, sizeof seq / sizeof seq[0]);
}

/* Undo mr_take_entry_locked, the ranges and the page table entries (the
 * NIC never got the entry, or it is invalid and fenced: nothing reads the
 * page table entries any more; the grant goes before they can go to
 * another region). Under ad->lock. */
static void mr_release_entry_locked(ndk_adapter *ad, ndk_mr *mr)
{
    if (mr->pt_count)
        (void)qpnic_grant_locked(ad, mr->idx, mr->pd->id, 0, 0, 0); /* on a dead device: nothing to revoke */
    for (uint32_t i = 0; i < mr->nranges; i++)
        ad->t->ops->range_del(ad->t, mr->ranges[i]);
    free(mr->ranges);
    mr->ranges = NULL;
    mr->nranges = 0;
    for (uint32_t i = 0; i < mr->pt_count; i++)
        ad->pt_used[mr->pt_first + i] = 0;
    mr->pt_count = 0;
    qpnic_entry_free_locked(ad, mr->idx);
    mr->registered = 0;
    mr->lkey = mr->rkey = 0;
}

/* An MR table entry, its tokens, its checker range and the NIC's entry.
 * Under ad->lock. */
static ndk_status mr_register_locked(ndk_adapter *ad, ndk_mr *mr, uint64_t off, uint32_t len,
                                     uint64_t va, uint32_t flags)
{
    uint32_t access = qpnic_rights_access(flags, &qpnic_mr_rights);
    uint64_t dev = ad->t->dma_base + off;
    ndk_status st = mr_take_entry_locked(ad, mr, va, len, access);
    if (st == NDK_STATUS_SUCCESS)
        st = mr_add_range_locked(ad, mr, dev, len);
    if (st == NDK_STATUS_SUCCESS)
        st = mr_program(ad, mr, va, dev, len, access);
    if (st != NDK_STATUS_SUCCESS && mr->registered)
        mr_release_entry_locked(ad, mr);
    return st;
}

ndk_status ndk_register_mr(ndk_mr *mr, void *addr, size_t len, uint32_t mr_flags)
{
    if (!qpnic_handle_live(mr, QPNIC_H_MR) || !addr || len == 0 || (uint64_t)len > 0xFFFFFFFFu ||
        (mr_flags & ~MR_FLAGS_KNOWN))
        return NDK_STATUS_INVALID_PARAMETER;
    /* Remote write needs local write (as ibv_reg_mr and ndkpi.h's 0x5 have
     * it): the remote-write bit alone is refused. */
    if (qpnic_rights_malformed(mr_flags, &qpnic_mr_rights))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = mr->ad;
    const uint8_t *p = addr;
    if (p < ad->t->dma || p >= ad->t->dma + ad->t->dma_bytes)
        return NDK_STATUS_INVALID_PARAMETER; /* not memory the NIC can reach */
    uint64_t off = (uint64_t)(p - ad->t->dma);
    pthread_mutex_lock(&ad->lock);
    ndk_status st = NDK_STATUS_SUCCESS;
    if (mr->registered)
        st = NDK_STATUS_INVALID_DEVICE_STATE;
    else if (qpnic_heap_contains(&ad->heap, off, len, QPNIC_HEAP_USER) != 0)
        st = NDK_STATUS_INVALID_PARAMETER; /* must lie inside one ndk_alloc_dma block */
    else
        st = mr_register_locked(ad, mr, off, (uint32_t)len, (uint64_t)(uintptr_t)addr, mr_flags);
    pthread_mutex_unlock(&ad->lock);
    return st;
}

/* ---- fast registration ---- */

#define FREG_FLAGS (NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE | \
                    NDK_OP_FLAG_ALLOW_LOCAL_WRITE | NDK_OP_FLAG_SILENT_SUCCESS | \
                    NDK_OP_FLAG_READ_FENCE | NDK_OP_FLAG_DEFER)

/* The pages a fast registration of len bytes from first_byte_offset uses
 * (the page list's first *used entries), if the page list is one the NIC
 * can map: each used page aligned, inside the adapter's DMA memory, and
 * below 2^(FREG_PAGE_SHIFT + PT_PFN_BITS) (a page table entry's frame
 * number). */
static ndk_status freg_pages(ndk_adapter *ad, uint32_t page_count, const uint64_t *page_list,
                             uint32_t first_byte_offset, size_t len, uint32_t *used)
{
    const uint64_t page = QPNIC_FREG_PAGE_BYTES;
    if (page_count == 0 || !page_list || len == 0 || first_byte_offset >= page ||
        len > (uint64_t)page_count * page - first_byte_offset || (uint64_t)len > 0xFFFFFFFFu)
        return NDK_STATUS_INVALID_PARAMETER;
    uint32_t n = (uint32_t)((first_byte_offset + (uint64_t)len + page - 1) / page);
    uint64_t lo = ad->t->dma_base, hi = ad->t->dma_base + ad->t->dma_bytes;
    for (uint32_t i = 0; i < n; i++)
        if (page_list[i] % page != 0 || page_list[i] < lo || page_list[i] > hi - page ||
            (page_list[i] >> (QPNIC_FREG_PAGE_SHIFT + QPNIC_PT_PFN_BITS)) != 0)
            return NDK_STATUS_INVALID_PARAMETER;
    *used = n;
    return NDK_STATUS_SUCCESS;
}

/* A run of n free page table entries, taken: its first in *first. First
 * fit. Under ad->lock. */
static ndk_status pt_take_locked(ndk_adapter *ad, uint32_t n, uint32_t *first)
{
    for (uint32_t i = 0, run = 0; i < ad->num_pt; i++) {
        run = ad->pt_used[i] ? 0 : run + 1;
        if (run == n) {
            *first = i + 1 - n;
            memset(ad->pt_used + *first, 1, n);
            return NDK_STATUS_SUCCESS;
        }
    }
    return NDK_STATUS_INSUFFICIENT_RESOURCES;
}

typedef struct {
    uint64_t lo, hi; /* [lo, hi) of host memory */
} freg_span;

static int span_cmp(const void *a, const void *b)
{
    const freg_span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Checker ranges for a fast-registered mr over pages[0..n): the region's
 * bytes in each page, sorted and merged where they touch or overlap (a
 * page list may repeat a page or list neighbours in any order), one range
 * per merged span. Under ad->lock. */
static ndk_status freg_ranges_locked(ndk_adapter *ad, ndk_mr *mr, const uint64_t *pages, uint32_t n,
                                     uint32_t first_byte_offset)
{
    const uint64_t page = QPNIC_FREG_PAGE_BYTES;
    freg_span *sp = malloc(n * sizeof *sp);
    if (!sp)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    uint64_t end = first_byte_offset + (uint64_t)mr->len; /* the region's end, from page 0's start */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t from = i == 0 ? first_byte_offset : 0;
        uint64_t to = i == n - 1 ? end - (uint64_t)i * page : page;
        sp[i] = (freg_span){ pages[i] + from, pages[i] + to };
        /* the bytes used must be the caller's (ndk_alloc_dma), as for
         * ndk_register_mr: never the driver's rings */
        if (qpnic_heap_contains(&ad->heap, sp[i].lo - ad->t->dma_base, sp[i].hi - sp[i].lo,
                                QPNIC_HEAP_USER) != 0) {
            free(sp);
            return NDK_STATUS_INVALID_PARAMETER;
        }
    }
    qsort(sp, n, sizeof *sp, span_cmp);
    ndk_status st = NDK_STATUS_SUCCESS;
    for (uint32_t i = 0; i < n && st == NDK_STATUS_SUCCESS;) {
        freg_span m = sp[i++];
        while (i < n && sp[i].lo <= m.hi) {
            if (sp[i].hi > m.hi)
                m.hi = sp[i].hi;
            i++;
        }
        st = mr_add_range_locked(ad, mr, m.lo, m.hi - m.lo);
    }
    free(sp);
    return st;
}

/* The page table side of a fast registration, for mr just taken: a run of
 * entries written at the NIC with the pages' frame numbers (PT_IDX, then
 * PT_PFN for each: MMIO writes reach the NIC before the doorbell of the
 * FAST_REG that makes them reachable), the checker's ranges, and the
 * region's page-table address in *dev. Under ad->lock. */
static ndk_status freg_map_locked(ndk_adapter *ad, ndk_mr *mr, const uint64_t *pages, uint32_t n,
                                  uint32_t first_byte_offset, uint64_t *dev)
{
    uint32_t first;
    ndk_status st = pt_take_locked(ad, n, &first);
    if (st != NDK_STATUS_SUCCESS)
        return st;
    mr->pt_first = first;
    mr->pt_count = n;
    st = freg_ranges_locked(ad, mr, pages, n, first_byte_offset);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_write_locked(ad, QPNIC_REG_PT_IDX, first);
    for (uint32_t i = 0; i < n && st == NDK_STATUS_SUCCESS; i++)
        st = qpnic_reg_write_locked(ad, QPNIC_REG_PT_PFN, (uint32_t)(pages[i] >> QPNIC_FREG_PAGE_SHIFT));
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_grant_locked(ad, mr->idx, mr->pd->id, 0, first, n);
    *dev = (1ull << QPNIC_PT_ADDR_BIT) | ((uint64_t)first << QPNIC_FREG_PAGE_SHIFT) | first_byte_offset;
    return st;
}

ndk_status ndk_fast_register(ndk_qp *qp, void *ctx, ndk_mr *mr, uint32_t page_count,
                             const uint64_t *page_list, uint32_t first_byte_offset,
                             size_t len, uint64_t base_va, uint32_t flags)
{
    if (!qpnic_handle_live(qp, QPNIC_H_QP))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = qp->ad;
    uint64_t dev = 0;
    uint32_t used = 0;
    ndk_status st = NDK_STATUS_SUCCESS;
    if (!qpnic_handle_live(mr, QPNIC_H_MR) || mr->ad != ad || mr->pd != qp->pd || (flags & ~FREG_FLAGS) ||
        qpnic_rights_malformed(flags, &qpnic_op_rights))
        st = NDK_STATUS_INVALID_PARAMETER;
    else if (atomic_load(&ad->dead))
        st = NDK_STATUS_IO_ERROR;
    else
        st = freg_pages(ad, page_count, page_list, first_byte_offset, len, &used);
    if (st != NDK_STATUS_SUCCESS)
        return qpnic_post_fail(qp, st); /* D5 */
    uint32_t access = qpnic_rights_access(flags, &qpnic_op_rights);

    /* The table entry, the tokens, the page table entries and the checker's
     * ranges are taken now; the NIC writes the entry when the request's
     * turn comes in the SQ. */
    uint64_t va = base_va + first_byte_offset;
    pthread_mutex_lock(&ad->lock);
    st = mr_take_entry_locked(ad, mr, va, (uint32_t)len, access);
    if (st == NDK_STATUS_SUCCESS) {
        st = freg_map_locked(ad, mr, page_list, used, first_byte_offset, &dev);
        if (st != NDK_STATUS_SUCCESS)
            mr_release_entry_locked(ad, mr); /* no region points at the entries */
    }
    pthread_mutex_unlock(&ad->lock);
    if (st != NDK_STATUS_SUCCESS)
        return qpnic_post_fail(qp, st);

    uint32_t w[QPNIC_WQE_WORDS] = { 0 };
    QPNIC_FIELD_SET(w, QPNIC_WQE_FREG_OPCODE, QPNIC_WQE_OP_FAST_REG);
    QPNIC_FIELD_SET(w, QPNIC_WQE_FREG_FLAGS, flags & 0xFFFFu);
    QPNIC_FIELD_SET(w, QPNIC_WQE_FREG_LKEY, mr->lkey);
    QPNIC_FIELD_SET(w, QPNIC_WQE_FREG_VA_LO, (uint32_t)va);
    QPNIC_FIELD_SET(w, QPNIC_WQE_FREG_VA_HI, (uint32_t)(va >> 32));
    QPNIC_FIELD_SET(w, QPNIC_WQE_FREG_DMA_LO, (uint32_t)dev);
    QPNIC_FIELD_SET(w, QPNIC_WQE_FREG_DMA_HI, (uint32_t)(dev >> 32));
    QPNIC_FIELD_SET(w, QPNIC_WQE_FREG_LEN, (uint32_t)len);
    QPNIC_FIELD_SET(w, QPNIC_WQE_FREG_RKEY, mr->rkey);
    QPNIC_FIELD_SET(w, QPNIC_WQE_FREG_ACCESS, access);
    st = qpnic_post_wqe(qp, ctx, w, flags);
    if (st == NDK_STATUS_SUCCESS)
        qpnic_sq_op_note(&mr->last_op, qp);
    else { /* never posted: the registration is undone */
        pthread_mutex_lock(&ad->lock);
        mr_release_entry_locked(ad, mr);
        pthread_mutex_unlock(&ad->lock);
    }
    return st;
}

uint32_t ndk_mr_local_token(const ndk_mr *mr)
{
    return qpnic_handle_live(mr, QPNIC_H_MR) && mr->registered ? mr->lkey : 0;
}

uint32_t ndk_mr_remote_token(const ndk_mr *mr)
{
    return qpnic_handle_live(mr, QPNIC_H_MR) && mr->registered ? mr->rkey : 0;
}

ndk_status ndk_destroy_mr(ndk_mr *mr)
{
    if (!qpnic_handle_live(mr, QPNIC_H_MR))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = mr->ad;
    pthread_mutex_lock(&ad->lock);
    if (mr->windows) { /* V10: its windows first */
        pthread_mutex_unlock(&ad->lock);
        return NDK_STATUS_DEVICE_BUSY;
    }
    if (mr->registered) {
        /* Its FastRegister done first (else it would write the entry
         * again); then invalid at once (later checks fail), then the
         * fence: DMA that passed its check earlier finishes before the
         * region is given up. */
        pthread_mutex_unlock(&ad->lock);
        if (qpnic_sq_op_wait(ad, &mr->last_op) != NDK_STATUS_SUCCESS ||
            qpnic_entry_kill(ad, mr->idx) != NDK_STATUS_SUCCESS)
            return NDK_STATUS_DEVICE_BUSY; /* its tokens are dead; the region stays */
        pthread_mutex_lock(&ad->lock);
        mr_release_entry_locked(ad, mr);
    }
    mr->pd->refs--;
    ad->live_objects--;
    pthread_mutex_unlock(&ad->lock);
    qpnic_handle_del(mr);
    free(mr);
    return NDK_STATUS_SUCCESS;
}
