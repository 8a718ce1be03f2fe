/* post.c: posting requests, and deferral.
 *
 * For: ndk_receive, ndk_send, ndk_send_and_invalidate, ndk_write, ndk_read,
 * ndk_invalidate: the inline checks, the
 * WQE written to the ring at once, and the doorbell (SQ_PI / RQ_PI). The
 * deferral rules live here: a request with DEFER leaves the doorbell for
 * later (D1, D2); the next request without DEFER rings once for the whole
 * chain (D8); before any inline failure is returned the held chain is rung
 * (D5), so it completes (D4) and the failed request, never written, does not
 * (D3). DEFER is a hint (D2): a held chain is also rung when the SQ fills.
 * Not for: the WQE's bit layout (wqe.c) or completions (cq.c).
 *
 * Posting on one QP is serialized by the caller; the consumer indices come
 * from the CQ side (cq.c) through atomics.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "regs.h"

#define SEND_FLAGS (NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE | \
                    NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT | NDK_OP_FLAG_INLINE | NDK_OP_FLAG_DEFER)
#define WRITE_FLAGS (NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE | \
                     NDK_OP_FLAG_INLINE | NDK_OP_FLAG_DEFER)
#define READ_FLAGS (NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE | NDK_OP_FLAG_DEFER)
#define INVALIDATE_FLAGS READ_FLAGS

/* The checks every request makes, in the order ndk.h documents. */
static ndk_status check_request(const ndk_qp *qp, const ndk_sge *sgl, uint32_t nsge,
                                uint32_t flags, uint32_t allowed_flags)
{
    if ((nsge > 0 && !sgl) || nsge > qp->max_sge || (flags & ~allowed_flags))
        return NDK_STATUS_INVALID_PARAMETER;
    uint64_t total = 0;
    for (uint32_t i = 0; i < nsge; i++)
        total += sgl[i].length;
    if (total > QPNIC_MAX_MSG_BYTES)
        return NDK_STATUS_INVALID_PARAMETER;
    if ((flags & NDK_OP_FLAG_INLINE) && total > qp->max_inline)
        return NDK_STATUS_INVALID_PARAMETER;
    if (atomic_load(&qp->ad->dead))
        return NDK_STATUS_IO_ERROR; /* even a deferred post: it could never complete */
    if (atomic_load(&qp->rcq->overrun) || atomic_load(&qp->scq->overrun))
        return NDK_STATUS_INVALID_DEVICE_STATE; /* N8 */
    return NDK_STATUS_SUCCESS;
}

/* The doorbell: tell the NIC every SQ WQE written so far. The release fence
 * makes the WQEs visible before the NIC can hear of them. */
ndk_status qpnic_ring_sq_locked(ndk_qp *qp)
{
    atomic_thread_fence(memory_order_release);
    ndk_status st = qpnic_reg_write_locked(qp->ad, QPNIC_QPREG(qp->idx, SQ_PI),
                                           qp->sq_pi & HREG_INDEX_MASK);
    if (st == NDK_STATUS_SUCCESS)
        qp->sq_rung = qp->sq_pi;
    return st;
}

static ndk_status ring_sq(ndk_qp *qp)
{
    pthread_mutex_lock(&qp->ad->lock);
    ndk_status st = qpnic_ring_sq_locked(qp);
    pthread_mutex_unlock(&qp->ad->lock);
    return st;
}

/* D5: an initiator call about to fail first hands over the held chain. */
ndk_status qpnic_post_fail(ndk_qp *qp, ndk_status failure)
{
    if (qp->sq_pi != qp->sq_rung)
        (void)ring_sq(qp);
    return failure;
}

/* sq_silent: how an SQ slot is freed */
enum {
    SQ_NOT_SILENT = 0,     /* by its CQE's retrieval */
    SQ_SILENT_SUCCESS = 1, /* SILENT_SUCCESS: by the NIC's SQ_CI (retire_silent) */
    SQ_SILENT_DATA = 2,    /* an INLINE_DATA slot: the same, soon after its request's CQE */
};

/* SILENT_SUCCESS: a request that succeeds writes no CQE, so no retrieval
 * frees its slot. When the SQ looks full, ask the NIC how far it has
 * completed (SQ_CI) and retire the oldest slots that were silent, up to
 * there, as long as the QP is still connected at the NIC: had one of them
 * failed, the QP would be in ERROR (the NIC sets it before it counts the
 * completion), and its error CQE, still to be taken, needs its slot. */
