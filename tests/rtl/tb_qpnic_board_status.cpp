// tb_qpnic_board_status: unit test of boards/common/qpnic_board_status.v,
// what the boards' LEDs show, at its defaults (48 MHz, 50 ms activity
// flashes, 500 ms error flashes).
//
// Cases: the link LED follows link_up; one frame lights the activity LED
// for 50 ms and one dropped frame the error LED for 500 ms; the heartbeat
// toggles every 2^25 cycles (a period of 1.4 s) and runs through reset; the
// one-LED output shows, by priority, errors (fast blinking), then link up
// (lit, dark for activity), then the heartbeat.
#include <memory>

#include "Vqpnic_board_status.h"
#include "verilated.h"
#include "tb_util.h"

namespace {

constexpr long CLK_HZ = 48000000;
constexpr long ACT = CLK_HZ / 1000 * 50;
constexpr long ERR = CLK_HZ / 1000 * 500;
constexpr long HALF_BEAT = 1L << 25;    // $clog2(48e6) = 26: the top bit is 25

struct Tb {
    std::unique_ptr<Vqpnic_board_status> m{new Vqpnic_board_status};
    void reset() {
        m->link_up = 0;
        m->activity = 0;
        m->error = 0;
        m->rst = 1;
        tb_tick(m.get());
        m->rst = 0;
    }
    void tick() {
        tb_tick(m.get());
        m->activity = 0;
        m->error = 0;
    }
    // Runs n cycles; counts those in which `out` is high, and its changes.
    struct Seen { long high = 0, changes = 0; };
    Seen run(long n, const unsigned char &out) {
        Seen s;
        unsigned char last = out;
        for (long i = 0; i < n; i++) {
            tick();
            s.high += out;
            s.changes += out != last;
            last = out;
        }
        return s;
    }
};

void test_link(Tb &t) {
    t.reset();
    t.m->link_up = 1;
    t.tick();
    CHECK(t.m->led_link, "link_up high, the link LED dark one cycle later");
    t.m->link_up = 0;
    t.tick();
    CHECK(!t.m->led_link, "link_up low, the link LED still lit one cycle later");
    PASS("board_status_link_led_follows_link_up");
}

void test_activity_and_error(Tb &t) {
    t.reset();
    t.m->activity = 1;
    long lit = t.run(3 * ACT, t.m->led_activity).high;
    CHECK(lit == ACT, "one frame lit the activity LED %ld cycles, expected %ld (50 ms)", lit, ACT);
    t.m->error = 1;
    lit = t.run(3 * ERR, t.m->led_error).high;
    CHECK(lit == ERR, "one dropped frame lit the error LED %ld cycles, expected %ld (500 ms)",
          lit, ERR);
    PASS("board_status_frames_flash_activity_and_error");
}

void test_heartbeat(Tb &t) {
    t.m->rst = 1;                           // the heartbeat runs through reset
    unsigned char start = t.m->led_heartbeat;
    long n = 0;
    while (t.m->led_heartbeat == start) {
        t.tick();
        CHECK(++n <= HALF_BEAT + 1, "the heartbeat did not change in %ld cycles", n);
    }
    Tb::Seen s = t.run(HALF_BEAT, t.m->led_heartbeat);
    CHECK(s.changes == 1, "the heartbeat changed %ld times in 2^25 cycles after a change, "
          "expected once, at the end", s.changes);
    CHECK(s.high == 0 || s.high == HALF_BEAT - 1 || s.high == 1 || s.high == HALF_BEAT,
          "the heartbeat was high %ld of 2^25 cycles: not a square wave", s.high);
    t.m->rst = 0;
    PASS("board_status_heartbeat_toggles_every_2_25_cycles");
}

void test_single_led(Tb &t) {
    t.reset();
    t.tick();
    t.tick();
    CHECK(t.m->led_single == t.m->led_heartbeat, "link down: the one LED is not the heartbeat");
    t.m->link_up = 1;
    t.tick();
    t.tick();
    CHECK(t.m->led_single, "link up, no traffic: the one LED is dark");
    t.m->activity = 1;
    long lit = t.run(2 * ACT, t.m->led_single).high;
    CHECK(lit == ACT, "link up, one frame: the one LED was lit %ld of %ld cycles, expected "
          "dark for 50 ms only (%ld)", lit, 2 * ACT, ACT);
    t.m->error = 1;
    t.tick();
    Tb::Seen s = t.run(ERR - 2, t.m->led_single);
    // 8 times the heartbeat's rate: a change every 2^22 cycles, 5 in 500 ms.
    CHECK(s.changes >= 5, "after a dropped frame the one LED changed %ld times in 500 ms: "
          "not the fast blinking", s.changes);
    t.run(4, t.m->led_single);              // past the flash and the LED register
    CHECK(t.m->led_single, "the error flash over, link up: the one LED is dark");
    PASS("board_status_single_led_priorities");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    test_link(t);
    test_activity_and_error(t);
    test_heartbeat(t);
    test_single_led(t);
    return 0;
}
