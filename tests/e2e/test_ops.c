/* test_ops.c: the operations themselves, end to end: SEND/RECEIVE, WRITE and
 * READ between two loopback QPs, data checked byte for byte; what a
 * completion carries (V3, V7); a send with no receive posted (V8): refused,
 * sent again after the RNR timer with what followed it, and completed
 * RECEIVER_NOT_READY when the retries run out.
 */
#include "e2e.h"
#include "qpnic_hw.h" /* RNR_TIMER_CYCLES */

static const uint32_t sizes[] = {1, 3, 4, 5, 63, 64, 65, 511, 512, 513, 1500, 4099, 16384};

static void expect_one(ndk_cq *cq, ndk_result_ex *r, const char *what)
{
    EXPECT(e2e_poll(cq, r, 1, 10000) == 1, "%s: no completion", what);
}

static void ops_send_receive_bytes_match(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t n = sizes[i];
        memset(p.b.buf, 0xEE, n + 16);
        e2e_fill(p.a.buf, n, (uint32_t)i);
        ndk_sge rg = e2e_sge(&p.b, 0, n);
        EXPECT_STATUS(ndk_receive(p.b.qp, (void *)(uintptr_t)(0x100 + i), &rg, 1), NDK_STATUS_SUCCESS);
        ndk_sge sg = e2e_sge(&p.a, 0, n);
        EXPECT_STATUS(ndk_send(p.a.qp, (void *)(uintptr_t)(0x200 + i), &sg, 1, 0), NDK_STATUS_SUCCESS);
        ndk_result_ex r;
        expect_one(p.a.icq, &r, "send");
        EXPECT_STATUS(r.status, NDK_STATUS_SUCCESS);
        EXPECT(r.type == NDK_OP_TYPE_SEND, "send completion type %u", r.type);
        EXPECT(r.request_context == (void *)(uintptr_t)(0x200 + i), "send context wrong");
        expect_one(p.b.rcq, &r, "receive");
        EXPECT_STATUS(r.status, NDK_STATUS_SUCCESS);
        EXPECT(r.type == NDK_OP_TYPE_RECEIVE, "receive completion type %u", r.type);
        EXPECT(r.bytes_transferred == n, "receive of %u bytes reports %u", n, r.bytes_transferred);
        EXPECT(r.request_context == (void *)(uintptr_t)(0x100 + i), "receive context wrong");
        for (uint32_t k = 0; k < n; k++)
            EXPECT(p.b.buf[k] == p.a.buf[k], "%u-byte send: byte %u is 0x%02x, sent 0x%02x",
                   n, k, p.b.buf[k], p.a.buf[k]);
        for (uint32_t k = n; k < n + 16; k++)
            EXPECT(p.b.buf[k] == 0xEE, "%u-byte send wrote past its end, at byte %u", n, k);
    }
    e2e_pair_close(&p);
}

static void ops_send_gathers_and_receive_scatters_uneven_sges(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    e2e_fill(p.a.buf, 8192, 7);
    memset(p.b.buf, 0, 8192);
    /* 3 + 1000 + 61 bytes gathered, scattered into 7 + 555 + 502 */
    ndk_sge s[3] = {e2e_sge(&p.a, 1, 3), e2e_sge(&p.a, 2001, 1000), e2e_sge(&p.a, 5003, 61)};
    ndk_sge r[3] = {e2e_sge(&p.b, 10, 7), e2e_sge(&p.b, 3000, 555), e2e_sge(&p.b, 6001, 502)};
    EXPECT_STATUS(ndk_receive(p.b.qp, NULL, r, 3), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, s, 3, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex res;
    expect_one(p.b.rcq, &res, "receive");
    EXPECT_STATUS(res.status, NDK_STATUS_SUCCESS);
    EXPECT(res.bytes_transferred == 1064, "bytes %u, expected 1064", res.bytes_transferred);
    uint8_t sent[1064], got[1064];
    memcpy(sent, p.a.buf + 1, 3);
    memcpy(sent + 3, p.a.buf + 2001, 1000);
    memcpy(sent + 1003, p.a.buf + 5003, 61);
    memcpy(got, p.b.buf + 10, 7);
    memcpy(got + 7, p.b.buf + 3000, 555);
    memcpy(got + 562, p.b.buf + 6001, 502);
    for (int k = 0; k < 1064; k++)
        EXPECT(sent[k] == got[k], "byte %d of the message differs", k);
    EXPECT(p.b.buf[9] == 0 && p.b.buf[17] == 0 && p.b.buf[2999] == 0 && p.b.buf[3555] == 0 &&
               p.b.buf[6000] == 0,
           "the scatter wrote outside its SGEs");
    expect_one(p.a.icq, &res, "send");
    e2e_pair_close(&p);
}

static void ops_write_bytes_match(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint32_t off = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t n = sizes[i];
        e2e_fill(p.a.buf + off, n, 100 + (uint32_t)i);
        ndk_sge g = e2e_sge(&p.a, off, n);
        EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, off + 1),
                                ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
        ndk_result_ex r;
        expect_one(p.a.icq, &r, "write");
        EXPECT_STATUS(r.status, NDK_STATUS_SUCCESS);
        EXPECT(r.type == NDK_OP_TYPE_WRITE, "write completion type %u", r.type);
        EXPECT(memcmp(p.a.buf + off, p.b.buf + off + 1, n) == 0, "%u-byte write: data differs", n);
        EXPECT(p.b.buf[off] == 0 && p.b.buf[off + n + 1] == 0, "%u-byte write spilled", n);
        off += n + 8;
        off &= ~3u;
        off += 8;
    }
    ndk_result_ex r;
    EXPECT(e2e_settle_and_poll(&p, p.b.rcq, &r, 1) == 0, "a write produced a receive completion");
    e2e_pair_close(&p);
}

