/* objects.c: protection domains, completion queues and queue pairs.
 *
 * For: creating them (numbers from the NIC's tables, rings in DMA memory
 * with their checker ranges, the NIC's per-CQ and per-QP registers),
 * connecting and disconnecting QPs, and destroying in order (V10: a
 * referenced object is DEVICE_BUSY and nothing is destroyed).
 * Not for: memory regions (mr.c), posting (post.c), completions (cq.c).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "regs.h"
#include "shm_proto.h"

/* ---- protection domains ---- */

ndk_status ndk_create_pd(ndk_adapter *ad, ndk_pd **out)
{
    if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER) || !out)
        return NDK_STATUS_INVALID_PARAMETER;
    if (atomic_load(&ad->dead))
        return NDK_STATUS_IO_ERROR;
    ndk_pd *pd = calloc(1, sizeof *pd);
    if (!pd)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    if (qpnic_handle_add(pd, QPNIC_H_PD) != 0) {
        free(pd);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    pd->ad = ad;
    pthread_mutex_lock(&ad->lock);
    pd->id = ad->next_pd++ & ((1u << QPNIC_PD_BITS) - 1u);
    ad->live_objects++;
    pthread_mutex_unlock(&ad->lock);
    *out = pd;
    return NDK_STATUS_SUCCESS;
}

ndk_status ndk_destroy_pd(ndk_pd *pd)
{
    if (!qpnic_handle_live(pd, QPNIC_H_PD))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = pd->ad;
    pthread_mutex_lock(&ad->lock);
    if (pd->refs != 0) {
        pthread_mutex_unlock(&ad->lock);
        return NDK_STATUS_DEVICE_BUSY; /* V10: QPs or MRs still in it */
    }
    ad->live_objects--;
    pthread_mutex_unlock(&ad->lock);
    qpnic_handle_del(pd);
    free(pd);
    return NDK_STATUS_SUCCESS;
}

/* ---- completion queues ---- */

static int free_slot(void **table, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!table[i])
            return (int)i;
    return -1;
}

/* Program CQ cqn's ring and enable it (enable zeroes its PI and CI, so its
 * consumer index record starts at 0 too). */
static ndk_status cq_program(ndk_adapter *ad, ndk_cq *cq)
{
    qpnic_ci_rec_store(ad, cq->cqn, 0);
    uint32_t cfg = QPNIC_FIELD(QPNIC_CQ_CFG_LOG_DEPTH, cq->log_depth) |
                   QPNIC_FIELD(QPNIC_CQ_CFG_GEN, cq->gen) | QPNIC_FIELD(QPNIC_CQ_CFG_ENABLE, 1);
    ndk_status st = qpnic_reg_write_locked(ad, QPNIC_CQREG(cq->cqn, BASE_LO), (uint32_t)cq->ring.dev);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_write_locked(ad, QPNIC_CQREG(cq->cqn, BASE_HI), (uint32_t)(cq->ring.dev >> 32));
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_write_locked(ad, QPNIC_CQREG(cq->cqn, CFG), cfg);
    return st;
}

ndk_status ndk_create_cq(ndk_adapter *ad, uint32_t depth, ndk_cq_notification_fn fn,
                         void *fn_ctx, ndk_cq **out)
{
    if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER) || !out || depth == 0)
        return NDK_STATUS_INVALID_PARAMETER;
    uint32_t log = qpnic_log2_ceil(depth);
    if (depth > (1u << ad->log_max_cq_depth))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_cq *cq = calloc(1, sizeof *cq);
    if (!cq)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    if (qpnic_handle_add(cq, QPNIC_H_CQ) != 0) {
        free(cq);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    cq->ad = ad;
    cq->log_depth = log;
    cq->fn = fn;
    cq->fn_ctx = fn_ctx;
    atomic_init(&cq->overrun, 0);

    pthread_mutex_lock(&ad->lock);
    int cqn = free_slot((void **)ad->cqs, ad->num_cq);
    ndk_status st = cqn < 0 ? NDK_STATUS_INSUFFICIENT_RESOURCES
                            : qpnic_dma_buf_alloc(ad, (uint64_t)QPNIC_CQE_BYTES << log,
                                                  QPNIC_RANGE_WRITE, &cq->ring);
    if (st == NDK_STATUS_SUCCESS) {
        /* A new generation: the firmware forgets the number's old arm (its
         * RESET event) and notifications earned before carry the old one. */
        cq->cqn = (uint32_t)cqn;
        cq->gen = ad->cq_gen[cqn]++;
        st = cq_program(ad, cq);
        if (st != NDK_STATUS_SUCCESS)
            qpnic_dma_buf_free(ad, &cq->ring);
    }
    if (st == NDK_STATUS_SUCCESS) {
        ad->cqs[cqn] = cq;
        ad->live_objects++;
    }
    pthread_mutex_unlock(&ad->lock);
    if (st != NDK_STATUS_SUCCESS) {
        qpnic_handle_del(cq);
        free(cq);
        return st;
    }
    *out = cq;
    return NDK_STATUS_SUCCESS;
}

