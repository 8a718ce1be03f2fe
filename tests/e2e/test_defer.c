/* test_defer.c: deferred processing, rules D1-D8 of spec/RULES.md, end to end.
 *
 * Each case posts through libqpnic to the co-simulated NIC and checks what
 * came back: completions (which, how many, in what order) and the NIC's own
 * counters (doorbells received, WQE fetch reads). DEFER is a host-side matter
 * (the driver holds the doorbell), so the doorbell counter is the witness.
 */
#include "e2e.h"

#define CTX(i) ((void *)(uintptr_t)(0x1000u + (i)))

static uint64_t doorbells(ndk_adapter *ad)
{
    ndk_counters c;
    EXPECT_STATUS(ndk_query_counters(ad, &c), NDK_STATUS_SUCCESS);
    return c.doorbells;
}

/* A WRITE of len bytes from a's buffer at off to b's buffer at off. */
static ndk_status post_write(e2e_pair *p, uint32_t i, uint32_t off, uint32_t len, uint32_t flags)
{
    ndk_sge g = e2e_sge(&p->a, off, len);
    return ndk_write(p->a.qp, CTX(i), &g, 1, e2e_remote_addr(&p->b, off),
                     ndk_mr_remote_token(p->b.mr), flags);
}

/* Expect exactly the contexts first..first+n-1, in order, all successful. */
static void expect_in_order(e2e_pair *p, ndk_cq *cq, uint32_t first, uint32_t n)
{
    ndk_result_ex r[128];
    EXPECT(n <= 128, "test asks for too many results");
    uint32_t got = e2e_poll(cq, r, n, 10000);
    EXPECT(got == n, "%u completions arrived, expected %u", got, n);
    for (uint32_t i = 0; i < n; i++) {
        EXPECT(r[i].request_context == CTX(first + i),
               "completion %u carries context %p, expected %p (order or identity wrong)",
               i, r[i].request_context, CTX(first + i));
        EXPECT_STATUS(r[i].status, NDK_STATUS_SUCCESS);
    }
    got = e2e_settle_and_poll(p, cq, r, 128);
    EXPECT(got == 0, "%u completions more than the %u expected", got, n);
}

