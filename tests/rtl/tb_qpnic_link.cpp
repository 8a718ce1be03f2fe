// tb_qpnic_link: unit test of rtl/qpnic_link.v, the NIC's side of the board
// link (docs/link.md), at its byte ports.
//
// The testbench plays both neighbours: the host at the far end of the line
// (its own framing, CRC and go-back-N, written from docs/link.md alone),
// and a model of qpnic_core's ports (a register file; DMA writes with random
// keep patterns, some of whose data comes only after a DMA read of the
// core's own has completed, as a WRITE's payload does on its way through
// the loopback; DMA reads, up to six open at once, tagged as the core's
// read masters tag them, whose data and tags it checks;
// notifications). Each round opens the link with RESET, runs a random mix
// of every frame type both ways, and impairs the line both ways at a given
// rate: a frame's byte corrupted, a byte dropped, the frame cut short,
// dropped whole or sent twice. Checks: RESET_DONE carries the NIC's limits
// and LINK_VERSION; a repeated nonce does not reset the core again; every
// register write reaches the core once and in order; every register read
// answers the value the core holds, with its tag; every DMA write reaches
// host memory once and in order, byte for byte; every DMA read's data
// reaches the core right, beat by beat, packed from lane 0, with its tag,
// several reads being open at once; every
// notification arrives once and in order; corrupt frames raise error; and
// everything completes. Seed printed; TB_SEED replays one.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "Vqpnic_link.h"
#include "verilated.h"
#include "qpnic_hw.h"
#include "tb_util.h"

namespace {

constexpr unsigned BYTE_CYCLES = 12;    // the line: a byte every this many cycles
constexpr unsigned HOST_RTO = 60000;    // the host's retransmission timeout, cycles
constexpr uint64_t HOST_BASE = 0x10000; // host memory: reads from here ...
constexpr uint64_t WR_BASE = 0x40000;   // ... writes here
constexpr unsigned MEM_BYTES = 0x80000;

using Bytes = std::vector<uint8_t>;

uint32_t crc_step(uint32_t c, uint8_t b) {
    c ^= b;
    for (int k = 0; k < 8; k++)
        c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    return c;
}

uint32_t crc32(const Bytes &b, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = crc_step(c, b[i]);
    return ~c;
}

void put32(Bytes &b, uint32_t w) {
    for (int k = 0; k < 4; k++)
        b.push_back((uint8_t)(w >> (8 * k)));
}

uint32_t get32(const Bytes &b, size_t at) {
    return (uint32_t)b[at] | (uint32_t)b[at + 1] << 8 | (uint32_t)b[at + 2] << 16 | (uint32_t)b[at + 3] << 24;
}

uint32_t hdr(unsigned type, unsigned seq, unsigned ack, unsigned tag) {
    return QPNIC_FIELD(QPNIC_LINK_HDR_TYPE, type) | QPNIC_FIELD(QPNIC_LINK_HDR_SEQ, seq) |
           QPNIC_FIELD(QPNIC_LINK_HDR_ACK, ack) | QPNIC_FIELD(QPNIC_LINK_HDR_TAG, tag);
}

// A body (header, words, data) as it goes on the line: CRC, stuffing, flags.
Bytes frame_bytes(Bytes body) {
    put32(body, crc32(body, body.size()));
    Bytes out{(uint8_t)QPNIC_LINK_FLAG};
    for (uint8_t c : body) {
        if (c == QPNIC_LINK_FLAG || c == QPNIC_LINK_ESC) {
            out.push_back((uint8_t)QPNIC_LINK_ESC);
            out.push_back((uint8_t)(c ^ QPNIC_LINK_ESC_XOR));
        } else {
            out.push_back(c);
        }
    }
    out.push_back((uint8_t)QPNIC_LINK_FLAG);
    return out;
}

struct Msg {                 // a sequenced frame of the host's
    unsigned type, tag;
    Bytes rest;              // after the header
};

struct Tb {
    std::unique_ptr<Vqpnic_link> m{new Vqpnic_link};
    unsigned seed;
    unsigned fault_pct;      // frames impaired, percent, each way
    uint64_t cycle = 0;