static void retire_silent(ndk_qp *qp)
{
    uint32_t nic_ci = 0, state = 0;
    if (qpnic_reg_read(qp->ad, QPNIC_QPREG(qp->idx, SQ_CI), &nic_ci) != NDK_STATUS_SUCCESS ||
        qpnic_reg_read(qp->ad, QPNIC_QPREG(qp->idx, STATE), &state) != NDK_STATUS_SUCCESS ||
        state != QPNIC_QP_STATE_RTS)
        return;
    uint32_t mask = (1u << qp->sq_log) - 1u;
    uint32_t cur = atomic_load_explicit(&qp->sq_ci, memory_order_acquire);
    for (;;) {
        uint32_t done = (nic_ci - cur) & HREG_INDEX_MASK, k = 0;
        if (done > qp->sq_pi - cur)
            return; /* the NIC's count is behind ours: nothing to add */
        while (k < done && qp->sq_silent[(cur + k) & mask])
            k++;
        if (k == 0 || atomic_compare_exchange_weak_explicit(&qp->sq_ci, &cur, cur + k,
                                                            memory_order_release,
                                                            memory_order_acquire))
            return;
    }
}

/* Room for `slots` more in the SQ? If not, retire what the NIC has passed
 * of the silent slots at its head. An INLINE request's data slots are
 * retired by the NIC a few cycles after its CQE is written: when one is at
 * the head, its request has completed (its CQE retired everything before),
 * so the wait for it is short; look again, a bounded number of times. */
#define DATA_SLOT_LOOKS 1000
static int sq_room(ndk_qp *qp, uint32_t slots)
{
    uint32_t depth = 1u << qp->sq_log;
    for (int look = 0; look < DATA_SLOT_LOOKS; look++) {
        uint32_t ci = atomic_load_explicit(&qp->sq_ci, memory_order_acquire);
        if (qp->sq_pi - ci + slots <= depth)
            return 1;
        if (look > 0 && qp->sq_silent[ci & (depth - 1)] != SQ_SILENT_DATA)
            return 0;
        retire_silent(qp);
    }
    return 0;
}

/* The part of a post after the request's own checks: the QP's state, room
 * in the SQ, the encoded slots w into the ring, the doorbell (D1/D2). A
 * prepared post starts here. */
ndk_status qpnic_post_wqes(ndk_qp *qp, void *ctx, const uint32_t *w, uint32_t slots, uint32_t flags)
{
    if (atomic_load(&qp->state) != QP_HOST_RTS)
        return qpnic_post_fail(qp, NDK_STATUS_INVALID_DEVICE_STATE);
    uint32_t depth = 1u << qp->sq_log;
    if (!sq_room(qp, slots))
        return qpnic_post_fail(qp, NDK_STATUS_INSUFFICIENT_RESOURCES);
    uint32_t ci = atomic_load_explicit(&qp->sq_ci, memory_order_acquire);

    for (uint32_t k = 0; k < slots; k++) {
        uint32_t slot = qp->sq_pi & (depth - 1);
        memcpy(qp->sq.host + (size_t)slot * QPNIC_WQE_BYTES, w + k * QPNIC_WQE_WORDS, QPNIC_WQE_BYTES);
        /* an INLINE_DATA slot completes with its request: no context, and
         * retired past like a silent success */
        qp->sq_ctx[slot] = k ? NULL : ctx;
        qp->sq_silent[slot] = k ? SQ_SILENT_DATA
                                : (flags & NDK_OP_FLAG_SILENT_SUCCESS) ? SQ_SILENT_SUCCESS : SQ_NOT_SILENT;
        qp->sq_pi++;
    }

    /* D1/D2: hold the doorbell for DEFER, unless the ring is now full and
     * nothing more could join the chain. */
    if (!(flags & NDK_OP_FLAG_DEFER) || qp->sq_pi - ci == depth)
        return ring_sq(qp);
    return NDK_STATUS_SUCCESS;
}

ndk_status qpnic_post_wqe(ndk_qp *qp, void *ctx, const uint32_t *w, uint32_t flags)
{
    return qpnic_post_wqes(qp, ctx, w, 1, flags);
}

/* Encode a request: its WQE, or an INLINE request's slots (SEND, SEND_INV
 * and WRITE take INLINE). Returns the slots. */
static uint32_t encode(uint32_t *w, uint32_t opcode, uint32_t flags, const ndk_sge *sgl, uint32_t nsge,
                       uint32_t rtoken, uint64_t rva)
{
    if (flags & NDK_OP_FLAG_INLINE)
        return qpnic_wqe_encode_inline(w, opcode, flags, sgl, nsge, rtoken, rva);
    qpnic_wqe_encode(w, opcode, flags, sgl, nsge, rtoken, rva);
    return 1;
}

