// tb_qpnic_qp_table: unit test of rtl/qpnic_qp_table.v, the one owner of
// every QP's context.
//
// Through its request ports: the QP registers as the host sees them (the
// cases that were tb_qpnic_csr's while the contexts lived there: read-back,
// neighbours untouched, CI increments, SET_ERR, RESET zeroing the indices
// and ignoring a late error), then what the table adds: the answer's timing
// (three cycles after the grant; two as the iCE40 builds it), the doorbell queue (a QP queued once
// however many doorbells, FETCH claiming bursts up to the ring's end and
// requeueing while more wait, a QP in RESET claiming nothing), PSN and
// COMP_FAIL, back-to-back operations on one QP seeing each other (each
// waits until the one before is written back), one grant a cycle on
// different QPs, round robin between clients, the receiver-not-ready retry's
// operations (REWIND and its refusals, FETCH held while
// rnr_wait, RNR_WAKE queueing the QP, RSP_RNR and the receive that clears
// it, PSN of a stale epoch), and the table empty and busy while it clears after
// reset. Not for: the engines that use it (tb_qpnic_datapath, e2e).
#include <cstdint>
#include <deque>
#include <memory>

#include "Vqpnic_qp_table.h"
#include "verilated.h"
#include "tb_util.h"
#include "tb_bits.h"
#include "qpnic_hw.h"
#include "qpnic_internal.h"

namespace {

const int NUM_QP = 8, CLIENTS = 5, QW = 8, OB = QPNIC_QP_OFFSET_BITS;
// client numbers as qpnic_datapath assigns them
enum { HOST = 0, FETCH = 1, REQ = 2, RESP = 3, COMP = 4 };

uint32_t qp_cfg(unsigned sq_log, unsigned rq_log, unsigned scq, unsigned rcq) {
    return QPNIC_FIELD(QPNIC_QP_CFG_SQ_LOG, sq_log) | QPNIC_FIELD(QPNIC_QP_CFG_RQ_LOG, rq_log) |
           QPNIC_FIELD(QPNIC_QP_CFG_SEND_CQ, scq) | QPNIC_FIELD(QPNIC_QP_CFG_RECV_CQ, rcq);
}

// The module's WORD_REGS: 0 in the iCE40's build (tb_qpnic_qp_table_ice40,
// tests/tests.mk), whose answer comes a cycle sooner and whose RAMs have
// twice the words to clear (the upper half its zero word).
#ifndef TB_WORD_REGS
#define TB_WORD_REGS 1
#endif
const int ANSWER_CYCLES = TB_WORD_REGS ? 3 : 2;
const int CLEAR_WORDS = TB_WORD_REGS ? NUM_QP : 2 * NUM_QP;

struct Answer { uint64_t cycle; int client; uint32_t rdata; unsigned n; uint32_t ctx[QPNIC_QP_CTX_WORDS]; };

struct Tb {
    std::unique_ptr<Vqpnic_qp_table> m{new Vqpnic_qp_table};
    uint64_t cycle = 0;
    std::deque<Answer> answers;

    // One clock; answers seen before the edge are recorded.
    void tick() {
        m->clk = 0;
        m->eval();
        for (int c = 0; c < CLIENTS; c++)
            if (getb(m->rsp_valid, c, 1)) {
                Answer a{cycle, c, m->rsp_rdata, m->rsp_n, {}};
                for (unsigned w = 0; w < QPNIC_QP_CTX_WORDS; w++)
                    a.ctx[w] = (uint32_t)getb(m->rsp_ctx, 32 * w, w * 32 + 32 <= QPNIC_QP_CTX_BITS ? 32 : QPNIC_QP_CTX_BITS - 32 * w);
                answers.push_back(a);
            }
        m->clk = 1;
        m->eval();
        cycle++;
    }

    void reset() {
        m->rst = 1;
        m->req_valid = 0;
        m->db_ready = 0;
        m->fl_ready = 0;
        for (int i = 0; i < 3; i++) tick();
        m->rst = 0;
    }

