/* tests/fw/test_transport.c: host unit tests of the firmware partition's
 * transport (fw/transport.c).
 *
 * For: each rule the transport keeps where the hardware partition's
 * requester, responder and completer keep it (statuses, CQEs, QP states,
 * receive consumption, the RNR retry, the receive flush, FAST_REG and BIND
 * grants), against a model of its port (the functions of fw/transport.h):
 * a QP table, a token table, host memory, a CQE log. The model checks every
 * DMA the transport asks for: a move inside its windows, at most
 * MAX_DMA_BYTES, never across a page; and the order of what the host can
 * see: a CQE before the ring index that says its WQE is done.
 * Not for: the registers (fw/tp_port.c, rtl/qpnic_fw_transport.v), which
 * the end-to-end tests run under qpnic-sim --partition fw.
 *
 * usage: test_transport [SEED]   (the randomized case prints its seed)
 * Prints "PASS <name>" per case, "FAIL <name>: <what>" on a failure, and a
 * closing "N passed, M failed"; exits non-zero when anything failed.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fw_check.h"
#include "transport.h"

/* A failure inside the model: noted, the case fails when it ends. */
#define MODEL_CHECK(cond, ...)                                               \
    do {                                                                     \
        if (!(cond) && !case_failed) {                                       \
            printf("FAIL %s: the transport ", case_name);                    \
            printf(__VA_ARGS__);                                             \
            printf(" (%s:%d)\n", __FILE__, __LINE__);                        \
            case_failed = true;                                              \
        }                                                                    \
    } while (0)

/* ---- the model -------------------------------------------------------- */

#define MEM_BYTES (1u << 20)
#define N_QP 4
#define N_MR 16
#define MAX_CQES 64
#define MAX_LOG 256

static uint8_t mem[MEM_BYTES];         /* host memory; device address = offset */
static uint32_t qp[N_QP][QPNIC_QP_CTX_WORDS];

struct mr {
    uint64_t va, dma;
    uint32_t len, lkey, rkey, access, pd;
    bool valid, window;
};
static struct mr mrs[N_MR];
static uint32_t grants[N_MR][QPNIC_TP_GRANT_WORDS];

struct cqe_rec {
    uint32_t cqn;
    uint32_t w[QPNIC_CQE_WORDS];
};
static struct cqe_rec cqes[MAX_CQES];
static unsigned n_cqes;

/* what the host could see, in order: 'C' a CQE, 'S' SQ_CI, 'R' RQ_CI */
static char seen[MAX_LOG];
static unsigned n_seen;

static struct { uint64_t addr; uint32_t left; bool open; } win[QPNIC_TP_WINDOWS];
/* a host's MR_CMD INVALIDATE racing the transport: token entry inval_idx
 * is invalidated right after the inval_after-th check that passes */
static int inval_after = -1;
static uint32_t inval_idx;
static uint32_t now_cycles, cnt_rnr, cnt_drop, n_moves;
static uint64_t moved_bytes;

#define F(ctx, FLD) QPNIC_FIELD_GET(ctx, QPNIC_QP_CTX_##FLD)
#define SETF(ctx, FLD, v) QPNIC_FIELD_SET(ctx, QPNIC_QP_CTX_##FLD, v)

static void note(char c)
{
    if (n_seen < MAX_LOG)
        seen[n_seen++] = c;
}

void tp_qp(uint32_t op, uint32_t qpn, uint32_t arg, uint32_t *ctx)
{
    static uint32_t zero[QPNIC_QP_CTX_WORDS];
    uint32_t *c = qpn < N_QP ? qp[qpn] : zero;
    if (ctx)
        memcpy(ctx, c, sizeof qp[0]);
    if (qpn >= N_QP)
        return;
    uint32_t st = F(c, STATE);
    switch (op) {
    case QPNIC_QP_OP_READ:
        break;
    case QPNIC_QP_OP_SET_ERR:
        if (st != QPNIC_QP_STATE_RESET && ((arg >> QPNIC_EPOCH_ARG_BIT) & 1u) == F(c, EPOCH))
            SETF(c, STATE, QPNIC_QP_STATE_ERROR);
        break;
    case QPNIC_QP_OP_COMP_FAIL:
        SETF(c, COMP_ERR, 1);
        if ((arg & 1u) && st != QPNIC_QP_STATE_RESET)
            SETF(c, STATE, QPNIC_QP_STATE_ERROR);
        break;
    case QPNIC_QP_OP_RQ_CI_INC:
        SETF(c, RQ_CI, F(c, RQ_CI) + 1);
        note('R');
        break;
    case QPNIC_QP_OP_RQ_CI_ERR:
        SETF(c, RQ_CI, F(c, RQ_CI) + 1);
        if (st != QPNIC_QP_STATE_RESET)
            SETF(c, STATE, QPNIC_QP_STATE_ERROR);
        note('R');
        break;
    case QPNIC_QP_OP_SQ_CI_INC:
        SETF(c, SQ_CI, F(c, SQ_CI) + 1);
        SETF(c, RNR_LEFT, F(c, RNR_RETRY));
        note('S');
        break;
    case QPNIC_QP_OP_REWIND:
        if (st == QPNIC_QP_STATE_RTS && F(c, RNR_LEFT) != 0) {
            SETF(c, FETCH_PTR, F(c, SQ_CI));
            SETF(c, EPOCH, !F(c, EPOCH));
            SETF(c, RNR_WAIT, 1);
            if (F(c, RNR_LEFT) != QPNIC_RNR_RETRY_FOREVER)
                SETF(c, RNR_LEFT, F(c, RNR_LEFT) - 1);
        }
        break;
    case QPNIC_QP_OP_RNR_WAKE:
        SETF(c, RNR_WAIT, 0);
        break;
    case QPNIC_QP_OP_RQ_FLUSH:
        if (st == QPNIC_QP_STATE_ERROR && F(c, RQ_CI) != F(c, RQ_PI)) {
            SETF(c, RQ_CI, F(c, RQ_CI) + 1);
            note('R');
        }
        break;
    default:
        MODEL_CHECK(0, "asked the QP table for op %u, which it never needs", op);
    }
}

