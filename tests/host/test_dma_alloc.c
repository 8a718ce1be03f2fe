/* test_dma_alloc.c: the first-fit DMA allocator and ndk_alloc_dma. */
#include <string.h>
#include <time.h>

#include "fake_nic.h"

static void heap_alignment_and_first_fit(void)
{
    qpnic_heap h;
    CHECK(qpnic_heap_init(&h, 4096) == 0, "init");
    uint64_t a, b, c;
    CHECK(qpnic_heap_alloc(&h, 1, QPNIC_HEAP_USER, &a) == 0 && a == 0, "first alloc at 0, got %llu", (unsigned long long)a);
    CHECK(qpnic_heap_alloc(&h, 65, QPNIC_HEAP_USER, &b) == 0 && b == 64, "second at 64, got %llu", (unsigned long long)b);
    CHECK(qpnic_heap_alloc(&h, 64, QPNIC_HEAP_USER, &c) == 0 && c == 192, "third at 192, got %llu", (unsigned long long)c);
    CHECK(qpnic_heap_free(&h, b, QPNIC_HEAP_USER) == 0, "free b");
    uint64_t d;
    CHECK(qpnic_heap_alloc(&h, 100, QPNIC_HEAP_USER, &d) == 0 && d == 64, "first fit reuses the hole: got %llu",
          (unsigned long long)d);
    CHECK(qpnic_heap_free(&h, b + 64, QPNIC_HEAP_USER) != 0, "free of a non-start must fail");
    CHECK(qpnic_heap_free(&h, 4000, QPNIC_HEAP_USER) != 0, "free of free space must fail");
    CHECK(qpnic_heap_alloc(&h, 0, QPNIC_HEAP_USER, &d) != 0, "len 0 must fail");
    CHECK(qpnic_heap_alloc(&h, 8192, QPNIC_HEAP_USER, &d) != 0, "too big must fail");
    qpnic_heap_fini(&h);
}

static void heap_contains(void)
{
    qpnic_heap h;
    qpnic_heap_init(&h, 4096);
    uint64_t a, b;
    qpnic_heap_alloc(&h, 100, QPNIC_HEAP_USER, &a); /* block [0,128) */
    qpnic_heap_alloc(&h, 64, QPNIC_HEAP_USER, &b);  /* block [128,192) */
    CHECK(qpnic_heap_contains(&h, 0, 128, QPNIC_HEAP_USER) == 0, "whole block");
    CHECK(qpnic_heap_contains(&h, 10, 50, QPNIC_HEAP_USER) == 0, "inside");
    CHECK(qpnic_heap_contains(&h, 100, 64, QPNIC_HEAP_USER) != 0, "straddles two blocks");
    CHECK(qpnic_heap_contains(&h, 300, 8, QPNIC_HEAP_USER) != 0, "free space");
    qpnic_heap_free(&h, b, QPNIC_HEAP_USER);
    CHECK(qpnic_heap_contains(&h, 128, 8, QPNIC_HEAP_USER) != 0, "freed block");
    qpnic_heap_fini(&h);
}

/* Random allocs and frees: live blocks never overlap, stay in range and
 * aligned; freeing all merges back to one free block. */
static void heap_random_property(void)
{
    unsigned seed = (unsigned)time(NULL);
    printf("heap_random_property seed %u\n", seed);
    srand(seed);
    enum { N = 200, SIZE = 1 << 20 };
    qpnic_heap h;
    qpnic_heap_init(&h, SIZE);
    uint64_t off[N], len[N];
    int live[N] = { 0 };
    for (int step = 0; step < 5000; step++) {
        int i = rand() % N;
        if (live[i]) {
            CHECK(qpnic_heap_free(&h, off[i], QPNIC_HEAP_USER) == 0, "free live %d (seed %u)", i, seed);
            live[i] = 0;
        } else {
            len[i] = 1 + (uint64_t)(rand() % 20000);
            if (qpnic_heap_alloc(&h, len[i], QPNIC_HEAP_USER, &off[i]) == 0)
                live[i] = 1;
        }
        if (live[i]) {
            CHECK(off[i] % 64 == 0 && off[i] + len[i] <= SIZE, "block %d at %llu (seed %u)", i,
                  (unsigned long long)off[i], seed);
            for (int j = 0; j < N; j++)
                if (j != i && live[j])
                    CHECK(off[i] + len[i] <= off[j] || off[j] + len[j] <= off[i],
                          "blocks %d and %d overlap (seed %u)", i, j, seed);
        }
    }
    for (int i = 0; i < N; i++)
        if (live[i])
            qpnic_heap_free(&h, off[i], QPNIC_HEAP_USER);
    CHECK(h.count == 1 && !h.blocks[0].used && h.blocks[0].len == SIZE,
          "after freeing all: %zu blocks (seed %u)", h.count, seed);
    qpnic_heap_fini(&h);
}

