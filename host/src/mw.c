/* mw.c: memory windows.
 *
 * For: ndk_create_mw (a token table entry held for the window's life, not
 * yet valid at the NIC), ndk_bind (a BIND WQE: the NIC checks the range
 * against the region as a local SGE and writes the window's entry in SQ
 * order), ndk_mw_remote_token, ndk_destroy_mw (MR_CMD INVALIDATE and the
 * fence, as ndk_destroy_mr). Not for: the entries themselves (mr.c).
 *
 * A window is its own token table entry: the range, the region's device
 * address for it (which the NIC takes from its own check of the region, so
 * a host mistake cannot widen it), remote rights, the QP's PD and the
 * mr_ctx window bit (remote checks only). Each bind gives the window a
 * fresh remote token, so a peer holding the previous one is refused once
 * the new bind has executed.
 */
#include <stdlib.h>

#include "internal.h"

ndk_status ndk_create_mw(ndk_pd *pd, ndk_mw **out)
{
    if (!qpnic_handle_live(pd, QPNIC_H_PD) || !out)
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = pd->ad;
    if (atomic_load(&ad->dead))
        return NDK_STATUS_IO_ERROR;
    ndk_mw *mw = calloc(1, sizeof *mw);
    if (!mw)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    if (qpnic_handle_add(mw, QPNIC_H_MW) != 0) {
        free(mw);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    mw->ad = ad;
    mw->pd = pd;
    pthread_mutex_lock(&ad->lock);
    ndk_status st = qpnic_entry_take_locked(ad, mw, &mw->idx);
    if (st == NDK_STATUS_SUCCESS) {
        /* BINDs of its PD may write the entry, nothing else (internal.h) */
        st = qpnic_grant_locked(ad, mw->idx, pd->id, 1, 0, 0);
        if (st != NDK_STATUS_SUCCESS)
            qpnic_entry_free_locked(ad, mw->idx);
    }
    if (st == NDK_STATUS_SUCCESS) {
        /* the entry is invalid at the NIC (cleared by the last destroy or
         * by reset): this token opens nothing until a bind */
        mw->rkey = qpnic_token_locked(ad, mw->idx);
        pd->refs++;
        ad->live_objects++;
    }
    pthread_mutex_unlock(&ad->lock);
    if (st != NDK_STATUS_SUCCESS) {
        qpnic_handle_del(mw);
        free(mw);
        return st;
    }
    *out = mw;
    return NDK_STATUS_SUCCESS;
}

uint32_t ndk_mw_remote_token(const ndk_mw *mw)
{
    return qpnic_handle_live(mw, QPNIC_H_MW) ? mw->rkey : 0;
}

#define BIND_FLAGS (NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE | \
                    NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE | NDK_OP_FLAG_DEFER)

/* What ndk_bind can refuse before posting. */
static ndk_status bind_check(const ndk_qp *qp, const ndk_mr *mr, const ndk_mw *mw, uint64_t va,
                             size_t len, uint32_t flags)
{
    ndk_adapter *ad = qp->ad;
    if (!qpnic_handle_live(mr, QPNIC_H_MR) || !qpnic_handle_live(mw, QPNIC_H_MW) || mr->ad != ad ||
        mw->ad != ad || mr->pd != qp->pd || mw->pd != qp->pd || (flags & ~BIND_FLAGS) ||
        qpnic_rights_malformed(flags, &qpnic_op_rights))
        return NDK_STATUS_INVALID_PARAMETER;
    if (atomic_load(&ad->dead))
        return NDK_STATUS_IO_ERROR;
    if (!mr->registered)
        return NDK_STATUS_INVALID_DEVICE_STATE;
    if (len == 0 || va < mr->va || (uint64_t)len > mr->len || va - mr->va > mr->len - (uint64_t)len)
        return NDK_STATUS_INVALID_PARAMETER; /* not inside the region */
    if ((qpnic_rights_access(flags, &qpnic_op_rights) & QPNIC_MR_ACCESS_REMOTE_WRITE) &&
        !(mr->access & QPNIC_MR_ACCESS_LOCAL_WRITE))
        return NDK_STATUS_ACCESS_VIOLATION; /* a writable window needs a writable region */
    return NDK_STATUS_SUCCESS;
}

ndk_status ndk_bind(ndk_qp *qp, void *ctx, ndk_mr *mr, ndk_mw *mw, uint64_t va, size_t len,
                    uint32_t flags)
{
    if (!qpnic_handle_live(qp, QPNIC_H_QP))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = qp->ad;
    ndk_status st = bind_check(qp, mr, mw, va, len, flags);
    if (st != NDK_STATUS_SUCCESS)
        return qpnic_post_fail(qp, st); /* D5 */

    /* a window grants remote rights only */
    uint32_t access = qpnic_rights_access(flags, &qpnic_op_rights) & ~QPNIC_MR_ACCESS_LOCAL_WRITE;

    /* The new token and the binding are the window's from here; undone if
     * the request is never posted. */
    pthread_mutex_lock(&ad->lock);
    uint32_t old_rkey = mw->rkey;
    ndk_mr *old_mr = mw->mr;
    mw->rkey = qpnic_token_locked(ad, mw->idx);
    if (old_mr)
        old_mr->windows--;
    mr->windows++;
    mw->mr = mr;
    uint32_t rkey = mw->rkey;
    pthread_mutex_unlock(&ad->lock);

    uint32_t w[QPNIC_WQE_WORDS];
    ndk_sge range = { va, (uint32_t)len, mr->lkey };
    qpnic_wqe_encode(w, QPNIC_WQE_OP_BIND, flags, &range, 1, rkey, 0);
    QPNIC_FIELD_SET(w, QPNIC_WQE_BIND_ACCESS, access);
    st = qpnic_post_wqe(qp, ctx, w, flags);
    if (st == NDK_STATUS_SUCCESS)
        qpnic_sq_op_note(&mw->last_op, qp);
    else {
        pthread_mutex_lock(&ad->lock);
        mr->windows--;
        if (old_mr)
            old_mr->windows++;
        mw->mr = old_mr;
        mw->rkey = old_rkey;
        pthread_mutex_unlock(&ad->lock);
    }
    return st;
}

ndk_status ndk_destroy_mw(ndk_mw *mw)
{
    if (!qpnic_handle_live(mw, QPNIC_H_MW))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = mw->ad;
    /* its Bind done first (else it would write the entry again), then
     * invalid at once, then the fence: a peer's transfer through the
     * window that passed its check finishes first */
    if (qpnic_sq_op_wait(ad, &mw->last_op) != NDK_STATUS_SUCCESS ||
        qpnic_entry_kill(ad, mw->idx) != NDK_STATUS_SUCCESS)
        return NDK_STATUS_DEVICE_BUSY; /* its token is dead; the window stays */
    pthread_mutex_lock(&ad->lock);
    (void)qpnic_grant_locked(ad, mw->idx, mw->pd->id, 0, 0, 0); /* no longer a window */
    qpnic_entry_free_locked(ad, mw->idx);
    if (mw->mr)
        mw->mr->windows--;
    mw->pd->refs--;
    ad->live_objects--;
    pthread_mutex_unlock(&ad->lock);
    qpnic_handle_del(mw);
    free(mw);
    return NDK_STATUS_SUCCESS;
}