static struct mr *mr_of(uint32_t token)
{
    return &mrs[token & (N_MR - 1)];
}

bool tp_check(const struct tp_range *r, uint32_t cmd)
{
    const uint32_t c[1] = { cmd };
    uint32_t w = QPNIC_FIELD_GET(c, QPNIC_TP_CHK_WIN);
    MODEL_CHECK(w < QPNIC_TP_WINDOWS, "opened window %u", w);
    if (case_failed)
        return false;
    uint64_t va = ((uint64_t)r->va_hi << 32) | r->va_lo;
    if (QPNIC_FIELD_GET(c, QPNIC_TP_CHK_RING)) {
        win[w].addr = va;
        win[w].left = r->len;
        win[w].open = true;
        return true;
    }
    struct mr *m = mr_of(r->token);
    bool remote = QPNIC_FIELD_GET(c, QPNIC_TP_CHK_REMOTE);
    bool pd_ok = m->valid && m->pd == QPNIC_FIELD_GET(c, QPNIC_TP_CHK_PD);
    if (QPNIC_FIELD_GET(c, QPNIC_TP_CHK_INVAL)) {
        bool ok = pd_ok && (r->token == m->rkey || (!remote && !m->window && r->token == m->lkey));
        if (ok)
            m->valid = false;
        return ok;
    }
    uint32_t need = QPNIC_FIELD_GET(c, QPNIC_TP_CHK_NEED);
    bool ok = pd_ok && (remote ? r->token == m->rkey : (r->token == m->lkey && !m->window)) &&
              (m->access & need) == need && va >= m->va && va - m->va + r->len <= m->len;
    if (ok) {
        MODEL_CHECK(!win[w].open, "opened window %u again while it was open", w);
        win[w].addr = m->dma + (va - m->va);
        win[w].left = r->len;
        win[w].open = true;
        if (inval_after > 0 && --inval_after == 0)
            mrs[inval_idx].valid = false;
    }
    return ok;
}

uint32_t tp_move(uint32_t len, uint32_t src, uint32_t dst)
{
    MODEL_CHECK(src < QPNIC_TP_WINDOWS && dst < QPNIC_TP_WINDOWS && src != dst, "moved from %u to %u", src, dst);
    if (case_failed)
        return 0;
    MODEL_CHECK(win[src].open && win[dst].open, "moved with window %u or %u closed", src, dst);
    MODEL_CHECK(len >= 1 && len <= QPNIC_MAX_DMA_BYTES, "asked to move %u bytes", len);
    MODEL_CHECK(len <= win[src].left && len <= win[dst].left, "moved %u bytes past a window (%u, %u left)",
                len, win[src].left, win[dst].left);
    if (case_failed)
        return 0;
    /* the hardware's cut at a page boundary of either window */
    const uint32_t ends[2] = { src, dst };
    uint32_t m = len;
    for (int i = 0; i < 2; i++) {
        uint32_t to_page = QPNIC_FREG_PAGE_BYTES - (uint32_t)(win[ends[i]].addr & (QPNIC_FREG_PAGE_BYTES - 1));
        if (m > to_page)
            m = to_page;
    }
    MODEL_CHECK(win[src].addr + m <= MEM_BYTES && win[dst].addr + m <= MEM_BYTES, "moved outside memory");
    if (case_failed)
        return 0;
    memmove(mem + win[dst].addr, mem + win[src].addr, m);
    for (int i = 0; i < 2; i++) {
        win[ends[i]].addr += m;
        win[ends[i]].left -= m;
    }
    n_moves++;
    moved_bytes += m;
    return m;
}

void tp_win_close(void)
{
    for (unsigned i = 0; i < QPNIC_TP_WINDOWS; i++) {
        win[i].open = false;
        win[i].left = 0;
    }
}

void tp_ring_read(uint32_t lo, uint32_t hi, uint32_t *wqe)
{
    uint64_t a = ((uint64_t)hi << 32) | lo;
    MODEL_CHECK(a + QPNIC_WQE_BYTES <= MEM_BYTES && (a & (QPNIC_WQE_BYTES - 1)) == 0, "read a WQE at %#" PRIx64, a);
    if (!case_failed)
        memcpy(wqe, mem + a, QPNIC_WQE_BYTES);
}

void tp_cqe(uint32_t cqn, const uint32_t *cqe)
{
    if (n_cqes < MAX_CQES) {
        cqes[n_cqes].cqn = cqn;
        memcpy(cqes[n_cqes].w, cqe, sizeof cqes[0].w);
        n_cqes++;
    }
    note('C');
}

void tp_service_events(void) {}

void tp_grant(uint32_t idx, uint32_t *grant)
{
    memcpy(grant, grants[idx & (N_MR - 1)], sizeof grants[0]);
}

