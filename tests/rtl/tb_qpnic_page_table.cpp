// tb_qpnic_page_table: unit test of rtl/qpnic_page_table.v, the translation
// of one DMA request channel through the page table (default build:
// NUM_PT entries).
//
// A page-table address (bit PT_ADDR_BIT set) leaves the cycle after it
// entered, as its entry's page frame and its own low 12 bits; any other
// address leaves unchanged, in the cycle it comes while nothing is held
// and behind a held request otherwise (order kept); the stage holds a
// request while the carrier is not ready (translation and length stable),
// passes one request a cycle when it is, and ignores entry writes at or
// above NUM_PT.
#include <cinttypes>
#include <memory>

#include "Vqpnic_page_table.h"
#include "qpnic_hw.h"
#include "verilated.h"
#include "tb_util.h"

namespace {

const uint64_t PT = 1ull << QPNIC_PT_ADDR_BIT;

struct Tb {
    std::unique_ptr<Vqpnic_page_table> m{new Vqpnic_page_table};
    void reset() {
        m->pt_wr_en = 0;
        m->in_valid = 0;
        m->out_ready = 1;
        m->rst = 1;
        tb_tick(m.get());
        m->rst = 0;
        tb_tick(m.get());
    }
    void write(uint32_t idx, uint32_t pfn) {
        m->pt_wr_en = 1;
        m->pt_wr_idx = idx;
        m->pt_wr_pfn = pfn;
        tb_tick(m.get());
        m->pt_wr_en = 0;
    }
    // The two halves of a cycle: inputs evaluated with the clock low, then
    // the edge.
    void low() { m->clk = 0; m->eval(); }
    void high() { m->clk = 1; m->eval(); }
    void offer(uint64_t addr, uint16_t len) {
        m->in_valid = 1;
        m->in_addr = addr;
        m->in_len = len;
    }
    // Nothing at the output and nothing held.
    void expect_empty(const char *what) {
        low();
        CHECK(!m->out_valid && m->idle, "%s", what);
    }
    // Offer one request until the stage takes it.
    void send(uint64_t addr, uint16_t len) {
        offer(addr, len);
        for (int i = 0;; i++) {
            low();
            bool took = m->in_ready;
            high();
            if (took) break;
            CHECK(i < 10, "request 0x%016" PRIx64 " never taken", addr);
        }
        m->in_valid = 0;
    }
    // The request at the output (the carrier takes it this cycle).
    void expect(uint64_t addr, uint16_t len, const char *what) {
        low();
        CHECK(m->out_valid, "%s: no request at the output", what);
        CHECK(m->out_addr == addr && m->out_len == len,
              "%s: out addr 0x%016" PRIx64 " len %u, expected 0x%016" PRIx64 " len %u", what,
              (uint64_t)m->out_addr, m->out_len, addr, len);
    }
};

void test_translate(Tb &t) {
    t.reset();
    t.write(5, 0x12345);
    t.write(6, 0x00777);
    t.send(PT | (5ull << 12) | 0x0ABC, 64);
    t.expect((0x12345ull << 12) | 0x0ABC, 64, "entry 5");
    tb_tick(t.m.get());
    t.send(PT | (6ull << 12) | 0x0000, 512);
    t.expect(0x00777ull << 12, 512, "entry 6");
    tb_tick(t.m.get());
    t.expect_empty("a request left twice, or the stage is not idle");
    // a plain address with nothing held: through in the same cycle, the
    // carrier's ready passed back
    t.offer(0x0000000012345FC0ull, 16);
    t.expect(0x0000000012345FC0ull, 16, "a plain device address, same cycle");
    CHECK(t.m->in_ready, "a plain address not taken while the carrier is ready");
    t.m->out_ready = 0;
    t.m->eval();
    CHECK(t.m->out_valid && !t.m->in_ready, "a plain address taken while the carrier is not ready");
    t.m->out_ready = 1;
    t.high();
    t.m->in_valid = 0;
    t.expect_empty("a plain request was held after it passed");
    PASS("page_table_translates_entries_and_passes_plain_addresses");
}

// The carrier not ready: the held request (its translation too) stays,
// the next is refused until it leaves; then one a cycle.
void test_backpressure(Tb &t) {
    t.reset();
    t.write(1, 0xAAAAA);
    t.write(2, 0xBBBBB);
    t.m->out_ready = 0;
    t.send(PT | (1ull << 12) | 4, 8);
    for (int i = 0; i < 4; i++) {
        t.expect((0xAAAAAull << 12) | 4, 8, "held while not ready");
        t.offer(PT | (2ull << 12), 4);
        t.m->eval();
        CHECK(!t.m->in_ready, "cycle %d: a second request taken over a held one", i);
        t.high();
    }
    t.m->out_ready = 1;
    t.expect((0xAAAAAull << 12) | 4, 8, "leaving");
    CHECK(t.m->in_ready, "the next request not taken as the held one leaves");
    t.high();
    t.m->in_valid = 0;
    t.expect(0xBBBBBull << 12, 4, "the next, one cycle later");
    PASS("page_table_holds_under_backpressure");
}

// A plain request right behind a page-table one waits for it: the order of
// a channel's requests is kept.
void test_order(Tb &t) {
    t.reset();
    t.write(7, 0x3C3C3);
    t.send(PT | (7ull << 12) | 0x20, 32);
    t.offer(0x40000, 8);
    t.expect((0x3C3C3ull << 12) | 0x20, 32, "the page-table request first");
    CHECK(t.m->in_ready, "the plain request not taken behind the leaving one");
    t.high();
    t.m->in_valid = 0;
    t.expect(0x40000, 8, "the plain request second");
    tb_tick(t.m.get());
    t.expect_empty("a request left twice");
    PASS("page_table_keeps_the_order_of_requests");
}

void test_out_of_range_write(Tb &t) {
    t.reset();
    t.write(3, 0x11111);
    t.write(QPNIC_NUM_PT + 3, 0x22222); // same low bits, beyond the table
    t.send(PT | (3ull << 12) | 0x10, 4);
    t.expect((0x11111ull << 12) | 0x10, 4, "after a write beyond NUM_PT");
    PASS("page_table_ignores_writes_beyond_its_entries");
}

} // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    test_translate(t);
    test_backpressure(t);
    test_order(t);
    test_out_of_range_write(t);
    return 0;
}
