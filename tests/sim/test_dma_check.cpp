// test_dma_check.cpp: unit test of the simulator's DMA checker (sim/dma_check.h).
//
// For: the rule "every DMA access must lie inside the DMA region and inside
// ONE host range with the right permission", case by case and against a
// byte-by-byte reference on random small layouts (the seed is printed; give
// it as argv[1] to replay). Not for: counting and reporting violations, which
// the harness does and test_shm_proto checks through the real simulator.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>

#include "dma_check.h"

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);      \
            std::fprintf(stderr, __VA_ARGS__);                             \
            std::fprintf(stderr, "\n");                                    \
            std::exit(1);                                                  \
        }                                                                  \
    } while (0)

static const uint64_t BASE = QPNIC_SHM_DMA_BASE;
static const DmaRegion REGION = {BASE, 1u << 20};
static const uint32_t R = QPNIC_RANGE_READ, W = QPNIC_RANGE_WRITE;

static qpnic_range table[QPNIC_SHM_RANGES];

static void clear_table() { memset(table, 0, sizeof table); }

static void set_range(size_t i, uint64_t addr, uint64_t len, uint32_t perm) {
    table[i].addr = addr;
    table[i].len = len;
    table[i].perm = perm;
}

static bool allowed(uint64_t addr, uint64_t len, uint32_t perm) {
    return dma_access_allowed(table, QPNIC_SHM_RANGES, REGION, addr, len, perm);
}

static void test_no_range_nothing_allowed() {
    clear_table();
    CHECK(!allowed(BASE, 4, R), "a read with no range at all was allowed");
    CHECK(!allowed(BASE, 4, W), "a write with no range at all was allowed");
    std::printf("PASS no_range_nothing_allowed\n");
}

static void test_inside_one_range() {
    clear_table();
    set_range(3, BASE + 0x1000, 0x100, R | W);
    CHECK(allowed(BASE + 0x1000, 0x100, R), "the whole range refused for read");
    CHECK(allowed(BASE + 0x10ff, 1, W), "the last byte refused for write");
    CHECK(!allowed(BASE + 0x0fff, 2, R), "an access starting one byte before the range allowed");
    CHECK(!allowed(BASE + 0x10ff, 2, W), "an access ending one byte after the range allowed");
    CHECK(!allowed(BASE + 0x1100, 1, R), "the byte just after the range allowed");
    std::printf("PASS inside_one_range\n");
}

static void test_permission_bits() {
    clear_table();
    set_range(0, BASE, 64, R);
    set_range(1, BASE + 64, 64, W);
    CHECK(allowed(BASE, 64, R), "read of a READ range refused");
    CHECK(!allowed(BASE, 64, W), "write to a READ-only range allowed");
    CHECK(allowed(BASE + 64, 64, W), "write to a WRITE range refused");
    CHECK(!allowed(BASE + 64, 64, R), "read of a WRITE-only range allowed");
    std::printf("PASS permission_bits\n");
}

static void test_two_adjacent_ranges_do_not_join() {
    clear_table();
    set_range(0, BASE, 64, R | W);
    set_range(1, BASE + 64, 64, R | W);
    CHECK(!allowed(BASE + 60, 8, R), "an access straddling two ranges allowed (must be inside one)");
    CHECK(allowed(BASE + 64, 8, R), "an access inside the second range refused");
    std::printf("PASS two_adjacent_ranges_do_not_join\n");
}

static void test_region_bounds() {
    clear_table();
    // A range the host wrote wider than the region: the region still bounds it.
    set_range(0, BASE - 0x100, REGION.bytes + 0x200, R | W);
    CHECK(allowed(BASE, 4, R), "first bytes of the region refused");
    CHECK(allowed(BASE + REGION.bytes - 4, 4, W), "last bytes of the region refused");
    CHECK(!allowed(BASE - 4, 4, R), "an access below the region allowed");
    CHECK(!allowed(BASE + REGION.bytes - 2, 4, W), "an access past the region's end allowed");
    std::printf("PASS region_bounds\n");
}

static void test_degenerate_accesses() {
    clear_table();
    set_range(QPNIC_SHM_RANGES - 1, BASE, 4096, R | W);
    CHECK(allowed(BASE, 1, R), "the table's last slot was not consulted");
    CHECK(!allowed(BASE, 0, R), "a zero-length access allowed");
    CHECK(!allowed(UINT64_MAX - 1, 4, R), "an access wrapping past 2^64 allowed");
    CHECK(!allowed(BASE + 8, UINT64_MAX, W), "a huge length that wraps allowed");
    set_range(0, BASE + 8192, 0, R | W); // len 0: a free slot, whatever its addr
    CHECK(!allowed(BASE + 8192, 1, R), "a free slot (len 0) allowed an access");
    std::printf("PASS degenerate_accesses\n");
}

// Reference: every byte checked on its own, over a small layout.
static bool reference(size_t n_ranges, uint64_t addr, uint64_t len, uint32_t perm,
                      DmaRegion region) {
    if (len == 0)
        return false;
    for (uint64_t b = addr; b < addr + len; b++)
        if (b < region.base || b >= region.base + region.bytes)
            return false;
    for (size_t i = 0; i < n_ranges; i++) {
        const qpnic_range &r = table[i];
        if (r.len == 0 || (r.perm & perm) != perm)
            continue;
        bool all = true;
        for (uint64_t b = addr; b < addr + len && all; b++)
            all = b >= r.addr && b < r.addr + r.len;
        if (all)
            return true;
    }
    return false;
}

static void test_random_against_reference(uint32_t seed) {
    std::mt19937 rng(seed);
    const DmaRegion small = {BASE, 256};
    auto pick = [&](uint32_t n) { return (uint32_t)(rng() % n); };
    for (int round = 0; round < 2000; round++) {
        clear_table();
        size_t n = 1 + pick(6);
        for (size_t i = 0; i < n; i++)
            set_range(i, BASE - 16 + pick(300), pick(4) ? pick(80) : 0, pick(4));
        for (int k = 0; k < 50; k++) {
            uint64_t addr = BASE - 8 + pick(280);
            uint64_t len = pick(40);
            uint32_t perm = pick(2) ? R : W;
            bool got = dma_access_allowed(table, n, small, addr, len, perm);
            bool want = reference(n, addr, len, perm, small);
            CHECK(got == want,
                  "seed %u round %d: access 0x%" PRIx64 "+%" PRIu64 " perm %u: checker says %d, byte-by-byte says %d",
                  seed, round, addr, len, perm, got, want);
        }
    }
    std::printf("PASS random_against_reference (seed %u)\n", seed);
}

int main(int argc, char **argv) {
    uint32_t seed = argc > 1 ? (uint32_t)strtoul(argv[1], nullptr, 0) : (uint32_t)time(nullptr);
    test_no_range_nothing_allowed();
    test_inside_one_range();
    test_permission_bits();
    test_two_adjacent_ranges_do_not_join();
    test_region_bounds();
    test_degenerate_accesses();
    test_random_against_reference(seed);
    return 0;
}
