/* fw/transport.c: the requester, responder and completer of the firmware
 * partition (docs/partitions.md), one SQ WQE at a time.
 *
 * For: reading beside rtl/qpnic_requester.v (the checks and the order of
 * them), rtl/qpnic_responder.v (the target's checks, the receive, RNR) and
 * rtl/qpnic_completer.v (statuses, the error mark, the RNR rewind): each
 * function below names the RTL it stands for. Both QPs of a message are
 * this NIC's (the firmware partition has no wire), so a message needs no
 * packets: the initiator's checks, the target's checks, the data's move and
 * both completions happen in one call, in that order.
 * Not for: register access (fw/tp_port.c), field positions (the generated
 * fw/gen/qpnic_fw_hw.h), the notification policy (fw/arm_policy.c).
 *
 * Where the hardware partition keeps PSNs, epsn and an outstanding queue to
 * order answers, a sequential transport needs none of them: a message
 * completes before the next WQE is taken, so nothing is ever outstanding,
 * duplicated or out of order. What stays is what the host sees: the same
 * statuses, CQEs, QP states and receive consumption, the RNR retry (the
 * QP table's REWIND and epoch drop the WQEs fetched behind the SEND), and
 * the token fence (a window stays open until the WQE is done).
 */
#include "transport.h"

#define CTX_GET(ctx, F) QPNIC_FIELD_GET(ctx, QPNIC_QP_CTX_##F)
#if QPNIC_MR_CTX_ACCESS_WORD != 7 || QPNIC_MR_CTX_VALID_WORD != 7 || QPNIC_MR_CTX_PD_WORD != 7 || \
    QPNIC_MR_CTX_WINDOW_WORD != 7
#error "TP_FR_W7 is struct mr_ctx word 7: access, valid, pd and window must lie in it"
#endif
#define WQE_GET(w, F)   QPNIC_FIELD_GET(w, QPNIC_##F)

/* how a failed request leaves its QP (the RTL's SET_ERR and COMP_FAIL) */
enum fail { FAIL_NONE, FAIL_LOCAL, FAIL_REMOTE };

/* A source or sink of a message: up to MAX_SGE ranges, range i checked
 * into window win + i with check command cmd[i] (the ring bit: the SQ ring
 * itself). The initiator's local segments are windows 0.., the other
 * side's (the target's range, a receive's SGEs) windows MAX_SGE..: every
 * range is checked once, before any DMA, and its window stays open while
 * the data moves through it, as the hardware partition carries a checked
 * job through a token invalidated meanwhile. */
#define WIN_LOCAL 0u
#define WIN_OTHER QPNIC_MAX_SGE
#if 2 * QPNIC_MAX_SGE > QPNIC_TP_WINDOWS
#error "the transport port has fewer windows than a message's two sides' segments"
#endif
struct segs {
    struct tp_range r[QPNIC_MAX_SGE];
    uint32_t cmd[QPNIC_MAX_SGE];
    uint32_t win;
    uint32_t n;
    uint64_t total;
};

static uint32_t chk_cmd(uint32_t need, bool remote, uint32_t win, uint32_t pd)
{
    return QPNIC_FIELD(QPNIC_TP_CHK_NEED, need) | QPNIC_FIELD(QPNIC_TP_CHK_REMOTE, remote ? 1u : 0u) |
           QPNIC_FIELD(QPNIC_TP_CHK_WIN, win) | QPNIC_FIELD(QPNIC_TP_CHK_PD, pd);
}

/* A WQE's SGEs as a message's segments, each to be checked with need into
 * windows win.. (the requester's SGE list; the responder's for a receive). */
static void sges(const uint32_t *w, uint32_t nsge, uint32_t need, uint32_t win, uint32_t pd,
                 struct segs *s)
{
    s->n = 0;
    s->win = win;
    s->total = 0;
    for (uint32_t i = 0; i < nsge; i++) {
        const uint32_t *g = w + QPNIC_WQE_SGE_WORD + QPNIC_SGE_WORDS * i;
        struct tp_range *r = &s->r[s->n];
        r->va_lo = g[QPNIC_SGE_VA_LO_WORD];
        r->va_hi = g[QPNIC_SGE_VA_HI_WORD];
        r->len = g[QPNIC_SGE_LEN_WORD];
        r->token = g[QPNIC_SGE_TOKEN_WORD];
        if (r->len == 0)
            continue;   /* moves nothing, checked by nobody */
        s->cmd[s->n] = chk_cmd(need, false, win + s->n, pd);
        s->n++;
        s->total += r->len;
    }
}

