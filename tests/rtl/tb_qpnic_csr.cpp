// tb_qpnic_csr: unit test of rtl/qpnic_csr.v, the host register block.
//
// Checks, through MMIO alone plus the flat outputs: the fixed registers,
// SCRATCH, counters (doorbells, every strobe-fed counter, _LO latching _HI,
// the notification latency sum and max),
// the QP block routed to the QP table's host port (fields, stalls, a read's
// answer whenever the table gives it, no other access meanwhile, doorbells
// counted; the QP registers themselves are tb_qpnic_qp_table's), MR staging
// and its one update per MR_CMD to
// the token table (qpnic_mr_table has its own testbench), CQ contexts (enable
// zeroing, CQE-writer strobes moving PI and the marks, overrun), and the ARM
// doorbell becoming an event, stalling MMIO while the event FIFO is full.
// Not for: the CQE writer or the firmware side (their own testbenches).
#include <cstdint>
#include <memory>

#include "Vqpnic_csr.h"
#include "verilated.h"
#include "tb_util.h"
#include "qpnic_hw.h"

namespace {

// Packed register words, built from the layout's register structs.
uint32_t qp_cfg(unsigned sq_log, unsigned rq_log, unsigned scq, unsigned rcq) {
    return QPNIC_FIELD(QPNIC_QP_CFG_SQ_LOG, sq_log) | QPNIC_FIELD(QPNIC_QP_CFG_RQ_LOG, rq_log) |
           QPNIC_FIELD(QPNIC_QP_CFG_SEND_CQ, scq) | QPNIC_FIELD(QPNIC_QP_CFG_RECV_CQ, rcq);
}
uint32_t cq_cfg(bool enable, unsigned log_depth) {
    return QPNIC_FIELD(QPNIC_CQ_CFG_ENABLE, enable) | QPNIC_FIELD(QPNIC_CQ_CFG_LOG_DEPTH, log_depth);
}
uint32_t cq_state(bool enabled, bool overrun) {
    return QPNIC_FIELD(QPNIC_CQ_STATE_ENABLED, enabled) | QPNIC_FIELD(QPNIC_CQ_STATE_OVERRUN, overrun);
}
uint32_t status(bool fw_ready, bool idle) {
    return QPNIC_FIELD(QPNIC_STATUS_FW_READY, fw_ready) | QPNIC_FIELD(QPNIC_STATUS_IDLE, idle);
}

template <std::size_t W>
uint64_t bits(const VlWide<W> &v, int lsb, int width) {
    uint64_t r = 0;
    for (int i = 0; i < width; i++) {
        int b = lsb + i;
        if ((v[b / 32] >> (b % 32)) & 1u) r |= 1ull << i;
    }
    return r;
}
uint64_t bits(uint64_t v, int lsb, int width) {
    return (v >> lsb) & (width >= 64 ? ~0ull : ((1ull << width) - 1));
}

struct Tb {
    std::unique_ptr<Vqpnic_csr> m{new Vqpnic_csr};

    void tick() { tb_tick(m.get()); }

    void reset() {
        m->rst = 1;
        m->mmio_valid = 0;
        m->arm_evt_ready = 1;
        m->mr_upd_ready = 1;
        m->qph_ready = 1;
        m->qph_rvalid = 0;
        for (int i = 0; i < 3; i++) tick();
        m->rst = 0;
        tick();
    }

    // What the token table was offered in the cycle the last write was
    // accepted.
    struct MrUpd { bool valid; unsigned idx; bool write; uint64_t va, dma;
                   uint32_t len, lkey, rkey; unsigned access; } upd{};

    // Drive one write; returns the cycles it waited for mmio_ready.
    int write(uint32_t addr, uint32_t data, int max_wait = 100) {
        m->mmio_valid = 1;
        m->mmio_we = 1;
        m->mmio_addr = addr;
        m->mmio_wdata = data;
        int waited = 0;
        for (;;) {
            m->clk = 0;
            m->eval();
            bool acc = m->mmio_ready;
            if (acc)
                upd = {m->mr_upd_valid && m->mr_upd_ready, m->mr_upd_idx, (bool)m->mr_upd_write,
                       m->mr_upd_va, m->mr_upd_dma, m->mr_upd_len, m->mr_upd_lkey,
                       m->mr_upd_rkey, m->mr_upd_access};
            m->clk = 1;
            m->eval();
            if (acc) break;
            CHECK(++waited < max_wait, "write 0x%04x never accepted", addr);
        }
        m->mmio_valid = 0;
        m->mmio_we = 0;
        return waited;
    }

