// tb_qpnic_fw_if: unit test of rtl/qpnic_fw_if.v, the firmware's registers.
//
// The testbench plays the soft core's bus (PicoRV32 style: valid held until
// ready), the two event sources (the CQ table's ARM events, the CQE writer),
// the host side of the notification port and qpnic_cq_table's firmware port
// (it takes ops when told to, answers a READ ANS_LATENCY cycles later, and
// keeps the armed bits and queued-ARM counts as the table does). Checks:
// EVT_POP on empty returns valid 0 and sets "firmware waiting" until the
// next push; events from both sources all arrive, the ARM first when both
// wait, none dropped when the FIFO fills (the sources wait); NOTIFY queues
// towards ntf_* and the bus stalls while that FIFO is full; notifications
// are counted; CQ_SEL and the CQ_* reads as table READs answered by the
// table; FW_READY; CYCLES; NUM_CQ.
// The armed bits (docs/internals.md, "Firmware and its hardware"), which
// live in the CQ table: popping an ARM event is one ARM_POPPED op of its CQ
// (the pop waits until the table takes it; other events pop without one),
// an ARMED_CLR write one ARMED_CLR op, in the order the firmware made them,
// so a clear after a pop finds that ARM's count gone; counted per CQ (two CQs
// interleaved, a whole FIFO of one CQ's ARMs plus one waiting); a randomized
// run (seed printed, TB_SEED=N repeats it) checks that every event arrives
// once, in order, that the table's count of each CQ's ARMs always equals the
// ARMs of that CQ in the FIFO or waiting to enter it, and the armed bits
// against the rule.
// Not for: the RAM or PicoRV32 (qpnic_soc), the table itself
// (tb_qpnic_cq_table).
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

#include "Vqpnic_fw_if.h"
#include "verilated.h"
#include "tb_util.h"
#include "../../fw/gen/qpnic_fw_hw.h"
#include "qpnic_internal.h"

namespace {

constexpr unsigned NUM_CQ = 8;
constexpr int ANS_LATENCY = 2;
constexpr unsigned EVT_FIFO = 1u << QPNIC_EVT_LOG_DEPTH;
enum { F_READ = QPNIC_CQ_FW_OP_READ, F_ARMED_CLR = QPNIC_CQ_FW_OP_ARMED_CLR, F_ARM_POPPED = QPNIC_CQ_FW_OP_ARM_POPPED };

struct TableOp {
    unsigned op, idx;
    long at;
};

struct Tb {
    std::unique_ptr<Vqpnic_fw_if> m{new Vqpnic_fw_if};
    unsigned notified = 0;
    long now = 0;

    // The CQ table's firmware port, played here.
    bool t_take = true;   // t_ready
    std::vector<TableOp> ops;
    std::deque<std::pair<long, unsigned>> answers;   // {cycle due, CQ}
    struct View { uint16_t pi = 0, ci = 0; uint32_t err = 0, sol = 0; } view[NUM_CQ];
    bool armed[NUM_CQ] = {};
    unsigned queued[NUM_CQ] = {};   // ARMs made and not yet popped (arms_queued)

    // An ARM event made by the table: its op set armed and counted it.
    void table_arm(unsigned cqn) {
        armed[cqn] = true;
        queued[cqn]++;
    }

    // Clock halves: inputs driven and evaluated with the clock low; then the
    // edge, where the table takes what was offered.
    void low() {
        m->t_ready = t_take;
        m->t_rvalid = !answers.empty() && answers.front().first == now;
        if (m->t_rvalid) {   // the answer registers hold until the next answer
            unsigned c = answers.front().second;
            View v = c < NUM_CQ ? view[c] : View{};
            m->t_pi = v.pi;
            m->t_ci = v.ci;
            m->t_err = v.err;
            m->t_sol = v.sol;
            answers.pop_front();
        }
        m->clk = 0;
        m->eval();
    }
    void high() {
        if (m->cnt_notify) notified++;
        if (m->t_valid && m->t_ready) {
            unsigned op = m->t_op, c = m->t_idx;
            ops.push_back({op, c, now});
            if (op == F_READ) {
                CHECK(answers.empty(), "a second READ before the first was answered");
                answers.push_back({now + ANS_LATENCY, c});
            }
            if (c < NUM_CQ && op == F_ARMED_CLR && queued[c] == 0) armed[c] = false;
            if (c < NUM_CQ && op == F_ARM_POPPED) {
                CHECK(queued[c] > 0, "ARM_POPPED of CQ %u with no ARM of it made", c);
                queued[c]--;
            }
        }
        m->clk = 1;
        m->eval();
        now++;
    }
    void tick() {
        low();
        high();
    }

