/* test_verbs.c: the memory verbs and request flags, end to end:
 * SendAndInvalidate (C2-C5), Invalidate, protection domains,
 * SILENT_SUCCESS, READ_FENCE, prepared posts (V1), FastRegister (D7).
 *
 * A SendAndInvalidate from side a names side b's remote token; b's receive
 * completes as a ReceiveAndInvalidate and the token is dead at b's NIC
 * from then on, whether b ever looks (C3). An Invalidate is a request of
 * the SQ: it kills a token of the local adapter, and one of a dead token
 * fails (C5).
 */
#include "e2e.h"

#include <time.h>

#define CTX(i) ((void *)(uintptr_t)(0x2000u + (i)))

/* b posts a receive of 256 bytes; a sends 64 bytes with SendAndInvalidate
 * of token `inv`. Returns a's completion status. */
static ndk_status send_inv(e2e_pair *p, uint32_t inv)
{
    ndk_sge r = e2e_sge(&p->b, 0, 256);
    EXPECT_STATUS(ndk_receive(p->b.qp, CTX(1), &r, 1), NDK_STATUS_SUCCESS);
    e2e_fill(p->a.buf, 64, 9);
    ndk_sge g = e2e_sge(&p->a, 0, 64);
    EXPECT_STATUS(ndk_send_and_invalidate(p->a.qp, CTX(2), &g, 1, 0, inv), NDK_STATUS_SUCCESS);
    ndk_result_ex s;
    EXPECT(e2e_poll(p->a.icq, &s, 1, 10000) == 1, "the SendAndInvalidate never completed");
    EXPECT(s.type == NDK_OP_TYPE_SEND, "SendAndInvalidate completed as type %u, expected SEND", s.type);
    return s.status;
}

/* a WRITEs sge to addr under token; its completion must have status want. */
static void write_expect(e2e_pair *p, void *ctx, const ndk_sge *g, uint64_t addr, uint32_t token,
                         ndk_status want, const char *what)
{
    EXPECT_STATUS(ndk_write(p->a.qp, ctx, g, 1, addr, token, 0), NDK_STATUS_SUCCESS);
    (void)e2e_expect_one(p->a.icq, want, "%s", what);
}

/* b's receive completion, taken with plain ndk_get_cq_results only (C2). */
static ndk_result plain_receive(e2e_pair *p)
{
    ndk_result r;
    uint64_t end = e2e_now_ms() + 10000;
    uint32_t got = 0;
    while (got == 0 && e2e_now_ms() < end)
        got = ndk_get_cq_results(p->b.rcq, &r, 1);
    EXPECT(got == 1, "C2: plain ndk_get_cq_results did not return the ReceiveAndInvalidate");
    return r;
}

static void C2_send_and_invalidate_is_retrieved_as_a_plain_receive(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    EXPECT_STATUS(send_inv(&p, ndk_mr_remote_token(p.b.mr)), NDK_STATUS_SUCCESS);
    ndk_result r = plain_receive(&p);
    EXPECT_STATUS(r.status, NDK_STATUS_SUCCESS);
    EXPECT(r.request_context == CTX(1) && r.bytes_transferred == 64,
           "C2: receive context %p bytes %u, expected %p 64", r.request_context, r.bytes_transferred, CTX(1));
    EXPECT(memcmp(p.a.buf, p.b.buf, 64) == 0, "C2: the sent bytes did not arrive");
    e2e_pair_close(&p);
}

/* C3: the consumer only ever polls with plain ndk_get_cq_results, and the
 * token is invalid all the same: a WRITE with it is refused at b's NIC and
 * moves nothing. */
static void C3_token_is_invalidated_even_with_plain_polling(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint32_t rkey = ndk_mr_remote_token(p.b.mr);
    EXPECT_STATUS(send_inv(&p, rkey), NDK_STATUS_SUCCESS);
    ndk_result r = plain_receive(&p);
    EXPECT_STATUS(r.status, NDK_STATUS_SUCCESS);
    memset(p.b.buf + 4096, 0, 64);
    e2e_fill(p.a.buf + 4096, 64, 3);
    ndk_sge g = e2e_sge(&p.a, 4096, 64);
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(3), &g, 1, e2e_remote_addr(&p.b, 4096), rkey, 0),
                  NDK_STATUS_SUCCESS);
    ndk_result_ex w;
    EXPECT(e2e_poll(p.a.icq, &w, 1, 10000) == 1, "the WRITE never completed");
    EXPECT(w.status == NDK_STATUS_REMOTE_ACCESS_ERROR,
           "C3: a WRITE with the invalidated token completed %s, expected REMOTE_ACCESS_ERROR",
           ndk_status_str(w.status));
    for (int i = 0; i < 64; i++)
        EXPECT(p.b.buf[4096 + i] == 0, "C3: byte %d written through the invalidated token", i);
    e2e_pair_close(&p);
}