    uint32_t read(uint32_t addr) {
        m->mmio_valid = 1;
        m->mmio_we = 0;
        m->mmio_addr = addr;
        m->clk = 0;
        m->eval();
        CHECK(m->mmio_ready, "read 0x%04x not accepted at once", addr);
        m->clk = 1;
        m->eval();
        m->mmio_valid = 0;
        for (int i = 0; i < 4; i++) {
            if (m->mmio_rvalid) {
                uint32_t d = m->mmio_rdata;
                tick();
                CHECK(!m->mmio_rvalid, "read 0x%04x: rvalid longer than one cycle", addr);
                return d;
            }
            tick();
        }
        CHECK(false, "read 0x%04x: no reply", addr);
        return 0;
    }

    uint64_t counter(uint32_t lo) {
        uint64_t l = read(lo);
        uint64_t h = read(lo + 4);
        return (h << 32) | l;
    }
};

void test_fixed(Tb &t) {
    CHECK(t.read(QPNIC_REG_ID) == QPNIC_ID_VALUE, "ID reads 0x%08x", t.read(QPNIC_REG_ID));
    CHECK(t.read(QPNIC_REG_VERSION) == QPNIC_VERSION_VALUE, "VERSION wrong");
    // the csr runs with its default parameters: the layout's default build
    // (CAPS0 lost num_mr and max_sge to CAPS2 and CAPS1 when the counts grew
    // to 16 bits)
    uint32_t c0 = t.read(QPNIC_REG_CAPS0);
    CHECK(QPNIC_FIELD_GET(&c0, QPNIC_CAPS0_NUM_QP) == QPNIC_NUM_QP &&
              QPNIC_FIELD_GET(&c0, QPNIC_CAPS0_NUM_CQ) == QPNIC_NUM_CQ,
          "CAPS0 = 0x%08x", c0);
    CHECK(c0 == (QPNIC_FIELD(QPNIC_CAPS0_NUM_QP, QPNIC_NUM_QP) | QPNIC_FIELD(QPNIC_CAPS0_NUM_CQ, QPNIC_NUM_CQ)),
          "CAPS0 = 0x%08x has bits outside its fields", c0);
    uint32_t c1 = t.read(QPNIC_REG_CAPS1);
    CHECK(QPNIC_FIELD_GET(&c1, QPNIC_CAPS1_LOG_MAX_QP_DEPTH) == QPNIC_LOG_MAX_QP_DEPTH &&
              QPNIC_FIELD_GET(&c1, QPNIC_CAPS1_LOG_MAX_CQ_DEPTH) == QPNIC_LOG_MAX_CQ_DEPTH &&
              QPNIC_FIELD_GET(&c1, QPNIC_CAPS1_FETCH_BURST_WQES) == QPNIC_FETCH_BURST_WQES &&
              QPNIC_FIELD_GET(&c1, QPNIC_CAPS1_MAX_SGE) == QPNIC_MAX_SGE,
          "CAPS1 = 0x%08x", c1);
    CHECK(c1 == (QPNIC_FIELD(QPNIC_CAPS1_LOG_MAX_QP_DEPTH, QPNIC_LOG_MAX_QP_DEPTH) |
                 QPNIC_FIELD(QPNIC_CAPS1_LOG_MAX_CQ_DEPTH, QPNIC_LOG_MAX_CQ_DEPTH) |
                 QPNIC_FIELD(QPNIC_CAPS1_FETCH_BURST_WQES, QPNIC_FETCH_BURST_WQES) |
                 QPNIC_FIELD(QPNIC_CAPS1_MAX_SGE, QPNIC_MAX_SGE)),
          "CAPS1 = 0x%08x has bits outside its fields", c1);
    uint32_t c2 = t.read(QPNIC_REG_CAPS2);
    CHECK(c2 == QPNIC_FIELD(QPNIC_CAPS2_NUM_MR, QPNIC_NUM_MR), "CAPS2 = 0x%08x", c2);
    CHECK(t.read(QPNIC_REG_SCRATCH) == 0, "SCRATCH not 0 after reset");
    t.write(QPNIC_REG_SCRATCH, 0xA5C3F00Du);
    CHECK(t.read(QPNIC_REG_SCRATCH) == 0xA5C3F00Du, "SCRATCH does not keep a write");
    CHECK(t.read(0x0800) == 0, "unmapped offset does not read 0");
    t.m->fw_ready = 1;
    t.m->nic_idle = 0;
    CHECK(t.read(QPNIC_REG_STATUS) == status(true, false), "STATUS with fw ready, busy: 0x%x",
          t.read(QPNIC_REG_STATUS));
    t.m->fw_ready = 0;
    t.m->nic_idle = 1;
    CHECK(t.read(QPNIC_REG_STATUS) == status(false, true), "STATUS with fw not ready, idle: 0x%x",
          t.read(QPNIC_REG_STATUS));
    PASS("csr_fixed_registers_scratch_status");
}

void test_qp(Tb &t) {
    auto *m = t.m.get();
    const int q = 3;
    // a write goes to the QP table's host port as it is, and waits for it
    m->qph_ready = 0;
    m->mmio_valid = 1; m->mmio_we = 1; m->mmio_addr = QPNIC_QPREG(q, CFG); m->mmio_wdata = 0x01020304u;
    for (int i = 0; i < 3; i++) {
        m->clk = 0; m->eval();
        CHECK(m->qph_valid && m->qph_we && m->qph_idx == q && m->qph_off == QPNIC_QPREG_CFG &&
                  m->qph_wdata == 0x01020304u,
              "QP write not offered as QP %u reg 0x%x data 0x%08x", m->qph_idx, m->qph_off, m->qph_wdata);
        CHECK(!m->mmio_ready, "QP write accepted while the QP table is not ready");
        m->clk = 1; m->eval();
    }
    m->mmio_valid = 0; m->mmio_we = 0;
    m->qph_ready = 1;
    CHECK(t.write(QPNIC_QPREG(q, REMOTE), 7) == 0, "QP write waited with the table ready");

    // a read is answered when the table answers, and holds every access
    m->mmio_valid = 1; m->mmio_we = 0; m->mmio_addr = QPNIC_QPREG(5, SQ_CI);
    m->clk = 0; m->eval();
    CHECK(m->qph_valid && !m->qph_we && m->qph_idx == 5 && m->qph_off == QPNIC_QPREG_SQ_CI, "QP read not offered");
    CHECK(m->mmio_ready, "QP read not taken with the table ready");
    m->clk = 1; m->eval();
    m->mmio_addr = QPNIC_REG_SCRATCH;   // the next access waits for the answer
    for (int i = 0; i < 5; i++) {
        m->clk = 0; m->eval();
        CHECK(!m->mmio_rvalid, "QP read answered before the table did");
        CHECK(!m->mmio_ready && !m->qph_valid, "an access taken while a QP read is answered");
        m->clk = 1; m->eval();
    }
    m->qph_rvalid = 1; m->qph_rdata = 0xCAFE0042u;
    t.tick();
    m->qph_rvalid = 0;
    m->clk = 0; m->eval();
    CHECK(m->mmio_rvalid && m->mmio_rdata == 0xCAFE0042u, "QP read answer: rvalid %d data 0x%08x",
          m->mmio_rvalid, m->mmio_rdata);
    CHECK(m->mmio_ready, "the next access still held after the answer");
    m->clk = 1; m->eval();
    m->mmio_valid = 0;
    for (int i = 0; i < 3; i++) t.tick();

    // doorbells: SQ_PI and RQ_PI writes count, others not
    uint64_t db0 = t.counter(QPNIC_REG_CNT_DOORBELLS_LO);
    t.write(QPNIC_QPREG(q, SQ_PI), 5);
    t.write(QPNIC_QPREG(q, RQ_PI), 9);
    t.write(QPNIC_QPREG(q, SQ_PI), 16);
    CHECK(t.counter(QPNIC_REG_CNT_DOORBELLS_LO) == db0 + 3, "3 doorbells not counted as 3");
    t.write(QPNIC_QPREG(q, REMOTE), QPNIC_FIELD(QPNIC_QP_REMOTE_QPN, 7));
    CHECK(t.counter(QPNIC_REG_CNT_DOORBELLS_LO) == db0 + 3, "a non-doorbell write was counted");
    // beyond NUM_QP: not the QP block, nothing offered
    t.write(QPNIC_QPREG(QPNIC_NUM_QP, SQ_PI), 1);
    CHECK(t.counter(QPNIC_REG_CNT_DOORBELLS_LO) == db0 + 3, "a write beyond NUM_QP counted as a doorbell");
    PASS("csr_qp_block_to_the_qp_table");
}

void test_mr(Tb &t) {
    auto *m = t.m.get();
    t.write(QPNIC_REG_MR_IDX, 5);
    t.write(QPNIC_REG_MR_VA_LO, 0x11110000u);
    t.write(QPNIC_REG_MR_VA_HI, 0x00007fffu);
    t.write(QPNIC_REG_MR_LEN, 0x00123456u);
    t.write(QPNIC_REG_MR_DMA_LO, 0x80001000u);
    t.write(QPNIC_REG_MR_DMA_HI, 0x2u);
    t.write(QPNIC_REG_MR_LKEY, 0xabcd0005u);
    t.write(QPNIC_REG_MR_RKEY, 0xdcba0005u);
    t.write(QPNIC_REG_MR_ACCESS, QPNIC_MR_ACCESS_LOCAL_WRITE | QPNIC_MR_ACCESS_REMOTE_READ);
    CHECK(!t.upd.valid, "staging alone offered the token table an update");
    CHECK(t.read(QPNIC_REG_MR_LKEY) == 0xabcd0005u, "staging LKEY read back");
    t.write(QPNIC_REG_MR_CMD, QPNIC_MR_CMD_WRITE);
    CHECK(t.upd.valid && t.upd.write && t.upd.idx == 5, "MR_CMD WRITE of entry 5: update valid %d write %d idx %u",
          t.upd.valid, t.upd.write, t.upd.idx);
    CHECK(t.upd.va == 0x00007fff11110000ull, "update va wrong");
    CHECK(t.upd.len == 0x00123456u, "update len wrong");
    CHECK(t.upd.dma == 0x0000000280001000ull, "update dma wrong");
    CHECK(t.upd.lkey == 0xabcd0005u && t.upd.rkey == 0xdcba0005u, "update keys wrong");
    CHECK(t.upd.access == 3, "update access wrong");

    t.write(QPNIC_REG_MR_IDX, 200);   // passed on: the table ignores it (>= NUM_MR)
    t.write(QPNIC_REG_MR_CMD, QPNIC_MR_CMD_WRITE);
    CHECK(t.upd.valid && t.upd.idx == 200, "MR_CMD on MR_IDX 200 not passed on as idx 200");
    t.write(QPNIC_REG_MR_IDX, 5);
    t.write(QPNIC_REG_MR_CMD, QPNIC_MR_CMD_INVALIDATE);
    CHECK(t.upd.valid && !t.upd.write && t.upd.idx == 5, "INVALIDATE of entry 5 not offered");
    t.write(QPNIC_REG_MR_CMD, 3);   // no such command
    CHECK(!t.upd.valid, "MR_CMD 3 offered the token table an update");

    // The write waits while the table is busy (clearing after reset).
    m->mr_upd_ready = 0;
    m->mmio_valid = 1; m->mmio_we = 1; m->mmio_addr = QPNIC_REG_MR_CMD;
    m->mmio_wdata = QPNIC_MR_CMD_INVALIDATE;
    for (int i = 0; i < 5; i++) {
        m->clk = 0; m->eval();
        CHECK(!m->mmio_ready, "MR_CMD accepted while the token table is not ready");
        m->clk = 1; m->eval();
    }
    m->mmio_valid = 0; m->mmio_we = 0;
    m->mr_upd_ready = 1;
    PASS("csr_mr_staging_commit_invalidate");
}

void test_cq(Tb &t) {
    auto *m = t.m.get();
    const int c = 2;
    t.write(QPNIC_CQREG(c, BASE_LO), 0x40000000u);
    t.write(QPNIC_CQREG(c, BASE_HI), 0x1u);
    t.write(QPNIC_CQREG(c, CFG), cq_cfg(true, 3));
    CHECK(bits(m->cq_base, c * 64, 64) == 0x140000000ull, "cq_base wrong");
    CHECK(bits(m->cq_log, c * 5, 5) == 3 && bits(m->cq_en, c, 1) == 1, "cq_log/cq_en wrong");
    CHECK(t.read(QPNIC_CQREG(c, STATE)) == cq_state(true, false), "STATE of an enabled CQ");

    // the CQE writer wrote three CQEs: the second an error, the third solicited
    uint64_t cq0 = t.counter(QPNIC_REG_CNT_CQES_WRITTEN_LO);
    m->cqw_cqn = c;
    for (int i = 0; i < 3; i++) {
        m->cqw_done_valid = 1;
        m->cqw_err = i == 1;
        m->cqw_sol = i == 2;
        t.tick();
        m->cqw_done_valid = 0;
        t.tick();
    }
    CHECK(t.read(QPNIC_CQREG(c, PI)) == 3, "PI want 3, got %u", t.read(QPNIC_CQREG(c, PI)));
    CHECK(bits(m->cq_err_valid, c, 1) == 1 && bits(m->cq_err_idx, c * 16, 16) == 1, "error mark wrong");
    CHECK(bits(m->cq_sol_valid, c, 1) == 1 && bits(m->cq_sol_idx, c * 16, 16) == 2, "solicited mark wrong");
    CHECK(t.counter(QPNIC_REG_CNT_CQES_WRITTEN_LO) == cq0 + 3, "CQES_WRITTEN not +3");
    t.write(QPNIC_CQREG(c, CI), 2);
    CHECK(bits(m->cq_ci, c * 16, 16) == 2 && t.read(QPNIC_CQREG(c, CI)) == 2, "CI write");

    m->cqw_ovr_valid = 1;
    t.tick();
    m->cqw_ovr_valid = 0;
    CHECK(t.read(QPNIC_CQREG(c, STATE)) == cq_state(true, true), "overrun not in STATE");

    // re-enable zeroes PI, CI, overrun, marks
    t.write(QPNIC_CQREG(c, CFG), cq_cfg(true, 4));
    CHECK(t.read(QPNIC_CQREG(c, PI)) == 0 && t.read(QPNIC_CQREG(c, CI)) == 0, "enable did not zero PI/CI");
    CHECK(t.read(QPNIC_CQREG(c, STATE)) == cq_state(true, false), "enable did not clear overrun");
    CHECK(bits(m->cq_err_valid, c, 1) == 0 && bits(m->cq_sol_valid, c, 1) == 0, "enable kept the marks");
    CHECK(t.read(QPNIC_CQREG(c, CFG)) == cq_cfg(true, 4), "CFG read back");
    t.write(QPNIC_CQREG(c, CFG), cq_cfg(false, 4));
    CHECK(bits(m->cq_en, c, 1) == 0 && t.read(QPNIC_CQREG(c, STATE)) == 0, "disable");
    PASS("csr_cq_context_enable_pi_marks_overrun");
}

void test_arm(Tb &t) {
    auto *m = t.m.get();
    // FIFO full: the ARM write waits, other writes do not
    m->arm_evt_ready = 0;
    m->mmio_valid = 1;
    m->mmio_we = 1;
    m->mmio_addr = QPNIC_CQREG(6, ARM);
    m->mmio_wdata = QPNIC_FIELD(QPNIC_CQ_ARM_TRIGGER, QPNIC_CQ_TRIGGER_SOLICITED);
    for (int i = 0; i < 5; i++) {
        m->clk = 0;
        m->eval();
        CHECK(!m->mmio_ready, "ARM write accepted while the event FIFO is full");
        CHECK(m->arm_evt_valid, "ARM event not offered");
        m->clk = 1;
        m->eval();
    }
    uint32_t ev = m->arm_evt_data;
    CHECK(QPNIC_FIELD_GET(&ev, QPNIC_EVENT_CQN) == 6, "ARM event cqn %u", QPNIC_FIELD_GET(&ev, QPNIC_EVENT_CQN));
    CHECK(QPNIC_FIELD_GET(&ev, QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_ARM, "ARM event type");
    CHECK(QPNIC_FIELD_GET(&ev, QPNIC_EVENT_TRIGGER) == QPNIC_CQ_TRIGGER_SOLICITED, "ARM event trigger");
    m->mmio_valid = 0;
    m->clk = 0;
    m->eval();
    CHECK(!m->arm_evt_valid, "ARM event offered without a write");
    t.write(QPNIC_REG_SCRATCH, 1);   // not stalled by the full FIFO
    CHECK(t.read(QPNIC_REG_SCRATCH) == 1, "SCRATCH write/read while event FIFO full");
    m->arm_evt_ready = 1;
    int waited = t.write(QPNIC_CQREG(6, ARM), QPNIC_FIELD(QPNIC_CQ_ARM_TRIGGER, QPNIC_CQ_TRIGGER_ANY));
    CHECK(waited == 0, "ARM write waited %d cycles with room in the FIFO", waited);
    PASS("csr_arm_doorbell_event_and_stall");
}

// NTF_LATENCY_SUM/MAX: a notification leaving for a CQ is charged the cycles
// since that CQ's newest CQE was written. Runs right after reset, before any
// other test pulses cnt_notify, so the max starts at 0.
void test_ntf_latency(Tb &t) {
    auto *m = t.m.get();
    // a CQE strobe for cq, then `gap` idle cycles, then a notification for
    // ntf_cq: latency gap + 1 when ntf_cq == cq (the stamp is the strobe's cycle)
    auto cqe_then_notify = [&](unsigned cq, int gap, unsigned ntf_cq) {
        m->cqw_cqn = cq;
        m->cqw_done_valid = 1;
        t.tick();
        m->cqw_done_valid = 0;
        for (int i = 0; i < gap; i++) t.tick();
        m->cnt_notify_cqn = ntf_cq;
        m->cnt_notify = 1;
        t.tick();
        m->cnt_notify = 0;
    };
    CHECK(t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO) == 0 && t.counter(QPNIC_REG_CNT_NTF_LATENCY_MAX_LO) == 0,
          "latency counters not 0 after reset");

    cqe_then_notify(3, 40, 3);
    uint64_t sum = t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO);
    uint64_t max = t.counter(QPNIC_REG_CNT_NTF_LATENCY_MAX_LO);
    CHECK(sum == 41 && max == 41, "one notification 41 cycles after its CQE: sum %llu max %llu",
          (unsigned long long)sum, (unsigned long long)max);