void tp_fr(uint32_t idx, const struct tp_range *r, uint32_t dma_lo, uint32_t dma_hi, bool from_win,
           uint32_t rkey, uint32_t w7)
{
    const uint32_t w[QPNIC_MR_CTX_WORDS] = { [7] = w7 };
    struct mr *m = &mrs[idx & (N_MR - 1)];
    m->va = ((uint64_t)r->va_hi << 32) | r->va_lo;
    m->len = r->len;
    m->lkey = r->token;
    m->rkey = rkey;
    m->dma = from_win ? win[0].addr : (((uint64_t)dma_hi << 32) | dma_lo);
    m->access = QPNIC_FIELD_GET(w, QPNIC_MR_CTX_ACCESS);
    m->valid = QPNIC_FIELD_GET(w, QPNIC_MR_CTX_VALID);
    m->pd = QPNIC_FIELD_GET(w, QPNIC_MR_CTX_PD);
    m->window = QPNIC_FIELD_GET(w, QPNIC_MR_CTX_WINDOW);
}

void tp_count(uint32_t bits)
{
    cnt_drop += (bits & TP_COUNT_DROP) != 0;
    cnt_rnr += (bits & TP_COUNT_RNR) != 0;
}

uint32_t tp_cycles(void)
{
    return now_cycles;
}

/* ---- a world: QP 0 (a) and QP 1 (b) connected, PD 5, one region each ---- */

#define PD 5u
#define SQ_BASE(q) (0x10000u + (q) * 0x4000u)
#define RQ_BASE(q) (0x20000u + (q) * 0x4000u)
#define BUF_A 0x40000u
#define BUF_B 0x60000u
#define LKEY(i) (0x100u + (i))
#define RKEY(i) (0x200u + (i))

static void qp_setup(uint32_t q, uint32_t peer)
{
    uint32_t *c = qp[q];
    memset(c, 0, sizeof qp[0]);
    SETF(c, SQ_BASE_LO, SQ_BASE(q));
    SETF(c, RQ_BASE_LO, RQ_BASE(q));
    SETF(c, SQ_LOG, 4);
    SETF(c, RQ_LOG, 4);
    SETF(c, STATE, QPNIC_QP_STATE_RTS);
    SETF(c, SEND_CQ, 2 * q);
    SETF(c, RECV_CQ, 2 * q + 1);
    SETF(c, PD, PD);
    SETF(c, REMOTE_QPN, QPNIC_FIELD(QPNIC_QP_NUM_INDEX, peer) | QPNIC_FIELD(QPNIC_QP_NUM_GEN, 7));
    SETF(c, GEN, 7);
    SETF(c, RNR_RETRY, 2);
    SETF(c, RNR_LEFT, 2);
}

static void mr_setup(uint32_t i, uint32_t base, uint32_t len, uint32_t access)
{
    mrs[i] = (struct mr){ .va = 0x7000000000ull + base, .dma = base, .len = len, .lkey = LKEY(i),
                          .rkey = RKEY(i), .access = access, .pd = PD, .valid = true };
}

static void world(void)
{
    memset(mem, 0, sizeof mem);
    memset(mrs, 0, sizeof mrs);
    memset(grants, 0, sizeof grants);
    memset(win, 0, sizeof win);
    n_cqes = n_seen = n_moves = 0;
    now_cycles = cnt_rnr = cnt_drop = 0;
    moved_bytes = 0;
    inval_after = -1;
    tp_reset();
    qp_setup(0, 1);
    qp_setup(1, 0);
    mr_setup(0, BUF_A, 0x10000, QPNIC_MR_ACCESS_LOCAL_WRITE | QPNIC_MR_ACCESS_REMOTE_READ |
                                 QPNIC_MR_ACCESS_REMOTE_WRITE);
    mr_setup(1, BUF_B, 0x10000, QPNIC_MR_ACCESS_LOCAL_WRITE | QPNIC_MR_ACCESS_REMOTE_READ |
                                 QPNIC_MR_ACCESS_REMOTE_WRITE);
    for (uint32_t i = 0; i < 0x10000; i++)
        mem[BUF_A + i] = (uint8_t)(i * 7 + 3);
}

static uint64_t va_a(uint32_t off) { return mrs[0].va + off; }
static uint64_t va_b(uint32_t off) { return mrs[1].va + off; }

static void sge(uint32_t *w, unsigned i, uint64_t va, uint32_t len, uint32_t token)
{
    uint32_t *g = w + QPNIC_WQE_SGE_WORD + QPNIC_SGE_WORDS * i;
    g[QPNIC_SGE_VA_LO_WORD] = (uint32_t)va;
    g[QPNIC_SGE_VA_HI_WORD] = (uint32_t)(va >> 32);
    g[QPNIC_SGE_LEN_WORD] = len;
    g[QPNIC_SGE_TOKEN_WORD] = token;
}

static void wqe_head(uint32_t *w, uint32_t op, uint32_t nsge, uint32_t flags)
{
    memset(w, 0, QPNIC_WQE_BYTES);
    w[0] = QPNIC_FIELD(QPNIC_WQE_OPCODE, op) | QPNIC_FIELD(QPNIC_WQE_NSGE, nsge) |
           QPNIC_FIELD(QPNIC_WQE_FLAGS, flags);
}

/* Post a receive to QP q at its rq_pi. */
static void post_recv(uint32_t q, const uint32_t *w)
{
    uint32_t pi = F(qp[q], RQ_PI);
    memcpy(mem + RQ_BASE(q) + (pi & 15) * QPNIC_WQE_BYTES, w, QPNIC_WQE_BYTES);
    SETF(qp[q], RQ_PI, pi + 1);
}

static void recv1(uint32_t q, uint64_t va, uint32_t len, uint32_t token)
{
    uint32_t w[QPNIC_WQE_WORDS];
    wqe_head(w, QPNIC_WQE_OP_RECV, 1, 0);
    sge(w, 0, va, len, token);
    post_recv(q, w);
}