    unsigned rnd() { return (unsigned)rand_r(&seed); }
    bool chance(unsigned pct) { return rnd() % 100 < pct; }

    // ---- the line, both ways, with its impairments ----
    std::deque<uint8_t> to_nic;   // bytes on their way to rx
    Bytes from_nic_raw;           // bytes from tx since the last flag
    unsigned rx_gap = 0, tx_gap = 0;

    unsigned broken_to_nic = 0, impaired = 0;   // frames made unsound on the way to the NIC; all impaired

    void impair_and_queue(const Bytes &f, std::deque<uint8_t> &q) {
        Bytes b = f;
        if (b.size() > 2 && chance(fault_pct)) {
            unsigned kind = rnd() % 5;
            impaired++;
            if (kind < 3 && &q == &to_nic) broken_to_nic++;
            switch (kind) {
            case 0: b[1 + rnd() % (b.size() - 2)] ^= (uint8_t)(1u << (rnd() % 8)); break;   // a bit flips
            case 1: b.erase(b.begin() + 1 + rnd() % (b.size() - 2)); break;                  // a byte is lost
            case 2: b.resize(1 + rnd() % (b.size() - 1)); break;                             // cut short
            case 3: return;                                                                  // lost whole
            default: q.insert(q.end(), b.begin(), b.end()); break;                           // twice
            }
        }
        q.insert(q.end(), b.begin(), b.end());
    }

    // ---- the host ----
    unsigned window = 0;          // from RESET_DONE
    bool opened = false;
    uint32_t nonce = 0;
    std::map<unsigned, Msg> h_frames;   // sent, not yet acknowledged, by seq
    std::deque<Msg> h_queue;            // not yet numbered
    unsigned h_base = 0, h_next = 0, h_sent = 0;   // seqs (mod 256)
    unsigned h_expected = 0;
    bool owe_ack = false;
    uint64_t h_progress = 0;            // cycle of the last ack progress
    Bytes host_mem = Bytes(MEM_BYTES);
    std::deque<std::pair<uint64_t, Bytes>> wr_log;   // DMA writes applied
    std::deque<uint32_t> ntf_log;
    std::map<unsigned, uint32_t> replies;            // read tag -> value
    unsigned frames_dropped_by_host = 0;
    std::deque<uint8_t> to_host;                     // impaired NIC bytes
    Bytes rx_frame;
    bool rx_esc = false, rx_in = false;
    unsigned rdone_count = 0;
    uint32_t rdone_caps = 0;

    void host_send(unsigned type, unsigned tag, Bytes rest) {
        h_queue.push_back(Msg{type, tag, std::move(rest)});
    }

    Bytes body_of(unsigned seq, const Msg &msg) {
        Bytes b;
        put32(b, hdr(msg.type, seq, h_expected, msg.tag));
        b.insert(b.end(), msg.rest.begin(), msg.rest.end());
        return b;
    }

    // What the host puts on the line next, when the line is free.
    void host_transmit() {
        if (!to_nic.empty())
            return;
        while (opened && !h_queue.empty() && ((h_next - h_base) & 0xFF) < window) {
            h_frames[h_next] = h_queue.front();
            h_queue.pop_front();
            h_next = (h_next + 1) & 0xFF;
        }
        if (opened && h_base != h_sent && cycle - h_progress > HOST_RTO) {
            h_sent = h_base;             // go back
            h_progress = cycle;
        }
        if (opened && h_sent != h_next) {
            impair_and_queue(frame_bytes(body_of(h_sent, h_frames[h_sent])), to_nic);
            h_sent = (h_sent + 1) & 0xFF;
            owe_ack = false;
            if (h_base == (h_sent - 1 + 256) % 256) h_progress = cycle;
        } else if (owe_ack) {
            Bytes b;
            put32(b, hdr(QPNIC_LINK_TYPE_ACK, 0, h_expected, 0));
            impair_and_queue(frame_bytes(b), to_nic);
            owe_ack = false;
        }
    }