static void C4_ex_reports_receive_and_invalidate_with_its_token(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint32_t rkey = ndk_mr_remote_token(p.b.mr);
    EXPECT_STATUS(send_inv(&p, rkey), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p.b.rcq, &r, 1, 10000) == 1, "no receive completion");
    EXPECT_STATUS(r.status, NDK_STATUS_SUCCESS);
    EXPECT(r.type == NDK_OP_TYPE_RECEIVE_AND_INVALIDATE,
           "C4: type 0x%x, expected RECEIVE_AND_INVALIDATE (0x8001)", r.type);
    EXPECT(r.type_specific == rkey, "C4: type_specific 0x%llx, expected the token 0x%x",
           (unsigned long long)r.type_specific, rkey);
    EXPECT(r.qp_num == ndk_qp_num(p.b.qp) && r.request_context == CTX(1) && r.bytes_transferred == 64,
           "C4: QP 0x%x context %p bytes %u", r.qp_num, r.request_context, r.bytes_transferred);
    e2e_pair_close(&p);
}

/* C5: after the SendAndInvalidate, b's own Invalidate of that token fails
 * as for any invalid token. */
static void C5_later_invalidate_of_that_token_fails(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint32_t rkey = ndk_mr_remote_token(p.b.mr);
    EXPECT_STATUS(send_inv(&p, rkey), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p.b.rcq, &r, 1, 10000) == 1, "no receive completion");
    EXPECT_STATUS(ndk_invalidate(p.b.qp, CTX(4), rkey, 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.b.icq, &r, 1, 10000) == 1, "the Invalidate never completed");
    EXPECT(r.status == NDK_STATUS_INVALID_TOKEN,
           "C5: an Invalidate of the invalidated token completed %s, expected INVALID_TOKEN",
           ndk_status_str(r.status));
    EXPECT(r.type == NDK_OP_TYPE_INVALIDATE && r.request_context == CTX(4),
           "C5: type %u context %p", r.type, r.request_context);
    e2e_pair_close(&p);
}

/* Invalidate of a local region's token: SUCCESS, then an access through
 * either of its tokens fails, and a second Invalidate fails (C5). */
static void invalidate_local_token_then_access_and_again_fail(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(mr, p.a.buf + 8192, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE),
                  NDK_STATUS_SUCCESS);
    uint32_t lkey = ndk_mr_local_token(mr);
    EXPECT_STATUS(ndk_invalidate(p.a.qp, CTX(5), lkey, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p.a.icq, &r, 1, 10000) == 1, "the Invalidate never completed");
    EXPECT_STATUS(r.status, NDK_STATUS_SUCCESS);
    EXPECT(r.type == NDK_OP_TYPE_INVALIDATE && r.request_context == CTX(5),
           "Invalidate completed as type %u context %p", r.type, r.request_context);
    /* the WRITE's source is the dead region: refused before any DMA */
    ndk_sge g = { (uint64_t)(uintptr_t)(p.a.buf + 8192), 64, lkey };
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(6), &g, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, &r, 1, 10000) == 1, "the WRITE never completed");
    EXPECT(r.status == NDK_STATUS_ACCESS_VIOLATION,
           "a WRITE from an invalidated region completed %s, expected ACCESS_VIOLATION",
           ndk_status_str(r.status));
    /* the QP is in ERROR now: a second Invalidate from b's QP */
    EXPECT_STATUS(ndk_invalidate(p.b.qp, CTX(7), ndk_mr_remote_token(mr), 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.b.icq, &r, 1, 10000) == 1, "the second Invalidate never completed");
    EXPECT(r.status == NDK_STATUS_INVALID_TOKEN,
           "C5: a second Invalidate (through the other token) completed %s", ndk_status_str(r.status));
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* A SendAndInvalidate naming a token that is not valid at the receiver:
 * the receive completes INVALID_TOKEN, the send REMOTE_ACCESS_ERROR. */
static void send_and_invalidate_of_a_bad_token_fails_both_sides(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint32_t bad = ndk_mr_remote_token(p.b.mr) ^ 0x100u;
    EXPECT(send_inv(&p, bad) == NDK_STATUS_REMOTE_ACCESS_ERROR,
           "a SendAndInvalidate of a bad token did not fail REMOTE_ACCESS_ERROR");
    ndk_result_ex r;
    EXPECT(e2e_poll(p.b.rcq, &r, 1, 10000) == 1, "no receive completion");
    EXPECT(r.status == NDK_STATUS_INVALID_TOKEN, "the receive completed %s, expected INVALID_TOKEN",
           ndk_status_str(r.status));
    EXPECT(r.type == NDK_OP_TYPE_RECEIVE, "a failed ReceiveAndInvalidate reports type 0x%x", r.type);
    e2e_pair_close(&p);
}

/* D1: DEFER is accepted on Invalidate and SendAndInvalidate; the chain
 * goes in one doorbell and completes in order. */