    // Offers one bus access (valid held until the caller drops it).
    void offer(uint32_t off, unsigned wstrb, uint32_t wdata = 0) {
        m->bus_valid = 1;
        m->bus_addr = off;
        m->bus_wstrb = wstrb;
        m->bus_wdata = wdata;
    }
    // Clocks n cycles in which the offered access must not complete.
    void held(int n, const char *why) {
        for (int i = 0; i < n; i++) {
            low();
            CHECK(!m->bus_ready, "%s (cycle %d)", why, i);
            high();
        }
    }

    // One bus access; *waited is how many cycles it waited beyond the first
    // (0: answered in the cycle it was made).
    uint32_t access(uint32_t off, unsigned wstrb, uint32_t wdata, int *waited = nullptr, int max = 50) {
        offer(off, wstrb, wdata);
        for (int n = 0;; n++) {
            CHECK(n < max, "bus access to +0x%02x never answered", off);
            low();
            if (m->bus_ready) {
                uint32_t d = m->bus_rdata;
                high();
                m->bus_valid = 0;
                m->bus_wstrb = 0;
                if (waited) *waited = n;
                return d;
            }
            high();
        }
    }
    uint32_t rd(uint32_t off, int *waited = nullptr) { return access(off, 0, 0, waited); }
    void wr(uint32_t off, uint32_t v, int *waited = nullptr) { access(off, 0xF, v, waited); }
};

uint32_t ev_word(unsigned type, unsigned cqn, unsigned extra) {
    return QPNIC_FIELD(QPNIC_EVENT_TYPE, type) | QPNIC_FIELD(QPNIC_EVENT_CQN, cqn) |
           QPNIC_FIELD(QPNIC_EVENT_TRIGGER, extra);
}
uint32_t arm_word(unsigned cqn, unsigned index) {
    return ev_word(QPNIC_EVT_TYPE_ARM, cqn, QPNIC_CQ_TRIGGER_SOLICITED) | QPNIC_FIELD(QPNIC_EVENT_INDEX, index);
}
uint32_t cqe_word(unsigned cqn, unsigned index) {
    return ev_word(QPNIC_EVT_TYPE_CQE, cqn, 0) | QPNIC_FIELD(QPNIC_EVENT_INDEX, index);
}

void test_pop_and_waiting(Tb &t) {
    auto *m = t.m.get();
    CHECK(!m->fw_waiting, "firmware waiting before any EVT_POP");
    CHECK(m->evt_empty, "event FIFO not empty after reset");
    uint32_t e = t.rd(QPNIC_FWREG_EVT_POP);
    CHECK(e == 0, "EVT_POP on empty returned 0x%08x", e);
    CHECK(m->fw_waiting, "EVT_POP on empty did not set firmware waiting");
    CHECK(t.ops.empty(), "an empty pop asked the CQ table something");
    // one ARM event
    t.table_arm(4);
    m->arm_evt_valid = 1;
    m->arm_evt_data = ev_word(QPNIC_EVT_TYPE_ARM, 4, QPNIC_CQ_TRIGGER_ANY);
    t.low();
    CHECK(m->arm_evt_ready, "ARM event not accepted by an empty FIFO");
    t.high();
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

// Both sources offer 20 events each, the ARM source (the CQ table) at most
// every other cycle as the table does: when both wait, the older goes
// first; an ARM event is never overtaken by a CQE event offered after it.
void test_merge_full(Tb &t) {
    auto *m = t.m.get();
    unsigned arm_sent = 0, cqe_sent = 0;
    bool arm_rest = false;   // the ARM source just delivered: one cycle off
    std::vector<uint32_t> pushed;
    long cyc = 0, arm_since = -1, cqe_since = -1;   // when the waiting event was first offered
    auto offer = [&]() {
        m->arm_evt_valid = arm_sent < 20 && !arm_rest;
        m->arm_evt_data = ev_word(QPNIC_EVT_TYPE_ARM, 1, arm_sent & 3);
        m->cqe_evt_valid = cqe_sent < 20;
        m->cqe_evt_data = ev_word(QPNIC_EVT_TYPE_CQE, 2, cqe_sent & 3);
        cyc++;
        if (m->arm_evt_valid && arm_since < 0) arm_since = cyc;
        if (m->cqe_evt_valid && cqe_since < 0) cqe_since = cyc;
    };
    auto taken = [&]() {
        CHECK(!(m->arm_evt_ready && m->cqe_evt_ready), "both sources taken in one cycle");
        CHECK(!(m->arm_evt_valid && m->cqe_evt_ready && cqe_since > arm_since),
              "a CQE event offered after a waiting ARM event overtook it");
        arm_rest = false;
        if (m->arm_evt_valid && m->arm_evt_ready) {
            arm_since = -1;
            pushed.push_back(m->arm_evt_data);
            t.table_arm(1);
            arm_sent++;
            arm_rest = true;
        }
        if (m->cqe_evt_valid && m->cqe_evt_ready) {
            cqe_since = -1;
            pushed.push_back(m->cqe_evt_data);
            cqe_sent++;
        }
    };
    // nobody pops: 16 fit, the rest wait
    for (int n = 0; n < 200; n++) {
        offer();
        t.low();
        taken();
        t.high();
    }
    CHECK(pushed.size() == EVT_FIFO, "%zu events accepted into a %u-deep FIFO", pushed.size(), EVT_FIFO);
    CHECK(arm_sent == 8 && cqe_sent == 8, "the CQE source not served between ARMs: %u ARM, %u CQE", arm_sent,
          cqe_sent);
    // pop while the sources keep offering: every event arrives, in order
    std::vector<uint32_t> popped;
    for (int n = 0; n < 600 && popped.size() < 40; n++) {
        offer();
        if (!m->bus_valid && n % 2 == 0) t.offer(QPNIC_FWREG_EVT_POP, 0);
        t.low();
        taken();
        bool done = m->bus_valid && m->bus_ready;
        uint32_t d = m->bus_rdata;
        t.high();
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
    CHECK(t.queued[1] == 0, "%u ARMs of CQ 1 still counted after all were popped", t.queued[1]);
    PASS("fw_if_event_merge_older_first_full_fifo_never_drops");
}

// A host arming in a loop with the FIFO full: each slot the firmware frees
// must not always go to the next ARM. A CQE event waiting since before the
// ARM appeared goes first, so the CQE writer (and the engines behind it)
// are never shut out.
void test_arm_flood_does_not_starve_cqe_events(Tb &t) {
    auto *m = t.m.get();
    bool arm_rest = false;
    unsigned arms = 0, cqes = 0, pops = 0;
    for (int n = 0; n < 2000 && pops < 48; n++) {
        m->arm_evt_valid = !arm_rest;
        m->arm_evt_data = ev_word(QPNIC_EVT_TYPE_ARM, 1, 0);
        m->cqe_evt_valid = n > 40;   // once the FIFO is full of ARMs
        m->cqe_evt_data = ev_word(QPNIC_EVT_TYPE_CQE, 2, 0);
        if (!m->bus_valid && n > 40 && n % 4 == 0) t.offer(QPNIC_FWREG_EVT_POP, 0);
        t.low();
        arm_rest = false;
        if (m->arm_evt_valid && m->arm_evt_ready) {
            t.table_arm(1);
            arms++;
            arm_rest = true;
        }
        if (m->cqe_evt_valid && m->cqe_evt_ready) cqes++;
        bool done = m->bus_valid && m->bus_ready;
        t.high();
        if (done) {
            m->bus_valid = 0;
            pops++;
        }
    }
    m->arm_evt_valid = 0;
    m->cqe_evt_valid = 0;
    CHECK(pops == 48, "the firmware popped %u events of 48", pops);
    CHECK(cqes >= 16, "ARMs in a loop took %u of the freed slots, CQE events %u: the CQE writer is "
          "shut out", arms, cqes);
    // drain
    for (int n = 0; n < 400 && !m->evt_empty; n++) {
        if (!m->bus_valid) t.offer(QPNIC_FWREG_EVT_POP, 0);
        t.low();
        bool done = m->bus_valid && m->bus_ready;
        t.high();
        if (done) m->bus_valid = 0;
    }
    CHECK(m->evt_empty, "the event FIFO did not drain");
    PASS("fw_if_arm_flood_does_not_starve_cqe_events");
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
    t.offer(QPNIC_FWREG_NOTIFY, 0xF,
            QPNIC_FIELD(QPNIC_NOTIFY_CQN, 200) | QPNIC_FIELD(QPNIC_NOTIFY_STATUS, QPNIC_NTF_STATUS_OVERFLOW));
    t.held(20, "NOTIFY accepted while the notification FIFO is full");
    // the host takes them: the stalled write completes, all 9 arrive in order
    std::vector<uint32_t> got;
    m->ntf_ready = 1;
    for (int i = 0; i < 40; i++) {
        t.low();
        if (m->ntf_valid) got.push_back(m->ntf_data);
        bool done = m->bus_valid && m->bus_ready;
        t.high();
        if (done) m->bus_valid = 0;
    }
    CHECK(!m->bus_valid, "stalled NOTIFY never completed");
    CHECK(got.size() == 9, "%zu notifications reached the host, want 9", got.size());
    for (unsigned i = 0; i < 8; i++)
        CHECK(QPNIC_FIELD_GET(&got[i], QPNIC_NOTIFY_CQN) == i, "notification %u has cqn %u", i,
              QPNIC_FIELD_GET(&got[i], QPNIC_NOTIFY_CQN));
    CHECK(QPNIC_FIELD_GET(&got[8], QPNIC_NOTIFY_CQN) == 200, "CQ number 200 did not pass whole");
    CHECK(QPNIC_FIELD_GET(&got[8], QPNIC_NOTIFY_STATUS) == QPNIC_NTF_STATUS_OVERFLOW, "status lost");
    CHECK(t.notified - n0 == 9, "counted %u notifications, want 9", t.notified - n0);
    CHECK(m->ntf_empty, "notification FIFO not empty after draining");
    PASS("fw_if_notify_fifo_stall_and_count");
}

void test_regs(Tb &t) {
    auto *m = t.m.get();
    // CQ 5: PI 0x1234, CI 0x1200, error mark at 0x1230, no solicited mark
    t.view[5] = {0x1234, 0x1200, QPNIC_FIELD(QPNIC_CQ_MARK_VALID, 1) | QPNIC_FIELD(QPNIC_CQ_MARK_INDEX, 0x1230),
                 QPNIC_FIELD(QPNIC_CQ_MARK_INDEX, 0x7777)};
    t.wr(QPNIC_FWREG_CQ_SEL, 5);
    CHECK(t.rd(QPNIC_FWREG_CQ_SEL) == 5, "CQ_SEL read back");
    size_t ops0 = t.ops.size();
    int waited = -1;
    CHECK(t.rd(QPNIC_FWREG_CQ_PI, &waited) == 0x1234, "CQ_PI 0x%x", t.rd(QPNIC_FWREG_CQ_PI));
    CHECK(waited == ANS_LATENCY, "CQ_PI answered %d cycles after it was asked, want the table's %d", waited,
          ANS_LATENCY);
    CHECK(t.ops.size() == ops0 + 1 && t.ops[ops0].op == F_READ && t.ops[ops0].idx == 5,
          "CQ_PI read: %zu table ops, first op %u idx %u", t.ops.size() - ops0, t.ops[ops0].op, t.ops[ops0].idx);
    CHECK(t.rd(QPNIC_FWREG_CQ_CI) == 0x1200, "CQ_CI 0x%x", t.rd(QPNIC_FWREG_CQ_CI));
    uint32_t err = t.rd(QPNIC_FWREG_CQ_LAST_ERR), sol = t.rd(QPNIC_FWREG_CQ_LAST_SOL);
    CHECK(QPNIC_FIELD_GET(&err, QPNIC_CQ_MARK_VALID) == 1 && QPNIC_FIELD_GET(&err, QPNIC_CQ_MARK_INDEX) == 0x1230,
          "CQ_LAST_ERR 0x%08x", err);
    CHECK(QPNIC_FIELD_GET(&sol, QPNIC_CQ_MARK_VALID) == 0, "CQ_LAST_SOL valid without a mark: 0x%08x", sol);
    t.wr(QPNIC_FWREG_CQ_SEL, 4);
    CHECK(t.rd(QPNIC_FWREG_CQ_PI) == 0, "CQ_SEL 4 shows CQ 5's PI");
    // the table holds the READ off: the bus waits, the READ is asked once
    t.t_take = false;
    ops0 = t.ops.size();
    t.offer(QPNIC_FWREG_CQ_CI, 0);
    t.held(10, "CQ_CI answered before the table took the READ");
    t.t_take = true;
    m->bus_valid = 0;
    t.rd(QPNIC_FWREG_CQ_CI);
    CHECK(t.ops.size() == ops0 + 1, "%zu READs for one CQ_CI read", t.ops.size() - ops0);

    CHECK(!m->fw_ready, "fw_ready before FW_READY");
    t.wr(QPNIC_FWREG_FW_READY, 1);
    CHECK(m->fw_ready, "FW_READY write did not set fw_ready");
    m->cycles_lo = 0xDEADBEEF;
    CHECK(t.rd(QPNIC_FWREG_CYCLES) == 0xDEADBEEF, "CYCLES");
    CHECK(t.rd(QPNIC_FWREG_NUM_CQ) == NUM_CQ, "NUM_CQ");
    CHECK(t.rd(0xFC) == 0, "unmapped offset");
    PASS("fw_if_cq_sel_view_through_table_ready_cycles_num_cq");
}

// ---- the armed bits: table ops the firmware's accesses make ------------------

// Offers one event and clocks until the FIFO takes it. An ARM is made by
// the table: its op counted it before the event is offered.
void push(Tb &t, bool is_arm, uint32_t w) {
    auto *m = t.m.get();
    if (is_arm) {
        t.table_arm(QPNIC_FIELD_GET(&w, QPNIC_EVENT_CQN));
        m->arm_evt_valid = 1;
        m->arm_evt_data = w;
    } else {
        m->cqe_evt_valid = 1;
        m->cqe_evt_data = w;
    }
    for (int n = 0;; n++) {
        CHECK(n < 50, "event 0x%08x never taken", w);
        t.low();
        bool took = is_arm ? m->arm_evt_ready : m->cqe_evt_ready;
        t.high();
        if (took) break;
    }
    m->arm_evt_valid = 0;
    m->cqe_evt_valid = 0;
}

// Pops one event and checks it is `want` (with valid set).
void pop_expect(Tb &t, uint32_t want) {
    uint32_t got = t.rd(QPNIC_FWREG_EVT_POP);
    uint32_t w = want | (1u << QPNIC_EVENT_VALID_SHIFT);
    CHECK(got == w, "popped 0x%08x, want 0x%08x", got, w);
}

void clr(Tb &t, unsigned cqn) { t.wr(QPNIC_FWREG_ARMED_CLR, cqn); }

void test_pop_and_clr_ops(Tb &t) {
    auto *m = t.m.get();
    CHECK(m->evt_empty, "event FIFO not empty at the start");
    for (unsigned c = 0; c < NUM_CQ; c++) clr(t, c);
    // every clear is one ARMED_CLR of its CQ (the low 8 bits of the word)
    size_t ops0 = t.ops.size();
    clr(t, 200);
    clr(t, 0x103);
    CHECK(t.ops.size() == ops0 + 2 && t.ops[ops0].op == F_ARMED_CLR && t.ops[ops0].idx == 200 &&
              t.ops[ops0 + 1].idx == 3,
          "ARMED_CLR 200 and 0x103 made %zu ops (first idx %u)", t.ops.size() - ops0, t.ops[ops0].idx);

    // a CQE event pops at once, with no table op
    push(t, false, cqe_word(6, 9));
    ops0 = t.ops.size();
    int waited = -1;
    uint32_t e = t.rd(QPNIC_FWREG_EVT_POP, &waited);
    CHECK(e == (cqe_word(6, 9) | (1u << QPNIC_EVENT_VALID_SHIFT)) && waited == 0 && t.ops.size() == ops0,
          "CQE pop: 0x%08x after %d cycles, %zu table ops", e, waited, t.ops.size() - ops0);

    // an ARM pops only when the table takes its ARM_POPPED: the event stays
    // in the FIFO meanwhile
    push(t, true, arm_word(3, 5));
    CHECK(t.armed[3] && t.queued[3] == 1, "setup");
    t.t_take = false;
    t.offer(QPNIC_FWREG_EVT_POP, 0);
    t.low();
    CHECK(m->t_valid && m->t_op == F_ARM_POPPED && m->t_idx == 3, "ARM_POPPED of CQ 3 not offered");
    t.high();
    t.held(10, "ARM popped before the table took its ARM_POPPED");
    CHECK(!m->evt_empty, "the ARM left the FIFO without its op");
    t.t_take = true;
    m->bus_valid = 0;
    ops0 = t.ops.size();
    pop_expect(t, arm_word(3, 5));
    CHECK(t.ops.size() == ops0 + 1 && t.ops[ops0].op == F_ARM_POPPED && t.ops[ops0].idx == 3,
          "the ARM's pop made %zu ops", t.ops.size() - ops0);
    CHECK(m->evt_empty && t.queued[3] == 0, "FIFO %s, %u ARMs of CQ 3 counted", m->evt_empty ? "empty" : "not empty",
          t.queued[3]);
    CHECK(t.armed[3], "popping the ARM cleared its armed bit");
    // the clear the firmware writes after the pop comes after it: it clears
    clr(t, 3);
    CHECK(!t.armed[3], "ARMED_CLR after the ARM was popped did not clear CQ 3");
    // a clear while the ARM is still queued is ignored by the table
    push(t, true, arm_word(3, 6));
    clr(t, 3);
    clr(t, 2);
    CHECK(t.armed[3], "ARMED_CLR cleared CQ 3 while its ARM is still queued");
    pop_expect(t, arm_word(3, 6));
    clr(t, 3);
    CHECK(!t.armed[3] && m->evt_empty, "CQ 3 armed at the end");
    PASS("fw_if_arm_pop_and_armed_clr_are_table_ops_in_order");
}

void test_counts_per_cq(Tb &t) {
    auto *m = t.m.get();
    // two CQs interleaved, with a CQE event of CQ 2 among them
    struct { bool arm; uint32_t w; } seq[] = {
        {true, arm_word(2, 10)}, {true, arm_word(5, 20)}, {true, arm_word(2, 11)},
        {false, cqe_word(2, 10)}, {true, arm_word(5, 21)}, {true, arm_word(2, 12)},
    };
    const size_t n = sizeof seq / sizeof seq[0];
    unsigned left[NUM_CQ] = {0};
    for (size_t i = 0; i < n; i++) {
        push(t, seq[i].arm, seq[i].w);
        if (seq[i].arm) left[QPNIC_FIELD_GET(&seq[i].w, QPNIC_EVENT_CQN)]++;
    }
    clr(t, 2);
    clr(t, 5);
    CHECK(t.armed[2] && t.armed[5], "cleared with ARMs of CQ 2 and 5 queued");
    // pop one at a time; after each, try to clear both: a CQ's bit goes only
    // when its own last ARM has left
    for (size_t i = 0; i < n; i++) {
        pop_expect(t, seq[i].w);
        if (seq[i].arm) left[QPNIC_FIELD_GET(&seq[i].w, QPNIC_EVENT_CQN)]--;
        clr(t, 2);
        clr(t, 5);
        CHECK(t.armed[2] == (left[2] > 0) && t.armed[5] == (left[5] > 0),
              "after pop %zu: CQ 2 armed %d with %u ARMs queued, CQ 5 armed %d with %u", i, t.armed[2], left[2],
              t.armed[5], left[5]);
    }
    // a whole FIFO of one CQ's ARMs, plus one waiting
    for (unsigned i = 0; i < EVT_FIFO; i++) push(t, true, arm_word(1, 100 + i));
    t.table_arm(1);
    m->arm_evt_valid = 1;
    m->arm_evt_data = arm_word(1, 100 + EVT_FIFO);
    CHECK(t.queued[1] == EVT_FIFO + 1, "setup: %u ARMs of CQ 1", t.queued[1]);
    for (unsigned i = 0; i <= EVT_FIFO; i++) {
        pop_expect(t, arm_word(1, 100 + i));
        for (int k = 0; k < 3; k++) {   // the waiting ARM enters
            t.low();
            bool took = m->arm_evt_valid && m->arm_evt_ready;
            t.high();
            if (took) m->arm_evt_valid = 0;
        }
        CHECK(!m->arm_evt_valid, "the waiting ARM did not enter after a pop");
        clr(t, 1);
        CHECK(t.armed[1] == (i < EVT_FIFO), "after popping %u of %u ARMs of CQ 1: armed %d", i + 1, EVT_FIFO + 1,
              t.armed[1]);
    }
    CHECK(m->evt_empty && t.queued[1] == 0, "FIFO %s, %u ARMs of CQ 1 counted at the end",
          m->evt_empty ? "empty" : "not empty", t.queued[1]);
    PASS("fw_if_queued_arm_count_per_cq_interleaved_and_full_fifo");
}

// Random pushes from both sources, pops, ARMED_CLR writes and CQ reads, the
// table taking ops at random: every event arrives once, in order; the
// table's count of each CQ's ARMs is always what is in the FIFO or waiting
// to enter it; the armed bits follow the rule.
void test_armed_random(Tb &t, const unsigned seed) {
    auto *m = t.m.get();
    unsigned state = seed;
    auto rnd = [&](unsigned n) { return (unsigned)(rand_r(&state) % n); };
    std::deque<uint32_t> q;
    std::vector<uint32_t> pushed, popped;
    bool armed_model[NUM_CQ] = {};
    for (unsigned c = 0; c < NUM_CQ; c++) armed_model[c] = t.armed[c];
    uint32_t expect_rd = 0;
    bool arm_rest = false;
    unsigned clr_ignored = 0, clr_cleared = 0, full_seen = 0, empty_pops = 0, held = 0;
    for (int cyc = 0; cyc < 20000; cyc++) {
        // phases: sources busier or slower than the firmware
        unsigned offer = (cyc / 500) % 2 ? 1 : 12;   // in 16
        if (!m->arm_evt_valid && !arm_rest && rnd(16) < offer) {
            unsigned c = rnd(NUM_CQ);
            t.table_arm(c);   // the table's ARM op, then its event
            armed_model[c] = true;
            m->arm_evt_valid = 1;
            m->arm_evt_data = arm_word(c, rand_r(&state) & 0xFFFF);
        }
        if (!m->cqe_evt_valid && rnd(16) < offer) {
            m->cqe_evt_valid = 1;
            m->cqe_evt_data = rnd(4) ? cqe_word(rnd(NUM_CQ), rand_r(&state) & 0xFFFF)
                                     : ev_word(QPNIC_EVT_TYPE_OVERRUN, rnd(NUM_CQ), 0);
        }
        if (!m->bus_valid) {
            unsigned r = rnd(8);
            if (r < 4)
                t.offer(QPNIC_FWREG_EVT_POP, 0);
            else if (r < 6)
                t.offer(QPNIC_FWREG_ARMED_CLR, 0xF, rnd(NUM_CQ + 1));   // NUM_CQ: beyond the table
            else if (r == 6)
                t.offer(QPNIC_FWREG_CQ_PI, 0);
        }
        t.t_take = rnd(4) != 0;
        uint32_t arm_data = m->arm_evt_data, cqe_data = m->cqe_evt_data;
        bool is_pop = m->bus_addr == QPNIC_FWREG_EVT_POP && m->bus_wstrb == 0;
        bool is_clr = m->bus_addr == QPNIC_FWREG_ARMED_CLR && m->bus_wstrb != 0;
        unsigned clr_cqn = m->bus_wdata & 0xFF;
        size_t before = q.size();
        if (before == EVT_FIFO) full_seen++;
        t.low();
        bool arm_took = m->arm_evt_valid && m->arm_evt_ready;
        bool cqe_took = m->cqe_evt_valid && m->cqe_evt_ready;
        bool bus_done = m->bus_valid && m->bus_ready;
        if (m->bus_valid && !m->bus_ready && (is_pop || is_clr)) held++;
        uint32_t rdata = m->bus_rdata;
        t.high();
        CHECK(!(arm_took || cqe_took) || before < EVT_FIFO, "cycle %d: an event taken into a full FIFO", cyc);
        if (bus_done && is_clr && clr_cqn < NUM_CQ) {
            if (t.queued[clr_cqn]) {
                clr_ignored++;
            } else {
                if (armed_model[clr_cqn]) clr_cleared++;
                armed_model[clr_cqn] = false;
            }
        }
        if (bus_done && is_pop) {
            expect_rd = 0;
            if (q.empty()) empty_pops++;
            if (!q.empty()) {
                expect_rd = q.front() | (1u << QPNIC_EVENT_VALID_SHIFT);
                popped.push_back(q.front());
                q.pop_front();
            }
            CHECK(rdata == expect_rd, "seed %u cycle %d: popped 0x%08x, want 0x%08x", seed, cyc, rdata, expect_rd);
        }
        arm_rest = false;
        if (arm_took) {
            q.push_back(arm_data);
            pushed.push_back(arm_data);
            m->arm_evt_valid = 0;
            arm_rest = true;
        }
        if (cqe_took) {
            q.push_back(cqe_data);
            pushed.push_back(cqe_data);
            m->cqe_evt_valid = 0;
        }
        if (bus_done) {
            m->bus_valid = 0;
            m->bus_wstrb = 0;
        }
        // the table's counts: the ARMs in the FIFO plus the one waiting
        for (unsigned c = 0; c < NUM_CQ; c++) {
            unsigned want = 0;
            for (uint32_t w : q)
                if (QPNIC_FIELD_GET(&w, QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_ARM && QPNIC_FIELD_GET(&w, QPNIC_EVENT_CQN) == c)
                    want++;
            uint32_t a = m->arm_evt_data;
            if (m->arm_evt_valid && QPNIC_FIELD_GET(&a, QPNIC_EVENT_CQN) == c) want++;
            CHECK(t.queued[c] == want, "seed %u cycle %d: the table counts %u ARMs of CQ %u, the FIFO holds %u",
                  seed, cyc, t.queued[c], c, want);
            CHECK(t.armed[c] == armed_model[c], "seed %u cycle %d: CQ %u armed %d, rule says %d", seed, cyc, c,
                  t.armed[c], armed_model[c]);
        }
    }
    // drain: stop the sources, pop everything
    t.t_take = true;
    for (int n = 0; m->arm_evt_valid; n++) {   // let the waiting ARM in
        CHECK(n < 50, "the waiting ARM never entered");
        t.low();
        bool took = m->arm_evt_ready;
        if (took) {
            q.push_back(m->arm_evt_data);
            pushed.push_back(m->arm_evt_data);
        }
        t.high();
        if (took) m->arm_evt_valid = 0;
    }
    m->arm_evt_valid = 0;
    m->cqe_evt_valid = 0;
    for (int n = 0; n < 10 && m->bus_valid; n++) {
        t.low();
        bool done = m->bus_ready;
        t.high();
        if (done) m->bus_valid = 0;
    }
    CHECK(!m->bus_valid, "a bus access stuck at the end");
    while (!q.empty()) {
        pop_expect(t, q.front());
        popped.push_back(q.front());
        q.pop_front();
    }
    CHECK(m->evt_empty, "the FIFO holds more than the model");
    CHECK(popped.size() == pushed.size(), "%zu events popped of %zu pushed", popped.size(), pushed.size());
    for (size_t i = 0; i < pushed.size(); i++)
        CHECK(popped[i] == pushed[i], "event %zu popped 0x%08x, pushed 0x%08x", i, popped[i], pushed[i]);
    CHECK(clr_ignored > 50 && clr_cleared > 50 && full_seen > 50 && empty_pops > 50 && held > 50,
          "seed %u exercised too little: %u clears ignored, %u clears that cleared, %u full cycles, %u empty pops, "
          "%u accesses held by the table",
          seed, clr_ignored, clr_cleared, full_seen, empty_pops, held);
    for (unsigned c = 0; c < NUM_CQ; c++) {
        CHECK(t.queued[c] == 0, "CQ %u: %u ARMs still counted with the FIFO empty", c, t.queued[c]);
        clr(t, c);
        CHECK(!t.armed[c], "CQ %u armed after clearing with nothing queued", c);
    }
    std::printf("  %zu events, %u clears ignored, %u cleared, %u full cycles, %u empty pops, %u held\n",
                pushed.size(), clr_ignored, clr_cleared, full_seen, empty_pops, held);
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
    test_arm_flood_does_not_starve_cqe_events(t);
    test_notify(t);
    test_regs(t);
    test_pop_and_clr_ops(t);
    test_counts_per_cq(t);
    unsigned seed = tb_seed("tb_qpnic_fw_if", 12345u);
    test_armed_random(t, seed);
    t.m->final();
    return 0;
}
