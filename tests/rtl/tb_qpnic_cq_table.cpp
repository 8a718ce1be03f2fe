// tb_qpnic_cq_table: unit test of rtl/qpnic_cq_table.v, the one owner of
// every CQ's state, through its ports alone.
//
// Checks: the table is empty and every ready low while it clears after
// reset (also a reset after use); the CQ registers through the host port
// (BASE, CFG read back, enable re-initialising PI, CI, overrun and the
// marks, CI, PI, STATE, unmapped offsets, a CQ number beyond NUM_CQ neither
// aliasing nor answering); the CQE writer's READ / WRITTEN / OVERRUN (PI,
// marks with the old PI, the answer showing the context as the op found
// it); the ARM doorbell's event (cqn, type, trigger, index = PI) and the
// ARM write waiting while the previous ARM event has not been taken, without
// holding up the other ports; ARM against WRITTEN on the same CQ in both
// orders, cycle by cycle: the arm's index counts the CQE or the WRITTEN sees
// armed, never neither, never both; ARMED_CLR with and without queued ARMs
// (counted per CQ, up to a whole event FIFO plus one); the notification
// latency per CQ, for a CQ that never had a CQE and one beyond NUM_CQ, two
// notifications back to back, and never negative whatever op lands next to
// the notification; answers exactly ANS_LATENCY cycles after the request;
// back-to-back ops on the same CQ every cycle; and a randomized run of all
// ports at once against a model (seed printed, TB_SEED=N repeats it).
// Not for: how qpnic_csr, the CQE writer or qpnic_fw_if use the ports
// (their own testbenches, tb_qpnic_core, the e2e tests).
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

#include "Vqpnic_cq_table.h"
#include "verilated.h"
#include "tb_util.h"
#include "qpnic_hw.h"
#include "qpnic_internal.h"

namespace {

// The table's size: the RTL default (a run with -GNUM_CQ=N needs -DTB_NUM_CQ=N).
#ifndef TB_NUM_CQ
#define TB_NUM_CQ QPNIC_NUM_CQ
#endif
constexpr unsigned NUM_CQ = TB_NUM_CQ;
constexpr int ANS_LATENCY = 2;
constexpr unsigned EVT_FIFO = 1u << QPNIC_EVT_LOG_DEPTH;

// Op codes of the CQ table ports (layout enums cq_wr_op, cq_fw_op).
enum { C_READ = QPNIC_CQ_WR_OP_READ, C_WRITTEN = QPNIC_CQ_WR_OP_WRITTEN, C_OVERRUN = QPNIC_CQ_WR_OP_OVERRUN,
       C_SET_CI = QPNIC_CQ_WR_OP_SET_CI };
enum { F_READ = QPNIC_CQ_FW_OP_READ, F_ARMED_CLR = QPNIC_CQ_FW_OP_ARMED_CLR, F_ARM_POPPED = QPNIC_CQ_FW_OP_ARM_POPPED };

uint32_t cq_cfg(bool enable, unsigned log_depth) {
    return QPNIC_FIELD(QPNIC_CQ_CFG_ENABLE, enable) | QPNIC_FIELD(QPNIC_CQ_CFG_LOG_DEPTH, log_depth);
}
uint32_t cq_state(bool enabled, bool overrun) {
    return QPNIC_FIELD(QPNIC_CQ_STATE_ENABLED, enabled) | QPNIC_FIELD(QPNIC_CQ_STATE_OVERRUN, overrun);
}
uint32_t mark(bool valid, unsigned index) {
    return QPNIC_FIELD(QPNIC_CQ_MARK_VALID, valid) | QPNIC_FIELD(QPNIC_CQ_MARK_INDEX, index);
}
uint32_t arm_trigger(unsigned t) { return QPNIC_FIELD(QPNIC_CQ_ARM_TRIGGER, t); }
unsigned ev(uint32_t w, int f_word_shift, uint32_t mask) { return (w >> f_word_shift) & mask; }
#define EVF(w, F) ev(w, F##_SHIFT, F##_MASK)

// What the CQE writer port answers.
struct CAns {
    uint64_t base = 0;
    unsigned log = 0;
    bool en = false, ovr = false, armed = false;
    uint16_t pi = 0, ci = 0;
    bool operator==(const CAns &o) const {
        return base == o.base && log == o.log && en == o.en && ovr == o.ovr && armed == o.armed &&
               pi == o.pi && ci == o.ci;
    }
};
// What the firmware port answers.
struct FAns {
    uint16_t pi = 0, ci = 0;
    uint32_t err = 0, sol = 0;
    bool operator==(const FAns &o) const { return pi == o.pi && ci == o.ci && err == o.err && sol == o.sol; }
};

struct Tb {
    std::unique_ptr<Vqpnic_cq_table> m{new Vqpnic_cq_table};
    uint32_t now = 0;          // the cycle counter driven on `cycles` (0 at reset)
    bool evt_room = true;      // arm_evt_ready
    // What the last step() saw, and everything that came out.
    bool h_fire = false, c_fire = false, f_fire = false;
    std::deque<std::pair<uint32_t, uint32_t>> h_ans;   // {cycle, data}
    std::deque<std::pair<uint32_t, CAns>> c_ans;
    std::deque<std::pair<uint32_t, FAns>> f_ans;
    std::deque<std::pair<uint32_t, uint32_t>> lat;     // {cycle, latency}
    std::vector<uint32_t> arm_events;

    // One clock cycle with the inputs as they are.
    void step() {
        m->cycles = now;
        m->arm_evt_ready = evt_room;
        m->clk = 0;
        m->eval();
        h_fire = m->h_valid && m->h_ready;
        c_fire = m->c_valid && m->c_ready;
        f_fire = m->f_valid && m->f_ready;
        CHECK(h_fire + c_fire + f_fire <= 1, "cycle %u: two ports taken in one cycle", now);
        if (m->h_rvalid) h_ans.push_back({now, m->h_rdata});
        if (m->c_rvalid) {
            CAns a;
            a.base = m->c_base;
            a.log = m->c_log;
            a.en = m->c_en;
            a.ovr = m->c_ovr;
            a.armed = m->c_armed;
            a.pi = m->c_pi;
            a.ci = m->c_ci;
            c_ans.push_back({now, a});
        }
        if (m->f_rvalid) f_ans.push_back({now, {m->f_pi, m->f_ci, m->f_err, m->f_sol}});
        if (m->lat_valid) lat.push_back({now, m->lat_cycles});
        if (m->arm_evt_valid && m->arm_evt_ready) arm_events.push_back(m->arm_evt_data);
        m->clk = 1;
        m->eval();
        now++;
    }

    void quiet() {
        m->h_valid = 0;
        m->c_valid = 0;
        m->f_valid = 0;
        m->ntf_valid = 0;
    }