static ndk_status post_sq(ndk_qp *qp, void *ctx, uint32_t opcode, const ndk_sge *sgl,
                          uint32_t nsge, uint32_t flags, uint32_t allowed_flags,
                          uint32_t rtoken, uint64_t rva)
{
    if (!qpnic_handle_live(qp, QPNIC_H_QP))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_status st = check_request(qp, sgl, nsge, flags, allowed_flags);
    if (st != NDK_STATUS_SUCCESS)
        return qpnic_post_fail(qp, st);
    uint32_t w[QPNIC_INLINE_MAX_SLOTS * QPNIC_WQE_WORDS];
    uint32_t slots = encode(w, opcode, flags, sgl, nsge, rtoken, rva);
    return qpnic_post_wqes(qp, ctx, w, slots, flags);
}

/* ---- prepared posts (V1) ----
 * The request is checked and its WQE encoded once, by ndk_prepare_*; each
 * ndk_post_prepared then only checks the QP's state and room and copies the
 * 64 bytes into the ring. An INLINE request copies its buffers' bytes at
 * each post, as the plain call does, so its slots are encoded then. */
struct ndk_prepared {
    ndk_qp *qp;
    uint32_t flags;
    uint32_t w[QPNIC_WQE_WORDS];
    /* INLINE: the request, encoded at each post */
    uint32_t opcode, nsge, rtoken;
    uint64_t rva;
    ndk_sge sgl[QPNIC_MAX_SGE];
    ndk_status last;       /* of the latest ndk_post_prepared */
};

