// tb_qpnic_dma_rd_arb: unit test of rtl/qpnic_dma_rd_arb.v with N = 3.
//
// Three read masters issue requests of random length (1..512 bytes) and
// sink the response with random readiness; the channel side answers each
// request with ceil(len/4) beats whose data names the request, with random
// gaps (seed printed, TB_SEED overrides). Checks: only the owner ever sees
// rsp_valid, each master receives exactly its own beats in order with last
// on the final one, no second request is granted before the previous
// response's last beat, grants rotate round robin while all masters wait,
// and the byte counter output sums the request lengths.
// Not for: the write arbiter (tb_qpnic_dma_wr_arb).
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

#include "Vqpnic_dma_rd_arb.h"
#include "verilated.h"
#include "tb_util.h"

namespace {

constexpr int N = 3;

struct Txn {
    uint64_t addr;
    unsigned len;
};

struct Master {
    std::deque<Txn> todo;
    bool req_done = false;
    unsigned beat = 0;
    unsigned done = 0;
};

unsigned beats_of(unsigned len) { return (len + 3) / 4; }

uint32_t beat_word(uint64_t addr, unsigned beat) {
    return ((uint32_t)(addr >> 32) << 28) | (((uint32_t)addr & 0xFFF) << 16) | beat;
}

struct Tb {
    std::unique_ptr<Vqpnic_dma_rd_arb> m{new Vqpnic_dma_rd_arb};
    Master ms[N];
    unsigned seed = 1;
    // channel side: the request being answered
    bool busy = false;
    Txn cur{};
    unsigned cur_beat = 0;
    bool rsp_up = false;
    std::vector<int> grants;
    uint64_t counted = 0, requested = 0;
    unsigned finished = 0;

    unsigned rnd() { return (unsigned)rand_r(&seed); }

    void drive() {
        unsigned rv = 0;
        uint64_t lens = 0;
        for (int k = 0; k < N; k++) {
            Master &ma = ms[k];
            uint64_t a = ma.todo.empty() ? 0 : ma.todo.front().addr;
            m->s_req_addr[k * 2] = (uint32_t)a;
            m->s_req_addr[k * 2 + 1] = (uint32_t)(a >> 32);
            if (ma.todo.empty()) continue;
            lens |= (uint64_t)ma.todo.front().len << (k * 16);
            if (!ma.req_done) rv |= 1u << k;
        }
        m->s_req_valid = rv;
        m->s_req_len = lens;
        m->s_rsp_ready = rnd() & 7;
        m->m_req_ready = !busy && (rnd() % 3 != 0);
        if (busy && !rsp_up) rsp_up = rnd() % 3 != 0;
        m->m_rsp_valid = busy && rsp_up;
        m->m_rsp_data = busy ? beat_word(cur.addr, cur_beat) : 0;
        m->m_rsp_keep = 0xF;
        m->m_rsp_last = busy && cur_beat == beats_of(cur.len) - 1;
    }

    void cycle() {
        drive();
        m->clk = 0;
        m->eval();
        if (m->cnt_valid) counted += m->cnt_bytes;
        unsigned sv = m->s_rsp_valid, sr = m->s_rsp_ready;
        bool mreq = m->m_req_valid && m->m_req_ready;
        bool mrsp = m->m_rsp_valid && m->m_rsp_ready;
        if (mreq) {
            uint64_t a = m->m_req_addr;
            int k = (int)(a >> 32);
            CHECK(!busy, "request granted while a response is still running");
            CHECK(k >= 0 && k < N && ((m->s_req_ready >> k) & 1), "request ready not to its master");
            CHECK(ms[k].todo.front().addr == a && m->m_req_len == ms[k].todo.front().len,
                  "master %d: request not passed through", k);
            busy = true;
            cur = ms[k].todo.front();
            cur_beat = 0;
            grants.push_back(k);
            requested += cur.len;
            ms[k].req_done = true;
        }
        for (int k = 0; k < N; k++) {
            if ((sv >> k) & 1) {
                CHECK(busy && (int)(cur.addr >> 32) == k, "rsp_valid raised to master %d, not the owner", k);
            }
        }
        if (mrsp) {
            int k = (int)(cur.addr >> 32);
            CHECK(((sv >> k) & 1) && ((sr >> k) & 1), "beat moved without the owner's handshake");
            CHECK(m->s_rsp_data == beat_word(ms[k].todo.front().addr, ms[k].beat), "master %d got a foreign beat", k);
            ms[k].beat++;
            cur_beat++;
            rsp_up = false;
            if (m->m_rsp_last) {
                CHECK(ms[k].beat == beats_of(cur.len), "last after %u of %u beats", ms[k].beat, beats_of(cur.len));
                busy = false;
                ms[k].todo.pop_front();
                ms[k].req_done = false;
                ms[k].beat = 0;
                ms[k].done++;
                finished++;
            }
        }
        m->clk = 1;
        m->eval();
    }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    const char *s = std::getenv("TB_SEED");
    t.seed = s ? (unsigned)std::strtoul(s, nullptr, 0) : 4242u;
    std::printf("seed %u (TB_SEED)\n", t.seed);
    t.m->rst = 1;
    for (int i = 0; i < 3; i++) t.cycle();
    t.m->rst = 0;

    const unsigned per_master = 40;
    unsigned total = 0;
    for (int k = 0; k < N; k++) {
        for (unsigned i = 0; i < per_master; i++) {
            unsigned len = i < 4 ? 8 : 1 + t.rnd() % 512;
            t.ms[k].todo.push_back({((uint64_t)k << 32) | (i * 0x40), len});
            total++;
        }
    }
    for (int n = 0; t.finished < total; n++) {
        CHECK(n < 200000, "only %u of %u reads finished", t.finished, total);
        t.cycle();
    }
    for (int k = 0; k < N; k++)
        CHECK(t.ms[k].done == per_master, "master %d finished %u of %u", k, t.ms[k].done, per_master);
    PASS("rd_arb_one_transaction_at_a_time_owner_only_sees_data");
    for (unsigned i = 0; i < 3 * N; i++)
        CHECK(t.grants[i] == (int)(i % N), "grant %u went to %d, round robin wants %u", i, t.grants[i], i % N);
    PASS("rd_arb_round_robin");
    CHECK(t.counted == t.requested, "counted %llu bytes, requests asked %llu",
          (unsigned long long)t.counted, (unsigned long long)t.requested);
    CHECK(t.m->idle, "arbiter not idle at the end");
    PASS("rd_arb_counts_bytes_by_request_length");
    t.m->final();
    return 0;
}
