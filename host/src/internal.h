/* internal.h: the driver's objects and the calls between its files.
 *
 * For: the structs behind the opaque handles of qpnic/ndk.h, and the few
 * functions one file of the driver offers another. Not for: anything a
 * program uses (that is qpnic/ndk.h) or how a carrier works (transport.h).
 *
 * Locks, outermost first:
 *   ad->lock     object tables, reference counts, the DMA heap, every
 *                transport call but ntf_wait (so multi-register sequences
 *                such as an MR write are never interleaved); never held
 *                while waiting for the NIC to make progress (a destroy's
 *                quiesce or fence): the NIC may need the event thread to
 *                take notifications first, and that thread takes it;
 *   ad->ev_lock  arm/notification bookkeeping of the CQs and the callback in
 *                progress; never held while calling a callback or taking
 *                ad->lock.
 * Posting on one QP and the CQ calls on one CQ are serialized by the caller
 * (C1), so a QP's producer state and a CQ's consumer index need no lock; the
 * state one side shares with the other (a QP's consumer indices and error
 * flag, which the CQ side updates) is atomic.
 */
#ifndef QPNIC_INTERNAL_H
#define QPNIC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "gen/qpnic_hw.h"
#include "qpnic/ndk.h"
#include "transport.h"

/* ---- dma_alloc.c: first-fit heap over offsets [0, size) ---- */

/* Who holds a block: the driver's rings are never the caller's to free or
 * register, whatever address arithmetic the caller does. */
enum qpnic_heap_owner { QPNIC_HEAP_FREE = 0, QPNIC_HEAP_DRIVER, QPNIC_HEAP_USER };

typedef struct {
    uint64_t off, len;
    int used;            /* enum qpnic_heap_owner */
} qpnic_block;

typedef struct {
    qpnic_block *blocks; /* sorted by off, covering [0, size) without gaps */
    size_t count, cap;
    uint64_t size;
} qpnic_heap;

#define QPNIC_DMA_ALIGN 64u

int qpnic_heap_init(qpnic_heap *h, uint64_t size);
void qpnic_heap_fini(qpnic_heap *h);
/* 0 and *off on success, -1 when no free block fits (len 0: -1). */
int qpnic_heap_alloc(qpnic_heap *h, uint64_t len, enum qpnic_heap_owner owner, uint64_t *off);
/* 0 when off started a live allocation of that owner (now free), -1 otherwise. */
int qpnic_heap_free(qpnic_heap *h, uint64_t off, enum qpnic_heap_owner owner);
/* 0 when [off, off+len) lies inside one live allocation of that owner, -1 otherwise. */
int qpnic_heap_contains(const qpnic_heap *h, uint64_t off, uint64_t len, enum qpnic_heap_owner owner);

/* DMA memory for the driver's own rings: zeroed, with a checker range
 * (QPNIC_RANGE_* perm) entered. Called with ad->lock held. */
typedef struct {
    uint8_t *host;   /* host view */
    uint64_t dev;    /* device address */
    uint64_t bytes;
    int range;       /* checker handle */
} qpnic_dma_buf;

ndk_status qpnic_dma_buf_alloc(ndk_adapter *ad, uint64_t bytes, uint32_t perm,
                               qpnic_dma_buf *out);
void qpnic_dma_buf_free(ndk_adapter *ad, qpnic_dma_buf *b);

/* ---- the objects ---- */

enum qpnic_qp_host_state {
    QP_HOST_RESET,        /* created, not connected: receives only (V8) */
    QP_HOST_RTS,          /* connected */
    QP_HOST_ERROR,        /* a completion failed: posts refused */
    QP_HOST_DISCONNECTED  /* ndk_disconnect: posts refused */
};

struct ndk_adapter {
    qpnic_transport *t;
    pthread_mutex_t lock;

    /* capabilities (CAPS0, CAPS1) */
    uint32_t num_qp, num_cq, num_mr, max_sge, max_inline;
    uint32_t num_pt;       /* page table entries (CAPS3) */
    uint32_t log_max_qp_depth, log_max_cq_depth, fetch_burst_wqes;

