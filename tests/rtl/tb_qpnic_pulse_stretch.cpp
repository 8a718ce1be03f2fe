// tb_qpnic_pulse_stretch: unit test of boards/common/qpnic_pulse_stretch.v,
// which turns one-cycle pulses into LED flashes a person can see.
//
// At its default CYCLES (50 ms at 48 MHz), each case checks the promise of
// the module's header: one pulse, one flash of exactly CYCLES cycles, then
// dark; a pulse during a flash adds nothing; a pulse during the gap after a
// flash is not lost but shown when the gap ends; pulses every cycle blink
// CYCLES on, CYCLES off; reset darkens it and forgets what was pending.
#include <memory>

#include "Vqpnic_pulse_stretch.h"
#include "verilated.h"
#include "tb_util.h"

namespace {

// The module's default: 50 ms at the boards' 48 MHz.
constexpr long CYCLES = 2400000;

struct Tb {
    std::unique_ptr<Vqpnic_pulse_stretch> m{new Vqpnic_pulse_stretch};
    void reset() {
        m->pulse = 0;
        m->rst = 1;
        tb_tick(m.get());
        m->rst = 0;
    }
    // One clock edge with `pulse` at p; then the LED as it is after it.
    bool tick(int p = 0) {
        m->pulse = p;
        tb_tick(m.get());
        m->pulse = 0;
        m->eval();
        return m->led;
    }
    // Runs n cycles with no pulse; the number of them with the LED lit.
    long lit_over(long n) {
        long lit = 0;
        for (long i = 0; i < n; i++)
            lit += tick();
        return lit;
    }
};

void test_dark_after_reset(Tb &t) {
    t.reset();
    CHECK(t.lit_over(3 * CYCLES) == 0, "no pulse came, yet the LED was lit");
    PASS("pulse_stretch_dark_without_pulses");
}

void test_one_pulse_one_flash(Tb &t) {
    t.reset();
    CHECK(t.tick(1), "the LED did not light on the edge that took the pulse");
    long on = 1;
    while (t.tick())
        on++;
    CHECK(on == CYCLES, "one pulse lit the LED for %ld cycles, expected %ld", on, CYCLES);
    CHECK(t.lit_over(3 * CYCLES) == 0, "a single pulse gave a second flash");
    PASS("pulse_stretch_one_pulse_lights_exactly_cycles");
}

void test_pulse_during_flash_adds_nothing(Tb &t) {
    t.reset();
    t.tick(1);
    t.lit_over(CYCLES / 2);
    CHECK(t.tick(1), "a pulse in the middle of a flash darkened the LED");
    // CYCLES / 2 + 2 cycles of the flash are gone: the two pulses' and the
    // ones between them.
    const long rest = CYCLES - CYCLES / 2 - 2;
    long lit = t.lit_over(4 * CYCLES);
    CHECK(lit == rest, "a pulse during a flash changed it: %ld more lit cycles, expected "
          "%ld (the rest of the first flash)", lit, rest);
    PASS("pulse_stretch_pulse_during_flash_is_covered_by_it");
}

void test_pulse_during_gap_is_kept(Tb &t) {
    t.reset();
    t.tick(1);
    t.lit_over(CYCLES - 1);                 // the flash ends
    CHECK(t.lit_over(10) == 0, "the LED was lit right after its flash");
    CHECK(!t.tick(1), "a pulse in the gap lit the LED before the gap ended");
    long dark = 11;
    while (!t.tick())
        CHECK(++dark <= CYCLES, "a pulse in the gap was lost: dark for %ld cycles", dark);
    CHECK(dark == CYCLES, "the gap lasted %ld cycles, expected %ld", dark, CYCLES);
    long on = 1;
    while (t.tick())
        on++;
    CHECK(on == CYCLES, "the flash for the pulse in the gap lasted %ld cycles, expected %ld",
          on, CYCLES);
    PASS("pulse_stretch_pulse_during_gap_flashes_after_it");
}

void test_steady_pulses_blink(Tb &t) {
    t.reset();
    // Pulses on every edge: expect CYCLES lit, CYCLES dark, CYCLES lit.
    const bool want[3] = {true, false, true};
    for (int phase = 0; phase < 3; phase++)
        for (long i = 0; i < CYCLES; i++) {
            bool led = t.tick(1);
            CHECK(led == want[phase], "pulses every cycle: phase %d cycle %ld the LED was %s",
                  phase, i, led ? "lit" : "dark");
        }
    PASS("pulse_stretch_steady_pulses_blink_on_off");
}

void test_reset_forgets(Tb &t) {
    t.reset();
    t.tick(1);
    t.lit_over(CYCLES);                     // now in the gap
    t.tick(1);                              // pending
    t.reset();
    CHECK(t.lit_over(3 * CYCLES) == 0, "a pulse pending before reset lit the LED after it");
    t.tick(1);
    t.reset();
    CHECK(t.lit_over(2) == 0, "reset in the middle of a flash left the LED lit");
    PASS("pulse_stretch_reset_darkens_and_forgets");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    test_dark_after_reset(t);
    test_one_pulse_one_flash(t);
    test_pulse_during_flash_adds_nothing(t);
    test_pulse_during_gap_is_kept(t);
    test_steady_pulses_blink(t);
    test_reset_forgets(t);
    return 0;
}
