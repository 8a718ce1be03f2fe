/* test_inline.c: NDK_OP_FLAG_INLINE end to end: the call copies the bytes
 * into the SQ (the request's WQE and up to two INLINE_DATA slots after it),
 * the requester gathers them from the ring, and the data slots complete
 * with their request, never on their own.
 *
 * The source buffers here are ordinary heap memory, not DMA memory and not
 * registered, with a token that names nothing: inline data needs neither,
 * and the NIC could not reach such memory if it tried (the simulator's
 * checker would count it). Each buffer is overwritten as soon as the post
 * returns, so what arrives proves the copy was made by the call.
 */
#include "e2e.h"

#include <stdlib.h>

#define CTX(i) ((void *)(uintptr_t)(0x4000u + (i)))
#define NO_TOKEN 0xDEADBEEFu

static uint8_t *heap_bytes(uint32_t len, uint32_t seed)
{
    uint8_t *p = malloc(len ? len : 1);
    EXPECT(p != NULL, "malloc");
    e2e_fill(p, len, seed);
    return p;
}

/* Every boundary of the slots: empty, 1, the WQE's 44 and one past, the
 * first data slot's end (104) and one past, max_inline (164). */
static void inline_send_of_every_length_arrives(void)
{
    static const uint32_t lens[] = { 0, 1, 44, 45, 104, 105, 164 };
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_adapter_info info;
    EXPECT_STATUS(ndk_query_adapter_info(p.ad, &info), NDK_STATUS_SUCCESS);
    EXPECT(info.max_inline == 164, "max_inline %u, expected 164 (CAPS2)", info.max_inline);
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        uint32_t len = lens[i];
        memset(p.b.buf, 0, 256);
        ndk_sge r = e2e_sge(&p.b, 0, 256);
        EXPECT_STATUS(ndk_receive(p.b.qp, CTX(100 + i), &r, 1), NDK_STATUS_SUCCESS);
        uint8_t *src = heap_bytes(len, 40 + (uint32_t)i);
        uint8_t want[164];
        memcpy(want, src, len);
        ndk_sge g = { (uint64_t)(uintptr_t)src, len, NO_TOKEN };
        EXPECT_STATUS(ndk_send(p.a.qp, CTX(i), &g, 1, NDK_OP_FLAG_INLINE), NDK_STATUS_SUCCESS);
        memset(src, 0xA5, len); /* reused at once */
        ndk_result_ex s;
        EXPECT(e2e_poll(p.a.icq, &s, 1, 10000) == 1, "the %u-byte inline SEND never completed", len);
        EXPECT(s.status == NDK_STATUS_SUCCESS && s.request_context == CTX(i) && s.type == NDK_OP_TYPE_SEND,
               "the %u-byte inline SEND completed %s context %p type 0x%x", len, ndk_status_str(s.status),
               s.request_context, s.type);
        EXPECT(e2e_poll(p.b.rcq, &s, 1, 10000) == 1, "no receive for the %u-byte inline SEND", len);
        EXPECT(s.status == NDK_STATUS_SUCCESS && s.bytes_transferred == len,
               "the receive of %u inline bytes completed %s with %u bytes", len, ndk_status_str(s.status),
               s.bytes_transferred);
        EXPECT(memcmp(p.b.buf, want, len) == 0, "the %u inline bytes arrived changed", len);
        EXPECT(p.b.buf[len] == 0, "a byte past the %u inline bytes was written", len);
        free(src);
    }
    ndk_result_ex extra;
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, &extra, 1) == 0, "an INLINE_DATA slot completed on its own");
    e2e_pair_close(&p);
}

/* Several SGEs make one inline payload, in order; a WRITE carries it too. */
static void inline_write_of_three_sges(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint8_t *src = heap_bytes(150, 7);
    uint8_t want[150];
    memcpy(want, src, 150);
    ndk_sge g[3] = { { (uint64_t)(uintptr_t)src, 50, NO_TOKEN },
                     { (uint64_t)(uintptr_t)(src + 50), 0, 0 },
                     { (uint64_t)(uintptr_t)(src + 50), 100, NO_TOKEN } };
    memset(p.b.buf, 0, 512);
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(1), g, 3, e2e_remote_addr(&p.b, 100), ndk_mr_remote_token(p.b.mr),
                            NDK_OP_FLAG_INLINE),
                  NDK_STATUS_SUCCESS);
    memset(src, 0, 150);
    ndk_result_ex r;
    EXPECT(e2e_poll(p.a.icq, &r, 1, 10000) == 1 && r.status == NDK_STATUS_SUCCESS && r.type == NDK_OP_TYPE_WRITE,
           "the inline WRITE did not complete SUCCESS");
    EXPECT(memcmp(p.b.buf + 100, want, 150) == 0, "the inline WRITE's bytes did not land in SGE order");
    EXPECT(p.b.buf[99] == 0 && p.b.buf[250] == 0, "the inline WRITE wrote outside its 150 bytes");
    free(src);
    e2e_pair_close(&p);
}