    void drive(int c, unsigned op, unsigned qpn, uint32_t arg = 0, unsigned off = 0) {
        setb(m->req_valid, c, 1, 1);
        setb(m->req_op, c * 4, 4, op);
        setb(m->req_qpn, c * QW, QW, qpn);
        setb(m->req_arg, c * 32, 32, arg);
        setb(m->req_off, c * OB, OB, off);
    }
    // One clock; returns the client granted in it (-1: none), checked to be
    // at most one.
    int grant_tick() {
        m->clk = 0;
        m->eval();
        int g = -1, n = 0;
        for (int k = 0; k < CLIENTS; k++)
            if (getb(m->req_ready, k, 1)) { g = k; n++; }
        CHECK(n <= 1, "%d grants in one cycle", n);
        tick();
        return g;
    }
    // One request from client c, held until granted; returns the grant cycle.
    uint64_t request(int c, unsigned op, unsigned qpn, uint32_t arg = 0, unsigned off = 0) {
        drive(c, op, qpn, arg, off);
        for (int w = 0; grant_tick() != c; w++)
            CHECK(w < 2000, "client %d op %u never granted", c, op);
        setb(m->req_valid, c, 1, 0);
        return cycle - 1;
    }
    // A request that is answered: the answer, checked to come three cycles
    // after the grant.
    Answer ask(int c, unsigned op, unsigned qpn, uint32_t arg = 0, unsigned off = 0) {
        answers.clear();
        uint64_t g = request(c, op, qpn, arg, off);
        for (int i = 0; i < 4 && answers.empty(); i++) tick();
        CHECK(!answers.empty(), "client %d op %u: no answer", c, op);
        Answer a = answers.front();
        CHECK(a.client == c, "answer went to client %d, asked by %d", a.client, c);
        CHECK(a.cycle == g + ANSWER_CYCLES, "answer %llu cycles after the grant, want %d",
              (unsigned long long)(a.cycle - g), ANSWER_CYCLES);
        answers.clear();
        return a;
    }
    void write(unsigned q, unsigned reg, uint32_t v) { request(HOST, QPNIC_QP_OP_HOST_WRITE, q, v, reg); }
    uint32_t read(unsigned q, unsigned reg) { return ask(HOST, QPNIC_QP_OP_HOST_READ, q, 0, reg).rdata; }
    void op(int c, unsigned op, unsigned q, uint32_t arg = 0) {
        answers.clear();
        request(c, op, q, arg);
        tick();
        tick();
        CHECK(answers.empty(), "op %u answered: it asks nothing", op);
    }

    // Pop the head of the doorbell queue (fl: the flush queue), if any,
    // after the last request has gone through the pipeline.
    int pop_queue(bool fl) {
        tick();
        tick();
        tick();
        m->clk = 0;
        m->eval();
        if (!(fl ? m->fl_valid : m->db_valid)) return -1;
        int q = fl ? m->fl_qpn : m->db_qpn;
        (fl ? m->fl_ready : m->db_ready) = 1;
        tick();
        (fl ? m->fl_ready : m->db_ready) = 0;
        return q;
    }
    int pop_db() { return pop_queue(false); }
    int pop_fl() { return pop_queue(true); }
};

uint32_t field(const Answer &a, unsigned word, unsigned shift, unsigned mask) { return (a.ctx[word] >> shift) & mask; }
#define CTX(a, F) field(a, F##_WORD, F##_SHIFT, F##_MASK)

void test_clear(Tb &t) {
    int busy = 0;
    for (;;) {
        t.drive(HOST, QPNIC_QP_OP_HOST_READ, 0, 0, QPNIC_QPREG_STATE);
        t.m->clk = 0;
        t.m->eval();
        bool g = t.m->req_ready & 1;
        t.m->req_valid = 0;
        t.m->eval();
        if (g) break;
        t.tick();
        CHECK(++busy <= CLEAR_WORDS + 2, "still clearing after %d cycles", busy);
    }
    CHECK(busy >= CLEAR_WORDS - 1, "cleared %d words in %d cycles", CLEAR_WORDS, busy);
    for (int q = 0; q < NUM_QP; q++)
        CHECK(t.read(q, QPNIC_QPREG_STATE) == QPNIC_QP_STATE_RESET && t.read(q, QPNIC_QPREG_SQ_BASE_LO) == 0,
              "QP %d not empty after reset", q);
    t.tick();
    CHECK(!t.m->db_valid && t.m->idle, "doorbell queue not empty / table not idle after reset");
    PASS("qp_table_clears_after_reset");
}

// The host's view (moved from tb_qpnic_csr with the contexts).
void test_registers(Tb &t) {
    const int q = 3;
    t.write(q, QPNIC_QPREG_SQ_BASE_LO, 0x12345640u);
    t.write(q, QPNIC_QPREG_SQ_BASE_HI, 0x00000abcu);
    t.write(q, QPNIC_QPREG_RQ_BASE_LO, 0x0000f000u);
    t.write(q, QPNIC_QPREG_RQ_BASE_HI, 0x00000001u);
    t.write(q, QPNIC_QPREG_CFG, qp_cfg(6, 4, 2, 5));
    t.write(q, QPNIC_QPREG_REMOTE, QPNIC_FIELD(QPNIC_QP_REMOTE_QPN, 7));
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RTS);
    Answer a = t.ask(REQ, QPNIC_QP_OP_READ, q);
    CHECK(a.ctx[QPNIC_QP_CTX_SQ_BASE_LO_WORD] == 0x12345640u && a.ctx[QPNIC_QP_CTX_SQ_BASE_HI_WORD] == 0xabc,
          "SQ base in the context wrong");
    CHECK(a.ctx[QPNIC_QP_CTX_RQ_BASE_LO_WORD] == 0xf000u && a.ctx[QPNIC_QP_CTX_RQ_BASE_HI_WORD] == 1,
          "RQ base in the context wrong");
    CHECK(CTX(a, QPNIC_QP_CTX_SQ_LOG) == 6 && CTX(a, QPNIC_QP_CTX_RQ_LOG) == 4, "log depths wrong");
    CHECK(CTX(a, QPNIC_QP_CTX_SEND_CQ) == 2 && CTX(a, QPNIC_QP_CTX_RECV_CQ) == 5, "CQ numbers wrong");
    CHECK(CTX(a, QPNIC_QP_CTX_REMOTE_QPN) == 7, "remote wrong");
    CHECK(CTX(a, QPNIC_QP_CTX_STATE) == QPNIC_QP_STATE_RTS, "state not RTS");
    Answer n = t.ask(REQ, QPNIC_QP_OP_READ, 2);
    CHECK(n.ctx[QPNIC_QP_CTX_SQ_BASE_LO_WORD] == 0 && CTX(n, QPNIC_QP_CTX_STATE) == 0,
          "a write to QP 3 changed a neighbour");
    CHECK(t.read(q, QPNIC_QPREG_CFG) == qp_cfg(6, 4, 2, 5), "CFG read back 0x%08x", t.read(q, QPNIC_QPREG_CFG));
    CHECK(t.read(q, QPNIC_QPREG_REMOTE) == QPNIC_FIELD(QPNIC_QP_REMOTE_QPN, 7), "REMOTE read back 0x%08x",
          t.read(q, QPNIC_QPREG_REMOTE));
    CHECK(t.read(q, QPNIC_QPREG_SQ_BASE_HI) == 0xabc, "SQ_BASE_HI read back");

