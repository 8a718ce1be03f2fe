// tb_qpnic_spi_boot: unit test of rtl/qpnic_spi_boot.v, the iCEBreaker's
// firmware loader, against the flash model of sim/spi_flash.h (asleep at
// first, as the iCE40 may leave it; it ignores commands until woken, and
// for tRES1 after).
//
// The image in the flash is fw/bin2hex.py's (spec/layout.toml
// FW_IMAGE_MAGIC): the magic, VERSION_VALUE, the RAM's words, a
// CRC-32/MPEG-2 of it all.
// Cases: every word of a random image (seed printed, TB_SEED=N repeats it)
// loaded once, in order, from FW_FLASH_OFFSET, then done and never bad;
// the flash woken first and nothing it was sent ignored; SPI mode 0 held
// (MOSI and chip select change only while SCK is low); a reset in the
// middle starts over from word 0; once done, the flash is left alone; a
// reset after done (the board's button) takes done down at once and keeps
// it down until the whole image has been loaded again. Refused, bad and
// never done: an erased flash and another layout's image, after their
// header and before any word reaches the RAM; one bit flipped anywhere in
// the RAM's words or the CRC (seeded), at the end; a reset clears bad.
#include <cstdint>
#include <cstdio>
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
constexpr uint32_t HDR = QPNIC_FW_IMAGE_HDR_WORDS;
constexpr uint32_t IMAGE_BYTES = 4 * (HDR + WORDS + 1);   // the header, the RAM's words, the CRC
// the bits the loader clocks, two cycles each, and some slack for the wait
constexpr uint64_t EXPECT_CYCLES = (8 + 32 + 8 * (uint64_t)IMAGE_BYTES) * 2;

// CRC-32/MPEG-2, bits most significant first (fw/bin2hex.py's)
uint32_t crc32_mpeg2(const std::vector<uint8_t> &data) {
    uint32_t crc = 0xFFFFFFFFu;
    for (uint8_t byte : data) {
        crc ^= (uint32_t)byte << 24;
        for (int b = 0; b < 8; b++)
            crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
    }
    return crc;
}

struct Tb {
    std::unique_ptr<Vqpnic_spi_boot> m{new Vqpnic_spi_boot};
    SpiFlash flash{CLK_HZ};
    uint64_t cycle = 0;
    std::vector<uint32_t> image;
    std::vector<uint32_t> loaded;   // ld_data in the order it came
    std::vector<uint32_t> addrs;    // ld_addr likewise
    unsigned mode0_errors = 0;      // MOSI or chip select changed with SCK high
    int prev_sck = 0, prev_mosi = 0, prev_cs = 1;

    // A random image (the RAM's words), written to the flash as
    // fw/bin2hex.py writes it; with erased, nothing written (every byte 0xFF)
    explicit Tb(unsigned seed, bool erased = false) {
        image.resize(WORDS);
        std::vector<uint8_t> bytes;
        auto put = [&](uint32_t w) {
            for (int b = 0; b < 4; b++)
                bytes.push_back((uint8_t)(w >> (8 * b)));
        };
        put(QPNIC_FW_IMAGE_MAGIC);
        put(QPNIC_VERSION_VALUE);
        for (uint32_t i = 0; i < WORDS; i++) {
            seed = seed * 1103515245u + 12345u;
            image[i] = seed ^ (i * 0x9E3779B9u);
            put(image[i]);
        }
        uint32_t crc = crc32_mpeg2(bytes);
        for (int b = 3; b >= 0; b--)
            bytes.push_back((uint8_t)(crc >> (8 * b)));
        if (!erased)
            for (uint32_t a = 0; a < bytes.size(); a++)
                flash_write(OFFSET + a, bytes[a]);
        m->spi_miso = 1;
        m->rst = 1;
        tick();
        m->rst = 0;
    }
    void flash_write(uint32_t a, uint8_t v) { flash.poke(a, v); }
    void flip_bit(uint32_t byte, int bit) { flash.poke(OFFSET + byte, flash.byte_at(OFFSET + byte) ^ (uint8_t)(1u << bit)); }
    bool bad_seen = false;          // bad high at any cycle
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
        bad_seen |= m->bad != 0;
    }
    // Clocks until done or bad (at most limit cycles); the cycles it took.
    uint64_t run_to_done(uint64_t limit) {
        uint64_t start = cycle;
        while (!m->done && !m->bad && cycle - start < limit)
            tick();
        return cycle - start;
    }
};

