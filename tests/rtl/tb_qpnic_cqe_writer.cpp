// tb_qpnic_cqe_writer: unit test of rtl/qpnic_cqe_writer.v.
//
// The testbench plays qpnic_csr (it holds the CQ contexts and applies the
// writer's cqw_* strobes one cycle later, as the csr does), the DMA write
// channel (a host memory that records every request and beat, with random
// backpressure; seed printed) and the firmware event FIFO.
// Checks: slot addresses and word order, the phase bit across a ring wrap,
// overrun when full (CQE dropped, OVERRUN event, nothing written), drops for
// a disabled or overrun CQ, CQE events only for armed CQs and carrying the
// error and solicited flags and the index written (also across the 16-bit
// index wrap), the marks strobes, that a blocked event FIFO stalls the
// writer instead of losing the event, and that the armed bit is read only
// once PI shows the CQE: an arm either counts the CQE by its index or gets
// its event, never neither, never both (cycle-exact sweep).
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
    bool steady = false;   // every ready always high: cycle-exact runs
    unsigned seed = 1;
    // cycle timing, for the armed-bit sampling test
    long now = 0;              // cycles since construction
    long arm_at = -1;          // at the start of this cycle, arm CQ arm_cq
    unsigned arm_cq = 0;
    long last_beat_at = -1;    // cycle the last CQE data beat was accepted
    long pi_moved_at = -1;     // first cycle the moved PI was driven

    bool coin() { return steady || (rand_r(&seed) & 3) != 0; }   // ready 3 times in 4

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
        if (now == arm_at) cq[arm_cq].armed = true;
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
            if (m->dmaw_dat_last) {
                in_write = false;
                last_beat_at = now;
            }
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
            pi_moved_at = now + 1;
        }
        if (ovr) {
            ovr_pulses++;
            cq[cqn].ovr = true;
        }
        now++;
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
    // each field into its own word, wherever the layout puts it
    for (int i = 0; i < 4; i++) w[i] = 0;
    QPNIC_FIELD_SET(w, QPNIC_CQE_BYTE_COUNT, 0x1000 + tag);
    QPNIC_FIELD_SET(w, QPNIC_CQE_QPN, 3);
    QPNIC_FIELD_SET(w, QPNIC_CQE_WQE_INDEX, tag);
    QPNIC_FIELD_SET(w, QPNIC_CQE_INV_TOKEN, 0xCAFE0000u | tag);
    QPNIC_FIELD_SET(w, QPNIC_CQE_TYPE, QPNIC_CQE_TYPE_SEND);
    QPNIC_FIELD_SET(w, QPNIC_CQE_STATUS, status);
    QPNIC_FIELD_SET(w, QPNIC_CQE_SOLICITED, sol ? 1 : 0);
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
    CHECK(QPNIC_FIELD_GET(&e1, QPNIC_EVENT_INDEX) == 1 && QPNIC_FIELD_GET(&e2, QPNIC_EVENT_INDEX) == 2,
          "CQE events carry index %u and %u, want the indices written, 1 and 2",
          QPNIC_FIELD_GET(&e1, QPNIC_EVENT_INDEX), QPNIC_FIELD_GET(&e2, QPNIC_EVENT_INDEX));
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
    CHECK(QPNIC_FIELD_GET(&t.events[2], QPNIC_EVENT_INDEX) == 3, "stalled event carries index %u, want 3",
          QPNIC_FIELD_GET(&t.events[2], QPNIC_EVENT_INDEX));
    PASS("cqe_writer_events_only_when_armed_flags_marks_backpressure");
}