/* Execute w as QP q's next SQ WQE (its SQ index sq_ci, its epoch). */
static void run(uint32_t q, const uint32_t *w)
{
    struct tp_sq_wqe s = { .qpn = q, .index = F(qp[q], SQ_CI), .epoch = F(qp[q], EPOCH) };
    memcpy(s.w, w, sizeof s.w);
    memcpy(mem + SQ_BASE(q) + (s.index & 15) * QPNIC_WQE_BYTES, w, QPNIC_WQE_BYTES);
    tp_execute(&s);
}

static uint32_t cqe_status(unsigned i) { return QPNIC_FIELD_GET(cqes[i].w, QPNIC_CQE_STATUS); }
static uint32_t cqe_type(unsigned i) { return QPNIC_FIELD_GET(cqes[i].w, QPNIC_CQE_TYPE); }
static uint32_t cqe_bytes(unsigned i) { return QPNIC_FIELD_GET(cqes[i].w, QPNIC_CQE_BYTE_COUNT); }
static uint32_t cqe_index(unsigned i) { return QPNIC_FIELD_GET(cqes[i].w, QPNIC_CQE_WQE_INDEX); }

/* ---- cases ------------------------------------------------------------- */

/* A SEND of three SGEs into a receive of two, each cut off a page: the
 * bytes arrive exactly, the receive's CQE comes before RQ_CI moves and the
 * send's before SQ_CI (V3: each CQE names its QP). */
static void send_scatters_across_sges_and_completes_both_sides(void)
{
    world();
    uint32_t w[QPNIC_WQE_WORDS], r[QPNIC_WQE_WORDS];
    wqe_head(r, QPNIC_WQE_OP_RECV, 2, 0);
    sge(r, 0, va_b(0x0ff0), 100, LKEY(1));
    sge(r, 1, va_b(0x3000), 5000, LKEY(1));
    post_recv(1, r);
    wqe_head(w, QPNIC_WQE_OP_SEND, 3, QPNIC_OP_FLAG_SEND_AND_SOLICIT);
    sge(w, 0, va_a(0x10), 37, LKEY(0));
    sge(w, 1, va_a(0x1ffe), 1000, LKEY(0));
    sge(w, 2, va_a(0x5000), 700, LKEY(0));
    run(0, w);
    CHECK(!case_failed, "see above");
    CHECK(n_cqes == 2, "%u CQEs, expected the receive's and the send's", n_cqes);
    CHECK(cqes[0].cqn == 3 && cqe_type(0) == QPNIC_CQE_TYPE_RECEIVE && cqe_status(0) == QPNIC_CQE_STATUS_SUCCESS &&
          cqe_bytes(0) == 1737 && QPNIC_FIELD_GET(cqes[0].w, QPNIC_CQE_SOLICITED) == 1,
          "receive CQE: cq %u type %#x status %u bytes %u", cqes[0].cqn, cqe_type(0), cqe_status(0), cqe_bytes(0));
    CHECK(cqes[1].cqn == 0 && cqe_type(1) == QPNIC_CQE_TYPE_SEND && cqe_status(1) == QPNIC_CQE_STATUS_SUCCESS,
          "send CQE: cq %u type %#x status %u", cqes[1].cqn, cqe_type(1), cqe_status(1));
    CHECK(QPNIC_FIELD_GET(cqes[0].w, QPNIC_CQE_QPN) == (QPNIC_FIELD(QPNIC_QP_NUM_INDEX, 1) | QPNIC_FIELD(QPNIC_QP_NUM_GEN, 7)),
          "the receive CQE names QP %#x", QPNIC_FIELD_GET(cqes[0].w, QPNIC_CQE_QPN));
    CHECK(n_seen == 4 && memcmp(seen, "CRCS", 4) == 0, "the host could see %.*s, expected CRCS", (int)n_seen, seen);
    CHECK(memcmp(mem + BUF_B + 0x0ff0, mem + BUF_A + 0x10, 37) == 0 &&
          memcmp(mem + BUF_B + 0x0ff0 + 37, mem + BUF_A + 0x1ffe, 63) == 0 &&
          memcmp(mem + BUF_B + 0x3000, mem + BUF_A + 0x1ffe + 63, 937) == 0 &&
          memcmp(mem + BUF_B + 0x3000 + 937, mem + BUF_A + 0x5000, 700) == 0, "the bytes differ");
    CHECK(mem[BUF_B + 0x3000 + 1637] == 0, "a byte past the message was written");
    CHECK(F(qp[1], RQ_CI) == 1 && F(qp[0], SQ_CI) == 1, "rq_ci %u sq_ci %u", F(qp[1], RQ_CI), F(qp[0], SQ_CI));
}

/* A WRITE with a bad rkey: REM_ACCESS, the initiator's QP in ERROR, the
 * target's untouched, nothing moved. A WRITE of 0 bytes checks nothing. */
static void write_refused_moves_nothing_and_fails_the_initiator(void)
{
    world();
    uint32_t w[QPNIC_WQE_WORDS];
    wqe_head(w, QPNIC_WQE_OP_WRITE, 1, 0);
    sge(w, 0, va_a(0), 64, LKEY(0));
    w[QPNIC_WQE_RTOKEN_WORD] = RKEY(1) ^ 0x1000;
    w[QPNIC_WQE_RVA_LO_WORD] = (uint32_t)va_b(0);
    w[QPNIC_WQE_RVA_HI_WORD] = (uint32_t)(va_b(0) >> 32);
    run(0, w);
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_REM_ACCESS && cqe_type(0) == QPNIC_CQE_TYPE_WRITE,
          "%u CQEs, status %u", n_cqes, n_cqes ? cqe_status(0) : 0);
    CHECK(moved_bytes == 0, "%" PRIu64 " bytes moved", moved_bytes);
    CHECK(F(qp[0], STATE) == QPNIC_QP_STATE_ERROR && F(qp[1], STATE) == QPNIC_QP_STATE_RTS,
          "states a %u b %u", F(qp[0], STATE), F(qp[1], STATE));
    /* the next request of the failed QP is flushed */
    run(0, w);
    CHECK(n_cqes == 2 && cqe_status(1) == QPNIC_CQE_STATUS_FLUSHED, "the next completed %u", cqe_status(1));
    world();
    wqe_head(w, QPNIC_WQE_OP_WRITE, 0, 0);
    w[QPNIC_WQE_RTOKEN_WORD] = 0xdead;
    run(0, w);
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_SUCCESS, "a 0-byte WRITE completed %u", cqe_status(0));
}

