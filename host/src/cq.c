/* cq.c: completions: reading CQEs, arming, waiting.
 *
 * For: ndk_get_cq_results(_ex) (CQEs read straight from the ring in host
 * memory, owned by phase bit), the mapping of the NIC's completion codes to
 * ndk_status, freeing SQ and RQ slots as their completions are taken,
 * ndk_arm_cq (one register write; the firmware does the rest: N1-N7) and
 * ndk_wait_cq (V9), and letting waiters go when their CQ is destroyed; the
 * CQs' consumer index records. Not for: calling callbacks (event.c).
 *
 * The consumer side of a CQ is serialized by the caller (C1): cq->ci needs
 * no lock. The QP table is read under ad->lock, once per call.
 *
 * Consumer index records (layout struct ci_rec, as mlx5's CQ doorbell
 * records): taking CQEs stores the CQ's new CI in its record in DMA memory,
 * which the NIC reads only when its own copy says the CQ is full
 * (qpnic_cqe_writer); ARM carries the CI too, so the firmware judges an arm
 * with the host's CI. Polling writes no register: on a board link, where
 * one costs a frame, a chain of N requests costs its doorbell, not N more.
 */
#include <errno.h>
#include <time.h>

#include "internal.h"
#include "regs.h"
#include "shm_proto.h" /* QPNIC_RANGE_READ */

/* The NIC's completion codes as statuses. */
ndk_status qpnic_cqe_status(uint32_t cqe_status)
{
    switch (cqe_status) {
    case QPNIC_CQE_STATUS_SUCCESS: return NDK_STATUS_SUCCESS;
    case QPNIC_CQE_STATUS_LOC_LEN: return NDK_STATUS_BUFFER_OVERFLOW; /* receive too small */
    case QPNIC_CQE_STATUS_LOC_PROT: return NDK_STATUS_ACCESS_VIOLATION;
    case QPNIC_CQE_STATUS_REM_ACCESS: return NDK_STATUS_REMOTE_ACCESS_ERROR;
    case QPNIC_CQE_STATUS_RNR: return NDK_STATUS_RECEIVER_NOT_READY; /* V8 */
    case QPNIC_CQE_STATUS_FLUSHED: return NDK_STATUS_CANCELLED;
    case QPNIC_CQE_STATUS_BAD_WQE: return NDK_STATUS_INVALID_PARAMETER;
    case QPNIC_CQE_STATUS_REM_OP: return NDK_STATUS_REMOTE_OPERATION_ERROR;
    case QPNIC_CQE_STATUS_BAD_QP: return NDK_STATUS_INVALID_DEVICE_STATE;
    case QPNIC_CQE_STATUS_BAD_TOKEN: return NDK_STATUS_INVALID_TOKEN; /* C5 */
    case QPNIC_CQE_STATUS_RETRY_EXC: return NDK_STATUS_TIMEOUT; /* the peer never answered */
    default: return NDK_STATUS_INTERNAL_ERROR;
    }
}

ndk_status qpnic_ntf_status(uint32_t ntf_status)
{
    switch (ntf_status) {
    case QPNIC_NTF_STATUS_SUCCESS: return NDK_STATUS_SUCCESS;
    case QPNIC_NTF_STATUS_OVERFLOW: return NDK_STATUS_BUFFER_OVERFLOW; /* N8 */
    default: return NDK_STATUS_INTERNAL_ERROR;
    }
}

/* The CQE at ci if the NIC has written it on this pass, else NULL. Word 3
 * (with the phase bit) lands last and is loaded first, with acquire, so the
 * other words read after it are whole. */
static const uint32_t *next_cqe(const ndk_cq *cq, uint32_t *word3)
{
    const uint32_t *e = (const uint32_t *)(cq->ring.host +
                                           (size_t)(cq->ci & ((1u << cq->log_depth) - 1)) * QPNIC_CQE_BYTES);
    uint32_t w3 = __atomic_load_n(&e[QPNIC_CQE_PHASE_WORD], __ATOMIC_ACQUIRE);
    uint32_t expected = ((cq->ci >> cq->log_depth) & 1u) ^ 1u; /* 1 on the first pass */
    uint32_t phase = (w3 >> QPNIC_CQE_PHASE_SHIFT) & QPNIC_CQE_PHASE_MASK;
    if (phase != expected)
        return NULL;
    *word3 = w3;
    return e;
}

/* Advance a 32-bit consumer count to just past 16-bit wqe_index, unless it
 * is there already (post.c may have retired silent successes past it); pi
 * is the producer count: nothing beyond it is retired. */
