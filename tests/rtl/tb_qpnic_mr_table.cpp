// tb_qpnic_mr_table: unit test of the token (MR) table: entries written and
// invalidated through the update port, checks (token, bounds, rights,
// translation) through the check ports against hand-picked accept and refuse
// cases, each at the exact edge where it flips; then what the RAM and the
// pipeline add: the table is empty and busy while it clears after reset, an
// update beyond NUM_MR is ignored, each answer comes exactly CHECK_LATENCY
// cycles after its request, and both ports answer a request every cycle, in
// order, against entries changing under them.
// Not a test of any client's use of it (tb_qpnic_datapath, the e2e tests).
#include "Vqpnic_mr_table.h"
#include "verilated.h"
#include "tb_util.h"
#include "tb_bits.h"
#include "../../host/src/gen/qpnic_hw.h"
#include "qpnic_internal.h"
#include <deque>

static const int NUM_MR = 16, PORTS = 2, CHECK_LATENCY = 3;
static Vqpnic_mr_table *top;

static void tick() { tb_tick(top); }

static void idle_ports() {
    top->chk_valid = 0;
    top->upd_valid = 0;
    top->fr_valid = 0;
}

// Clock until ready() is seen high at a rising edge (the request taken).
template <class Ready> static void until_taken(Ready ready, const char *what, int i) {
    for (int w = 0;; w++) {
        top->clk = 0;
        top->eval();
        bool acc = ready();
        top->clk = 1;
        top->eval();
        if (acc) break;
        CHECK(w < 1000, "%s of entry %d never accepted", what, i);
    }
}

// One update through the update port; waits for upd_ready.
static void update(int i, bool write, uint64_t va = 0, uint32_t len = 0, uint64_t dma = 0,
                   uint32_t lkey = 0, uint32_t rkey = 0, unsigned access = 0) {
    top->upd_valid = 1;
    top->upd_idx = i;
    top->upd_write = write;
    top->upd_va = va;
    top->upd_len = len;
    top->upd_dma = dma;
    top->upd_lkey = lkey;
    top->upd_rkey = rkey;
    top->upd_access = access;
    until_taken([] { return top->upd_ready != 0; }, "update", i);
    top->upd_valid = 0;
}
static void set_mr(int i, bool valid, uint64_t va, uint32_t len, uint64_t dma,
                   uint32_t lkey, uint32_t rkey, unsigned access) {
    if (valid) update(i, true, va, len, dma, lkey, rkey, access);
    else update(i, false);
}

// One whole entry through the fast-register port (as the requester writes a
// FAST_REG's or a BIND's); waits for fr_ready.
#define MR_FIELD(f) (int)(QPNIC_MR_CTX_##f##_WORD * 32 + QPNIC_MR_CTX_##f##_SHIFT), (int)QPNIC_MR_CTX_##f##_WIDTH
static void fast_register(int i, uint64_t va, uint32_t len, uint64_t dma, uint32_t lkey, uint32_t rkey,
                          unsigned access, bool window) {
    for (int w = 0; w < (int)QPNIC_MR_CTX_WORDS; w++) setb(top->fr_entry, w * 32, 32, 0);
    setb(top->fr_entry, MR_FIELD(VA_LO), va & 0xFFFFFFFFu);
    setb(top->fr_entry, MR_FIELD(VA_HI), va >> 32);
    setb(top->fr_entry, MR_FIELD(LEN), len);
    setb(top->fr_entry, MR_FIELD(DMA_LO), dma & 0xFFFFFFFFu);
    setb(top->fr_entry, MR_FIELD(DMA_HI), dma >> 32);
    setb(top->fr_entry, MR_FIELD(LKEY), lkey);
    setb(top->fr_entry, MR_FIELD(RKEY), rkey);
    setb(top->fr_entry, MR_FIELD(ACCESS), access);
    setb(top->fr_entry, MR_FIELD(VALID), 1);
    setb(top->fr_entry, MR_FIELD(WINDOW), window);
    top->fr_valid = 1;
    top->fr_idx = i;
    until_taken([] { return top->fr_ready != 0; }, "fast-register", i);
    top->fr_valid = 0;
}