    t.write(q, QPNIC_QPREG_RQ_PI, 9);
    CHECK(t.read(q, QPNIC_QPREG_RQ_PI) == 9, "RQ_PI read back");

    // CI increments, from the responder and the completer
    t.op(RESP, QPNIC_QP_OP_RQ_CI_INC, q);
    t.op(COMP, QPNIC_QP_OP_SQ_CI_INC, q);
    t.op(RESP, QPNIC_QP_OP_RQ_CI_INC, q);
    t.op(COMP, QPNIC_QP_OP_SQ_CI_INC, q);
    t.op(COMP, QPNIC_QP_OP_SQ_CI_INC, 1);
    t.op(RESP, QPNIC_QP_OP_RQ_CI_INC, q);
    CHECK(t.read(q, QPNIC_QPREG_RQ_CI) == 3, "RQ_CI want 3, got %u", t.read(q, QPNIC_QPREG_RQ_CI));
    CHECK(t.read(q, QPNIC_QPREG_SQ_CI) == 2, "SQ_CI of QP 3 want 2");
    CHECK(t.read(1, QPNIC_QPREG_SQ_CI) == 1, "SQ_CI of QP 1 want 1");

    // SET_ERR
    t.op(REQ, QPNIC_QP_OP_SET_ERR, q);
    CHECK(t.read(q, QPNIC_QPREG_STATE) == QPNIC_QP_STATE_ERROR, "SET_ERR did not set ERROR");

    // RESET zeroes the indices, the PSN and comp_err
    t.ask(REQ, QPNIC_QP_OP_PSN, q);
    t.op(COMP, QPNIC_QP_OP_COMP_FAIL, q, 0);
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RESET);
    Answer r = t.ask(REQ, QPNIC_QP_OP_READ, q);
    CHECK(CTX(r, QPNIC_QP_CTX_STATE) == QPNIC_QP_STATE_RESET, "state not RESET");
    CHECK(CTX(r, QPNIC_QP_CTX_SQ_PI) == 0 && CTX(r, QPNIC_QP_CTX_RQ_PI) == 0 && CTX(r, QPNIC_QP_CTX_SQ_CI) == 0 &&
              CTX(r, QPNIC_QP_CTX_RQ_CI) == 0 && CTX(r, QPNIC_QP_CTX_FETCH_PTR) == 0,
          "RESET left an index");
    CHECK(CTX(r, QPNIC_QP_CTX_PSN) == 0 && CTX(r, QPNIC_QP_CTX_COMP_ERR) == 0, "RESET left the PSN or comp_err");
    CHECK(r.ctx[QPNIC_QP_CTX_SQ_BASE_LO_WORD] == 0x12345640u, "RESET lost the configuration");
    // an error for a QP in RESET is ignored: a late error must not revive it
    t.op(REQ, QPNIC_QP_OP_SET_ERR, q);
    t.op(COMP, QPNIC_QP_OP_COMP_FAIL, q, 1);
    CHECK(t.read(q, QPNIC_QPREG_STATE) == QPNIC_QP_STATE_RESET, "an error revived a QP in RESET");
    // a QP number beyond the table changes nothing and reads 0
    t.write(NUM_QP + 2, QPNIC_QPREG_SQ_BASE_LO, 0xdead0000u);
    CHECK(t.read(NUM_QP + 2, QPNIC_QPREG_SQ_BASE_LO) == 0, "QP %d beyond the table reads non-zero", NUM_QP + 2);
    CHECK(t.read(2, QPNIC_QPREG_SQ_BASE_LO) == 0, "a write beyond the table landed on QP 2");
    // one whose low bits are q's answers the all-zero word, not q's
    Answer z = t.ask(REQ, QPNIC_QP_OP_READ, q + NUM_QP);
    for (unsigned w = 0; w < QPNIC_QP_CTX_WORDS; w++)
        CHECK(z.ctx[w] == 0, "QP %u beyond the table answers word %u = %08x (QP %u's?)", q + NUM_QP, w, z.ctx[w], q);
    PASS("qp_table_registers_ci_error_reset");
}

