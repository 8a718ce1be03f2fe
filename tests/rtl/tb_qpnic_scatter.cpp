// tb_qpnic_scatter: randomized unit test of the scatter. Each trial draws a
// segment list (some empty, odd addresses and lengths), a byte count to
// write, a stream longer than that with random keep patterns (null lanes,
// null beats), random stalls on every handshake, and checks:
//   - memory after the trial equals memory before, except the segments'
//     first bytes, which hold the stream's first `total` bytes in order
//     (so nothing lands beyond a segment or past `total`);
//   - every DMA write has 1..MAX_DMA_BYTES bytes, lies inside one segment
//     and inside one FREG_PAGE_BYTES page (half the trials start just
//     below a page boundary), and carries exactly its length in kept bytes
//     with last on its end;
//   - the whole stream is consumed, and done pulses once, after its last.
// Usage: tb_qpnic_scatter [seed] [trials]; the seed is printed.
#include "Vqpnic_scatter.h"
#include "verilated.h"
#include "tb_util.h"
#include "tb_bits.h"
#include "../../host/src/gen/qpnic_hw.h"
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

static const int MAX_SGE = QPNIC_MAX_SGE;
static const uint32_t MEM = 1 << 16;

struct Beat { uint32_t data; unsigned keep; bool last; };

static Vqpnic_scatter *top;
static std::mt19937 rng;
static unsigned rnd(unsigned n) { return n ? rng() % n : 0; }