/* Every segment checked (the RTL's qpnic_sge_check), each opening its
 * window: false on the first that fails. */
static bool check_all(const struct segs *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (!tp_check(&s->r[i], s->cmd[i]))
            return false;
    return true;
}

/* Move bytes from src's segments to dst's, through the windows check_all
 * opened (the RTL's gather and scatter): segment after segment on each
 * side, at most MAX_DMA_BYTES a move. False only when the port refuses a
 * move, which a window checked open and never overrun cannot. */
static bool move(const struct segs *src, const struct segs *dst, uint32_t bytes)
{
    uint32_t si = 0, di = 0, s_left = 0, d_left = 0;

    while (bytes != 0) {
        while (s_left == 0) {
            if (si == src->n)
                return false;
            s_left = src->r[si++].len;
        }
        while (d_left == 0) {
            if (di == dst->n)
                return false;
            d_left = dst->r[di++].len;
        }
        uint32_t n = bytes;
        if (n > s_left)
            n = s_left;
        if (n > d_left)
            n = d_left;
        if (n > QPNIC_MAX_DMA_BYTES)
            n = QPNIC_MAX_DMA_BYTES;
        uint32_t m = tp_move(n, src->win + si - 1, dst->win + di - 1);
        if (m == 0)
            return false;
        s_left -= m;
        d_left -= m;
        bytes -= m;
    }
    return true;
}

/* The device address of SQ slot index of a QP (its ring wraps). */
static uint64_t sq_slot(const uint32_t *ctx, uint32_t index)
{
    uint64_t base = ((uint64_t)CTX_GET(ctx, SQ_BASE_HI) << 32) | CTX_GET(ctx, SQ_BASE_LO);
    uint32_t depth_mask = (1u << CTX_GET(ctx, SQ_LOG)) - 1u;
    return base + (uint64_t)((index & depth_mask) * QPNIC_WQE_BYTES);
}

static void ring_range(struct segs *s, uint64_t at, uint32_t len)
{
    struct tp_range *r = &s->r[s->n];
    r->token = 0;
    r->va_lo = (uint32_t)at;
    r->va_hi = (uint32_t)(at >> 32);
    r->len = len;
    s->cmd[s->n] = QPNIC_FIELD(QPNIC_TP_CHK_RING, 1) | QPNIC_FIELD(QPNIC_TP_CHK_WIN, s->win + s->n);
    s->n++;
    s->total += len;
}

/* An INLINE request's payload as segments of its own SQ ring: this WQE's
 * words 5.., then words 1.. of the INLINE_DATA slots after it (struct
 * wqe_inline; the RTL's requester gathers the same bytes). */
static void inline_segs(const uint32_t *ctx, uint32_t index, uint32_t len, struct segs *s)
{
    s->n = 0;
    s->win = WIN_LOCAL;
    s->total = 0;
    uint32_t head = len < QPNIC_INLINE_HEAD_BYTES ? len : QPNIC_INLINE_HEAD_BYTES;
    if (head != 0)
        ring_range(s, sq_slot(ctx, index) + (QPNIC_WQE_BYTES - QPNIC_INLINE_HEAD_BYTES), head);
    len -= head;
    for (uint32_t k = 1; len != 0 && k <= QPNIC_INLINE_DATA_SLOTS; k++) {
        uint32_t part = len < QPNIC_INLINE_SLOT_BYTES ? len : QPNIC_INLINE_SLOT_BYTES;
        ring_range(s, sq_slot(ctx, index + k) + (QPNIC_WQE_BYTES - QPNIC_INLINE_SLOT_BYTES), part);
        len -= part;
    }
}

static uint32_t qp_num(uint32_t index, const uint32_t *ctx)
{
    return QPNIC_FIELD(QPNIC_QP_NUM_INDEX, index) | QPNIC_FIELD(QPNIC_QP_NUM_GEN, CTX_GET(ctx, GEN));
}