    // a quicker one: the sum grows, the max stays
    cqe_then_notify(3, 9, 3);
    sum = t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO);
    max = t.counter(QPNIC_REG_CNT_NTF_LATENCY_MAX_LO);
    CHECK(sum == 41 + 10 && max == 41, "then one 10 cycles after: sum %llu (want 51) max %llu (want 41)",
          (unsigned long long)sum, (unsigned long long)max);

    // per CQ: a CQE on CQ 5 does not move CQ 3's stamp
    m->cqw_cqn = 3;
    m->cqw_done_valid = 1;
    t.tick();
    m->cqw_done_valid = 0;
    for (int i = 0; i < 99; i++) t.tick();      // CQ 3's CQE is 100 cycles old at the notification
    cqe_then_notify(5, 0, 3);                   // CQ 5 CQE at 100, notify CQ 3 at 101
    max = t.counter(QPNIC_REG_CNT_NTF_LATENCY_MAX_LO);
    CHECK(max == 101, "CQ 3 notified 101 cycles after its CQE, with a CQ 5 CQE in between: max %llu",
          (unsigned long long)max);
    sum = t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO);
    CHECK(sum == 51 + 101, "sum %llu, want 152", (unsigned long long)sum);

    // a CQ number the NIC does not have counts nothing
    cqe_then_notify(3, 5, QPNIC_NUM_CQ);
    CHECK(t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO) == sum, "a notification of CQ %u (>= NUM_CQ) was charged",
          QPNIC_NUM_CQ);
    // no notification: nothing counted, however old the CQE
    for (int i = 0; i < 20; i++) t.tick();
    CHECK(t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO) == sum, "latency counted without a notification");
    CHECK(t.read(QPNIC_REG_CNT_NTF_LATENCY_MAX_LO) == 101 && t.read(QPNIC_REG_CNT_NTF_LATENCY_MAX_HI) == 0,
          "MAX _HI is not 0");
    PASS("csr_notification_latency_sum_and_max");
}