    void host_open(uint32_t n) {
        nonce = n;
        Bytes b;
        put32(b, hdr(QPNIC_LINK_TYPE_RESET, 0, 0, 0));
        put32(b, n);
        impair_and_queue(frame_bytes(b), to_nic);
    }

    void host_frame(const Bytes &f) {
        if (f.size() < 8 || crc32(f, f.size() - 4) != get32(f, f.size() - 4)) {
            frames_dropped_by_host++;
            return;
        }
        size_t n = f.size() - 4;    // without the CRC
        uint32_t h[1] = {get32(f, 0)};
        unsigned type = QPNIC_FIELD_GET(h, QPNIC_LINK_HDR_TYPE);
        unsigned seq = QPNIC_FIELD_GET(h, QPNIC_LINK_HDR_SEQ);
        unsigned ack = QPNIC_FIELD_GET(h, QPNIC_LINK_HDR_ACK);
        unsigned tag = QPNIC_FIELD_GET(h, QPNIC_LINK_HDR_TAG);
        if (type == QPNIC_LINK_TYPE_RESET_DONE) {
            CHECK(n == 12, "RESET_DONE of %zu bytes", n);
            if (get32(f, 4) == nonce) {
                rdone_count++;
                rdone_caps = get32(f, 8);
                if (!opened) {
                    opened = true;
                    uint32_t c[3] = {0, 0, rdone_caps};
                    window = QPNIC_FIELD_GET(c, QPNIC_LINK_RESET_RX_FRAMES);
                    h_progress = cycle;
                }
            }
            return;
        }
        if (!opened)
            return;                  // before our RESET_DONE: not ours
        if (((ack - h_base) & 0xFF) != 0 && ((ack - h_base) & 0xFF) <= ((h_next - h_base) & 0xFF)) {
            // after a go-back the NIC may ack frames it had before
            if (((ack - h_base) & 0xFF) > ((h_sent - h_base) & 0xFF)) h_sent = ack;
            while (h_base != ack) {
                h_frames.erase(h_base);
                h_base = (h_base + 1) & 0xFF;
            }
            h_progress = cycle;
        }
        if (type == QPNIC_LINK_TYPE_ACK)
            return;
        if (seq != h_expected) {
            owe_ack = true;          // a duplicate or after a gap
            return;
        }
        h_expected = (h_expected + 1) & 0xFF;
        owe_ack = true;
        switch (type) {
        case QPNIC_LINK_TYPE_DMA_WR: {
            uint64_t addr = get32(f, 4) | (uint64_t)get32(f, 8) << 32;
            Bytes data(f.begin() + 12, f.begin() + n);
            CHECK(addr >= WR_BASE && addr + data.size() <= MEM_BYTES, "DMA write at 0x%llx +%zu outside the test's memory",
                  (unsigned long long)addr, data.size());
            std::copy(data.begin(), data.end(), host_mem.begin() + addr);
            wr_log.emplace_back(addr, data);
            break;
        }
        case QPNIC_LINK_TYPE_DMA_RD_REQ: {
            CHECK(n == 16, "DMA_RD_REQ of %zu bytes", n);
            uint64_t addr = get32(f, 4) | (uint64_t)get32(f, 8) << 32;
            unsigned len = get32(f, 12) & 0xFFFF;
            CHECK(len >= 1 && len <= 512 && addr >= HOST_BASE && addr + len <= WR_BASE,
                  "DMA read of %u at 0x%llx", len, (unsigned long long)addr);
            host_send(QPNIC_LINK_TYPE_DMA_RD_DATA, tag, Bytes(host_mem.begin() + addr, host_mem.begin() + addr + len));
            break;
        }
        case QPNIC_LINK_TYPE_NTF:
            CHECK(n == 8, "NTF of %zu bytes", n);
            ntf_log.push_back(get32(f, 4));
            break;
        case QPNIC_LINK_TYPE_MMIO_RD_REPLY:
            CHECK(n == 12, "MMIO_RD_REPLY of %zu bytes", n);
            CHECK(!replies.count(tag), "a second reply to read tag %u", tag);
            replies[tag] = get32(f, 8);
            break;
        default:
            CHECK(false, "the NIC sent a frame of type %u", type);
        }
    }