/* A READ brings the remote bytes; into a region without LOCAL_WRITE it is
 * LOC_PROT before any DMA. */
static void read_needs_local_write_on_its_sink(void)
{
    world();
    for (uint32_t i = 0; i < 3000; i++)
        mem[BUF_B + 0x800 + i] = (uint8_t)(i ^ 0x5a);
    uint32_t w[QPNIC_WQE_WORDS];
    wqe_head(w, QPNIC_WQE_OP_READ, 2, 0);
    sge(w, 0, va_a(0xf00), 1000, LKEY(0));
    sge(w, 1, va_a(0x9000), 2000, LKEY(0));
    w[QPNIC_WQE_RTOKEN_WORD] = RKEY(1);
    w[QPNIC_WQE_RVA_LO_WORD] = (uint32_t)va_b(0x800);
    w[QPNIC_WQE_RVA_HI_WORD] = (uint32_t)(va_b(0x800) >> 32);
    run(0, w);
    CHECK(!case_failed, "see above");
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_SUCCESS && cqe_bytes(0) == 3000 &&
          cqe_type(0) == QPNIC_CQE_TYPE_READ, "status %u bytes %u", cqe_status(0), cqe_bytes(0));
    CHECK(memcmp(mem + BUF_A + 0xf00, mem + BUF_B + 0x800, 1000) == 0 &&
          memcmp(mem + BUF_A + 0x9000, mem + BUF_B + 0x800 + 1000, 2000) == 0, "the bytes differ");
    world();
    mrs[0].access = QPNIC_MR_ACCESS_REMOTE_READ;
    run(0, w);
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_LOC_PROT, "status %u", cqe_status(0));
    CHECK(moved_bytes == 0 && F(qp[0], STATE) == QPNIC_QP_STATE_ERROR, "moved %" PRIu64 ", state %u",
          moved_bytes, F(qp[0], STATE));
}

/* A SEND that meets no receive: rewound (REWIND), no CQE, the timer wakes
 * the QP RNR_TIMER_CYCLES later; with no retries left it completes RNR. */
static void send_without_receive_retries_then_completes_rnr(void)
{
    world();
    uint32_t w[QPNIC_WQE_WORDS];
    wqe_head(w, QPNIC_WQE_OP_SEND, 1, 0);
    sge(w, 0, va_a(0), 10, LKEY(0));
    for (uint32_t retry = 0; retry < 2; retry++) {
        run(0, w);
        CHECK(n_cqes == 0 && cnt_rnr == retry + 1, "retry %u: %u CQEs, %u rewinds", retry, n_cqes, cnt_rnr);
        CHECK(F(qp[0], RNR_WAIT) == 1, "not waiting for its timer");
        now_cycles += QPNIC_RNR_TIMER_CYCLES - 1;
        CHECK(tp_timers(now_cycles) && F(qp[0], RNR_WAIT) == 1, "woken a cycle early");
        now_cycles += 1;
        CHECK(!tp_timers(now_cycles) && F(qp[0], RNR_WAIT) == 0, "not woken on time");
    }
    run(0, w);
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_RNR, "%u CQEs, status %u", n_cqes, cqe_status(0));
    CHECK(F(qp[0], STATE) == QPNIC_QP_STATE_ERROR && moved_bytes == 0, "state %u, %" PRIu64 " bytes moved",
          F(qp[0], STATE), moved_bytes);
}

/* C2-C5: a SEND_INV invalidates the receiver's token after its receive
 * succeeded, RECEIVE_AND_INVALIDATE with the token; a bad token fails the
 * receive BAD_TOKEN (a plain RECEIVE) and the send REM_ACCESS. */
static void C2_C5_send_and_invalidate(void)
{
    world();
    mr_setup(2, BUF_B + 0x8000, 0x1000, QPNIC_MR_ACCESS_REMOTE_WRITE);
    recv1(1, va_b(0), 64, LKEY(1));
    uint32_t w[QPNIC_WQE_WORDS];
    wqe_head(w, QPNIC_WQE_OP_SEND_INV, 1, 0);
    sge(w, 0, va_a(0), 16, LKEY(0));
    w[QPNIC_WQE_RTOKEN_WORD] = RKEY(2);
    run(0, w);
    CHECK(n_cqes == 2 && cqe_type(0) == QPNIC_CQE_TYPE_RECEIVE_AND_INVALIDATE &&
          cqes[0].w[QPNIC_CQE_INV_TOKEN_WORD] == RKEY(2) && cqe_status(1) == QPNIC_CQE_STATUS_SUCCESS,
          "receive type %#x token %#x, send %u", cqe_type(0), cqes[0].w[QPNIC_CQE_INV_TOKEN_WORD], cqe_status(1));
    CHECK(!mrs[2].valid, "C3: the token is still valid");
    recv1(1, va_b(0), 64, LKEY(1));
    run(0, w);   /* C5: the same token again */
    CHECK(n_cqes == 4 && cqe_type(2) == QPNIC_CQE_TYPE_RECEIVE && cqe_status(2) == QPNIC_CQE_STATUS_BAD_TOKEN &&
          cqe_status(3) == QPNIC_CQE_STATUS_REM_ACCESS, "receive type %#x status %u, send %u", cqe_type(2),
          cqe_status(2), cqe_status(3));
    CHECK(F(qp[1], STATE) == QPNIC_QP_STATE_ERROR && F(qp[0], STATE) == QPNIC_QP_STATE_ERROR,
          "states a %u b %u", F(qp[0], STATE), F(qp[1], STATE));
}