static void D1_defer_on_invalidate_and_send_and_invalidate(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(mr, p.a.buf + 8192, 4096, 0), NDK_STATUS_SUCCESS);
    ndk_sge r = e2e_sge(&p.b, 0, 256);
    EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &r, 1), NDK_STATUS_SUCCESS);
    ndk_counters c0, c1;
    EXPECT_STATUS(ndk_query_counters(p.ad, &c0), NDK_STATUS_SUCCESS);
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_invalidate(p.a.qp, CTX(10), ndk_mr_local_token(mr), NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_send_and_invalidate(p.a.qp, CTX(11), &g, 1, NDK_OP_FLAG_DEFER,
                                          ndk_mr_remote_token(p.b.mr)), NDK_STATUS_SUCCESS);
    ndk_result_ex out[3];
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, out, 3) == 0, "a DEFERred chain completed before its end");
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(12), &g, 1, e2e_remote_addr(&p.b, 1024),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, out, 3, 10000) == 3, "the chain did not complete");
    for (int i = 0; i < 3; i++)
        EXPECT(out[i].request_context == CTX(10 + i), "completion %d has context %p", i,
               out[i].request_context);
    EXPECT_STATUS(out[0].status, NDK_STATUS_SUCCESS);
    EXPECT_STATUS(out[1].status, NDK_STATUS_SUCCESS);
    /* the SendAndInvalidate killed b's rkey before the WRITE that uses it */
    EXPECT_STATUS(out[2].status, NDK_STATUS_REMOTE_ACCESS_ERROR);
    EXPECT_STATUS(ndk_query_counters(p.ad, &c1), NDK_STATUS_SUCCESS);
    EXPECT(c1.doorbells - c0.doorbells == 1, "D1: the chain of 3 took %llu doorbells",
           (unsigned long long)(c1.doorbells - c0.doorbells));
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* Protection domains: a QP uses no region of another PD, neither as its own
 * SGE (ACCESS_VIOLATION, nothing read) nor as a peer's target
 * (REMOTE_ACCESS_ERROR, nothing written), and cannot invalidate its token;
 * the same region in the QP's own PD works. */
static void pd_a_qp_never_uses_a_region_of_another_pd(void)
{
    for (int remote = 0; remote < 3; remote++) {
        e2e_pair p;
        e2e_pair_open(&p, NULL);
        ndk_pd *other;
        EXPECT_STATUS(ndk_create_pd(p.ad, &other), NDK_STATUS_SUCCESS);
        ndk_mr *mr;
        EXPECT_STATUS(ndk_create_mr(other, &mr), NDK_STATUS_SUCCESS);
        e2e_side *owner = remote ? &p.b : &p.a;
        EXPECT_STATUS(ndk_register_mr(mr, owner->buf + 8192, 4096, NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
                                      NDK_MR_FLAG_ALLOW_REMOTE_READ),
                      NDK_STATUS_SUCCESS);
        memset(p.b.buf, 0, 4096);
        memset(p.b.buf + 8192, 0, 64);
        e2e_fill(p.a.buf + 8192, 64, 4);
        ndk_result_ex r;
        if (remote == 2) {
            EXPECT_STATUS(ndk_invalidate(p.a.qp, CTX(20), ndk_mr_local_token(mr), 0), NDK_STATUS_SUCCESS);
            EXPECT(e2e_poll(p.a.icq, &r, 1, 10000) == 1, "the Invalidate never completed");
            EXPECT(r.status == NDK_STATUS_INVALID_TOKEN,
                   "an Invalidate of another PD's token completed %s", ndk_status_str(r.status));
        } else {
            ndk_sge g = remote ? e2e_sge(&p.a, 8192, 64)
                               : (ndk_sge){ (uint64_t)(uintptr_t)(p.a.buf + 8192), 64, ndk_mr_local_token(mr) };
            uint64_t ra = remote ? (uint64_t)(uintptr_t)(p.b.buf + 8192) : e2e_remote_addr(&p.b, 0);
            uint32_t rt = remote ? ndk_mr_remote_token(mr) : ndk_mr_remote_token(p.b.mr);
            EXPECT_STATUS(ndk_write(p.a.qp, CTX(20), &g, 1, ra, rt, 0), NDK_STATUS_SUCCESS);
            EXPECT(e2e_poll(p.a.icq, &r, 1, 10000) == 1, "the WRITE never completed");
            ndk_status want = remote ? NDK_STATUS_REMOTE_ACCESS_ERROR : NDK_STATUS_ACCESS_VIOLATION;
            EXPECT(r.status == want, "a WRITE %s another PD's region completed %s, expected %s",
                   remote ? "into" : "from", ndk_status_str(r.status), ndk_status_str(want));
            for (int i = 0; i < 64; i++)
                EXPECT(p.b.buf[i] == 0 && p.b.buf[8192 + i] == 0, "byte %d moved across PDs", i);
        }
        EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_destroy_pd(other), NDK_STATUS_SUCCESS);
        e2e_pair_close(&p);
    }
}