    // Reset; returns the cycles the table took to clear (every ready low).
    int reset() {
        quiet();
        m->rst = 1;
        for (int i = 0; i < 3; i++) step();
        m->rst = 0;
        now = 0;
        h_ans.clear();
        c_ans.clear();
        f_ans.clear();
        lat.clear();
        arm_events.clear();
        int busy = 0;
        m->h_valid = 1;   // a read waiting the whole time
        m->h_we = 0;
        m->h_idx = 0;
        m->h_off = QPNIC_CQREG_PI;
        m->c_valid = 1;
        m->c_op = C_READ;
        m->c_idx = 0;
        m->f_valid = 1;
        m->f_op = F_READ;
        m->f_idx = 0;
        for (;;) {
            m->clk = 0;
            m->eval();
            if (m->h_ready || m->c_ready || m->f_ready) break;
            CHECK(!m->idle, "idle while clearing");
            CHECK(++busy <= (int)NUM_CQ + 2, "still clearing after %d cycles", busy);
            step();
        }
        quiet();
        m->eval();
        CHECK(busy >= (int)NUM_CQ - 1, "cleared %u CQs in %d cycles", NUM_CQ, busy);
        return busy;
    }

    // Runs until the table is idle and every answer is out (or fails after
    // max cycles).
    void settle(int max = 50) {
        for (int i = 0; i < max; i++) {
            m->clk = 0;
            m->eval();
            if (m->idle && !m->h_rvalid && !m->c_rvalid && !m->f_rvalid && !m->lat_valid) return;
            step();
        }
        CHECK(false, "table not idle after %d cycles", max);
    }

    // ---- one op at a time: the request held until taken, then its answer --
    // Each returns through *fired the cycle the request was taken.
    int wait_fire(bool Tb::*fire, const char *what, int max = 100) {
        for (int n = 0;; n++) {
            CHECK(n < max, "%s never taken", what);
            uint32_t c = now;
            step();
            if (this->*fire) return (int)c;
        }
    }
    template <typename T>
    T wait_answer(std::deque<std::pair<uint32_t, T>> &q, uint32_t fired, const char *what) {
        while (q.empty()) {
            CHECK(now - fired <= (uint32_t)ANS_LATENCY + 1, "%s: no answer", what);
            step();
        }
        auto a = q.front();
        q.pop_front();
        CHECK(a.first == fired + ANS_LATENCY, "%s: answered %u cycles after it was taken, want %d", what,
              a.first - fired, ANS_LATENCY);
        return a.second;
    }

    int hwrite(unsigned idx, unsigned off, uint32_t data, int *waited = nullptr, int max = 100) {
        m->h_valid = 1;
        m->h_we = 1;
        m->h_idx = idx;
        m->h_off = off;
        m->h_wdata = data;
        uint32_t start = now;
        int c = wait_fire(&Tb::h_fire, "host write", max);
        m->h_valid = 0;
        if (waited) *waited = c - (int)start;
        return c;
    }
    uint32_t hread(unsigned idx, unsigned off) {
        m->h_valid = 1;
        m->h_we = 0;
        m->h_idx = idx;
        m->h_off = off;
        int c = wait_fire(&Tb::h_fire, "host read");
        m->h_valid = 0;
        return wait_answer(h_ans, c, "host read");
    }
    int cop(unsigned op, unsigned idx, bool err = false, bool sol = false) {
        m->c_valid = 1;
        m->c_op = op;
        m->c_idx = idx;
        m->c_err = err;
        m->c_sol = sol;
        int c = wait_fire(&Tb::c_fire, "CQE writer op");
        m->c_valid = 0;
        return c;
    }
    CAns cread(unsigned idx) { return wait_answer(c_ans, cop(C_READ, idx), "CQE writer READ"); }
    CAns cwritten(unsigned idx, bool err = false, bool sol = false) {
        return wait_answer(c_ans, cop(C_WRITTEN, idx, err, sol), "WRITTEN");
    }
    int fop(unsigned op, unsigned idx) {
        m->f_valid = 1;
        m->f_op = op;
        m->f_idx = idx;
        int c = wait_fire(&Tb::f_fire, "firmware op");
        m->f_valid = 0;
        return c;
    }
    FAns fread(unsigned idx) { return wait_answer(f_ans, fop(F_READ, idx), "firmware READ"); }
    bool armed(unsigned idx) { return cread(idx).armed; }