/* A receive too small: what fits is written, LOC_LEN, its QP to ERROR, the
 * sender REM_OP; the receive's CQE carries no byte count (V7). */
static void receive_too_small_writes_what_fits(void)
{
    world();
    recv1(1, va_b(0x100), 50, LKEY(1));
    uint32_t w[QPNIC_WQE_WORDS];
    wqe_head(w, QPNIC_WQE_OP_SEND, 1, 0);
    sge(w, 0, va_a(0), 80, LKEY(0));
    run(0, w);
    CHECK(n_cqes == 2 && cqe_status(0) == QPNIC_CQE_STATUS_LOC_LEN && cqe_bytes(0) == 0 &&
          cqe_status(1) == QPNIC_CQE_STATUS_REM_OP, "receive %u bytes %u, send %u", cqe_status(0), cqe_bytes(0),
          cqe_status(1));
    CHECK(memcmp(mem + BUF_B + 0x100, mem + BUF_A, 50) == 0 && mem[BUF_B + 0x100 + 50] == 0,
          "not exactly the first 50 bytes written");
    CHECK(F(qp[1], STATE) == QPNIC_QP_STATE_ERROR && F(qp[1], RQ_CI) == 1, "state %u rq_ci %u",
          F(qp[1], STATE), F(qp[1], RQ_CI));
}

/* Receives posted to a QP in ERROR complete FLUSHED in posting order, each
 * CQE before the claim that moves RQ_CI (ndk_destroy_qp waits on it). */
static void flush_completes_receives_in_order_cqe_first(void)
{
    world();
    for (int i = 0; i < 3; i++)
        recv1(1, va_b(0), 8, LKEY(1));
    SETF(qp[1], STATE, QPNIC_QP_STATE_ERROR);
    tp_flush_receives(1);
    CHECK(n_cqes == 3, "%u CQEs for 3 receives", n_cqes);
    for (unsigned i = 0; i < 3; i++)
        CHECK(cqe_status(i) == QPNIC_CQE_STATUS_FLUSHED && cqe_index(i) == i && cqes[i].cqn == 3,
              "CQE %u: status %u index %u cq %u", i, cqe_status(i), cqe_index(i), cqes[i].cqn);
    CHECK(n_seen == 6 && memcmp(seen, "CRCRCR", 6) == 0, "the host could see %.*s", (int)n_seen, seen);
    tp_flush_receives(1);
    CHECK(n_cqes == 3, "a second flush completed more");
}

/* A WQE of another epoch (fetched before an RNR rewind) and one of a QP in
 * RESET change nothing and complete nothing. */
static void stale_and_reset_wqes_do_nothing(void)
{
    world();
    recv1(1, va_b(0), 64, LKEY(1));
    uint32_t w[QPNIC_WQE_WORDS];
    wqe_head(w, QPNIC_WQE_OP_SEND, 1, 0);
    sge(w, 0, va_a(0), 16, LKEY(0));
    struct tp_sq_wqe s = { .qpn = 0, .index = 0, .epoch = 1 };
    memcpy(s.w, w, sizeof s.w);
    tp_execute(&s);
    CHECK(n_cqes == 0 && moved_bytes == 0 && n_seen == 0, "a stale WQE did something");
    SETF(qp[0], STATE, QPNIC_QP_STATE_RESET);
    s.epoch = 0;
    tp_execute(&s);
    CHECK(n_cqes == 0 && moved_bytes == 0 && n_seen == 0, "a WQE of a QP in RESET did something");
}

/* A host's MR_CMD INVALIDATE of the target's region after the WRITE's
 * check passed: the WRITE is carried through, SUCCESS and every byte, as
 * the hardware partition carries a checked job (STATUS.mr_fence holds
 * until the windows close); each range is checked once. */
static void region_invalidated_after_its_check_is_still_written(void)
{
    world();
    uint32_t w[QPNIC_WQE_WORDS];
    wqe_head(w, QPNIC_WQE_OP_WRITE, 2, 0);
    sge(w, 0, va_a(0x100), 700, LKEY(0));
    sge(w, 1, va_a(0x2000), 900, LKEY(0));
    w[QPNIC_WQE_RTOKEN_WORD] = RKEY(1);
    w[QPNIC_WQE_RVA_LO_WORD] = (uint32_t)va_b(0x0e00);
    w[QPNIC_WQE_RVA_HI_WORD] = (uint32_t)(va_b(0x0e00) >> 32);
    inval_after = 3;   /* two local checks, then the remote one */
    inval_idx = 1;
    run(0, w);
    CHECK(!case_failed, "see above");
    CHECK(!mrs[1].valid, "the model did not invalidate the region");
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_SUCCESS && cqe_bytes(0) == 1600,
          "status %u bytes %u", cqe_status(0), cqe_bytes(0));
    CHECK(memcmp(mem + BUF_B + 0x0e00, mem + BUF_A + 0x100, 700) == 0 &&
          memcmp(mem + BUF_B + 0x0e00 + 700, mem + BUF_A + 0x2000, 900) == 0, "the bytes differ");
}

/* Malformed WQEs: BAD_WQE, the QP to ERROR, nothing moved; an INLINE_DATA
 * slot is retired with no CQE. */