/* An SQ of 4 slots, inline WRITEs of three slots each: their data slots
 * wrap round the ring's end, and the room they take is given back (the
 * data slots are retired like silent successes). Twelve in a row. */
static void inline_slots_wrap_the_ring(void)
{
    e2e_pair p;
    e2e_opts o = { .sq_depth = 4 };
    e2e_pair_open(&p, &o);
    memset(p.b.buf, 0, 4096);
    for (uint32_t i = 0; i < 12; i++) {
        uint8_t src[164];
        e2e_fill(src, sizeof src, 60 + i);
        ndk_sge g = { (uint64_t)(uintptr_t)src, sizeof src, NO_TOKEN };
        EXPECT_STATUS(ndk_write(p.a.qp, CTX(i), &g, 1, e2e_remote_addr(&p.b, 200 * i),
                                ndk_mr_remote_token(p.b.mr), NDK_OP_FLAG_INLINE),
                      NDK_STATUS_SUCCESS);
        ndk_result_ex r;
        EXPECT(e2e_poll(p.a.icq, &r, 1, 10000) == 1, "inline WRITE %u never completed", i);
        EXPECT(r.status == NDK_STATUS_SUCCESS && r.request_context == CTX(i),
               "inline WRITE %u completed %s context %p", i, ndk_status_str(r.status), r.request_context);
        EXPECT(memcmp(p.b.buf + 200 * i, src, sizeof src) == 0, "inline WRITE %u (ring slot %u) landed changed",
               i, (3 * i) % 4);
    }
    e2e_pair_close(&p);
}

/* Limits: above max_inline, INLINE on a READ, a QP asking more than the
 * adapter's max_inline: INVALID_PARAMETER, and nothing completes. */
static void inline_limits_fail_inline(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint8_t *src = heap_bytes(165, 3);
    ndk_sge g = { (uint64_t)(uintptr_t)src, 165, NO_TOKEN };
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, &g, 1, NDK_OP_FLAG_INLINE), NDK_STATUS_INVALID_PARAMETER);
    ndk_sge two[2] = { { (uint64_t)(uintptr_t)src, 100, 0 }, { (uint64_t)(uintptr_t)src, 65, 0 } };
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, two, 2, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr),
                            NDK_OP_FLAG_INLINE),
                  NDK_STATUS_INVALID_PARAMETER);
    ndk_sge r = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_read(p.a.qp, NULL, &r, 1, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr),
                           NDK_OP_FLAG_INLINE),
                  NDK_STATUS_INVALID_PARAMETER);
    ndk_result_ex res;
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, &res, 1) == 0, "a refused inline request completed");
    ndk_qp *q;
    ndk_qp_attr a = { .sq_depth = 4, .rq_depth = 4, .max_sge = 1, .max_inline = 165 };
    EXPECT_STATUS(ndk_create_qp(p.pd, p.a.rcq, p.a.icq, NULL, &a, &q), NDK_STATUS_INVALID_PARAMETER);
    a = (ndk_qp_attr){ .sq_depth = 4, .rq_depth = 4, .max_sge = 1, .max_inline = 10 };
    EXPECT_STATUS(ndk_create_qp(p.pd, p.a.rcq, p.a.icq, NULL, &a, &q), NDK_STATUS_SUCCESS);
    EXPECT(a.max_inline == 164, "max_inline 10 asked, %u granted (expected the adapter's 164)", a.max_inline);
    EXPECT_STATUS(ndk_destroy_qp(q), NDK_STATUS_SUCCESS);
    free(src);
    e2e_pair_close(&p);
}

/* A prepared inline SEND copies its buffer at each post (V1 with INLINE). */
static void inline_prepared_copies_at_each_post(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint8_t *src = heap_bytes(100, 11);
    uint8_t first[100];
    memcpy(first, src, 100);
    ndk_sge g = { (uint64_t)(uintptr_t)src, 100, NO_TOKEN };
    ndk_prepared *pp;
    EXPECT_STATUS(ndk_prepare_send(p.a.qp, &g, 1, NDK_OP_FLAG_INLINE, &pp), NDK_STATUS_SUCCESS);
    for (uint32_t i = 0; i < 2; i++) {
        ndk_sge r = e2e_sge(&p.b, 256 * i, 256);
        EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &r, 1), NDK_STATUS_SUCCESS);
    }
    EXPECT_STATUS(ndk_post_prepared(pp, CTX(1)), NDK_STATUS_SUCCESS);
    e2e_fill(src, 100, 12);
    EXPECT_STATUS(ndk_post_prepared(pp, CTX(2)), NDK_STATUS_SUCCESS);
    ndk_result_ex s[2];
    EXPECT(e2e_poll(p.b.rcq, s, 2, 10000) == 2, "the two prepared inline SENDs were not both received");
    EXPECT(memcmp(p.b.buf, first, 100) == 0, "the first prepared post did not carry the bytes of its time");
    EXPECT(memcmp(p.b.buf + 256, src, 100) == 0, "the second prepared post did not carry the changed bytes");
    EXPECT(e2e_poll(p.a.icq, s, 2, 10000) == 2 && s[0].request_context == CTX(1) && s[1].request_context == CTX(2),
           "the prepared inline SENDs did not complete with their contexts");
    ndk_status last;
    EXPECT_STATUS(ndk_free_prepared(pp, &last), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(last, NDK_STATUS_SUCCESS);
    free(src);
    e2e_pair_close(&p);
}