static void ops_read_bytes_match(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint32_t n = sizes[i];
        e2e_fill(p.b.buf, n, 200 + (uint32_t)i);
        memset(p.a.buf, 0x55, n + 8);
        ndk_sge g = e2e_sge(&p.a, 2, n);
        EXPECT_STATUS(ndk_read(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0),
                               ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
        ndk_result_ex r;
        expect_one(p.a.icq, &r, "read");
        EXPECT_STATUS(r.status, NDK_STATUS_SUCCESS);
        EXPECT(r.type == NDK_OP_TYPE_READ, "read completion type %u", r.type);
        EXPECT(r.bytes_transferred == n, "read of %u reports %u bytes", n, r.bytes_transferred);
        EXPECT(memcmp(p.a.buf + 2, p.b.buf, n) == 0, "%u-byte read: data differs", n);
        EXPECT(p.a.buf[1] == 0x55 && p.a.buf[n + 2] == 0x55, "%u-byte read spilled", n);
    }
    e2e_pair_close(&p);
}

static void V3_completion_names_its_qp(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_sge rg = e2e_sge(&p.b, 0, 8);
    EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &rg, 1), NDK_STATUS_SUCCESS);
    ndk_sge sg = e2e_sge(&p.a, 0, 8);
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, &sg, 1, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    expect_one(p.a.icq, &r, "send");
    EXPECT(r.qp_context == &p.a, "send completion qp_context %p, expected %p", r.qp_context, (void *)&p.a);
    EXPECT(r.qp_num == ndk_qp_num(p.a.qp), "send completion qp_num %u, expected %u", r.qp_num,
           ndk_qp_num(p.a.qp));
    expect_one(p.b.rcq, &r, "receive");
    EXPECT(r.qp_context == &p.b, "receive completion qp_context wrong");
    EXPECT(r.qp_num == ndk_qp_num(p.b.qp), "receive completion qp_num %u, expected %u", r.qp_num,
           ndk_qp_num(p.b.qp));
    EXPECT(ndk_qp_num(p.a.qp) != ndk_qp_num(p.b.qp), "two QPs share a number");
    e2e_pair_close(&p);
}