static void malformed_wqes_complete_bad_wqe(void)
{
    static const uint32_t bad[][3] = {
        { QPNIC_WQE_OP_NOP, 0, 0 },
        { QPNIC_WQE_OP_RECV, 0, 0 },
        { 0x55, 0, 0 },
        { QPNIC_WQE_OP_SEND, QPNIC_MAX_SGE + 1, 0 },
        { QPNIC_WQE_OP_WRITE, 1, QPNIC_OP_FLAG_INLINE },
        { QPNIC_WQE_OP_BIND, 2, 0 },
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        world();
        uint32_t w[QPNIC_WQE_WORDS];
        wqe_head(w, bad[i][0], bad[i][1], bad[i][2]);
        run(0, w);
        CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_BAD_WQE, "case %u: %u CQEs, status %u", i, n_cqes,
              n_cqes ? cqe_status(0) : 0);
        CHECK(moved_bytes == 0 && F(qp[0], STATE) == QPNIC_QP_STATE_ERROR, "case %u: moved or still RTS", i);
    }
    world();
    uint32_t w[QPNIC_WQE_WORDS];
    wqe_head(w, QPNIC_WQE_OP_INLINE_DATA, 0, 0);
    run(0, w);
    CHECK(n_cqes == 0 && F(qp[0], SQ_CI) == 1, "an INLINE_DATA slot: %u CQEs, sq_ci %u", n_cqes, F(qp[0], SQ_CI));
}

/* An INLINE WRITE gathers its payload from the SQ ring: this slot's words
 * 5.. and the next slot's words 1.. (struct wqe_inline). */
static void inline_write_gathers_from_the_ring(void)
{
    world();
    uint32_t w[QPNIC_WQE_WORDS], d[QPNIC_WQE_WORDS];
    wqe_head(w, QPNIC_WQE_OP_WRITE, 0, QPNIC_OP_FLAG_INLINE);
    w[QPNIC_WQE_INLINE_INLINE_LEN_WORD] = QPNIC_FIELD(QPNIC_WQE_INLINE_INLINE_LEN, 70);
    w[QPNIC_WQE_RTOKEN_WORD] = RKEY(1);
    w[QPNIC_WQE_RVA_LO_WORD] = (uint32_t)va_b(0x40);
    w[QPNIC_WQE_RVA_HI_WORD] = (uint32_t)(va_b(0x40) >> 32);
    uint8_t payload[70];
    for (int i = 0; i < 70; i++)
        payload[i] = (uint8_t)(0xa0 + i);
    memcpy((uint8_t *)w + 20, payload, 44);
    wqe_head(d, QPNIC_WQE_OP_INLINE_DATA, 0, 0);
    memcpy((uint8_t *)d + 4, payload + 44, 26);
    memcpy(mem + SQ_BASE(0) + QPNIC_WQE_BYTES, d, QPNIC_WQE_BYTES);
    run(0, w);
    CHECK(!case_failed, "see above");
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_SUCCESS && cqe_bytes(0) == 70, "status %u bytes %u",
          cqe_status(0), cqe_bytes(0));
    CHECK(memcmp(mem + BUF_B + 0x40, payload, 70) == 0, "the inline bytes differ");
}

/* FAST_REG writes an entry only over a page-table run granted to its
 * entry for the QP's PD; BIND only a window granted as one. */
static void fast_reg_and_bind_keep_to_their_grants(void)
{
    world();
    uint32_t w[QPNIC_WQE_WORDS];
    uint64_t dma = (1ull << QPNIC_PT_ADDR_BIT) | (10ull << QPNIC_FREG_PAGE_SHIFT) | 0x123;
    wqe_head(w, QPNIC_WQE_OP_FAST_REG, 0, 0);
    w[QPNIC_WQE_FREG_LKEY_WORD] = 0x3305;   /* entry 5 */
    w[QPNIC_WQE_FREG_RKEY_WORD] = 0x4405;
    w[QPNIC_WQE_FREG_VA_LO_WORD] = 0x1000;
    w[QPNIC_WQE_FREG_DMA_LO_WORD] = (uint32_t)dma;
    w[QPNIC_WQE_FREG_DMA_HI_WORD] = (uint32_t)(dma >> 32);
    w[QPNIC_WQE_FREG_LEN_WORD] = 2 * QPNIC_FREG_PAGE_BYTES;
    w[QPNIC_WQE_FREG_ACCESS_WORD] = QPNIC_MR_ACCESS_REMOTE_WRITE;
    run(0, w);   /* nothing granted */
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_BAD_WQE && !mrs[5].valid, "ungranted: status %u",
          cqe_status(0));
    world();
    grants[5][0] = QPNIC_FIELD(QPNIC_TP_GRANT_FIRST, 9);
    grants[5][1] = QPNIC_FIELD(QPNIC_TP_GRANT_PAGES, 3);
    grants[5][2] = QPNIC_FIELD(QPNIC_TP_GRANT_PD, PD);
    run(0, w);   /* pages 10, 11 and a bit of 12: past the run of 9..11 */
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_BAD_WQE, "past the run: status %u", cqe_status(0));
    world();
    grants[5][0] = QPNIC_FIELD(QPNIC_TP_GRANT_FIRST, 9);
    grants[5][1] = QPNIC_FIELD(QPNIC_TP_GRANT_PAGES, 4);
    grants[5][2] = QPNIC_FIELD(QPNIC_TP_GRANT_PD, PD);
    run(0, w);
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_SUCCESS && cqe_type(0) == QPNIC_CQE_TYPE_FAST_REGISTER,
          "inside the run: status %u", cqe_status(0));
    CHECK(mrs[5].valid && mrs[5].lkey == 0x3305 && mrs[5].rkey == 0x4405 && mrs[5].dma == dma && mrs[5].pd == PD &&
          mrs[5].access == QPNIC_MR_ACCESS_REMOTE_WRITE && !mrs[5].window, "the entry written is wrong");
    /* BIND: entry 6 granted as a window; SGE 0 in region 0 */
    wqe_head(w, QPNIC_WQE_OP_BIND, 1, 0);
    w[QPNIC_WQE_BIND_RKEY_WORD] = 0x7706;
    w[QPNIC_WQE_BIND_ACCESS_WORD] = QPNIC_MR_ACCESS_REMOTE_READ | QPNIC_MR_ACCESS_LOCAL_WRITE;
    sge(w, 0, va_a(0x200), 0x300, LKEY(0));
    world();
    run(0, w);
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_BAD_WQE && !mrs[6].valid, "BIND ungranted: %u",
          cqe_status(0));
    world();
    grants[6][0] = QPNIC_FIELD(QPNIC_TP_GRANT_WINDOW, 1);
    grants[6][2] = QPNIC_FIELD(QPNIC_TP_GRANT_PD, PD);
    run(0, w);
    CHECK(n_cqes == 1 && cqe_status(0) == QPNIC_CQE_STATUS_SUCCESS, "BIND granted: %u", cqe_status(0));
    CHECK(mrs[6].valid && mrs[6].window && mrs[6].rkey == 0x7706 && mrs[6].lkey == 0 && mrs[6].dma == BUF_A + 0x200 &&
          mrs[6].len == 0x300 && mrs[6].access == QPNIC_MR_ACCESS_REMOTE_READ, "the window's entry is wrong");
}