void test_psn_comp_fail(Tb &t) {
    const int q = 5;
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RTS);
    t.write(q, QPNIC_QPREG_REMOTE, QPNIC_FIELD(QPNIC_QP_REMOTE_QPN, 4));
    for (unsigned k = 0; k < 5; k++) {
        Answer a = t.ask(REQ, QPNIC_QP_OP_PSN, q);
        CHECK(CTX(a, QPNIC_QP_CTX_PSN) == k, "PSN %u: got %u", k, CTX(a, QPNIC_QP_CTX_PSN));
        CHECK(CTX(a, QPNIC_QP_CTX_REMOTE_QPN) == 4, "PSN's answer carries remote %u", CTX(a, QPNIC_QP_CTX_REMOTE_QPN));
    }
    t.op(COMP, QPNIC_QP_OP_COMP_FAIL, q, 0);
    Answer a = t.ask(COMP, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_COMP_ERR) == 1 && CTX(a, QPNIC_QP_CTX_STATE) == QPNIC_QP_STATE_RTS,
          "COMP_FAIL 0: comp_err %u state %u, want 1 RTS", CTX(a, QPNIC_QP_CTX_COMP_ERR), CTX(a, QPNIC_QP_CTX_STATE));
    t.op(COMP, QPNIC_QP_OP_COMP_FAIL, q, 1);
    CHECK(t.read(q, QPNIC_QPREG_STATE) == QPNIC_QP_STATE_ERROR, "COMP_FAIL 1 did not set ERROR");
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RESET);
    PASS("qp_table_psn_and_comp_fail");
}