static void cqe(uint32_t cqn, uint32_t bytes, uint32_t qpn, uint32_t status, uint32_t inv_token,
                uint32_t index, uint32_t type, bool solicited)
{
    uint32_t c[QPNIC_CQE_WORDS];
    /* V7: a byte count only with SUCCESS (the RTL's qpnic_cqe_pack) */
    c[QPNIC_CQE_BYTE_COUNT_WORD] = status == QPNIC_CQE_STATUS_SUCCESS ? bytes : 0;
    c[QPNIC_CQE_QPN_WORD] = QPNIC_FIELD(QPNIC_CQE_QPN, qpn) | QPNIC_FIELD(QPNIC_CQE_STATUS, status);
    c[QPNIC_CQE_INV_TOKEN_WORD] = inv_token;
    c[QPNIC_CQE_WQE_INDEX_WORD] = QPNIC_FIELD(QPNIC_CQE_WQE_INDEX, index) |
                                  QPNIC_FIELD(QPNIC_CQE_TYPE, type) |
                                  QPNIC_FIELD(QPNIC_CQE_SOLICITED, solicited ? 1u : 0u);
    tp_cqe(cqn, c);
}

/* The completer's end of an SQ WQE (rtl/qpnic_completer.v): a failure sets
 * the QP to ERROR first (SET_ERR for the initiator's own checks, which a
 * WQE gone stale would not; COMP_FAIL for the target's refusal), then the
 * CQE on the send CQ (none for a SILENT_SUCCESS success, none for an
 * INLINE_DATA slot: no_cqe) and SQ_CI_INC; a QP reset meanwhile gets
 * neither. */
static void complete_sq(const struct tp_sq_wqe *q, uint32_t type, uint32_t status, uint32_t bytes,
                        enum fail fail, bool no_cqe)
{
    uint32_t ctx[QPNIC_QP_CTX_WORDS];

    if (fail == FAIL_LOCAL)
        tp_qp(QPNIC_QP_OP_SET_ERR, q->qpn, q->epoch << QPNIC_EPOCH_ARG_BIT, 0);
    else if (fail == FAIL_REMOTE)
        tp_qp(QPNIC_QP_OP_COMP_FAIL, q->qpn, 1, 0);
    tp_qp(QPNIC_QP_OP_READ, q->qpn, 0, ctx);
    if (CTX_GET(ctx, STATE) == QPNIC_QP_STATE_RESET)
        return;
    bool silent = (WQE_GET(q->w, WQE_FLAGS) & QPNIC_OP_FLAG_SILENT_SUCCESS) != 0;
    if (!no_cqe && !(silent && status == QPNIC_CQE_STATUS_SUCCESS))
        cqe(CTX_GET(ctx, SEND_CQ), bytes, qp_num(q->qpn, ctx), status, 0, q->index, type, false);
    tp_qp(QPNIC_QP_OP_SQ_CI_INC, q->qpn, 0, 0);
}

/* RNR timers: QPs rewound after a SEND met no receive, each woken
 * RNR_TIMER_CYCLES later (the RTL's qpnic_rnr_timer). A QP waits at most
 * once (rnr_wait holds its fetch), so NUM_QP slots never overflow. */
#define TP_MAX_QP (1u << QPNIC_QP_NUM_INDEX_WIDTH)
static uint8_t tm_qpn[TP_MAX_QP];
static uint32_t tm_due[TP_MAX_QP];
static uint32_t tm_n;

void tp_reset(void)
{
    tm_n = 0;
}

bool tp_timers(uint32_t now)
{
    for (uint32_t i = 0; i < tm_n;) {
        if ((int32_t)(now - tm_due[i]) >= 0) {
            tp_qp(QPNIC_QP_OP_RNR_WAKE, tm_qpn[i], 0, 0);
            tm_n--;
            tm_qpn[i] = tm_qpn[tm_n];
            tm_due[i] = tm_due[tm_n];
        } else {
            i++;
        }
    }
    return tm_n != 0;
}

/* A SEND found no receive (the responder's RNR NAK, the completer's
 * S_RWND): with retries left in RTS the table rewinds the QP to the SEND
 * (fetch_ptr = sq_ci, the epoch flips so the WQEs fetched behind it are
 * dropped as stale, rnr_wait holds the fetch) and the timer wakes it;
 * otherwise the SEND completes RNR. */