    /* the wire (docs/wire.md, "Two NICs"): this NIC's IPv4 address (peer
     * table entry 0; 0 on a NIC without the wire) and its node address
     * (ndk_qp_addr.node: the IPv4 address, else the transport's) */
    uint32_t wire_ip;
    uint64_t node;
    /* peer table entries 1..NUM_PEERS-1: the node each names, and how many
     * QPs are connected to it (0: free; objects.c) */
    uint32_t peer_ip[QPNIC_NUM_PEERS];
    uint32_t peer_refs[QPNIC_NUM_PEERS];

    qpnic_heap heap;       /* over the transport's DMA memory */
    uint32_t live_objects; /* PDs + CQs + QPs + MRs + MWs (V10: close is refused) */
    ndk_qp **qps;          /* [num_qp], by QP number */
    ndk_cq **cqs;          /* [num_cq], by CQ number */
    void **entries;        /* [num_mr] token table entries: the ndk_mr or ndk_mw holding each */
    uint8_t *pt_used;      /* [num_pt] page table entries held by fast-registered regions */
    uint32_t next_tag;     /* token tags, 24 bits, never 0 */
    uint32_t next_pd;      /* PD numbers, modulo 2^PD_BITS */
    uint16_t *qp_gen;      /* [num_qp]: generation of each index's next QP */
    qpnic_dma_buf ci_recs; /* [num_cq] CQ consumer index records (struct ci_rec) the NIC
                            * reads when a CQ looks full to it (CI_REC; cq.c) */
    uint8_t *cq_gen;       /* [num_cq]: generation of each number's next CQ */
    ndk_qp *zombies;       /* destroyed QPs whose completions are still in CQs */

    /* event.c */
    pthread_t ev_thread;
    int ev_running;
    atomic_int ev_stop;
    atomic_int dead;       /* the device is gone: calls return IO_ERROR */
    _Atomic uint64_t mmio_writes; /* register writes made (ndk_sim_mmio_writes) */
    pthread_mutex_t ev_lock;
    pthread_cond_t ev_cond;
    ndk_cq *cb_cq;         /* the CQ whose callback runs now, or NULL */
    int ev_arm_pending;    /* an arm since the dead device's thread looked */
};

struct ndk_pd {
    ndk_adapter *ad;
    uint32_t id;           /* its number at the NIC (PD_BITS): QPs' and regions' */
    uint32_t refs;         /* QPs and MRs in it */
};

struct ndk_cq {
    ndk_adapter *ad;
    uint32_t cqn;
    uint32_t gen;          /* CFG.gen: its notifications carry it */
    uint32_t log_depth;
    qpnic_dma_buf ring;    /* depth CQEs */
    uint32_t ci;           /* free-running: CQEs taken (C1: caller-serialized) */
    ndk_cq_notification_fn fn;
    void *fn_ctx;
    uint32_t refs;         /* QP references (a QP using it twice counts twice) */
    atomic_int overrun;    /* N8: a BUFFER_OVERFLOW notification arrived */
    /* under ad->ev_lock */
    uint64_t arm_seq;      /* arms made */
    uint64_t ntf_seq;      /* arm_seq when the newest notification was taken */
    ndk_status ntf_status; /* its status */
    uint64_t dead_seq;     /* arm_seq when the device-death callback ran */
    uint32_t waiters;      /* threads inside ndk_wait_cq on it */
    int destroying;        /* ndk_destroy_cq has begun: waiters leave */
};

struct ndk_qp {
    ndk_adapter *ad;
    ndk_pd *pd;
    ndk_cq *rcq, *scq;
    void *context;
    uint32_t idx;          /* QP table index (its register block) */
    uint32_t qpn;          /* its number: struct qp_num (index, generation) */
    uint32_t peer;         /* peer table entry of its connected QP's NIC (0: this one) */
    uint32_t max_sge;
    uint32_t max_inline;   /* inline bytes a request may carry (ndk_qp_attr, granted) */
    uint32_t sq_log, rq_log;
    qpnic_dma_buf sq, rq;
    void **sq_ctx, **rq_ctx;  /* request contexts by ring slot */
    uint8_t *sq_silent;    /* by ring slot: SQ_SILENT_* (no CQE will free it) */
    uint32_t prepared;     /* live prepared posts on it (under ad->lock) */
    /* producer side (caller-serialized posting) */
    uint32_t sq_pi;        /* WQEs written */
    uint32_t sq_rung;      /* SQ_PI last written to the doorbell (D1, D5) */
    uint32_t rq_pi;
    /* shared with the CQ side */
    _Atomic uint32_t sq_ci; /* SQ WQEs whose completion was retrieved */
    _Atomic uint32_t rq_ci;
    atomic_int state;      /* enum qpnic_qp_host_state */
    ndk_qp *next_zombie;   /* destroyed: ad->zombies list (objects.c) */
};

