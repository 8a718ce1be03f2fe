// tb_qpnic_cqe_writer: unit test of rtl/qpnic_cqe_writer.v.
//
// The testbench plays qpnic_cq_table's CQE writer port (it holds the CQ
// contexts, applies READ / WRITTEN / OVERRUN in the order it takes them, with
// random backpressure, and answers some cycles later with the context as
// the op found it), the DMA write channel (a host memory that records every
// request and beat, with random backpressure; seed printed) and the firmware
// event FIFO.
// Checks: slot addresses and word order, the phase bit across a ring wrap,
// overrun when full (CQE dropped, OVERRUN op then OVERRUN event, nothing
// written), drops for a disabled or overrun CQ or a CQ number the table
// does not have, CQE events only for armed CQs and carrying the error and
// solicited flags and the index written (also across the 16-bit index
// wrap), the WRITTEN op's marks flags, one cnt_cqe per CQE written, that a
// blocked event FIFO stalls the writer instead of losing the event, and that
// the armed bit comes from the WRITTEN op's answer alone: an arm taken by
// the table before the WRITTEN gets the event, one taken after it counts the
// CQE by its index, never neither, never both (cycle-exact sweep). With a
// consumer index record table (rec_base), a CQ that looks full is read from
// its record once (4 bytes at rec_base + cqn * 4, on the DMA read channel
// the testbench also plays), SET_CI'd, and decided again: written when the
// record says there is room, overrun (after exactly one read) when not.
// Not for: the CQ registers or the table's atomicity (tb_qpnic_cq_table).
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

#include "Vqpnic_cqe_writer.h"
#include "verilated.h"
#include "tb_util.h"
#include "../../host/src/gen/qpnic_hw.h"
#include "qpnic_internal.h"

namespace {

constexpr unsigned NUM_CQ = 8;   // what the played table has
enum { C_READ = QPNIC_CQ_WR_OP_READ, C_WRITTEN = QPNIC_CQ_WR_OP_WRITTEN, C_OVERRUN = QPNIC_CQ_WR_OP_OVERRUN,
       C_SET_CI = QPNIC_CQ_WR_OP_SET_CI };

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
    int ovr_ops = 0, written_ops = 0, read_ops = 0, cnt_pulses = 0;
    bool in_write = false;
    bool block_events = false;
    bool steady = false;   // every ready always high, answers ANS_LATENCY later: cycle-exact runs
    unsigned seed = 1;
    // the table's answers on their way: {cycle due, context as found}
    std::deque<std::pair<long, Cq>> answers;
    // cycle timing, for the armed-bit test
    long now = 0;              // cycles since construction
    long arm_at = -1;          // the table takes an ARM of arm_cq in this cycle,
    unsigned arm_cq = 0;       // after the writer's op of the same cycle
    uint16_t arm_index = 0;    // the PI that ARM carried
    long last_beat_at = -1;    // cycle the last CQE data beat was accepted
    long written_at = -1;      // cycle the table took the WRITTEN
    long ovr_op_at = -1;       // cycle the table took the last OVERRUN
    long ovr_evt_at = -1;      // cycle the last OVERRUN event was taken
    // the host's consumer index records, and the DMA read channel
    uint64_t rec_base = 0;
    uint16_t rec[NUM_CQ] = {};
    std::vector<uint64_t> rec_reads;   // addresses read
    int set_ci_ops = 0;
    long rd_due = -1;                  // cycle the outstanding read's beat is offered
    uint32_t rd_word = 0;

    bool coin() { return steady || (rand_r(&seed) & 3) != 0; }   // ready 3 times in 4