/* D1 with INLINE: eight inline SENDs of three slots, seven with DEFER, ring
 * once; every one completes once, in order. */
static void D1_defer_on_an_inline_chain(void)
{
    e2e_pair p;
    e2e_opts o = { .sq_depth = 32 };
    e2e_pair_open(&p, &o);
    for (uint32_t i = 0; i < 8; i++) {
        ndk_sge r = e2e_sge(&p.b, 256 * i, 256);
        EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &r, 1), NDK_STATUS_SUCCESS);
    }
    ndk_counters c0, c1;
    EXPECT_STATUS(ndk_query_counters(p.ad, &c0), NDK_STATUS_SUCCESS);
    uint8_t src[8][130];
    for (uint32_t i = 0; i < 8; i++) {
        e2e_fill(src[i], 130, 80 + i);
        ndk_sge g = { (uint64_t)(uintptr_t)src[i], 130, NO_TOKEN };
        EXPECT_STATUS(ndk_send(p.a.qp, CTX(i), &g, 1, NDK_OP_FLAG_INLINE | (i < 7 ? NDK_OP_FLAG_DEFER : 0)),
                      NDK_STATUS_SUCCESS);
    }
    ndk_result_ex r[9];
    EXPECT(e2e_poll(p.a.icq, r, 8, 10000) == 8, "the inline chain did not complete");
    EXPECT_STATUS(ndk_query_counters(p.ad, &c1), NDK_STATUS_SUCCESS);
    EXPECT(c1.doorbells - c0.doorbells == 1, "D1: the inline chain rang %llu doorbells",
           (unsigned long long)(c1.doorbells - c0.doorbells));
    for (uint32_t i = 0; i < 8; i++)
        EXPECT(r[i].status == NDK_STATUS_SUCCESS && r[i].request_context == CTX(i),
               "completion %u: %s context %p", i, ndk_status_str(r[i].status), r[i].request_context);
    EXPECT(e2e_poll(p.b.rcq, r, 8, 10000) == 8, "not every inline SEND was received");
    for (uint32_t i = 0; i < 8; i++)
        EXPECT(memcmp(p.b.buf + 256 * i, src[i], 130) == 0, "inline SEND %u arrived changed", i);
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 1) == 0, "more completions than requests");
    e2e_pair_close(&p);
}

/* A QP that fails with inline requests behind the failure: each request
 * completes exactly once (the failure, then CANCELLED), and none of their
 * INLINE_DATA slots completes on its own. */
static void inline_behind_a_failure_completes_once(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint8_t src[164];
    e2e_fill(src, sizeof src, 90);
    ndk_sge w = e2e_sge(&p.a, 0, 16);
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(0), &w, 1, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr) ^ 0x100u,
                            NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    ndk_sge g = { (uint64_t)(uintptr_t)src, sizeof src, NO_TOKEN };
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(1), &g, 1, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr),
                            NDK_OP_FLAG_INLINE | NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    g.length = 100;
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(2), &g, 1, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr),
                            NDK_OP_FLAG_INLINE),
                  NDK_STATUS_SUCCESS);
    ndk_result_ex r[4];
    EXPECT(e2e_poll(p.a.icq, r, 3, 10000) == 3, "the three requests did not all complete");
    EXPECT(r[0].status == NDK_STATUS_REMOTE_ACCESS_ERROR && r[0].request_context == CTX(0),
           "the bad WRITE completed %s", ndk_status_str(r[0].status));
    for (int i = 1; i < 3; i++)
        EXPECT(r[i].status == NDK_STATUS_CANCELLED && r[i].request_context == CTX(i),
               "inline WRITE %d behind the failure completed %s context %p", i, ndk_status_str(r[i].status),
               r[i].request_context);
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 4) == 0, "an INLINE_DATA slot of a flushed request completed");
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
    static const e2e_case cases[] = {
        { "inline_send_of_every_length_arrives", inline_send_of_every_length_arrives },
        { "inline_write_of_three_sges", inline_write_of_three_sges },
        { "inline_slots_wrap_the_ring", inline_slots_wrap_the_ring },
        { "inline_limits_fail_inline", inline_limits_fail_inline },
        { "inline_prepared_copies_at_each_post", inline_prepared_copies_at_each_post },
        { "D1_defer_on_an_inline_chain", D1_defer_on_an_inline_chain },
        { "inline_behind_a_failure_completes_once", inline_behind_a_failure_completes_once },
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
