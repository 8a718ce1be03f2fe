// tb_util.h: what every Verilator unit testbench under tests/rtl shares.
//
// CHECK(cond, fmt, ...) stops the test with the file, line and a message that
// says what went wrong; PASS(name) prints one line per passed case.
#ifndef QPNIC_TB_UTIL_H
#define QPNIC_TB_UTIL_H
#include <cstdio>
#include <cstdlib>

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);      \
            std::fprintf(stderr, __VA_ARGS__);                             \
            std::fprintf(stderr, "\n");                                    \
            std::exit(1);                                                  \
        }                                                                  \
    } while (0)

#define PASS(name) std::printf("PASS %s\n", name)

// The seed of a randomized testbench: $TB_SEED if set, else fallback;
// printed as "<name>: seed N (TB_SEED=N repeats it)".
static inline unsigned tb_seed(const char *name, unsigned fallback) {
    const char *s = std::getenv("TB_SEED");
    unsigned seed = s ? (unsigned)std::strtoul(s, nullptr, 0) : fallback;
    std::printf("%s: seed %u (TB_SEED=%u repeats it)\n", name, seed, seed);
    return seed;
}

// One rising edge of a model with ports clk: eval low, then high.
template <typename M> static inline void tb_tick(M *m) {
    m->clk = 0;
    m->eval();
    m->clk = 1;
    m->eval();
}

#endif