uint32_t ndk_cq_depth(const ndk_cq *cq)
{
    return qpnic_handle_live(cq, QPNIC_H_CQ) ? 1u << cq->log_depth : 0;
}

ndk_status ndk_destroy_cq(ndk_cq *cq)
{
    if (!qpnic_handle_live(cq, QPNIC_H_CQ))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = cq->ad;
    pthread_mutex_lock(&ad->lock);
    if (cq->refs != 0) {
        pthread_mutex_unlock(&ad->lock);
        return NDK_STATUS_DEVICE_BUSY; /* V10: a QP still reports to it */
    }
    ad->cqs[cq->cqn] = NULL; /* no callback can start for it now */
    qpnic_handle_del(cq);    /* nor can a call begin with it */
    qpnic_zombies_drop(ad, cq); /* their completions in it go with it */
    pthread_mutex_unlock(&ad->lock);
    qpnic_event_quiesce_cq(ad, cq);
    qpnic_cq_release_waiters(cq);

    pthread_mutex_lock(&ad->lock);
    uint32_t state;
    (void)qpnic_reg_write_locked(ad, QPNIC_CQREG(cq->cqn, CFG), 0);
    /* Read back: the disable has reached the NIC before the ring is reused. */
    (void)qpnic_reg_read_locked(ad, QPNIC_CQREG(cq->cqn, STATE), &state);
    qpnic_dma_buf_free(ad, &cq->ring);
    ad->live_objects--;
    pthread_mutex_unlock(&ad->lock);
    free(cq);
    return NDK_STATUS_SUCCESS;
}

/* ---- queue pairs ---- */

/* V6: round a requested depth up to a power of two (at least 2); 0 when
 * above the device's limit. */
static uint32_t grant_log_depth(uint32_t want, uint32_t log_max)
{
    if (want > (1u << log_max))
        return 0;
    return qpnic_log2_ceil(want);
}

static ndk_status qp_check_args(ndk_pd *pd, ndk_cq *rcq, ndk_cq *scq, const ndk_qp_attr *attr,
                                ndk_qp **out)
{
    if (!qpnic_handle_live(pd, QPNIC_H_PD) || !qpnic_handle_live(rcq, QPNIC_H_CQ) ||
        !qpnic_handle_live(scq, QPNIC_H_CQ) || !attr || !out)
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = pd->ad;
    if (rcq->ad != ad || scq->ad != ad)
        return NDK_STATUS_INVALID_PARAMETER;
    if (attr->max_sge > ad->max_sge || attr->max_inline > ad->max_inline)
        return NDK_STATUS_INVALID_PARAMETER; /* V6: above the device's limits */
    if (!grant_log_depth(attr->sq_depth, ad->log_max_qp_depth) ||
        !grant_log_depth(attr->rq_depth, ad->log_max_qp_depth))
        return NDK_STATUS_INVALID_PARAMETER;
    return NDK_STATUS_SUCCESS;
}