static void trial(int t) {
    // --- the job ---
    uint64_t addr[MAX_SGE] = {0};
    uint32_t len[MAX_SGE] = {0};
    uint32_t sum = 0;
    int nseg = 1 + rnd(MAX_SGE);
    uint32_t cursor = rnd(2) ? 64 + rnd(64) : QPNIC_FREG_PAGE_BYTES - 1 - rnd(600);
    for (int i = 0; i < nseg; i++) {
        uint32_t l = rnd(5) == 0 ? 0 : 1 + rnd(rnd(3) == 0 ? 1500 : 40);
        addr[i] = cursor;
        len[i] = l;
        cursor += l + 8 + rnd(32);  // a gap after each segment
        sum += l;
    }
    uint32_t total = rnd(4) == 0 ? sum : rnd(sum + 1);
    uint32_t extra = rnd(3) == 0 ? 0 : rnd(100);
    if (total + extra == 0) extra = 1 + rnd(7);  // the stream has a beat

    // --- the stream: total + extra bytes, random keep patterns ---
    std::vector<uint8_t> bytes(total + extra);
    for (auto &b : bytes) b = (uint8_t)rng();
    std::vector<Beat> beats;
    size_t pos = 0;
    while (pos < bytes.size()) {
        Beat b{(uint32_t)rng(), 0, false};
        unsigned mode = rnd(4);
        for (int lane = 0; lane < 4 && pos < bytes.size(); lane++) {
            bool keep = mode == 0 ? true : rnd(3) != 0;
            if (!keep) continue;
            b.keep |= 1u << lane;
            b.data = (b.data & ~(0xFFu << (8 * lane))) | ((uint32_t)bytes[pos++] << (8 * lane));
        }
        beats.push_back(b);
    }
    beats.back().last = true;

    // --- memory ---
    std::vector<uint8_t> mem(MEM), want(MEM);
    for (auto &b : mem) b = (uint8_t)rng();
    want = mem;
    {
        uint32_t left = total;
        size_t p = 0;
        for (int i = 0; i < MAX_SGE && left; i++) {
            uint32_t n = len[i] < left ? len[i] : left;
            std::memcpy(&want[addr[i]], &bytes[p], n);
            p += n;
            left -= n;
        }
    }

    // --- start ---
    for (int i = 0; i < MAX_SGE; i++) {
        setb(top->start_addr, i * 64, 64, addr[i]);
        setb(top->start_len, i * 32, 32, len[i]);
    }
    top->start_total = total;
    top->start_valid = 1;
    top->in_valid = 0;
    top->wr_req_ready = 0;
    top->wr_dat_ready = 0;
    top->clk = 0;
    top->eval();
    CHECK(top->start_ready, "trial %d: scatter not ready for a job", t);
    tb_tick(top);
    top->start_valid = 0;

    size_t bi = 0;
    bool in_write = false, done_seen = false;
    uint64_t w_addr = 0;
    uint32_t w_len = 0, w_got = 0;
    int writes = 0;
    for (int cyc = 0; cyc < 200000 && !done_seen; cyc++) {
        top->in_valid = bi < beats.size() && rnd(4) != 0;
        if (bi < beats.size()) {
            top->in_data = beats[bi].data;
            top->in_keep = beats[bi].keep;
            top->in_last = beats[bi].last;
        }
        top->wr_req_ready = rnd(3) != 0;
        top->wr_dat_ready = rnd(4) != 0;
        top->clk = 0;
        top->eval();
        if (top->done) {
            CHECK(bi == beats.size(), "trial %d: done with %zu of %zu beats taken", t, bi, beats.size());
            CHECK(!in_write, "trial %d: done inside a write", t);
            done_seen = true;
        }
        if (top->wr_req_valid && top->wr_req_ready) {
            CHECK(!in_write, "trial %d: write request inside a write", t);
            w_addr = top->wr_req_addr;
            w_len = top->wr_req_len;
            CHECK(w_len >= 1 && w_len <= QPNIC_MAX_DMA_BYTES, "trial %d: write len %u", t, w_len);
            bool inside = false;
            for (int i = 0; i < MAX_SGE; i++)
                if (len[i] && w_addr >= addr[i] && w_addr + w_len <= addr[i] + len[i]) inside = true;
            CHECK(inside, "trial %d: write 0x%llx+%u not inside one segment", t,
                  (unsigned long long)w_addr, w_len);
            CHECK(w_addr / QPNIC_FREG_PAGE_BYTES == (w_addr + w_len - 1) / QPNIC_FREG_PAGE_BYTES,
                  "trial %d: write 0x%llx+%u crosses a %u-byte page boundary", t,
                  (unsigned long long)w_addr, w_len, QPNIC_FREG_PAGE_BYTES);
            in_write = true;
            w_got = 0;
            writes++;
        }
        if (top->wr_dat_valid && top->wr_dat_ready) {
            CHECK(in_write, "trial %d: write data without a request", t);
            CHECK((top->wr_dat_keep & ~beats[bi].keep) == 0,
                  "trial %d: write keep 0x%x has lanes the stream beat (keep 0x%x) lacks", t,
                  top->wr_dat_keep, beats[bi].keep);
            for (int lane = 0; lane < 4; lane++)
                if (top->wr_dat_keep >> lane & 1) {
                    CHECK(w_got < w_len, "trial %d: more kept bytes than the write's %u", t, w_len);
                    mem[w_addr + w_got++] = (uint8_t)(top->wr_dat_data >> (8 * lane));
                }
            if (top->wr_dat_last) {
                CHECK(w_got == w_len, "trial %d: write of %u ended after %u bytes", t, w_len, w_got);
                in_write = false;
            } else
                CHECK(w_got < w_len, "trial %d: write full but no last", t);
        }
        if (top->in_valid && top->in_ready) bi++;
        top->clk = 1;
        top->eval();
    }
    CHECK(done_seen, "trial %d: no done (beats taken %zu of %zu, total %u)", t, bi, beats.size(), total);
    for (uint32_t a = 0; a < MEM; a++)
        CHECK(mem[a] == want[a], "trial %d: byte 0x%x is 0x%02x, want 0x%02x (total %u, segs %u/%u/%u)",
              t, a, mem[a], want[a], total, len[0], len[1], len[2]);
    // a few idle cycles: nothing may move
    for (int i = 0; i < 3; i++) {
        top->in_valid = 0;
        top->clk = 0;
        top->eval();
        CHECK(!top->wr_req_valid && !top->wr_dat_valid && !top->done, "trial %d: activity after done", t);
        CHECK(top->start_ready && top->idle, "trial %d: not idle after done", t);
        top->clk = 1;
        top->eval();
    }
    (void)writes;
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], nullptr, 0) : (unsigned)time(nullptr);
    int trials = argc > 2 ? atoi(argv[2]) : 400;
    std::printf("tb_qpnic_scatter: seed %u, %d trials\n", seed, trials);
    rng.seed(seed);
    top = new Vqpnic_scatter;
    top->rst = 1;
    for (int i = 0; i < 3; i++) tb_tick(top);
    top->rst = 0;
    for (int t = 0; t < trials; t++) trial(t);
    PASS("scatter_random_segments_and_keep");
    delete top;
    return 0;
}