/* SILENT_SUCCESS: 40 WRITEs through an SQ of 8, none completes, yet the SQ
 * never stays full (the library retires silent successes from the NIC's
 * SQ_CI); the bytes arrive; a WRITE without the flag then completes alone;
 * a silent request that fails completes with its error. */
static void silent_success_completes_nothing_and_the_sq_drains(void)
{
    e2e_pair p;
    e2e_opts o = { .sq_depth = 8 };
    e2e_pair_open(&p, &o);
    uint32_t rkey = ndk_mr_remote_token(p.b.mr);
    uint64_t t0 = e2e_now_ms();
    for (uint32_t i = 0; i < 40;) {
        e2e_fill(p.a.buf + 64u * i, 64, 100 + i);
        ndk_sge g = e2e_sge(&p.a, 64u * i, 64);
        ndk_status st = ndk_write(p.a.qp, CTX(30 + i), &g, 1, e2e_remote_addr(&p.b, 64u * i), rkey,
                                  NDK_OP_FLAG_SILENT_SUCCESS);
        if (st == NDK_STATUS_INSUFFICIENT_RESOURCES) {
            EXPECT(e2e_now_ms() - t0 < 10000, "the SQ stayed full of silent successes (%u posted)", i);
            continue;
        }
        EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
        i++;
    }
    ndk_result_ex r[4];
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 4) == 0, "a silent success produced a completion");
    EXPECT(memcmp(p.a.buf, p.b.buf, 40 * 64) == 0, "the silent WRITEs' bytes did not all arrive");
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(80), &g, 1, e2e_remote_addr(&p.b, 8192), rkey, 0),
                  NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, r, 1, 10000) == 1, "the WRITE without the flag did not complete");
    EXPECT(r[0].request_context == CTX(80) && r[0].status == NDK_STATUS_SUCCESS,
           "completion context %p status %s", r[0].request_context, ndk_status_str(r[0].status));
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 4) == 0, "more completions than the one asked for");
    /* a silent request that fails still completes */
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(81), &g, 1, e2e_remote_addr(&p.b, 8192), rkey ^ 0x100u,
                            NDK_OP_FLAG_SILENT_SUCCESS), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, r, 1, 10000) == 1, "a failed silent request did not complete");
    EXPECT(r[0].request_context == CTX(81) && r[0].status == NDK_STATUS_REMOTE_ACCESS_ERROR,
           "failed silent request: context %p status %s", r[0].request_context,
           ndk_status_str(r[0].status));
    e2e_pair_close(&p);
}

/* READ_FENCE: a WRITE whose source is the sink of the READ before it, in
 * one chain; with READ_FENCE it starts only once that READ has completed,
 * so it sends what the READ brought, not what the buffer held before. */
