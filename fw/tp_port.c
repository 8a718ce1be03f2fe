/* fw/tp_port.c: the transport's port (fw/transport.h) on the soft core: the
 * transport port's registers (layout tpregs, rtl/qpnic_fw_transport.v).
 *
 * For: the firmware partition's image only (fw/fw.mk builds it with
 * QPNIC_FW_TRANSPORT). Each function is one or a few register accesses; a
 * write that starts something returns when the hardware is done with it,
 * so nothing here polls.
 * Not for: deciding anything (fw/transport.c).
 */
#include "transport.h"

static uint32_t tp_rd(uint32_t offset)
{
    return *(volatile uint32_t *)(QPNIC_TP_IO_BASE + offset);
}

static void tp_wr(uint32_t offset, uint32_t value)
{
    *(volatile uint32_t *)(QPNIC_TP_IO_BASE + offset) = value;
}

void tp_qp(uint32_t op, uint32_t qpn, uint32_t arg, uint32_t *ctx)
{
    tp_wr(QPNIC_TPREG_QP_ARG, arg);
    tp_wr(QPNIC_TPREG_QP_CMD, QPNIC_FIELD(QPNIC_TP_QP_CMD_OP, op) | QPNIC_FIELD(QPNIC_TP_QP_CMD_QPN, qpn));
    if (ctx)
        for (uint32_t i = 0; i < QPNIC_QP_CTX_WORDS; i++)
            ctx[i] = tp_rd(QPNIC_TPREG_CTX + 4 * i);
}

bool tp_check(const struct tp_range *r, uint32_t cmd)
{
    tp_wr(QPNIC_TPREG_CHK_TOKEN, r->token);
    tp_wr(QPNIC_TPREG_CHK_VA_LO, r->va_lo);
    tp_wr(QPNIC_TPREG_CHK_VA_HI, r->va_hi);
    tp_wr(QPNIC_TPREG_CHK_LEN, r->len);
    tp_wr(QPNIC_TPREG_CHK_CMD, cmd);
    const uint32_t got[QPNIC_TP_RESULT_WORDS] = { tp_rd(QPNIC_TPREG_RESULT) };
    return QPNIC_FIELD_IS(got, QPNIC_TP_RESULT_OK, 1);
}

/* Wait until none of RESULT's busy bits in mask is set; returns RESULT.
 * What is waited for may wait for this core: a move or a ring read for the
 * host's DMA data, which over a board's link comes behind the host's MMIO,
 * among which an ARM doorbell waits for an event to be popped; a CQE for
 * the writer, which takes it only once it can queue the CQE's event. So
 * the core pops events while it waits. */
static uint32_t wait_done(uint32_t mask)
{
    for (;;) {
        uint32_t got = tp_rd(QPNIC_TPREG_RESULT);
        if ((got & mask) == 0)
            return got;
        tp_service_events();
    }
}

uint32_t tp_move(uint32_t len, uint32_t src, uint32_t dst)
{
    tp_wr(QPNIC_TPREG_MOVE, QPNIC_FIELD(QPNIC_TP_MOVE_LEN, len) | QPNIC_FIELD(QPNIC_TP_MOVE_SRC, src) |
                                QPNIC_FIELD(QPNIC_TP_MOVE_DST, dst));
    const uint32_t got[QPNIC_TP_RESULT_WORDS] = { wait_done(QPNIC_FIELD(QPNIC_TP_RESULT_DMA_BUSY, 1)) };
    return QPNIC_FIELD_GET(got, QPNIC_TP_RESULT_MOVED);
}

void tp_win_close(void)
{
    tp_wr(QPNIC_TPREG_WIN_CLOSE, 1);
}

void tp_ring_read(uint32_t lo, uint32_t hi, uint32_t *wqe)
{
    tp_wr(QPNIC_TPREG_CHK_VA_LO, lo);
    tp_wr(QPNIC_TPREG_CHK_VA_HI, hi);
    tp_wr(QPNIC_TPREG_RING_RD, 1);
    (void)wait_done(QPNIC_FIELD(QPNIC_TP_RESULT_DMA_BUSY, 1));
    for (uint32_t i = 0; i < QPNIC_WQE_WORDS; i++)
        wqe[i] = tp_rd(QPNIC_TPREG_WQE + 4 * i);
}

