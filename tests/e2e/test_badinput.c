/* test_badinput.c: bad input gets a named status and changes nothing.
 *
 * Calls with invalid parameters fail inline and produce no completion;
 * requests the NIC itself must refuse (an SGE outside its region, a wrong
 * token, a missing right) complete with an error and move no byte: the
 * canaries around every target stay, and the simulator's DMA checker (in
 * e2e_pair_close) saw no access outside registered memory. Also V6 (QP
 * depths) and V10 (destroy order).
 */
#include "e2e.h"

static void expect_error_cqe(ndk_cq *cq, ndk_status want, uint32_t type)
{
    ndk_result_ex r;
    EXPECT(e2e_poll(cq, &r, 1, 10000) == 1, "no completion for a request the NIC must refuse");
    EXPECT_STATUS(r.status, want);
    EXPECT(r.type == type, "error completion type %u, expected %u", r.type, type);
    EXPECT(r.bytes_transferred == 0, "error completion reports %u bytes", r.bytes_transferred);
}

static void bad_parameters_fail_inline_without_completion(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_sge g = e2e_sge(&p.a, 0, 8);
    uint64_t ra = e2e_remote_addr(&p.b, 0);
    uint32_t rt = ndk_mr_remote_token(p.b.mr);
    EXPECT_STATUS(ndk_send(NULL, NULL, &g, 1, 0), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, NULL, 1, 0), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, &g, 1, 0x10000u), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 99, ra, rt, 0), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_read(p.a.qp, NULL, NULL, 2, ra, rt, 0), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &g, 4), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_receive(NULL, NULL, &g, 1), NDK_STATUS_INVALID_PARAMETER);
    ndk_cq *cq = NULL;
    EXPECT_STATUS(ndk_create_cq(p.ad, 0, NULL, NULL, &cq), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_create_cq(p.ad, 8, NULL, NULL, NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_create_qp(p.pd, NULL, p.a.icq, NULL, NULL, NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_register_mr(p.a.mr, NULL, 16, 0), NDK_STATUS_INVALID_PARAMETER);
    ndk_result_ex r[4];
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 4) == 0, "an inline failure produced a completion");
    EXPECT(e2e_settle_and_poll(&p, p.b.rcq, r, 4) == 0, "an inline failure produced a receive completion");
    e2e_pair_close(&p);
}

/* Every call with a NULL object or output: a named status (or a harmless
 * no-op for the calls that return nothing), no crash, and the adapter still
 * works afterwards. */