static ndk_status qp_program(ndk_adapter *ad, ndk_qp *qp)
{
    uint32_t n = qp->idx;
    uint32_t cfg = QPNIC_FIELD(QPNIC_QP_CFG_SQ_LOG, qp->sq_log) |
                   QPNIC_FIELD(QPNIC_QP_CFG_RQ_LOG, qp->rq_log) |
                   QPNIC_FIELD(QPNIC_QP_CFG_SEND_CQ, qp->scq->cqn) |
                   QPNIC_FIELD(QPNIC_QP_CFG_RECV_CQ, qp->rcq->cqn);
    const struct {
        uint32_t reg, val;
    } seq[] = {
        { QPNIC_QPREG(n, SQ_BASE_LO), (uint32_t)qp->sq.dev },
        { QPNIC_QPREG(n, SQ_BASE_HI), (uint32_t)(qp->sq.dev >> 32) },
        { QPNIC_QPREG(n, RQ_BASE_LO), (uint32_t)qp->rq.dev },
        { QPNIC_QPREG(n, RQ_BASE_HI), (uint32_t)(qp->rq.dev >> 32) },
        { QPNIC_QPREG(n, CFG), cfg },
        { QPNIC_QPREG(n, QPN), qp->qpn },
        { QPNIC_QPREG(n, PD), qp->pd->id },
        { QPNIC_QPREG(n, RNR_RETRY), QPNIC_FIELD(QPNIC_QP_RNR_RETRY, NDK_RNR_RETRY_DEFAULT) },
        { QPNIC_QPREG(n, STATE), QPNIC_QP_STATE_RESET }, /* zeroes its indices */
    };
    ndk_status st = NDK_STATUS_SUCCESS;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0] && st == NDK_STATUS_SUCCESS; i++)
        st = qpnic_reg_write_locked(ad, seq[i].reg, seq[i].val);
    return st;
}

static void qp_free_memory(ndk_adapter *ad, ndk_qp *qp)
{
    qpnic_dma_buf_free(ad, &qp->sq);
    qpnic_dma_buf_free(ad, &qp->rq);
    free(qp->sq_ctx);
    free(qp->rq_ctx);
    free(qp->sq_silent);
    free(qp);
}

/* ---- destroyed QPs whose completions are still to be taken ----
 * A destroyed QP's flushed requests complete on its CQs after the destroy
 * returned; the QP stays on ad->zombies (its rings freed, its request
 * contexts kept) so that those completions still carry its contexts, until
 * the last is taken or its CQ goes. Its table index already serves the next
 * QP: the number's generation tells the two apart. */

static int zombie_done(ndk_qp *qp)
{
    return atomic_load(&qp->sq_ci) == qp->sq_rung && atomic_load(&qp->rq_ci) == qp->rq_pi;
}

static void zombie_unlink(ndk_adapter *ad, ndk_qp *qp)
{
    for (ndk_qp **p = &ad->zombies; *p; p = &(*p)->next_zombie)
        if (*p == qp) {
            *p = qp->next_zombie;
            break;
        }
    qp_free_memory(ad, qp); /* its rings went at the destroy */
}

ndk_qp *qpnic_qp_by_num(ndk_adapter *ad, uint32_t qpn)
{
    uint32_t idx = qpn & QPNIC_QP_NUM_INDEX_MASK;
    ndk_qp *qp = idx < ad->num_qp ? ad->qps[idx] : NULL;
    if (qp && qp->qpn == qpn)
        return qp;
    for (qp = ad->zombies; qp; qp = qp->next_zombie)
        if (qp->qpn == qpn)
            return qp;
    return NULL;
}

void qpnic_zombie_retired(ndk_adapter *ad, ndk_qp *qp)
{
    uint32_t idx = qp->idx;
    if (ad->qps[idx] != qp && zombie_done(qp))
        zombie_unlink(ad, qp);
}

void qpnic_zombies_drop(ndk_adapter *ad, const ndk_cq *cq)
{
    ndk_qp *qp = ad->zombies;
    while (qp) {
        ndk_qp *next = qp->next_zombie;
        /* its completions in cq go with cq; those in its other CQ are
         * still to be taken with their contexts */
        if (qp->rcq == cq)
            qp->rcq = NULL;
        if (qp->scq == cq)
            qp->scq = NULL;
        if (!cq || (!qp->rcq && !qp->scq))
            zombie_unlink(ad, qp);
        qp = next;
    }
}

