// tb_qpnic_uart: unit test of rtl/qpnic_uart.v at its default rate (48 MHz,
// 3 Mbaud: 16 cycles a bit) and, built again with -GBAUD=12000000
// -DTB_BAUD=12000000 (tests/tests.mk), at 12 Mbaud: 4 cycles a bit.
//
// Receive: random bytes from a sender whose clock is off by up to +-2%
// (a USB bridge's rate is not the board's exactly), with random idle time
// between bytes and a random phase of each edge within its cycle; a glitch
// shorter than a quarter of a bit; a byte whose stop bit is 0. Checks: every byte
// arrives in order, the glitch makes no byte, the bad stop bit gives rx_err
// and no byte. Transmit: random bytes with random gaps; the line is decoded
// at each bit's middle from its start edge. Checks: start and stop bits,
// the data, and each byte lasting ten bits to within a cycle. Seed printed;
// TB_SEED replays it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <memory>
#include <vector>

#include "Vqpnic_uart.h"
#include "verilated.h"
#include "tb_util.h"

#ifndef TB_CLK_HZ
#define TB_CLK_HZ 48000000.0
#endif
#ifndef TB_BAUD
#define TB_BAUD 3000000.0
#endif

namespace {

const double BIT = TB_CLK_HZ / TB_BAUD;   // cycles a bit

struct Tb {
    std::unique_ptr<Vqpnic_uart> m{new Vqpnic_uart};
    unsigned seed;
    uint64_t cycle = 0;
    std::vector<uint8_t> got;
    unsigned errs = 0;
    std::vector<int> tx_line;     // tx, cycle by cycle

    unsigned rnd() { return (unsigned)rand_r(&seed); }

    // reset, with the line idle
    explicit Tb(unsigned s) : seed(s) {
        m->rst = 1;
        m->tx_valid = 0;
        for (int i = 0; i < 4; i++) tick(1);
        m->rst = 0;
    }

