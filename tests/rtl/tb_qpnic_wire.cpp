// tb_qpnic_wire: randomized unit test of the RoCEv2 framing (qpnic_wire:
// qpnic_roce_tx, qpnic_roce_rx and the lane merge and split). Packets of
// every opcode the port carries, with random payloads (0 to 4096 bytes),
// go in on the two lanes with random stalls; each frame that comes out is
// checked against the packet it carries, independently of the RTL:
//   - the Ethernet, IPv4 and UDP fields are the layout's (frame roce), the
//     IPv4 checksum holds, the lengths add up, the pad makes a multiple of 4;
//   - the ICRC equals zlib's crc32 over the pseudo-LRH and the masked
//     fields, as RoCEv2 defines it.
// The frame then goes back into the receiver, sometimes damaged:
//   - a bit flipped in the bytes the ICRC covers: dropped as a bad ICRC
//     (or, in the IPv4 header, as a bad header: its checksum fails first);
//   - another destination MAC or IPv4 address: dropped as not addressed here;
//   - a truncated frame, or a UDP port other than 4791: a bad header;
//   - another destination MAC and truncated: a bad header (the header's
//     checks, the frame's length among them, come before the address);
//   - a bit flipped from the Ethernet source to the IPv4 header's end with
//     the checksum and the ICRC mended, so that each of the header's own
//     checks (EtherType, version and length, total length, fragment,
//     protocol) is met alone: a bad header; or not addressed here (the
//     destination), or kept (the source MAC, TOS, TTL, identification,
//     the flags but MF, the source address);
//   - 8 KiB more payload, the lengths, checksum and ICRC mended: a bad
//     header, as the packet would not fit the buffer;
//   - the variant fields changed (TTL with its checksum mended, TOS, UDP
//     checksum, the BTH's byte 4) or a MAC's padding appended: kept.
// The addresses are random (10.0.0.1's IPv4 header never makes the
// checksum's sum carry), and the receiver's outputs stop now and then for
// long enough that its buffer fills and a frame waits (in_ready low).
// Payload beats come in ragged as a gather sends them (partial beats where
// an SGE ends); every kept frame must come out on the right lane, packed,
// and each drop must be counted under its reason.
// Usage: tb_qpnic_wire [seed] [packets]; the seed is printed.
#include "Vqpnic_wire.h"
#include "verilated.h"
#include "tb_util.h"
#include "../../host/src/gen/qpnic_hw.h"
#include <zlib.h>
#include <cstring>
#include <ctime>
#include <deque>
#include <random>
#include <vector>

static Vqpnic_wire *top;
static std::mt19937 rng;
static unsigned rnd(unsigned n) { return n ? rng() % n : 0; }

// The NIC's addresses and its peer table (entry 0 is the NIC itself),
// drawn from the seed. A packet goes to the peer its LRH names; its frame
// comes back as if that peer had sent it (the addresses swapped), so the
// packet that comes out names the same peer, found by its source address.
static const unsigned NP = QPNIC_NUM_PEERS;
static uint64_t MAC, PEER_MAC[NP];
static uint32_t IP, PEER_IP[NP];

// A port packet: words as the datapath sends them, and its lane.
struct Beat { uint32_t data; unsigned keep; bool last; };
struct Pkt {
    bool resp;
    std::vector<uint32_t> words;   // LRH (peer, length), BTH, extension, payload words
    unsigned last_keep;
    // The beats it goes in as: the words above, but in a third of the
    // packets the payload comes in beats of 1 to 4 bytes, as a gather
    // sends it where an SGE ends mid-word (keep from lane 0). What comes
    // out of the receiver is packed: `words` and `last_keep`.
    std::vector<Beat> beats;
};