/* The CQE writer takes a CQE only when it can queue its event, and only
 * this core pops events: wait for it popping them, or both would wait. */
void tp_cqe(uint32_t cqn, const uint32_t *cqe)
{
    (void)wait_done(QPNIC_FIELD(QPNIC_TP_RESULT_CQE_BUSY, 1));
    tp_wr(QPNIC_TPREG_CQE_W0, cqe[0]);
    tp_wr(QPNIC_TPREG_CQE_W1, cqe[1]);
    tp_wr(QPNIC_TPREG_CQE_W2, cqe[2]);
    tp_wr(QPNIC_TPREG_CQE_W3, cqe[3]);
    tp_wr(QPNIC_TPREG_CQE_PUSH, cqn);
    (void)wait_done(QPNIC_FIELD(QPNIC_TP_RESULT_CQE_BUSY, 1));
}

void tp_grant(uint32_t idx, uint32_t *grant)
{
    tp_wr(QPNIC_TPREG_GRANT_SEL, idx);
    grant[0] = tp_rd(QPNIC_TPREG_GRANT0);
    grant[1] = tp_rd(QPNIC_TPREG_GRANT1);
    grant[2] = tp_rd(QPNIC_TPREG_GRANT2);
}

void tp_fr(uint32_t idx, const struct tp_range *r, uint32_t dma_lo, uint32_t dma_hi, bool from_win,
           uint32_t rkey, uint32_t w7)
{
    tp_wr(QPNIC_TPREG_CHK_TOKEN, r->token);
    tp_wr(QPNIC_TPREG_CHK_VA_LO, r->va_lo);
    tp_wr(QPNIC_TPREG_CHK_VA_HI, r->va_hi);
    tp_wr(QPNIC_TPREG_CHK_LEN, r->len);
    tp_wr(QPNIC_TPREG_FR_DMA_LO, dma_lo);
    tp_wr(QPNIC_TPREG_FR_DMA_HI, dma_hi);
    tp_wr(QPNIC_TPREG_FR_RKEY, rkey);
    tp_wr(QPNIC_TPREG_FR_W7, w7);
    tp_wr(QPNIC_TPREG_FR_CMD, QPNIC_FIELD(QPNIC_TP_FR_IDX, idx) | QPNIC_FIELD(QPNIC_TP_FR_FROM_WIN, from_win ? 1u : 0u));
}

void tp_count(uint32_t bits)
{
    tp_wr(QPNIC_TPREG_COUNT, bits);
}

uint32_t tp_cycles(void)
{
    return *(volatile uint32_t *)(QPNIC_FW_IO_BASE + QPNIC_FWREG_CYCLES);
}

/* One step of the transport, between events: the receive flush queue
 * first (the responder serves it between packets), then one fetched WQE,
 * then the RNR timers; tells the hardware whether anything is left. */
void tp_poll(void)
{
    const uint32_t fl[QPNIC_TP_FLUSH_WORDS] = { tp_rd(QPNIC_TPREG_FLUSH_POP) };
    if (QPNIC_FIELD_IS(fl, QPNIC_TP_FLUSH_VALID, 1))
        tp_flush_receives(QPNIC_FIELD_GET(fl, QPNIC_TP_FLUSH_QPN));

    const uint32_t info[QPNIC_TP_WQE_WORDS] = { tp_rd(QPNIC_TPREG_WQE_INFO) };
    if (QPNIC_FIELD_IS(info, QPNIC_TP_WQE_VALID, 1)) {
        struct tp_sq_wqe q;
        q.qpn = QPNIC_FIELD_GET(info, QPNIC_TP_WQE_QPN);
        q.index = QPNIC_FIELD_GET(info, QPNIC_TP_WQE_INDEX);
        q.epoch = QPNIC_FIELD_GET(info, QPNIC_TP_WQE_EPOCH);
        for (uint32_t i = 0; i < QPNIC_WQE_WORDS; i++)
            q.w[i] = tp_rd(QPNIC_TPREG_WQE + 4 * i);
        tp_execute(&q);
        tp_wr(QPNIC_TPREG_WQE_POP, 1);
    }
    tp_wr(QPNIC_TPREG_IDLE, tp_timers(tp_cycles()) ? 0 : 1);
}
