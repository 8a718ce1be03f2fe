// tb_qpnic_spi_boot: unit test of rtl/qpnic_spi_boot.v, the iCEBreaker's
// firmware loader, against the flash model of sim/spi_flash.h (asleep at
// first, as the iCE40 may leave it; it ignores commands until woken, and
// for tRES1 after).
//
// Cases: every word of a random image (seed printed, TB_SEED=N repeats it)
// loaded once, in order, from FW_FLASH_OFFSET, then done; the flash woken
// first and nothing it was sent ignored; SPI mode 0 held (MOSI and chip
// select change only while SCK is low); a reset in the middle starts over
// from word 0; once done, the flash is left alone; a reset after done (the
// board's button) takes done down at once and keeps it down until the
// whole image has been loaded again.
#include <cstdint>
#include <ctime>
#include <memory>
#include <vector>

#include "Vqpnic_spi_boot.h"
#include "verilated.h"
#include "tb_util.h"
#include "qpnic_hw.h"
#include "../../sim/spi_flash.h"

namespace {

constexpr uint64_t CLK_HZ = 12000000;   // the module's default, the iCEBreaker's
constexpr uint32_t WORDS = 4096;        // the module's default, FW_TP_RAM_WORDS
constexpr uint32_t OFFSET = QPNIC_FW_FLASH_OFFSET;
// the bits the loader clocks, two cycles each, and some slack for the wait
constexpr uint64_t EXPECT_CYCLES = (8 + 32 + 32 * (uint64_t)WORDS) * 2;

struct Tb {
    std::unique_ptr<Vqpnic_spi_boot> m{new Vqpnic_spi_boot};
    SpiFlash flash{CLK_HZ};
    uint64_t cycle = 0;
    std::vector<uint32_t> image;
    std::vector<uint32_t> loaded;   // ld_data in the order it came
    std::vector<uint32_t> addrs;    // ld_addr likewise
    unsigned mode0_errors = 0;      // MOSI or chip select changed with SCK high
    int prev_sck = 0, prev_mosi = 0, prev_cs = 1;