static void rnr(const struct tp_sq_wqe *q, const uint32_t *ctx)
{
    uint32_t before[QPNIC_QP_CTX_WORDS];

    tp_qp(QPNIC_QP_OP_REWIND, q->qpn, CTX_GET(ctx, PSN), before);
    if (CTX_GET(before, STATE) == QPNIC_QP_STATE_RTS && CTX_GET(before, RNR_LEFT) != 0) {
        tp_count(TP_COUNT_RNR);
        tm_qpn[tm_n] = (uint8_t)q->qpn;
        tm_due[tm_n] = tp_cycles() + QPNIC_RNR_TIMER_CYCLES;
        tm_n++;
        return;
    }
    complete_sq(q, QPNIC_CQE_TYPE_SEND, QPNIC_CQE_STATUS_RNR, 0, FAIL_REMOTE, false);
}

/* The receive side of a SEND (rtl/qpnic_responder.v SEND_ONLY,
 * SEND_ONLY_INV): the receive at rq_ci of the target QP (tctx) takes the
 * payload. Returns the initiator's status. */
static uint32_t receive(const struct tp_sq_wqe *q, uint32_t tqpn, const uint32_t *tctx,
                        const struct segs *src)
{
    uint32_t r[QPNIC_WQE_WORDS];
    uint32_t rq_ci = CTX_GET(tctx, RQ_CI);
    uint32_t rq_mask = (1u << CTX_GET(tctx, RQ_LOG)) - 1u;
    uint64_t at = (((uint64_t)CTX_GET(tctx, RQ_BASE_HI) << 32) | CTX_GET(tctx, RQ_BASE_LO)) +
                  (uint64_t)((rq_ci & rq_mask) * QPNIC_WQE_BYTES);
    uint32_t tpd = CTX_GET(tctx, PD);
    bool inv = WQE_GET(q->w, WQE_OPCODE) == QPNIC_WQE_OP_SEND_INV;
    uint32_t token = q->w[QPNIC_WQE_RTOKEN_WORD];
    uint32_t status = QPNIC_CQE_STATUS_SUCCESS;
    uint32_t bytes = (uint32_t)src->total;
    uint32_t nsge;
    struct segs dst;

    tp_ring_read((uint32_t)at, (uint32_t)(at >> 32), r);
    nsge = WQE_GET(r, WQE_NSGE);
    if (WQE_GET(r, WQE_OPCODE) != QPNIC_WQE_OP_RECV || nsge > QPNIC_MAX_SGE) {
        status = QPNIC_CQE_STATUS_BAD_WQE;
    } else {
        sges(r, nsge, QPNIC_MR_ACCESS_LOCAL_WRITE, WIN_OTHER, tpd, &dst);
        if (!check_all(&dst)) {
            status = QPNIC_CQE_STATUS_LOC_PROT;
        } else {
            /* a payload larger than the receive: what fits, then LOC_LEN */
            uint32_t fit = src->total > dst.total ? (uint32_t)dst.total : bytes;
            if (!move(src, &dst, fit))
                status = QPNIC_CQE_STATUS_LOC_PROT;   /* (cannot: see move) */
            else if (fit != bytes)
                status = QPNIC_CQE_STATUS_LOC_LEN;
        }
    }
    /* SEND_INV: the token invalidated once the receive succeeded (C3) */
    if (status == QPNIC_CQE_STATUS_SUCCESS && inv) {
        struct tp_range t = { token, 0, 0, 0 };
        if (!tp_check(&t, chk_cmd(0, true, 0, tpd) | QPNIC_FIELD(QPNIC_TP_CHK_INVAL, 1)))
            status = QPNIC_CQE_STATUS_BAD_TOKEN;
    }
    bool solicited = (WQE_GET(q->w, WQE_FLAGS) & QPNIC_OP_FLAG_SEND_AND_SOLICIT) != 0;
    /* C2-C4: a receive that invalidated says so, with the token; one that
     * failed is a plain RECEIVE. The CQE goes before the receive is
     * counted consumed (RQ_CI), as the responder's: a host that sees RQ_CI
     * move (ndk_destroy_qp waits for it) finds the CQE taken. */
    bool invalidated = inv && status == QPNIC_CQE_STATUS_SUCCESS;
    cqe(CTX_GET(tctx, RECV_CQ), bytes, qp_num(tqpn, tctx), status, invalidated ? token : 0, rq_ci,
        invalidated ? QPNIC_CQE_TYPE_RECEIVE_AND_INVALIDATE : QPNIC_CQE_TYPE_RECEIVE, solicited);
    if (status == QPNIC_CQE_STATUS_SUCCESS)
        tp_qp(QPNIC_QP_OP_RQ_CI_INC, tqpn, 0, 0);
    else
        tp_qp(QPNIC_QP_OP_RQ_CI_ERR, tqpn, 0, 0);
    /* the initiator's status: its NAK (NAK_REM_ACC for a bad token, else
     * NAK_REM_OP) mapped by the completer */
    if (status == QPNIC_CQE_STATUS_SUCCESS)
        return status;
    return status == QPNIC_CQE_STATUS_BAD_TOKEN ? QPNIC_CQE_STATUS_REM_ACCESS : QPNIC_CQE_STATUS_REM_OP;
}