/* Random SENDs and WRITEs of random SGE layouts (sizes from 0 to several
 * pages, cut anywhere) against a byte-exact expectation. */
static unsigned long long rand_seed;
static uint64_t rng;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void random_layouts_move_exact_bytes(void)
{
    rng = rand_seed | 1;
    static uint8_t want[0x10000];
    for (unsigned iter = 0; iter < 3000; iter++) {
        world();
        memcpy(want, mem + BUF_B, sizeof want);
        uint32_t w[QPNIC_WQE_WORDS];
        bool is_send = rnd(2);
        uint32_t n = 1 + rnd(QPNIC_MAX_SGE), total = 0, src_off[QPNIC_MAX_SGE], src_len[QPNIC_MAX_SGE];
        wqe_head(w, is_send ? QPNIC_WQE_OP_SEND : QPNIC_WQE_OP_WRITE, n, 0);
        for (uint32_t i = 0; i < n; i++) {
            src_len[i] = rnd(4) ? rnd(600) : rnd(9000);
            src_off[i] = rnd(0x10000 - src_len[i]);
            sge(w, i, va_a(src_off[i]), src_len[i], LKEY(0));
            total += src_len[i];
        }
        uint32_t at = rnd(0x10000 - total);
        if (is_send) {
            /* the receive: up to three SGEs that hold at least total */
            uint32_t r[QPNIC_WQE_WORDS], m = 1 + rnd(QPNIC_MAX_SGE), left = total, off = at;
            wqe_head(r, QPNIC_WQE_OP_RECV, m, 0);
            for (uint32_t i = 0; i < m; i++) {
                uint32_t len = i + 1 == m ? left : rnd(left + 1);
                sge(r, i, va_b(off), len, LKEY(1));
                off += len;
                left -= len;
            }
            post_recv(1, r);
        } else {
            w[QPNIC_WQE_RTOKEN_WORD] = RKEY(1);
            w[QPNIC_WQE_RVA_LO_WORD] = (uint32_t)va_b(at);
            w[QPNIC_WQE_RVA_HI_WORD] = (uint32_t)(va_b(at) >> 32);
        }
        for (uint32_t i = 0, o = at; i < n; o += src_len[i], i++)
            memcpy(want + o, mem + BUF_A + src_off[i], src_len[i]);
        run(0, w);
        CHECK(!case_failed, "seed %llu iteration %u (see above)", rand_seed, iter);
        unsigned sq = n_cqes - 1;
        CHECK(cqe_status(sq) == QPNIC_CQE_STATUS_SUCCESS && cqe_bytes(sq) == total,
              "seed %llu iteration %u: status %u bytes %u of %u", rand_seed, iter, cqe_status(sq), cqe_bytes(sq), total);
        CHECK(memcmp(want, mem + BUF_B, sizeof want) == 0, "seed %llu iteration %u: the bytes differ (%s of %u)",
              rand_seed, iter, is_send ? "SEND" : "WRITE", total);
    }
    printf("random layouts: seed %llu (test_transport %llu repeats it), 3000 messages\n", rand_seed, rand_seed);
}

int main(int argc, char **argv)
{
    rand_seed = argc > 1 ? strtoull(argv[1], NULL, 0)
                         : (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
    RUN(send_scatters_across_sges_and_completes_both_sides);
    RUN(write_refused_moves_nothing_and_fails_the_initiator);
    RUN(read_needs_local_write_on_its_sink);
    RUN(send_without_receive_retries_then_completes_rnr);
    RUN(C2_C5_send_and_invalidate);
    RUN(receive_too_small_writes_what_fits);
    RUN(flush_completes_receives_in_order_cqe_first);
    RUN(stale_and_reset_wqes_do_nothing);
    RUN(region_invalidated_after_its_check_is_still_written);
    RUN(malformed_wqes_complete_bad_wqe);
    RUN(inline_write_gathers_from_the_ring);
    RUN(fast_reg_and_bind_keep_to_their_grants);
    RUN(random_layouts_move_exact_bytes);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