static void alloc_dma_zeroed_aligned_addressed(void)
{
    fake_nic *f = fake_new(1 << 20);
    ndk_adapter *ad = fake_open(f);
    uint8_t *p = ndk_alloc_dma(ad, 1000);
    CHECK(p != NULL, "alloc 1000");
    if (p) {
        CHECK(((uintptr_t)p & 63) == 0, "64-byte aligned: %p", (void *)p);
        int zero = 1;
        for (int i = 0; i < 1000; i++)
            zero &= p[i] == 0;
        CHECK(zero, "ndk_alloc_dma memory is zeroed");
        CHECK(ndk_dma_address(ad, p + 5) == f->base.dma_base + (uint64_t)(p + 5 - f->base.dma),
              "device address of p+5");
    }
    int x;
    CHECK(ndk_dma_address(ad, &x) == 0, "address of non-DMA memory is 0");
    CHECK(ndk_alloc_dma(ad, 0) == NULL, "len 0 gives NULL");
    CHECK(ndk_alloc_dma(ad, 2 << 20) == NULL, "too big gives NULL");
    /* the one checker range is the driver's CQ consumer index record table */
    CHECK(fake_ranges_live(f) == 1, "plain DMA memory entered a checker range (%d live, want only the CI records')",
          fake_ranges_live(f));
    ndk_free_dma(ad, p);
    ndk_free_dma(ad, NULL);
    ndk_free_dma(ad, &x); /* ignored */
    uint64_t recs = (ad->ci_recs.bytes + 63u) & ~(uint64_t)63u; /* the driver's, at open */
    uint8_t *q = ndk_alloc_dma(ad, (1u << 20) - recs);
    CHECK(q != NULL, "the whole region but the CI records after free");
    ndk_free_dma(ad, q);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

/* A block keeps its owner: the driver's blocks (rings) are neither freed
 * nor contained for the caller, nor the caller's for the driver. */
static void heap_owner_kept(void)
{
    qpnic_heap h;
    qpnic_heap_init(&h, 4096);
    uint64_t ring, user;
    CHECK(qpnic_heap_alloc(&h, 128, QPNIC_HEAP_DRIVER, &ring) == 0, "driver alloc");
    CHECK(qpnic_heap_alloc(&h, 128, QPNIC_HEAP_USER, &user) == 0, "user alloc");
    CHECK(qpnic_heap_alloc(&h, 64, QPNIC_HEAP_FREE, &user) != 0, "an alloc owned by nobody must fail");
    CHECK(qpnic_heap_free(&h, ring, QPNIC_HEAP_USER) != 0, "the caller freed a driver block");
    CHECK(qpnic_heap_contains(&h, ring, 64, QPNIC_HEAP_USER) != 0, "a driver block contained for the caller");
    CHECK(qpnic_heap_contains(&h, user, 64, QPNIC_HEAP_DRIVER) != 0, "a caller's block contained for the driver");
    CHECK(qpnic_heap_free(&h, ring, QPNIC_HEAP_DRIVER) == 0, "the driver frees its block");
    CHECK(qpnic_heap_free(&h, user, QPNIC_HEAP_USER) == 0, "the caller frees its block");
    qpnic_heap_fini(&h);
}

int main(void)
{
    RUN(heap_alignment_and_first_fit);
    RUN(heap_contains);
    RUN(heap_random_property);
    RUN(alloc_dma_zeroed_aligned_addressed);
    RUN(heap_owner_kept);
    TEST_MAIN_END();
}