/* A FAST_REG (rtl/qpnic_requester.v freg_bad, S_FREG): its device address
 * a page-table address (PT_ADDR_BIT set, nothing between the entry field
 * and it), inside the run the host granted the lkey's entry for the QP's
 * PD (MR_CMD GRANT; not a window's); then the entry of struct wqe_freg,
 * valid, in the QP's PD. Returns the status. */
static uint32_t fast_reg(const uint32_t *w, uint32_t pd)
{
    uint32_t g[QPNIC_TP_GRANT_WORDS];
    uint32_t lkey = w[QPNIC_WQE_FREG_LKEY_WORD];
    uint32_t dma_lo = w[QPNIC_WQE_FREG_DMA_LO_WORD], dma_hi = w[QPNIC_WQE_FREG_DMA_HI_WORD];
    uint32_t len = w[QPNIC_WQE_FREG_LEN_WORD];
    uint32_t idx = lkey & ((1u << QPNIC_TOKEN_INDEX_BITS) - 1u);
    /* the page table entry: dma bits PAGE_SHIFT .. PAGE_SHIFT + 23 */
    uint64_t dma = ((uint64_t)dma_hi << 32) | dma_lo;
    uint32_t entry = (uint32_t)(dma >> QPNIC_FREG_PAGE_SHIFT) & QPNIC_TP_GRANT_FIRST_MASK;
    uint64_t above = dma >> (QPNIC_FREG_PAGE_SHIFT + QPNIC_TP_GRANT_FIRST_WIDTH);

    if (above != (1ull << (QPNIC_PT_ADDR_BIT - QPNIC_FREG_PAGE_SHIFT - QPNIC_TP_GRANT_FIRST_WIDTH)))
        return QPNIC_CQE_STATUS_BAD_WQE;   /* not a page-table address, or bits above its entry */
    tp_grant(idx, g);
    uint32_t first = QPNIC_FIELD_GET(g, QPNIC_TP_GRANT_FIRST);
    uint32_t pages = QPNIC_FIELD_GET(g, QPNIC_TP_GRANT_PAGES);
    /* where the region ends, in bytes from the run's first page */
    uint64_t end = ((uint64_t)((entry - first) & QPNIC_TP_GRANT_FIRST_MASK) << QPNIC_FREG_PAGE_SHIFT) +
                   (dma_lo & (QPNIC_FREG_PAGE_BYTES - 1u)) + len;
    if (QPNIC_FIELD_GET(g, QPNIC_TP_GRANT_WINDOW) != 0 || QPNIC_FIELD_GET(g, QPNIC_TP_GRANT_PD) != pd ||
        pages == 0 || entry < first || end > ((uint64_t)pages << QPNIC_FREG_PAGE_SHIFT))
        return QPNIC_CQE_STATUS_BAD_WQE;
    struct tp_range r = { lkey, w[QPNIC_WQE_FREG_VA_LO_WORD], w[QPNIC_WQE_FREG_VA_HI_WORD], len };
    /* struct mr_ctx word 7 (QPNIC_MR_CTX_ACCESS_WORD ... all 7) */
    uint32_t w7 = QPNIC_FIELD(QPNIC_MR_CTX_ACCESS, QPNIC_FIELD_GET(w, QPNIC_WQE_FREG_ACCESS)) |
                  QPNIC_FIELD(QPNIC_MR_CTX_VALID, 1) | QPNIC_FIELD(QPNIC_MR_CTX_PD, pd);
    tp_fr(idx, &r, dma_lo, dma_hi, false, w[QPNIC_WQE_FREG_RKEY_WORD], w7);
    return QPNIC_CQE_STATUS_SUCCESS;
}