    // One notification for cqn in this cycle; returns the cycle.
    uint32_t notify(unsigned cqn) {
        m->ntf_valid = 1;
        m->ntf_cqn = cqn;
        uint32_t c = now;
        step();
        m->ntf_valid = 0;
        return c;
    }
    uint32_t latency() {
        for (int i = 0; i < 10 && lat.empty(); i++) step();
        CHECK(!lat.empty(), "no latency for a notification");
        uint32_t l = lat.front().second;
        lat.pop_front();
        return l;
    }
};

void enable(Tb &t, unsigned c, unsigned log, uint64_t base) {
    t.hwrite(c, QPNIC_CQREG_BASE_LO, (uint32_t)base);
    t.hwrite(c, QPNIC_CQREG_BASE_HI, (uint32_t)(base >> 32));
    t.hwrite(c, QPNIC_CQREG_CFG, cq_cfg(true, log));
}

void test_clear(Tb &t) {
    // the RAM starts at zero under Verilator: fill it, then reset
    for (unsigned c = 0; c < NUM_CQ; c++) {
        enable(t, c, 5, 0x1000ull * (c + 1));
        t.cwritten(c, true, true);
        t.cop(C_OVERRUN, c);
        t.hwrite(c, QPNIC_CQREG_CI, 7);
        t.hwrite(c, QPNIC_CQREG_ARM, arm_trigger(QPNIC_CQ_TRIGGER_ANY));
    }
    t.settle();
    // each CQ: a RESET event for its CFG write, then an ARM event
    CHECK(t.arm_events.size() == 2 * NUM_CQ, "%zu events for %u CFG writes and %u ARMs",
          t.arm_events.size(), NUM_CQ, NUM_CQ);
    for (size_t k = 0; k < t.arm_events.size(); k++)
        CHECK(EVF(t.arm_events[k], QPNIC_EVENT_TYPE) == (k % 2 ? QPNIC_EVT_TYPE_ARM : QPNIC_EVT_TYPE_RESET) &&
                  EVF(t.arm_events[k], QPNIC_EVENT_CQN) == k / 2,
              "event %zu is 0x%08x: want %s of CQ %zu", k, t.arm_events[k], k % 2 ? "ARM" : "RESET", k / 2);
    int busy = t.reset();
    std::printf("  cleared %u CQs in %d cycles\n", NUM_CQ, busy);
    for (unsigned c = 0; c < NUM_CQ; c++) {
        for (unsigned off = 0; off < QPNIC_CQ_STRIDE; off += 4)
            CHECK(t.hread(c, off) == 0, "CQ %u offset 0x%02x reads 0x%08x after reset", c, off, t.hread(c, off));
        CHECK(t.cread(c) == CAns{}, "CQ %u: CQE writer READ not all zero after reset", c);
        CHECK(t.fread(c) == FAns{}, "CQ %u: firmware READ not all zero after reset", c);
        // arms_queued is 0 too: a clear works at once
        t.fop(F_ARMED_CLR, c);
    }
    t.settle();
    CHECK(t.m->idle, "not idle once cleared");
    PASS("cq_table_clears_after_reset");
}

void test_host_registers(Tb &t) {
    const unsigned c = 2;
    t.hwrite(c, QPNIC_CQREG_BASE_LO, 0x40000000u);
    t.hwrite(c, QPNIC_CQREG_BASE_HI, 0x1u);
    t.hwrite(c, QPNIC_CQREG_CFG, cq_cfg(true, 3));
    CHECK(t.hread(c, QPNIC_CQREG_BASE_LO) == 0x40000000u && t.hread(c, QPNIC_CQREG_BASE_HI) == 1, "BASE read back");
    CHECK(t.hread(c, QPNIC_CQREG_CFG) == cq_cfg(true, 3), "CFG read back 0x%08x", t.hread(c, QPNIC_CQREG_CFG));
    CHECK(t.hread(c, QPNIC_CQREG_STATE) == cq_state(true, false), "STATE of an enabled CQ");
    CAns a = t.cread(c);
    CHECK(a.base == 0x140000000ull && a.log == 3 && a.en && !a.ovr, "CQE writer sees base 0x%llx log %u en %d",
          (unsigned long long)a.base, a.log, a.en);
    CHECK(t.hread(c - 1, QPNIC_CQREG_CFG) == 0 && t.hread(c - 1, QPNIC_CQREG_BASE_LO) == 0,
          "a write to CQ %u changed a neighbour", c);

    // the CQE writer wrote three CQEs: the second an error, the third solicited
    for (int i = 0; i < 3; i++) {
        CAns w = t.cwritten(c, i == 1, i == 2);
        CHECK(w.pi == i, "WRITTEN %d answered PI %u: the index the CQE went to", i, w.pi);
    }
    CHECK(t.hread(c, QPNIC_CQREG_PI) == 3, "PI want 3, got %u", t.hread(c, QPNIC_CQREG_PI));
    FAns f = t.fread(c);
    CHECK(f.pi == 3 && f.err == mark(true, 1) && f.sol == mark(true, 2),
          "firmware view: PI %u, error mark 0x%08x (want index 1), solicited mark 0x%08x (want index 2)", f.pi,
          f.err, f.sol);
    t.hwrite(c, QPNIC_CQREG_CI, 2);
    CHECK(t.hread(c, QPNIC_CQREG_CI) == 2 && t.cread(c).ci == 2 && t.fread(c).ci == 2, "CI write");
    t.hwrite(c, QPNIC_CQREG_PI, 0x55);   // read-only
    CHECK(t.hread(c, QPNIC_CQREG_PI) == 3, "a host write moved PI");

    t.cop(C_OVERRUN, c);
    CHECK(t.hread(c, QPNIC_CQREG_STATE) == cq_state(true, true), "overrun not in STATE");
    CHECK(t.cread(c).ovr, "the CQE writer does not see the overrun");

    // re-enable zeroes PI, CI, overrun, marks; keeps the base
    t.hwrite(c, QPNIC_CQREG_CFG, cq_cfg(true, 4));
    CHECK(t.hread(c, QPNIC_CQREG_PI) == 0 && t.hread(c, QPNIC_CQREG_CI) == 0, "enable did not zero PI/CI");
    CHECK(t.hread(c, QPNIC_CQREG_STATE) == cq_state(true, false), "enable did not clear overrun");
    f = t.fread(c);
    CHECK(f.err == 0 && f.sol == 0, "enable kept the marks: 0x%08x 0x%08x", f.err, f.sol);
    CHECK(t.hread(c, QPNIC_CQREG_CFG) == cq_cfg(true, 4), "CFG read back");
    CHECK(t.hread(c, QPNIC_CQREG_BASE_LO) == 0x40000000u, "enable lost the base");
    // a write without enable changes the depth and disables, nothing else
    t.cwritten(c);
    t.hwrite(c, QPNIC_CQREG_CFG, cq_cfg(false, 4));
    CHECK(t.hread(c, QPNIC_CQREG_STATE) == 0 && !t.cread(c).en, "disable");
    CHECK(t.hread(c, QPNIC_CQREG_PI) == 1, "disable zeroed PI");

    CHECK(t.hread(c, QPNIC_CQREG_ARM) == 0, "ARM (write-only) does not read 0");
    CHECK(t.hread(c, 0x1C) == 0, "unmapped offset 0x1C does not read 0");
    PASS("cq_table_host_registers_enable_pi_ci_marks_overrun");
}

// CQ numbers beyond NUM_CQ: taken, change nothing, answer 0, never fold onto
// a CQ that exists (the RAM has a power-of-two number of words).
void test_beyond_num_cq(Tb &t) {
    const unsigned c = 1;
    enable(t, c, 4, 0x9000);
    const unsigned far[] = {NUM_CQ, NUM_CQ + c, 255};
    for (unsigned x : far) {
        if (x > 255 || x < NUM_CQ) continue;   // CQ numbers are 8 bits
        t.hwrite(x, QPNIC_CQREG_BASE_LO, 0xDEAD0000u);
        t.hwrite(x, QPNIC_CQREG_CFG, cq_cfg(true, 2));
        t.cwritten(x, true, false);
        t.cop(C_OVERRUN, x);
        size_t ev0 = t.arm_events.size();
        t.hwrite(x, QPNIC_CQREG_ARM, arm_trigger(QPNIC_CQ_TRIGGER_ANY));
        t.settle();
        CHECK(t.arm_events.size() == ev0, "an ARM of CQ %u (>= NUM_CQ) made an event", x);
        CHECK(t.hread(x, QPNIC_CQREG_BASE_LO) == 0 && t.hread(x, QPNIC_CQREG_CFG) == 0, "CQ %u reads non-zero", x);
        CHECK(t.cread(x) == CAns{}, "CQ %u: the CQE writer does not see a disabled CQ", x);
        CHECK(t.fread(x) == FAns{}, "CQ %u: firmware READ not zero", x);
    }
    CAns a = t.cread(c);
    CHECK(a.base == 0x9000 && a.log == 4 && a.en && !a.ovr && a.pi == 0 && !a.armed,
          "CQ %u changed by ops on CQ numbers beyond NUM_CQ", c);
    PASS("cq_table_cq_numbers_beyond_num_cq_ignored");
}

void test_arm_event_and_stall(Tb &t) {
    const unsigned c = 6;
    enable(t, c, 4, 0x6000);
    for (int i = 0; i < 5; i++) t.cwritten(c);
    t.arm_events.clear();
    // the event FIFO is full: the first ARM is taken (its event waits in the
    // table), the second waits for it
    t.evt_room = false;
    int waited = 0;
    t.hwrite(c, QPNIC_CQREG_ARM, arm_trigger(QPNIC_CQ_TRIGGER_SOLICITED), &waited);
    CHECK(waited == 0, "first ARM waited %d cycles with the table's event slot free", waited);
    // the next ARM right behind it, while the first is still in the pipeline
    t.m->h_valid = 1;
    t.m->h_we = 1;
    t.m->h_idx = c;
    t.m->h_off = QPNIC_CQREG_ARM;
    t.m->h_wdata = arm_trigger(QPNIC_CQ_TRIGGER_ANY);
    for (int i = 0; i < 20; i++) {
        t.step();
        CHECK(!t.h_fire, "second ARM taken %d cycles after the first, whose event cannot leave", i);
    }
    CHECK(t.m->arm_evt_valid, "ARM event not offered");
    uint32_t e = t.m->arm_evt_data;
    CHECK(EVF(e, QPNIC_EVENT_CQN) == c && EVF(e, QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_ARM &&
              EVF(e, QPNIC_EVENT_TRIGGER) == QPNIC_CQ_TRIGGER_SOLICITED && EVF(e, QPNIC_EVENT_INDEX) == 5 &&
              EVF(e, QPNIC_EVENT_VALID) == 0,
          "ARM event 0x%08x: want cqn %u, type ARM, trigger SOLICITED, index 5 (PI), valid 0", e, c);
    CHECK(t.armed(c), "the ARM did not set the armed bit");
    CHECK(!t.m->idle, "idle with an ARM event waiting");
    // meanwhile the other ports are served: nothing waits on the host's ARM
    t.m->h_valid = 0;
    t.cwritten(c);
    CHECK(t.fread(c).pi == 6, "firmware READ while an ARM waits");
    // other host accesses are not held up by the waiting event
    t.hwrite(c, QPNIC_CQREG_CI, 1, &waited);
    CHECK(waited == 0, "a CI write waited %d cycles behind a waiting ARM event", waited);
    CHECK(t.arm_events.empty(), "an event left while arm_evt_ready was low");
    // room: the first event goes, then the second ARM, carrying PI 6
    t.evt_room = true;
    t.hwrite(c, QPNIC_CQREG_ARM, arm_trigger(QPNIC_CQ_TRIGGER_ANY), &waited);
    CHECK(waited <= 2, "second ARM waited %d cycles after the first event left", waited);
    t.settle();
    CHECK(t.arm_events.size() == 2, "%zu ARM events, want 2", t.arm_events.size());
    CHECK(t.arm_events[0] == e, "first event changed while it waited");
    e = t.arm_events[1];
    CHECK(EVF(e, QPNIC_EVENT_TRIGGER) == QPNIC_CQ_TRIGGER_ANY && EVF(e, QPNIC_EVENT_INDEX) == 6,
          "second ARM event 0x%08x: want trigger ANY, index 6", e);
    // back-to-back ARMs on different CQs: each waits for the slot, none is lost
    t.arm_events.clear();
    for (unsigned k = 0; k < 4; k++) t.hwrite(k, QPNIC_CQREG_ARM, arm_trigger(k & 3));
    t.settle();
    CHECK(t.arm_events.size() == 4, "%zu events for 4 back-to-back ARMs", t.arm_events.size());
    for (unsigned k = 0; k < 4; k++)
        CHECK(EVF(t.arm_events[k], QPNIC_EVENT_CQN) == k && EVF(t.arm_events[k], QPNIC_EVENT_TRIGGER) == (k & 3),
              "event %u: 0x%08x", k, t.arm_events[k]);
    // drain what these ARMs queued, as the firmware would
    for (unsigned k = 0; k < 4; k++) t.fop(F_ARM_POPPED, k);
    t.fop(F_ARM_POPPED, c);
    t.fop(F_ARM_POPPED, c);
    for (unsigned k = 0; k < NUM_CQ; k++) t.fop(F_ARMED_CLR, k);
    for (unsigned k = 0; k < NUM_CQ; k++) CHECK(!t.armed(k), "CQ %u still armed after its ARMs left", k);
    t.arm_events.clear();
    PASS("cq_table_arm_event_contents_and_stall_while_event_waits");
}

// ARM (host) against WRITTEN (CQE writer) on one CQ, the ARM offered k cycles
// after the WRITTEN, for k around 0: whichever the table takes first, the
// pair must count the CQE exactly once.
void test_arm_vs_written(Tb &t) {
    const unsigned c = 3;
    enable(t, c, 6, 0x3000);
    bool saw_before = false, saw_after = false;
    for (int k = -3; k <= 3; k++) {
        t.fop(F_ARMED_CLR, c);
        CHECK(!t.armed(c), "k %d: CQ not disarmed before the race", k);
        t.arm_events.clear();
        t.c_ans.clear();
        bool c_on = false, h_on = false, c_done = false, h_done = false;
        int c_at = -1, h_at = -1;
        for (int cyc = 0; cyc < 40 && !(c_done && h_done); cyc++) {
            int rel = cyc - 5;   // WRITTEN offered at rel 0, ARM at rel k
            if (rel == 0) {
                t.m->c_valid = 1;
                t.m->c_op = C_WRITTEN;
                t.m->c_idx = c;
                t.m->c_err = 0;
                t.m->c_sol = 0;
                c_on = true;
            }
            if (rel == k) {
                t.m->h_valid = 1;
                t.m->h_we = 1;
                t.m->h_idx = c;
                t.m->h_off = QPNIC_CQREG_ARM;
                t.m->h_wdata = arm_trigger(QPNIC_CQ_TRIGGER_ANY);
                h_on = true;
            }
            t.step();
            if (c_on && t.c_fire) { t.m->c_valid = 0; c_on = false; c_done = true; c_at = cyc; }
            if (h_on && t.h_fire) { t.m->h_valid = 0; h_on = false; h_done = true; h_at = cyc; }
        }
        CHECK(c_done && h_done, "k %d: the ops were not both taken", k);
        t.settle();
        CHECK(t.c_ans.size() == 1 && t.arm_events.size() == 1, "k %d: %zu answers, %zu events", k, t.c_ans.size(),
              t.arm_events.size());
        CAns w = t.c_ans.front().second;
        t.c_ans.clear();
        unsigned arm_index = EVF(t.arm_events[0], QPNIC_EVENT_INDEX);
        bool arm_counts_cqe = arm_index == (uint16_t)(w.pi + 1);
        CHECK(arm_counts_cqe || arm_index == w.pi, "k %d: ARM index %u, CQE at %u", k, arm_index, w.pi);
        CHECK(w.armed != arm_counts_cqe,
              "k %d (ARM taken %s the WRITTEN): the WRITTEN %s armed and the ARM's index %u %s the CQE at %u", k,
              h_at < c_at ? "before" : "after", w.armed ? "saw" : "did not see", arm_index,
              arm_counts_cqe ? "counts" : "does not count", w.pi);
        CHECK((h_at < c_at) == w.armed, "k %d: the order taken does not match what the ops saw", k);
        (w.armed ? saw_before : saw_after) = true;
        // the same cycle: the CQE writer's port goes first
        if (k == 0) CHECK(!w.armed, "offered in the same cycle, the ARM went first");
        t.fop(F_ARM_POPPED, c);
    }
    CHECK(saw_before && saw_after, "the sweep never had both orders");
    t.arm_events.clear();
    PASS("cq_table_arm_vs_written_never_neither_never_both");
}

void test_armed_clr(Tb &t) {
    const unsigned a = 4, b = 5;
    // no ARM queued: a clear clears at once
    t.hwrite(a, QPNIC_CQREG_ARM, arm_trigger(QPNIC_CQ_TRIGGER_ANY));
    t.fop(F_ARM_POPPED, a);
    CHECK(t.armed(a), "popping the ARM cleared the armed bit");
    t.fop(F_ARMED_CLR, a);
    CHECK(!t.armed(a), "ARMED_CLR with no ARM queued did not clear");
    // two CQs interleaved: a CQ's clear works only once its own ARMs are popped
    unsigned left[2] = {0, 0};
    const unsigned seq[] = {a, b, a, b, a};
    for (unsigned q : seq) {
        t.hwrite(q, QPNIC_CQREG_ARM, arm_trigger(QPNIC_CQ_TRIGGER_ERRORS));
        left[q - a]++;
    }
    t.fop(F_ARMED_CLR, a);
    t.fop(F_ARMED_CLR, b);
    CHECK(t.armed(a) && t.armed(b), "a clear with ARMs queued cleared (a %u, b %u queued)", left[0], left[1]);
    for (unsigned q : seq) {
        t.fop(F_ARM_POPPED, q);
        left[q - a]--;
        t.fop(F_ARMED_CLR, a);
        t.fop(F_ARMED_CLR, b);
        CHECK(t.armed(a) == (left[0] > 0) && t.armed(b) == (left[1] > 0),
              "after a pop: CQ %u armed %d with %u queued, CQ %u armed %d with %u", a, t.armed(a), left[0], b,
              t.armed(b), left[1]);
    }
    // a whole event FIFO of one CQ's ARMs plus one more: the count holds them
    const unsigned n = EVT_FIFO + 1;
    for (unsigned i = 0; i < n; i++) t.hwrite(a, QPNIC_CQREG_ARM, arm_trigger(QPNIC_CQ_TRIGGER_ANY));
    for (unsigned i = 0; i < n; i++) {
        t.fop(F_ARM_POPPED, a);
        t.fop(F_ARMED_CLR, a);
        CHECK(t.armed(a) == (i + 1 < n), "after popping %u of %u ARMs: armed %d", i + 1, n, t.armed(a));
    }
    // an ARMED_CLR right behind an ARM of the same CQ, back to back: the ARM
    // is taken first and counts
    t.m->f_valid = 1;
    t.m->f_op = F_ARMED_CLR;
    t.m->f_idx = b;
    t.m->h_valid = 1;
    t.m->h_we = 1;
    t.m->h_idx = b;
    t.m->h_off = QPNIC_CQREG_ARM;
    t.m->h_wdata = 0;
    bool f_done = false, h_done = false;
    for (int i = 0; i < 10 && !(f_done && h_done); i++) {
        t.step();
        if (t.f_fire) { t.m->f_valid = 0; f_done = true; CHECK(!h_done, "setup: the ARM went first"); }
        if (t.h_fire) { t.m->h_valid = 0; h_done = true; }
    }
    CHECK(t.armed(b), "an ARM taken right after a clear of its CQ left it unarmed");
    t.fop(F_ARM_POPPED, b);
    t.fop(F_ARMED_CLR, b);
    CHECK(!t.armed(b), "CQ %u armed at the end", b);
    t.settle();
    t.arm_events.clear();
    PASS("cq_table_armed_clr_only_without_queued_arms");
}

// NTF_LATENCY: a notification is charged the cycles since its CQ's newest
// CQE was written (the WRITTEN op taken).
void test_latency(Tb &t) {
    // a CQ that never had a CQE since reset counts the cycles since reset
    const unsigned fresh = 7;
    uint32_t at = t.notify(fresh);
    uint32_t l = t.latency();
    CHECK(l == at, "CQ %u without a CQE: latency %u, want the cycles since reset (%u)", fresh, l, at);
    enable(t, 3, 6, 0x3000);
    enable(t, 5, 6, 0x5000);
    // a WRITTEN taken at w, a notification at w + 1 + gap
    auto cqe_then_notify = [&](unsigned cq, int gap, unsigned ntf_cq) {
        int w = t.cop(C_WRITTEN, cq);
        while ((int)t.now < w + 1 + gap) t.step();
        uint32_t n = t.notify(ntf_cq);
        while ((int)t.now <= w + ANS_LATENCY) t.step();
        t.c_ans.clear();   // the WRITTEN's answer: not what is tested here
        return n;
    };
    cqe_then_notify(3, 40, 3);
    l = t.latency();
    CHECK(l == 41, "one notification 41 cycles after its CQE: latency %u", l);
    cqe_then_notify(3, 9, 3);
    CHECK((l = t.latency()) == 10, "then one 10 cycles after: %u", l);
    // per CQ: a CQE on CQ 5 does not move CQ 3's stamp
    int w3 = t.cop(C_WRITTEN, 3);
    while ((int)t.now < w3 + 100) t.step();
    cqe_then_notify(5, 0, 3);   // CQ 5's CQE at w3 + 100, CQ 3 notified at w3 + 101
    CHECK((l = t.latency()) == 101, "CQ 3 notified 101 cycles after its CQE, a CQ 5 CQE between: %u", l);
    // a CQ number the NIC does not have counts nothing
    if (NUM_CQ < 256) {
        cqe_then_notify(3, 5, NUM_CQ);
        CHECK((l = t.latency()) == 0, "notification of CQ %u (>= NUM_CQ) charged %u", NUM_CQ, l);
    }
    // two notifications in consecutive cycles: both looked up, in order
    w3 = t.cop(C_WRITTEN, 3);
    int w5 = t.cop(C_WRITTEN, 5);
    while ((int)t.now < w5 + 20) t.step();
    t.c_ans.clear();
    t.m->ntf_valid = 1;
    t.m->ntf_cqn = 3;
    uint32_t n1 = t.now;
    t.step();
    t.m->ntf_cqn = 5;
    t.step();
    t.m->ntf_valid = 0;
    uint32_t l1 = t.latency(), l2 = t.latency();
    CHECK(l1 == n1 - w3 && l2 == n1 + 1 - w5, "back to back: %u and %u, want %u and %u", l1, l2, n1 - w3,
          n1 + 1 - w5);
    for (int i = 0; i < 10; i++) t.step();
    CHECK(t.lat.empty(), "latency without a notification");
    PASS("cq_table_notification_latency_per_cq");

    // A WRITTEN of the same CQ offered around the notification: taken before
    // the notification's cycle, the latency counts from it; in that cycle or
    // later, from the previous CQE. Never 0, never negative (huge modulo
    // 2^32).
    for (int k = -2; k <= 3; k++) {
        int prev = t.cop(C_WRITTEN, 3);
        while ((int)t.now < prev + 30) t.step();
        uint32_t nt = t.now + 5;
        int taken = -1;
        for (int cyc = 0; cyc < 20 && (taken < 0 || t.now < nt + 2); cyc++) {
            if ((int)t.now == (int)nt + k) {
                t.m->c_valid = 1;
                t.m->c_op = C_WRITTEN;
                t.m->c_idx = 3;
            }
            t.m->ntf_valid = t.now == nt;
            t.m->ntf_cqn = 3;
            uint32_t c = t.now;
            t.step();
            if (t.c_fire) { t.m->c_valid = 0; taken = (int)c; }
        }
        t.m->ntf_valid = 0;
        t.c_ans.clear();
        l = t.latency();
        uint32_t want = taken < (int)nt ? nt - taken : nt - prev;
        CHECK(l == want, "WRITTEN offered at notification %+d (taken %+d): latency %u, want %u", k,
              taken - (int)nt, l, want);
        CHECK(l > 0 && l < 1000, "latency %u: 0 or negative", l);
    }
    t.settle();
    t.c_ans.clear();
    PASS("cq_table_latency_never_negative_next_to_a_cqe");
}

// Ops on one CQ every cycle: each sees the one before (forwarding past the
// RAM's registered read).
// CI moves forward only: a consumer index behind the CI held (an ARM whose
// MMIO came after the CQE writer read a newer record of the host's), or
// past PI, leaves CI as it is; one between them is taken. An older ARM's
// ci taken made the CQ look fuller than it was: a false overrun.
void test_ci_forward_only(Tb &t) {
    const unsigned c = 4;
    t.hwrite(c, QPNIC_CQREG_CFG, cq_cfg(true, 3));   // 8 entries; PI = CI = 0
    for (int i = 0; i < 6; i++)
        t.cwritten(c);
    t.m->c_arg = 5;
    CAns s = t.wait_answer(t.c_ans, t.cop(C_SET_CI, c), "SET_CI");
    CHECK(s.ci == 5 && s.pi == 6, "SET_CI 5 with PI 6: answered ci %u pi %u", s.ci, s.pi);
    auto arm_ci = [&](uint32_t ci) {
        t.hwrite(c, QPNIC_CQREG_ARM, arm_trigger(QPNIC_CQ_TRIGGER_ANY) | QPNIC_FIELD(QPNIC_CQ_ARM_CI_VALID, 1) |
                                         QPNIC_FIELD(QPNIC_CQ_ARM_CI, ci));
        t.fop(F_ARM_POPPED, c);
    };
    arm_ci(2);
    CHECK(t.cread(c).ci == 5, "an ARM's older ci 2 moved CI back to %u", t.cread(c).ci);
    arm_ci(7);
    CHECK(t.cread(c).ci == 5, "an ARM's ci 7 past PI 6 moved CI to %u", t.cread(c).ci);
    arm_ci(6);
    CHECK(t.cread(c).ci == 6, "an ARM's ci 6 (= PI) left CI at %u", t.cread(c).ci);
    t.m->c_arg = 3;
    s = t.wait_answer(t.c_ans, t.cop(C_SET_CI, c), "SET_CI");
    CHECK(s.ci == 6 && t.cread(c).ci == 6, "an older record 3: answered ci %u, CI %u", s.ci, t.cread(c).ci);
    t.hwrite(c, QPNIC_CQREG_CFG, cq_cfg(false, 3));
    t.settle();
    t.arm_events.clear();
    PASS("cq_table_ci_moves_forward_only");
}

void test_back_to_back(Tb &t) {
    const unsigned c = 1;
    enable(t, c, 8, 0x1000);
    t.c_ans.clear();
    t.m->c_valid = 1;
    t.m->c_op = C_WRITTEN;
    t.m->c_idx = c;
    const int N = 40;
    int taken = 0;
    for (int i = 0; taken < N; i++) {
        CHECK(i < 2 * N, "WRITTEN not taken every cycle");
        t.m->c_err = taken % 3 == 0;
        t.m->c_sol = taken % 5 == 0;
        t.step();
        if (t.c_fire) taken++;
        if (taken == N) t.m->c_valid = 0;
        CHECK(t.c_fire, "WRITTEN %d waited with nothing else asking", taken);
    }
    t.settle();
    CHECK(t.c_ans.size() == (size_t)N, "%zu answers for %d WRITTENs", t.c_ans.size(), N);
    for (int i = 0; i < N; i++)
        CHECK(t.c_ans[i].second.pi == i, "WRITTEN %d back to back answered PI %u", i, t.c_ans[i].second.pi);
    t.c_ans.clear();
    FAns f = t.fread(c);
    CHECK(f.pi == N && f.err == mark(true, 39) && f.sol == mark(true, 35), "after %d back to back: PI %u err 0x%08x sol 0x%08x",
          N, f.pi, f.err, f.sol);
    // host write, CQE op, firmware op on the same CQ in three consecutive cycles
    t.m->h_valid = 1;
    t.m->h_we = 1;
    t.m->h_idx = c;
    t.m->h_off = QPNIC_CQREG_CI;
    t.m->h_wdata = 33;
    t.step();
    CHECK(t.h_fire, "host CI write not taken");
    t.m->h_valid = 0;
    t.m->c_valid = 1;
    t.m->c_op = C_READ;
    t.step();
    CHECK(t.c_fire, "READ not taken");
    t.m->c_valid = 0;
    t.m->f_valid = 1;
    t.m->f_op = F_READ;
    t.m->f_idx = c;
    t.step();
    CHECK(t.f_fire, "firmware READ not taken");
    t.m->f_valid = 0;
    t.settle();
    CHECK(t.c_ans.back().second.ci == 33 && t.f_ans.back().second.ci == 33,
          "READs right behind a CI write see CI %u / %u, want 33", t.c_ans.back().second.ci,
          t.f_ans.back().second.ci);
    t.c_ans.clear();
    t.f_ans.clear();
    PASS("cq_table_back_to_back_ops_on_one_cq");
}

// ---- every port at once, against a model ---------------------------------
// A consumer index an ARM or a SET_CI carries moves CI forward only: it is
// taken when it lies between CI and PI (16-bit indices, modulo 2^16).
static bool ci_forward(uint16_t ci, uint16_t cur_ci, uint16_t pi)
{
    return (uint16_t)(ci - cur_ci) <= (uint16_t)(pi - cur_ci);
}

struct ModelCq {
    uint64_t base = 0;
    unsigned log = 0;
    bool en = false, ovr = false, err_v = false, sol_v = false, armed = false;
    uint16_t pi = 0, ci = 0, err_i = 0, sol_i = 0;
    unsigned aq = 0;
    uint32_t stamp = 0;
};

struct Model {
    std::vector<ModelCq> cq = std::vector<ModelCq>(NUM_CQ);
    bool in(unsigned i) const { return i < NUM_CQ; }
    CAns cans(unsigned i) const {
        CAns a;
        if (!in(i)) return a;
        const ModelCq &q = cq[i];
        a.base = q.base;
        a.log = q.log;
        a.en = q.en;
        a.ovr = q.ovr;
        a.armed = q.armed;
        a.pi = q.pi;
        a.ci = q.ci;
        return a;
    }
    FAns fans(unsigned i) const {
        if (!in(i)) return FAns{};
        const ModelCq &q = cq[i];
        return {q.pi, q.ci, mark(q.err_v, q.err_i), mark(q.sol_v, q.sol_i)};
    }
    uint32_t hread(unsigned i, unsigned off) const {
        if (!in(i)) return 0;
        const ModelCq &q = cq[i];
        switch (off) {
        case QPNIC_CQREG_BASE_LO: return (uint32_t)q.base;
        case QPNIC_CQREG_BASE_HI: return (uint32_t)(q.base >> 32);
        case QPNIC_CQREG_CFG: return cq_cfg(q.en, q.log);
        case QPNIC_CQREG_CI: return q.ci;
        case QPNIC_CQREG_PI: return q.pi;
        case QPNIC_CQREG_STATE: return cq_state(q.en, q.ovr);
        default: return 0;
        }
    }
    // returns whether an ARM event is due, and its word
    bool hwrite(unsigned i, unsigned off, uint32_t d, uint32_t *event) {
        if (!in(i)) return false;
        ModelCq &q = cq[i];
        switch (off) {
        case QPNIC_CQREG_BASE_LO: q.base = (q.base & ~0xFFFFFFFFull) | d; break;
        case QPNIC_CQREG_BASE_HI: q.base = (q.base & 0xFFFFFFFFull) | ((uint64_t)d << 32); break;
        case QPNIC_CQREG_CFG:
            q.log = QPNIC_FIELD_GET(&d, QPNIC_CQ_CFG_LOG_DEPTH);
            q.en = QPNIC_FIELD_GET(&d, QPNIC_CQ_CFG_ENABLE);
            if (q.en) {
                q.pi = q.ci = q.err_i = q.sol_i = 0;
                q.ovr = q.err_v = q.sol_v = false;
            }
            // a create or a destroy: armed off, and the firmware resets
            q.armed = false;
            *event = QPNIC_FIELD(QPNIC_EVENT_CQN, i) | QPNIC_FIELD(QPNIC_EVENT_TYPE, QPNIC_EVT_TYPE_RESET) |
                     QPNIC_FIELD(QPNIC_EVENT_INDEX, QPNIC_FIELD_GET(&d, QPNIC_CQ_CFG_GEN));
            return true;
        case QPNIC_CQREG_CI: q.ci = (uint16_t)d; break;
        case QPNIC_CQREG_ARM:
            if (QPNIC_FIELD_GET(&d, QPNIC_CQ_ARM_CI_VALID) &&
                ci_forward((uint16_t)QPNIC_FIELD_GET(&d, QPNIC_CQ_ARM_CI), q.ci, q.pi))
                q.ci = (uint16_t)QPNIC_FIELD_GET(&d, QPNIC_CQ_ARM_CI);
            q.armed = true;
            q.aq++;
            CHECK(q.aq <= EVT_FIFO + 1, "model: CQ %u has %u ARMs queued", i, q.aq);
            *event = QPNIC_FIELD(QPNIC_EVENT_CQN, i) | QPNIC_FIELD(QPNIC_EVENT_TYPE, QPNIC_EVT_TYPE_ARM) |
                     QPNIC_FIELD(QPNIC_EVENT_TRIGGER, QPNIC_FIELD_GET(&d, QPNIC_CQ_ARM_TRIGGER)) |
                     QPNIC_FIELD(QPNIC_EVENT_INDEX, q.pi);
            return true;
        default: break;
        }
        return false;
    }
};

void test_random(Tb &t, const unsigned seed) {
    unsigned state = seed;
    t.reset();
    Model md;
    auto rnd = [&](unsigned n) { return (unsigned)(rand_r(&state) % n); };
    // a few CQs, so that ops collide; sometimes one beyond NUM_CQ
    auto pick = [&]() { return NUM_CQ + 3 <= 256 && rnd(16) == 0 ? NUM_CQ + rnd(3) : rnd(3); };
    std::deque<std::pair<uint32_t, uint32_t>> want_h;   // {due cycle, data}
    std::deque<std::pair<uint32_t, CAns>> want_c;
    std::deque<std::pair<uint32_t, FAns>> want_f;
    std::deque<uint32_t> want_lat, want_evt;
    std::deque<uint32_t> evq;   // the firmware event FIFO: ARM events taken
    unsigned counts[8] = {0};   // host, c, f ops, ARMs, waits, lookups, evt-full cycles, armed answers
    bool f_is_pop = false;
    // What came out, against what the model wants.
    auto check_outputs = [&](int cyc, size_t ev0) {
        for (size_t k = ev0; k < t.arm_events.size(); k++) {
            CHECK(!want_evt.empty(), "seed %u cycle %d: an ARM event nobody made: 0x%08x", seed, cyc,
                  t.arm_events[k]);
            CHECK(t.arm_events[k] == want_evt.front(), "seed %u cycle %d: ARM event 0x%08x, want 0x%08x", seed, cyc,
                  t.arm_events[k], want_evt.front());
            want_evt.pop_front();
            evq.push_back(t.arm_events[k]);
        }
        while (!t.h_ans.empty()) {
            CHECK(!want_h.empty(), "seed %u cycle %d: a host answer nobody asked", seed, cyc);
            CHECK(t.h_ans.front().first == want_h.front().first && t.h_ans.front().second == want_h.front().second,
                  "seed %u cycle %d: host read answered 0x%08x at %u, want 0x%08x at %u", seed, cyc,
                  t.h_ans.front().second, t.h_ans.front().first, want_h.front().second, want_h.front().first);
            t.h_ans.pop_front();
            want_h.pop_front();
        }
        while (!t.c_ans.empty()) {
            CHECK(!want_c.empty(), "seed %u cycle %d: a CQE writer answer nobody asked", seed, cyc);
            const CAns &g = t.c_ans.front().second, &w = want_c.front().second;
            CHECK(t.c_ans.front().first == want_c.front().first && g == w,
                  "seed %u cycle %d: CQE writer answer at %u (want %u): pi %u ci %u en %d ovr %d armed %d log %u, "
                  "want pi %u ci %u en %d ovr %d armed %d log %u",
                  seed, cyc, t.c_ans.front().first, want_c.front().first, g.pi, g.ci, g.en, g.ovr, g.armed, g.log,
                  w.pi, w.ci, w.en, w.ovr, w.armed, w.log);
            t.c_ans.pop_front();
            want_c.pop_front();
        }
        while (!t.f_ans.empty()) {
            CHECK(!want_f.empty(), "seed %u cycle %d: a firmware answer nobody asked", seed, cyc);
            const FAns &g = t.f_ans.front().second, &w = want_f.front().second;
            CHECK(t.f_ans.front().first == want_f.front().first && g == w,
                  "seed %u cycle %d: firmware answer pi %u ci %u err 0x%08x sol 0x%08x, want %u %u 0x%08x 0x%08x",
                  seed, cyc, g.pi, g.ci, g.err, g.sol, w.pi, w.ci, w.err, w.sol);
            t.f_ans.pop_front();
            want_f.pop_front();
        }
        while (!t.lat.empty()) {
            CHECK(!want_lat.empty(), "seed %u cycle %d: a latency nobody asked", seed, cyc);
            CHECK(t.lat.front().second == want_lat.front(), "seed %u cycle %d: latency %u, want %u", seed, cyc,
                  t.lat.front().second, want_lat.front());
            t.lat.pop_front();
            want_lat.pop_front();
        }
    };
    for (int cyc = 0; cyc < 30000; cyc++) {
        auto *m = t.m.get();
        // new requests (held until taken)
        if (!m->h_valid && rnd(3) == 0) {
            m->h_valid = 1;
            m->h_we = rnd(2);
            m->h_idx = pick();
            static const unsigned offs[] = {QPNIC_CQREG_BASE_LO, QPNIC_CQREG_BASE_HI, QPNIC_CQREG_CFG,
                                            QPNIC_CQREG_CI, QPNIC_CQREG_ARM, QPNIC_CQREG_PI, QPNIC_CQREG_STATE,
                                            0x1C};
            m->h_off = offs[rnd(8)];
            m->h_wdata = m->h_off == QPNIC_CQREG_CFG ? cq_cfg(rnd(8) != 0, rnd(16)) : (uint32_t)rand_r(&state);
        }
        if (!m->c_valid && rnd(3) == 0) {
            m->c_valid = 1;
            m->c_op = rnd(8) == 0 ? C_OVERRUN : rnd(8) == 0 ? C_SET_CI : rnd(2) ? C_WRITTEN : C_READ;
            m->c_arg = (uint16_t)rand_r(&state);
            m->c_idx = pick();
            m->c_err = rnd(4) == 0;
            m->c_sol = rnd(4) == 0;
        }
        if (!m->f_valid) {
            // phases: a firmware slower than the ARMs (the FIFO fills), faster
            // a RESET event leaves the FIFO with no table op (qpnic_fw_if)
            while (!evq.empty() && EVF(evq.front(), QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_RESET)
                evq.pop_front();
            if (!evq.empty() && rnd((cyc / 3000) % 2 ? 4 : 200) == 0) {
                // the firmware pops the ARM at the FIFO's head: it leaves
                // the FIFO when the table takes its ARM_POPPED (qpnic_fw_if)
                f_is_pop = true;
                m->f_valid = 1;
                m->f_op = F_ARM_POPPED;
                m->f_idx = EVF(evq.front(), QPNIC_EVENT_CQN);
            } else if (rnd(4) == 0) {
                f_is_pop = false;
                m->f_valid = 1;
                m->f_op = rnd(2) ? F_READ : F_ARMED_CLR;
                m->f_idx = pick();
            }
        }
        m->ntf_valid = rnd(50) == 0;
        m->ntf_cqn = pick();
        t.evt_room = evq.size() < EVT_FIFO && rnd(4) != 0;
        if (evq.size() == EVT_FIFO) counts[6]++;

        uint32_t c = t.now;
        bool ntf = m->ntf_valid;
        unsigned ntf_cqn = m->ntf_cqn;
        size_t ev0 = t.arm_events.size();
        bool h_waiting = m->h_valid;
        t.step();
        if (h_waiting && !t.h_fire) counts[4]++;
        // the model, in the order the table took the ops; a notification's
        // lookup sees the ops taken before its cycle
        if (ntf) {
            counts[5]++;
            want_lat.push_back(md.in(ntf_cqn) ? c - md.cq[ntf_cqn].stamp : 0);
        }
        if (t.h_fire) {
            counts[0]++;
            if (m->h_we) {
                uint32_t e;
                if (md.hwrite(m->h_idx, m->h_off, m->h_wdata, &e)) {
                    want_evt.push_back(e);
                    counts[3]++;
                }
            } else {
                want_h.push_back({c + ANS_LATENCY, md.hread(m->h_idx, m->h_off)});
            }
            m->h_valid = 0;
        }
        if (t.c_fire) {
            counts[1]++;
            unsigned i = m->c_idx;
            // SET_CI answers with the CI it leaves (its own, when that is
            // forward); every other op with the context it found
            if (m->c_op == C_SET_CI && md.in(i) && ci_forward((uint16_t)m->c_arg, md.cq[i].ci, md.cq[i].pi))
                md.cq[i].ci = (uint16_t)m->c_arg;
            if (m->c_op != C_OVERRUN) {
                want_c.push_back({c + ANS_LATENCY, md.cans(i)});
                if (md.cans(i).armed) counts[7]++;
            }
            if (md.in(i)) {
                ModelCq &q = md.cq[i];
                if (m->c_op == C_WRITTEN) {
                    if (m->c_err) { q.err_v = true; q.err_i = q.pi; }
                    if (m->c_sol) { q.sol_v = true; q.sol_i = q.pi; }
                    q.pi++;
                    q.stamp = c;
                } else if (m->c_op == C_OVERRUN) {
                    q.ovr = true;
                }
            }
            m->c_valid = 0;
        }
        if (t.f_fire) {
            counts[2]++;
            unsigned i = m->f_idx;
            if (m->f_op == F_READ) want_f.push_back({c + ANS_LATENCY, md.fans(i)});
            if (md.in(i)) {
                ModelCq &q = md.cq[i];
                if (m->f_op == F_ARMED_CLR && q.aq == 0) q.armed = false;
                if (m->f_op == F_ARM_POPPED) {
                    CHECK(q.aq > 0, "model: a pop of CQ %u with no ARM queued", i);
                    q.aq--;
                }
            }
            if (f_is_pop) evq.pop_front();
            m->f_valid = 0;
        }

        check_outputs(cyc, ev0);
    }
    t.quiet();
    t.evt_room = true;
    size_t ev0 = t.arm_events.size();
    t.settle(100);
    check_outputs(-1, ev0);
    CHECK(want_evt.empty() && want_lat.empty() && want_h.empty() && want_c.empty() && want_f.empty(),
          "seed %u: never came: %zu ARM events, %zu latencies, %zu host, %zu CQE writer, %zu firmware answers", seed,
          want_evt.size(), want_lat.size(), want_h.size(), want_c.size(), want_f.size());
    CHECK(counts[3] > 100 && counts[4] > 100 && counts[6] > 100 && counts[7] > 100,
          "seed %u exercised too little: %u ARMs, %u host waits, %u full-FIFO cycles, %u armed answers", seed,
          counts[3], counts[4], counts[6], counts[7]);
    std::printf("  %u host, %u CQE writer, %u firmware ops, %u ARMs, %u lookups; host waited %u cycles\n", counts[0],
                counts[1], counts[2], counts[3], counts[5], counts[4]);
    PASS("cq_table_all_ports_random_against_model");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    t.reset();
    test_clear(t);
    test_latency(t);   // first: CQ 7 has had no CQE since reset
    test_host_registers(t);
    test_beyond_num_cq(t);
    test_arm_event_and_stall(t);
    test_arm_vs_written(t);
    test_armed_clr(t);
    test_back_to_back(t);
    test_ci_forward_only(t);
    test_random(t, tb_seed("tb_qpnic_cq_table", 12345u));
    t.m->final();
    return 0;
}