static void V3_shared_cq_tells_qps_apart(void)
{
    e2e_pair p;
    e2e_opts o = {.share_cq = 1};
    e2e_pair_open(&p, &o);
    for (int k = 0; k < 2; k++) {
        ndk_sge rg = e2e_sge(&p.b, 0, 8);
        EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &rg, 1), NDK_STATUS_SUCCESS);
        rg = e2e_sge(&p.a, 64, 8);
        EXPECT_STATUS(ndk_receive(p.a.qp, NULL, &rg, 1), NDK_STATUS_SUCCESS);
    }
    ndk_sge sg = e2e_sge(&p.a, 0, 8);
    EXPECT_STATUS(ndk_send(p.a.qp, (void *)1, &sg, 1, 0), NDK_STATUS_SUCCESS);
    sg = e2e_sge(&p.b, 128, 8);
    EXPECT_STATUS(ndk_send(p.b.qp, (void *)2, &sg, 1, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r[4];
    EXPECT(e2e_poll(p.a.icq, r, 2, 10000) == 2, "two send completions on the shared CQ");
    EXPECT(e2e_poll(p.a.rcq, r + 2, 2, 10000) == 2, "two receive completions on the shared CQ");
    int seen_a = 0, seen_b = 0;
    for (int k = 0; k < 4; k++) {
        if (r[k].qp_num == ndk_qp_num(p.a.qp)) { seen_a++; EXPECT(r[k].qp_context == &p.a, "ctx a"); }
        if (r[k].qp_num == ndk_qp_num(p.b.qp)) { seen_b++; EXPECT(r[k].qp_context == &p.b, "ctx b"); }
    }
    EXPECT(seen_a == 2 && seen_b == 2, "completions by QP: a %d, b %d; expected 2 and 2", seen_a, seen_b);
    e2e_pair_close(&p);
}

static void V7_bytes_only_on_success(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_sge rg = e2e_sge(&p.b, 0, 16);
    EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &rg, 1), NDK_STATUS_SUCCESS);
    ndk_sge sg = e2e_sge(&p.a, 0, 100); /* too big for the receive */
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, &sg, 1, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    expect_one(p.b.rcq, &r, "receive");
    EXPECT(r.status != NDK_STATUS_SUCCESS, "an oversized receive succeeded");
    EXPECT(r.bytes_transferred == 0, "a failed receive reports %u bytes", r.bytes_transferred);
    EXPECT(r.type == NDK_OP_TYPE_RECEIVE, "failed receive type %u", r.type);
    expect_one(p.a.icq, &r, "send");
    EXPECT(r.status != NDK_STATUS_SUCCESS, "the send into a too small receive succeeded");
    EXPECT(r.type == NDK_OP_TYPE_SEND, "failed send type %u", r.type);
    e2e_pair_close(&p);
}

static uint64_t rnr_retries(ndk_adapter *ad)
{
    ndk_counters c;
    EXPECT_STATUS(ndk_query_counters(ad, &c), NDK_STATUS_SUCCESS);
    return c.rnr_retries;
}

static void V8_send_without_receive_is_receiver_not_ready(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    memset(p.b.buf, 0x77, 256);
    uint64_t r0 = rnr_retries(p.ad);
    ndk_sge sg = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, &sg, 1, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    expect_one(p.a.icq, &r, "send");
    EXPECT_STATUS(r.status, NDK_STATUS_RECEIVER_NOT_READY);
    EXPECT(e2e_settle_and_poll(&p, p.b.rcq, &r, 1) == 0, "a receive completed without a receive posted");
    for (int k = 0; k < 256; k++)
        EXPECT(p.b.buf[k] == 0x77, "receiver memory changed at byte %d", k);
    uint64_t r1 = rnr_retries(p.ad);
    EXPECT(r1 - r0 == NDK_RNR_RETRY_DEFAULT, "a new QP retried the send %llu times, expected %u",
           (unsigned long long)(r1 - r0), NDK_RNR_RETRY_DEFAULT);
    e2e_pair_close(&p);
}

/* A pair whose QPs retry a SEND refused for want of a receive forever. */
static void open_retrying_forever(e2e_pair *p)
{
    e2e_opts o;
    memset(&o, 0, sizeof o);
    o.set_rnr = 1;
    o.rnr_retry = NDK_RNR_RETRY_FOREVER;
    e2e_pair_open(p, &o);
}

/* V8 with retries: a SEND that meets no receive, then an INVALIDATE (right
 * behind it, so that it runs before the SEND's NAK is back), a WRITE, a READ
 * of what the WRITE wrote and an INLINE SEND, one chain. While
 * no receive is posted the NIC keeps refusing the SEND and everything after
 * it: nothing lands at b, nothing completes. Once receives are posted, the
 * next retry delivers all five in order, each once: each send fills its own
 * receive, the READ sees the WRITE's bytes, and the INVALIDATE (which ran
 * when the NIC first reached it) is not run again: a second run would fail
 * the token it already cleared. */