/* A BIND (rtl/qpnic_requester.v bind_bad, S_FREG): SGE 0 alone names a
 * range, the rkey's entry was granted as a window of the QP's PD (MR_CMD
 * GRANT_WINDOW), and SGE 0 passes a local check (LOCAL_WRITE when the
 * window grants REMOTE_WRITE); then the window's entry: the range, the
 * device address the check translated, no lkey, remote rights only. */
static uint32_t bind(const uint32_t *w, uint32_t nsge, uint32_t pd)
{
    uint32_t g[QPNIC_TP_GRANT_WORDS];
    uint32_t rkey = w[QPNIC_WQE_BIND_RKEY_WORD];
    uint32_t access = QPNIC_FIELD_GET(w, QPNIC_WQE_BIND_ACCESS) &
                      (QPNIC_MR_ACCESS_REMOTE_READ | QPNIC_MR_ACCESS_REMOTE_WRITE);
    struct segs sge;

    if (nsge != 1 || w[QPNIC_WQE_BIND_LEN_WORD] == 0)
        return QPNIC_CQE_STATUS_BAD_WQE;
    tp_grant(rkey & ((1u << QPNIC_TOKEN_INDEX_BITS) - 1u), g);
    if (QPNIC_FIELD_GET(g, QPNIC_TP_GRANT_WINDOW) == 0 || QPNIC_FIELD_GET(g, QPNIC_TP_GRANT_PD) != pd)
        return QPNIC_CQE_STATUS_BAD_WQE;
    sges(w, 1, (access & QPNIC_MR_ACCESS_REMOTE_WRITE) ? QPNIC_MR_ACCESS_LOCAL_WRITE : 0, WIN_LOCAL, pd, &sge);
    if (!check_all(&sge))
        return QPNIC_CQE_STATUS_LOC_PROT;
    struct tp_range r = sge.r[0];
    r.token = 0;
    uint32_t w7 = QPNIC_FIELD(QPNIC_MR_CTX_ACCESS, access) | QPNIC_FIELD(QPNIC_MR_CTX_VALID, 1) |
                  QPNIC_FIELD(QPNIC_MR_CTX_PD, pd) | QPNIC_FIELD(QPNIC_MR_CTX_WINDOW, 1);
    tp_fr(rkey & ((1u << QPNIC_TOKEN_INDEX_BITS) - 1u), &r, 0, 0, true, rkey, w7);
    return QPNIC_CQE_STATUS_SUCCESS;
}

static uint32_t cqe_type_of(uint32_t op)
{
    switch (op) {
    case QPNIC_WQE_OP_WRITE:      return QPNIC_CQE_TYPE_WRITE;
    case QPNIC_WQE_OP_READ:       return QPNIC_CQE_TYPE_READ;
    case QPNIC_WQE_OP_FAST_REG:   return QPNIC_CQE_TYPE_FAST_REGISTER;
    case QPNIC_WQE_OP_BIND:       return QPNIC_CQE_TYPE_BIND;
    case QPNIC_WQE_OP_INVALIDATE: return QPNIC_CQE_TYPE_INVALIDATE;
    default:                      return QPNIC_CQE_TYPE_SEND;
    }
}