// CQE events carry the index the CQE was written at, across the 16-bit wrap
// of the free-running index and the ring's own wrap (4 entries).
void test_event_index_wrap(Tb &t) {
    Cq &c = t.cq[4];
    c = Cq{};
    c.base = 0x40000;
    c.log = 2;
    c.en = true;
    c.armed = true;
    c.pi = c.ci = 0xFFFE;
    t.writes.clear();
    t.events.clear();
    uint32_t w[4];
    const unsigned n = 6;   // indices 0xFFFE, 0xFFFF, 0, 1, 2, 3
    for (unsigned i = 0; i < n; i++) {
        c.ci = c.pi;
        make_cqe(w, i, i == 2 ? QPNIC_CQE_STATUS_REM_ACCESS : QPNIC_CQE_STATUS_SUCCESS, i == 3);
        t.cqe(4, w);
    }
    CHECK(t.writes.size() == n && t.events.size() == n, "%zu writes, %zu events for %u armed CQEs",
          t.writes.size(), t.events.size(), n);
    for (unsigned i = 0; i < n; i++) {
        uint16_t idx = (uint16_t)(0xFFFE + i);
        const uint32_t e = t.events[i];
        CHECK(QPNIC_FIELD_GET(&e, QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_CQE && QPNIC_FIELD_GET(&e, QPNIC_EVENT_CQN) == 4,
              "event %u: 0x%08x", i, e);
        CHECK(QPNIC_FIELD_GET(&e, QPNIC_EVENT_INDEX) == idx, "event %u carries index 0x%04x, the CQE went to 0x%04x",
              i, QPNIC_FIELD_GET(&e, QPNIC_EVENT_INDEX), idx);
        CHECK(QPNIC_FIELD_GET(&e, QPNIC_EVENT_ERROR) == (i == 2) && QPNIC_FIELD_GET(&e, QPNIC_EVENT_SOLICITED) == (i == 3),
              "event %u flags 0x%08x", i, e);
        CHECK(t.writes[i].addr == c.base + (idx & 3u) * 16, "CQE at index 0x%04x written to 0x%llx", idx,
              (unsigned long long)t.writes[i].addr);
        unsigned want_phase = ((idx >> 2) & 1) ? 0 : 1;
        CHECK(QPNIC_FIELD_GET(t.writes[i].words.data(), QPNIC_CQE_PHASE) == want_phase,
              "CQE at index 0x%04x: phase %u, want %u", idx, QPNIC_FIELD_GET(t.writes[i].words.data(), QPNIC_CQE_PHASE),
              want_phase);
    }
    CHECK(c.pi == 4, "PI 0x%04x after wrapping, want 4", c.pi);
    PASS("cqe_writer_event_carries_written_index_across_wrap");
}

// The armed bit is read only once the CQ's PI shows the CQE (docs/internals.md,
// "Firmware and its hardware"). An ARM event entering the FIFO in cycle P
// takes the PI driven in P as its index and shows the armed bit from P + 1.
// For every P around the CQE's write, exactly one of the two must count the
// CQE: the arm's index is past it, or the CQE raises an event. Cycle-exact
// (every ready high), no randomness.
void test_armed_sampled_after_pi(Tb &t) {
    Cq &c = t.cq[6];
    c = Cq{};
    c.base = 0x60000;
    c.log = 3;
    c.en = true;
    t.steady = true;
    t.events.clear();
    uint32_t w[4];
    make_cqe(w, 0, QPNIC_CQE_STATUS_SUCCESS, false);
    // a reference run, unarmed: where the last beat and the PI move fall
    long start = t.now;
    t.cqe(6, w);
    CHECK(t.events.empty(), "an event from an unarmed CQ");
    const long beat_off = t.last_beat_at - start;
    const long pi_lag = t.pi_moved_at - t.last_beat_at;
    CHECK(pi_lag == 2, "PI shows the CQE %ld cycles after its last beat, want 2 (done strobe, then the csr)", pi_lag);
    bool saw_event = false, saw_none = false;
    for (long k = -2; k <= 4; k++) {   // the armed bit shows from last beat + k
        t.events.clear();
        c.armed = false;
        c.ci = c.pi;
        const uint16_t idx = c.pi;
        start = t.now;
        t.arm_cq = 6;
        t.arm_at = start + beat_off + k;
        t.cqe(6, w);
        t.arm_at = -1;
        CHECK(t.last_beat_at - start == beat_off, "k %ld: the run is not cycle-exact (last beat at +%ld, want +%ld)", k,
              t.last_beat_at - start, beat_off);
        CHECK(c.armed, "k %ld: the test never armed the CQ", k);
        // the ARM entered one cycle before its bit shows; its index is the PI
        // driven then
        const long arm_cycle = t.last_beat_at + k - 1;
        const uint16_t arm_index = arm_cycle < t.pi_moved_at ? idx : (uint16_t)(idx + 1);
        const bool arm_counts_cqe = arm_index != idx;
        const bool raised = t.events.size() == 1;
        CHECK(t.events.size() <= 1, "k %ld: %zu events for one CQE", k, t.events.size());
        CHECK(raised != arm_counts_cqe,
              "armed bit from last beat + %ld (PI moved at last beat + %ld): the arm's index 0x%04x %s the CQE at "
              "0x%04x, and the writer %s",
              k, pi_lag, arm_index, arm_counts_cqe ? "counts" : "does not count", idx,
              raised ? "raised an event too" : "raised no event");
        if (raised) {
            CHECK(QPNIC_FIELD_GET(&t.events[0], QPNIC_EVENT_INDEX) == idx, "k %ld: event index 0x%04x, want 0x%04x", k,
                  QPNIC_FIELD_GET(&t.events[0], QPNIC_EVENT_INDEX), idx);
            saw_event = true;
        } else {
            saw_none = true;
        }
        // the cases the contract names: armed in the last beat's cycle or
        // right after gives an event; armed only after the check, none
        if (k == 0 || k == 1) CHECK(raised, "armed at last beat + %ld gave no event", k);
        if (k >= 3) CHECK(!raised, "armed at last beat + %ld, after the check, gave an event", k);
    }
    CHECK(saw_event && saw_none, "the sweep did not cross the sampling point");
    t.steady = false;
    PASS("cqe_writer_armed_bit_sampled_after_pi_moved_never_neither");
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
    test_event_index_wrap(t);
    test_armed_sampled_after_pi(t);
    t.m->final();
    return 0;
}
