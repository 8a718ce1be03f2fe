// tb_qpnic_fw_transport: unit test of rtl/qpnic_fw_transport.v, the
// firmware partition's transport port, through its bus as the soft core
// drives it (layout tpregs), against a small model of what stands around
// it: a token check that answers two cycles after it is asked with a
// device address the test chose, and DMA that takes every request and
// returns a read's beats at once.
//
// The end-to-end tests run the port under the real firmware, which never
// asks for what the port must refuse; these cases do:
//   - a MOVE the windows do not allow is refused and moves nothing: length
//     0 or above MAX_DMA_BYTES, one window twice, a window that is not
//     there or not open, a length past either window's bytes left;
//   - a MOVE that is allowed moves from where the window's last MOVE ended,
//     cut at the next page boundary of either side, and uses up the
//     window's bytes;
//   - after reset the windows' RAM clears itself, and a CHK_CMD offered
//     meanwhile waits for it;
//   - FR_CMD with from_win writes window 0's device address into the entry
//     (and FR_DMA, which the firmware writes before every FR_CMD);
//   - GRANT_SEL's read of the grant RAM waits while the host's GRANT writes
//     the same entry, and returns the word written (the simulator's RAM
//     returns a same-cycle read inverted).
#include <cstdint>
#include <deque>
#include <memory>

#include "Vqpnic_fw_transport.h"
#include "verilated.h"
#include "tb_util.h"
#include "../../fw/gen/qpnic_fw_hw.h"

namespace {

const uint32_t MAX_DMA = QPNIC_MAX_DMA_BYTES, PAGE = QPNIC_FREG_PAGE_BYTES;
const unsigned WINDOWS = QPNIC_TP_WINDOWS;

struct Req { uint64_t addr; uint32_t len; };

struct Tb {
    std::unique_ptr<Vqpnic_fw_transport> m{new Vqpnic_fw_transport};
    uint64_t cycle = 0;
    std::deque<Req> rd, wr;          // DMA requests the port issued
    uint32_t beats_left = 0;         // bytes of the read being answered
    int chk_due = -1;                // cycles until the check's answer
    uint64_t chk_dev = 0;            // the device address it answers
    unsigned frs = 0;                // entries written (fr_valid && fr_ready)
    uint64_t fr_dma = 0;             // the last entry's device address
    // the host's GRANT write to drive each cycle while grant_hold > 0
    int grant_hold = 0;
    uint32_t grant_idx = 0, grant_pages = 0;

    Tb() { reset(); }

    void reset() {
        m->rst = 1;
        m->bus_valid = 0;
        m->bus_wstrb = 0;
        m->fr_ready = 1;
        m->tq_req_ready = 1;
        m->rd_req_ready = 1;
        m->wr_req_ready = 1;
        m->wr_dat_ready = 1;
        m->cqe_ready = 1;
        tick();
        m->rst = 0;
    }

    void tick() {
        // inputs: the check's answer, a read's beats, the host's grant
        m->res_valid = chk_due == 0;
        m->res_ok = 1;
        m->res_dev = chk_dev;
        if (chk_due >= 0) chk_due--;
        m->rd_rsp_valid = beats_left != 0;
        m->rd_rsp_data = 0x5a5a0000u + beats_left;
        m->rd_rsp_keep = 0xF;
        m->rd_rsp_last = beats_left != 0 && beats_left <= 4;
        m->gr_wr_en = grant_hold > 0;
        m->gr_wr_idx = grant_idx;
        m->gr_wr_pages = grant_pages;
        m->gr_wr_pd = 0;
        m->gr_wr_first = 0;
        m->gr_wr_window = 0;
        if (grant_hold > 0) grant_hold--;
        m->clk = 0;
        m->eval();
        // handshakes, as the edge takes them
        if (m->rd_req_valid && m->rd_req_ready) {
            rd.push_back({m->rd_req_addr, m->rd_req_len});
            beats_left = m->rd_req_len;
        }
        if (m->wr_req_valid && m->wr_req_ready) wr.push_back({m->wr_req_addr, m->wr_req_len});
        if (m->rd_rsp_valid && m->rd_rsp_ready) beats_left = beats_left > 4 ? beats_left - 4 : 0;
        if (m->chk_valid) chk_due = 1;
        if (m->fr_valid && m->fr_ready) {
            frs++;
            fr_dma = ((uint64_t)m->fr_entry[QPNIC_MR_CTX_DMA_HI_WORD] << 32) | m->fr_entry[QPNIC_MR_CTX_DMA_LO_WORD];
        }
        m->clk = 1;
        m->eval();
        cycle++;
    }