// every opcode the NIC sends (a segmented message's FIRST, MIDDLE and LAST
// too), by lane
static const uint8_t REQ_OPS[] = {
    QPNIC_IB_OPCODE_SEND_ONLY, QPNIC_IB_OPCODE_WRITE_ONLY, QPNIC_IB_OPCODE_READ_REQUEST,
    QPNIC_IB_OPCODE_SEND_ONLY_INV, QPNIC_IB_OPCODE_SEND_FIRST, QPNIC_IB_OPCODE_SEND_MIDDLE,
    QPNIC_IB_OPCODE_SEND_LAST, QPNIC_IB_OPCODE_SEND_LAST_INV, QPNIC_IB_OPCODE_WRITE_FIRST,
    QPNIC_IB_OPCODE_WRITE_MIDDLE, QPNIC_IB_OPCODE_WRITE_LAST};
static const uint8_t RSP_OPS[] = {
    QPNIC_IB_OPCODE_READ_RESPONSE_ONLY, QPNIC_IB_OPCODE_ACK, QPNIC_IB_OPCODE_READ_RESPONSE_FIRST,
    QPNIC_IB_OPCODE_READ_RESPONSE_MIDDLE, QPNIC_IB_OPCODE_READ_RESPONSE_LAST};
static const unsigned N_REQ_OPS = sizeof REQ_OPS, N_RSP_OPS = sizeof RSP_OPS;

// the extension header's bytes (the InfiniBand RC headers: a RETH on a
// WRITE's first packet and a READ request, an AETH on a READ response but
// its middle packets and on an ACK, an IETH on a SEND that invalidates)
static unsigned ext_bytes(uint8_t op) {
    switch (op) {
    case QPNIC_IB_OPCODE_WRITE_ONLY: case QPNIC_IB_OPCODE_WRITE_FIRST: case QPNIC_IB_OPCODE_READ_REQUEST:
        return 16;
    case QPNIC_IB_OPCODE_READ_RESPONSE_ONLY: case QPNIC_IB_OPCODE_READ_RESPONSE_FIRST:
    case QPNIC_IB_OPCODE_READ_RESPONSE_LAST: case QPNIC_IB_OPCODE_ACK:
    case QPNIC_IB_OPCODE_SEND_ONLY_INV: case QPNIC_IB_OPCODE_SEND_LAST_INV:
        return 4;
    default:
        return 0;
    }
}

static bool is_resp(uint8_t op) {
    for (uint8_t o : RSP_OPS)
        if (o == op) return true;
    return false;
}

static Pkt make_pkt(bool resp) {
    Pkt p;
    p.resp = resp;
    uint8_t op = p.resp ? RSP_OPS[rnd(N_RSP_OPS)] : REQ_OPS[rnd(N_REQ_OPS)];
    bool has_payload = op != QPNIC_IB_OPCODE_READ_REQUEST && op != QPNIC_IB_OPCODE_ACK;
    uint32_t plen = !has_payload ? 0 : rnd(6) == 0 ? 4096 - rnd(4) : rnd(3) == 0 ? rnd(8) : rnd(1500);
    p.words.push_back(rnd(NP));                        // LRH: the peer
    p.words.push_back(plen);
    uint32_t bth0 = (uint32_t)op << 24 | (rnd(2) << 23) | 0xFFFF;   // SE, pkey
    p.words.push_back(bth0);
    p.words.push_back(rnd(1 << 24));                   // dest QP
    p.words.push_back((rnd(2) << 31) | rnd(1 << 24));  // AckReq, PSN
    for (unsigned i = 0; i < ext_bytes(op) / 4; i++) p.words.push_back(rng());
    for (uint32_t i = 0; i < plen; i += 4) {
        uint32_t w = rng();
        unsigned n = plen - i < 4 ? plen - i : 4;
        if (n < 4) w &= (1u << (8 * n)) - 1;          // lanes past the payload are 0
        p.words.push_back(w);
    }
    p.last_keep = (plen % 4 == 0 || !has_payload) ? 0xF : (1u << (plen % 4)) - 1;
    size_t hdr_words = 5 + ext_bytes(op) / 4;
    for (size_t i = 0; i < hdr_words; i++) p.beats.push_back({p.words[i], 0xF, false});
    bool ragged = rnd(3) == 0;
    for (uint32_t at = 0; at < plen;) {
        uint32_t n = plen - at < 4 ? plen - at : 4;
        if (ragged && rnd(2)) n = 1 + rnd(n);
        uint32_t w = 0;
        for (uint32_t b = 0; b < n; b++, at++)
            w |= (p.words[hdr_words + at / 4] >> (8 * (at % 4)) & 0xFF) << (8 * b);
        p.beats.push_back({w, (1u << n) - 1, false});
    }
    p.beats.back().last = true;
    return p;
}

