// tb_qpnic_dma_wr_arb: unit test of rtl/qpnic_dma_wr_arb.v with N = 3.
//
// Three write masters issue transactions of random length (1..512 bytes),
// with random gaps in their data valid; the channel side accepts with random
// backpressure (seed printed, TB_SEED overrides). Checks: the channel never
// interleaves transactions (every beat between a request and its last
// belongs to that request, in order, ceil(len/4) of them), every master's
// transactions all arrive, grants rotate round robin while all masters
// wait, and the byte counter output sums the request lengths.
// Not for: the read arbiter (same structure, exercised by the core tests).
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

#include "Vqpnic_dma_wr_arb.h"
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
    bool req_done = false;   // current transaction's request accepted
    unsigned beat = 0;       // next data beat of the current transaction
    unsigned sent = 0;       // transactions finished
    bool dat_up = false;     // data valid raised, held until the beat moves
};

unsigned beats_of(unsigned len) { return (len + 3) / 4; }

// A beat's data names its master, transaction and beat: checked on arrival.
uint32_t beat_word(int k, uint64_t addr, unsigned beat) {
    return ((uint32_t)k << 28) | (((uint32_t)addr & 0xFFF) << 16) | beat;
}

struct Tb {
    std::unique_ptr<Vqpnic_dma_wr_arb> m{new Vqpnic_dma_wr_arb};
    Master ms[N];
    unsigned seed = 1;
    // channel-side view
    bool in_txn = false;
    int owner = -1;
    Txn cur{};
    unsigned cur_beats = 0;
    std::vector<int> grants;
    uint64_t counted = 0, requested = 0;
    unsigned finished = 0;

    unsigned rnd() { return (unsigned)rand_r(&seed); }

    void drive() {
        unsigned rv = 0, dv = 0, last = 0;
        uint64_t lens = 0;
        uint16_t keeps = 0;
        for (int k = 0; k < N; k++) {
            Master &ma = ms[k];
            if (ma.todo.empty()) {
                m->s_req_addr[k * 2] = 0;
                m->s_req_addr[k * 2 + 1] = 0;
                continue;
            }
            const Txn &t = ma.todo.front();
            m->s_req_addr[k * 2] = (uint32_t)t.addr;
            m->s_req_addr[k * 2 + 1] = (uint32_t)(t.addr >> 32);
            lens |= (uint64_t)t.len << (k * 16);
            if (!ma.req_done) rv |= 1u << k;
            // data may be offered before the request is granted: the arbiter
            // must not pass it early. Valid, once up, stays up until taken.
            if (!ma.dat_up) ma.dat_up = rnd() % 4 != 0;
            if (ma.dat_up) dv |= 1u << k;
            unsigned nb = beats_of(t.len);
            m->s_dat_data[k] = beat_word(k, t.addr, ma.beat);
            unsigned rem = t.len - ma.beat * 4;
            unsigned keep = rem >= 4 ? 0xF : ((1u << rem) - 1);
            keeps |= keep << (k * 4);
            if (ma.beat == nb - 1) last |= 1u << k;
        }
        m->s_req_valid = rv;
        m->s_req_len = lens;
        m->s_dat_valid = dv;
        m->s_dat_keep = keeps;
        m->s_dat_last = last;
        m->m_req_ready = rnd() % 3 != 0;
        m->m_dat_ready = rnd() % 3 != 0;
    }

    void cycle() {
        drive();
        m->clk = 0;
        m->eval();
        unsigned rr = m->s_req_ready, dr = m->s_dat_ready;
        unsigned rv = m->s_req_valid, dv = m->s_dat_valid;
        bool mreq = m->m_req_valid && m->m_req_ready;
        bool mdat = m->m_dat_valid && m->m_dat_ready;
        if (m->cnt_valid) counted += m->cnt_bytes;
        for (int k = 0; k < N; k++) {
            if ((dr >> k) & 1) CHECK(owner == k && in_txn, "master %d's data taken while %d owns", k, owner);
        }
        if (mreq) {
            CHECK(!in_txn, "new request during a transaction's data (interleaving)");
            uint64_t a = m->m_req_addr;
            int k = (int)(a >> 32);
            CHECK(k >= 0 && k < N && ((rr >> k) & 1) && ((rv >> k) & 1), "request ready mismatch");
            CHECK(ms[k].todo.front().addr == a, "master %d: request out of order", k);
            CHECK(m->m_req_len == ms[k].todo.front().len, "length not passed through");
            owner = k;
            cur = ms[k].todo.front();
            cur_beats = 0;
            in_txn = true;
            grants.push_back(k);
            requested += cur.len;
            ms[k].req_done = true;
        }
        if (mdat) {
            CHECK(in_txn && !mreq, "data beat outside a transaction");
            uint32_t want = beat_word(owner, cur.addr, cur_beats);
            CHECK(m->m_dat_data == want, "beat 0x%08x, want 0x%08x (interleaved or reordered)",
                  m->m_dat_data, want);
            CHECK(((dv >> owner) & 1) && ((dr >> owner) & 1), "beat not from the owner");
            cur_beats++;
            bool want_last = cur_beats == beats_of(cur.len);
            CHECK(m->m_dat_last == want_last, "last flag wrong on beat %u of %u", cur_beats, beats_of(cur.len));
            ms[owner].beat++;
            ms[owner].dat_up = false;
            if (m->m_dat_last) {
                in_txn = false;
                ms[owner].todo.pop_front();
                ms[owner].req_done = false;
                ms[owner].beat = 0;
                ms[owner].sent++;
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
    t.seed = tb_seed("tb_qpnic_dma_wr_arb", 777u);
    t.m->rst = 1;
    for (int i = 0; i < 3; i++) t.cycle();
    t.m->rst = 0;

    const unsigned per_master = 40;
    unsigned total = 0;
    for (int k = 0; k < N; k++) {
        for (unsigned i = 0; i < per_master; i++) {
            unsigned len = 1 + t.rnd() % 512;
            if (i < 4) len = 4;   // the first rounds: short, all masters waiting
            t.ms[k].todo.push_back({((uint64_t)k << 32) | (i * 0x40), len});
            total++;
        }
    }
    for (int n = 0; t.finished < total; n++) {
        CHECK(n < 200000, "only %u of %u transactions finished", t.finished, total);
        t.cycle();
    }
    for (int k = 0; k < N; k++)
        CHECK(t.ms[k].sent == per_master, "master %d finished %u of %u", k, t.ms[k].sent, per_master);
    PASS("wr_arb_never_interleaves_and_keeps_order");

    // while every master waits, grants rotate 0, 1, 2, 0, ...
    for (unsigned i = 0; i < 3 * N; i++)
        CHECK(t.grants[i] == (int)(i % N), "grant %u went to %d, round robin wants %u", i, t.grants[i], i % N);
    PASS("wr_arb_round_robin");

    CHECK(t.counted == t.requested, "counted %llu bytes, requests asked %llu",
          (unsigned long long)t.counted, (unsigned long long)t.requested);
    CHECK(t.m->idle, "arbiter not idle at the end");
    PASS("wr_arb_counts_bytes_by_request_length");
    t.m->final();
    return 0;
}