    // One bus access, as qpnic_soc makes it: held until bus_ready; returns
    // the read data and, in *waited, the cycles it took.
    uint32_t access(uint32_t addr, uint32_t wdata, bool write, unsigned *waited = nullptr) {
        m->bus_valid = 1;
        m->bus_addr = addr;
        m->bus_wstrb = write ? 0xF : 0;
        m->bus_wdata = wdata;
        unsigned n = 0;
        do {
            tick();
            CHECK(++n < 10000, "bus access at %02x never answered", addr);
        } while (!m->bus_ready);
        uint32_t d = m->bus_rdata;
        m->bus_valid = 0;
        m->bus_wstrb = 0;
        tick();
        if (waited) *waited = n;
        return d;
    }
    void wr_reg(uint32_t a, uint32_t d) { access(a, d, true); }
    uint32_t rd_reg(uint32_t a) { return access(a, 0, false); }

    void open_ring(unsigned w, uint64_t addr, uint32_t len) {
        wr_reg(QPNIC_TPREG_CHK_VA_LO, (uint32_t)addr);
        wr_reg(QPNIC_TPREG_CHK_VA_HI, (uint32_t)(addr >> 32));
        wr_reg(QPNIC_TPREG_CHK_LEN, len);
        wr_reg(QPNIC_TPREG_CHK_CMD, QPNIC_FIELD(QPNIC_TP_CHK_WIN, w) | QPNIC_FIELD(QPNIC_TP_CHK_RING, 1));
    }
    void open_checked(unsigned w, uint64_t dev, uint32_t len) {
        chk_dev = dev;
        wr_reg(QPNIC_TPREG_CHK_LEN, len);
        wr_reg(QPNIC_TPREG_CHK_CMD, QPNIC_FIELD(QPNIC_TP_CHK_WIN, w));
        CHECK(rd_reg(QPNIC_TPREG_RESULT) & QPNIC_FIELD(QPNIC_TP_RESULT_OK, 1), "window %u: the check did not pass", w);
    }
    // MOVE and wait for its DMA; returns RESULT
    uint32_t move(uint32_t len, unsigned src, unsigned dst) {
        wr_reg(QPNIC_TPREG_MOVE, QPNIC_FIELD(QPNIC_TP_MOVE_LEN, len) | QPNIC_FIELD(QPNIC_TP_MOVE_SRC, src) |
                                     QPNIC_FIELD(QPNIC_TP_MOVE_DST, dst));
        uint32_t r;
        unsigned n = 0;
        do {
            r = rd_reg(QPNIC_TPREG_RESULT);
            CHECK(++n < 1000, "MOVE %u from %u to %u: still busy", len, src, dst);
        } while (r & QPNIC_FIELD(QPNIC_TP_RESULT_DMA_BUSY, 1));
        return r;
    }
};

// RESULT's fields and the grant's pages, read as the firmware reads them
// (fw/tp_port.c, fw/transport.c)
uint32_t moved(uint32_t r) {
    const uint32_t w[QPNIC_TP_RESULT_WORDS] = {r};
    return QPNIC_FIELD_GET(w, QPNIC_TP_RESULT_MOVED);
}
bool refused(uint32_t r) {
    const uint32_t w[QPNIC_TP_RESULT_WORDS] = {r};
    return QPNIC_FIELD_GET(w, QPNIC_TP_RESULT_REFUSED);
}
uint32_t granted_pages(Tb &t, uint32_t idx) {
    t.wr_reg(QPNIC_TPREG_GRANT_SEL, idx);
    const uint32_t g[QPNIC_TP_GRANT_WORDS] = {t.rd_reg(QPNIC_TPREG_GRANT0), t.rd_reg(QPNIC_TPREG_GRANT1),
                                              t.rd_reg(QPNIC_TPREG_GRANT2)};
    return QPNIC_FIELD_GET(g, QPNIC_TP_GRANT_PAGES);
}

void settle(Tb &t) {
    for (int i = 0; i < 64; i++) t.tick();   // the windows' and grants' RAMs clear
}

void test_move_refusals() {
    Tb t;
    settle(t);
    t.open_ring(0, 0x100000000ull, 100);   // source: 100 bytes
    t.open_checked(3, 0x2000, 50);          // destination: 50 bytes
    struct { uint32_t len; unsigned src, dst; const char *why; } bad[] = {
        {0, 0, 3, "length 0"},
        {MAX_DMA + 1, 0, 3, "above MAX_DMA_BYTES"},
        {10, 0, 0, "one window twice"},
        {10, 0, WINDOWS, "a window that is not there"},
        {10, 0, 5, "a window not open"},
        {60, 0, 3, "past the destination's bytes left"},
        {10, 5, 3, "a source not open"},
    };
    for (auto &b : bad) {
        uint32_t r = t.move(b.len, b.src, b.dst);
        CHECK(refused(r) && moved(r) == 0, "MOVE %u from %u to %u (%s): refused %d, moved %u", b.len, b.src, b.dst,
              b.why, refused(r), moved(r));
    }
    t.open_ring(1, 0x3000, 40);
    uint32_t r = t.move(41, 1, 3);
    CHECK(refused(r), "MOVE past the source's bytes left (41 of 40) not refused");
    CHECK(t.rd.empty() && t.wr.empty(), "a refused MOVE issued %zu reads and %zu writes", t.rd.size(), t.wr.size());
    PASS("fw_transport_move_refuses_what_the_windows_do_not_allow");

    // allowed: 30 bytes, then 20 from where they ended, then nothing left
    r = t.move(30, 0, 3);
    CHECK(!refused(r) && moved(r) == 30, "MOVE 30: refused %d, moved %u", refused(r), moved(r));
    r = t.move(20, 0, 3);
    CHECK(!refused(r) && moved(r) == 20, "MOVE 20: refused %d, moved %u", refused(r), moved(r));
    CHECK(t.rd.size() == 2 && t.wr.size() == 2, "%zu reads and %zu writes for two MOVEs", t.rd.size(), t.wr.size());
    CHECK(t.rd[0].addr == 0x100000000ull && t.rd[0].len == 30 && t.wr[0].addr == 0x2000 && t.wr[0].len == 30,
          "first MOVE: read %llx+%u, write %llx+%u", (unsigned long long)t.rd[0].addr, t.rd[0].len,
          (unsigned long long)t.wr[0].addr, t.wr[0].len);
    CHECK(t.rd[1].addr == 0x100000000ull + 30 && t.wr[1].addr == 0x2000 + 30 && t.rd[1].len == 20,
          "second MOVE: read %llx+%u, write %llx+%u (not from where the first ended)",
          (unsigned long long)t.rd[1].addr, t.rd[1].len, (unsigned long long)t.wr[1].addr, t.wr[1].len);
    r = t.move(1, 0, 3);
    CHECK(refused(r), "MOVE into a window with no bytes left not refused");
    // a window past the page: cut at either side's boundary
    t.open_ring(2, 3 * PAGE - 16, 200);
    t.open_ring(4, 0x9000 - 40, 200);
    r = t.move(64, 2, 4);
    CHECK(!refused(r) && moved(r) == 16, "MOVE 64 from 16 bytes before a page's end: moved %u, want 16", moved(r));
    r = t.move(64, 2, 4);
    CHECK(!refused(r) && moved(r) == 24, "then 64 with the destination 24 before its page's end: moved %u", moved(r));
    CHECK(t.rd.back().addr == 3 * PAGE && t.wr.back().addr == 0x9000 - 24,
          "the cut MOVE read at %llx, wrote at %llx", (unsigned long long)t.rd.back().addr,
          (unsigned long long)t.wr.back().addr);
    // WIN_CLOSE: every window shut
    t.wr_reg(QPNIC_TPREG_WIN_CLOSE, 1);
    r = t.move(8, 2, 4);
    CHECK(refused(r), "MOVE after WIN_CLOSE not refused");
    PASS("fw_transport_move_moves_on_from_where_it_ended_cut_at_pages");
}

void test_waits_for_the_ram_after_reset() {
    Tb t;   // no settling: the windows' RAM is clearing
    t.wr_reg(QPNIC_TPREG_CHK_VA_LO, 0x7000);
    t.wr_reg(QPNIC_TPREG_CHK_LEN, 64);
    t.wr_reg(QPNIC_TPREG_CHK_CMD, QPNIC_FIELD(QPNIC_TP_CHK_WIN, 0) | QPNIC_FIELD(QPNIC_TP_CHK_RING, 1));
    CHECK(t.cycle >= 32, "a window opened %llu cycles after reset, before its RAM's 32 words were clear",
          (unsigned long long)t.cycle);
    t.open_ring(1, 0x4000, 64);
    uint32_t r = t.move(64, 1, 0);
    CHECK(!refused(r) && t.wr.size() == 1 && t.wr[0].addr == 0x7000 && t.rd[0].addr == 0x4000,
          "a MOVE into the window opened during the clear: refused %d, wrote at %llx", refused(r),
          t.wr.empty() ? 0ull : (unsigned long long)t.wr[0].addr);
    PASS("fw_transport_windows_wait_for_their_ram_after_reset");
}

void test_fr_from_window() {
    Tb t;
    settle(t);
    t.open_checked(0, 0x123456789a00ull, 4096);
    t.wr_reg(QPNIC_TPREG_FR_DMA_LO, 0x1111);
    t.wr_reg(QPNIC_TPREG_FR_DMA_HI, 0x2222);
    t.wr_reg(QPNIC_TPREG_FR_CMD, QPNIC_FIELD(QPNIC_TP_FR_IDX, 3) | QPNIC_FIELD(QPNIC_TP_FR_FROM_WIN, 1));
    CHECK(t.frs == 1 && t.fr_dma == 0x123456789a00ull, "FR_CMD from window 0: %u entries, device address %llx",
          t.frs, (unsigned long long)t.fr_dma);
    t.wr_reg(QPNIC_TPREG_FR_DMA_LO, 0x3000);
    t.wr_reg(QPNIC_TPREG_FR_DMA_HI, 0x4);
    t.wr_reg(QPNIC_TPREG_FR_CMD, QPNIC_FIELD(QPNIC_TP_FR_IDX, 4));
    CHECK(t.frs == 2 && t.fr_dma == 0x400003000ull, "FR_CMD from FR_DMA: device address %llx, want 400003000",
          (unsigned long long)t.fr_dma);
    PASS("fw_transport_fr_from_window_takes_window_0s_address");
}

void test_grant_read_waits_for_a_write() {
    Tb t;
    settle(t);
    const uint32_t idx = 5;
    t.grant_idx = idx;
    t.grant_pages = 0x111;
    t.grant_hold = 1;
    t.tick();
    // GRANT_SEL of the same entry while the host writes it again, for 6
    // cycles from the one the access is offered in
    t.grant_pages = 0x2a5;
    t.grant_hold = 6;
    unsigned waited = 0;
    t.access(QPNIC_TPREG_GRANT_SEL, idx, true, &waited);
    CHECK(waited >= 6, "GRANT_SEL answered after %u cycles, while the host wrote its entry for 6", waited);
    const uint32_t g[QPNIC_TP_GRANT_WORDS] = {t.rd_reg(QPNIC_TPREG_GRANT0), t.rd_reg(QPNIC_TPREG_GRANT1),
                                              t.rd_reg(QPNIC_TPREG_GRANT2)};
    uint32_t pages = QPNIC_FIELD_GET(g, QPNIC_TP_GRANT_PAGES);
    CHECK(pages == 0x2a5, "GRANT1 pages %05x after a GRANT_SEL that met the host's write, want 002a5", pages);
    // and the entry beside it, untouched
    pages = granted_pages(t, idx + 1);
    CHECK(pages == 0, "entry %u, never granted, reads pages %05x", idx + 1, pages);
    PASS("fw_transport_grant_sel_waits_for_the_hosts_write_of_its_entry");
}

} // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    test_move_refusals();
    test_waits_for_the_ram_after_reset();
    test_fr_from_window();
    test_grant_read_waits_for_a_write();
    return 0;
}