static void read_fence_waits_for_the_earlier_read(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    enum { LEN = 16384 };
    e2e_fill(p.b.buf, LEN, 77);              /* what the READ fetches */
    memset(p.a.buf, 0xEE, LEN);              /* what the sink holds before */
    memset(p.b.buf + 2 * LEN, 0, LEN);       /* where the WRITE lands */
    uint32_t rkey = ndk_mr_remote_token(p.b.mr);
    ndk_sge g = e2e_sge(&p.a, 0, LEN);
    EXPECT_STATUS(ndk_read(p.a.qp, CTX(90), &g, 1, e2e_remote_addr(&p.b, 0), rkey, NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(91), &g, 1, e2e_remote_addr(&p.b, 2 * LEN), rkey,
                            NDK_OP_FLAG_READ_FENCE), NDK_STATUS_SUCCESS);
    ndk_result_ex r[2];
    EXPECT(e2e_poll(p.a.icq, r, 2, 10000) == 2, "the READ and the fenced WRITE did not complete");
    EXPECT_STATUS(r[0].status, NDK_STATUS_SUCCESS);
    EXPECT_STATUS(r[1].status, NDK_STATUS_SUCCESS);
    EXPECT(memcmp(p.b.buf + 2 * LEN, p.b.buf, LEN) == 0,
           "the fenced WRITE sent the sink's old bytes: it did not wait for the READ");
    e2e_pair_close(&p);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* V1: a prepared WRITE posted 100 times: every post completes with its own
 * context and the bytes arrive; freeing it tells the last post's status; a
 * post after disconnect fails inline and the free reports that; the QP
 * cannot be destroyed while the prepared post lives. Prints the host cost
 * of a post, plain against prepared, measured in this run (a ratio of
 * wall-clock figures; not asserted). */
static void V1_prepared_post_posted_many_times(void)
{
    e2e_pair p;
    e2e_opts o = { .sq_depth = 256, .cq_depth = 512 };
    e2e_pair_open(&p, &o);
    uint32_t rkey = ndk_mr_remote_token(p.b.mr);
    e2e_fill(p.a.buf, 64, 5);
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    ndk_prepared *pp = NULL;
    EXPECT_STATUS(ndk_prepare_write(p.a.qp, &g, 1, e2e_remote_addr(&p.b, 4096), rkey, 0, &pp),
                  NDK_STATUS_SUCCESS);
    ndk_prepared *bad = NULL;
    EXPECT_STATUS(ndk_prepare_write(p.a.qp, &g, 9, 0, rkey, 0, &bad), NDK_STATUS_INVALID_PARAMETER);
    EXPECT(bad == NULL, "a refused prepare handed out a prepared post");
    ndk_result_ex r[128];
    for (uint32_t i = 0; i < 100; i++)
        EXPECT_STATUS(ndk_post_prepared(pp, CTX(200 + i)), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, r, 100, 10000) == 100, "the prepared post's 100 posts did not all complete");
    for (uint32_t i = 0; i < 100; i++)
        EXPECT(r[i].status == NDK_STATUS_SUCCESS && r[i].request_context == CTX(200 + i),
               "post %u: status %s context %p", i, ndk_status_str(r[i].status), r[i].request_context);
    EXPECT(memcmp(p.a.buf, p.b.buf + 4096, 64) == 0, "the prepared WRITE's bytes did not arrive");

    /* the host's cost of a post: 200 plain, then 200 prepared, DEFER (no
     * doorbell), each batch rung once at its end */
    double t0 = now_ns();
    for (uint32_t i = 0; i < 200; i++)
        EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 4096), rkey,
                                i + 1 < 200 ? NDK_OP_FLAG_DEFER : 0), NDK_STATUS_SUCCESS);
    double t1 = now_ns();
    EXPECT(e2e_poll(p.a.icq, r, 128, 10000) == 128 && e2e_poll(p.a.icq, r, 72, 10000) == 72,
           "the plain batch did not complete");
    ndk_prepared *pd_defer = NULL;
    EXPECT_STATUS(ndk_prepare_write(p.a.qp, &g, 1, e2e_remote_addr(&p.b, 4096), rkey, NDK_OP_FLAG_DEFER,
                                    &pd_defer), NDK_STATUS_SUCCESS);
    double t2 = now_ns();
    for (uint32_t i = 0; i < 199; i++)
        EXPECT_STATUS(ndk_post_prepared(pd_defer, NULL), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_post_prepared(pp, NULL), NDK_STATUS_SUCCESS);
    double t3 = now_ns();
    EXPECT(e2e_poll(p.a.icq, r, 128, 10000) == 128 && e2e_poll(p.a.icq, r, 72, 10000) == 72,
           "the prepared batch did not complete");
    printf("V1: a post costs the host %.0f ns plain, %.0f ns prepared (ratio %.2f), this run\n",
           (t1 - t0) / 200, (t3 - t2) / 200, (t3 - t2) / (t1 - t0));
    ndk_status last;
    EXPECT_STATUS(ndk_free_prepared(pd_defer, &last), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(last, NDK_STATUS_SUCCESS);

    EXPECT_STATUS(ndk_destroy_qp(p.a.qp), NDK_STATUS_DEVICE_BUSY);
    EXPECT_STATUS(ndk_disconnect(p.a.qp), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_post_prepared(pp, CTX(999)), NDK_STATUS_INVALID_DEVICE_STATE);
    EXPECT_STATUS(ndk_free_prepared(pp, &last), NDK_STATUS_SUCCESS);
    EXPECT(last == NDK_STATUS_INVALID_DEVICE_STATE, "the free reported %s for a post that failed",
           ndk_status_str(last));
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 4) == 0, "a post that failed inline completed");
    e2e_pair_close(&p);
}

/* D7, literally as the seed tells it: FastRegister(DEFER) succeeds,
 * FastRegister(DEFER) fails inline, the consumer does not post the Send;
 * the first completes with a CQE (D5 handed it over), the second produces
 * none (D3). */
static void D7_seed_example_literally_with_fast_register(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    void *block;
    uint8_t *pages = e2e_pages(&p, 2, &block);
    uint64_t list[2] = { ndk_dma_address(p.ad, pages), ndk_dma_address(p.ad, pages) + 4096u };
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_fast_register(p.a.qp, CTX(60), mr, 2, list, 0, 8192, (uint64_t)(uintptr_t)pages,
                                    NDK_OP_FLAG_ALLOW_LOCAL_WRITE | NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    /* the second names an MR that is registered already: fails inline */
    EXPECT_STATUS(ndk_fast_register(p.a.qp, CTX(61), mr, 2, list, 0, 8192, (uint64_t)(uintptr_t)pages,
                                    NDK_OP_FLAG_ALLOW_LOCAL_WRITE | NDK_OP_FLAG_DEFER),
                  NDK_STATUS_INVALID_DEVICE_STATE);
    ndk_result_ex r[4];
    EXPECT(e2e_poll(p.a.icq, r, 1, 10000) == 1, "D7: the first FastRegister never completed");
    EXPECT(r[0].request_context == CTX(60) && r[0].status == NDK_STATUS_SUCCESS &&
           r[0].type == NDK_OP_TYPE_FAST_REGISTER,
           "D7: completion context %p status %s type %u", r[0].request_context,
           ndk_status_str(r[0].status), r[0].type);
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 4) == 0, "D7: the failed FastRegister produced a completion");
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    ndk_free_dma(p.ad, block);
    e2e_pair_close(&p);
}