static ndk_status prepare(ndk_qp *qp, uint32_t opcode, const ndk_sge *sgl, uint32_t nsge,
                          uint32_t flags, uint32_t allowed_flags, uint32_t rtoken, uint64_t rva,
                          ndk_prepared **out)
{
    if (!qpnic_handle_live(qp, QPNIC_H_QP) || !out)
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_status st = check_request(qp, sgl, nsge, flags, allowed_flags);
    if (st != NDK_STATUS_SUCCESS)
        return st;
    ndk_prepared *pp = calloc(1, sizeof *pp);
    if (!pp)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    if (qpnic_handle_add(pp, QPNIC_H_PREPARED) != 0) {
        free(pp);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    pp->qp = qp;
    pp->flags = flags;
    pp->last = NDK_STATUS_SUCCESS;
    pp->opcode = opcode;
    pp->nsge = nsge;
    pp->rtoken = rtoken;
    pp->rva = rva;
    if (flags & NDK_OP_FLAG_INLINE) { /* encoded at each post, from the buffers then */
        if (nsge)
            memcpy(pp->sgl, sgl, nsge * sizeof *sgl);
    } else
        qpnic_wqe_encode(pp->w, opcode, flags, sgl, nsge, rtoken, rva);
    pthread_mutex_lock(&qp->ad->lock);
    qp->prepared++; /* the QP is not destroyed under it (DEVICE_BUSY) */
    pthread_mutex_unlock(&qp->ad->lock);
    *out = pp;
    return NDK_STATUS_SUCCESS;
}

ndk_status ndk_prepare_send(ndk_qp *qp, const ndk_sge *sgl, uint32_t nsge, uint32_t flags,
                            ndk_prepared **out)
{
    return prepare(qp, QPNIC_WQE_OP_SEND, sgl, nsge, flags, SEND_FLAGS, 0, 0, out);
}

ndk_status ndk_prepare_write(ndk_qp *qp, const ndk_sge *sgl, uint32_t nsge, uint64_t remote_addr,
                             uint32_t remote_token, uint32_t flags, ndk_prepared **out)
{
    return prepare(qp, QPNIC_WQE_OP_WRITE, sgl, nsge, flags, WRITE_FLAGS, remote_token,
                   remote_addr, out);
}

ndk_status ndk_prepare_read(ndk_qp *qp, const ndk_sge *sgl, uint32_t nsge, uint64_t remote_addr,
                            uint32_t remote_token, uint32_t flags, ndk_prepared **out)
{
    return prepare(qp, QPNIC_WQE_OP_READ, sgl, nsge, flags, READ_FLAGS, remote_token,
                   remote_addr, out);
}

ndk_status ndk_post_prepared(ndk_prepared *pp, void *ctx)
{
    if (!qpnic_handle_live(pp, QPNIC_H_PREPARED))
        return NDK_STATUS_INVALID_PARAMETER;
    /* the device may have died since the prepare (plain posts: check_request) */
    if (atomic_load(&pp->qp->ad->dead))
        pp->last = NDK_STATUS_IO_ERROR;
    else if (pp->flags & NDK_OP_FLAG_INLINE) {
        uint32_t w[QPNIC_INLINE_MAX_SLOTS * QPNIC_WQE_WORDS];
        uint32_t slots = encode(w, pp->opcode, pp->flags, pp->sgl, pp->nsge, pp->rtoken, pp->rva);
        pp->last = qpnic_post_wqes(pp->qp, ctx, w, slots, pp->flags);
    } else
        pp->last = qpnic_post_wqe(pp->qp, ctx, pp->w, pp->flags);
    return pp->last;
}

ndk_status ndk_free_prepared(ndk_prepared *pp, ndk_status *last_status)
{
    if (!qpnic_handle_live(pp, QPNIC_H_PREPARED))
        return NDK_STATUS_INVALID_PARAMETER;
    if (last_status)
        *last_status = pp->last;
    ndk_adapter *ad = pp->qp->ad;
    pthread_mutex_lock(&ad->lock);
    pp->qp->prepared--;
    pthread_mutex_unlock(&ad->lock);
    qpnic_handle_del(pp);
    free(pp);
    return NDK_STATUS_SUCCESS;
}

ndk_status ndk_send(ndk_qp *qp, void *ctx, const ndk_sge *sgl, uint32_t nsge, uint32_t flags)
{
    return post_sq(qp, ctx, QPNIC_WQE_OP_SEND, sgl, nsge, flags, SEND_FLAGS, 0, 0);
}

ndk_status ndk_send_and_invalidate(ndk_qp *qp, void *ctx, const ndk_sge *sgl, uint32_t nsge,
                                   uint32_t flags, uint32_t remote_token)
{
    return post_sq(qp, ctx, QPNIC_WQE_OP_SEND_INV, sgl, nsge, flags, SEND_FLAGS, remote_token, 0);
}

ndk_status ndk_invalidate(ndk_qp *qp, void *ctx, uint32_t token, uint32_t flags)
{
    return post_sq(qp, ctx, QPNIC_WQE_OP_INVALIDATE, NULL, 0, flags, INVALIDATE_FLAGS, token, 0);
}

ndk_status ndk_write(ndk_qp *qp, void *ctx, const ndk_sge *sgl, uint32_t nsge,
                     uint64_t remote_addr, uint32_t remote_token, uint32_t flags)
{
    return post_sq(qp, ctx, QPNIC_WQE_OP_WRITE, sgl, nsge, flags, WRITE_FLAGS,
                   remote_token, remote_addr);
}

ndk_status ndk_read(ndk_qp *qp, void *ctx, const ndk_sge *sgl, uint32_t nsge,
                    uint64_t remote_addr, uint32_t remote_token, uint32_t flags)
{
    return post_sq(qp, ctx, QPNIC_WQE_OP_READ, sgl, nsge, flags, READ_FLAGS,
                   remote_token, remote_addr);
}

/* Receives are not initiator requests: they take no DEFER, are rung at
 * once, and may be posted before the QP connects (V8). */
ndk_status ndk_receive(ndk_qp *qp, void *ctx, const ndk_sge *sgl, uint32_t nsge)
{
    if (!qpnic_handle_live(qp, QPNIC_H_QP))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_status st = check_request(qp, sgl, nsge, 0, 0);
    if (st != NDK_STATUS_SUCCESS)
        return st;
    int state = atomic_load(&qp->state);
    if (state != QP_HOST_RESET && state != QP_HOST_RTS)
        return NDK_STATUS_INVALID_DEVICE_STATE;
    uint32_t depth = 1u << qp->rq_log;
    if (qp->rq_pi - atomic_load_explicit(&qp->rq_ci, memory_order_acquire) >= depth)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;

    uint32_t slot = qp->rq_pi & (depth - 1);
    uint32_t w[QPNIC_WQE_WORDS];
    qpnic_wqe_encode(w, QPNIC_WQE_OP_RECV, 0, sgl, nsge, 0, 0);
    memcpy(qp->rq.host + (size_t)slot * QPNIC_WQE_BYTES, w, sizeof w);
    qp->rq_ctx[slot] = ctx;
    qp->rq_pi++;
    atomic_thread_fence(memory_order_release);
    return qpnic_reg_write(qp->ad, QPNIC_QPREG(qp->idx, RQ_PI), qp->rq_pi & HREG_INDEX_MASK);
}
