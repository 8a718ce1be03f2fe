/* test_ops.c: the operations themselves, end to end: SEND/RECEIVE, WRITE and
 * READ between two loopback QPs, data checked byte for byte; what a
 * completion carries (V3, V7); a send with no receive posted (V8).
 */
#include "e2e.h"

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

static void V8_send_without_receive_is_receiver_not_ready(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    memset(p.b.buf, 0x77, 256);
    ndk_sge sg = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, &sg, 1, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    expect_one(p.a.icq, &r, "send");
    EXPECT_STATUS(r.status, NDK_STATUS_RECEIVER_NOT_READY);
    EXPECT(e2e_settle_and_poll(&p, p.b.rcq, &r, 1) == 0, "a receive completed without a receive posted");
    for (int k = 0; k < 256; k++)
        EXPECT(p.b.buf[k] == 0x77, "receiver memory changed at byte %d", k);
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
        C(V3_shared_cq_tells_qps_apart),
        C(V7_bytes_only_on_success),
        C(V8_send_without_receive_is_receiver_not_ready),
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
