// tb_qpnic_dma_rd_arb: unit test of rtl/qpnic_dma_rd_arb.v with N = 3.
//
// Three read masters issue requests of random length (1..512 bytes), each
// keeping up to two open (as qpnic_gather does), and sink the responses
// with random readiness. The channel side keeps every request it took and
// answers them with ceil(len/4) beats whose data names the request: the
// reads of one tag in order, the reads of different tags in any order,
// switching between tags at any beat, with random gaps (seed printed,
// TB_SEED overrides). Checks: each request goes out tagged with its
// master's index; only the master a beat's tag names sees rsp_valid; each
// master receives exactly its own beats in order with last on the final
// one; several reads are in flight at once; grants rotate round robin while
// all masters wait; idle is low while a read is open; and the byte counter
// output sums the request lengths.
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
constexpr unsigned MASTER_OPEN = 2;   // reads a master keeps open at most

struct Txn {
    uint64_t addr;
    unsigned len;
};

struct Master {
    std::deque<Txn> todo;     // not yet asked for
    std::deque<Txn> open;     // asked for, oldest first
    unsigned beat = 0;        // beats of open.front() received
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
    // channel side: the requests it took, per tag, oldest first, and the
    // beats of each tag's oldest already sent
    std::deque<Txn> chan[4];
    unsigned chan_beat[4] = {0, 0, 0, 0};
    int cur_tag = -1;             // the tag whose beat is offered
    std::vector<int> grants;
    uint64_t counted = 0, requested = 0;
    unsigned finished = 0, max_open = 0, open_now = 0;

    unsigned rnd() { return (unsigned)rand_r(&seed); }

    void drive() {
        unsigned rv = 0;
        uint64_t lens = 0;
        for (int k = 0; k < N; k++) {
            Master &ma = ms[k];
            uint64_t a = ma.todo.empty() ? 0 : ma.todo.front().addr;
            m->s_req_addr[k * 2] = (uint32_t)a;
            m->s_req_addr[k * 2 + 1] = (uint32_t)(a >> 32);
            if (ma.todo.empty() || ma.open.size() >= MASTER_OPEN) continue;
            lens |= (uint64_t)ma.todo.front().len << (k * 16);
            rv |= 1u << k;
        }
        m->s_req_valid = rv;
        m->s_req_len = lens;
        m->s_rsp_ready = rnd() & 7;
        m->m_req_ready = rnd() % 3 != 0;
        // the beat offered: keep the tag of the last cycle's offer unless it
        // was taken, then any tag with an open read (or a gap)
        if (cur_tag < 0 || rnd() % 4 == 0) {
            int tags[4], n = 0;
            for (int t = 0; t < 4; t++)
                if (!chan[t].empty()) tags[n++] = t;
            cur_tag = (n && rnd() % 3 != 0) ? tags[rnd() % n] : -1;
        }
        m->m_rsp_valid = cur_tag >= 0;
        m->m_rsp_tag = cur_tag >= 0 ? (unsigned)cur_tag : 0;
        m->m_rsp_data = cur_tag >= 0 ? beat_word(chan[cur_tag].front().addr, chan_beat[cur_tag]) : 0;
        m->m_rsp_keep = 0xF;
        m->m_rsp_last = cur_tag >= 0 && chan_beat[cur_tag] == beats_of(chan[cur_tag].front().len) - 1;
    }

    void cycle() {
        drive();
        m->clk = 0;
        m->eval();
        if (m->cnt_valid) counted += m->cnt_bytes;
        unsigned sv = m->s_rsp_valid, sr = m->s_rsp_ready;
        bool mreq = m->m_req_valid && m->m_req_ready;
        bool mrsp = m->m_rsp_valid && m->m_rsp_ready;
        if (open_now) CHECK(!m->idle, "idle with %u reads open", open_now);
        if (mreq) {
            uint64_t a = m->m_req_addr;
            int k = (int)(a >> 32);
            CHECK(k >= 0 && k < N && ((m->s_req_ready >> k) & 1), "request ready not to its master");
            CHECK((int)m->m_req_tag == k, "master %d's request tagged %u", k, (unsigned)m->m_req_tag);
            CHECK(ms[k].open.size() < MASTER_OPEN, "master %d granted with %zu open", k, ms[k].open.size());
            CHECK(ms[k].todo.front().addr == a && m->m_req_len == ms[k].todo.front().len,
                  "master %d: request not passed through", k);
            chan[k].push_back(ms[k].todo.front());
            ms[k].open.push_back(ms[k].todo.front());
            ms[k].todo.pop_front();
            grants.push_back(k);
            requested += chan[k].back().len;
            open_now++;
            if (open_now > max_open) max_open = open_now;
        }
        for (int k = 0; k < N; k++) {
            if ((sv >> k) & 1) {
                CHECK(cur_tag == k, "rsp_valid raised to master %d, the beat's tag is %d", k, cur_tag);
            }
        }
        if (mrsp) {
            int k = cur_tag;
            CHECK(((sv >> k) & 1) && ((sr >> k) & 1), "beat moved without master %d's handshake", k);
            Master &ma = ms[k];
            CHECK(!ma.open.empty(), "master %d got a beat with no read open", k);
            CHECK(m->s_rsp_data == beat_word(ma.open.front().addr, ma.beat), "master %d got a foreign beat", k);
            ma.beat++;
            chan_beat[k]++;
            if (m->m_rsp_last) {
                CHECK(ma.beat == beats_of(ma.open.front().len), "last after %u of %u beats", ma.beat,
                      beats_of(ma.open.front().len));
                ma.open.pop_front();
                ma.beat = 0;
                ma.done++;
                chan[k].pop_front();
                chan_beat[k] = 0;
                finished++;
                open_now--;
                cur_tag = -1;
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
    t.seed = tb_seed("tb_qpnic_dma_rd_arb", 4242u);
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
    PASS("rd_arb_beats_go_to_the_master_their_tag_names");
    CHECK(t.max_open >= (unsigned)N + 1, "at most %u reads were open at once", t.max_open);
    std::printf("  at most %u reads open at once\n", t.max_open);
    PASS("rd_arb_several_reads_in_flight");
    for (unsigned i = 0; i < MASTER_OPEN * N; i++)
        CHECK(t.grants[i] == (int)(i % N), "grant %u went to %d, round robin wants %u", i, t.grants[i], i % N);
    PASS("rd_arb_round_robin");
    CHECK(t.counted == t.requested, "counted %llu bytes, requests asked %llu",
          (unsigned long long)t.counted, (unsigned long long)t.requested);
    CHECK(t.m->idle, "arbiter not idle at the end");
    PASS("rd_arb_counts_bytes_by_request_length");
    t.m->final();
    return 0;
}