    void host_receive() {
        while (!to_host.empty()) {
            uint8_t c = to_host.front();
            to_host.pop_front();
            if (c == QPNIC_LINK_FLAG) {
                if (rx_in && !rx_frame.empty()) {
                    if (rx_esc) frames_dropped_by_host++;
                    else host_frame(rx_frame);
                }
                rx_in = true;
                rx_frame.clear();
                rx_esc = false;
            } else if (!rx_in) {
            } else if (c == QPNIC_LINK_ESC) {
                rx_esc = true;
            } else {
                rx_frame.push_back(rx_esc ? (uint8_t)(c ^ QPNIC_LINK_ESC_XOR) : c);
                rx_esc = false;
            }
        }
    }

    // ---- the core's side ----
    std::map<uint16_t, uint32_t> regs;
    std::deque<std::pair<uint16_t, uint32_t>> mmio_wr_log;
    unsigned mmio_rd_delay = 0;
    bool mmio_rd_busy = false;
    uint16_t mmio_rd_addr = 0;
    struct CoreWr { uint64_t addr; Bytes data; bool late; };
    std::deque<CoreWr> core_writes;     // to issue
    std::deque<CoreWr> writes_issued;
    bool wr_req_done = false;
    size_t wr_pos = 0;
    bool wr_waits = false;           // the write's data waits for a read to complete
    unsigned wr_reads_mark = 0;      //   reads_done when its request was taken
    unsigned late_writes = 0;
    struct CoreRd { uint64_t addr; unsigned len; unsigned tag; };
    static constexpr unsigned CORE_OPEN = 6;   // the core keeps at most this many open
    std::deque<CoreRd> core_reads;   // to issue
    std::deque<CoreRd> reads_open;   // issued, oldest first (the link answers in order)
    unsigned rd_got = 0, reads_done = 0, max_open = 0;
    std::deque<uint32_t> core_ntfs;
    std::deque<uint32_t> ntfs_issued;
    uint8_t beat_keep = 0;
    uint32_t beat_data = 0;
    bool beat_last = false;
    unsigned core_rst_cycles = 0, error_pulses = 0, activity_pulses = 0;

    // the next beat of the current DMA write: a random keep pattern over
    // the bytes left (at least one byte, unless the beat is empty on purpose)
    void next_write_beat() {
        const Bytes &d = core_writes.front().data;
        unsigned left = (unsigned)(d.size() - wr_pos);
        beat_keep = 0;
        beat_data = 0;
        unsigned taken = 0;
        for (unsigned lane = 0; lane < 4 && taken < left; lane++) {
            if (rnd() % 4 == 0) continue;          // a null byte
            beat_keep |= (uint8_t)(1u << lane);
            beat_data |= (uint32_t)d[wr_pos + taken] << (8 * lane);
            taken++;
        }
        wr_pos += taken;
        beat_last = wr_pos == d.size();
    }

    void drive_core() {
        Vqpnic_link &c = *m;
        c.mmio_ready = rnd() % 3 != 0 && !mmio_rd_busy;
        c.mmio_rvalid = 0;
        if (mmio_rd_busy && mmio_rd_delay == 0) {
            c.mmio_rvalid = 1;
            c.mmio_rdata = regs[mmio_rd_addr];
        }
        c.dmaw_req_valid = !core_writes.empty() && !wr_req_done;
        if (c.dmaw_req_valid) {
            c.dmaw_req_addr = core_writes.front().addr;
            c.dmaw_req_len = (uint16_t)core_writes.front().data.size();
        }
        c.dmaw_dat_valid = wr_req_done && !(wr_waits && reads_done == wr_reads_mark);
        c.dmaw_dat_data = beat_data;
        c.dmaw_dat_keep = beat_keep;
        c.dmaw_dat_last = beat_last;
        c.dmar_req_valid = !core_reads.empty() && reads_open.size() < CORE_OPEN;
        if (c.dmar_req_valid) {
            c.dmar_req_addr = core_reads.front().addr;
            c.dmar_req_len = (uint16_t)core_reads.front().len;
            c.dmar_req_tag = (uint8_t)core_reads.front().tag;
        }
        c.dmar_rsp_ready = rnd() % 4 != 0;
        c.ntf_valid = !core_ntfs.empty();
        c.ntf_data = c.ntf_valid ? core_ntfs.front() : 0;
    }