/* Rings, contexts, a QP number; the NIC programmed. Under ad->lock. */
static ndk_status qp_setup_locked(ndk_adapter *ad, ndk_qp *qp)
{
    int idx = free_slot((void **)ad->qps, ad->num_qp);
    if (idx < 0)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    /* A new generation each time the index is handed out: packets and
     * completions of the QP that had it before never match this one.
     * Generation 0 is never used, so no QP number is below 256: QP
     * numbers 0 and 1 are InfiniBand's management QPs (SMI, GSI), and a
     * RoCEv2 peer or Wireshark takes their packets for MADs (docs/wire.md). */
    qp->idx = (uint32_t)idx;
    if (ad->qp_gen[idx] == 0)
        ad->qp_gen[idx] = 1;
    uint32_t gen = ad->qp_gen[idx]++;
    qp->qpn = QPNIC_FIELD(QPNIC_QP_NUM_INDEX, (uint32_t)idx) | QPNIC_FIELD(QPNIC_QP_NUM_GEN, gen);
    qp->sq_ctx = calloc(1u << qp->sq_log, sizeof *qp->sq_ctx);
    qp->rq_ctx = calloc(1u << qp->rq_log, sizeof *qp->rq_ctx);
    qp->sq_silent = calloc(1u << qp->sq_log, sizeof *qp->sq_silent);
    if (!qp->sq_ctx || !qp->rq_ctx || !qp->sq_silent)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    ndk_status st = qpnic_dma_buf_alloc(ad, (uint64_t)QPNIC_WQE_BYTES << qp->sq_log,
                                        QPNIC_RANGE_READ, &qp->sq);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_dma_buf_alloc(ad, (uint64_t)QPNIC_WQE_BYTES << qp->rq_log,
                                 QPNIC_RANGE_READ, &qp->rq);
    if (st == NDK_STATUS_SUCCESS)
        st = qp_program(ad, qp);
    return st;
}