/* The newest FAST_REG or BIND naming an MR or MW: its QP's number and its
 * SQ index. Until the NIC has executed or flushed it, a destroy of the
 * object waits (the WQE would write the token table entry again). */
typedef struct {
    int set;
    uint32_t qpn;
    uint32_t index;        /* the host's free-running sq_pi of the WQE */
} qpnic_sq_op;

struct ndk_mr {
    ndk_adapter *ad;
    ndk_pd *pd;
    int registered;
    uint32_t idx;          /* token table entry */
    uint32_t lkey, rkey;
    int *ranges;           /* checker handles: one for a registered region, one per run
                            * of adjacent pages for a fast-registered one */
    uint32_t nranges;
    uint32_t pt_first;     /* a fast-registered region's page table entries: */
    uint32_t pt_count;     /* [pt_first, pt_first + pt_count); pt_count 0 otherwise */
    uint64_t va;           /* its SGE addresses: [va, va + len) */
    uint32_t len;
    uint32_t access;       /* enum mr_access bits */
    uint32_t windows;      /* memory windows bound to it (destroy refused while any) */
    qpnic_sq_op last_op;   /* its newest FastRegister */
};

struct ndk_mw {
    ndk_adapter *ad;
    ndk_pd *pd;
    uint32_t idx;          /* token table entry, held from create to destroy */
    uint32_t rkey;         /* its remote token: a fresh one with each bind */
    ndk_mr *mr;            /* the region it was last bound to, NULL before */
    qpnic_sq_op last_op;   /* its newest Bind */
};

/* ---- handles.c: live handles ---- */

/* The kinds of handle the public API takes. Every public call checks its
 * handles with qpnic_handle_live first: NULL, destroyed, closed or of
 * another kind is INVALID_PARAMETER (0 from calls that return a number). */
enum qpnic_handle_kind {
    QPNIC_H_ADAPTER = 1,
    QPNIC_H_PD,
    QPNIC_H_CQ,
    QPNIC_H_QP,
    QPNIC_H_MR,
    QPNIC_H_MW,
    QPNIC_H_PREPARED
};
/* Enter p (a create succeeded); -1 when out of memory (then fail the create). */
int qpnic_handle_add(const void *p, enum qpnic_handle_kind kind);
/* Take p out (its destroy succeeded), before its memory is freed. */
void qpnic_handle_del(const void *p);
/* 1 when p is a live handle of that kind. */
int qpnic_handle_live(const void *p, enum qpnic_handle_kind kind);

/* ---- adapter.c ---- */

/* Open an adapter over an already opened transport (ndk_open_adapter does
 * this for "sim"; the unit tests for a fake). On failure the transport is
 * closed. */
ndk_status qpnic_adapter_open_on(qpnic_transport *t, ndk_adapter **out);

/* A bounded wait for the NIC: call look() (one register look, taking
 * ad->lock per access) every 50 us until it sets *done; SUCCESS then, its
 * failure if it fails, TIMEOUT after timeout_ms. Called without ad->lock:
 * the NIC's progress may need the event thread, which takes it. */
typedef ndk_status (*qpnic_look_fn)(ndk_adapter *ad, void *arg, int *done);
ndk_status qpnic_poll(ndk_adapter *ad, qpnic_look_fn look, void *arg, int timeout_ms);

/* Register access under ad->lock (the _locked forms: caller holds it). */
ndk_status qpnic_reg_write(ndk_adapter *ad, uint32_t addr, uint32_t val);
ndk_status qpnic_reg_read(ndk_adapter *ad, uint32_t addr, uint32_t *val);
ndk_status qpnic_reg_write_locked(ndk_adapter *ad, uint32_t addr, uint32_t val);
ndk_status qpnic_reg_read_locked(ndk_adapter *ad, uint32_t addr, uint32_t *val);

/* ---- event.c ---- */

