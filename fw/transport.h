/* fw/transport.h: the transport of the firmware partition (docs/partitions.md).
 *
 * For: what rtl/qpnic_requester.v, qpnic_responder.v and qpnic_completer.v
 * do in the hardware partition, done in C on the soft core: each fetched SQ
 * WQE is decoded, checked, executed against its connected QP (the loopback:
 * both QPs are this NIC's) and completed, one at a time, in SQ order.
 * Not for: anything the hardware keeps in that partition (doorbells, WQE
 * fetch, the QP, CQ and token tables, the DMA mover, the CQE writer); the
 * transport reaches those only through the port below.
 *
 * The port is a handful of functions: fw/tp_port.c implements them with the
 * transport port's registers (rtl/qpnic_fw_transport.v), and
 * tests/fw/test_transport.c with a model of the NIC, so that the transport
 * is unit-tested on the host like the arm policy (fw/arm_policy.c).
 */
#ifndef QPNIC_FW_TRANSPORT_H
#define QPNIC_FW_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "qpnic_fw_hw.h"

/* ---- the port: what the transport asks of the hardware ------------------ */

/* One qpnic_qp_table operation (enum qp_op) on QP qpn with arg. For an
 * answered one (READ, FETCH, PSN, RQ_FLUSH, REWIND, RSP_SEQ) the context as
 * it was before the operation lands in ctx (QP_CTX_WORDS words); ctx may be
 * NULL for the others. */
void tp_qp(uint32_t op, uint32_t qpn, uint32_t arg, uint32_t *ctx);

/* A range to check: token, virtual address, length. */
struct tp_range {
    uint32_t token;
    uint32_t va_lo, va_hi;
    uint32_t len;
};

/* Check r against the token table with cmd (struct tp_chk: need, remote,
 * inval, win, pd); true when it passed, and then (unless inval) window
 * cmd.win is open on the range, until tp_win_close. With the ring bit, no
 * check: the window opens on r's address as a device address. */
bool tp_check(const struct tp_range *r, uint32_t cmd);

/* Move up to len bytes (1..MAX_DMA_BYTES) from window src to window dst;
 * returns the bytes moved (cut at a page boundary of either window), 0
 * when refused. */
uint32_t tp_move(uint32_t len, uint32_t src, uint32_t dst);

/* Close every window. */
void tp_win_close(void);

/* Read the WQE_BYTES at device address lo/hi (an RQ WQE) into wqe[16]. */
void tp_ring_read(uint32_t lo, uint32_t hi, uint32_t *wqe);

/* Write CQE cqe[4] (struct cqe, phase bit the writer's) to CQ cqn; returns
 * once the CQE writer took it. Meanwhile it pops and handles firmware
 * events (tp_service_events): the writer may be waiting for that. */
void tp_cqe(uint32_t cqn, const uint32_t *cqe);

/* Pop and handle at most one firmware event (fw/main.c): called while the
 * transport waits for the CQE writer. */
void tp_service_events(void);

/* The grant word of token entry idx (struct tp_grant, 3 words): what a
 * FAST_REG or BIND of that entry may write (MR_CMD GRANT, GRANT_WINDOW). */
void tp_grant(uint32_t idx, uint32_t *grant);

/* Write token table entry idx: va, len and lkey from r (va_lo/hi, len,
 * token), rkey, struct mr_ctx word 7, and the device address dma_lo/hi, or
 * with from_win window 0's (where a BIND's SGE 0, checked into window 0,
 * starts). */
void tp_fr(uint32_t idx, const struct tp_range *r, uint32_t dma_lo, uint32_t dma_hi, bool from_win,
           uint32_t rkey, uint32_t w7);

/* Pulse counters: TP_COUNT_DROP, TP_COUNT_RNR. */
#define TP_COUNT_DROP 1u
#define TP_COUNT_RNR  2u
void tp_count(uint32_t bits);

/* The soft core's cycle counter (low word). */
uint32_t tp_cycles(void);

/* ---- the transport ------------------------------------------------------- */

/* A fetched SQ WQE: its QP, SQ index, epoch and words. */
struct tp_sq_wqe {
    uint32_t qpn;
    uint32_t index;
    uint32_t epoch;
    uint32_t w[QPNIC_WQE_WORDS];
};

/* Execute and complete one fetched SQ WQE. The WQE buffer of the port may
 * be overwritten (RING_RD) during the call: w is the caller's copy. */
void tp_execute(const struct tp_sq_wqe *wqe);

/* Complete FLUSHED every receive posted to QP qpn, which the QP table's
 * flush queue named (in ERROR with receives posted). */
void tp_flush_receives(uint32_t qpn);

/* Wake the QPs whose RNR timer ran out (RNR_WAKE); returns true while a
 * timer still runs (the transport is not idle). now: tp_cycles(). */
bool tp_timers(uint32_t now);

/* Forget every timer (tests). */
void tp_reset(void);

/* One step of the whole transport on the core (fw/tp_port.c): the flush
 * queue, one fetched WQE, the timers, and the port's IDLE. */
void tp_poll(void);

#endif
