// tb_qpnic_mr_check: unit test of the MR check (token, bounds, rights,
// translation) against hand-picked accept and refuse cases, each at the
// exact edge where it flips. Not a test of any client's use of it.
#include "Vqpnic_mr_check.h"
#include "verilated.h"
#include "tb_util.h"
#include "tb_bits.h"
#include "../../host/src/gen/qpnic_hw.h"

static const int NUM_MR = 16;
static Vqpnic_mr_check *top;

static void set_mr(int i, bool valid, uint64_t va, uint32_t len, uint64_t dma,
                   uint32_t lkey, uint32_t rkey, unsigned access) {
    setb(top->mr_valid, i, 1, valid);
    setb(top->mr_va, i * 64, 64, va);
    setb(top->mr_len, i * 32, 32, len);
    setb(top->mr_dma, i * 64, 64, dma);
    setb(top->mr_lkey, i * 32, 32, lkey);
    setb(top->mr_rkey, i * 32, 32, rkey);
    setb(top->mr_access, i * 3, 3, access);
}

// Ask once; returns ok, and the translated address through *dev.
static bool ask(uint32_t token, uint64_t va, uint32_t len, bool remote,
                unsigned need, uint64_t *dev = nullptr) {
    top->token = token;
    top->va = va;
    top->len = len;
    top->remote = remote;
    top->need = need;
    top->eval();
    if (dev) *dev = top->dev_addr;
    return top->ok;
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    top = new Vqpnic_mr_check;
    const unsigned LW = QPNIC_MR_ACCESS_LOCAL_WRITE, RR = QPNIC_MR_ACCESS_REMOTE_READ,
                   RW = QPNIC_MR_ACCESS_REMOTE_WRITE;
    for (int i = 0; i < NUM_MR; i++) set_mr(i, false, 0, 0, 0, 0, 0, 0);

    const uint64_t VA = 0x00007f0012340000ull, DMA = 0x80000ull;
    const uint32_t LEN = 0x1000, LKEY = 0xAB000003u, RKEY = 0xCD000003u;
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

    delete top;
    return 0;
}