void tp_execute(const struct tp_sq_wqe *q)
{
    uint32_t ctx[QPNIC_QP_CTX_WORDS];
    const uint32_t *w = q->w;
    uint32_t op = WQE_GET(w, WQE_OPCODE);
    uint32_t nsge = WQE_GET(w, WQE_NSGE);
    uint32_t flags = WQE_GET(w, WQE_FLAGS);
    uint32_t type = cqe_type_of(op);
    bool is_msg = op == QPNIC_WQE_OP_SEND || op == QPNIC_WQE_OP_SEND_INV || op == QPNIC_WQE_OP_WRITE;
    bool is_inline = (flags & QPNIC_OP_FLAG_INLINE) != 0 && is_msg;
    struct segs local;

    /* the requester's first steps (rtl/qpnic_requester.v) */
    tp_qp(QPNIC_QP_OP_READ, q->qpn, 0, ctx);
    if (CTX_GET(ctx, STATE) == QPNIC_QP_STATE_RESET || CTX_GET(ctx, EPOCH) != q->epoch)
        return;   /* reset under it, or stale under an RNR rewind: fetched again */
    if (op == QPNIC_WQE_OP_INLINE_DATA) {
        complete_sq(q, type, QPNIC_CQE_STATUS_SUCCESS, 0, FAIL_NONE, true);
        return;
    }
    if (CTX_GET(ctx, STATE) == QPNIC_QP_STATE_ERROR) {
        complete_sq(q, type, QPNIC_CQE_STATUS_FLUSHED, 0, FAIL_NONE, false);
        return;
    }
    uint32_t pd = CTX_GET(ctx, PD);
    bool known = is_msg || op == QPNIC_WQE_OP_READ || op == QPNIC_WQE_OP_INVALIDATE ||
                 op == QPNIC_WQE_OP_FAST_REG || op == QPNIC_WQE_OP_BIND;
    bool bad_inline = is_inline && (nsge != 0 || WQE_GET(w, WQE_INLINE_INLINE_LEN) > QPNIC_MAX_INLINE_BYTES);
    if (!known || nsge > QPNIC_MAX_SGE || bad_inline) {
        complete_sq(q, type, QPNIC_CQE_STATUS_BAD_WQE, 0, FAIL_LOCAL, false);
        return;
    }
    if (op == QPNIC_WQE_OP_FAST_REG || op == QPNIC_WQE_OP_BIND) {
        uint32_t st = op == QPNIC_WQE_OP_BIND ? bind(w, nsge, pd) : fast_reg(w, pd);
        tp_win_close();
        complete_sq(q, type, st, 0, st == QPNIC_CQE_STATUS_SUCCESS ? FAIL_NONE : FAIL_LOCAL, false);
        return;
    }
    if (op == QPNIC_WQE_OP_INVALIDATE) {
        struct tp_range t = { w[QPNIC_WQE_RTOKEN_WORD], 0, 0, 0 };
        bool ok = tp_check(&t, chk_cmd(0, false, 0, pd) | QPNIC_FIELD(QPNIC_TP_CHK_INVAL, 1));
        complete_sq(q, type, ok ? QPNIC_CQE_STATUS_SUCCESS : QPNIC_CQE_STATUS_BAD_TOKEN, 0,
                    ok ? FAIL_NONE : FAIL_LOCAL, false);
        return;
    }
    /* the local segments: a READ's sink (window 1), else the source */
    if (is_inline)
        inline_segs(ctx, q->index, WQE_GET(w, WQE_INLINE_INLINE_LEN), &local);
    else
        sges(w, nsge, op == QPNIC_WQE_OP_READ ? QPNIC_MR_ACCESS_LOCAL_WRITE : 0, WIN_LOCAL, pd, &local);
    if (!check_all(&local)) {
        tp_win_close();
        complete_sq(q, type, QPNIC_CQE_STATUS_LOC_PROT, 0, FAIL_LOCAL, false);
        return;
    }
    if (local.total > QPNIC_MAX_MSG_BYTES) {
        tp_win_close();
        complete_sq(q, type, QPNIC_CQE_STATUS_LOC_LEN, 0, FAIL_LOCAL, false);
        return;
    }
    uint32_t bytes = (uint32_t)local.total;

    /* the target (rtl/qpnic_responder.v): present, of the generation the
     * initiator knows, in RTS; else NAK_INV_REQ, BAD_QP here */
    uint32_t tctx[QPNIC_QP_CTX_WORDS];
    uint32_t rqpn = CTX_GET(ctx, REMOTE_QPN);
    uint32_t tqpn = QPNIC_FIELD_GET(&rqpn, QPNIC_QP_NUM_INDEX);
    tp_qp(QPNIC_QP_OP_READ, tqpn, 0, tctx);
    uint32_t status = QPNIC_CQE_STATUS_SUCCESS;
    if (CTX_GET(tctx, STATE) != QPNIC_QP_STATE_RTS ||
        CTX_GET(tctx, GEN) != QPNIC_FIELD_GET(&rqpn, QPNIC_QP_NUM_GEN)) {
        status = QPNIC_CQE_STATUS_BAD_QP;
        tp_count(TP_COUNT_DROP);
    } else if (op == QPNIC_WQE_OP_SEND || op == QPNIC_WQE_OP_SEND_INV) {
        if (CTX_GET(tctx, RQ_CI) == CTX_GET(tctx, RQ_PI)) {
            tp_win_close();
            rnr(q, ctx);
            return;
        }
        status = receive(q, tqpn, tctx, &local);
    } else {
        /* WRITE: the remote range is the sink; READ: the source */
        struct segs remote;
        bool rd = op == QPNIC_WQE_OP_READ;
        remote.n = 0;
        remote.win = WIN_OTHER;
        remote.total = 0;
        if (bytes != 0) {
            remote.r[0].token = w[QPNIC_WQE_RTOKEN_WORD];
            remote.r[0].va_lo = w[QPNIC_WQE_RVA_LO_WORD];
            remote.r[0].va_hi = w[QPNIC_WQE_RVA_HI_WORD];
            remote.r[0].len = bytes;
            remote.cmd[0] = chk_cmd(rd ? QPNIC_MR_ACCESS_REMOTE_READ : QPNIC_MR_ACCESS_REMOTE_WRITE,
                                    true, WIN_OTHER, CTX_GET(tctx, PD));
            remote.n = 1;
            remote.total = bytes;
        }
        if (!check_all(&remote))
            status = QPNIC_CQE_STATUS_REM_ACCESS;
        else if (!(rd ? move(&remote, &local, bytes) : move(&local, &remote, bytes)))
            status = QPNIC_CQE_STATUS_LOC_PROT;   /* (cannot: see move) */
    }
    tp_win_close();
    complete_sq(q, type, status, bytes, status == QPNIC_CQE_STATUS_SUCCESS ? FAIL_NONE : FAIL_REMOTE, false);
}

