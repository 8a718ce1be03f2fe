// tb_qpnic_fw_if: unit test of rtl/qpnic_fw_if.v, the firmware's registers.
//
// The testbench plays the soft core's bus (PicoRV32 style: valid held until
// ready), the two event sources (csr ARM, CQE writer) and the host side of
// the notification port. Checks: EVT_POP on empty returns valid 0 and sets
// "firmware waiting" until the next push; events from both sources all
// arrive, taking turns, none dropped when the FIFO fills (the sources wait);
// NOTIFY queues towards ntf_* and the bus stalls while that FIFO is full;
// notifications are counted; CQ_SEL views; ARMED_SET/CLR; FW_READY; CYCLES;
// NUM_CQ.
// Not for: the RAM or PicoRV32 (qpnic_soc).
#include <cstdint>
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

    // One bus access; *waited is how many cycles it waited beyond the first.
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
                if (waited) *waited = n - 1;
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

    t.wr(QPNIC_FWREG_ARMED_SET, 3);
    t.wr(QPNIC_FWREG_ARMED_SET, 7);
    CHECK(m->cq_armed == 0x88, "armed 0x%02x after setting 3 and 7", m->cq_armed);
    t.wr(QPNIC_FWREG_ARMED_CLR, 3);
    t.wr(QPNIC_FWREG_ARMED_SET, 200);   // beyond NUM_CQ: ignored
    CHECK(m->cq_armed == 0x80, "armed 0x%02x after clearing 3", m->cq_armed);

    CHECK(!m->fw_ready, "fw_ready before FW_READY");
    t.wr(QPNIC_FWREG_FW_READY, 1);
    CHECK(m->fw_ready, "FW_READY write did not set fw_ready");
    m->cycles_lo = 0xDEADBEEF;
    CHECK(t.rd(QPNIC_FWREG_CYCLES) == 0xDEADBEEF, "CYCLES");
    CHECK(t.rd(QPNIC_FWREG_NUM_CQ) == 8, "NUM_CQ");
    CHECK(t.rd(0xFC) == 0, "unmapped offset");
    PASS("fw_if_cq_sel_view_armed_bits_ready_cycles_num_cq");
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
    t.m->final();
    return 0;
}