static void drive_check(int p, uint32_t token, uint64_t va, uint32_t len, bool remote, unsigned need) {
    setb(top->chk_valid, p, 1, 1);
    setb(top->chk_token, p * 32, 32, token);
    setb(top->chk_va, p * 64, 64, va);
    setb(top->chk_len, p * 32, 32, len);
    setb(top->chk_remote, p, 1, remote);
    setb(top->chk_need, p * 3, 3, need);
}

// Ask once on port p; returns ok, and the translated address through *dev.
// The answer must come exactly CHECK_LATENCY cycles after the request.
static bool ask(uint32_t token, uint64_t va, uint32_t len, bool remote,
                unsigned need, uint64_t *dev = nullptr, int p = 0) {
    drive_check(p, token, va, len, remote, need);
    tick();
    top->chk_valid = 0;
    for (int c = 1; c < CHECK_LATENCY; c++) {
        top->eval();
        CHECK(!getb(top->res_valid, p, 1), "answer after %d cycles, want %d", c, CHECK_LATENCY);
        tick();
    }
    top->eval();
    CHECK(getb(top->res_valid, p, 1), "no answer %d cycles after the request", CHECK_LATENCY);
    if (dev) *dev = getb(top->res_dev, p * 64, 64);
    bool ok = getb(top->res_ok, p, 1);
    tick();
    return ok;
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    top = new Vqpnic_mr_table;
    const unsigned LW = QPNIC_MR_ACCESS_LOCAL_WRITE, RR = QPNIC_MR_ACCESS_REMOTE_READ,
                   RW = QPNIC_MR_ACCESS_REMOTE_WRITE;
    idle_ports();
    top->rst = 1;
    for (int i = 0; i < 3; i++) tick();
    top->rst = 0;

    // ---- clearing after reset: busy for NUM_MR cycles, every entry empty ----
    int busy = 0;
    for (;;) {
        top->eval();
        if (top->upd_ready) break;
        CHECK(++busy <= NUM_MR + 2, "still clearing after %d cycles", busy);
        tick();
    }
    CHECK(busy >= NUM_MR - 1, "cleared %d entries in %d cycles", NUM_MR, busy);
    PASS("mr_table_clears_after_reset");

    const uint64_t VA = 0x00007f0012340000ull, DMA = 0x80000ull;
    const uint32_t LEN = 0x1000, LKEY = 0xAB000003u, RKEY = 0xCD000003u;
    CHECK(!ask(LKEY, VA, 16, false, 0), "an entry never written accepted");
    set_mr(3, true, VA, LEN, DMA, LKEY, RKEY, LW | RR);
    // entry 0 carries a key whose low bits (0x20) are out of the table
    set_mr(0, true, VA, LEN, DMA, 0x20, 0x20, LW | RR | RW);
    // entry 5 ends at the top of the 64-bit space
    const uint64_t TOP_VA = 0xFFFFFFFFFFFFF000ull;
    set_mr(5, true, TOP_VA, 0x1000, 0x90000, 0x11000005u, 0x22000005u, LW | RR | RW);

    uint64_t dev = 0;
    CHECK(ask(LKEY, VA, LEN, false, 0, &dev), "whole region with the lkey refused");
    CHECK(dev == DMA, "translation of the first byte: got 0x%llx want 0x%llx",
          (unsigned long long)dev, (unsigned long long)DMA);
    PASS("mr_accept_whole_region");

    CHECK(ask(LKEY, VA + 0x123, 16, false, LW, &dev), "inner range with LOCAL_WRITE refused");
    CHECK(dev == DMA + 0x123, "translation va+0x123: got 0x%llx", (unsigned long long)dev);
    PASS("mr_translation");

    CHECK(!ask(LKEY ^ 0x01000000u, VA, 16, false, 0), "wrong tag accepted");
    CHECK(!ask(RKEY, VA, 16, false, 0), "rkey accepted as a local token");
    CHECK(!ask(LKEY, VA, 16, true, 0), "lkey accepted as a remote token");
    CHECK(ask(RKEY, VA, 16, true, RR), "rkey with REMOTE_READ refused");
    PASS("mr_wrong_token");

    CHECK(!ask(0x20, VA, 16, false, 0), "token index 0x20 >= NUM_MR accepted (aliasing entry 0?)");
    set_mr(3, false, VA, LEN, DMA, LKEY, RKEY, LW | RR);
    CHECK(!ask(LKEY, VA, 16, false, 0), "invalid entry accepted");
    set_mr(3, true, VA, LEN, DMA, LKEY, RKEY, LW | RR);
    CHECK(ask(LKEY, VA, 16, false, 0), "entry made valid again refused");
    // an update beyond the table is ignored, not folded onto an entry
    update(NUM_MR + 3, false);
    update(200, false);
    CHECK(ask(LKEY, VA, 16, false, 0), "update of entry %d or 200 invalidated entry 3", NUM_MR + 3);
    PASS("mr_invalid_entry");

    CHECK(!ask(LKEY, VA - 1, 1, false, 0), "byte before the region accepted");
    CHECK(!ask(LKEY, VA - 1, 2, false, 0), "range starting one byte early accepted");
    CHECK(ask(LKEY, VA + LEN - 1, 1, false, 0), "last byte refused");
    CHECK(!ask(LKEY, VA + LEN - 1, 2, false, 0), "range one byte past the end accepted");
    CHECK(!ask(LKEY, VA, LEN + 1, false, 0), "length one above the region accepted");
    CHECK(!ask(LKEY, VA + LEN, 1, false, 0), "byte after the region accepted");
    PASS("mr_bounds_by_one_byte");

    CHECK(ask(0x11000005u, TOP_VA, 0x1000, false, 0, &dev), "region at the top of VA space refused");
    CHECK(dev == 0x90000, "top region translation: got 0x%llx", (unsigned long long)dev);
    CHECK(!ask(0x11000005u, 0xFFFFFFFFFFFFFFFFull, 2, false, 0), "range wrapping past 2^64 accepted");
    CHECK(!ask(0x11000005u, TOP_VA + 0x10, 0xFFFFFFF0u, false, 0), "huge length wrapping accepted");
    PASS("mr_bounds_no_overflow");

    CHECK(!ask(LKEY, VA, 16, false, RW), "REMOTE_WRITE needed but not granted: accepted");
    CHECK(!ask(RKEY, VA, 16, true, RW), "remote write without REMOTE_WRITE accepted");
    set_mr(3, true, VA, LEN, DMA, LKEY, RKEY, RR);
    CHECK(!ask(LKEY, VA, 16, false, LW), "LOCAL_WRITE needed but not granted: accepted");
    CHECK(ask(LKEY, VA, 16, false, 0), "local read of a region without LOCAL_WRITE refused");
    CHECK(!ask(RKEY, VA, 16, true, RR | RW), "two rights asked, one granted: accepted");
    PASS("mr_missing_right");

    // ---- a memory window (mr_ctx window): remote checks only ---------------
    // A local check must fail whatever token it presents: here the entry's
    // lkey field holds a token (the requester writes 0 there), so only the
    // window bit refuses it. Its rkey works remotely, with its rights.
    const uint32_t WKEY = 0x5A000006u, WLKEY = 0x99000006u;
    fast_register(6, VA + 0x100, 0x200, DMA + 0x100, WLKEY, WKEY, RR | RW, true);
    CHECK(ask(WKEY, VA + 0x100, 0x200, true, RR | RW, &dev), "the window's rkey refused remotely");
    CHECK(dev == DMA + 0x100, "window translation: got 0x%llx", (unsigned long long)dev);
    CHECK(!ask(WLKEY, VA + 0x100, 16, false, 0), "a window's entry accepted a local check");
    CHECK(!ask(WKEY, VA + 0x100, 16, false, 0), "the window's rkey accepted for a local check");
    CHECK(!ask(WKEY, VA + 0xFF, 16, true, RR), "a byte before the window accepted");
    CHECK(!ask(WKEY, VA + 0x2F1, 16, true, RR), "a range past the window's end accepted");
    // the same entry written as a region answers locally (the bit did it)
    fast_register(6, VA + 0x100, 0x200, DMA + 0x100, WLKEY, WKEY, RR, false);
    CHECK(ask(WLKEY, VA + 0x100, 16, false, 0), "a fast-registered region refused locally");
    PASS("mr_window_remote_only");

    // ---- both ports, a request every cycle, answers in order ---------------
    // Entry e (1..8) covers [e * 0x10000, +0x1000) at device e * 0x100000.
    for (int e = 1; e <= 8; e++)
        set_mr(e, true, e * 0x10000ull, 0x1000, e * 0x100000ull, 0xA0000000u | e, 0xB0000000u | e, LW);
    struct Want { bool ok; uint64_t dev; };
    std::deque<Want> want[PORTS];
    unsigned seed = 12345;
    auto rnd = [&](unsigned n) { seed = seed * 1103515245u + 12345u; return (seed >> 8) % n; };
    int answered[PORTS] = {0, 0};
    const int N = 400;
    for (int c = 0; c < N + CHECK_LATENCY + 1; c++) {
        top->chk_valid = 0;
        if (c < N) {
            for (int p = 0; p < PORTS; p++) {
                int e = 1 + (int)rnd(8);
                uint32_t off = rnd(0x1100);   // sometimes past the end
                uint32_t len = 1 + rnd(16);
                bool ok = off + len <= 0x1000;
                drive_check(p, 0xA0000000u | e, e * 0x10000ull + off, len, false, LW);
                want[p].push_back({ok, e * 0x100000ull + off});
            }
        }
        tick();
        top->eval();
        for (int p = 0; p < PORTS; p++) {
            if (!getb(top->res_valid, p, 1)) continue;
            CHECK(!want[p].empty(), "port %d answered a check nobody asked", p);
            Want w = want[p].front();
            want[p].pop_front();
            bool ok = getb(top->res_ok, p, 1);
            CHECK(ok == w.ok, "port %d answer %d: ok %d, want %d", p, answered[p], ok, w.ok);
            if (ok)
                CHECK(getb(top->res_dev, p * 64, 64) == w.dev, "port %d answer %d: dev 0x%llx want 0x%llx",
                      p, answered[p], (unsigned long long)getb(top->res_dev, p * 64, 64),
                      (unsigned long long)w.dev);
            answered[p]++;
        }
    }
    CHECK(answered[0] == N && answered[1] == N, "answers %d and %d of %d", answered[0], answered[1], N);
    PASS("mr_table_two_ports_back_to_back");

    // An update lands between two checks of the same entry: the one before
    // sees the old entry, the one after the new.
    drive_check(0, 0xA0000002u, 2 * 0x10000ull, 8, false, LW);
    tick();
    top->chk_valid = 0;
    update(2, false);
    drive_check(0, 0xA0000002u, 2 * 0x10000ull, 8, false, LW);
    tick();
    top->chk_valid = 0;
    int seen = 0;
    bool first = false, second = true;
    for (int c = 0; c < 8 && seen < 2; c++) {
        top->eval();
        if (getb(top->res_valid, 0, 1)) {
            (seen == 0 ? first : second) = getb(top->res_ok, 0, 1);
            seen++;
        }
        tick();
    }
    CHECK(seen == 2 && first && !second, "check around an invalidate: %d answers, before %d after %d",
          seen, first, second);
    PASS("mr_table_update_between_checks");

    delete top;
    return 0;
}