static void retire(_Atomic uint32_t *ci, uint32_t pi, uint32_t wqe_index)
{
    uint32_t cur = atomic_load_explicit(ci, memory_order_relaxed);
    for (;;) {
        uint32_t step = (wqe_index + 1u - cur) & HREG_INDEX_MASK;
        if (step == 0 || step > pi - cur)
            return;
        if (atomic_compare_exchange_weak_explicit(ci, &cur, cur + step, memory_order_release,
                                                  memory_order_relaxed))
            return;
    }
}

static int is_receive(uint32_t type)
{
    return type == QPNIC_OP_TYPE_RECEIVE || type == QPNIC_OP_TYPE_RECEIVE_AND_INVALIDATE;
}

/* Decode one CQE into *r; frees its ring slot and, on failure, puts its QP
 * in error. Under ad->lock (the QP table). */
static void take_cqe(ndk_adapter *ad, const uint32_t *e, uint32_t w3, ndk_result_ex *r)
{
    uint32_t w[QPNIC_CQE_WORDS] = { e[0], e[1], e[2], w3 };
    uint32_t qpn = QPNIC_FIELD_GET(w, QPNIC_CQE_QPN);
    uint32_t index = QPNIC_FIELD_GET(w, QPNIC_CQE_WQE_INDEX);
    r->type = qpnic_cqe_type_to_ndk(QPNIC_FIELD_GET(w, QPNIC_CQE_TYPE));
    r->status = qpnic_cqe_status(QPNIC_FIELD_GET(w, QPNIC_CQE_STATUS));
    r->bytes_transferred = r->status == NDK_STATUS_SUCCESS ? QPNIC_FIELD_GET(w, QPNIC_CQE_BYTE_COUNT) : 0; /* V7 */
    r->qp_num = qpn;
    r->type_specific = r->type == QPNIC_OP_TYPE_RECEIVE_AND_INVALIDATE
                           ? QPNIC_FIELD_GET(w, QPNIC_CQE_INV_TOKEN) : 0; /* C4 */
    r->qp_context = NULL;
    r->request_context = NULL;
    ndk_qp *qp = qpnic_qp_by_num(ad, qpn);
    if (!qp)
        return; /* its QP is gone, and so are its contexts */
    r->qp_context = qp->context; /* V3 */
    if (is_receive(r->type)) {
        r->request_context = qp->rq_ctx[index & ((1u << qp->rq_log) - 1)];
        retire(&qp->rq_ci, qp->rq_pi, index);
    } else {
        r->request_context = qp->sq_ctx[index & ((1u << qp->sq_log) - 1)];
        retire(&qp->sq_ci, qp->sq_pi, index); /* completions are in order per SQ */
    }
    if (r->status != NDK_STATUS_SUCCESS)
        qpnic_qp_mark_error(qp); /* the NIC's QP went to ERROR with it */
    qpnic_zombie_retired(ad, qp); /* a destroyed QP's last one frees it */
}

/* The body of both getters: fills ex[] (n of them); returns how many. */
static uint32_t get_results(ndk_cq *cq, ndk_result_ex *ex, ndk_result *plain, uint32_t n)
{
    if (!qpnic_handle_live(cq, QPNIC_H_CQ) || n == 0 || (!ex && !plain))
        return 0;
    uint32_t w3;
    if (!next_cqe(cq, &w3))
        return 0; /* nothing new: no lock, no register access */
    ndk_adapter *ad = cq->ad;
    uint32_t got = 0;
    pthread_mutex_lock(&ad->lock);
    const uint32_t *e;
    while (got < n && (e = next_cqe(cq, &w3)) != NULL) {
        ndk_result_ex r;
        take_cqe(ad, e, w3, &r);
        if (ex)
            ex[got] = r;
        else
            plain[got] = (ndk_result){ r.status, r.bytes_transferred, r.qp_context, r.request_context };
        got++;
        cq->ci++;
    }
    pthread_mutex_unlock(&ad->lock);
    qpnic_ci_rec_store(ad, cq->cqn, cq->ci);
    return got;
}

ndk_status qpnic_ci_recs_init(ndk_adapter *ad)
{
    ndk_status st = qpnic_dma_buf_alloc(ad, (uint64_t)ad->num_cq * QPNIC_CI_REC_BYTES, QPNIC_RANGE_READ,
                                        &ad->ci_recs);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_write(ad, QPNIC_REG_CI_REC_LO, (uint32_t)ad->ci_recs.dev);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_write(ad, QPNIC_REG_CI_REC_HI, (uint32_t)(ad->ci_recs.dev >> 32));
    return st;
}