/* A region fast-registered by b (base_va of its own choosing, an offset
 * into the first page) is the target of a's WRITE and the source of a's
 * READ through its remote token; a page list with an unaligned page is
 * refused. */
static void fast_register_region_serves_write_and_read(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    void *block;
    uint8_t *pages = e2e_pages(&p, 3, &block);
    uint64_t d0 = ndk_dma_address(p.ad, pages);
    uint64_t list[3] = { d0, d0 + 4096, d0 + 8192 };
    const uint64_t base_va = 0x7000000000ull;
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    uint64_t unaligned[2] = { d0, d0 + 4096 + 8 };
    EXPECT_STATUS(ndk_fast_register(p.b.qp, NULL, mr, 2, unaligned, 0, 8000, base_va, 0),
                  NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_fast_register(p.b.qp, CTX(70), mr, 3, list, 100, 8000, base_va,
                                    NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ),
                  NDK_STATUS_SUCCESS);
    ndk_result_ex r[2];
    e2e_expect_one(p.b.icq, NDK_STATUS_SUCCESS, "the FastRegister");
    e2e_fill(p.a.buf, 6000, 21);
    ndk_sge g = e2e_sge(&p.a, 0, 6000);
    /* remote address 1000 bytes into the region: base_va + 100 + 1000 */
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(71), &g, 1, base_va + 100 + 1000, ndk_mr_remote_token(mr), 0),
                  NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, r, 1, 10000) == 1, "the WRITE never completed");
    EXPECT_STATUS(r[0].status, NDK_STATUS_SUCCESS);
    EXPECT(memcmp(pages + 1100, p.a.buf, 6000) == 0, "the WRITE did not land at page offset 1100");
    for (int i = 0; i < 1100; i++)
        EXPECT(pages[i] == 0, "byte %d before the target changed", i);
    ndk_sge back = e2e_sge(&p.a, 8192, 6000);
    EXPECT_STATUS(ndk_read(p.a.qp, CTX(72), &back, 1, base_va + 100 + 1000, ndk_mr_remote_token(mr), 0),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(p.a.icq, NDK_STATUS_SUCCESS, "the READ");
    EXPECT(memcmp(p.a.buf + 8192, p.a.buf, 6000) == 0, "the READ did not bring the region's bytes");
    /* past the region's end (100 + 8000): refused */
    write_expect(&p, CTX(73), &g, base_va + 100 + 7000, ndk_mr_remote_token(mr),
                 NDK_STATUS_REMOTE_ACCESS_ERROR, "the WRITE past the end");
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    ndk_free_dma(p.ad, block);
    e2e_pair_close(&p);
}

/* The page list is a page table: b fast-registers four pages of a block of
 * six in the order 3, 0, 5, 2 (1 and 4 not in the region), 100 bytes into
 * the first and 50 short of the last. a WRITEs the whole region in one
 * message: every byte must land in the page the list names for it, and no
 * byte elsewhere changes (the DMA checker allows only the listed pages, so
 * a request crossing from one page into its neighbour fails the test
 * too). a READs it back; b SENDs a slice of it by its local token (the
 * gather's side of the translation); one byte past the end is refused. */