// ------------------------------------------------- the frame, checked
static unsigned get(const std::vector<uint8_t> &f, unsigned off, unsigned n) {
    unsigned v = 0;
    for (unsigned i = 0; i < n; i++) v = v << 8 | f[off + i];
    return v;
}
static uint64_t get48(const std::vector<uint8_t> &f, unsigned off) {
    return (uint64_t)get(f, off, 2) << 32 | get(f, off + 2, 4);
}
static uint16_t ip_csum(const std::vector<uint8_t> &f) {
    uint32_t s = 0;
    for (unsigned i = 0; i < 20; i += 2) s += get(f, 14 + i, 2);
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)s;   // all ones when the header holds
}
// The RoCEv2 ICRC of a frame (its last 4 bytes excluded), with zlib.
static uint32_t icrc_of(const std::vector<uint8_t> &f, unsigned ip_len) {
    std::vector<uint8_t> v(8, 0xFF);
    v.insert(v.end(), f.begin() + 14, f.begin() + 14 + ip_len - 4);
    v[8 + 1] = 0xFF;                  // TOS
    v[8 + 8] = 0xFF;                  // TTL
    v[8 + 10] = v[8 + 11] = 0xFF;     // IPv4 checksum
    v[8 + 26] = v[8 + 27] = 0xFF;     // UDP checksum
    v[8 + 28 + 4] = 0xFF;             // BTH byte 4
    return (uint32_t)crc32(0, v.data(), (uInt)v.size());
}
static void fix_ip_csum(std::vector<uint8_t> &f) {
    f[24] = f[25] = 0;
    uint16_t c = (uint16_t)~ip_csum(f);
    f[24] = c >> 8;
    f[25] = c & 0xFF;
}
static void fix_icrc(std::vector<uint8_t> &f) {
    unsigned ip_len = get(f, 16, 2);
    if (ip_len < 20 + 8 + 12 + 4 || f.size() < 14 + ip_len) return;   // (a length damaged: no ICRC to mend)
    uint32_t c = icrc_of(f, ip_len);
    for (int i = 0; i < 4; i++) f[14 + ip_len - 4 + i] = (uint8_t)(c >> (8 * i));
}