void test_rnr(Tb &t) {
    const int q = 3, r = 4;
    const unsigned E = 1u << QPNIC_EPOCH_ARG_BIT;   // the epoch bit of PSN's argument
    t.write(q, QPNIC_QPREG_CFG, qp_cfg(4, 4, 0, 0));
    t.write(q, QPNIC_QPREG_RNR_RETRY, QPNIC_FIELD(QPNIC_QP_RNR_RETRY, 2));
    CHECK(t.read(q, QPNIC_QPREG_RNR_RETRY) == 2, "RNR_RETRY reads back %u", t.read(q, QPNIC_QPREG_RNR_RETRY));
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RTS);
    Answer a = t.ask(COMP, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_RNR_LEFT) == 2, "the connect left %u retries, want 2", CTX(a, QPNIC_QP_CTX_RNR_LEFT));
    // five WQEs fetched, three PSNs
    t.write(q, QPNIC_QPREG_SQ_PI, 5);
    CHECK(t.pop_db() == q, "doorbell did not queue QP %d", q);
    a = t.ask(FETCH, QPNIC_QP_OP_FETCH, q, 8);
    CHECK(a.n == 5, "claimed %u, want 5", a.n);
    for (unsigned k = 0; k < 3; k++) t.ask(REQ, QPNIC_QP_OP_PSN, q, 0);
    t.op(COMP, QPNIC_QP_OP_SQ_CI_INC, q);   // WQE 0 completed
    // the SEND at index 1 had PSN 1: REWIND goes back to it
    a = t.ask(COMP, QPNIC_QP_OP_REWIND, q, 1);
    CHECK(CTX(a, QPNIC_QP_CTX_STATE) == QPNIC_QP_STATE_RTS && CTX(a, QPNIC_QP_CTX_RNR_LEFT) == 2,
          "REWIND's answer is not the context before it");
    a = t.ask(COMP, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_FETCH_PTR) == 1 && CTX(a, QPNIC_QP_CTX_PSN) == 1 &&
              CTX(a, QPNIC_QP_CTX_EPOCH) == 1 && CTX(a, QPNIC_QP_CTX_RNR_WAIT) == 1 &&
              CTX(a, QPNIC_QP_CTX_RNR_LEFT) == 1,
          "after REWIND: fetch_ptr %u psn %u epoch %u rnr_wait %u left %u; want 1 1 1 1 1",
          CTX(a, QPNIC_QP_CTX_FETCH_PTR), CTX(a, QPNIC_QP_CTX_PSN), CTX(a, QPNIC_QP_CTX_EPOCH),
          CTX(a, QPNIC_QP_CTX_RNR_WAIT), CTX(a, QPNIC_QP_CTX_RNR_LEFT));
    // a stale WQE (epoch 0) takes no PSN
    t.ask(REQ, QPNIC_QP_OP_PSN, q, 0);
    a = t.ask(REQ, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_PSN) == 1, "a stale PSN changed the QP: psn %u", CTX(a, QPNIC_QP_CTX_PSN));
    // waiting: a doorbell does not queue it, FETCH claims nothing
    t.write(q, QPNIC_QPREG_SQ_PI, 6);
    CHECK(t.pop_db() == -1, "a doorbell queued a QP waiting for its RNR timer");
    a = t.ask(FETCH, QPNIC_QP_OP_FETCH, q, 8);
    CHECK(a.n == 0, "FETCH claimed %u while rnr_wait", a.n);
    // the wake queues it; FETCH claims from the SEND on in the new epoch
    t.op(COMP, QPNIC_QP_OP_RNR_WAKE, q);
    CHECK(t.pop_db() == q, "RNR_WAKE did not queue the QP");
    a = t.ask(FETCH, QPNIC_QP_OP_FETCH, q, 8);
    CHECK(a.n == 5 && CTX(a, QPNIC_QP_CTX_FETCH_PTR) == 1 && CTX(a, QPNIC_QP_CTX_EPOCH) == 1,
          "after the wake: claimed %u from %u in epoch %u, want 5 from 1 in 1", a.n,
          CTX(a, QPNIC_QP_CTX_FETCH_PTR), CTX(a, QPNIC_QP_CTX_EPOCH));
    // a WQE of the new epoch takes the next PSN
    t.ask(REQ, QPNIC_QP_OP_PSN, q, E);
    a = t.ask(REQ, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_PSN) == 2, "the new epoch's PSN: psn %u, want 2", CTX(a, QPNIC_QP_CTX_PSN));
    // one retry left, then none: REWIND refuses and changes nothing
    t.ask(COMP, QPNIC_QP_OP_REWIND, q, 1);
    a = t.ask(COMP, QPNIC_QP_OP_REWIND, q, 1);
    CHECK(CTX(a, QPNIC_QP_CTX_RNR_LEFT) == 0, "%u retries left after two rewinds", CTX(a, QPNIC_QP_CTX_RNR_LEFT));
    a = t.ask(COMP, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_EPOCH) == 0 && CTX(a, QPNIC_QP_CTX_RNR_LEFT) == 0,
          "a refused REWIND changed the QP: epoch %u", CTX(a, QPNIC_QP_CTX_EPOCH));
    // a completion restores the retries
    t.op(COMP, QPNIC_QP_OP_SQ_CI_INC, q);
    a = t.ask(COMP, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_RNR_LEFT) == 2, "SQ_CI_INC left %u retries, want 2", CTX(a, QPNIC_QP_CTX_RNR_LEFT));
    // in ERROR a REWIND is refused
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_ERROR);
    t.ask(COMP, QPNIC_QP_OP_REWIND, q, 1);
    a = t.ask(COMP, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_RNR_LEFT) == 2, "a REWIND in ERROR took a retry");
    t.op(COMP, QPNIC_QP_OP_RNR_WAKE, q);
    CHECK(t.pop_db() == q, "the last wake did not queue the QP (its WQEs are to be flushed)");
    // the target side: RSP_RNR marks the QP until a receive is consumed
    t.write(r, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RTS);
    t.op(RESP, QPNIC_QP_OP_RSP_RNR, r, 0x123456);
    a = t.ask(RESP, QPNIC_QP_OP_READ, r);
    CHECK(CTX(a, QPNIC_QP_CTX_RSP_RNR) == 1 && CTX(a, QPNIC_QP_CTX_EPSN) == 0x123456,
          "RSP_RNR: rsp_rnr %u epsn 0x%x", CTX(a, QPNIC_QP_CTX_RSP_RNR), CTX(a, QPNIC_QP_CTX_EPSN));
    t.op(RESP, QPNIC_QP_OP_RQ_CI_INC, r);
    a = t.ask(RESP, QPNIC_QP_OP_READ, r);
    CHECK(CTX(a, QPNIC_QP_CTX_RSP_RNR) == 0, "a consumed receive left rsp_rnr set");
    CHECK(CTX(a, QPNIC_QP_CTX_EPSN) == 0x123457, "a consumed receive (the SEND) left epsn 0x%x, want 0x123457",
          CTX(a, QPNIC_QP_CTX_EPSN));
    // RSP_SEQ answers the context as it was; a WRITE or READ (bit 24) of
    // the expected PSN advances it, a SEND's (no bit 24), a duplicate's or
    // an early one's does not
    const uint32_t EXEC = 1u << 24;
    a = t.ask(RESP, QPNIC_QP_OP_RSP_SEQ, r, EXEC | 0x123457);
    CHECK(CTX(a, QPNIC_QP_CTX_EPSN) == 0x123457, "RSP_SEQ answered epsn 0x%x, the word before", CTX(a, QPNIC_QP_CTX_EPSN));
    a = t.ask(RESP, QPNIC_QP_OP_RSP_SEQ, r, EXEC | 0x123457);   // the duplicate
    CHECK(CTX(a, QPNIC_QP_CTX_EPSN) == 0x123458, "a WRITE of epsn left epsn 0x%x, want 0x123458", CTX(a, QPNIC_QP_CTX_EPSN));
    t.ask(RESP, QPNIC_QP_OP_RSP_SEQ, r, EXEC | 0x12345A);       // ahead
    t.ask(RESP, QPNIC_QP_OP_RSP_SEQ, r, 0x123458);              // a SEND
    a = t.ask(RESP, QPNIC_QP_OP_READ, r);
    CHECK(CTX(a, QPNIC_QP_CTX_EPSN) == 0x123458, "a duplicate, an early PSN or a SEND moved epsn to 0x%x",
          CTX(a, QPNIC_QP_CTX_EPSN));
    // and it wraps at 24 bits
    t.op(RESP, QPNIC_QP_OP_RSP_RNR, r, 0xFFFFFF);
    t.ask(RESP, QPNIC_QP_OP_RSP_SEQ, r, EXEC | 0xFFFFFF);
    a = t.ask(RESP, QPNIC_QP_OP_READ, r);
    CHECK(CTX(a, QPNIC_QP_CTX_EPSN) == 0, "epsn after 0xFFFFFF is 0x%x, want 0", CTX(a, QPNIC_QP_CTX_EPSN));
    // RESET zeroes the retry's marks
    t.op(RESP, QPNIC_QP_OP_RSP_RNR, r, 7);
    t.write(r, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RESET);
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RESET);
    a = t.ask(RESP, QPNIC_QP_OP_READ, r);
    CHECK(CTX(a, QPNIC_QP_CTX_RSP_RNR) == 0 && CTX(a, QPNIC_QP_CTX_EPSN) == 0, "RESET left rsp_rnr");
    a = t.ask(COMP, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_EPOCH) == 0 && CTX(a, QPNIC_QP_CTX_RNR_WAIT) == 0,
          "RESET left epoch %u rnr_wait %u", CTX(a, QPNIC_QP_CTX_EPOCH), CTX(a, QPNIC_QP_CTX_RNR_WAIT));
    CHECK(t.pop_db() == -1, "queue not empty at the end");
    PASS("qp_table_rnr_rewind_wait_wake");
}