static void fast_register_scattered_pages_translate_every_access(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    void *block;
    uint8_t *pages = e2e_pages(&p, 6, &block);
    const uint32_t order[4] = { 3, 0, 5, 2 };
    uint64_t list[4];
    for (int i = 0; i < 4; i++)
        list[i] = ndk_dma_address(p.ad, pages + order[i] * 4096u);
    const uint32_t fbo = 100, len = 4 * 4096 - fbo - 50;
    const uint64_t base_va = 0x5000000000ull;
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_fast_register(p.b.qp, CTX(80), mr, 4, list, fbo, len, base_va,
                                    NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ),
                  NDK_STATUS_SUCCESS);
    ndk_result_ex r[2];
    e2e_expect_one(p.b.icq, NDK_STATUS_SUCCESS, "the FastRegister of scattered pages");

    e2e_fill(p.a.buf, len, 33);
    ndk_sge g = e2e_sge(&p.a, 0, len);
    write_expect(&p, CTX(81), &g, base_va + fbo, ndk_mr_remote_token(mr), NDK_STATUS_SUCCESS,
                 "the WRITE over four scattered pages");
    for (uint32_t pg = 0; pg < 6; pg++)
        for (uint32_t off = 0; off < 4096; off++) {
            int want = 0; /* a page outside the list, or a byte outside the region */
            for (uint32_t i = 0; i < 4; i++) {
                uint32_t at = i * 4096 + off; /* from the first listed page's start */
                if (order[i] == pg && at >= fbo && at < fbo + len)
                    want = p.a.buf[at - fbo];
            }
            uint8_t got = pages[pg * 4096 + off];
            EXPECT(got == (uint8_t)want, "block page %u byte %u is 0x%02x, expected 0x%02x "
                   "(list order 3,0,5,2; offset %u, length %u)", pg, off, got, want & 0xFF, fbo, len);
        }

    ndk_sge back = e2e_sge(&p.a, 32768, len);
    EXPECT_STATUS(ndk_read(p.a.qp, CTX(82), &back, 1, base_va + fbo, ndk_mr_remote_token(mr), 0),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(p.a.icq, NDK_STATUS_SUCCESS, "the READ of the scattered region");
    EXPECT(memcmp(p.a.buf + 32768, p.a.buf, len) == 0, "the READ did not bring the region back in order");

    /* b sends 7000 bytes from region offset 3000 (pages 0, 1 and 2 of the
     * list) by its local token into a's receive */
    memset(p.a.buf + 16384, 0, 8192);
    ndk_sge rcv = e2e_sge(&p.a, 16384, 8192);
    EXPECT_STATUS(ndk_receive(p.a.qp, CTX(83), &rcv, 1), NDK_STATUS_SUCCESS);
    ndk_sge from = { base_va + fbo + 3000, 7000, ndk_mr_local_token(mr) };
    EXPECT_STATUS(ndk_send(p.b.qp, CTX(84), &from, 1, 0), NDK_STATUS_SUCCESS);
    e2e_expect_one(p.b.icq, NDK_STATUS_SUCCESS, "the SEND from the scattered region");
    EXPECT(e2e_poll(p.a.rcq, r, 1, 10000) == 1 && r[0].status == NDK_STATUS_SUCCESS &&
           r[0].bytes_transferred == 7000, "a's receive of the SEND: status %s, %u bytes",
           ndk_status_str(r[0].status), r[0].bytes_transferred);
    EXPECT(memcmp(p.a.buf + 16384, p.a.buf + 3000, 7000) == 0,
           "the SEND did not gather the region's bytes 3000..9999 through the page list");

    ndk_sge one = e2e_sge(&p.a, 0, 1);
    write_expect(&p, CTX(85), &one, base_va + fbo + len, ndk_mr_remote_token(mr),
                 NDK_STATUS_REMOTE_ACCESS_ERROR, "the WRITE one byte past the end");
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    ndk_free_dma(p.ad, block);
    e2e_pair_close(&p);
}

/* The page table is shared by every fast-registered region: a region that
 * takes every entry (one page listed max_fr_pages times: a page list may
 * repeat a page) leaves none for the next, which fails inline with
 * INSUFFICIENT_RESOURCES and stays unregistered; a list longer than the
 * table fails the same way; destroying the first region gives its entries
 * back. */