    // One clock cycle: drive, sample handshakes, edge, update.
    // Returns whether the CQE request handshake happened.
    bool cycle() {
        m->t_ready = coin();
        m->t_rvalid = !answers.empty() && answers.front().first == now;
        if (m->t_rvalid) {   // the answer registers hold until the next answer
            const Cq &a = answers.front().second;
            m->t_base = a.base;
            m->t_log = a.log;
            m->t_en = a.en;
            m->t_ovr = a.ovr;
            m->t_pi = a.pi;
            m->t_ci = a.ci;
            m->t_armed = a.armed;
            answers.pop_front();
        }
        m->dmaw_req_ready = coin();
        m->dmaw_dat_ready = coin();
        m->rec_base = rec_base;
        m->dmar_req_ready = rd_due < 0 && coin();
        m->dmar_rsp_valid = rd_due >= 0 && now >= rd_due;
        m->dmar_rsp_data = rd_word;
        m->dmar_rsp_keep = 0xF;
        m->dmar_rsp_last = 1;
        m->evt_ready = !block_events && coin();
        m->clk = 0;
        m->eval();
        bool req = m->dmaw_req_valid && m->dmaw_req_ready;
        bool dat = m->dmaw_dat_valid && m->dmaw_dat_ready;
        bool evt = m->evt_valid && m->evt_ready;
        bool cqe = m->cqe_valid && m->cqe_ready;
        bool op = m->t_valid && m->t_ready;
        if (m->dmar_req_valid && m->dmar_req_ready) {
            uint64_t a = m->dmar_req_addr;
            CHECK(m->dmar_req_len == QPNIC_CI_REC_BYTES, "record read of %u bytes", m->dmar_req_len);
            CHECK(a >= rec_base && a < rec_base + NUM_CQ * QPNIC_CI_REC_BYTES && (a - rec_base) % 4 == 0,
                  "record read at 0x%llx, the table is at 0x%llx", (unsigned long long)a,
                  (unsigned long long)rec_base);
            rec_reads.push_back(a);
            rd_word = 0xBEEF0000u | rec[(a - rec_base) / QPNIC_CI_REC_BYTES];   // bits above ci ignored
            rd_due = now + 1 + (long)(steady ? 0 : rand_r(&seed) % 5);
        }
        if (m->dmar_rsp_valid && m->dmar_rsp_ready) rd_due = -1;
        if (m->cnt_cqe) cnt_pulses++;
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
        if (evt) {
            events.push_back(m->evt_data);
            uint32_t e = m->evt_data;
            if (QPNIC_FIELD_GET(&e, QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_OVERRUN) ovr_evt_at = now;
        }
        if (m->t_valid)
            CHECK(answers.empty(), "the writer asked the table again before its last answer came");
        if (op) {
            unsigned i = m->t_idx;
            Cq none;
            Cq &c = i < NUM_CQ ? cq[i] : none;
            Cq found = c;
            switch (m->t_op) {
            case C_READ:
                read_ops++;
                break;
            case C_WRITTEN:
                CHECK(!in_write && writes.size() && writes.back().words.size() == QPNIC_CQE_WORDS,
                      "WRITTEN before the CQE's DMA write ended");
                written_ops++;
                written_at = now;
                if (m->t_err) { c.err_marks++; c.last_err = c.pi; }
                if (m->t_sol) { c.sol_marks++; c.last_sol = c.pi; }
                c.pi++;
                break;
            case C_OVERRUN:
                ovr_ops++;
                ovr_op_at = now;
                c.ovr = true;
                break;
            case C_SET_CI:
                set_ci_ops++;
                c.ci = m->t_arg;
                found = c;   // answered with the CI it set
                break;
            default:
                CHECK(false, "op %u on the table port", m->t_op);
            }
            if (m->t_op != C_OVERRUN) {
                long lat = steady ? 2 : 1 + (rand_r(&seed) % 4);
                answers.push_back({now + lat, found});
            }
        }
        if (now == arm_at) {   // the ARM, taken after this cycle's op
            cq[arm_cq].armed = true;
            arm_index = cq[arm_cq].pi;
        }
        m->clk = 1;
        m->eval();
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
        CHECK(answers.empty(), "an answer the writer never waited for");
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
    int ovr0 = t.ovr_ops, written0 = t.written_ops;
    t.cqe(2, w);   // full: PI - CI == 2
    CHECK(t.writes.size() == 2, "a CQE was written to a full CQ");
    CHECK(c.pi == 2 && t.written_ops == written0, "PI moved on overrun");
    CHECK(t.ovr_ops == ovr0 + 1 && c.ovr, "overrun flag not set");
    CHECK(t.ovr_op_at < t.ovr_evt_at, "the OVERRUN event (cycle %ld) before the flag was set (cycle %ld)",
          t.ovr_evt_at, t.ovr_op_at);
    CHECK(t.events.size() == 1, "%zu events on overrun, want 1", t.events.size());
    uint32_t e = t.events[0];
    CHECK(QPNIC_FIELD_GET(&e, QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_OVERRUN &&
              QPNIC_FIELD_GET(&e, QPNIC_EVENT_CQN) == 2,
          "overrun event 0x%08x", e);
    // in overrun: dropped, nothing else, even after the host makes room
    c.ci = 2;
    c.armed = true;
    t.cqe(2, w);
    CHECK(t.writes.size() == 2 && t.events.size() == 1 && t.ovr_ops == ovr0 + 1,
          "a CQE to a CQ in overrun did something");
    // disabled CQ: dropped
    Cq &d = t.cq[3];
    d = Cq{};
    d.base = 0x9000;
    d.log = 3;
    d.armed = true;
    t.cqe(3, w);
    CHECK(t.writes.size() == 2 && t.events.size() == 1 && d.pi == 0, "a CQE to a disabled CQ did something");
    // a CQ number the table does not have: it answers a disabled CQ; dropped
    int reads0 = t.read_ops;
    t.cqe(NUM_CQ + 1, w);
    t.cqe(255, w);
    CHECK(t.read_ops == reads0 + 2, "the writer did not ask the table about CQ %u and 255", NUM_CQ + 1);
    CHECK(t.writes.size() == 2 && t.events.size() == 1 && t.written_ops == written0 && t.ovr_ops == ovr0 + 1,
          "a CQE to a CQ number beyond the table did something");
    CHECK(t.cnt_pulses == t.written_ops, "%d cnt_cqe pulses for %d CQEs written", t.cnt_pulses, t.written_ops);
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

// The armed bit comes from the WRITTEN op's answer (docs/internals.md, "The
// CQ table"): the table takes an ARM of the CQ in cycle P, after the
// writer's op of that cycle, and that ARM carries the PI as it stands then.
// For every P around the WRITTEN, exactly one of the two must count the CQE:
// the arm's index is past it, or the CQE raises an event. An arm right after
// the WRITTEN, while its answer is on its way, must not raise one: the
// writer looks at no armed bit but the answer's. Cycle-exact (every ready
// high, answers ANS_LATENCY later), no randomness.
void test_armed_from_written_answer(Tb &t) {
    Cq &c = t.cq[6];
    c = Cq{};
    c.base = 0x60000;
    c.log = 3;
    c.en = true;
    t.steady = true;
    t.events.clear();
    uint32_t w[4];
    make_cqe(w, 0, QPNIC_CQE_STATUS_SUCCESS, false);
    // a reference run, unarmed: where the WRITTEN falls
    long start = t.now;
    t.cqe(6, w);
    CHECK(t.events.empty(), "an event from an unarmed CQ");
    const long wr_off = t.written_at - start;
    CHECK(t.written_at == t.last_beat_at + 1, "WRITTEN offered %ld cycles after the last beat, want 1",
          t.written_at - t.last_beat_at);
    bool saw_event = false, saw_none = false;
    for (long k = -3; k <= 4; k++) {   // the ARM taken at WRITTEN + k
        t.events.clear();
        c.armed = false;
        c.ci = c.pi;
        const uint16_t idx = c.pi;
        start = t.now;
        t.arm_cq = 6;
        t.arm_at = start + wr_off + k;
        t.cqe(6, w);
        t.arm_at = -1;
        CHECK(t.written_at - start == wr_off, "k %ld: the run is not cycle-exact (WRITTEN at +%ld, want +%ld)", k,
              t.written_at - start, wr_off);
        CHECK(c.armed, "k %ld: the test never armed the CQ", k);
        const bool arm_counts_cqe = t.arm_index != idx;
        const bool raised = t.events.size() == 1;
        CHECK(t.events.size() <= 1, "k %ld: %zu events for one CQE", k, t.events.size());
        CHECK(raised != arm_counts_cqe,
              "ARM taken at WRITTEN %+ld: the arm's index 0x%04x %s the CQE at 0x%04x, and the writer %s", k,
              t.arm_index, arm_counts_cqe ? "counts" : "does not count", idx,
              raised ? "raised an event too" : "raised no event");
        if (raised) {
            CHECK(QPNIC_FIELD_GET(&t.events[0], QPNIC_EVENT_INDEX) == idx, "k %ld: event index 0x%04x, want 0x%04x", k,
                  QPNIC_FIELD_GET(&t.events[0], QPNIC_EVENT_INDEX), idx);
            saw_event = true;
        } else {
            saw_none = true;
        }
        // before the WRITTEN: an event; in its cycle or after: none
        CHECK(raised == (k < 0), "ARM taken at WRITTEN %+ld: event %d", k, raised);
    }
    CHECK(saw_event && saw_none, "the sweep did not cross the WRITTEN");
    t.steady = false;
    PASS("cqe_writer_armed_bit_from_written_answer_never_neither");
}

// A host that takes CQEs and writes only its record: the writer reads the
// record when its copy of CI says full, and writes the CQE; a record that
// says full too leads to an overrun after one read; no table, no read.
void test_ci_record(Tb &t) {
    Cq &c = t.cq[7];
    c = Cq{};
    c.base = 0x70000;
    c.log = 1;   // 2 entries
    c.en = true;
    t.rec_base = 0x0000000500002000ull;
    t.writes.clear();
    t.events.clear();
    t.rec_reads.clear();
    uint32_t w[4];
    make_cqe(w, 0, QPNIC_CQE_STATUS_SUCCESS, false);
    t.cqe(7, w);
    t.cqe(7, w);
    CHECK(t.rec_reads.empty(), "a record read while the CQ had room");
    t.rec[7] = 2;   // the host took both; the table's CI is still 0
    int ovr0 = t.ovr_ops;
    t.cqe(7, w);
    CHECK(t.rec_reads.size() == 1 && t.rec_reads[0] == t.rec_base + 7 * QPNIC_CI_REC_BYTES,
          "%zu record reads for a CQ that looked full (want 1, at CQ 7's record)", t.rec_reads.size());
    CHECK(c.ci == 2 && t.set_ci_ops == 1, "SET_CI: the table's CI %u after %d SET_CI ops", c.ci, t.set_ci_ops);
    CHECK(t.writes.size() == 3 && c.pi == 3 && t.ovr_ops == ovr0, "the CQE after the record read: %zu writes, PI %u",
          t.writes.size(), c.pi);
    t.cqe(7, w);   // PI 4, CI 2: full again, and the record says so too
    CHECK(t.rec_reads.size() == 1, "a record read while the CQ had room (PI 3, CI 2)");
    t.cqe(7, w);
    CHECK(t.rec_reads.size() == 2, "the record was not read again when the CQ looked full");
    CHECK(t.writes.size() == 4 && c.ovr && t.ovr_ops == ovr0 + 1,
          "a record saying full: %zu writes, overrun %d (want 4 writes and an overrun)", t.writes.size(), c.ovr);
    CHECK(t.events.size() == 1 && QPNIC_FIELD_GET(&t.events[0], QPNIC_EVENT_TYPE) == QPNIC_EVT_TYPE_OVERRUN,
          "%zu events after the overrun", t.events.size());
    t.rec_base = 0;
    PASS("cqe_writer_reads_the_ci_record_when_full_once");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    t.seed = tb_seed("tb_qpnic_cqe_writer", 12345u);
    t.reset();
    test_wrap_phase(t);
    test_overrun(t);
    test_events(t);
    test_event_index_wrap(t);
    test_armed_from_written_answer(t);
    test_ci_record(t);
    t.m->final();
    return 0;
}