void test_counters(Tb &t) {
    auto *m = t.m.get();
    uint64_t w0 = t.counter(QPNIC_REG_CNT_WQES_FETCHED_LO);
    uint64_t f0 = t.counter(QPNIC_REG_CNT_WQE_FETCH_READS_LO);
    uint64_t n0 = t.counter(QPNIC_REG_CNT_NOTIFICATIONS_LO);
    uint64_t wb0 = t.counter(QPNIC_REG_CNT_DMA_WRITE_BYTES_LO);
    m->cnt_wqes_fetched = 3;
    m->cnt_fetch_read = 1;
    m->cnt_notify = 1;
    m->cnt_wr_valid = 1;
    m->cnt_wr_bytes = 512;
    for (int i = 0; i < 5; i++) t.tick();
    m->cnt_wqes_fetched = 0;
    m->cnt_fetch_read = 0;
    m->cnt_notify = 0;
    m->cnt_wr_valid = 0;
    CHECK(t.counter(QPNIC_REG_CNT_WQES_FETCHED_LO) == w0 + 15, "WQES_FETCHED want +15");
    CHECK(t.counter(QPNIC_REG_CNT_WQE_FETCH_READS_LO) == f0 + 5, "WQE_FETCH_READS want +5");
    // an SQ burst and an RQ WQE read in the same cycle: 2 reads, up to 16
    // WQEs (the 5-bit strobe's top bit) counted whole
    m->cnt_fetch_read = 2;
    m->cnt_wqes_fetched = 9;
    t.tick();
    m->cnt_wqes_fetched = 16;
    t.tick();
    m->cnt_fetch_read = 0;
    m->cnt_wqes_fetched = 0;
    CHECK(t.counter(QPNIC_REG_CNT_WQES_FETCHED_LO) == w0 + 15 + 25, "WQES_FETCHED want +25 for 9 and 16, got +%llu",
          (unsigned long long)(t.counter(QPNIC_REG_CNT_WQES_FETCHED_LO) - w0 - 15));
    CHECK(t.counter(QPNIC_REG_CNT_WQE_FETCH_READS_LO) == f0 + 5 + 4, "WQE_FETCH_READS want +4 for two cycles of 2, got +%llu",
          (unsigned long long)(t.counter(QPNIC_REG_CNT_WQE_FETCH_READS_LO) - f0 - 5));
    CHECK(t.counter(QPNIC_REG_CNT_NOTIFICATIONS_LO) == n0 + 5, "NOTIFICATIONS want +5");
    CHECK(t.counter(QPNIC_REG_CNT_DMA_WRITE_BYTES_LO) == wb0 + 2560, "DMA_WRITE_BYTES want +2560");

    uint64_t c1 = t.counter(QPNIC_REG_CNT_CYCLES_LO);
    for (int i = 0; i < 10; i++) t.tick();
    uint64_t c2 = t.counter(QPNIC_REG_CNT_CYCLES_LO);
    CHECK(c2 > c1 + 10 && c2 < c1 + 30, "CYCLES moved by %llu over ~14 cycles", (unsigned long long)(c2 - c1));
    CHECK(m->cycles_lo != 0, "cycles_lo output is 0");

    // _LO latches _HI: drive the read-bytes counter past 2^33 - 1
    uint64_t model = t.counter(QPNIC_REG_CNT_DMA_READ_BYTES_LO);
    const uint64_t target = (1ull << 33) - 1000;
    m->cnt_rd_valid = 1;
    m->cnt_rd_bytes = 0xFFFF;
    while (model + 0xFFFF < target) {
        t.tick();
        model += 0xFFFF;
    }
    m->cnt_rd_bytes = 1;
    while (model < target) {
        t.tick();
        model += 1;
    }
    m->cnt_rd_valid = 0;
    uint32_t lo = t.read(QPNIC_REG_CNT_DMA_READ_BYTES_LO);
    CHECK(lo == (uint32_t)model, "DMA_READ_BYTES_LO 0x%08x, want 0x%08x", lo, (uint32_t)model);
    // now push the counter over 2^33: its live _HI becomes 2, the latch keeps 1
    m->cnt_rd_valid = 1;
    m->cnt_rd_bytes = 2000;
    t.tick();
    m->cnt_rd_valid = 0;
    model += 2000;
    uint32_t hi = t.read(QPNIC_REG_CNT_DMA_READ_BYTES_HI);
    CHECK(hi == 1, "_HI read %u, want the value latched by the _LO read (1)", hi);
    CHECK(t.counter(QPNIC_REG_CNT_DMA_READ_BYTES_LO) == model, "DMA_READ_BYTES 64-bit value wrong");
    PASS("csr_counters_and_lo_latches_hi");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    t.reset();
    test_fixed(t);
    test_ntf_latency(t);
    test_qp(t);
    test_mr(t);
    test_cq(t);
    test_arm(t);
    test_counters(t);
    t.m->final();
    return 0;
}