static void fast_register_page_table_runs_out_and_comes_back(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_adapter_info info;
    EXPECT_STATUS(ndk_query_adapter_info(p.ad, &info), NDK_STATUS_SUCCESS);
    EXPECT(info.max_fr_pages >= 16, "max_fr_pages is %u", info.max_fr_pages);
    void *block;
    uint8_t *pages = e2e_pages(&p, 1, &block);
    uint32_t n = info.max_fr_pages;
    uint64_t *list = malloc((n + 1) * sizeof *list);
    EXPECT(list != NULL, "malloc of the page list");
    for (uint32_t i = 0; i <= n; i++)
        list[i] = ndk_dma_address(p.ad, pages);
    ndk_mr *big, *small;
    EXPECT_STATUS(ndk_create_mr(p.pd, &big), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_create_mr(p.pd, &small), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_fast_register(p.b.qp, NULL, small, n + 1, list, 0, (size_t)(n + 1) * 4096u,
                                    0x1000000, NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
                  NDK_STATUS_INSUFFICIENT_RESOURCES);
    EXPECT(ndk_mr_local_token(small) == 0, "a refused FastRegister left the MR registered");
    EXPECT_STATUS(ndk_fast_register(p.b.qp, CTX(90), big, n, list, 0, (size_t)n * 4096u, 0x1000000,
                                    NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(p.b.icq, NDK_STATUS_SUCCESS, "the FastRegister of %u entries", n);
    EXPECT_STATUS(ndk_fast_register(p.b.qp, NULL, small, 1, list, 0, 4096, 0x1000000,
                                    NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
                  NDK_STATUS_INSUFFICIENT_RESOURCES);
    EXPECT(ndk_mr_local_token(small) == 0, "a refused FastRegister left the MR registered");
    /* the last entry of the big region maps the one page too: a WRITE at
     * its last byte lands on the page's last byte */
    p.a.buf[0] = 0x5A;
    ndk_sge one = e2e_sge(&p.a, 0, 1);
    write_expect(&p, CTX(91), &one, 0x1000000 + (uint64_t)n * 4096u - 1, ndk_mr_remote_token(big),
                 NDK_STATUS_SUCCESS, "the WRITE through the table's last entry");
    EXPECT(pages[4095] == 0x5A, "the WRITE through entry %u did not land on the page's last byte", n - 1);
    EXPECT_STATUS(ndk_destroy_mr(big), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_fast_register(p.b.qp, CTX(92), small, 1, list, 0, 4096, 0x1000000,
                                    NDK_OP_FLAG_ALLOW_LOCAL_WRITE),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(p.b.icq, NDK_STATUS_SUCCESS, "the FastRegister after the destroy");
    EXPECT_STATUS(ndk_destroy_mr(small), NDK_STATUS_SUCCESS);
    free(list);
    ndk_free_dma(p.ad, block);
    e2e_pair_close(&p);
}

/* A region over max_fr_pages pages none of which touches another (every
 * other page of a block): each page its own span of host memory, so the
 * simulator's DMA checker holds a range for each; a WRITE of one byte into
 * the first, a middle and the last page lands in the page the list names,
 * and nothing lands in the pages between. */
static void fast_register_table_full_of_separate_pages(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_adapter_info info;
    EXPECT_STATUS(ndk_query_adapter_info(p.ad, &info), NDK_STATUS_SUCCESS);
    uint32_t n = info.max_fr_pages;
    void *block;
    uint8_t *pages = e2e_pages(&p, 2 * n, &block);
    uint64_t *list = malloc(n * sizeof *list);
    EXPECT(list != NULL, "malloc of the page list");
    for (uint32_t i = 0; i < n; i++)
        list[i] = ndk_dma_address(p.ad, pages + (size_t)2 * i * 4096u);
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_fast_register(p.b.qp, CTX(95), mr, n, list, 0, (size_t)n * 4096u, 0x2000000,
                                    NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(p.b.icq, NDK_STATUS_SUCCESS, "the FastRegister of %u separate pages", n);
    const uint32_t at[3] = { 0, n / 2, n - 1 };
    for (int k = 0; k < 3; k++) {
        p.a.buf[k] = (uint8_t)(0xA0 + k);
        ndk_sge one = e2e_sge(&p.a, (uint32_t)k, 1);
        write_expect(&p, CTX(96), &one, 0x2000000 + (uint64_t)at[k] * 4096u + 4095u, ndk_mr_remote_token(mr),
                     NDK_STATUS_SUCCESS, "a WRITE into one of the separate pages");
        EXPECT(pages[(size_t)2 * at[k] * 4096u + 4095u] == (uint8_t)(0xA0 + k),
               "the WRITE into entry %u did not land at the end of its page", at[k]);
        EXPECT(pages[(size_t)(2 * at[k] + 1) * 4096u] == 0, "the page after entry %u changed", at[k]);
    }
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    free(list);
    ndk_free_dma(p.ad, block);
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
    static const e2e_case cases[] = {
        { "C2_send_and_invalidate_is_retrieved_as_a_plain_receive", C2_send_and_invalidate_is_retrieved_as_a_plain_receive },
        { "C3_token_is_invalidated_even_with_plain_polling", C3_token_is_invalidated_even_with_plain_polling },
        { "C4_ex_reports_receive_and_invalidate_with_its_token", C4_ex_reports_receive_and_invalidate_with_its_token },
        { "C5_later_invalidate_of_that_token_fails", C5_later_invalidate_of_that_token_fails },
        { "invalidate_local_token_then_access_and_again_fail", invalidate_local_token_then_access_and_again_fail },
        { "send_and_invalidate_of_a_bad_token_fails_both_sides", send_and_invalidate_of_a_bad_token_fails_both_sides },
        { "D1_defer_on_invalidate_and_send_and_invalidate", D1_defer_on_invalidate_and_send_and_invalidate },
        { "pd_a_qp_never_uses_a_region_of_another_pd", pd_a_qp_never_uses_a_region_of_another_pd },
        { "silent_success_completes_nothing_and_the_sq_drains", silent_success_completes_nothing_and_the_sq_drains },
        { "read_fence_waits_for_the_earlier_read", read_fence_waits_for_the_earlier_read },
        { "V1_prepared_post_posted_many_times", V1_prepared_post_posted_many_times },
        { "D7_seed_example_literally_with_fast_register", D7_seed_example_literally_with_fast_register },
        { "fast_register_region_serves_write_and_read", fast_register_region_serves_write_and_read },
        { "fast_register_scattered_pages_translate_every_access",
          fast_register_scattered_pages_translate_every_access },
        { "fast_register_page_table_runs_out_and_comes_back", fast_register_page_table_runs_out_and_comes_back },
        { "fast_register_table_full_of_separate_pages", fast_register_table_full_of_separate_pages },
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
