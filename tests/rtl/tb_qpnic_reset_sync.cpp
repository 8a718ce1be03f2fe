// tb_qpnic_reset_sync: unit test of boards/common/qpnic_reset_sync.v, the
// boards' reset: asserted at once by the PLL's lock going low or the reset
// button (no clock needed), released on a clock edge STAGES edges later.
//
// Cases: high from configuration and released after STAGES edges; rising
// with arst with no clock edge at all; the exact release edge; a bounce
// restarting the count; held while arst is held.
#include <memory>

#include "Vqpnic_reset_sync.h"
#include "verilated.h"
#include "tb_util.h"

namespace {

constexpr int STAGES = 3;   // the module's default

struct Tb {
    std::unique_ptr<Vqpnic_reset_sync> m{new Vqpnic_reset_sync};
    bool rst() { m->eval(); return m->rst; }
    bool tick() { tb_tick(m.get()); return m->rst; }
    void set_arst(int v) { m->arst = v; m->eval(); }
    // Clock edges until rst falls (at most `limit`); the count.
    int edges_to_release(int limit = 100) {
        for (int n = 1; n <= limit; n++)
            if (!tick())
                return n;
        return -1;
    }
};

void test_power_up(Tb &t) {
    t.m->clk = 0;
    t.set_arst(0);
    CHECK(t.rst(), "before the first clock edge rst was low: the core would run unreset");
    int n = t.edges_to_release();
    CHECK(n == STAGES, "from configuration rst fell after %d edges, expected %d", n, STAGES);
    PASS("reset_sync_high_from_configuration");
}

void test_asserts_without_clock(Tb &t) {
    t.set_arst(0);
    t.edges_to_release();
    CHECK(!t.rst(), "rst still high with arst low for many edges");
    t.m->clk = 0;
    t.set_arst(1);                          // no edge of clk: the PLL may give none
    CHECK(t.rst(), "arst rose and rst did not follow without a clock edge");
    t.set_arst(0);
    CHECK(t.rst(), "arst fell and rst fell with it, not on a clock edge");
    PASS("reset_sync_asserts_without_a_clock");
}

void test_release_edge(Tb &t) {
    t.set_arst(1);
    t.set_arst(0);
    for (int i = 1; i < STAGES; i++)
        CHECK(t.tick(), "rst fell %d edges after arst, expected %d", i, STAGES);
    CHECK(!t.tick(), "rst still high %d edges after arst fell", STAGES);
    PASS("reset_sync_releases_on_the_stages_th_edge");
}

void test_bounce_restarts(Tb &t) {
    t.set_arst(1);
    t.set_arst(0);
    t.tick();
    t.tick();                               // one edge short of release
    t.set_arst(1);                          // the button bounces
    t.set_arst(0);
    CHECK(t.rst(), "a bounce did not reassert rst");
    int n = t.edges_to_release();
    CHECK(n == STAGES, "after a bounce rst fell %d edges later, expected %d", n, STAGES);
    PASS("reset_sync_bounce_restarts_the_count");
}

void test_held(Tb &t) {
    t.set_arst(1);
    for (int i = 0; i < 1000; i++)
        CHECK(t.tick(), "rst fell on edge %d while arst was held", i);
    t.set_arst(0);
    int n = t.edges_to_release();
    CHECK(n == STAGES, "after a long hold rst fell %d edges later, expected %d", n, STAGES);
    PASS("reset_sync_held_while_arst_held");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    test_power_up(t);
    test_asserts_without_clock(t);
    test_release_edge(t);
    test_bounce_restarts(t);
    test_held(t);
    return 0;
}
