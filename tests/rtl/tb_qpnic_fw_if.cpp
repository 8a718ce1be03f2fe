// tb_qpnic_fw_if: unit test of rtl/qpnic_fw_if.v, the firmware's registers.
//
// The testbench plays the soft core's bus (PicoRV32 style: valid held until
// ready), the two event sources (csr ARM, CQE writer) and the host side of
// the notification port. Checks: EVT_POP on empty returns valid 0 and sets
// "firmware waiting" until the next push; events from both sources all
// arrive, taking turns, none dropped when the FIFO fills (the sources wait);
// NOTIFY queues towards ntf_* and the bus stalls while that FIFO is full;
// notifications are counted; CQ_SEL views; FW_READY; CYCLES; NUM_CQ.
// The armed bits (docs/internals.md, "Firmware and its hardware"): an ARM
// event sets its CQ's bit on the edge it enters the FIFO (not while it
// waits outside); ARMED_CLR is ignored while an ARM of that CQ is queued,
// counted per CQ (two CQs interleaved, a whole FIFO of one CQ's ARMs), and
// an ARM entering in the cycle of a clear wins; a randomized run (seed
// printed, TB_SEED=N repeats it) checks the bits against a model every
// cycle and that every event arrives once, in order.
// Not for: the RAM or PicoRV32 (qpnic_soc).
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

#include "Vqpnic_fw_if.h"
#include "verilated.h"
#include "tb_util.h"
#include "../../fw/gen/qpnic_fw_hw.h"

namespace {

struct Tb {
    std::unique_ptr<Vqpnic_fw_if> m{new Vqpnic_fw_if};
    unsigned notified = 0;

    // One clock; counts cnt_notify pulses.
    void tick() {
        m->clk = 0;
        m->eval();
        if (m->cnt_notify) notified++;
        m->clk = 1;
        m->eval();
    }