void qpnic_ci_rec_store(ndk_adapter *ad, uint32_t cqn, uint32_t ci)
{
    /* release: the NIC that reads this CI must not see the CQEs before it as
     * still the host's (it may overwrite them) */
    _Atomic uint32_t *rec = (_Atomic uint32_t *)(ad->ci_recs.host + (size_t)cqn * QPNIC_CI_REC_BYTES);
    atomic_store_explicit(rec, QPNIC_FIELD(QPNIC_CI_REC_CI, ci), memory_order_release);
}

uint32_t ndk_get_cq_results(ndk_cq *cq, ndk_result *out, uint32_t n)
{
    return get_results(cq, NULL, out, n);
}

uint32_t ndk_get_cq_results_ex(ndk_cq *cq, ndk_result_ex *out, uint32_t n)
{
    return get_results(cq, out, NULL, n);
}

void ndk_arm_cq(ndk_cq *cq, uint32_t trigger)
{
    if (!qpnic_handle_live(cq, QPNIC_H_CQ) || trigger > NDK_CQ_NOTIFY_SOLICITED)
        return; /* an unknown trigger arms nothing (documented in ndk.h) */
    ndk_adapter *ad = cq->ad;
    pthread_mutex_lock(&ad->ev_lock);
    cq->arm_seq++; /* before the NIC hears of it: its notification counts */
    pthread_mutex_unlock(&ad->ev_lock);
    uint32_t arm = QPNIC_FIELD(QPNIC_CQ_ARM_TRIGGER, trigger) | QPNIC_FIELD(QPNIC_CQ_ARM_CI_VALID, 1) |
                   QPNIC_FIELD(QPNIC_CQ_ARM_CI, cq->ci);
    if (qpnic_reg_write(ad, QPNIC_CQREG(cq->cqn, ARM), arm) == NDK_STATUS_IO_ERROR) {
        /* No NIC to answer it: the event thread does, with INTERNAL_ERROR. */
        pthread_mutex_lock(&ad->ev_lock);
        ad->ev_arm_pending = 1;
        pthread_cond_broadcast(&ad->ev_cond);
        pthread_mutex_unlock(&ad->ev_lock);
    }
}

static struct timespec deadline_after(int timeout_ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

ndk_status ndk_wait_cq(ndk_cq *cq, int timeout_ms)
{
    if (!qpnic_handle_live(cq, QPNIC_H_CQ))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = cq->ad;
    struct timespec deadline = deadline_after(timeout_ms < 0 ? 0 : timeout_ms);
    ndk_status st;
    pthread_mutex_lock(&ad->ev_lock);
    cq->waiters++;
    for (;;) {
        if (cq->destroying) {
            st = NDK_STATUS_CANCELLED; /* ndk_destroy_cq waits for us to leave */
            break;
        }
        if (cq->arm_seq == 0) {
            st = NDK_STATUS_INVALID_DEVICE_STATE; /* never armed */
            break;
        }
        if (cq->ntf_seq == cq->arm_seq) {
            st = cq->ntf_status;
            break;
        }
        if (atomic_load(&ad->dead)) {
            st = NDK_STATUS_IO_ERROR;
            break;
        }
        int rc = timeout_ms < 0 ? pthread_cond_wait(&ad->ev_cond, &ad->ev_lock)
                                : pthread_cond_timedwait(&ad->ev_cond, &ad->ev_lock, &deadline);
        if (rc == ETIMEDOUT) {
            st = cq->ntf_seq == cq->arm_seq ? cq->ntf_status : NDK_STATUS_TIMEOUT;
            break;
        }
    }
    if (--cq->waiters == 0 && cq->destroying)
        pthread_cond_broadcast(&ad->ev_cond); /* the destroy may go on */
    pthread_mutex_unlock(&ad->ev_lock);
    return st;
}

void qpnic_cq_release_waiters(ndk_cq *cq)
{
    ndk_adapter *ad = cq->ad;
    pthread_mutex_lock(&ad->ev_lock);
    cq->destroying = 1;
    pthread_cond_broadcast(&ad->ev_cond);
    while (cq->waiters != 0)
        pthread_cond_wait(&ad->ev_cond, &ad->ev_lock);
    pthread_mutex_unlock(&ad->ev_lock);
}
