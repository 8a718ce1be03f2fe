/* test_dma_alloc.c: the first-fit DMA allocator and ndk_alloc_dma. */
#include <string.h>
#include <time.h>

#include "fake_nic.h"

static void heap_alignment_and_first_fit(void)
{
    qpnic_heap h;
    CHECK(qpnic_heap_init(&h, 4096) == 0, "init");
    uint64_t a, b, c;
    CHECK(qpnic_heap_alloc(&h, 1, &a) == 0 && a == 0, "first alloc at 0, got %llu", (unsigned long long)a);
    CHECK(qpnic_heap_alloc(&h, 65, &b) == 0 && b == 64, "second at 64, got %llu", (unsigned long long)b);
    CHECK(qpnic_heap_alloc(&h, 64, &c) == 0 && c == 192, "third at 192, got %llu", (unsigned long long)c);
    CHECK(qpnic_heap_free(&h, b) == 0, "free b");
    uint64_t d;
    CHECK(qpnic_heap_alloc(&h, 100, &d) == 0 && d == 64, "first fit reuses the hole: got %llu",
          (unsigned long long)d);
    CHECK(qpnic_heap_free(&h, b + 64) != 0, "free of a non-start must fail");
    CHECK(qpnic_heap_free(&h, 4000) != 0, "free of free space must fail");
    CHECK(qpnic_heap_alloc(&h, 0, &d) != 0, "len 0 must fail");
    CHECK(qpnic_heap_alloc(&h, 8192, &d) != 0, "too big must fail");
    qpnic_heap_fini(&h);
}

static void heap_contains(void)
{
    qpnic_heap h;
    qpnic_heap_init(&h, 4096);
    uint64_t a, b;
    qpnic_heap_alloc(&h, 100, &a); /* block [0,128) */
    qpnic_heap_alloc(&h, 64, &b);  /* block [128,192) */
    CHECK(qpnic_heap_contains(&h, 0, 128) == 0, "whole block");
    CHECK(qpnic_heap_contains(&h, 10, 50) == 0, "inside");
    CHECK(qpnic_heap_contains(&h, 100, 64) != 0, "straddles two blocks");
    CHECK(qpnic_heap_contains(&h, 300, 8) != 0, "free space");
    qpnic_heap_free(&h, b);
    CHECK(qpnic_heap_contains(&h, 128, 8) != 0, "freed block");
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
            CHECK(qpnic_heap_free(&h, off[i]) == 0, "free live %d (seed %u)", i, seed);
            live[i] = 0;
        } else {
            len[i] = 1 + (uint64_t)(rand() % 20000);
            if (qpnic_heap_alloc(&h, len[i], &off[i]) == 0)
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
            qpnic_heap_free(&h, off[i]);
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
    CHECK(fake_ranges_live(f) == 0, "plain DMA memory enters no checker range");
    ndk_free_dma(ad, p);
    ndk_free_dma(ad, NULL);
    ndk_free_dma(ad, &x); /* ignored */
    uint8_t *q = ndk_alloc_dma(ad, 1 << 20);
    CHECK(q != NULL, "whole region after free");
    ndk_free_dma(ad, q);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

int main(void)
{
    RUN(heap_alignment_and_first_fit);
    RUN(heap_contains);
    RUN(heap_random_property);
    RUN(alloc_dma_zeroed_aligned_addressed);
    TEST_MAIN_END();
}