    // One bus access; *waited is how many cycles it waited beyond the first
    // (0: answered in the cycle it was made, as every access with room is).
    uint32_t access(uint32_t off, unsigned wstrb, uint32_t wdata, int *waited = nullptr, int max = 50) {
        m->bus_valid = 1;
        m->bus_addr = off;
        m->bus_wstrb = wstrb;
        m->bus_wdata = wdata;
        for (int n = 0;; n++) {
            CHECK(n < max, "bus access to +0x%02x never answered", off);
            m->clk = 0;
            m->eval();
            if (m->bus_ready) {
                uint32_t d = m->bus_rdata;
                if (m->cnt_notify) notified++;
                m->clk = 1;
                m->eval();
                m->bus_valid = 0;
                m->bus_wstrb = 0;
                if (waited) *waited = n;
                return d;
            }
            if (m->cnt_notify) notified++;
            m->clk = 1;
            m->eval();
        }
    }
    uint32_t rd(uint32_t off) { return access(off, 0, 0); }
    void wr(uint32_t off, uint32_t v, int *waited = nullptr) { access(off, 0xF, v, waited); }
};

uint32_t ev_word(unsigned type, unsigned cqn, unsigned extra) {
    return QPNIC_FIELD(QPNIC_EVENT_TYPE, type) | QPNIC_FIELD(QPNIC_EVENT_CQN, cqn) |
           QPNIC_FIELD(QPNIC_EVENT_TRIGGER, extra);
}

void test_pop_and_waiting(Tb &t) {
    auto *m = t.m.get();
    CHECK(!m->fw_waiting, "firmware waiting before any EVT_POP");
    CHECK(m->evt_empty, "event FIFO not empty after reset");
    uint32_t e = t.rd(QPNIC_FWREG_EVT_POP);
    CHECK(e == 0, "EVT_POP on empty returned 0x%08x", e);
    CHECK(m->fw_waiting, "EVT_POP on empty did not set firmware waiting");
    // one ARM event
    m->arm_evt_valid = 1;
    m->arm_evt_data = ev_word(QPNIC_EVT_TYPE_ARM, 4, QPNIC_CQ_TRIGGER_ANY);
    m->clk = 0;
    m->eval();
    CHECK(m->arm_evt_ready, "ARM event not accepted by an empty FIFO");
    t.tick();
    m->arm_evt_valid = 0;
    t.tick();
    CHECK(!m->fw_waiting, "a pushed event did not clear firmware waiting");
    CHECK(!m->evt_empty, "event FIFO empty after a push");
    e = t.rd(QPNIC_FWREG_EVT_POP);
    CHECK(QPNIC_FIELD_GET(&e, QPNIC_EVENT_VALID) == 1, "popped event lacks valid: 0x%08x", e);
    CHECK(QPNIC_FIELD_GET(&e, QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_ARM &&
              QPNIC_FIELD_GET(&e, QPNIC_EVENT_CQN) == 4 &&
              QPNIC_FIELD_GET(&e, QPNIC_EVENT_TRIGGER) == QPNIC_CQ_TRIGGER_ANY,
          "popped event 0x%08x", e);
    CHECK(!m->fw_waiting, "a successful pop set firmware waiting");
    CHECK(t.rd(QPNIC_FWREG_EVT_POP) == 0, "second pop not empty");
    CHECK(m->fw_waiting && m->evt_empty, "not waiting after an empty pop");
    PASS("fw_if_evt_pop_empty_sets_waiting_push_clears");
}

void test_merge_full(Tb &t) {
    auto *m = t.m.get();
    // both sources offer 20 events each, nobody pops: 16 fit, the rest wait
    unsigned arm_sent = 0, cqe_sent = 0;
    std::vector<uint32_t> pushed;
    for (int n = 0; n < 200; n++) {
        m->arm_evt_valid = arm_sent < 20;
        m->arm_evt_data = ev_word(QPNIC_EVT_TYPE_ARM, 1, arm_sent & 3);
        m->cqe_evt_valid = cqe_sent < 20;
        m->cqe_evt_data = ev_word(QPNIC_EVT_TYPE_CQE, 2, cqe_sent & 3);
        m->clk = 0;
        m->eval();
        CHECK(!(m->arm_evt_ready && m->cqe_evt_ready), "both sources taken in one cycle");
        if (m->arm_evt_valid && m->arm_evt_ready) { pushed.push_back(m->arm_evt_data); arm_sent++; }
        if (m->cqe_evt_valid && m->cqe_evt_ready) { pushed.push_back(m->cqe_evt_data); cqe_sent++; }
        m->clk = 1;
        m->eval();
    }
    CHECK(pushed.size() == 16, "%zu events accepted into a 16-deep FIFO", pushed.size());
    CHECK(arm_sent == 8 && cqe_sent == 8, "sources did not take turns: %u ARM, %u CQE", arm_sent, cqe_sent);
    // pop while the sources keep offering: every event arrives, in order
    std::vector<uint32_t> popped;
    for (int n = 0; n < 400 && popped.size() < 40; n++) {
        m->arm_evt_valid = arm_sent < 20;
        m->arm_evt_data = ev_word(QPNIC_EVT_TYPE_ARM, 1, arm_sent & 3);
        m->cqe_evt_valid = cqe_sent < 20;
        m->cqe_evt_data = ev_word(QPNIC_EVT_TYPE_CQE, 2, cqe_sent & 3);
        if (n % 2 == 0) {
            m->bus_valid = 1;
            m->bus_addr = QPNIC_FWREG_EVT_POP;
            m->bus_wstrb = 0;
        }
        m->clk = 0;
        m->eval();
        if (m->arm_evt_valid && m->arm_evt_ready) { pushed.push_back(m->arm_evt_data); arm_sent++; }
        if (m->cqe_evt_valid && m->cqe_evt_ready) { pushed.push_back(m->cqe_evt_data); cqe_sent++; }
        bool done = m->bus_valid && m->bus_ready;
        uint32_t d = m->bus_rdata;
        m->clk = 1;
        m->eval();
        if (done) {
            m->bus_valid = 0;
            if (QPNIC_FIELD_GET(&d, QPNIC_EVENT_VALID)) popped.push_back(d & ~(1u << QPNIC_EVENT_VALID_SHIFT));
        }
    }
    m->arm_evt_valid = 0;
    m->cqe_evt_valid = 0;
    m->bus_valid = 0;
    CHECK(arm_sent == 20 && cqe_sent == 20, "sources still holding events: %u ARM, %u CQE sent", arm_sent, cqe_sent);
    CHECK(popped.size() == 40, "%zu events popped of 40", popped.size());
    for (size_t i = 0; i < 40; i++)
        CHECK(popped[i] == pushed[i], "event %zu popped 0x%08x, pushed 0x%08x", i, popped[i], pushed[i]);
    PASS("fw_if_event_merge_turns_full_fifo_never_drops");
}

void test_notify(Tb &t) {
    auto *m = t.m.get();
    m->ntf_ready = 0;
    unsigned n0 = t.notified;
    int waited = 0;
    // notification FIFO of 8: the 9th write stalls
    for (unsigned i = 0; i < 8; i++) {
        t.wr(QPNIC_FWREG_NOTIFY, QPNIC_FIELD(QPNIC_NOTIFY_CQN, i), &waited);
        CHECK(waited == 0, "NOTIFY %u waited %d cycles with room", i, waited);
    }
    CHECK(m->ntf_valid && !m->ntf_empty, "no notification offered to the host");
    m->bus_valid = 1;
    m->bus_addr = QPNIC_FWREG_NOTIFY;
    m->bus_wstrb = 0xF;
    m->bus_wdata = QPNIC_FIELD(QPNIC_NOTIFY_CQN, 8) | QPNIC_FIELD(QPNIC_NOTIFY_STATUS, QPNIC_NTF_STATUS_OVERFLOW);
    for (int i = 0; i < 20; i++) {
        m->clk = 0;
        m->eval();
        CHECK(!m->bus_ready, "NOTIFY accepted while the notification FIFO is full");
        m->clk = 1;
        m->eval();
    }
    // the host takes them: the stalled write completes, all 9 arrive in order
    std::vector<uint32_t> got;
    m->ntf_ready = 1;
    for (int i = 0; i < 40; i++) {
        m->clk = 0;
        m->eval();
        if (m->ntf_valid) got.push_back(m->ntf_data);
        if (m->cnt_notify) t.notified++;
        bool done = m->bus_valid && m->bus_ready;
        m->clk = 1;
        m->eval();
        if (done) m->bus_valid = 0;
    }
    CHECK(!m->bus_valid, "stalled NOTIFY never completed");
    CHECK(got.size() == 9, "%zu notifications reached the host, want 9", got.size());
    for (unsigned i = 0; i < 9; i++)
        CHECK(QPNIC_FIELD_GET(&got[i], QPNIC_NOTIFY_CQN) == i, "notification %u has cqn %u", i,
              QPNIC_FIELD_GET(&got[i], QPNIC_NOTIFY_CQN));
    CHECK(QPNIC_FIELD_GET(&got[8], QPNIC_NOTIFY_STATUS) == QPNIC_NTF_STATUS_OVERFLOW, "status lost");
    CHECK(t.notified - n0 == 9, "counted %u notifications, want 9", t.notified - n0);
    CHECK(m->ntf_empty, "notification FIFO not empty after draining");
    PASS("fw_if_notify_fifo_stall_and_count");
}

void test_regs(Tb &t) {
    auto *m = t.m.get();
    // CQ 5: PI 0x1234, CI 0x1200, error mark at 0x1230, no solicited mark
    m->cq_pi[5 / 2] = 0x1234u << 16;
    m->cq_ci[5 / 2] = 0x1200u << 16;
    m->cq_err_valid = 1u << 5;
    m->cq_err_idx[5 / 2] = 0x1230u << 16;
    m->cq_sol_valid = 0;
    m->cq_sol_idx[5 / 2] = 0x7777u << 16;
    t.wr(QPNIC_FWREG_CQ_SEL, 5);
    CHECK(t.rd(QPNIC_FWREG_CQ_SEL) == 5, "CQ_SEL read back");
    CHECK(t.rd(QPNIC_FWREG_CQ_PI) == 0x1234, "CQ_PI 0x%x", t.rd(QPNIC_FWREG_CQ_PI));
    CHECK(t.rd(QPNIC_FWREG_CQ_CI) == 0x1200, "CQ_CI 0x%x", t.rd(QPNIC_FWREG_CQ_CI));
    uint32_t err = t.rd(QPNIC_FWREG_CQ_LAST_ERR), sol = t.rd(QPNIC_FWREG_CQ_LAST_SOL);
    CHECK(QPNIC_FIELD_GET(&err, QPNIC_CQ_MARK_VALID) == 1 && QPNIC_FIELD_GET(&err, QPNIC_CQ_MARK_INDEX) == 0x1230,
          "CQ_LAST_ERR 0x%08x", err);
    CHECK(QPNIC_FIELD_GET(&sol, QPNIC_CQ_MARK_VALID) == 0, "CQ_LAST_SOL valid without a mark: 0x%08x", sol);
    t.wr(QPNIC_FWREG_CQ_SEL, 4);
    CHECK(t.rd(QPNIC_FWREG_CQ_PI) == 0, "CQ_SEL 4 shows CQ 5's PI");

    CHECK(!m->fw_ready, "fw_ready before FW_READY");
    t.wr(QPNIC_FWREG_FW_READY, 1);
    CHECK(m->fw_ready, "FW_READY write did not set fw_ready");
    m->cycles_lo = 0xDEADBEEF;
    CHECK(t.rd(QPNIC_FWREG_CYCLES) == 0xDEADBEEF, "CYCLES");
    CHECK(t.rd(QPNIC_FWREG_NUM_CQ) == 8, "NUM_CQ");
    CHECK(t.rd(0xFC) == 0, "unmapped offset");
    PASS("fw_if_cq_sel_view_ready_cycles_num_cq");
}


// ---- armed bits (docs/internals.md, "Firmware and its hardware") ----------
// The ARM event sets its CQ's armed bit as it enters the event FIFO;
// ARMED_CLR clears it only while no ARM of that CQ is still queued.

struct Step {
    bool arm_took, cqe_took, bus_done;
    bool bus_acts;         // a bus access takes effect on this cycle's edge
    uint32_t rdata;
    uint32_t armed_after;
};

// One clock with the inputs as they are. A source or bus access that
// completed drops its valid afterwards.
Step step(Tb &t) {
    auto *m = t.m.get();
    Step s{};
    m->clk = 0;
    m->eval();
    s.arm_took = m->arm_evt_valid && m->arm_evt_ready;
    s.cqe_took = m->cqe_evt_valid && m->cqe_evt_ready;
    s.bus_done = m->bus_valid && m->bus_ready;
    s.bus_acts = m->bus_valid && m->bus_ready;   // it acts as it completes
    s.rdata = m->bus_rdata;
    if (m->cnt_notify) t.notified++;
    m->clk = 1;
    m->eval();
    s.armed_after = m->cq_armed;
    if (s.arm_took) m->arm_evt_valid = 0;
    if (s.cqe_took) m->cqe_evt_valid = 0;
    if (s.bus_done) {
        m->bus_valid = 0;
        m->bus_wstrb = 0;
    }
    return s;
}

uint32_t arm_word(unsigned cqn, unsigned index) {
    return ev_word(QPNIC_EVT_TYPE_ARM, cqn, QPNIC_CQ_TRIGGER_SOLICITED) | QPNIC_FIELD(QPNIC_EVENT_INDEX, index);
}

uint32_t cqe_word(unsigned cqn, unsigned index) {
    return ev_word(QPNIC_EVT_TYPE_CQE, cqn, 0) | QPNIC_FIELD(QPNIC_EVENT_INDEX, index);
}

bool armed(Tb &t, unsigned cqn) { return (t.m->cq_armed >> cqn) & 1; }

// Offers one event and clocks until the FIFO takes it; checks that an ARM
// sets its CQ's armed bit at the very edge that takes it.
void push(Tb &t, bool is_arm, uint32_t w) {
    auto *m = t.m.get();
    unsigned cqn = QPNIC_FIELD_GET(&w, QPNIC_EVENT_CQN);
    if (is_arm) {
        m->arm_evt_valid = 1;
        m->arm_evt_data = w;
    } else {
        m->cqe_evt_valid = 1;
        m->cqe_evt_data = w;
    }
    for (int n = 0;; n++) {
        CHECK(n < 50, "event 0x%08x never taken", w);
        Step s = step(t);
        if (is_arm ? s.arm_took : s.cqe_took) {
            if (is_arm)
                CHECK((s.armed_after >> cqn) & 1, "ARM of CQ %u taken but its armed bit not set (0x%02x)", cqn,
                      s.armed_after);
            return;
        }
    }
}

// One bus access clocked with step(), so that a source offering an event
// meanwhile is handled too (its valid drops once taken).
uint32_t bus(Tb &t, uint32_t off, unsigned wstrb, uint32_t wdata) {
    auto *m = t.m.get();
    m->bus_valid = 1;
    m->bus_addr = off;
    m->bus_wstrb = wstrb;
    m->bus_wdata = wdata;
    for (int n = 0;; n++) {
        CHECK(n < 50, "bus access to +0x%02x never answered", off);
        Step s = step(t);
        if (s.bus_done) return s.rdata;
    }
}

// Pops one event and checks it is `want` (with valid set).
void pop_expect(Tb &t, uint32_t want) {
    uint32_t got = bus(t, QPNIC_FWREG_EVT_POP, 0, 0);
    uint32_t w = want | (1u << QPNIC_EVENT_VALID_SHIFT);
    CHECK(got == w, "popped 0x%08x, want 0x%08x", got, w);
}

void clr(Tb &t, unsigned cqn) { bus(t, QPNIC_FWREG_ARMED_CLR, 0xF, cqn); }

void test_arm_sets_armed(Tb &t) {
    auto *m = t.m.get();
    CHECK(m->evt_empty, "event FIFO not empty at the start");
    // the earlier cases pushed ARM events for CQ 4 and CQ 1 and nothing else
    CHECK(m->cq_armed == ((1u << 4) | (1u << 1)), "armed 0x%02x after ARMs of CQ 1 and 4, want 0x12",
          m->cq_armed);
    for (unsigned c = 0; c < 8; c++) clr(t, c);
    CHECK(m->cq_armed == 0, "armed 0x%02x after ARMED_CLR of every CQ with nothing queued", m->cq_armed);
    clr(t, 200);   // beyond NUM_CQ: nothing
    CHECK(m->cq_armed == 0, "ARMED_CLR 200 set something: 0x%02x", m->cq_armed);

    // fill the FIFO with CQE events; an ARM offered now waits, and a waiting
    // ARM does not arm its CQ yet
    for (unsigned i = 0; i < 16; i++) push(t, false, cqe_word(6, i));
    m->arm_evt_valid = 1;
    m->arm_evt_data = arm_word(6, 0x1234);
    for (int n = 0; n < 10; n++) {
        Step s = step(t);
        CHECK(!s.arm_took, "ARM taken into a full FIFO");
        CHECK(!armed(t, 6), "an ARM still waiting outside the FIFO armed CQ 6");
    }
    // one pop makes room: the ARM enters on that edge or the next, and the
    // bit rises on the edge it enters, not earlier
    m->bus_valid = 1;
    m->bus_addr = QPNIC_FWREG_EVT_POP;
    m->bus_wstrb = 0;
    bool took = false;
    for (int n = 0; n < 10 && !took; n++) {
        Step s = step(t);
        took = s.arm_took;
        CHECK(((s.armed_after >> 6) & 1) == (took ? 1u : 0u), "CQ 6 armed %u on a cycle the ARM %s taken",
              (s.armed_after >> 6) & 1, took ? "was" : "was not");
        if (s.bus_done)
            CHECK(s.rdata == (cqe_word(6, 0) | (1u << QPNIC_EVENT_VALID_SHIFT)), "first pop 0x%08x", s.rdata);
    }
    CHECK(took, "the ARM never entered after a pop made room");
    CHECK(!m->bus_valid, "the pop did not complete");
    // it stays armed while the CQEs ahead drain and while the ARM is popped
    for (unsigned i = 1; i < 16; i++) {
        pop_expect(t, cqe_word(6, i));
        CHECK(armed(t, 6), "CQ 6 disarmed by popping a CQE event");
    }
    pop_expect(t, arm_word(6, 0x1234));   // index carried through the FIFO
    CHECK(armed(t, 6), "popping the ARM cleared its armed bit");
    CHECK(m->evt_empty, "events left");
    clr(t, 6);
    CHECK(!armed(t, 6), "ARMED_CLR with no ARM queued did not clear CQ 6");
    PASS("fw_if_arm_event_sets_armed_bit_as_it_enters_fifo");
}

void test_clr_while_arm_queued(Tb &t) {
    auto *m = t.m.get();
    push(t, true, arm_word(3, 5));
    CHECK(m->cq_armed == (1u << 3), "armed 0x%02x after an ARM of CQ 3", m->cq_armed);
    clr(t, 3);
    CHECK(armed(t, 3), "ARMED_CLR cleared CQ 3 while its ARM is still queued");
    clr(t, 2);   // another CQ's clear does not touch CQ 3
    CHECK(m->cq_armed == (1u << 3), "armed 0x%02x after ARMED_CLR of CQ 2", m->cq_armed);
    pop_expect(t, arm_word(3, 5));
    CHECK(armed(t, 3), "popping the ARM cleared CQ 3");
    clr(t, 3);
    CHECK(!armed(t, 3), "ARMED_CLR after the ARM was popped did not clear CQ 3");

    // an ARMED_CLR in the very cycle an ARM of that CQ enters: the ARM wins
    m->arm_evt_valid = 1;
    m->arm_evt_data = arm_word(3, 6);
    m->bus_valid = 1;
    m->bus_addr = QPNIC_FWREG_ARMED_CLR;
    m->bus_wstrb = 0xF;
    m->bus_wdata = 3;
    Step s = step(t);
    CHECK(s.arm_took && s.bus_acts, "setup: the ARM and the clear did not meet in one cycle");
    CHECK(armed(t, 3), "an ARMED_CLR in the cycle an ARM of CQ 3 entered left it unarmed");
    for (int n = 0; n < 5 && m->bus_valid; n++) step(t);
    CHECK(!m->bus_valid && armed(t, 3), "CQ 3 unarmed after the clear completed");
    pop_expect(t, arm_word(3, 6));
    clr(t, 3);
    CHECK(m->cq_armed == 0 && m->evt_empty, "armed 0x%02x, FIFO %s at the end", m->cq_armed,
          m->evt_empty ? "empty" : "not empty");
    PASS("fw_if_armed_clr_ignored_while_arm_of_that_cq_queued");
}

void test_counts_per_cq(Tb &t) {
    auto *m = t.m.get();
    // two CQs interleaved, with a CQE event of CQ 2 among them
    struct { bool arm; uint32_t w; } seq[] = {
        {true, arm_word(2, 10)}, {true, arm_word(5, 20)}, {true, arm_word(2, 11)},
        {false, cqe_word(2, 10)}, {true, arm_word(5, 21)}, {true, arm_word(2, 12)},
    };
    const size_t n = sizeof seq / sizeof seq[0];
    unsigned left[8] = {0};
    for (size_t i = 0; i < n; i++) {
        push(t, seq[i].arm, seq[i].w);
        if (seq[i].arm) left[QPNIC_FIELD_GET(&seq[i].w, QPNIC_EVENT_CQN)]++;
    }
    clr(t, 2);
    clr(t, 5);
    CHECK(m->cq_armed == ((1u << 2) | (1u << 5)), "armed 0x%02x with ARMs of CQ 2 and 5 queued", m->cq_armed);
    // pop one at a time; after each, try to clear both: a CQ's bit goes only
    // when its own last ARM has left
    for (size_t i = 0; i < n; i++) {
        pop_expect(t, seq[i].w);
        if (seq[i].arm) left[QPNIC_FIELD_GET(&seq[i].w, QPNIC_EVENT_CQN)]--;
        clr(t, 2);
        clr(t, 5);
        CHECK(armed(t, 2) == (left[2] > 0) && armed(t, 5) == (left[5] > 0),
              "after pop %zu: CQ 2 armed %d with %u ARMs queued, CQ 5 armed %d with %u", i, armed(t, 2), left[2],
              armed(t, 5), left[5]);
    }
    // the counter holds a whole FIFO of one CQ's ARMs (16), plus one waiting
    for (unsigned i = 0; i < 16; i++) push(t, true, arm_word(1, 100 + i));
    m->arm_evt_valid = 1;
    m->arm_evt_data = arm_word(1, 116);
    for (unsigned i = 0; i < 17; i++) {
        pop_expect(t, arm_word(1, 100 + i));
        for (int k = 0; k < 3; k++) step(t);   // the waiting ARM enters
        CHECK(!m->arm_evt_valid, "the 17th ARM did not enter after a pop");
        clr(t, 1);
        CHECK(armed(t, 1) == (i < 16), "after popping %u of 17 ARMs of CQ 1: armed %d", i + 1, armed(t, 1));
    }
    CHECK(m->evt_empty && m->cq_armed == 0, "FIFO %s, armed 0x%02x at the end",
          m->evt_empty ? "empty" : "not empty", m->cq_armed);
    PASS("fw_if_queued_arm_count_per_cq_interleaved_and_full_fifo");
}

// Random pushes from both sources, pops and ARMED_CLR writes, against a
// model: every event arrives once, in order, and the armed bits follow the
// rule every cycle.
void test_armed_random(Tb &t, unsigned seed) {
    auto *m = t.m.get();
    std::deque<uint32_t> q;
    std::vector<uint32_t> pushed, popped;
    unsigned queued[16] = {0};
    uint32_t model = 0;
    uint32_t expect_rd = 0;
    bool rd_pending = false;
    unsigned clr_ignored = 0, clr_cleared = 0, full_seen = 0, empty_pops = 0;
    for (int cyc = 0; cyc < 20000; cyc++) {
        // phases: sources busier or slower than the firmware
        unsigned offer = (cyc / 500) % 2 ? 1 : 12;   // in 16
        if (!m->arm_evt_valid && (unsigned)(rand_r(&seed) % 16) < offer) {
            m->arm_evt_valid = 1;
            m->arm_evt_data = arm_word(rand_r(&seed) % 8, rand_r(&seed) & 0xFFFF);
        }
        if (!m->cqe_evt_valid && (unsigned)(rand_r(&seed) % 16) < offer) {
            m->cqe_evt_valid = 1;
            m->cqe_evt_data = rand_r(&seed) % 4 ? cqe_word(rand_r(&seed) % 8, rand_r(&seed) & 0xFFFF)
                                                : ev_word(QPNIC_EVT_TYPE_OVERRUN, rand_r(&seed) % 8, 0);
        }
        if (!m->bus_valid) {
            unsigned r = rand_r(&seed) % 4;
            if (r == 0 || r == 1) {
                m->bus_valid = 1;
                m->bus_addr = QPNIC_FWREG_EVT_POP;
                m->bus_wstrb = 0;
            } else if (r == 2) {
                m->bus_valid = 1;
                m->bus_addr = QPNIC_FWREG_ARMED_CLR;
                m->bus_wstrb = 0xF;
                m->bus_wdata = rand_r(&seed) % 9;   // 8: beyond NUM_CQ
            }
        }
        uint32_t arm_data = m->arm_evt_data, cqe_data = m->cqe_evt_data;
        bool is_pop = m->bus_addr == QPNIC_FWREG_EVT_POP && m->bus_wstrb == 0;
        unsigned clr_cqn = m->bus_wdata & 0xFF;
        size_t before = q.size();
        Step s = step(t);
        if (before == 16) full_seen++;
        CHECK(!(s.arm_took || s.cqe_took) || before < 16, "cycle %d: an event taken into a full FIFO", cyc);
        // the model, as of this cycle (queued counts from before it)
        uint32_t next = model;
        if (s.bus_acts && !is_pop && clr_cqn < 8) {
            if (queued[clr_cqn]) {
                clr_ignored++;
            } else {
                if (model >> clr_cqn & 1) clr_cleared++;
                next &= ~(1u << clr_cqn);
            }
        }
        if (s.bus_acts && is_pop) {
            CHECK(!rd_pending, "a second pop before the first returned");
            rd_pending = true;
            expect_rd = 0;
            if (q.empty()) empty_pops++;
            if (!q.empty()) {
                expect_rd = q.front() | (1u << QPNIC_EVENT_VALID_SHIFT);
                if (QPNIC_FIELD_GET(&q.front(), QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_ARM)
                    queued[QPNIC_FIELD_GET(&q.front(), QPNIC_EVENT_CQN)]--;
                popped.push_back(q.front());
                q.pop_front();
            }
        }
        if (s.arm_took) {
            unsigned c = QPNIC_FIELD_GET(&arm_data, QPNIC_EVENT_CQN);
            next |= 1u << c;   // the ARM wins over a clear in the same cycle
            queued[c]++;
            q.push_back(arm_data);
            pushed.push_back(arm_data);
        }
        if (s.cqe_took) {
            q.push_back(cqe_data);
            pushed.push_back(cqe_data);
        }
        model = next;
        CHECK(s.armed_after == model, "seed %u cycle %d: armed 0x%02x, model 0x%02x", seed, cyc, s.armed_after,
              model);
        if (s.bus_done && rd_pending) {
            CHECK(s.rdata == expect_rd, "seed %u cycle %d: popped 0x%08x, want 0x%08x", seed, cyc, s.rdata,
                  expect_rd);
            rd_pending = false;
        }
    }
    // drain: stop the sources, pop everything
    m->arm_evt_valid = 0;
    m->cqe_evt_valid = 0;
    for (int n = 0; n < 10 && m->bus_valid; n++) step(t);
    while (!q.empty()) {
        pop_expect(t, q.front());
        popped.push_back(q.front());
        q.pop_front();
    }
    CHECK(m->evt_empty, "the FIFO holds more than the model");
    CHECK(popped.size() == pushed.size(), "%zu events popped of %zu pushed", popped.size(), pushed.size());
    for (size_t i = 0; i < pushed.size(); i++)
        CHECK(popped[i] == pushed[i], "event %zu popped 0x%08x, pushed 0x%08x", i, popped[i], pushed[i]);
    CHECK(clr_ignored > 50 && clr_cleared > 50 && full_seen > 50 && empty_pops > 50,
          "seed %u exercised too little: %u clears ignored, %u clears that cleared, %u full cycles, %u empty pops",
          seed, clr_ignored, clr_cleared, full_seen, empty_pops);
    for (unsigned c = 0; c < 8; c++) clr(t, c);
    CHECK(m->cq_armed == 0, "armed 0x%02x after clearing all with nothing queued", m->cq_armed);
    std::printf("  %zu events, %u clears ignored, %u cleared, %u full cycles, %u empty pops\n", pushed.size(),
                clr_ignored, clr_cleared, full_seen, empty_pops);
    PASS("fw_if_armed_bits_and_events_random_against_model");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    t.m->rst = 1;
    for (int i = 0; i < 3; i++) t.tick();
    t.m->rst = 0;
    t.tick();
    test_pop_and_waiting(t);
    test_merge_full(t);
    test_notify(t);
    test_regs(t);
    test_arm_sets_armed(t);
    test_clr_while_arm_queued(t);
    test_counts_per_cq(t);
    const char *s = std::getenv("TB_SEED");
    unsigned seed = s ? (unsigned)std::strtoul(s, nullptr, 0) : 12345u;
    std::printf("seed %u (TB_SEED)\n", seed);
    test_armed_random(t, seed);
    t.m->final();
    return 0;
}