    explicit Tb(unsigned seed) {
        image.resize(WORDS);
        for (uint32_t i = 0; i < WORDS; i++) {
            seed = seed * 1103515245u + 12345u;
            image[i] = seed ^ (i * 0x9E3779B9u);
            for (int b = 0; b < 4; b++)
                flash_write(OFFSET + 4 * i + b, (uint8_t)(image[i] >> (8 * b)));
        }
        m->spi_miso = 1;
        m->rst = 1;
        tick();
        m->rst = 0;
    }
    void flash_write(uint32_t a, uint8_t v) { flash.poke(a, v); }
    void tick() {
        tb_tick(m.get());
        cycle++;
        int sck = m->spi_sck, mosi = m->spi_mosi, cs = m->spi_cs_n;
        // mode 0: while SCK stays high, neither MOSI nor chip select moves
        if (prev_sck && sck && (mosi != prev_mosi || cs != prev_cs))
            mode0_errors++;
        if (prev_sck && cs != prev_cs)
            mode0_errors++;
        prev_sck = sck;
        prev_mosi = mosi;
        prev_cs = cs;
        m->spi_miso = (uint8_t)flash.clock(cycle, cs, sck, mosi);
        if (m->ld_valid) {
            loaded.push_back(m->ld_data);
            addrs.push_back(m->ld_addr);
        }
    }
    // Clocks until done (at most limit cycles); the cycles it took.
    uint64_t run_to_done(uint64_t limit) {
        uint64_t start = cycle;
        while (!m->done && cycle - start < limit)
            tick();
        return cycle - start;
    }
};

void test_loads_every_word(unsigned seed) {
    Tb t(seed);
    uint64_t n = t.run_to_done(EXPECT_CYCLES + 1000);
    CHECK(t.m->done, "seed %u: not done after %llu cycles (%zu words loaded)", seed, (unsigned long long)n,
          t.loaded.size());
    CHECK(t.loaded.size() == WORDS, "seed %u: %zu words loaded, expected %u", seed, t.loaded.size(), WORDS);
    for (uint32_t i = 0; i < WORDS; i++) {
        CHECK(t.addrs[i] == i, "seed %u: word %u of the load went to address %u", seed, i, t.addrs[i]);
        CHECK(t.loaded[i] == t.image[i], "seed %u: word %u loaded as %08x, the flash holds %08x", seed, i,
              t.loaded[i], t.image[i]);
    }
    CHECK(t.flash.last_read_addr() == OFFSET, "read from %06x, expected FW_FLASH_OFFSET %06x",
          t.flash.last_read_addr(), OFFSET);
    CHECK(t.flash.bytes_read() >= 4u * WORDS, "the flash clocked out %llu bytes, fewer than the image's %u",
          (unsigned long long)t.flash.bytes_read(), 4u * WORDS);
    CHECK(n <= EXPECT_CYCLES + (CLK_HZ / 200000) + 64, "the load took %llu cycles, expected about %llu",
          (unsigned long long)n, (unsigned long long)EXPECT_CYCLES);
    CHECK(t.m->spi_cs_n, "chip select still low after done");
    std::printf("  %u words in %llu cycles (%.1f ms at 12 MHz)\n", WORDS, (unsigned long long)n,
                (double)n * 1000.0 / CLK_HZ);
    PASS("spi_boot_loads_every_word_once_in_order_from_the_offset");

    CHECK(t.flash.wakes() == 1, "the flash was woken %llu times, expected once",
          (unsigned long long)t.flash.wakes());
    CHECK(t.flash.ignored() == 0, "the flash ignored %llu commands (sent asleep, or before tRES1)",
          (unsigned long long)t.flash.ignored());
    CHECK(t.flash.reads() == 1, "%llu read commands, expected 1", (unsigned long long)t.flash.reads());
    PASS("spi_boot_wakes_the_flash_and_waits_before_reading");

    CHECK(t.mode0_errors == 0, "MOSI or chip select changed %u times while SCK was high", t.mode0_errors);
    PASS("spi_boot_keeps_spi_mode_0");

    size_t words = t.loaded.size();
    for (int i = 0; i < 10000; i++) {
        t.tick();
        CHECK(!t.m->spi_sck && t.m->spi_cs_n, "the flash is clocked %d cycles after done", i + 1);
    }
    CHECK(t.loaded.size() == words && t.m->done, "after done: %zu more words, done %d", t.loaded.size() - words,
          t.m->done);
    PASS("spi_boot_leaves_the_flash_alone_once_done");
}

void test_reset_restarts(unsigned seed) {
    Tb t(seed);
    for (uint64_t n = 0; t.loaded.size() < WORDS / 3; n++) {
        CHECK(n < EXPECT_CYCLES, "seed %u: a third of the image not loaded in %llu cycles (%zu words)", seed,
              (unsigned long long)n, t.loaded.size());
        t.tick();
    }
    t.m->rst = 1;   // the button, a third of the way in
    t.tick();
    t.m->rst = 0;
    CHECK(!t.m->done, "done right after a reset in the middle of the load");
    t.loaded.clear();
    t.addrs.clear();
    t.run_to_done(EXPECT_CYCLES + 1000);
    CHECK(t.m->done, "seed %u: after a reset mid-load, not done", seed);
    CHECK(t.loaded.size() == WORDS, "after a reset mid-load %zu words loaded, expected %u from word 0",
          t.loaded.size(), WORDS);
    for (uint32_t i = 0; i < WORDS; i++)
        CHECK(t.addrs[i] == i && t.loaded[i] == t.image[i], "after a reset: word %u at %u is %08x, expected %08x",
              i, t.addrs[i], t.loaded[i], t.image[i]);
    CHECK(t.flash.ignored() == 0, "the flash ignored %llu commands", (unsigned long long)t.flash.ignored());
    PASS("spi_boot_reset_in_the_middle_starts_over");
}

void test_reset_after_done(unsigned seed) {
    Tb t(seed);
    t.run_to_done(EXPECT_CYCLES + 1000);
    CHECK(t.m->done, "seed %u: the first load did not finish", seed);
    t.m->rst = 1;   // the button, after boot: the NIC must go back into reset
    t.tick();
    CHECK(!t.m->done, "done still high in the cycle after a reset that came after done");
    t.m->rst = 0;
    t.loaded.clear();
    t.addrs.clear();
    uint64_t n = 0;
    while (t.loaded.size() < WORDS && n < EXPECT_CYCLES + 1000) {
        CHECK(!t.m->done, "done rose again with %zu of %u words reloaded", t.loaded.size(), WORDS);
        t.tick();
        n++;
    }
    for (int i = 0; i < 4 && !t.m->done; i++)
        t.tick();
    CHECK(t.m->done && t.loaded.size() == WORDS, "after the reload: done %d, %zu words of %u", t.m->done,
          t.loaded.size(), WORDS);
    for (uint32_t i = 0; i < WORDS; i++)
        CHECK(t.addrs[i] == i && t.loaded[i] == t.image[i], "reload: word %u at %u is %08x, expected %08x", i,
              t.addrs[i], t.loaded[i], t.image[i]);
    CHECK(t.flash.wakes() == 2 && t.flash.ignored() == 0, "reload: %llu wakes (expected 2), %llu ignored",
          (unsigned long long)t.flash.wakes(), (unsigned long long)t.flash.ignored());
    PASS("spi_boot_reset_after_done_holds_done_down_until_reloaded");
}

} // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    unsigned seed = tb_seed("tb_qpnic_spi_boot", (unsigned)time(nullptr));
    test_loads_every_word(seed);
    test_reset_restarts(seed + 1);
    test_reset_after_done(seed + 2);
    return 0;
}