/* The responder's flush (rtl/qpnic_responder.v, between packets): each
 * receive posted to a QP in ERROR completes FLUSHED, in posting order,
 * until the table answers that none is left (which dequeues the QP).
 *
 * RQ_FLUSH claims the receive (rq_ci + 1) as it answers, and the host's
 * ndk_destroy_qp resets the QP once RQ_CI has caught up: the responder's
 * CQE follows its claim within cycles, the firmware's some hundred later,
 * after the QP was gone. So the CQE goes first, for the receive a READ
 * shows at rq_ci (only this loop consumes a QP's receives in ERROR), and
 * the claim after it; a receive the host posted between the two is
 * claimed by RQ_FLUSH and completed then. */
void tp_flush_receives(uint32_t qpn)
{
    uint32_t ctx[QPNIC_QP_CTX_WORDS];

    for (;;) {
        tp_qp(QPNIC_QP_OP_READ, qpn, 0, ctx);
        bool pending = CTX_GET(ctx, STATE) == QPNIC_QP_STATE_ERROR && CTX_GET(ctx, RQ_CI) != CTX_GET(ctx, RQ_PI);
        uint32_t done = CTX_GET(ctx, RQ_CI);
        if (pending)
            cqe(CTX_GET(ctx, RECV_CQ), 0, qp_num(qpn, ctx), QPNIC_CQE_STATUS_FLUSHED, 0, done,
                QPNIC_CQE_TYPE_RECEIVE, false);
        tp_qp(QPNIC_QP_OP_RQ_FLUSH, qpn, 0, ctx);
        if (CTX_GET(ctx, STATE) != QPNIC_QP_STATE_ERROR || CTX_GET(ctx, RQ_CI) == CTX_GET(ctx, RQ_PI))
            return;   /* nothing claimed: the QP left the flush queue */
        if (!pending || CTX_GET(ctx, RQ_CI) != done)
            cqe(CTX_GET(ctx, RECV_CQ), 0, qp_num(qpn, ctx), QPNIC_CQE_STATUS_FLUSHED, 0, CTX_GET(ctx, RQ_CI),
                QPNIC_CQE_TYPE_RECEIVE, false);
    }
}