void test_doorbells(Tb &t) {
    const int q = 2, p = 6;
    t.write(q, QPNIC_QPREG_SQ_BASE_LO, 0x10000u);
    t.write(q, QPNIC_QPREG_CFG, qp_cfg(4, 4, 0, 0));   // 16 WQEs
    t.write(p, QPNIC_QPREG_CFG, qp_cfg(5, 5, 0, 0));
    // a doorbell in RESET queues nothing; leaving RESET does
    t.write(q, QPNIC_QPREG_SQ_PI, 3);
    CHECK(t.pop_db() == -1, "a doorbell of a QP in RESET queued it");
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RTS);
    CHECK(t.read(q, QPNIC_QPREG_SQ_PI) == 3, "SQ_PI lost by the state write");
    // further doorbells do not queue it twice
    t.write(q, QPNIC_QPREG_SQ_PI, 13);
    t.write(q, QPNIC_QPREG_SQ_PI, 20);
    t.write(p, QPNIC_QPREG_STATE, QPNIC_QP_STATE_ERROR);   // ERROR QPs are fetched (flushed) too
    t.write(p, QPNIC_QPREG_SQ_PI, 2);
    CHECK(t.pop_db() == q, "doorbell queue head is not QP %d", q);
    // 20 WQEs from 0: 8, then 8 (to the ring's end, 16), then 4
    Answer a = t.ask(FETCH, QPNIC_QP_OP_FETCH, q, 8);
    CHECK(a.n == 8 && CTX(a, QPNIC_QP_CTX_FETCH_PTR) == 0, "first claim: n %u from %u, want 8 from 0", a.n,
          CTX(a, QPNIC_QP_CTX_FETCH_PTR));
    CHECK(a.ctx[QPNIC_QP_CTX_SQ_BASE_LO_WORD] == 0x10000u && CTX(a, QPNIC_QP_CTX_SQ_LOG) == 4,
          "the claim's answer lacks the ring");
    CHECK(t.pop_db() == p, "QP %d (one doorbell) not next in the queue", p);
    CHECK(t.pop_db() == q, "QP %d with WQEs left not requeued at the tail", q);
    CHECK(t.pop_db() == -1, "queue holds more than the two QPs");
    a = t.ask(FETCH, QPNIC_QP_OP_FETCH, q, 8);
    CHECK(a.n == 8 && CTX(a, QPNIC_QP_CTX_FETCH_PTR) == 8, "second claim: n %u from %u", a.n,
          CTX(a, QPNIC_QP_CTX_FETCH_PTR));
    CHECK(t.pop_db() == q, "requeued again");
    a = t.ask(FETCH, QPNIC_QP_OP_FETCH, q, 8);
    CHECK(a.n == 4 && CTX(a, QPNIC_QP_CTX_FETCH_PTR) == 16, "third claim: n %u from %u, want 4 from 16", a.n,
          CTX(a, QPNIC_QP_CTX_FETCH_PTR));
    CHECK(t.pop_db() == -1, "QP with nothing left still queued");
    a = t.ask(FETCH, QPNIC_QP_OP_FETCH, p, 1);   // the claim honours its limit
    CHECK(a.n == 1, "claim limited to 1 took %u", a.n);
    CHECK(t.pop_db() == p, "QP %d with one left not requeued", p);
    // a RESET while queued: the stale entry claims nothing and leaves
    t.write(p, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RESET);
    a = t.ask(FETCH, QPNIC_QP_OP_FETCH, p, 8);
    CHECK(a.n == 0, "a QP in RESET claimed %u", a.n);
    CHECK(t.pop_db() == -1, "a QP in RESET requeued");
    // after the reset a doorbell queues it once more
    t.write(p, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RTS);
    t.write(p, QPNIC_QPREG_SQ_PI, 1);
    CHECK(t.pop_db() == p, "QP %d not queued after RESET, RTS, doorbell", p);
    a = t.ask(FETCH, QPNIC_QP_OP_FETCH, p, 8);
    CHECK(a.n == 1 && CTX(a, QPNIC_QP_CTX_FETCH_PTR) == 0, "claim after RESET: n %u from %u", a.n,
          CTX(a, QPNIC_QP_CTX_FETCH_PTR));
    CHECK(t.pop_db() == -1, "queue not empty at the end");
    PASS("qp_table_doorbell_queue_and_fetch");
}