ndk_status ndk_create_qp(ndk_pd *pd, ndk_cq *receive_cq, ndk_cq *initiator_cq,
                         void *qp_context, ndk_qp_attr *attr, ndk_qp **out)
{
    ndk_status st = qp_check_args(pd, receive_cq, initiator_cq, attr, out);
    if (st != NDK_STATUS_SUCCESS)
        return st;
    ndk_adapter *ad = pd->ad;
    ndk_qp *qp = calloc(1, sizeof *qp);
    if (!qp)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    if (qpnic_handle_add(qp, QPNIC_H_QP) != 0) {
        free(qp);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    qp->ad = ad;
    qp->pd = pd;
    qp->rcq = receive_cq;
    qp->scq = initiator_cq;
    qp->context = qp_context;
    qp->max_sge = attr->max_sge;
    qp->max_inline = ad->max_inline; /* granted whole, whatever was asked (V6) */
    qp->sq_log = grant_log_depth(attr->sq_depth, ad->log_max_qp_depth);
    qp->rq_log = grant_log_depth(attr->rq_depth, ad->log_max_qp_depth);
    atomic_init(&qp->sq_ci, 0);
    atomic_init(&qp->rq_ci, 0);
    atomic_init(&qp->state, QP_HOST_RESET);

    pthread_mutex_lock(&ad->lock);
    st = qp_setup_locked(ad, qp);
    if (st == NDK_STATUS_SUCCESS) {
        ad->qps[qp->idx] = qp;
        ad->live_objects++;
        pd->refs++;
        receive_cq->refs++;
        initiator_cq->refs++;
    }
    if (st != NDK_STATUS_SUCCESS) {
        qpnic_handle_del(qp);
        qp_free_memory(ad, qp);
    }
    pthread_mutex_unlock(&ad->lock);
    if (st != NDK_STATUS_SUCCESS)
        return st;
    /* V6: what was granted */
    attr->sq_depth = 1u << qp->sq_log;
    attr->rq_depth = 1u << qp->rq_log;
    attr->max_inline = qp->max_inline;
    *out = qp;
    return NDK_STATUS_SUCCESS;
}

/* ERROR at the NIC, then the chain DEFER still holds is handed over: the
 * NIC flushes every SQ request it has not executed and every posted
 * receive (CANCELLED, in posting order). Under ad->lock. */
static ndk_status qp_to_error_locked(ndk_adapter *ad, ndk_qp *qp)
{
    ndk_status st = qpnic_reg_write_locked(ad, QPNIC_QPREG(qp->idx, STATE), QPNIC_QP_STATE_ERROR);
    if (st == NDK_STATUS_SUCCESS && qp->sq_pi != qp->sq_rung)
        st = qpnic_ring_sq_locked(qp);
    return st;
}

#define QUIESCE_TIMEOUT_MS 10000

/* One look for qpnic_poll: has the NIC completed every request it was
 * handed for qp? SQ_CI and RQ_CI (the NIC's counts of completed SQ and
 * consumed or flushed RQ WQEs) at the producer counts. In ERROR nothing new
 * starts, so then no DMA for the QP's requests is left. */
static ndk_status qp_quiesced(ndk_adapter *ad, void *arg, int *done)
{
    const ndk_qp *qp = arg;
    uint32_t sq_ci = 0, rq_ci = 0;
    ndk_status st = qpnic_reg_read(ad, QPNIC_QPREG(qp->idx, SQ_CI), &sq_ci);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_read(ad, QPNIC_QPREG(qp->idx, RQ_CI), &rq_ci);
    *done = sq_ci == (qp->sq_rung & HREG_INDEX_MASK) && rq_ci == (qp->rq_pi & HREG_INDEX_MASK);
    return st;
}

static void peer_put_locked(ndk_adapter *ad, uint32_t n);

ndk_status ndk_destroy_qp(ndk_qp *qp)
{
    if (!qpnic_handle_live(qp, QPNIC_H_QP))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = qp->ad;
    pthread_mutex_lock(&ad->lock);
    if (qp->prepared != 0) {
        pthread_mutex_unlock(&ad->lock);
        return NDK_STATUS_DEVICE_BUSY; /* V10: prepared posts still name it */
    }
    /* Flush what it holds (also when it was never connected: receives), wait
     * for the NIC to be done with it, then RESET: the NIC forgets it. On a
     * dead device each step fails at once and the QP is freed all the same. */
    ndk_status st = qp_to_error_locked(ad, qp);
    pthread_mutex_unlock(&ad->lock);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_poll(ad, qp_quiesced, qp, QUIESCE_TIMEOUT_MS);
    if (st == NDK_STATUS_TIMEOUT)
        return NDK_STATUS_DEVICE_BUSY; /* the NIC did not let go: nothing destroyed */
    pthread_mutex_lock(&ad->lock);
    uint32_t state;
    (void)qpnic_reg_write_locked(ad, QPNIC_QPREG(qp->idx, STATE), QPNIC_QP_STATE_RESET);
    /* Read back: the reset has reached the NIC before the rings are reused. */
    (void)qpnic_reg_read_locked(ad, QPNIC_QPREG(qp->idx, STATE), &state);
    ad->qps[qp->idx] = NULL;
    peer_put_locked(ad, qp->peer);
    qp->peer = 0;
    qpnic_handle_del(qp);
    ad->live_objects--;
    qp->pd->refs--;
    qp->rcq->refs--;
    qp->scq->refs--;
    /* its rings go now; its contexts stay while completions are to come */
    if (zombie_done(qp) || atomic_load(&ad->dead)) {
        qp_free_memory(ad, qp);
    } else {
        qpnic_dma_buf_free(ad, &qp->sq);
        qpnic_dma_buf_free(ad, &qp->rq);
        qp->next_zombie = ad->zombies;
        ad->zombies = qp;
    }
    pthread_mutex_unlock(&ad->lock);
    return NDK_STATUS_SUCCESS;
}

ndk_status ndk_query_qp_state(ndk_qp *qp, uint32_t *state)
{
    if (!qpnic_handle_live(qp, QPNIC_H_QP) || !state)
        return NDK_STATUS_INVALID_PARAMETER;
    uint32_t hw = 0;
    ndk_status st = qpnic_reg_read(qp->ad, QPNIC_QPREG(qp->idx, STATE), &hw);
    if (st != NDK_STATUS_SUCCESS)
        return st;
    switch (hw) {
    case QPNIC_QP_STATE_RESET: *state = NDK_QP_STATE_RESET; break;
    case QPNIC_QP_STATE_RTS: *state = NDK_QP_STATE_CONNECTED; break;
    case QPNIC_QP_STATE_ERROR:
        qpnic_qp_mark_error(qp); /* before its completion is polled */
        *state = NDK_QP_STATE_ERROR;
        break;
    default: return NDK_STATUS_INTERNAL_ERROR;
    }
    return NDK_STATUS_SUCCESS;
}

uint32_t ndk_qp_num(const ndk_qp *qp)
{
    return qpnic_handle_live(qp, QPNIC_H_QP) ? qp->qpn : 0;
}

ndk_qp_addr ndk_qp_address(const ndk_qp *qp)
{
    ndk_qp_addr a = { 0, 0 };
    if (qpnic_handle_live(qp, QPNIC_H_QP)) {
        a.node = qp->ad->node;
        a.qp_num = qp->qpn;
    }
    return a;
}

/* The MAC address of a node on the wire: layout NODE_MAC_PREFIX and its
 * IPv4 address (the simulator's network gives NIC n the same, sim/wire.h).
 * A real network would ask ARP; this rule stands in. */
static uint64_t node_mac(uint32_t ip)
{
    return QPNIC_NODE_MAC_PREFIX | ip;
}

/* The peer table entry for the node at ip: the one that names it already,
 * else a free one, written now; 0 when none is free. */
static uint32_t peer_get_locked(ndk_adapter *ad, uint32_t ip, ndk_status *st)
{
    uint32_t free_n = 0;
    for (uint32_t n = 1; n < QPNIC_NUM_PEERS; n++) {
        if (ad->peer_refs[n] && ad->peer_ip[n] == ip) {
            ad->peer_refs[n]++;
            return n;
        }
        if (!ad->peer_refs[n] && !free_n)
            free_n = n;
    }
    if (!free_n) {
        *st = NDK_STATUS_INSUFFICIENT_RESOURCES;
        return 0;
    }
    uint64_t mac = node_mac(ip);
    *st = qpnic_reg_write_locked(ad, QPNIC_PEERREG(free_n, MAC_LO), (uint32_t)mac);
    if (*st == NDK_STATUS_SUCCESS)
        *st = qpnic_reg_write_locked(ad, QPNIC_PEERREG(free_n, MAC_HI), (uint32_t)(mac >> 32));
    if (*st == NDK_STATUS_SUCCESS)
        *st = qpnic_reg_write_locked(ad, QPNIC_PEERREG(free_n, IP), ip);
    if (*st != NDK_STATUS_SUCCESS)
        return 0;
    ad->peer_ip[free_n] = ip;
    ad->peer_refs[free_n] = 1;
    return free_n;
}

/* A QP lets go of its peer table entry; the last one frees it (its address
 * 0: frames from that node are dropped again). */
static void peer_put_locked(ndk_adapter *ad, uint32_t n)
{
    if (n == 0 || n >= QPNIC_NUM_PEERS || ad->peer_refs[n] == 0)
        return;
    if (--ad->peer_refs[n] == 0) {
        ad->peer_ip[n] = 0;
        (void)qpnic_reg_write_locked(ad, QPNIC_PEERREG(n, IP), 0);
    }
}

ndk_status ndk_connect(ndk_qp *qp, ndk_qp_addr remote)
{
    if (!qpnic_handle_live(qp, QPNIC_H_QP))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = qp->ad;
    if (remote.qp_num >= (1u << QPNIC_QPN_BITS))
        return NDK_STATUS_INVALID_PARAMETER;
    /* Another node: a NIC with the wire reaches it by its IPv4 address. Its
     * QPs are not known here; a number of generation 0 is nobody's. */
    /* (a link-local address, 169.254/16, is a NIC on no network that loops
     * its frames to itself: qpnic-sim --wire --net-port 0) */
    bool local = remote.node == ad->node;
    bool networked = ad->wire_ip != 0 && (ad->wire_ip & QPNIC_SIM_LINK_LOCAL_MASK) != QPNIC_SIM_LINK_LOCAL;
    if (!local && (!networked || remote.node == 0 || remote.node > UINT32_MAX ||
                   QPNIC_FIELD_GET(&remote.qp_num, QPNIC_QP_NUM_GEN) == 0))
        return NDK_STATUS_INVALID_PARAMETER;
    uint32_t ridx = remote.qp_num & QPNIC_QP_NUM_INDEX_MASK;
    if (local && ridx >= ad->num_qp)
        return NDK_STATUS_INVALID_PARAMETER;
    pthread_mutex_lock(&ad->lock);
    ndk_status st = NDK_STATUS_SUCCESS;
    if (local && (!ad->qps[ridx] || ad->qps[ridx]->qpn != remote.qp_num))
        st = NDK_STATUS_INVALID_PARAMETER; /* no such QP (or a destroyed one's number) */
    else if (atomic_load(&qp->state) != QP_HOST_RESET)
        st = NDK_STATUS_INVALID_DEVICE_STATE; /* a QP connects once */
    uint32_t peer = 0;
    if (st == NDK_STATUS_SUCCESS && !local)
        peer = peer_get_locked(ad, (uint32_t)remote.node, &st);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_write_locked(ad, QPNIC_QPREG(qp->idx, REMOTE),
                                    QPNIC_FIELD(QPNIC_QP_REMOTE_QPN, remote.qp_num) |
                                        QPNIC_FIELD(QPNIC_QP_REMOTE_PEER, peer));
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_write_locked(ad, QPNIC_QPREG(qp->idx, STATE), QPNIC_QP_STATE_RTS);
    if (st == NDK_STATUS_SUCCESS) {
        qp->peer = peer;
        atomic_store(&qp->state, QP_HOST_RTS);
    } else {
        peer_put_locked(ad, peer);
    }
    pthread_mutex_unlock(&ad->lock);
    return st;
}

_Static_assert(NDK_RNR_RETRY_FOREVER == QPNIC_RNR_RETRY_FOREVER &&
                   NDK_RNR_RETRY_FOREVER < (1u << QPNIC_QP_RNR_RETRY_WIDTH) &&
                   NDK_RNR_RETRY_DEFAULT < NDK_RNR_RETRY_FOREVER,
               "ndk.h's RNR retry values are the layout's");

ndk_status ndk_set_rnr_retry(ndk_qp *qp, uint32_t retries)
{
    if (!qpnic_handle_live(qp, QPNIC_H_QP) || retries > NDK_RNR_RETRY_FOREVER)
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = qp->ad;
    pthread_mutex_lock(&ad->lock);
    ndk_status st = NDK_STATUS_SUCCESS;
    if (atomic_load(&qp->state) != QP_HOST_RESET)
        st = NDK_STATUS_INVALID_DEVICE_STATE; /* the NIC takes it at the connect */
    else
        st = qpnic_reg_write_locked(ad, QPNIC_QPREG(qp->idx, RNR_RETRY),
                                    QPNIC_FIELD(QPNIC_QP_RNR_RETRY, retries));
    pthread_mutex_unlock(&ad->lock);
    return st;
}

ndk_status ndk_disconnect(ndk_qp *qp)
{
    if (!qpnic_handle_live(qp, QPNIC_H_QP))
        return NDK_STATUS_INVALID_PARAMETER;
    ndk_adapter *ad = qp->ad;
    pthread_mutex_lock(&ad->lock);
    int s = atomic_load(&qp->state);
    ndk_status st = NDK_STATUS_SUCCESS;
    if (s != QP_HOST_RTS && s != QP_HOST_ERROR)
        st = NDK_STATUS_INVALID_DEVICE_STATE; /* never connected, or already */
    if (st == NDK_STATUS_SUCCESS)
        st = qp_to_error_locked(ad, qp);
    if (st == NDK_STATUS_SUCCESS)
        atomic_store(&qp->state, QP_HOST_DISCONNECTED);
    pthread_mutex_unlock(&ad->lock);
    return st;
}