static void check_frame(const std::vector<uint8_t> &f, const Pkt &p, long n) {
    unsigned peer = p.words[0];
    uint32_t plen = p.words[1];
    uint8_t op = p.words[2] >> 24;
    unsigned ext = ext_bytes(op), pad = (4 - plen % 4) % 4;
    unsigned ip_len = 20 + 8 + 12 + ext + plen + pad + 4;
    CHECK(f.size() == 14 + ip_len, "frame %ld: %zu bytes, want %u", n, f.size(), 14 + ip_len);
    CHECK(get48(f, 0) == PEER_MAC[peer] && get48(f, 6) == MAC, "frame %ld: MAC addresses (to peer %u)", n, peer);
    CHECK(get(f, 12, 2) == QPNIC_ROCE_ETH_TYPE_VALUE, "frame %ld: EtherType %04x", n, get(f, 12, 2));
    CHECK(f[14] == 0x45 && f[15] == 0 && get(f, 16, 2) == ip_len && get(f, 18, 2) == 0 &&
              get(f, 20, 2) == 0x4000 && f[22] == 64 && f[23] == 17,
          "frame %ld: IPv4 header fields (length %u, want %u)", n, get(f, 16, 2), ip_len);
    CHECK(ip_csum(f) == 0xFFFF, "frame %ld: IPv4 checksum does not hold", n);
    CHECK(get(f, 26, 4) == IP && get(f, 30, 4) == PEER_IP[peer], "frame %ld: IPv4 addresses (to peer %u)", n, peer);
    CHECK(get(f, 34, 2) == (0xC000u | (p.words[3] & 0x3FFF)), "frame %ld: UDP source port %04x", n,
          get(f, 34, 2));
    CHECK(get(f, 36, 2) == 4791 && get(f, 38, 2) == ip_len - 20 && get(f, 40, 2) == 0,
          "frame %ld: UDP header", n);
    // the BTH: the port's words with padcnt set
    uint32_t bth0 = (p.words[2] & ~(3u << 20)) | pad << 20;
    CHECK(get(f, 42, 4) == bth0 && get(f, 46, 4) == p.words[3] && get(f, 50, 4) == p.words[4],
          "frame %ld: BTH %08x %08x %08x", n, get(f, 42, 4), get(f, 46, 4), get(f, 50, 4));
    for (unsigned i = 0; i < ext / 4; i++)
        CHECK(get(f, 54 + 4 * i, 4) == p.words[5 + i], "frame %ld: extension word %u", n, i);
    for (uint32_t i = 0; i < plen; i++) {
        uint8_t want = (uint8_t)(p.words[5 + ext / 4 + i / 4] >> (8 * (i % 4)));
        CHECK(f[54 + ext + i] == want, "frame %ld: payload byte %u is %02x, want %02x", n, i,
              f[54 + ext + i], want);
    }
    for (unsigned i = 0; i < pad; i++) CHECK(f[54 + ext + plen + i] == 0, "frame %ld: pad byte", n);
    uint32_t want = icrc_of(f, ip_len);
    uint32_t got = get(f, 14 + ip_len - 4, 4);
    got = __builtin_bswap32(got);   // least significant byte first
    CHECK(got == want, "frame %ld: ICRC %08x, zlib says %08x", n, got, want);
}

// ------------------------------------------------------- the harness
enum Fate { KEEP, DROP_ICRC, DROP_HDR, DROP_ADDR };