    // the handshakes that happen at this edge (the outputs are settled)
    void sample_core() {
        Vqpnic_link &c = *m;
        if (c.core_rst) {
            core_rst_cycles++;
            return;
        }
        if (mmio_rd_busy) {
            if (mmio_rd_delay == 0) mmio_rd_busy = false;
            else mmio_rd_delay--;
        }
        if (c.mmio_valid && c.mmio_ready) {
            if (c.mmio_we) {
                regs[c.mmio_addr] = c.mmio_wdata;
                mmio_wr_log.emplace_back(c.mmio_addr, c.mmio_wdata);
            } else {
                mmio_rd_busy = true;
                mmio_rd_addr = c.mmio_addr;
                mmio_rd_delay = rnd() % 3;
            }
        }
        if (c.dmaw_req_valid && c.dmaw_req_ready) {
            wr_req_done = true;
            wr_pos = 0;
            // a late write's data waits for a read still to come (if one is)
            wr_waits = core_writes.front().late && (!reads_open.empty() || !core_reads.empty());
            wr_reads_mark = reads_done;
            late_writes += wr_waits;
            next_write_beat();
        } else if (c.dmaw_dat_valid && c.dmaw_dat_ready) {
            if (beat_last) {
                writes_issued.push_back(core_writes.front());
                core_writes.pop_front();
                wr_req_done = false;
            } else {
                next_write_beat();
            }
        }
        if (c.dmar_req_valid && c.dmar_req_ready) {
            reads_open.push_back(core_reads.front());
            core_reads.pop_front();
            if (reads_open.size() > max_open) max_open = (unsigned)reads_open.size();
        }
        if (c.dmar_rsp_valid && c.dmar_rsp_ready) {
            CHECK(!reads_open.empty(), "a DMA read beat with no read outstanding");
            const CoreRd &r = reads_open.front();
            CHECK(c.dmar_rsp_tag == r.tag, "a beat tagged %u for the oldest read, tagged %u", (unsigned)c.dmar_rsp_tag,
                  r.tag);
            uint64_t rd_addr = r.addr;
            unsigned rd_len = r.len;
            unsigned n = rd_len - rd_got < 4 ? rd_len - rd_got : 4;
            CHECK(c.dmar_rsp_keep == (1u << n) - 1, "read beat keep 0x%x, expected 0x%x (%u of %u bytes taken)",
                  c.dmar_rsp_keep, (1u << n) - 1, rd_got, rd_len);
            CHECK(c.dmar_rsp_last == (rd_got + n == rd_len), "read beat last %d at byte %u of %u", c.dmar_rsp_last,
                  rd_got, rd_len);
            for (unsigned k = 0; k < n; k++) {
                uint8_t want = host_mem[rd_addr + rd_got + k];
                uint8_t got = (uint8_t)(c.dmar_rsp_data >> (8 * k));
                CHECK(got == want, "DMA read at 0x%llx byte %u: 0x%02x, host memory holds 0x%02x",
                      (unsigned long long)rd_addr, rd_got + k, got, want);
            }
            rd_got += n;
            if (rd_got == rd_len) {
                reads_open.pop_front();
                rd_got = 0;
                reads_done++;
            }
        }
        if (c.ntf_valid && c.ntf_ready) {
            ntfs_issued.push_back(core_ntfs.front());
            core_ntfs.pop_front();
        }
        if (c.error) error_pulses++;
        if (c.activity) activity_pulses++;
    }