ndk_status qpnic_event_start(ndk_adapter *ad);
void qpnic_event_stop(ndk_adapter *ad);
/* Handle one notification word (the event thread's body; tests call it). */
void qpnic_event_deliver(ndk_adapter *ad, uint32_t word);
/* destroy_cq: wait until no callback of cq runs (unless this thread is in
 * it). Called without ad->lock, after cq left the table. */
void qpnic_event_quiesce_cq(ndk_adapter *ad, ndk_cq *cq);
/* Is the calling thread the event thread? */
int qpnic_event_on_thread(ndk_adapter *ad);
/* The link to the device failed: every later call that needs the device
 * returns IO_ERROR, waiters wake, and the event thread gives every armed CQ
 * its callback with INTERNAL_ERROR (and every later arm too). Any thread,
 * any lock held. */
void qpnic_event_device_died(ndk_adapter *ad);

/* ---- objects.c ---- */

/* The QP a CQE of QP number qpn belongs to: the live one, or a destroyed
 * one whose completions are not all taken yet; NULL if neither. Under
 * ad->lock. */
ndk_qp *qpnic_qp_by_num(ndk_adapter *ad, uint32_t qpn);
/* A completion of a destroyed QP was taken: free it once it has none left. */
void qpnic_zombie_retired(ndk_adapter *ad, ndk_qp *qp);
/* destroy_cq: the destroyed QPs that report to cq lose it, and those left
 * with no CQ are freed; cq NULL (close): all are freed. Under ad->lock. */
void qpnic_zombies_drop(ndk_adapter *ad, const ndk_cq *cq);

/* ---- mr.c: token table entries, shared with mw.c ---- */

/* The two families of rights flags: NDK_MR_FLAG_* (ndk_register_mr) and
 * NDK_OP_FLAG_ALLOW_* (ndk_fast_register, ndk_bind). In both, as in
 * ndkpi.h, ALLOW_REMOTE_WRITE includes ALLOW_LOCAL_WRITE. */
typedef struct {
    uint32_t local_write, remote_read, remote_write;
} qpnic_rights;
extern const qpnic_rights qpnic_mr_rights, qpnic_op_rights;
/* The NIC's mr_access bits of flags (remote write when all its bits are
 * set). */
uint32_t qpnic_rights_access(uint32_t flags, const qpnic_rights *r);
/* Remote write's own bit without local write's: malformed
 * (INVALID_PARAMETER in every call that takes rights). */
int qpnic_rights_malformed(uint32_t flags, const qpnic_rights *r);

/* A free token table entry for owner (an ndk_mr or ndk_mw) in *idx;
 * INSUFFICIENT_RESOURCES when none is left. Under ad->lock. */
ndk_status qpnic_entry_take_locked(ndk_adapter *ad, void *owner, uint32_t *idx);
/* Give entry idx back (the NIC's copy must be invalid). Under ad->lock. */
void qpnic_entry_free_locked(ndk_adapter *ad, uint32_t idx);
/* MR_CMD GRANT: what the SQ may write into entry idx, for a QP of PD pd.
 * A region to be fast-registered: the page table run [first, first +
 * pages) (pages 0: nothing); a window (window != 0): BINDs. The NIC
 * refuses any other FAST_REG or BIND (BAD_WQE): one written into an SQ by
 * anyone but this driver reaches no page and no entry it was not given.
 * Under ad->lock. */
ndk_status qpnic_grant_locked(ndk_adapter *ad, uint32_t idx, uint32_t pd, int window, uint32_t first,
                              uint32_t pages);
/* A token for entry idx that no earlier token of it equals. Under ad->lock. */
uint32_t qpnic_token_locked(ndk_adapter *ad, uint32_t idx);
/* Remember that the WQE qp posted last names this object (call right
 * after its successful qpnic_post_wqe; posting is caller-serialized). */
void qpnic_sq_op_note(qpnic_sq_op *op, const ndk_qp *qp);
/* Before a destroy: if op's WQE may still be in its SQ, hand it over if it
 * is held (DEFER) and wait until the NIC's SQ_CI has passed it (executed,
 * or flushed in ERROR): SUCCESS, or DEVICE_BUSY after 10 s. Without
 * ad->lock. */
ndk_status qpnic_sq_op_wait(ndk_adapter *ad, qpnic_sq_op *op);
/* Invalidate entry idx at the NIC at once, then wait for the fence (DMA
 * whose check passed before finishes): SUCCESS, or DEVICE_BUSY after 10 s.
 * Without ad->lock. */
