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

// One rising edge of a model with ports clk: eval low, then high.
template <typename M> static inline void tb_tick(M *m) {
    m->clk = 0;
    m->eval();
    m->clk = 1;
    m->eval();
}

#endif
