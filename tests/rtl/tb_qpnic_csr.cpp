// tb_qpnic_csr: unit test of rtl/qpnic_csr.v, the host register block.
//
// Checks, through MMIO alone plus the flat outputs: the fixed registers,
// SCRATCH, counters (doorbells, every strobe-fed counter, _LO latching _HI,
// the counter RAM against a model under random events and reads, seed
// printed, TB_SEED=N repeats it,
// the notification latency sum and max of the latencies the CQ table hands
// over), the QP block routed to the QP table's host port (fields, stalls,
// a read's answer whenever the table gives it, no other access meanwhile,
// doorbells counted; the QP registers themselves are tb_qpnic_qp_table's),
// MR staging and its one update per MR_CMD to the token table
// (qpnic_mr_table has its own testbench), and the
// CQ block going to the CQ table's host port: each access passed on once
// with its CQ number, offset and data, a write waiting while the table
// holds it off (an ARM whose event cannot leave) without holding up the
// rest, a read's reply when the table answers, and no other access while a
// table read is pending. The testbench plays the CQ table.
// Not for: the CQ registers' meaning (tb_qpnic_cq_table), the CQE writer or
// the firmware side (their own testbenches).
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

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

    // The CQ table's host port, played here: it takes a request while
    // tbl_ready, and answers a read tbl_delay cycles later with tbl_word().
    struct TblReq { bool we; unsigned idx, off; uint32_t wdata; long at; };
    bool tbl_ready = true;
    int tbl_delay = 2;
    std::vector<TblReq> tbl_reqs;
    std::deque<std::pair<long, uint32_t>> tbl_due;   // {cycle, answer}
    long now = 0;
    static uint32_t tbl_word(unsigned idx, unsigned off) { return 0xC0DE0000u | (idx << 8) | off; }

    // The two halves of a clock cycle: inputs driven and evaluated with the
    // clock low, then the edge, where the table takes what was offered.
    void low() {
        m->cqt_ready = tbl_ready;
        m->cqt_rvalid = !tbl_due.empty() && tbl_due.front().first == now;
        m->cqt_rdata = m->cqt_rvalid ? tbl_due.front().second : 0xBAD0BAD0u;
        m->clk = 0;
        m->eval();
    }
    void high() {
        if (m->cqt_valid && m->cqt_ready) {
            tbl_reqs.push_back({(bool)m->cqt_we, m->cqt_idx, m->cqt_off, m->cqt_wdata, now});
            if (!m->cqt_we) tbl_due.push_back({now + tbl_delay, tbl_word(m->cqt_idx, m->cqt_off)});
        }
        if (m->cqt_rvalid) tbl_due.pop_front();
        m->clk = 1;
        m->eval();
        now++;
    }
    void tick() {
        low();
        high();
    }

    void reset() {
        m->rst = 1;
        m->mmio_valid = 0;
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
            low();
            bool acc = m->mmio_ready;
            if (acc)
                upd = {m->mr_upd_valid && m->mr_upd_ready, m->mr_upd_idx, (bool)m->mr_upd_write,
                       m->mr_upd_va, m->mr_upd_dma, m->mr_upd_len, m->mr_upd_lkey,
                       m->mr_upd_rkey, m->mr_upd_access};
            high();
            if (acc) break;
            CHECK(++waited < max_wait, "write 0x%04x never accepted", addr);
        }
        m->mmio_valid = 0;
        m->mmio_we = 0;
        return waited;
    }

    // One read, accepted at once; *after is how many cycles after its
    // acceptance the reply came (1 for the csr's own registers; up to
    // CNT_WAIT for a counter kept in the counter RAM: its 32 slots, + 2).
    static constexpr int CNT_WAIT = 32 + 2;
    uint32_t read(uint32_t addr, int *after = nullptr) {
        m->mmio_valid = 1;
        m->mmio_we = 0;
        m->mmio_addr = addr;
        low();
        CHECK(m->mmio_ready, "read 0x%04x not accepted at once", addr);
        high();
        m->mmio_valid = 0;
        for (int i = 1; i <= CNT_WAIT + 1; i++) {
            low();
            if (m->mmio_rvalid) {
                uint32_t d = m->mmio_rdata;
                high();
                low();
                CHECK(!m->mmio_rvalid, "read 0x%04x: rvalid longer than one cycle", addr);
                high();
                if (after) *after = i;
                else CHECK(i == 1, "read 0x%04x: reply %d cycles after the read, want 1", addr, i);
                return d;
            }
            high();
        }
        CHECK(false, "read 0x%04x: no reply", addr);
        return 0;
    }

    // A counter's _LO (answered from the counter RAM within CNT_WAIT
    // cycles, or the cycle after for the ones in flip-flops), then its _HI.
    uint32_t counter_lo(uint32_t lo) {
        int after = 0;
        uint32_t l = read(lo, &after);
        CHECK(after >= 1 && after <= CNT_WAIT, "counter 0x%04x answered %d cycles after the read, want 1..%d",
              lo, after, CNT_WAIT);
        return l;
    }
    uint64_t counter(uint32_t lo) {
        uint64_t l = counter_lo(lo);
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
    CHECK(c2 == (QPNIC_FIELD(QPNIC_CAPS2_NUM_MR, QPNIC_NUM_MR) |
                 QPNIC_FIELD(QPNIC_CAPS2_MAX_INLINE, QPNIC_MAX_INLINE_BYTES)), "CAPS2 = 0x%08x", c2);
    uint32_t c3 = t.read(QPNIC_REG_CAPS3);
    CHECK(c3 == QPNIC_FIELD(QPNIC_CAPS3_PT_ENTRIES, QPNIC_NUM_PT), "CAPS3 = 0x%08x, expected %u page table entries",
          c3, QPNIC_NUM_PT);
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
    // the table's answer is the reply, in the cycle it comes
    m->qph_rvalid = 1; m->qph_rdata = 0xCAFE0042u;
    m->clk = 0; m->eval();
    CHECK(m->mmio_rvalid && m->mmio_rdata == 0xCAFE0042u, "QP read answer: rvalid %d data 0x%08x",
          m->mmio_rvalid, m->mmio_rdata);
    m->clk = 1; m->eval();
    m->qph_rvalid = 0;
    m->clk = 0; m->eval();
    CHECK(!m->mmio_rvalid, "QP read answered twice");
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
    // a doorbell that waits for the QP table counts once, and a read right
    // after its acceptance sees it
    m->qph_ready = 0;
    m->mmio_valid = 1; m->mmio_we = 1; m->mmio_addr = QPNIC_QPREG(q, SQ_PI); m->mmio_wdata = 20;
    for (int i = 0; i < 4; i++) t.tick();
    m->qph_ready = 1;
    t.tick();
    m->mmio_valid = 0; m->mmio_we = 0;
    CHECK(t.counter(QPNIC_REG_CNT_DOORBELLS_LO) == db0 + 4,
          "a doorbell that waited 4 cycles for the QP table counted %llu times",
          (unsigned long long)(t.counter(QPNIC_REG_CNT_DOORBELLS_LO) - db0 - 3));
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
    t.write(QPNIC_REG_MR_CMD, QPNIC_MR_CMD_GRANT);   // the requester's, not the token table's
    CHECK(!t.upd.valid, "MR_CMD GRANT offered the token table an update");

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

// Page table entries: PT_IDX reads back; each PT_PFN write offers the page
// tables one entry write, the cycle after it is accepted, at PT_IDX, and
// steps PT_IDX; nothing else writes an entry.
void test_pt(Tb &t) {
    auto *m = t.m.get();
    t.write(QPNIC_REG_PT_IDX, 7);
    CHECK(t.read(QPNIC_REG_PT_IDX) == 7, "PT_IDX reads %u after a write of 7", t.read(QPNIC_REG_PT_IDX));
    const uint32_t pfn[2] = { 0xABCDEu, 0x12345678u };
    for (int i = 0; i < 2; i++) {
        t.write(QPNIC_REG_PT_PFN, pfn[i]);
        t.low();
        CHECK(m->pt_wr_en && m->pt_wr_idx == 7u + (unsigned)i && m->pt_wr_pfn == pfn[i],
              "PT_PFN write %d: entry write en %d idx %u pfn 0x%x, expected idx %u pfn 0x%x", i, m->pt_wr_en,
              m->pt_wr_idx, m->pt_wr_pfn, 7 + i, pfn[i]);
        t.high();
        t.low();
        CHECK(!m->pt_wr_en, "PT_PFN write %d offered a second entry write", i);
        t.high();
    }
    CHECK(t.read(QPNIC_REG_PT_IDX) == 9, "PT_IDX did not step with each PT_PFN write");
    t.write(QPNIC_REG_SCRATCH, 1);
    t.write(QPNIC_REG_PT_IDX, 3);
    t.low();
    CHECK(!m->pt_wr_en, "a write to another register offered an entry write");
    t.high();
    PASS("csr_page_table_entries_through_pt_idx_and_pt_pfn");
}

// The CQ block goes to the CQ table's host port, one access each.
void test_cq_block(Tb &t) {
    auto *m = t.m.get();
    t.tbl_reqs.clear();
    t.write(QPNIC_CQREG(2, BASE_LO), 0x40000000u);
    t.write(QPNIC_CQREG(QPNIC_NUM_CQ - 1, ARM), QPNIC_FIELD(QPNIC_CQ_ARM_TRIGGER, QPNIC_CQ_TRIGGER_SOLICITED));
    CHECK(t.tbl_reqs.size() == 2, "%zu table requests for 2 CQ writes", t.tbl_reqs.size());
    const Tb::TblReq &w0 = t.tbl_reqs[0], &w1 = t.tbl_reqs[1];
    CHECK(w0.we && w0.idx == 2 && w0.off == QPNIC_CQREG_BASE_LO && w0.wdata == 0x40000000u,
          "BASE_LO of CQ 2 reached the table as we %d idx %u off 0x%02x data 0x%08x", w0.we, w0.idx, w0.off,
          w0.wdata);
    CHECK(w1.we && w1.idx == QPNIC_NUM_CQ - 1 && w1.off == QPNIC_CQREG_ARM &&
              w1.wdata == QPNIC_FIELD(QPNIC_CQ_ARM_TRIGGER, QPNIC_CQ_TRIGGER_SOLICITED),
          "ARM of CQ %u reached the table as idx %u off 0x%02x", QPNIC_NUM_CQ - 1, w1.idx, w1.off);
    // not the CQ block: the QP block, the word after the last CQ
    t.write(QPNIC_QPREG(1, REMOTE), 3);
    CHECK(t.read(QPNIC_CQ_BASE + QPNIC_NUM_CQ * QPNIC_CQ_STRIDE) == 0, "the word after the last CQ does not read 0");
    t.write(QPNIC_CQ_BASE + QPNIC_NUM_CQ * QPNIC_CQ_STRIDE, 1);
    CHECK(t.tbl_reqs.size() == 2, "an access outside the CQ block reached the table");

    // the table holds a write off (an ARM whose previous event has not left):
    // MMIO waits, nothing is passed on twice; other registers do not wait
    t.tbl_ready = false;
    m->mmio_valid = 1;
    m->mmio_we = 1;
    m->mmio_addr = QPNIC_CQREG(6, ARM);
    m->mmio_wdata = QPNIC_FIELD(QPNIC_CQ_ARM_TRIGGER, QPNIC_CQ_TRIGGER_ANY);
    for (int i = 0; i < 5; i++) {
        t.low();
        CHECK(!m->mmio_ready, "CQ write accepted while the CQ table holds it off");
        CHECK(m->cqt_valid, "CQ write not offered to the table");
        t.high();
    }
    m->mmio_valid = 0;
    t.write(QPNIC_REG_SCRATCH, 1);
    CHECK(t.read(QPNIC_REG_SCRATCH) == 1, "SCRATCH write/read while the CQ table holds writes off");
    t.tbl_ready = true;
    int waited = t.write(QPNIC_CQREG(6, ARM), QPNIC_FIELD(QPNIC_CQ_ARM_TRIGGER, QPNIC_CQ_TRIGGER_ANY));
    CHECK(waited == 0, "CQ write waited %d cycles with the table ready", waited);
    CHECK(t.tbl_reqs.size() == 3 && t.tbl_reqs[2].idx == 6, "the ARM of CQ 6 reached the table %zu times",
          t.tbl_reqs.size() - 2);

    // reads: the reply is the table's, in the cycle it answers
    for (int delay : {1, 2, 6}) {
        t.tbl_delay = delay;
        int after = 0;
        uint32_t d = t.read(QPNIC_CQREG(3, PI), &after);
        const Tb::TblReq &r = t.tbl_reqs.back();
        CHECK(!r.we && r.idx == 3 && r.off == QPNIC_CQREG_PI, "PI read of CQ 3 reached the table as idx %u off 0x%02x",
              r.idx, r.off);
        CHECK(d == Tb::tbl_word(3, QPNIC_CQREG_PI), "CQ read replied 0x%08x, not the table's answer", d);
        CHECK(after == delay, "table answering %d cycles after the read: reply after %d", delay, after);
    }
    // while a table read is pending, nothing else is accepted
    t.tbl_delay = 5;
    m->mmio_valid = 1;
    m->mmio_we = 0;
    m->mmio_addr = QPNIC_CQREG(1, STATE);
    t.low();
    CHECK(m->mmio_ready, "CQ read not accepted");
    t.high();
    m->mmio_we = 1;
    m->mmio_addr = QPNIC_CQREG(1, CI);   // the next access, a CQ write
    m->mmio_wdata = 2;
    size_t reqs = t.tbl_reqs.size();
    bool replied = false;
    for (int i = 1; !replied; i++) {
        CHECK(i < 10, "no reply to the pending table read");
        t.low();
        replied = m->mmio_rvalid;
        CHECK(!m->mmio_ready, "an access accepted %d cycles into a pending table read", i);
        CHECK(!m->cqt_valid, "the CQ table offered a request while a read of it is pending");
        t.high();
    }
    CHECK(t.tbl_reqs.size() == reqs, "a request reached the table during a pending read");
    t.low();
    CHECK(m->mmio_ready, "CQ write not accepted after the table's reply");
    t.high();
    m->mmio_valid = 0;
    CHECK(t.tbl_reqs.size() == reqs + 1 && t.tbl_reqs.back().we && t.tbl_reqs.back().wdata == 2,
          "the write after the pending read did not reach the table once");
    // the csr's own registers wait for a pending table read too
    m->mmio_valid = 1;
    m->mmio_we = 0;
    m->mmio_addr = QPNIC_CQREG(1, STATE);
    t.low();
    t.high();
    m->mmio_addr = QPNIC_REG_SCRATCH;
    t.low();
    CHECK(!m->mmio_ready, "SCRATCH read accepted during a pending table read");
    t.high();
    m->mmio_valid = 0;
    for (int i = 0; i < 8; i++) t.tick();
    CHECK(t.tbl_due.empty(), "the table read was not answered");
    t.tbl_delay = 2;
    PASS("csr_cq_block_to_cq_table_host_port");
}

// NTF_LATENCY_SUM/MAX: the csr adds up the latencies the CQ table hands over
// (how they are measured: tb_qpnic_cq_table). Runs right after reset.
void test_ntf_latency(Tb &t) {
    auto *m = t.m.get();
    auto latency = [&](uint32_t l) {
        m->lat_valid = 1;
        m->lat_cycles = l;
        t.tick();
        m->lat_valid = 0;
        m->lat_cycles = 0xFFFFFFFFu;   // ignored without lat_valid
        t.tick();
    };
    CHECK(t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO) == 0 && t.counter(QPNIC_REG_CNT_NTF_LATENCY_MAX_LO) == 0,
          "latency counters not 0 after reset");
    latency(41);
    uint64_t sum = t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO);
    uint64_t max = t.counter(QPNIC_REG_CNT_NTF_LATENCY_MAX_LO);
    CHECK(sum == 41 && max == 41, "one notification 41 cycles after its CQE: sum %llu max %llu",
          (unsigned long long)sum, (unsigned long long)max);
    // a quicker one: the sum grows, the max stays
    latency(10);
    sum = t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO);
    max = t.counter(QPNIC_REG_CNT_NTF_LATENCY_MAX_LO);
    CHECK(sum == 41 + 10 && max == 41, "then one 10 cycles after: sum %llu (want 51) max %llu (want 41)",
          (unsigned long long)sum, (unsigned long long)max);
    latency(101);
    latency(0);   // a CQ number >= NUM_CQ
    max = t.counter(QPNIC_REG_CNT_NTF_LATENCY_MAX_LO);
    sum = t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO);
    CHECK(max == 101 && sum == 152, "after 101 and 0: sum %llu (want 152) max %llu (want 101)",
          (unsigned long long)sum, (unsigned long long)max);
    // no latency handed over: nothing counted
    for (int i = 0; i < 20; i++) t.tick();
    CHECK(t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO) == sum, "latency counted without a lookup");
    // the sum is 64 bits wide: two near 2^32 carry into _HI
    latency(0xFFFFFFF0u);
    latency(0xFFFFFFF0u);
    CHECK(t.counter(QPNIC_REG_CNT_NTF_LATENCY_SUM_LO) == sum + 2 * 0xFFFFFFF0ull, "latency sum does not carry");
    CHECK(t.read(QPNIC_REG_CNT_NTF_LATENCY_MAX_LO) == 0xFFFFFFF0u && t.read(QPNIC_REG_CNT_NTF_LATENCY_MAX_HI) == 0,
          "MAX wrong, or its _HI is not 0");
    PASS("csr_notification_latency_sum_and_max");
}