void test_loads_every_word(unsigned seed) {
    Tb t(seed);
    uint64_t n = t.run_to_done(EXPECT_CYCLES + 1000);
    CHECK(t.m->done && !t.bad_seen, "seed %u: done %d, bad %d after %llu cycles (%zu words loaded)", seed,
          t.m->done, t.bad_seen, (unsigned long long)n, t.loaded.size());
    CHECK(t.loaded.size() == WORDS, "seed %u: %zu words loaded, expected %u", seed, t.loaded.size(), WORDS);
    for (uint32_t i = 0; i < WORDS; i++) {
        CHECK(t.addrs[i] == i, "seed %u: word %u of the load went to address %u", seed, i, t.addrs[i]);
        CHECK(t.loaded[i] == t.image[i], "seed %u: word %u loaded as %08x, the flash holds %08x", seed, i,
              t.loaded[i], t.image[i]);
    }
    CHECK(t.flash.last_read_addr() == OFFSET, "read from %06x, expected FW_FLASH_OFFSET %06x",
          t.flash.last_read_addr(), OFFSET);
    CHECK(t.flash.bytes_read() >= IMAGE_BYTES, "the flash clocked out %llu bytes, fewer than the image's %u",
          (unsigned long long)t.flash.bytes_read(), IMAGE_BYTES);
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
    CHECK(t.loaded.size() == words && t.m->done && !t.bad_seen, "after done: %zu more words, done %d, bad %d",
          t.loaded.size() - words, t.m->done, t.bad_seen);
    PASS("spi_boot_leaves_the_flash_alone_once_done");
}

// Runs t until bad (or done, or the limit), then checks that the image was
// refused: bad, never done, the flash left alone after, and `words` words
// (no more) gone to the RAM; what says who refused it is in `what`.
void check_refused(Tb &t, size_t words, const char *what) {
    uint64_t n = t.run_to_done(EXPECT_CYCLES + 1000);
    CHECK(t.m->bad && !t.m->done, "%s: after %llu cycles bad %d, done %d (%zu words loaded)", what,
          (unsigned long long)n, t.m->bad, t.m->done, t.loaded.size());
    CHECK(t.loaded.size() == words, "%s: %zu words went to the RAM, expected %zu", what, t.loaded.size(), words);
    uint64_t read = t.flash.bytes_read();
    for (int i = 0; i < 10000; i++) {
        t.tick();
        CHECK(t.m->bad && !t.m->done && t.m->spi_cs_n && !t.m->spi_sck,
              "%s: %d cycles after bad: bad %d, done %d, chip select %d, SCK %d", what, i + 1, t.m->bad, t.m->done,
              t.m->spi_cs_n, t.m->spi_sck);
    }
    CHECK(t.flash.bytes_read() == read, "%s: the flash was read on after bad", what);
}

void test_refuses_a_bad_header(unsigned seed) {
    {
        Tb t(seed, true);   // erased: every word 0xFFFFFFFF
        check_refused(t, 0, "an erased flash");
        CHECK(t.flash.bytes_read() == 4, "an erased flash: %llu bytes read, expected the magic's 4",
              (unsigned long long)t.flash.bytes_read());
    }
    PASS("spi_boot_refuses_an_erased_flash_at_its_first_word");
    {
        Tb t(seed);
        t.flip_bit(4, 0);   // VERSION_VALUE's lowest bit: another layout's image
        check_refused(t, 0, "another layout's version");
        CHECK(t.flash.bytes_read() == 8, "another layout's version: %llu bytes read, expected the header's 8",
              (unsigned long long)t.flash.bytes_read());
        t.m->rst = 1;   // the button: bad falls with it
        t.tick();
        CHECK(!t.m->bad && !t.m->done, "after a reset: bad %d, done %d", t.m->bad, t.m->done);
        t.m->rst = 0;
    }
    PASS("spi_boot_refuses_another_layouts_image_before_any_word");
}

void test_refuses_a_flipped_bit(unsigned seed) {
    // one bit anywhere past the header: the RAM's words or the CRC's
    unsigned s = seed;
    for (int round = 0; round < 3; round++) {
        s = s * 1103515245u + 12345u;
        uint32_t byte = 4 * HDR + (s >> 8) % (IMAGE_BYTES - 4 * HDR);
        if (round == 2)
            byte = IMAGE_BYTES - 1;   // the CRC's last byte
        int bit = (int)(s % 8);
        Tb t(seed + (unsigned)round);
        t.flip_bit(byte, bit);
        char what[96];
        std::snprintf(what, sizeof what, "seed %u: bit %d of image byte %u flipped", seed, bit, byte);
        check_refused(t, WORDS, what);
    }
    PASS("spi_boot_refuses_an_image_with_one_bit_flipped");
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
    for (int i = 0; i < 2 * 32 + 4 && !t.m->done; i++)   // the CRC word after the RAM's
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
    test_refuses_a_bad_header(seed + 3);
    test_refuses_a_flipped_bit(seed + 4);
    return 0;
}