    void tick(int rx) {
        m->rx = (uint8_t)rx;
        m->clk = 0;
        m->eval();
        if (m->rx_valid) got.push_back(m->rx_data);
        if (m->rx_err) errs++;
        tx_line.push_back(m->tx);
        m->clk = 1;
        m->eval();
        cycle++;
    }
};

// The rx waveform of a byte list: a level per cycle.
struct Wave {
    std::vector<int> level;
    double t = 0;                 // time in cycles, fractional
    void hold(int v, double cycles) {
        double end = t + cycles;
        while ((double)level.size() < end) level.push_back(v);
        t = end;
    }
};

void receive(unsigned seed) {
    Tb tb(seed);
    for (int i = 0; i < 8; i++) tb.tick(1);

    double skew = 1.0 + ((int)(tb.rnd() % 401) - 200) / 10000.0;   // -2% .. +2%
    double bit = BIT * skew;
    Wave w;
    w.hold(1, (tb.rnd() % 100) / 100.0 + 3);
    std::vector<uint8_t> sent;
    for (int i = 0; i < 600; i++) {
        if (i == 300) {
            // a glitch: low for under a quarter of a bit, then idle
            w.hold(0, bit * 0.2);
            w.hold(1, bit * 2);
        }
        uint8_t b = (uint8_t)tb.rnd();
        if (i == 0) b = 0x00;
        if (i == 1) b = 0xFF;
        sent.push_back(b);
        w.hold(0, bit);
        for (int k = 0; k < 8; k++) w.hold(b >> k & 1, bit);
        w.hold(1, bit);
        if (tb.rnd() % 3 == 0) w.hold(1, (tb.rnd() % 300) / 100.0 * bit);
    }
    w.hold(1, bit * 4);
    for (int v : w.level) tb.tick(v);
    CHECK(tb.errs == 0, "skew %.4f: %u framing errors on a clean line", skew, tb.errs);
    CHECK(tb.got.size() == sent.size(), "skew %.4f: %zu bytes received, %zu sent", skew, tb.got.size(), sent.size());
    for (size_t i = 0; i < sent.size(); i++)
        CHECK(tb.got[i] == sent[i], "skew %.4f: byte %zu received 0x%02x, sent 0x%02x", skew, i, tb.got[i], sent[i]);

    // a byte whose stop bit is 0 (a break, or a corrupt byte): rx_err, no byte
    Wave bad;
    bad.hold(0, BIT);
    for (int k = 0; k < 8; k++) bad.hold(0x5A >> k & 1, BIT);
    bad.hold(0, BIT);
    bad.hold(1, BIT * 4);
    size_t before = tb.got.size();
    for (int v : bad.level) tb.tick(v);
    CHECK(tb.errs == 1, "a zero stop bit gave %u framing errors, expected 1", tb.errs);
    CHECK(tb.got.size() == before, "a zero stop bit still delivered a byte");
    std::printf("  receive: 600 bytes at skew %+.2f%%, %.2f cycles a bit\n", (skew - 1) * 100, BIT);
}

void transmit(unsigned seed) {
    Tb tb(seed);
    tb.tx_line.clear();
    std::deque<uint8_t> todo;
    std::vector<uint8_t> sent;
    for (int i = 0; i < 400; i++) todo.push_back((uint8_t)tb.rnd());
    unsigned gap = 0;
    while (!todo.empty()) {
        tb.m->tx_valid = gap == 0;
        tb.m->tx_data = todo.front();
        tb.m->clk = 0;
        tb.m->eval();
        bool fire = tb.m->tx_valid && tb.m->tx_ready;
        tb.m->clk = 1;     // tick() would eval clk low again: do the edge here
        tb.tx_line.push_back(tb.m->tx);
        tb.m->eval();
        tb.cycle++;
        if (fire) {
            sent.push_back(todo.front());
            todo.pop_front();
            gap = tb.rnd() % 4 == 0 ? tb.rnd() % 40 : 0;
        } else if (gap) {
            gap--;
        }
    }
    tb.m->tx_valid = 0;
    for (int i = 0; i < (int)(BIT * 12); i++) tb.tick(1);

    // decode the line
    const std::vector<int> &l = tb.tx_line;
    std::vector<uint8_t> dec;
    size_t i = 1;
    while (i < l.size()) {
        if (!(l[i - 1] == 1 && l[i] == 0)) {
            i++;
            continue;
        }
        size_t s = i;
        uint8_t b = 0;
        CHECK(l[s + (size_t)(BIT * 0.5)] == 0, "byte %zu: start bit not low at its middle", dec.size());
        for (int k = 0; k < 8; k++)
            b |= (uint8_t)(l[s + (size_t)(BIT * (k + 1.5))] << k);
        CHECK(l[s + (size_t)(BIT * 9.5)] == 1, "byte %zu: stop bit not high at its middle", dec.size());
        dec.push_back(b);
        // the stop bit lasts to the end of the tenth bit: no start edge before
        size_t end = s + (size_t)(BIT * 10) - 1;
        for (size_t j = s + (size_t)(BIT * 9); j < end && j < l.size(); j++)
            CHECK(l[j] == 1, "byte %zu: stop bit shorter than a bit (low at %zu cycles after the start)", dec.size() - 1,
                  j - s);
        i = end;
    }
    CHECK(dec.size() == sent.size(), "%zu bytes decoded from the line, %zu sent", dec.size(), sent.size());
    for (size_t k = 0; k < sent.size(); k++)
        CHECK(dec[k] == sent[k], "byte %zu on the line 0x%02x, sent 0x%02x", k, dec[k], sent[k]);
    std::printf("  transmit: 400 bytes, %.2f cycles a bit\n", BIT);
}

} // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    char name[64];
    std::snprintf(name, sizeof name, "tb_qpnic_uart (%.0f baud at %.0f Hz)", TB_BAUD, TB_CLK_HZ);
    unsigned seed = tb_seed(name, (unsigned)time(nullptr));
    for (unsigned r = 0; r < 4; r++) receive(seed + r);
    PASS("uart_receive");
    transmit(seed);
    PASS("uart_transmit");
    return 0;
}