    void line() {
        Vqpnic_link &c = *m;
        c.rx_valid = 0;
        c.rx_err = 0;
        if (++rx_gap >= BYTE_CYCLES && !to_nic.empty()) {
            rx_gap = 0;
            c.rx_valid = 1;
            c.rx_data = to_nic.front();
            to_nic.pop_front();
        }
        c.tx_ready = ++tx_gap >= BYTE_CYCLES;
    }

    void take_tx() {
        Vqpnic_link &c = *m;
        if (c.tx_valid && c.tx_ready) {
            tx_gap = 0;
            from_nic_raw.push_back(c.tx_data);
            if (c.tx_data == QPNIC_LINK_FLAG) {
                if (from_nic_raw.size() > 1) impair_and_queue(from_nic_raw, to_host);
                from_nic_raw.assign(1, (uint8_t)QPNIC_LINK_FLAG);
            }
        }
    }

    void step() {
        line();
        drive_core();
        m->clk = 0;
        m->eval();
        take_tx();
        sample_core();
        m->clk = 1;
        m->eval();
        cycle++;
        host_receive();
        host_transmit();
    }

    void reset() {
        m->rst = 1;
        for (int i = 0; i < 4; i++) step();
        m->rst = 0;
    }

};

// One round: open, then a random mix of everything, then check it all.
void round(unsigned seed, unsigned fault_pct) {
    Tb t;
    t.seed = seed;
    t.fault_pct = fault_pct;
    t.reset();
    for (unsigned i = 0; i < MEM_BYTES; i++) t.host_mem[i] = (uint8_t)(i * 7 + (i >> 8) + 3);

    // open; the RESET (and its RESET_DONE) may be lost: send again until it is done
    t.host_open(0x1234 + seed);
    for (int tries = 0; !t.opened; tries++) {
        CHECK(tries < 20, "no RESET_DONE after %d RESETs", tries);
        for (int k = 0; k < 20000 && !t.opened; k++) t.step();
        if (!t.opened) t.host_open(t.nonce);
    }
    unsigned rst_after_open = t.core_rst_cycles;
    CHECK(rst_after_open >= 16, "RESET held the core in reset %u cycles", rst_after_open);
    uint32_t caps[3] = {0, 0, t.rdone_caps};
    CHECK(QPNIC_FIELD_GET(caps, QPNIC_LINK_RESET_RX_FRAMES) == QPNIC_LINK_NIC_RX_FRAMES &&
              QPNIC_FIELD_GET(caps, QPNIC_LINK_RESET_TX_FRAMES) == QPNIC_LINK_NIC_TX_FRAMES &&
              QPNIC_FIELD_GET(caps, QPNIC_LINK_RESET_VERSION) == QPNIC_LINK_VERSION,
          "RESET_DONE caps 0x%08x", t.rdone_caps);
    CHECK(t.m->link_up, "link_up low after RESET_DONE");

    if (fault_pct == 0) {
        // a register write with one bit flipped, cut short, or with a byte
        // lost: each dropped with an error pulse, nothing reaches the core
        for (int how = 0; how < 3; how++) {
            Bytes b;
            put32(b, hdr(QPNIC_LINK_TYPE_MMIO_WR, t.h_next, t.h_expected, 0));
            put32(b, 0xFC);
            put32(b, 0xBAD);
            Bytes f = frame_bytes(b);
            if (how == 0) f[6] ^= 0x10;
            else if (how == 1) f.resize(9);
            else f.erase(f.begin() + 7);
            unsigned errors = t.error_pulses;
            t.to_nic.insert(t.to_nic.end(), f.begin(), f.end());
            t.to_nic.push_back((uint8_t)QPNIC_LINK_FLAG);   // ends a cut frame
            for (int k = 0; k < 2000; k++) t.step();
            CHECK(t.error_pulses == errors + 1, "broken frame %d: %u error pulses, expected 1", how,
                  t.error_pulses - errors);
            CHECK(t.mmio_wr_log.empty(), "broken frame %d reached the core", how);
        }
    }

    // the work: register writes and reads from the host, the core's DMA and notifications
    std::deque<std::pair<uint16_t, uint32_t>> writes_sent;
    std::map<unsigned, uint32_t> read_expect;
    unsigned tag = 0;
    for (int i = 0; i < 40; i++) {
        uint16_t a = (uint16_t)(4 * (t.rnd() % 64));
        uint32_t v = t.rnd();
        Bytes b;
        put32(b, a);
        put32(b, v);
        t.host_send(QPNIC_LINK_TYPE_MMIO_WR, 0, b);
        writes_sent.emplace_back(a, v);
        if (i % 2 == 1) {
            // a read of what was just written: the link keeps the order
            Bytes r;
            put32(r, a);
            t.host_send(QPNIC_LINK_TYPE_MMIO_RD, tag, r);
            read_expect[tag] = v;
            tag++;
        }
    }
    uint64_t wa = WR_BASE;
    for (int i = 0; i < 16; i++) {
        unsigned len = i == 0 ? 512 : 1 + t.rnd() % 512;
        Bytes d(len);
        for (auto &x : d) x = (uint8_t)t.rnd();
        // one in four bytes a flag or an escape, so that stuffing is exercised
        for (unsigned k = 0; k < len; k += 4) d[k] = (t.rnd() & 1) ? QPNIC_LINK_FLAG : QPNIC_LINK_ESC;
        t.core_writes.push_back(Tb::CoreWr{wa, d, i % 2 == 1});
        wa += len + t.rnd() % 16;
    }
    for (int i = 0; i < 16; i++) {
        unsigned len = i == 0 ? 512 : 1 + t.rnd() % 512;
        t.core_reads.push_back(Tb::CoreRd{HOST_BASE + t.rnd() % (WR_BASE - HOST_BASE - 512), len,
                                          (unsigned)i % (1u << QPNIC_DMA_RD_TAG_BITS)});
    }
    for (int i = 0; i < 24; i++) t.core_ntfs.push_back(0xA0000000u + (unsigned)i);

    unsigned n_reads = (unsigned)t.core_reads.size();
    auto all_done = [&]() {
        return t.mmio_wr_log.size() == writes_sent.size() && t.replies.size() == read_expect.size() &&
               t.core_writes.empty() && t.wr_log.size() == t.writes_issued.size() && t.reads_done == n_reads &&
               t.core_ntfs.empty() && t.ntf_log.size() == t.ntfs_issued.size() && t.h_queue.empty() &&
               t.h_base == t.h_next;
    };
    uint64_t limit = 20000000;
    while (!all_done()) {
        CHECK(limit-- > 0, "seed %u, %u%% impaired: not done (writes %zu/%zu, replies %zu/%zu, DMA writes %zu left %zu "
              "logged, reads %u/%u, notifications %zu left %zu logged, host base %u next %u)",
              seed, fault_pct, t.mmio_wr_log.size(), writes_sent.size(), t.replies.size(), read_expect.size(),
              t.core_writes.size(), t.wr_log.size(), t.reads_done, n_reads, t.core_ntfs.size(), t.ntf_log.size(),
              t.h_base, t.h_next);
        t.step();
    }
    // let trailing acks and duplicates settle, then nothing may have changed
    for (int k = 0; k < 200000; k++) t.step();

    CHECK(t.mmio_wr_log.size() == writes_sent.size(), "%zu register writes reached the core, %zu sent",
          t.mmio_wr_log.size(), writes_sent.size());
    for (size_t i = 0; i < writes_sent.size(); i++)
        CHECK(t.mmio_wr_log[i] == writes_sent[i], "register write %zu reached the core as 0x%x=0x%08x, sent 0x%x=0x%08x",
              i, t.mmio_wr_log[i].first, t.mmio_wr_log[i].second, writes_sent[i].first, writes_sent[i].second);
    for (auto &e : read_expect)
        CHECK(t.replies[e.first] == e.second, "read tag %u answered 0x%08x, register held 0x%08x", e.first,
              t.replies[e.first], e.second);
    CHECK(t.wr_log.size() == t.writes_issued.size(), "%zu DMA writes applied, %zu issued", t.wr_log.size(),
          t.writes_issued.size());
    for (size_t i = 0; i < t.wr_log.size(); i++)
        CHECK(t.wr_log[i].first == t.writes_issued[i].addr && t.wr_log[i].second == t.writes_issued[i].data,
              "DMA write %zu applied at 0x%llx (%zu bytes), issued at 0x%llx (%zu bytes), or its bytes differ", i,
              (unsigned long long)t.wr_log[i].first, t.wr_log[i].second.size(),
              (unsigned long long)t.writes_issued[i].addr, t.writes_issued[i].data.size());
    CHECK(t.ntf_log == t.ntfs_issued, "notifications arrived %zu (first 0x%08x), issued %zu", t.ntf_log.size(),
          t.ntf_log.empty() ? 0 : t.ntf_log.front(), t.ntfs_issued.size());
    if (fault_pct == 0)
        CHECK(t.error_pulses == 3 && t.frames_dropped_by_host == 0,
              "clean line: %u error pulses (3 for the broken frames), host dropped %u", t.error_pulses,
              t.frames_dropped_by_host);
    CHECK(t.activity_pulses > 0, "no activity pulse");

    // a RESET with the same nonce repeats RESET_DONE without resetting the core
    unsigned rd_before = t.rdone_count, rst_before = t.core_rst_cycles;
    t.fault_pct = 0;
    t.host_open(t.nonce);
    for (int k = 0; k < 5000; k++) t.step();
    CHECK(t.rdone_count == rd_before + 1, "repeated RESET: %u RESET_DONEs, expected %u", t.rdone_count, rd_before + 1);
    CHECK(t.core_rst_cycles == rst_before, "repeated RESET reset the core (%u cycles)", t.core_rst_cycles - rst_before);
    // a new nonce resets the core, and the link starts again from seq 0
    t.opened = false;
    t.owe_ack = false;
    t.h_base = t.h_next = t.h_sent = t.h_expected = 0;
    t.host_open(t.nonce + 1);
    for (int k = 0; k < 5000 && !t.opened; k++) t.step();
    CHECK(t.opened, "no RESET_DONE for a new nonce");
    CHECK(t.core_rst_cycles >= rst_before + 16, "a new nonce held the core in reset %u cycles",
          t.core_rst_cycles - rst_before);
    size_t w = t.mmio_wr_log.size();
    Bytes b;
    put32(b, 0x40);
    put32(b, 0xC0FFEE);
    t.host_send(QPNIC_LINK_TYPE_MMIO_WR, 0, b);
    for (int k = 0; k < 5000 && t.mmio_wr_log.size() == w; k++) t.step();
    CHECK(t.mmio_wr_log.size() == w + 1 && t.mmio_wr_log.back().second == 0xC0FFEE,
          "after the second RESET, seq 0 was not applied");
    CHECK(t.late_writes > 0, "no DMA write waited for a read");
    CHECK(t.max_open >= 3, "at most %u DMA reads were open at once", t.max_open);
    std::printf("  seed %u, %u%% impaired: %llu cycles, %u frames impaired (%u to the NIC broken), %u NIC error "
                "pulses, %u frames dropped by the host, %u DMA writes waited for a read, %u DMA reads open at most\n",
                seed, fault_pct, (unsigned long long)t.cycle, t.impaired, t.broken_to_nic, t.error_pulses,
                t.frames_dropped_by_host, t.late_writes, t.max_open);
}

} // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    unsigned seed = tb_seed("tb_qpnic_link", (unsigned)time(nullptr));
    round(seed, 0);
    PASS("link_clean");
    round(seed + 1, 2);
    PASS("link_impaired_2pct");
    round(seed + 2, 5);
    PASS("link_impaired_5pct");
    round(seed + 3, 20);
    PASS("link_impaired_20pct");
    return 0;
}