void test_counters(Tb &t) {
    auto *m = t.m.get();
    uint64_t w0 = t.counter(QPNIC_REG_CNT_WQES_FETCHED_LO);
    uint64_t f0 = t.counter(QPNIC_REG_CNT_WQE_FETCH_READS_LO);
    uint64_t n0 = t.counter(QPNIC_REG_CNT_NOTIFICATIONS_LO);
    uint64_t wb0 = t.counter(QPNIC_REG_CNT_DMA_WRITE_BYTES_LO);
    uint64_t cq0 = t.counter(QPNIC_REG_CNT_CQES_WRITTEN_LO);
    m->cnt_wqes_fetched = 3;
    m->cnt_fetch_read = 1;
    m->cnt_cqe = 1;
    m->cnt_notify = 1;
    m->cnt_wr_valid = 1;
    m->cnt_wr_bytes = 512;
    for (int i = 0; i < 5; i++) t.tick();
    m->cnt_wqes_fetched = 0;
    m->cnt_fetch_read = 0;
    m->cnt_cqe = 0;
    m->cnt_notify = 0;
    m->cnt_wr_valid = 0;
    t.tick();   // an event is counted the cycle after it (qpnic_csr: registered)
    CHECK(t.counter(QPNIC_REG_CNT_WQES_FETCHED_LO) == w0 + 15, "WQES_FETCHED want +15");
    CHECK(t.counter(QPNIC_REG_CNT_CQES_WRITTEN_LO) == cq0 + 5, "CQES_WRITTEN want +5");
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
    t.tick();   // an event is counted the cycle after it (qpnic_csr: registered)
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
    t.tick();   // an event is counted the cycle after it (qpnic_csr: registered)
    uint32_t lo = t.counter_lo(QPNIC_REG_CNT_DMA_READ_BYTES_LO);
    CHECK(lo == (uint32_t)model, "DMA_READ_BYTES_LO 0x%08x, want 0x%08x", lo, (uint32_t)model);
    // now push the counter over 2^33: its live _HI becomes 2, the latch keeps 1
    m->cnt_rd_valid = 1;
    m->cnt_rd_bytes = 2000;
    t.tick();
    m->cnt_rd_valid = 0;
    t.tick();   // an event is counted the cycle after it (qpnic_csr: registered)
    model += 2000;
    uint32_t hi = t.read(QPNIC_REG_CNT_DMA_READ_BYTES_HI);
    CHECK(hi == 1, "_HI read %u, want the value latched by the _LO read (1)", hi);
    CHECK(t.counter(QPNIC_REG_CNT_DMA_READ_BYTES_LO) == model, "DMA_READ_BYTES 64-bit value wrong");
    PASS("csr_counters_and_lo_latches_hi");
}

