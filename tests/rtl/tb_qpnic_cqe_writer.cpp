// tb_qpnic_cqe_writer: unit test of rtl/qpnic_cqe_writer.v.
//
// The testbench plays qpnic_csr (it holds the CQ contexts and applies the
// writer's cqw_* strobes one cycle later, as the csr does), the DMA write
// channel (a host memory that records every request and beat, with random
// backpressure; seed printed) and the firmware event FIFO.
// Checks: slot addresses and word order, the phase bit across a ring wrap,
// overrun when full (CQE dropped, OVERRUN event, nothing written), drops for
// a disabled or overrun CQ, CQE events only for armed CQs and carrying the
// error and solicited flags, the marks strobes, and that a blocked event
// FIFO stalls the writer instead of losing the event.
// Not for: the CQ registers themselves (tb_qpnic_csr).
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "Vqpnic_cqe_writer.h"
#include "verilated.h"
#include "tb_util.h"
#include "../../host/src/gen/qpnic_hw.h"

namespace {

constexpr int NUM_CQ = 8;

struct Cq {
    uint64_t base = 0;
    unsigned log = 0;
    bool en = false, ovr = false, armed = false;
    uint16_t pi = 0, ci = 0;
    int err_marks = 0, sol_marks = 0;
    uint16_t last_err = 0, last_sol = 0;
};

struct DmaWrite {
    uint64_t addr;
    unsigned len;
    std::vector<uint32_t> words;
};

struct Tb {
    std::unique_ptr<Vqpnic_cqe_writer> m{new Vqpnic_cqe_writer};
    Cq cq[NUM_CQ];
    std::vector<DmaWrite> writes;
    std::vector<uint32_t> events;
    int ovr_pulses = 0, done_pulses = 0;
    bool in_write = false;
    bool block_events = false;
    unsigned seed = 1;

    bool coin() { return (rand_r(&seed) & 3) != 0; }   // ready 3 times in 4

    void drive_context() {
        uint64_t logs = 0;
        unsigned en = 0, ovr = 0, armed = 0;
        for (int i = 0; i < NUM_CQ; i++) {
            m->cq_base[i * 2] = (uint32_t)cq[i].base;
            m->cq_base[i * 2 + 1] = (uint32_t)(cq[i].base >> 32);
            logs |= (uint64_t)cq[i].log << (i * 5);
            en |= cq[i].en << i;
            ovr |= cq[i].ovr << i;
            armed |= cq[i].armed << i;
            uint32_t pw = m->cq_pi[i / 2], cw = m->cq_ci[i / 2];
            int sh = (i % 2) * 16;
            pw = (pw & ~(0xFFFFu << sh)) | ((uint32_t)cq[i].pi << sh);
            cw = (cw & ~(0xFFFFu << sh)) | ((uint32_t)cq[i].ci << sh);
            m->cq_pi[i / 2] = pw;
            m->cq_ci[i / 2] = cw;
        }
        m->cq_log = logs;
        m->cq_en = en;
        m->cq_ovr = ovr;
        m->cq_armed = armed;
    }

    // One clock cycle: drive, sample handshakes and strobes, edge, update.
    // Returns whether the CQE request handshake happened.
    bool cycle() {
        drive_context();
        m->dmaw_req_ready = coin();
        m->dmaw_dat_ready = coin();
        m->evt_ready = !block_events && coin();
        m->clk = 0;
        m->eval();
        bool req = m->dmaw_req_valid && m->dmaw_req_ready;
        bool dat = m->dmaw_dat_valid && m->dmaw_dat_ready;
        bool evt = m->evt_valid && m->evt_ready;
        bool cqe = m->cqe_valid && m->cqe_ready;
        bool done = m->cqw_done_valid, ovr = m->cqw_ovr_valid;
        unsigned cqn = m->cqw_cqn;
        bool err = m->cqw_err, sol = m->cqw_sol;
        if (req) {
            CHECK(!in_write, "a new DMA write request before the last one's data ended");
            writes.push_back({m->dmaw_req_addr, m->dmaw_req_len, {}});
            in_write = true;
        }
        if (dat) {
            CHECK(in_write, "DMA data beat without a request");
            CHECK(m->dmaw_dat_keep == 0xF, "CQE beat keep 0x%x", m->dmaw_dat_keep);
            writes.back().words.push_back(m->dmaw_dat_data);
            bool want_last = writes.back().words.size() == QPNIC_CQE_WORDS;
            CHECK(m->dmaw_dat_last == want_last, "last on beat %zu", writes.back().words.size());
            if (m->dmaw_dat_last) in_write = false;
        }
        if (evt) events.push_back(m->evt_data);
        m->clk = 1;
        m->eval();
        // the csr applies the strobes at this edge
        if (done) {
            done_pulses++;
            Cq &c = cq[cqn];
            if (err) { c.err_marks++; c.last_err = c.pi; }
            if (sol) { c.sol_marks++; c.last_sol = c.pi; }
            c.pi++;
        }
        if (ovr) {
            ovr_pulses++;
            cq[cqn].ovr = true;
        }
        return cqe;
    }