// Every client asks at once, all on one QP: round robin, one grant every
// three cycles (each waits until the one before is written back), and each
// increment sees the last. Then on four different QPs: a grant every cycle.
void test_back_to_back(Tb &t) {
    const int q = 7;
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RTS);
    t.answers.clear();
    // REQ asks PSN, RESP and COMP increment, FETCH reads, all held together
    t.drive(REQ, QPNIC_QP_OP_PSN, q);
    t.drive(RESP, QPNIC_QP_OP_RQ_CI_INC, q);
    t.drive(COMP, QPNIC_QP_OP_SQ_CI_INC, q);
    t.drive(FETCH, QPNIC_QP_OP_READ, q);
    int granted[CLIENTS] = {0};
    int last = -3;
    for (int c = 0; c < 60; c++) {
        int g = t.grant_tick();
        if (g >= 0) {
            granted[g]++;
            CHECK(c - last >= 3, "grants on one QP in cycles %d and %d: the first not yet written back",
                  last, c);
            last = c;
        }
    }
    t.m->req_valid = 0;
    for (int k = 1; k < CLIENTS; k++)
        CHECK(granted[k] == 5, "client %d granted %d times in 60 cycles on one QP, want 5 (round robin, one in 3 cycles)",
              k, granted[k]);
    t.tick();
    t.tick();
    t.tick();
    Answer a = t.ask(COMP, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_PSN) == 5 && CTX(a, QPNIC_QP_CTX_RQ_CI) == 5 && CTX(a, QPNIC_QP_CTX_SQ_CI) == 5,
          "after 5 of each, back to back: psn %u rq_ci %u sq_ci %u", CTX(a, QPNIC_QP_CTX_PSN),
          CTX(a, QPNIC_QP_CTX_RQ_CI), CTX(a, QPNIC_QP_CTX_SQ_CI));

    // four clients, four QPs: nothing waits
    t.answers.clear();
    t.drive(REQ, QPNIC_QP_OP_READ, 1);
    t.drive(RESP, QPNIC_QP_OP_READ, 2);
    t.drive(COMP, QPNIC_QP_OP_READ, 3);
    t.drive(FETCH, QPNIC_QP_OP_READ, 4);
    int grants = 0;
    for (int c = 0; c < 4; c++) {
        int g = t.grant_tick();
        if (g >= 0) {
            grants++;
            setb(t.m->req_valid, g, 1, 0);   // each asks once
        }
    }
    t.m->req_valid = 0;
    CHECK(grants == 4, "four requests on four QPs: %d grants in 4 cycles, want 4", grants);
    PASS("qp_table_back_to_back_round_robin");
}