// The counter RAM against a model, with events on every input in random
// cycles and reads of random counters: every read must count each event
// that came to the inputs before the read was taken, and none that came
// after its reply. Starts with a reset: every counter reads 0, the first
// read waiting for the RAM to clear itself.
void test_counters_random(Tb &t, const unsigned seed) {
    auto *m = t.m.get();
    unsigned state = seed;
    auto rnd = [&](unsigned n) { return (unsigned)(rand_r(&state) % n); };
    t.reset();
    enum { WQES, FETCH, RD, WR, CQE, NTF, DROP, RNR, LAT, N };
    const uint32_t lo_of[N] = {QPNIC_REG_CNT_WQES_FETCHED_LO,   QPNIC_REG_CNT_WQE_FETCH_READS_LO,
                               QPNIC_REG_CNT_DMA_READ_BYTES_LO, QPNIC_REG_CNT_DMA_WRITE_BYTES_LO,
                               QPNIC_REG_CNT_CQES_WRITTEN_LO,   QPNIC_REG_CNT_NOTIFICATIONS_LO,
                               QPNIC_REG_CNT_PKTS_DROPPED_LO,   QPNIC_REG_CNT_RNR_RETRIES_LO,
                               QPNIC_REG_CNT_NTF_LATENCY_SUM_LO};
    for (int k = 0; k < N; k++)
        CHECK(t.counter(lo_of[k]) == 0, "seed %u: counter 0x%04x not 0 after reset", seed, lo_of[k]);

    // before[c][k]: counter k's events that came in the cycles before c
    std::vector<std::array<uint64_t, N>> before;
    std::array<uint64_t, N> total{};
    const long c0 = t.now;
    int k_rd = 0;            // the counter being read
    // 0 idle; 1 its _LO offered; 2 waiting for the _LO; 3 its _HI offered;
    // 4 waiting for the _HI
    int phase = 0;
    long taken = 0;          // the cycle its _LO was taken
    uint32_t lo_word = 0;
    int reads = 0;
    for (int cyc = 0; cyc < 20000; cyc++) {
        before.push_back(total);
        // events this cycle, now and then all at once
        const bool burst = rnd(8) == 0;
        auto ev = [&](unsigned n) { return burst || rnd(n) == 0; };
        m->cnt_wqes_fetched = ev(3) ? rnd(17) : 0;
        m->cnt_fetch_read = ev(3) ? rnd(3) : 0;
        m->cnt_rd_valid = ev(2);
        m->cnt_rd_bytes = burst ? 0xFFFF : rnd(4097);
        m->cnt_wr_valid = ev(2);
        m->cnt_wr_bytes = burst ? 0xFFFF : rnd(4097);
        m->cnt_cqe = ev(3);
        m->cnt_notify = ev(4);
        m->cnt_drop = ev(5);
        m->cnt_rnr = ev(5);
        m->lat_valid = ev(4);
        m->lat_cycles = burst ? 0xFFFFFFFFu : rnd(1000);
        total[WQES] += m->cnt_wqes_fetched;
        total[FETCH] += m->cnt_fetch_read;
        total[RD] += m->cnt_rd_valid ? m->cnt_rd_bytes : 0;
        total[WR] += m->cnt_wr_valid ? m->cnt_wr_bytes : 0;
        total[CQE] += m->cnt_cqe;
        total[NTF] += m->cnt_notify;
        total[DROP] += m->cnt_drop;
        total[RNR] += m->cnt_rnr;
        total[LAT] += m->lat_valid ? m->lat_cycles : 0;

        if (phase == 0 && rnd(4) == 0) {
            k_rd = (int)rnd(N);
            phase = 1;
            m->mmio_addr = lo_of[k_rd];
        } else if (phase == 3) {
            m->mmio_addr = lo_of[k_rd] + 4;
        }
        m->mmio_valid = phase == 1 || phase == 3;
        m->mmio_we = 0;
        t.low();
        const bool acc = m->mmio_valid && m->mmio_ready;
        const bool rvalid = m->mmio_rvalid;
        const uint32_t rdata = m->mmio_rdata;
        t.high();
        if (rvalid) {
            CHECK(phase == 2 || phase == 4, "seed %u cycle %d: a reply nobody asked for", seed, cyc);
            if (phase == 2) {
                lo_word = rdata;
                phase = 3;
            } else {
                const uint64_t got = ((uint64_t)rdata << 32) | lo_word;
                const uint64_t lo_bound = before[taken - c0][k_rd];
                const uint64_t hi_bound = before.back()[k_rd];
                CHECK(got >= lo_bound && got <= hi_bound,
                      "seed %u cycle %d: counter 0x%04x read %llu, want %llu..%llu (the events before "
                      "its read, up to those before its reply)",
                      seed, cyc, lo_of[k_rd], (unsigned long long)got, (unsigned long long)lo_bound,
                      (unsigned long long)hi_bound);
                phase = 0;
                reads++;
            }
        }
        if (acc) {
            if (phase == 1) taken = t.now - 1;
            phase++;
        }
    }
    m->mmio_valid = 0;
    m->cnt_wqes_fetched = 0;
    m->cnt_fetch_read = 0;
    m->cnt_rd_valid = 0;
    m->cnt_wr_valid = 0;
    m->cnt_cqe = 0;
    m->cnt_notify = 0;
    m->cnt_drop = 0;
    m->cnt_rnr = 0;
    m->lat_valid = 0;
    CHECK(reads > 500, "seed %u: only %d counter reads completed", seed, reads);
    PASS("csr_counter_ram_random");
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
    test_pt(t);
    test_cq_block(t);
    test_counters(t);
    test_counters_random(t, tb_seed("tb_qpnic_csr", 12345u));
    t.m->final();
    return 0;
}