static void V8_rnr_retry_sends_the_rest_again_in_order_each_once(void)
{
    e2e_pair p;
    open_retrying_forever(&p);
    ndk_mr *mr;   /* the INVALIDATE's region */
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(mr, p.a.buf + 32768, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE),
                  NDK_STATUS_SUCCESS);
    e2e_fill(p.a.buf, 64, 1);          /* the first send */
    e2e_fill(p.a.buf + 512, 200, 3);   /* the WRITE's source */
    uint8_t inl[100];                  /* the INLINE send: its own WQE and one data slot */
    e2e_fill(inl, sizeof inl, 2);
    uint64_t r0 = rnr_retries(p.ad);
    ndk_sge s1 = e2e_sge(&p.a, 0, 64), w = e2e_sge(&p.a, 512, 200), rd = e2e_sge(&p.a, 2048, 200);
    ndk_sge s2 = { (uint64_t)(uintptr_t)inl, sizeof inl, 0 };
    uint32_t rkey = ndk_mr_remote_token(p.b.mr);
    EXPECT_STATUS(ndk_send(p.a.qp, (void *)1, &s1, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_invalidate(p.a.qp, (void *)2, ndk_mr_local_token(mr), NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_write(p.a.qp, (void *)3, &w, 1, e2e_remote_addr(&p.b, 1024), rkey,
                            NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_read(p.a.qp, (void *)4, &rd, 1, e2e_remote_addr(&p.b, 1024), rkey,
                           NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_send(p.a.qp, (void *)5, &s2, 1, NDK_OP_FLAG_INLINE), NDK_STATUS_SUCCESS);

    /* refused again and again: wait for two retries (the timer runs in NIC
     * cycles; the simulator runs while a QP waits for it) */
    uint64_t t0 = e2e_now_ms();
    while (rnr_retries(p.ad) - r0 < 2 && e2e_now_ms() - t0 < e2e_scaled_ms(10000))
        ;
    ndk_result_ex r[6];
    uint32_t early = ndk_get_cq_results_ex(p.a.icq, r, 6);
    EXPECT(early == 0, "%u requests completed while the send was refused, the first %s, type %u",
           early, ndk_status_str(r[0].status), r[0].type);
    EXPECT(rnr_retries(p.ad) - r0 >= 2, "the send was retried %llu times in 10 s",
           (unsigned long long)(rnr_retries(p.ad) - r0));
    EXPECT(ndk_get_cq_results_ex(p.b.rcq, r, 6) == 0, "b completed something with no receive posted");
    for (int k = 0; k < 200; k++) {
        EXPECT(p.b.buf[1024 + k] == 0, "the WRITE after the refused send landed (byte %d)", k);
        EXPECT(p.a.buf[2048 + k] == 0, "the READ after the refused send landed (byte %d)", k);
    }

    ndk_sge g1 = e2e_sge(&p.b, 4096, 64), g2 = e2e_sge(&p.b, 8192, 128);
    EXPECT_STATUS(ndk_receive(p.b.qp, (void *)11, &g1, 1), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_receive(p.b.qp, (void *)12, &g2, 1), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, r, 5, 10000) == 5, "the chain did not complete after receives were posted");
    static const uint32_t types[] = { NDK_OP_TYPE_SEND, NDK_OP_TYPE_INVALIDATE, NDK_OP_TYPE_WRITE,
                                      NDK_OP_TYPE_READ, NDK_OP_TYPE_SEND };
    for (uint32_t i = 0; i < 5; i++) {
        EXPECT(r[i].status == NDK_STATUS_SUCCESS && r[i].type == types[i] &&
                   r[i].request_context == (void *)(uintptr_t)(i + 1),
               "completion %u: %s, type %u, context %p; expected SUCCESS, type %u, context %u", i,
               ndk_status_str(r[i].status), r[i].type, r[i].request_context, types[i], i + 1);
    }
    EXPECT(e2e_poll(p.b.rcq, r, 2, 10000) == 2, "b's two receives did not both complete");
    EXPECT(r[0].status == NDK_STATUS_SUCCESS && r[0].request_context == (void *)11 &&
               r[0].bytes_transferred == 64,
           "first receive: %s, context %p, %u bytes", ndk_status_str(r[0].status),
           r[0].request_context, r[0].bytes_transferred);
    EXPECT(r[1].status == NDK_STATUS_SUCCESS && r[1].request_context == (void *)12 &&
               r[1].bytes_transferred == sizeof inl,
           "second receive: %s, context %p, %u bytes", ndk_status_str(r[1].status),
           r[1].request_context, r[1].bytes_transferred);
    EXPECT(memcmp(p.b.buf + 4096, p.a.buf, 64) == 0, "the first send's bytes are not in the first receive");
    EXPECT(memcmp(p.b.buf + 8192, inl, sizeof inl) == 0, "the INLINE send's bytes are not in the second receive");
    EXPECT(memcmp(p.b.buf + 1024, p.a.buf + 512, 200) == 0, "the WRITE's bytes did not land");
    EXPECT(memcmp(p.a.buf + 2048, p.a.buf + 512, 200) == 0, "the READ did not bring the WRITE's bytes back");
    EXPECT(e2e_poll(p.b.rcq, r, 1, 0) == 0, "b completed a third receive");
    EXPECT(rnr_retries(p.ad) - r0 >= 2, "retry counter went back");

    /* the token is dead: a second INVALIDATE fails (C5) */
    EXPECT_STATUS(ndk_invalidate(p.a.qp, (void *)6, ndk_mr_local_token(mr), 0), NDK_STATUS_SUCCESS);
    e2e_expect_one(p.a.icq, NDK_STATUS_INVALID_TOKEN, "the second INVALIDATE of the token");
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* V8 with retries, and a READ behind the refused SEND that the target must
 * refuse (its token names no region). A READ whose WQE the requester had
 * claimed when the rewind came goes out stale, as PSN - 1: a duplicate at
 * the target. That duplicate is refused too, but it must not move the
 * target's expected PSN back: the SEND sent again after the receive is
 * posted must still be taken. (Found by the differential test with DMA
 * reads out of order: the SEND completed REMOTE_OPERATION_ERROR.) Several
 * READs and several refusals make it likely that one of them is stale; the
 * outcome must be the same whether or not one was. */
static void V8_a_stale_read_refused_does_not_refuse_the_send_sent_again(void)
{
    e2e_pair p;
    open_retrying_forever(&p);
    e2e_fill(p.a.buf, 64, 5);
    uint64_t r0 = rnr_retries(p.ad);
    ndk_sge s = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_send(p.a.qp, (void *)1, &s, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    enum { READS = 6 };
    const uint32_t dead = ndk_mr_remote_token(p.b.mr) ^ 0x00ff0000u;   /* no region's */
    for (uint32_t i = 0; i < READS; i++) {
        ndk_sge rd = e2e_sge(&p.a, 4096 + 512 * i, 32);
        EXPECT_STATUS(ndk_read(p.a.qp, (void *)(uintptr_t)(2 + i), &rd, 1, e2e_remote_addr(&p.b, 0),
                               dead, i + 1 < READS ? NDK_OP_FLAG_DEFER : 0), NDK_STATUS_SUCCESS);
    }
    uint64_t t0 = e2e_now_ms();
    while (rnr_retries(p.ad) - r0 < 6 && e2e_now_ms() - t0 < e2e_scaled_ms(10000))
        ;
    EXPECT(rnr_retries(p.ad) - r0 >= 6, "the send was retried %llu times in 10 s",
           (unsigned long long)(rnr_retries(p.ad) - r0));
    ndk_result_ex r[READS + 1];
    EXPECT(ndk_get_cq_results_ex(p.a.icq, r, READS + 1) == 0,
           "a request completed while the send was refused");
    ndk_sge g = e2e_sge(&p.b, 8192, 64);
    EXPECT_STATUS(ndk_receive(p.b.qp, (void *)11, &g, 1), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, r, READS + 1, 10000) == READS + 1,
           "the chain did not complete after the receive was posted");
    EXPECT(r[0].status == NDK_STATUS_SUCCESS && r[0].request_context == (void *)1,
           "the send sent again: %s, context %p; expected SUCCESS, context 1",
           ndk_status_str(r[0].status), r[0].request_context);
    EXPECT(r[1].status == NDK_STATUS_REMOTE_ACCESS_ERROR && r[1].request_context == (void *)2,
           "the first READ: %s, context %p; expected REMOTE_ACCESS_ERROR, context 2",
           ndk_status_str(r[1].status), r[1].request_context);
    for (uint32_t i = 2; i <= READS; i++)
        EXPECT(r[i].status == NDK_STATUS_CANCELLED && r[i].request_context == (void *)(uintptr_t)(i + 1),
               "READ %u behind the failed one: %s, context %p; expected CANCELLED", i,
               ndk_status_str(r[i].status), r[i].request_context);
    EXPECT(e2e_poll(p.b.rcq, r, 1, 10000) == 1 && r[0].status == NDK_STATUS_SUCCESS &&
               r[0].bytes_transferred == 64,
           "b's receive did not complete SUCCESS with 64 bytes");
    EXPECT(memcmp(p.b.buf + 8192, p.a.buf, 64) == 0, "the send's bytes are not in the receive");
    e2e_pair_close(&p);
}

/* V8 when the retries run out: RNR_RETRY 2 sends the refused SEND twice
 * more, RNR_TIMER_CYCLES apart, then completes it RECEIVER_NOT_READY and the
 * WRITE behind it CANCELLED; nothing reached b. */
static void V8_rnr_retries_run_out_then_receiver_not_ready(void)
{
    e2e_opts o;
    memset(&o, 0, sizeof o);
    o.set_rnr = 1;
    o.rnr_retry = 2;
    e2e_pair p;
    e2e_pair_open(&p, &o);
    /* the NIC's own cycle counter: ndk_sim_cycles is published by the
     * simulator every 1,024 cycles, so the difference of two readings can
     * be up to 1,023 short (a run measured 7,681 for two timers) */
    ndk_counters k0, k1;
    EXPECT_STATUS(ndk_query_counters(p.ad, &k0), NDK_STATUS_SUCCESS);
    uint64_t r0 = rnr_retries(p.ad);
    ndk_sge s = e2e_sge(&p.a, 0, 64), w = e2e_sge(&p.a, 512, 64);
    EXPECT_STATUS(ndk_send(p.a.qp, (void *)1, &s, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_write(p.a.qp, (void *)2, &w, 1, e2e_remote_addr(&p.b, 1024),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    e2e_expect_one(p.a.icq, NDK_STATUS_RECEIVER_NOT_READY, "the send no receive ever met");
    e2e_expect_one(p.a.icq, NDK_STATUS_CANCELLED, "the WRITE behind it");
    EXPECT_STATUS(ndk_query_counters(p.ad, &k1), NDK_STATUS_SUCCESS);
    uint64_t retries = rnr_retries(p.ad) - r0, cycles = k1.cycles - k0.cycles;
    EXPECT(retries == 2, "RNR_RETRY 2 retried %llu times", (unsigned long long)retries);
    EXPECT(cycles >= 2ull * QPNIC_RNR_TIMER_CYCLES,
           "two retries took %llu cycles, less than two RNR timers (%u each)",
           (unsigned long long)cycles, QPNIC_RNR_TIMER_CYCLES);
    uint32_t state = 0;
    EXPECT_STATUS(ndk_query_qp_state(p.a.qp, &state), NDK_STATUS_SUCCESS);
    EXPECT(state == NDK_QP_STATE_ERROR, "the QP is in state %u, not ERROR", state);
    ndk_result_ex r;
    EXPECT(e2e_settle_and_poll(&p, p.b.rcq, &r, 1) == 0, "b completed a receive it never had");
    for (int k = 0; k < 64; k++)
        EXPECT(p.b.buf[1024 + k] == 0, "the cancelled WRITE landed (byte %d)", k);
    e2e_pair_close(&p);
}

/* ndk_set_rnr_retry: 0..7 before the connect; above 7 INVALID_PARAMETER; a
 * connected QP INVALID_DEVICE_STATE; the refused calls change nothing. */
static void V8_set_rnr_retry_checks_its_arguments(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    EXPECT_STATUS(ndk_set_rnr_retry(NULL, 1), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_set_rnr_retry(p.a.qp, 8), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_set_rnr_retry(p.a.qp, 0), NDK_STATUS_INVALID_DEVICE_STATE);
    /* still the default: a send with no receive is retried that often */
    uint64_t r0 = rnr_retries(p.ad);
    ndk_sge s = e2e_sge(&p.a, 0, 16);
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, &s, 1, 0), NDK_STATUS_SUCCESS);
    e2e_expect_one(p.a.icq, NDK_STATUS_RECEIVER_NOT_READY, "the send");
    EXPECT(rnr_retries(p.ad) - r0 == NDK_RNR_RETRY_DEFAULT, "refused calls changed the retries: %llu",
           (unsigned long long)(rnr_retries(p.ad) - r0));
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
#define C(f) {#f, f}
    static const e2e_case cases[] = {
        C(ops_send_receive_bytes_match),
        C(ops_send_gathers_and_receive_scatters_uneven_sges),
        C(ops_write_bytes_match),
        C(ops_read_bytes_match),
        C(V3_completion_names_its_qp),
        C(V8_rnr_retry_sends_the_rest_again_in_order_each_once),
        C(V8_rnr_retries_run_out_then_receiver_not_ready),
        C(V8_a_stale_read_refused_does_not_refuse_the_send_sent_again),
        C(V8_set_rnr_retry_checks_its_arguments),
        C(V3_shared_cq_tells_qps_apart),
        C(V7_bytes_only_on_success),
        C(V8_send_without_receive_is_receiver_not_ready),
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