// The QP state machine (layout enum qp_state transitions): the host's
// changes the machine refuses leave the state alone; the engines' ERROR is
// taken in RTS only; a QP in ERROR with receives posted joins the flush
// queue once, and RQ_FLUSH claims them one by one, then dequeues it.
void test_state_machine(Tb &t) {
    const unsigned q = 6;
    // the earlier tests left QPs in ERROR with receives posted: queued
    for (int n = 0; t.pop_fl() >= 0; n++)
        CHECK(n < NUM_QP, "the flush queue holds more than NUM_QP entries");
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RESET);
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RTS);
    CHECK(t.read(q, QPNIC_QPREG_STATE) == QPNIC_QP_STATE_RTS, "RESET -> RTS refused");
    t.write(q, QPNIC_QPREG_RQ_PI, 3);
    t.op(RESP, QPNIC_QP_OP_RQ_CI_ERR, q);   // a receive failed
    CHECK(t.read(q, QPNIC_QPREG_STATE) == QPNIC_QP_STATE_ERROR, "RQ_CI_ERR did not take the QP to ERROR");
    CHECK(t.read(q, QPNIC_QPREG_RQ_CI) == 1, "RQ_CI_ERR did not consume the receive");
    const uint32_t refused[] = { QPNIC_QP_STATE_RTS, 3u, 0x101u };
    for (uint32_t v : refused) {
        t.write(q, QPNIC_QPREG_STATE, v);
        CHECK(t.read(q, QPNIC_QPREG_STATE) == QPNIC_QP_STATE_ERROR,
              "a STATE write of 0x%x moved a QP out of ERROR", v);
    }
    CHECK(t.read(q, QPNIC_QPREG_RQ_CI) == 1 && t.read(q, QPNIC_QPREG_RQ_PI) == 3,
          "a refused STATE write changed the indices");
    // the two receives left are flushed, in order, then the QP leaves the queue
    CHECK(t.pop_fl() == (int)q, "a QP in ERROR with receives posted is not in the flush queue");
    CHECK(t.pop_fl() == -1, "the flush queue holds the QP twice");
    for (unsigned i = 0; i < 3; i++) {
        Answer a = t.ask(RESP, QPNIC_QP_OP_RQ_FLUSH, q);
        unsigned ci = CTX(a, QPNIC_QP_CTX_RQ_CI), fl = CTX(a, QPNIC_QP_CTX_RQ_FLUSH);
        CHECK(fl == 1, "RQ_FLUSH %u: the rq_flush mark is not set", i);
        CHECK(ci == 1 + i, "RQ_FLUSH %u answered rq_ci %u, want %u", i, ci, 1 + i);
    }
    Answer a = t.ask(RESP, QPNIC_QP_OP_READ, q);
    CHECK(CTX(a, QPNIC_QP_CTX_RQ_CI) == 3 && CTX(a, QPNIC_QP_CTX_RQ_FLUSH) == 0,
          "after the flush: rq_ci %u (want 3), rq_flush %u (want 0)", CTX(a, QPNIC_QP_CTX_RQ_CI),
          CTX(a, QPNIC_QP_CTX_RQ_FLUSH));
    // a receive posted in ERROR joins the queue again
    t.write(q, QPNIC_QPREG_RQ_PI, 4);
    CHECK(t.pop_fl() == (int)q, "a receive posted in ERROR was not queued for its flush");
    a = t.ask(RESP, QPNIC_QP_OP_RQ_FLUSH, q);
    CHECK(CTX(a, QPNIC_QP_CTX_RQ_CI) == 3, "RQ_FLUSH claimed rq_ci %u, want 3", CTX(a, QPNIC_QP_CTX_RQ_CI));
    t.ask(RESP, QPNIC_QP_OP_RQ_FLUSH, q);
    // RESET is always allowed; an engine's ERROR in RESET is not
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RESET);
    t.op(REQ, QPNIC_QP_OP_SET_ERR, q);
    t.op(RESP, QPNIC_QP_OP_RQ_CI_ERR, q);
    CHECK(t.read(q, QPNIC_QPREG_STATE) == QPNIC_QP_STATE_RESET, "an engine moved a QP in RESET to ERROR");
    t.write(q, QPNIC_QPREG_STATE, QPNIC_QP_STATE_RESET);
    CHECK(t.pop_fl() == -1, "the flush queue is not empty at the end");
    PASS("qp_table_state_machine_and_flush_queue");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    t.reset();
    test_clear(t);
    test_registers(t);
    test_psn_comp_fail(t);
    test_doorbells(t);
    test_back_to_back(t);
    test_state_machine(t);
    test_rnr(t);
    return 0;
}