static void bad_null_objects_everywhere(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_result_ex rx;
    ndk_result r;
    ndk_adapter *ad = NULL;
    EXPECT_STATUS(ndk_open_adapter(NULL, NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_open_adapter("no-such-backend", &ad), NDK_STATUS_INVALID_PARAMETER);
    EXPECT(ad == NULL, "a failed open handed out an adapter");
    EXPECT_STATUS(ndk_close_adapter(NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_query_adapter_info(NULL, NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_query_adapter_info(p.ad, NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_query_counters(NULL, NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_query_counters(p.ad, NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT(ndk_alloc_dma(NULL, 64) == NULL, "ndk_alloc_dma without an adapter gave memory");
    EXPECT(ndk_alloc_dma(p.ad, (size_t)1 << 40) == NULL, "a 1 TiB DMA buffer was granted");
    ndk_free_dma(NULL, p.a.buf);
    ndk_free_dma(p.ad, NULL);
    EXPECT_STATUS(ndk_create_pd(NULL, NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_create_pd(p.ad, NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_destroy_pd(NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_destroy_cq(NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_destroy_qp(NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_destroy_mr(NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_create_mr(NULL, NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_register_mr(NULL, p.a.buf, 8, 0), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_connect(NULL, ndk_qp_address(p.a.qp)), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_disconnect(NULL), NDK_STATUS_INVALID_PARAMETER);
    EXPECT(ndk_get_cq_results(NULL, &r, 1) == 0, "results from no CQ");
    EXPECT(ndk_get_cq_results_ex(NULL, &rx, 1) == 0, "results from no CQ");
    EXPECT(ndk_get_cq_results(p.a.icq, NULL, 1) == 0, "results into no array");
    ndk_arm_cq(NULL, NDK_CQ_NOTIFY_ANY);
    ndk_arm_cq(p.a.icq, 77); /* not a trigger: ignored */
    EXPECT_STATUS(ndk_wait_cq(NULL, 10), NDK_STATUS_INVALID_PARAMETER);
    EXPECT(ndk_status_str(-12345) != NULL && ndk_status_str(123456) != NULL,
           "ndk_status_str has no name for an unknown status");
    /* still a working NIC */
    ndk_sge g = e2e_sge(&p.a, 0, 8);
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, &rx, 1, 10000) == 1, "the NIC stopped working after bad calls");
    EXPECT_STATUS(rx.status, NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

static void bad_register_outside_dma_memory_is_refused(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    static uint8_t not_dma[256];
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    ndk_status st = ndk_register_mr(mr, not_dma, sizeof not_dma, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
    EXPECT(st != NDK_STATUS_SUCCESS, "registering memory the NIC cannot reach succeeded");
    /* the end of a DMA buffer, one byte too long */
    st = ndk_register_mr(mr, p.a.buf + E2E_BUF_BYTES - 16, 17, 0);
    EXPECT(st != NDK_STATUS_SUCCESS, "registering past the end of a DMA buffer succeeded");
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* max_mr is what it says: that many regions and windows at once (the
 * pair's two regions among them), one more is INSUFFICIENT_RESOURCES, and
 * the last one works. (The simulator's DMA checker once held 512 ranges,
 * so the 1024-token build refused registrations at about 500.) */
static void max_mr_regions_and_windows_exist_at_once(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_adapter_info info;
    EXPECT_STATUS(ndk_query_adapter_info(p.ad, &info), NDK_STATUS_SUCCESS);
    uint32_t n = info.max_mr - 2, nmw = 16;
    ndk_mr **mr = calloc(n, sizeof *mr);
    ndk_mw *mw[16], *extra_mw;
    EXPECT(mr != NULL, "calloc");
    for (uint32_t i = 0; i < n - nmw; i++) {
        EXPECT_STATUS(ndk_create_mr(p.pd, &mr[i]), NDK_STATUS_SUCCESS);
        ndk_status st = ndk_register_mr(mr[i], p.a.buf + (i % 64) * 1024, 1024, NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
        EXPECT(st == NDK_STATUS_SUCCESS, "region %u of the %u max_mr allows: %s", i + 3, info.max_mr,
               ndk_status_str(st));
    }
    for (uint32_t i = 0; i < nmw; i++)
        EXPECT_STATUS(ndk_create_mw(p.pd, &mw[i]), NDK_STATUS_SUCCESS);
    ndk_mr *extra;
    EXPECT_STATUS(ndk_create_mr(p.pd, &extra), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(extra, p.a.buf, 64, 0), NDK_STATUS_INSUFFICIENT_RESOURCES);
    EXPECT_STATUS(ndk_create_mw(p.pd, &extra_mw), NDK_STATUS_INSUFFICIENT_RESOURCES);
    /* the last region registered serves a WRITE from b */
    ndk_mr *last = mr[n - nmw - 1];
    e2e_fill(p.b.buf, 32, 77);
    ndk_sge g = e2e_sge(&p.b, 0, 32);
    uint64_t to = (uint64_t)(uintptr_t)(p.a.buf + ((n - nmw - 1) % 64) * 1024);
    EXPECT_STATUS(ndk_write(p.b.qp, NULL, &g, 1, to, ndk_mr_remote_token(last), 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p.b.icq, &r, 1, 10000) == 1 && r.status == NDK_STATUS_SUCCESS,
           "a WRITE into the last region registered did not complete SUCCESS");
    EXPECT(memcmp((void *)(uintptr_t)to, p.b.buf, 32) == 0, "the WRITE into the last region did not land");
    EXPECT_STATUS(ndk_destroy_mr(extra), NDK_STATUS_SUCCESS);
    for (uint32_t i = 0; i < nmw; i++)
        EXPECT_STATUS(ndk_destroy_mw(mw[i]), NDK_STATUS_SUCCESS);
    for (uint32_t i = 0; i < n - nmw; i++)
        EXPECT_STATUS(ndk_destroy_mr(mr[i]), NDK_STATUS_SUCCESS);
    free(mr);
    e2e_pair_close(&p);
}

static void bad_full_sq_is_insufficient_resources(void)
{
    e2e_pair p;
    e2e_opts o = {.sq_depth = 4};
    e2e_pair_open(&p, &o);
    uint32_t posted = 0;
    ndk_status st;
    ndk_sge g = e2e_sge(&p.a, 0, 8);
    /* deferred, so nothing completes (or frees a slot) before the SQ is full */
    while ((st = ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0),
                           ndk_mr_remote_token(p.b.mr), NDK_OP_FLAG_DEFER)) == NDK_STATUS_SUCCESS)
        posted++;
    EXPECT_STATUS(st, NDK_STATUS_INSUFFICIENT_RESOURCES);
    ndk_result_ex r[16];
    EXPECT(e2e_poll(p.a.icq, r, posted, 10000) == posted, "the posted requests did not all complete");
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 16) == 0, "the refused request completed");
    /* space again once the completions were taken */
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, r, 1, 10000) == 1, "a post after draining did not complete");
    e2e_pair_close(&p);
}

static void bad_sge_outside_region_is_access_violation(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    memset(p.b.buf, 0xA5, E2E_BUF_BYTES);
    /* 10 bytes inside the region, 10 beyond its end */
    ndk_sge g = e2e_sge(&p.a, E2E_BUF_BYTES - 10, 20);
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    expect_error_cqe(p.a.icq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_TYPE_WRITE);
    for (uint32_t k = 0; k < 64; k++)
        EXPECT(p.b.buf[k] == 0xA5, "a refused write moved data (byte %u)", k);
    e2e_pair_close(&p);
}

static void bad_wrong_local_token_is_access_violation(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    memset(p.a.buf, 0xC3, 256);
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    g.token ^= 0x100; /* right entry, wrong tag */
    EXPECT_STATUS(ndk_read(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0),
                           ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    expect_error_cqe(p.a.icq, NDK_STATUS_ACCESS_VIOLATION, NDK_OP_TYPE_READ);
    for (uint32_t k = 0; k < 256; k++)
        EXPECT(p.a.buf[k] == 0xC3, "a refused read wrote local memory (byte %u)", k);
    /* the remote token used where a local one belongs */
    g = e2e_sge(&p.a, 0, 64);
    g.token = ndk_mr_remote_token(p.a.mr);
    ndk_status st = ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0),
                              ndk_mr_remote_token(p.b.mr), 0);
    /* the QP is in error after the first failure: either inline or flushed */
    if (st == NDK_STATUS_SUCCESS) {
        ndk_result_ex r;
        EXPECT(e2e_poll(p.a.icq, &r, 1, 10000) == 1, "no completion");
        EXPECT(r.status != NDK_STATUS_SUCCESS, "a remote token passed as a local one");
    } else {
        EXPECT_STATUS(st, NDK_STATUS_INVALID_DEVICE_STATE);
    }
    e2e_pair_close(&p);
}

static void bad_remote_token_write_is_remote_access_error(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    memset(p.b.buf, 0x3C, 512);
    e2e_fill(p.a.buf, 64, 9);
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr) ^ 0x100, 0), NDK_STATUS_SUCCESS);
    expect_error_cqe(p.a.icq, NDK_STATUS_REMOTE_ACCESS_ERROR, NDK_OP_TYPE_WRITE);
    for (uint32_t k = 0; k < 512; k++)
        EXPECT(p.b.buf[k] == 0x3C, "a refused remote write changed byte %u", k);
    e2e_pair_close(&p);
}

static void bad_remote_write_past_region_end(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    memset(p.b.buf + E2E_BUF_BYTES - 64, 0x3C, 64);
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, E2E_BUF_BYTES - 32),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    expect_error_cqe(p.a.icq, NDK_STATUS_REMOTE_ACCESS_ERROR, NDK_OP_TYPE_WRITE);
    for (uint32_t k = E2E_BUF_BYTES - 64; k < E2E_BUF_BYTES; k++)
        EXPECT(p.b.buf[k] == 0x3C, "a refused remote write changed byte %u", k);
    e2e_pair_close(&p);
}

static void bad_remote_read_without_the_right(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    /* a second region of b with local write only */
    uint8_t *buf = ndk_alloc_dma(p.ad, 4096);
    EXPECT(buf != NULL, "alloc");
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(mr, buf, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE), NDK_STATUS_SUCCESS);
    memset(p.a.buf, 0x11, 128);
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_read(p.a.qp, NULL, &g, 1, (uint64_t)(uintptr_t)buf, ndk_mr_remote_token(mr), 0),
                  NDK_STATUS_SUCCESS);
    expect_error_cqe(p.a.icq, NDK_STATUS_REMOTE_ACCESS_ERROR, NDK_OP_TYPE_READ);
    for (uint32_t k = 0; k < 128; k++)
        EXPECT(p.a.buf[k] == 0x11, "a refused read changed local byte %u", k);
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    ndk_free_dma(p.ad, buf);
    e2e_pair_close(&p);
}

static void bad_error_flushes_later_requests(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_sge bad = e2e_sge(&p.a, 0, 8);
    bad.token ^= 0x100;
    ndk_sge good = e2e_sge(&p.a, 0, 8);
    EXPECT_STATUS(ndk_write(p.a.qp, (void *)1, &bad, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr), NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_write(p.a.qp, (void *)2, &good, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r[2];
    EXPECT(e2e_poll(p.a.icq, r, 2, 10000) == 2, "both requests must complete");
    EXPECT_STATUS(r[0].status, NDK_STATUS_ACCESS_VIOLATION);
    EXPECT_STATUS(r[1].status, NDK_STATUS_CANCELLED);
    EXPECT(r[1].request_context == (void *)2, "flushed completion has the wrong context");
    /* the driver now knows the QP is in error */
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &good, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_INVALID_DEVICE_STATE);
    e2e_pair_close(&p);
}

static void bad_post_on_unconnected_qp(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_qp *qp;
    ndk_qp_attr attr = {.sq_depth = 4, .rq_depth = 4, .max_sge = 1, .max_inline = 0};
    EXPECT_STATUS(ndk_create_qp(p.pd, p.a.rcq, p.a.icq, NULL, &attr, &qp), NDK_STATUS_SUCCESS);
    ndk_sge g = e2e_sge(&p.a, 0, 8);
    EXPECT_STATUS(ndk_send(qp, NULL, &g, 1, 0), NDK_STATUS_INVALID_DEVICE_STATE);
    EXPECT_STATUS(ndk_disconnect(p.a.qp), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, &g, 1, 0), NDK_STATUS_INVALID_DEVICE_STATE);
    EXPECT_STATUS(ndk_destroy_qp(qp), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

static void V6_qp_depths_granted_and_limited(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_adapter_info info;
    EXPECT_STATUS(ndk_query_adapter_info(p.ad, &info), NDK_STATUS_SUCCESS);
    EXPECT(info.max_qp_depth >= 64 && info.max_sge >= 1 && info.max_qp >= 2 && info.max_cq >= 2,
           "adapter info: max_qp_depth %u max_sge %u max_qp %u max_cq %u", info.max_qp_depth,
           info.max_sge, info.max_qp, info.max_cq);
    ndk_qp *qp;
    ndk_qp_attr attr = {.sq_depth = 5, .rq_depth = 3, .max_sge = 1, .max_inline = 0};
    EXPECT_STATUS(ndk_create_qp(p.pd, p.a.rcq, p.a.icq, NULL, &attr, &qp), NDK_STATUS_SUCCESS);
    EXPECT(attr.sq_depth >= 5 && attr.rq_depth >= 3, "granted depths %u/%u below the request",
           attr.sq_depth, attr.rq_depth);
    EXPECT_STATUS(ndk_destroy_qp(qp), NDK_STATUS_SUCCESS);
    ndk_qp_attr big = {.sq_depth = info.max_qp_depth + 1, .rq_depth = 4, .max_sge = 1};
    EXPECT_STATUS(ndk_create_qp(p.pd, p.a.rcq, p.a.icq, NULL, &big, &qp), NDK_STATUS_INVALID_PARAMETER);
    ndk_qp_attr sge = {.sq_depth = 4, .rq_depth = 4, .max_sge = info.max_sge + 1};
    EXPECT_STATUS(ndk_create_qp(p.pd, p.a.rcq, p.a.icq, NULL, &sge, &qp), NDK_STATUS_INVALID_PARAMETER);
    ndk_cq *cq;
    EXPECT_STATUS(ndk_create_cq(p.ad, info.max_cq_depth + 1, NULL, NULL, &cq), NDK_STATUS_INVALID_PARAMETER);
    e2e_pair_close(&p);
}

/* V2: the granted CQ depth is reported, at least what was asked, and
 * holds that many completions before the CQ overruns (N8). */
static void V2_cq_depth_is_granted_and_holds_that_many(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    EXPECT(ndk_cq_depth(NULL) == 0, "the depth of no CQ is not 0");
    ndk_cq *cq;
    EXPECT_STATUS(ndk_create_cq(p.ad, 5, NULL, NULL, &cq), NDK_STATUS_SUCCESS);
    uint32_t depth = ndk_cq_depth(cq);
    EXPECT(depth >= 5 && (depth & (depth - 1)) == 0, "CQ of 5 granted depth %u", depth);
    ndk_qp *q[2];
    for (int i = 0; i < 2; i++) {
        ndk_qp_attr attr = {.sq_depth = 16, .rq_depth = 16, .max_sge = 1, .max_inline = 0};
        EXPECT_STATUS(ndk_create_qp(p.pd, p.a.rcq, cq, NULL, &attr, &q[i]), NDK_STATUS_SUCCESS);
    }
    EXPECT_STATUS(ndk_connect(q[0], ndk_qp_address(q[1])), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_connect(q[1], ndk_qp_address(q[0])), NDK_STATUS_SUCCESS);
    ndk_sge g = e2e_sge(&p.a, 0, 8);
    for (uint32_t i = 0; i < depth; i++)
        EXPECT_STATUS(ndk_write(q[0], NULL, &g, 1, e2e_remote_addr(&p.a, 64), ndk_mr_remote_token(p.a.mr), 0),
                      NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_sim_wait_idle(p.ad, 10000), NDK_STATUS_SUCCESS);
    ndk_result_ex r[64];
    uint32_t got = ndk_get_cq_results_ex(cq, r, 64);
    EXPECT(got == depth, "a CQ of granted depth %u held %u of %u completions", depth, got, depth);
    for (int i = 0; i < 2; i++) {
        EXPECT_STATUS(ndk_disconnect(q[i]), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_destroy_qp(q[i]), NDK_STATUS_SUCCESS);
    }
    EXPECT_STATUS(ndk_destroy_cq(cq), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

static void V10_destroy_out_of_order_is_device_busy(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    EXPECT_STATUS(ndk_destroy_cq(p.a.icq), NDK_STATUS_DEVICE_BUSY);
    EXPECT_STATUS(ndk_destroy_pd(p.pd), NDK_STATUS_DEVICE_BUSY);
    EXPECT_STATUS(ndk_close_adapter(p.ad), NDK_STATUS_DEVICE_BUSY);
    /* nothing was destroyed: the CQ still completes requests */
    ndk_sge g = e2e_sge(&p.a, 0, 8);
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p.a.icq, &r, 1, 10000) == 1, "the CQ no longer works after a refused destroy");
    EXPECT_STATUS(r.status, NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
#define C(f) {#f, f}
    static const e2e_case cases[] = {
        C(bad_parameters_fail_inline_without_completion),
        C(bad_null_objects_everywhere),
        C(bad_register_outside_dma_memory_is_refused),
        C(max_mr_regions_and_windows_exist_at_once),
        C(bad_full_sq_is_insufficient_resources),
        C(bad_sge_outside_region_is_access_violation),
        C(bad_wrong_local_token_is_access_violation),
        C(bad_remote_token_write_is_remote_access_error),
        C(bad_remote_write_past_region_end),
        C(bad_remote_read_without_the_right),
        C(bad_error_flushes_later_requests),
        C(bad_post_on_unconnected_qp),
        C(V6_qp_depths_granted_and_limited),
        C(V2_cq_depth_is_granted_and_holds_that_many),
        C(V10_destroy_out_of_order_is_device_busy),
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