    void reset() {
        m->rst = 1;
        m->cqe_valid = 0;
        for (int i = 0; i < 3; i++) cycle();
        m->rst = 0;
        cycle();
    }

    // Offer one CQE and run until it is taken.
    void cqe(unsigned cqn, const uint32_t w[4]) {
        m->cqe_valid = 1;
        m->cqe_cqn = cqn;
        for (int i = 0; i < 4; i++) m->cqe_data[i] = w[i];
        for (int n = 0;; n++) {
            CHECK(n < 1000, "CQE for CQ %u never taken", cqn);
            if (cycle()) break;
        }
        m->cqe_valid = 0;
        for (int i = 0; i < 3; i++) cycle();
        CHECK(m->idle, "writer not idle after a CQE");
    }
};

void make_cqe(uint32_t w[4], uint32_t tag, unsigned status, bool sol) {
    w[0] = 0x1000 + tag;
    w[1] = QPNIC_FIELD(QPNIC_CQE_QPN, 3) | QPNIC_FIELD(QPNIC_CQE_WQE_INDEX, tag);
    w[2] = 0xCAFE0000u | tag;
    w[3] = QPNIC_FIELD(QPNIC_CQE_TYPE, QPNIC_OP_TYPE_SEND) | QPNIC_FIELD(QPNIC_CQE_STATUS, status) |
           QPNIC_FIELD(QPNIC_CQE_SOLICITED, sol ? 1 : 0);
}

void test_wrap_phase(Tb &t) {
    Cq &c = t.cq[1];
    c = Cq{};
    c.base = 0x0000000200001000ull;
    c.log = 2;   // 4 entries
    c.en = true;
    t.writes.clear();
    uint32_t w[4];
    for (unsigned i = 0; i < 10; i++) {
        if (i % 4 == 0) c.ci = c.pi;   // the host took everything
        make_cqe(w, i, QPNIC_CQE_STATUS_SUCCESS, false);
        t.cqe(1, w);
    }
    CHECK(t.writes.size() == 10, "%zu DMA writes for 10 CQEs", t.writes.size());
    for (unsigned i = 0; i < 10; i++) {
        const DmaWrite &d = t.writes[i];
        CHECK(d.addr == c.base + (i % 4) * 16, "CQE %u at 0x%llx", i, (unsigned long long)d.addr);
        CHECK(d.len == 16 && d.words.size() == 4, "CQE %u: len %u, %zu beats", i, d.len, d.words.size());
        make_cqe(w, i, QPNIC_CQE_STATUS_SUCCESS, false);
        unsigned want_phase = ((i / 4) % 2) == 0 ? 1 : 0;
        CHECK(QPNIC_FIELD_GET(d.words.data(), QPNIC_CQE_PHASE) == want_phase,
              "CQE %u (pass %u): phase %u, want %u", i, i / 4,
              QPNIC_FIELD_GET(d.words.data(), QPNIC_CQE_PHASE), want_phase);
        uint32_t got3 = d.words[3] & ~(QPNIC_CQE_PHASE_MASK << QPNIC_CQE_PHASE_SHIFT);
        CHECK(d.words[0] == w[0] && d.words[1] == w[1] && d.words[2] == w[2] && got3 == w[3],
              "CQE %u: words not written in order or altered", i);
    }
    CHECK(c.pi == 10, "PI %u after 10 CQEs", c.pi);
    CHECK(t.events.empty(), "events from an unarmed CQ");
    PASS("cqe_writer_slots_word_order_phase_across_wrap");
}

void test_overrun(Tb &t) {
    Cq &c = t.cq[2];
    c = Cq{};
    c.base = 0x8000;
    c.log = 1;   // 2 entries
    c.en = true;
    t.writes.clear();
    t.events.clear();
    uint32_t w[4];
    make_cqe(w, 1, QPNIC_CQE_STATUS_SUCCESS, false);
    t.cqe(2, w);
    t.cqe(2, w);
    CHECK(t.writes.size() == 2 && c.pi == 2, "two CQEs into an empty 2-entry CQ");
    int ovr0 = t.ovr_pulses;
    t.cqe(2, w);   // full: PI - CI == 2
    CHECK(t.writes.size() == 2, "a CQE was written to a full CQ");
    CHECK(c.pi == 2, "PI moved on overrun");
    CHECK(t.ovr_pulses == ovr0 + 1 && c.ovr, "overrun flag not set");
    CHECK(t.events.size() == 1, "%zu events on overrun, want 1", t.events.size());
    uint32_t e = t.events[0];
    CHECK(QPNIC_FIELD_GET(&e, QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_OVERRUN &&
              QPNIC_FIELD_GET(&e, QPNIC_EVENT_CQN) == 2,
          "overrun event 0x%08x", e);
    // in overrun: dropped, nothing else, even after the host makes room
    c.ci = 2;
    c.armed = true;
    t.cqe(2, w);
    CHECK(t.writes.size() == 2 && t.events.size() == 1 && t.ovr_pulses == ovr0 + 1,
          "a CQE to a CQ in overrun did something");
    // disabled CQ: dropped
    Cq &d = t.cq[3];
    d = Cq{};
    d.base = 0x9000;
    d.log = 3;
    d.armed = true;
    t.cqe(3, w);
    CHECK(t.writes.size() == 2 && t.events.size() == 1 && d.pi == 0, "a CQE to a disabled CQ did something");
    PASS("cqe_writer_overrun_when_full_and_drops");
}

void test_events(Tb &t) {
    Cq &c = t.cq[5];
    c = Cq{};
    c.base = 0x10000;
    c.log = 4;
    c.en = true;
    t.writes.clear();
    t.events.clear();
    uint32_t w[4];
    make_cqe(w, 0, QPNIC_CQE_STATUS_SUCCESS, false);
    t.cqe(5, w);
    CHECK(t.events.empty(), "CQE event from an unarmed CQ");
    c.armed = true;
    make_cqe(w, 1, QPNIC_CQE_STATUS_REM_ACCESS, false);
    t.cqe(5, w);
    make_cqe(w, 2, QPNIC_CQE_STATUS_SUCCESS, true);
    t.cqe(5, w);
    CHECK(t.events.size() == 2, "%zu events for 2 armed CQEs", t.events.size());
    uint32_t e1 = t.events[0], e2 = t.events[1];
    CHECK(QPNIC_FIELD_GET(&e1, QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_CQE &&
              QPNIC_FIELD_GET(&e1, QPNIC_EVENT_CQN) == 5 && QPNIC_FIELD_GET(&e1, QPNIC_EVENT_ERROR) == 1 &&
              QPNIC_FIELD_GET(&e1, QPNIC_EVENT_SOLICITED) == 0,
          "error CQE event 0x%08x", e1);
    CHECK(QPNIC_FIELD_GET(&e2, QPNIC_EVENT_ERROR) == 0 && QPNIC_FIELD_GET(&e2, QPNIC_EVENT_SOLICITED) == 1,
          "solicited CQE event 0x%08x", e2);
    CHECK(c.err_marks == 1 && c.last_err == 1, "error mark: %d marks, index %u", c.err_marks, c.last_err);
    CHECK(c.sol_marks == 1 && c.last_sol == 2, "solicited mark: %d marks, index %u", c.sol_marks, c.last_sol);

    // a blocked event FIFO stalls the writer; the event is delivered later
    t.block_events = true;
    make_cqe(w, 3, QPNIC_CQE_STATUS_SUCCESS, false);
    t.m->cqe_valid = 1;
    t.m->cqe_cqn = 5;
    for (int i = 0; i < 4; i++) t.m->cqe_data[i] = w[i];
    for (int n = 0; n < 200; n++) CHECK(!t.cycle(), "CQE taken while its event could not be queued");
    CHECK(t.writes.size() == 4, "the CQE itself was not written before the event");
    t.block_events = false;
    int n = 0;
    while (!t.cycle()) CHECK(++n < 100, "CQE not taken after the event FIFO opened");
    t.m->cqe_valid = 0;
    CHECK(t.events.size() == 3, "event lost under backpressure");
    PASS("cqe_writer_events_only_when_armed_flags_marks_backpressure");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    const char *s = std::getenv("TB_SEED");
    t.seed = s ? (unsigned)std::strtoul(s, nullptr, 0) : 12345u;
    std::printf("seed %u (TB_SEED)\n", t.seed);
    t.reset();
    test_wrap_phase(t);
    test_overrun(t);
    test_events(t);
    t.m->final();
    return 0;
}