ndk_status qpnic_entry_kill(ndk_adapter *ad, uint32_t idx);

/* ---- post.c ---- */

/* Post an encoded SQ WQE w (QPNIC_WQE_WORDS): the QP's state and room, the
 * ring, the doorbell unless DEFER (D1/D2); an inline failure hands over the
 * held chain first (D5). For requests encoded elsewhere (FastRegister). */
ndk_status qpnic_post_wqe(ndk_qp *qp, void *ctx, const uint32_t *w, uint32_t flags);
/* The same for a request of `slots` consecutive slots (an INLINE request
 * and its INLINE_DATA slots: the first gets ctx; the others no completion
 * of their own, retired like silent successes). */
ndk_status qpnic_post_wqes(ndk_qp *qp, void *ctx, const uint32_t *w, uint32_t slots, uint32_t flags);
/* An initiator call failing inline before it got that far: D5, then the
 * failure. */
ndk_status qpnic_post_fail(ndk_qp *qp, ndk_status failure);
/* The doorbell for every SQ WQE written so far (release fence first).
 * Under ad->lock. */
ndk_status qpnic_ring_sq_locked(ndk_qp *qp);

/* ---- wqe.c ---- */

/* Encode a WQE into w[QPNIC_WQE_WORDS] (zeroing the rest). flags are the
 * request's NDK_OP_FLAG_* (the low 16 bits travel). */
void qpnic_wqe_encode(uint32_t *w, uint32_t opcode, uint32_t flags,
                      const ndk_sge *sgl, uint32_t nsge, uint32_t rtoken, uint64_t rva);
/* An INLINE request (SEND, SEND_INV, WRITE; the SGEs' bytes, at most
 * MAX_INLINE_BYTES, copied now from their addresses) into w: its WQE
 * (struct wqe_inline), then as many INLINE_DATA slots as the rest needs;
 * returns the slots used, 1 + at most INLINE_DATA_SLOTS (w holds
 * QPNIC_WQE_WORDS words per slot). */
uint32_t qpnic_wqe_encode_inline(uint32_t *w, uint32_t opcode, uint32_t flags, const ndk_sge *sgl,
                                 uint32_t nsge, uint32_t rtoken, uint64_t rva);
#define QPNIC_INLINE_MAX_SLOTS (1 + QPNIC_INLINE_DATA_SLOTS)

/* ---- cq.c ---- */

/* The ndk_status of a CQE status code. */
ndk_status qpnic_cqe_status(uint32_t cqe_status);
/* The ndk_status of a notification status code. */
ndk_status qpnic_ntf_status(uint32_t ntf_status);

/* destroy_cq: every thread in ndk_wait_cq on cq returns CANCELLED; returns
 * once the last has left. Without ad->lock. */
void qpnic_cq_release_waiters(ndk_cq *cq);
/* Open: the CQs' consumer index records (struct ci_rec), and CI_REC. */
ndk_status qpnic_ci_recs_init(ndk_adapter *ad);
/* CQ cqn's record says the host has taken ci CQEs (free-running). */
void qpnic_ci_rec_store(ndk_adapter *ad, uint32_t cqn, uint32_t ci);

/* ---- small helpers ---- */

/* Milliseconds since *start (CLOCK_MONOTONIC), for the driver's bounded
 * waits on the NIC (QP quiesce, MR fence). */
static inline long qpnic_ms_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/* The mirror of the NIC's QP state machine learns of an ERROR the NIC met
 * (an error completion, a query): RESET or RTS become ERROR; DISCONNECTED
 * (the host's own ERROR) stays. */
static inline void qpnic_qp_mark_error(ndk_qp *qp)
{
    int rts = QP_HOST_RTS, reset = QP_HOST_RESET;
    if (!atomic_compare_exchange_strong(&qp->state, &rts, QP_HOST_ERROR))
        atomic_compare_exchange_strong(&qp->state, &reset, QP_HOST_ERROR);
}

/* log2 of the smallest power of two >= max(v, 2). */
static inline uint32_t qpnic_log2_ceil(uint32_t v)
{
    uint32_t l = 1;
    while (l < 31 && (1u << l) < v)
        l++;
    return l;
}

#endif