// What the receiver must do with frame f, by the rules of qpnic_roce_rx's
// header comment, checked in its order: the header, the addresses, the ICRC.
static Fate predict(const std::vector<uint8_t> &f) {
    if (f.size() < 45) return DROP_HDR;   // not even the BTH's first word
    unsigned ip_len = get(f, 16, 2), udp_len = get(f, 38, 2);
    uint8_t op = f[42];
    bool known = false;
    for (uint8_t o : REQ_OPS) known |= o == op;
    for (uint8_t o : RSP_OPS) known |= o == op;
    unsigned pad = f[43] >> 4 & 3;
    long plen = (long)udp_len - 24 - (known ? ext_bytes(op) : 0) - pad;
    bool hdr_ok = get(f, 12, 2) == 0x0800 && f[14] == 0x45 && f[23] == 17 &&
                  (get(f, 20, 2) & 0x3FFF) == 0 && ip_csum(f) == 0xFFFF && get(f, 36, 2) == 4791 &&
                  udp_len == ip_len - 20 && udp_len % 4 == 0 && known && (f[43] & 0xF) == 0 &&
                  plen >= 0 && (udp_len - 12) / 4 + 2 <= 2048 && f.size() >= 14 + (size_t)ip_len;
    if (!hdr_ok) return DROP_HDR;
    bool known_src = false;
    for (unsigned i = 0; i < NP; i++) known_src |= get(f, 26, 4) == PEER_IP[i];
    if (get48(f, 0) != MAC || get(f, 30, 4) != IP || !known_src) return DROP_ADDR;
    uint32_t got = __builtin_bswap32(get(f, 14 + ip_len - 4, 4));
    return got == icrc_of(f, ip_len) ? KEEP : DROP_ICRC;
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], nullptr, 0) : (unsigned)time(nullptr);
    long npkts = argc > 2 ? strtol(argv[2], nullptr, 0) : 3000;
    std::printf("tb_qpnic_wire seed %u (tb_qpnic_wire %u replays it)\n", seed, seed);
    rng.seed(seed);
    top = new Vqpnic_wire;
    for (unsigned i = 0; i < NP; i++) {
        bool fresh;
        do {
            PEER_MAC[i] = ((uint64_t)rng() << 16 ^ rng()) & 0xFEFFFFFFFFFFull;   // (unicast)
            PEER_IP[i] = rng();
            fresh = PEER_IP[i] != 0;
            for (unsigned k = 0; k < i; k++) fresh &= PEER_IP[k] != PEER_IP[i];
        } while (!fresh);
        // the table's entry i: 48 bits of MAC, 32 of IPv4 (Verilator's words)
        for (unsigned b = 0; b < 48; b++)
            if (PEER_MAC[i] >> b & 1) top->peer_mac[(48 * i + b) / 32] |= 1u << ((48 * i + b) % 32);
        top->peer_ip[i] = PEER_IP[i];
    }
    MAC = PEER_MAC[0];
    IP = PEER_IP[0];
    top->cfg_mac = MAC;
    top->cfg_ip = IP;
    top->rst = 1;
    for (int i = 0; i < 4; i++) tb_tick(top);
    top->rst = 0;

    // What goes in: packets by lane, each as beats.
    std::deque<Pkt> sent;                 // in the order the frames must leave
    std::deque<Beat> lane_in[2];
    std::deque<Pkt> lane_pkts[2];
    std::deque<Pkt> expect[2];            // kept packets, by lane, in order
    std::deque<std::vector<uint8_t>> to_rx;
    std::vector<uint8_t> cur_tx;
    std::vector<Beat> rx_beats;           // the frame being fed in
    size_t rx_at = 0;
    long made = 0, frames = 0, kept = 0, got[2] = {0, 0};
    long want_cnt[4] = {0, 0, 0, 0}, cnt[4] = {0, 0, 0, 0}, tx_frames = 0;
    std::vector<uint32_t> out_words[2];
    // the merge's order is not known in advance: each frame is matched to
    // the oldest packet of the lane its opcode names
    long cycles = 0, idle = 0, hold = 0, rx_waits = 0;
    while (idle < 20000) {
        cycles++;
        // new packets
        for (int l = 0; l < 2; l++)
            if (made < npkts && lane_in[l].size() < 64 && rnd(4) == 0) {
                Pkt p = make_pkt(l);
                for (const Beat &b : p.beats)
                    lane_in[l].push_back(b);
                lane_pkts[l].push_back(p);
                made++;
            }
        // drive inputs
        bool qv = !lane_in[0].empty() && rnd(8) != 0, sv = !lane_in[1].empty() && rnd(8) != 0;
        top->txq_valid = qv;
        if (qv) { top->txq_data = lane_in[0].front().data; top->txq_keep = lane_in[0].front().keep; top->txq_last = lane_in[0].front().last; }
        top->txs_valid = sv;
        if (sv) { top->txs_data = lane_in[1].front().data; top->txs_keep = lane_in[1].front().keep; top->txs_last = lane_in[1].front().last; }
        top->ftx_ready = rnd(8) != 0;
        bool rv = rx_at < rx_beats.size() && rnd(8) != 0;
        top->frx_valid = rv;
        if (rv) { top->frx_data = rx_beats[rx_at].data; top->frx_keep = rx_beats[rx_at].keep; top->frx_last = rx_beats[rx_at].last; }
        // now and then the outputs stop long enough to fill the receiver's buffer
        if (hold) hold--;
        else if (rnd(20000) == 0) hold = 2000 + rnd(6000);
        top->rxq_ready = !hold && rnd(6) != 0;
        top->rxs_ready = !hold && rnd(6) != 0;
        top->clk = 0;
        top->eval();
        bool q_take = top->txq_valid && top->txq_ready, s_take = top->txs_valid && top->txs_ready;
        bool f_take = top->ftx_valid && top->ftx_ready;
        uint32_t f_data = top->ftx_data; unsigned f_keep = top->ftx_keep; bool f_last = top->ftx_last;
        bool r_take = top->frx_valid && top->frx_ready;
        rx_waits += top->frx_valid && !top->frx_ready;
        bool oq = top->rxq_valid && top->rxq_ready, os = top->rxs_valid && top->rxs_ready;
        uint32_t oq_d = top->rxq_data, os_d = top->rxs_data;
        unsigned oq_k = top->rxq_keep, os_k = top->rxs_keep;
        bool oq_l = top->rxq_last, os_l = top->rxs_last;
        top->clk = 1;
        top->eval();
        bool any = q_take || s_take || f_take || r_take || oq || os;
        if (q_take) lane_in[0].pop_front();
        if (s_take) lane_in[1].pop_front();
        if (r_take) rx_at++;
        if (top->cnt_tx_frame) tx_frames++;
        if (top->cnt_rx_frame) cnt[KEEP]++;
        if (top->cnt_drop_icrc) cnt[DROP_ICRC]++;
        if (top->cnt_drop_hdr) cnt[DROP_HDR]++;
        if (top->cnt_drop_addr) cnt[DROP_ADDR]++;
        if (f_take) {
            for (int l = 0; l < 4; l++)
                if (f_keep >> l & 1) cur_tx.push_back((uint8_t)(f_data >> (8 * l)));
            if (f_last) {
                // which packet: the oldest of its opcode's lane
                uint8_t op = cur_tx.size() > 42 ? cur_tx[42] : 0;
                int l = is_resp(op) ? 1 : 0;
                CHECK(!lane_pkts[l].empty(), "frame %ld with opcode %02x, and no packet sent on its lane",
                      frames, op);
                Pkt p = lane_pkts[l].front();
                lane_pkts[l].pop_front();
                check_frame(cur_tx, p, frames);
                frames++;
                // its fate on the way back
                std::vector<uint8_t> f = cur_tx;
                cur_tx.clear();
                unsigned ip_len = get(f, 16, 2);
                // back as the peer's answer: from its addresses to the NIC's
                unsigned peer = p.words[0];
                for (int i = 0; i < 6; i++) {
                    f[i] = (uint8_t)(MAC >> (40 - 8 * i));
                    f[6 + i] = (uint8_t)(PEER_MAC[peer] >> (40 - 8 * i));
                }
                for (int i = 0; i < 4; i++) {
                    f[26 + i] = (uint8_t)(PEER_IP[peer] >> (24 - 8 * i));
                    f[30 + i] = (uint8_t)(IP >> (24 - 8 * i));
                }
                fix_ip_csum(f);
                fix_icrc(f);
                unsigned dmg = rnd(16);
                switch (dmg) {
                case 0: f[34 + rnd(ip_len - 20)] ^= 1u << rnd(8); break;    // past the IPv4 header
                case 1: f[14 + rnd(20)] ^= 1u << rnd(8); break;             // in the IPv4 header
                case 2: f[42 + rnd(12)] ^= 1u << rnd(8); break;             // in the BTH
                case 3: if (rnd(2)) f[rnd(6)] ^= 1;                         // another MAC
                        else { f[30 + rnd(4)] ^= 1; fix_ip_csum(f); fix_icrc(f); }   // another IPv4 address
                        break;
                case 4: f.resize(rnd(f.size())); break;                     // truncated
                case 5: f[22] = (uint8_t)rng(); f[15] = (uint8_t)rng(); fix_ip_csum(f);
                        f[40] = (uint8_t)rng(); f[46] = (uint8_t)rng(); break;   // variant fields
                case 6: for (unsigned i = 1 + rnd(6); i; i--) f.push_back((uint8_t)rng()); break;   // MAC padding
                case 7: f[37] ^= 1; fix_icrc(f); break;                     // another UDP port
                case 8: f[rnd(6)] ^= 1; f.resize(45 + rnd(f.size() - 45)); break;   // another MAC, truncated
                case 9: f[6 + rnd(20)] ^= 1u << rnd(8); fix_ip_csum(f); fix_icrc(f); break;   // mended
                case 11: f[26 + rnd(4)] ^= 1u << rnd(8); fix_ip_csum(f); fix_icrc(f); break;  // a source in the table or not
                case 10: {                                                  // too large for the buffer
                    const unsigned more = 8192;   // (a multiple of 4: the pad stays)
                    f.insert(f.end() - 4, more, 0);
                    ip_len += more;
                    f[16] = ip_len >> 8; f[17] = ip_len & 0xFF;
                    f[38] = (ip_len - 20) >> 8; f[39] = (ip_len - 20) & 0xFF;
                    fix_ip_csum(f);
                    fix_icrc(f);
                    break;
                }
                default: break;
                }
                Fate fate = predict(f);
                // the tb's own rules must keep what is not damaged
                if (dmg == 5 || dmg == 6 || dmg >= 12)
                    CHECK(fate == KEEP, "frame %ld: damage %u should be kept, the tb predicts a drop", frames - 1, dmg);
                if (dmg == 8 || dmg == 10)
                    CHECK(fate == DROP_HDR, "frame %ld: damage %u is a bad header, the tb predicts %d", frames - 1,
                          dmg, fate);
                if (fate == KEEP) expect[l].push_back(p);
                want_cnt[fate]++;
                to_rx.push_back(f);
            }
        }
        // the next frame into the receiver
        if (rx_at == rx_beats.size() && !to_rx.empty()) {
            std::vector<uint8_t> f = to_rx.front();
            to_rx.pop_front();
            rx_beats.clear();
            rx_at = 0;
            if (f.empty()) f.push_back(0);   // (a frame has a byte)
            for (size_t i = 0; i < f.size(); i += 4) {
                Beat b{0, 0, i + 4 >= f.size()};
                for (unsigned l = 0; l < 4 && i + l < f.size(); l++) {
                    b.data |= (uint32_t)f[i + l] << (8 * l);
                    b.keep |= 1u << l;
                }
                rx_beats.push_back(b);
            }
        }
        // what comes out
        for (int l = 0; l < 2; l++) {
            bool take = l ? os : oq;
            if (!take) continue;
            uint32_t dw = l ? os_d : oq_d;
            unsigned k = l ? os_k : oq_k;
            bool last = l ? os_l : oq_l;
            out_words[l].push_back(dw);
            if (last) {
                CHECK(!expect[l].empty(), "a packet on lane %d that no kept frame carried", l);
                Pkt p = expect[l].front();
                expect[l].pop_front();
                CHECK(out_words[l].size() == p.words.size(), "lane %d packet %ld: %zu words, want %zu", l,
                      got[l], out_words[l].size(), p.words.size());
                for (size_t i = 0; i < p.words.size(); i++)
                    CHECK(out_words[l][i] == p.words[i], "lane %d packet %ld word %zu: %08x, want %08x", l,
                          got[l], i, out_words[l][i], p.words[i]);
                CHECK(k == p.last_keep, "lane %d packet %ld: last keep %x, want %x", l, got[l], k, p.last_keep);
                out_words[l].clear();
                got[l]++;
                kept++;
            } else {
                CHECK(k == 0xF, "lane %d: keep %x before the last beat", l, k);
            }
        }
        idle = any ? 0 : idle + 1;
    }
    CHECK(made == npkts && frames == npkts && tx_frames == npkts, "%ld packets, %ld frames (%ld counted)",
          made, frames, tx_frames);
    CHECK(expect[0].empty() && expect[1].empty(), "%zu + %zu kept packets never came out",
          expect[0].size(), expect[1].size());
    // (a coverage check: a short run may never fill the buffer)
    CHECK(npkts < 1000 || rx_waits > 0, "the receiver's buffer never filled: its wait is untested");
    const char *names[4] = {"kept", "bad ICRC", "bad header", "not addressed here"};
    for (int i = 0; i < 4; i++)
        CHECK(cnt[i] == want_cnt[i], "%s: counted %ld, want %ld", names[i], cnt[i], want_cnt[i]);
    std::printf("tb_qpnic_wire: %ld packets in %ld cycles: %ld kept, %ld bad ICRC, %ld bad header, "
                "%ld not addressed here; %ld cycles a frame waited for the buffer\n", npkts, cycles, cnt[0],
                cnt[1], cnt[2], cnt[3], rx_waits);
    PASS("qpnic_wire frames match zlib's ICRC and the layout, round trip exact, drops counted by reason");
    delete top;
    return 0;
}