static void D1_defer_accepted_on_send_read_write(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_sge rg = e2e_sge(&p.b, 0, 64);
    EXPECT_STATUS(ndk_receive(p.b.qp, CTX(100), &rg, 1), NDK_STATUS_SUCCESS);

    ndk_sge s = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_send(p.a.qp, CTX(0), &s, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(post_write(&p, 1, 128, 64, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    ndk_sge rd = e2e_sge(&p.a, 256, 64);
    EXPECT_STATUS(ndk_read(p.a.qp, CTX(2), &rd, 1, e2e_remote_addr(&p.b, 512),
                           ndk_mr_remote_token(p.b.mr), NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    EXPECT_STATUS(post_write(&p, 3, 1024, 8, 0), NDK_STATUS_SUCCESS);
    expect_in_order(&p, p.a.icq, 0, 4);
    e2e_pair_close(&p);
}

static void D2_deferred_chain_is_held_then_completes(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    e2e_fill(p.a.buf, 4096, 2);
    uint64_t d0 = doorbells(p.ad);
    for (uint32_t i = 0; i < 5; i++)
        EXPECT_STATUS(post_write(&p, i, i * 256, 256, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    ndk_result_ex r[8];
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 8) == 0,
           "deferred requests completed before their chain's terminator was posted");
    EXPECT(doorbells(p.ad) == d0, "a doorbell was rung for deferred requests");
    EXPECT_STATUS(post_write(&p, 5, 5 * 256, 256, 0), NDK_STATUS_SUCCESS);
    expect_in_order(&p, p.a.icq, 0, 6);
    EXPECT(memcmp(p.a.buf, p.b.buf, 6 * 256) == 0, "written data differs from the source");
    e2e_pair_close(&p);
}

static void D3_inline_failure_never_completes(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_sge g[4] = {e2e_sge(&p.a, 0, 8), e2e_sge(&p.a, 8, 8), e2e_sge(&p.a, 16, 8),
                    e2e_sge(&p.a, 24, 8)};
    /* four SGEs where the QP granted three */
    ndk_status st = ndk_write(p.a.qp, CTX(0), g, 4, e2e_remote_addr(&p.b, 0),
                              ndk_mr_remote_token(p.b.mr), 0);
    EXPECT_STATUS(st, NDK_STATUS_INVALID_PARAMETER);
    /* an unknown flag bit */
    st = post_write(&p, 1, 0, 8, 0x80000000u);
    EXPECT_STATUS(st, NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(post_write(&p, 2, 0, 8, 0), NDK_STATUS_SUCCESS);
    expect_in_order(&p, p.a.icq, 2, 1);
    e2e_pair_close(&p);
}

static void D4_every_success_completes_exactly_once(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint32_t seed = e2e_env_uint("QPNIC_SEED", (uint32_t)e2e_now_ms());
    printf("D4 seed %u (QPNIC_SEED replays it)\n", seed);
    srand(seed);
    const uint32_t n = 40; /* fits the 64-deep SQ without draining */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t flags = (rand() % 3 && i != n - 1) ? NDK_OP_FLAG_DEFER : 0;
        EXPECT_STATUS(post_write(&p, i, (i % 32) * 512, 1 + (uint32_t)rand() % 512, flags),
                      NDK_STATUS_SUCCESS);
    }
    expect_in_order(&p, p.a.icq, 0, n);
    e2e_pair_close(&p);
}

static void D5_inline_failure_hands_over_deferred_requests(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint64_t d0 = doorbells(p.ad);
    for (uint32_t i = 0; i < 3; i++)
        EXPECT_STATUS(post_write(&p, i, i * 64, 64, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    EXPECT(doorbells(p.ad) == d0, "deferred posts rang the doorbell");
    ndk_status st = post_write(&p, 3, 0, 8, NDK_OP_FLAG_DEFER | 0x40000000u);
    EXPECT_STATUS(st, NDK_STATUS_INVALID_PARAMETER);
    EXPECT(doorbells(p.ad) == d0 + 1,
           "the inline failure returned with %llu doorbells rung, expected exactly 1",
           (unsigned long long)(doorbells(p.ad) - d0));
    expect_in_order(&p, p.a.icq, 0, 3);
    e2e_pair_close(&p);
}

static void D5_full_queue_failure_hands_over_the_chain(void)
{
    e2e_pair p;
    e2e_opts o = {.sq_depth = 8};
    e2e_pair_open(&p, &o);
    uint32_t i = 0;
    ndk_status st;
    while ((st = post_write(&p, i, i * 64, 64, NDK_OP_FLAG_DEFER)) == NDK_STATUS_SUCCESS)
        i++;
    EXPECT_STATUS(st, NDK_STATUS_INSUFFICIENT_RESOURCES);
    EXPECT(i >= 8, "the SQ granted at least 8 but took only %u", i);
    expect_in_order(&p, p.a.icq, 0, i);
    e2e_pair_close(&p);
}

static void D6_unterminated_chain_stays_held(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    e2e_fill(p.a.buf, 128, 6);
    uint64_t d0 = doorbells(p.ad);
    EXPECT_STATUS(post_write(&p, 0, 0, 64, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(post_write(&p, 1, 64, 64, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    ndk_result_ex r[4];
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 4) == 0, "an unterminated chain completed");
    EXPECT(doorbells(p.ad) == d0, "an unterminated chain rang the doorbell");
    for (int k = 0; k < 128; k++)
        EXPECT(p.b.buf[k] == 0, "an unterminated chain moved data (byte %d)", k);
    /* the consumer keeps D6: the terminator releases the chain */
    EXPECT_STATUS(post_write(&p, 2, 128, 8, 0), NDK_STATUS_SUCCESS);
    expect_in_order(&p, p.a.icq, 0, 3);
    e2e_pair_close(&p);
}

/* D7 is the seed's example with FastRegister; until fast-register lands the
 * same sequence runs with WRITE, which takes DEFER the same way (D1). */
static void D7_seed_example_success_then_inline_failure(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    EXPECT_STATUS(post_write(&p, 0, 0, 32, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    ndk_status st = ndk_write(p.a.qp, CTX(1), NULL, 1, e2e_remote_addr(&p.b, 0),
                              ndk_mr_remote_token(p.b.mr), NDK_OP_FLAG_DEFER);
    EXPECT_STATUS(st, NDK_STATUS_INVALID_PARAMETER);
    /* the consumer does not post the send; the first request completes alone */
    expect_in_order(&p, p.a.icq, 0, 1);
    e2e_pair_close(&p);
}

static void D8_chain_of_16_is_one_doorbell_and_burst_fetched(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_counters c0, c1;
    EXPECT_STATUS(ndk_query_counters(p.ad, &c0), NDK_STATUS_SUCCESS);
    for (uint32_t i = 0; i < 16; i++)
        EXPECT_STATUS(post_write(&p, i, i * 64, 64, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(post_write(&p, 16, 16 * 64, 64, 0), NDK_STATUS_SUCCESS);
    expect_in_order(&p, p.a.icq, 0, 17);
    EXPECT_STATUS(ndk_query_counters(p.ad, &c1), NDK_STATUS_SUCCESS);
    uint64_t db = c1.doorbells - c0.doorbells;
    uint64_t fetched = c1.wqes_fetched - c0.wqes_fetched;
    uint64_t reads = c1.wqe_fetch_reads - c0.wqe_fetch_reads;
    printf("D8: 17 requests: %llu doorbell(s), %llu WQEs in %llu fetch reads\n",
           (unsigned long long)db, (unsigned long long)fetched, (unsigned long long)reads);
    EXPECT(db == 1, "the chain cost %llu doorbells, expected 1", (unsigned long long)db);
    EXPECT(fetched == 17, "%llu WQEs fetched, expected 17", (unsigned long long)fetched);
    EXPECT(reads <= 3, "17 WQEs took %llu fetch reads, expected at most 3 (bursts of 8)",
           (unsigned long long)reads);
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
    static const e2e_case cases[] = {
        {"D1_defer_accepted_on_send_read_write", D1_defer_accepted_on_send_read_write},
        {"D2_deferred_chain_is_held_then_completes", D2_deferred_chain_is_held_then_completes},
        {"D3_inline_failure_never_completes", D3_inline_failure_never_completes},
        {"D4_every_success_completes_exactly_once", D4_every_success_completes_exactly_once},
        {"D5_inline_failure_hands_over_deferred_requests",
         D5_inline_failure_hands_over_deferred_requests},
        {"D5_full_queue_failure_hands_over_the_chain", D5_full_queue_failure_hands_over_the_chain},
        {"D6_unterminated_chain_stays_held", D6_unterminated_chain_stays_held},
        {"D7_seed_example_success_then_inline_failure", D7_seed_example_success_then_inline_failure},
        {"D8_chain_of_16_is_one_doorbell_and_burst_fetched",
         D8_chain_of_16_is_one_doorbell_and_burst_fetched},
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
