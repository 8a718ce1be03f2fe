/* qpnic-demo: the walking skeleton, end to end, in one run.
 *
 * Between two QPs of one co-simulated NIC, connected through its loopback
 * port, it posts a chain of 16 deferred RDMA WRITEs and one SEND without
 * DEFER, checks every written byte, arms the receiver's CQ and waits for the
 * notification, then prints what the NIC counted: one doorbell for the chain,
 * the WQE fetch reads, the CQEs. With --two-nics the receiving QP is on a
 * second NIC and the chain crosses the RoCEv2 wire between them
 * (docs/wire.md, "Two NICs"; make demo-wire).
 *
 *   qpnic-demo [--two-nics] [URI [URI2]]
 *                        URI as for ndk_open_adapter; default: $QPNIC_URI,
 *                        else a private sim; URI2 the second NIC's
 *                        (default: the same as URI, a second private sim)
 *
 * It waits up to 10 s for the notification and for the last completion;
 * $QPNIC_E2E_TIMEOUT_SCALE (as for the end-to-end tests) multiplies that,
 * for a simulated board on an impaired line, where each lost frame waits
 * out a retransmission of about a second of wall time.
 *
 * Exit status 0 when everything checked out, 1 otherwise.
 */
#include <qpnic/ndk.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHAIN 16
#define CHUNK 256
#define BUF (CHAIN * CHUNK + 4096)

static int failures;

#define CHECK(cond, ...)                                     \
    do {                                                     \
        if (!(cond)) {                                       \
            printf("  FAILED: ");                            \
            printf(__VA_ARGS__);                             \
            printf("\n");                                    \
            failures++;                                      \
        }                                                    \
    } while (0)

#define TRY(call)                                                              \
    do {                                                                       \
        ndk_status st_ = (call);                                               \
        if (st_ != NDK_STATUS_SUCCESS) {                                       \
            fprintf(stderr, "qpnic-demo: %s: %s\n", #call, ndk_status_str(st_)); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static atomic_uint notifications;

static void on_notify(void *ctx, ndk_status st)
{
    printf("  callback: CQ \"%s\" notified, status %s\n", (const char *)ctx, ndk_status_str(st));
    atomic_fetch_add(&notifications, 1);
}

static void counters_delta(const char *who, const ndk_counters *a, const ndk_counters *b)
{
    printf("\nWhat %s counted for this chain:\n", who);
    printf("  doorbells          %6llu   (SQ doorbell writes; the chain of 17 needs one)\n",
           (unsigned long long)(b->doorbells - a->doorbells));
    printf("  WQEs fetched       %6llu\n", (unsigned long long)(b->wqes_fetched - a->wqes_fetched));
    printf("  WQE fetch reads    %6llu   (SQ: bursts of up to 8 WQEs; RQ: one WQE a read)\n",
           (unsigned long long)(b->wqe_fetch_reads - a->wqe_fetch_reads));
    printf("  DMA bytes read     %6llu   (WQEs, payload)\n",
           (unsigned long long)(b->dma_read_bytes - a->dma_read_bytes));
    printf("  DMA bytes written  %6llu   (payload, CQEs)\n",
           (unsigned long long)(b->dma_write_bytes - a->dma_write_bytes));
    printf("  CQEs written       %6llu   (initiator and receive)\n",
           (unsigned long long)(b->cqes_written - a->cqes_written));
    printf("  notifications      %6llu\n", (unsigned long long)(b->notifications - a->notifications));
    printf("  NIC cycles         %6llu\n", (unsigned long long)(b->cycles - a->cycles));
    if (b->frames_sent != a->frames_sent || b->frames_received != a->frames_received)
        printf("  frames sent        %6llu   (RoCEv2, on the wire)\n"
               "  frames received    %6llu\n",
               (unsigned long long)(b->frames_sent - a->frames_sent),
               (unsigned long long)(b->frames_received - a->frames_received));
}

static void print_node(const char *what, uint64_t node)
{
    if (node >> 32 == 0)
        printf("  %s: node %llu.%llu.%llu.%llu\n", what, (unsigned long long)(node >> 24),
               (unsigned long long)(node >> 16 & 0xFF), (unsigned long long)(node >> 8 & 0xFF),
               (unsigned long long)(node & 0xFF));
}

static ndk_adapter *open_nic(const char *uri, const char *name)
{
    ndk_adapter *ad;
    printf("Opening %s (%s)...\n", name, uri ? uri : "a private co-simulated qpnic");
    TRY(ndk_open_adapter(uri, &ad));
    ndk_adapter_info info;
    TRY(ndk_query_adapter_info(ad, &info));
    printf("  %u QPs, %u CQs, %u memory regions, QP depth up to %u, %u SGEs a request\n",
           info.max_qp, info.max_cq, info.max_mr, info.max_qp_depth, info.max_sge);
    return ad;
}

int main(int argc, char **argv)
{
    int two = argc > 1 && strcmp(argv[1], "--two-nics") == 0;
    if (two) {
        argc--;
        argv++;
    }
    const char *uri = argc > 1 ? argv[1] : getenv("QPNIC_URI");
    const char *uri_b = argc > 2 ? argv[2] : uri;
    /* QP a (the sender) on NIC a; QP b (the receiver) on NIC b, which is
     * NIC a itself unless --two-nics. Each NIC has its own PD and CQs; on
     * one NIC the two QPs share them. */
    ndk_adapter *ad = open_nic(uri, two ? "NIC a" : "the NIC");
    ndk_adapter *ad_b = two ? open_nic(uri_b, "NIC b") : ad;

    ndk_pd *pd, *pd_b;
    ndk_cq *icq, *rcq, *rcq_a, *icq_b;
    ndk_qp *qa, *qb;
    TRY(ndk_create_pd(ad, &pd));
    pd_b = pd;
    if (two)
        TRY(ndk_create_pd(ad_b, &pd_b));
    TRY(ndk_create_cq(ad, 64, on_notify, "initiator", &icq));
    TRY(ndk_create_cq(ad_b, 64, on_notify, "receive", &rcq));
    rcq_a = rcq;
    icq_b = icq;
    if (two) {
        TRY(ndk_create_cq(ad, 64, on_notify, "a's receive", &rcq_a));
        TRY(ndk_create_cq(ad_b, 64, on_notify, "b's initiator", &icq_b));
    }
    ndk_qp_attr attr = {.sq_depth = 64, .rq_depth = 16, .max_sge = 1, .max_inline = 0};
    TRY(ndk_create_qp(pd, rcq_a, icq, "QP a", &attr, &qa));
    attr = (ndk_qp_attr){.sq_depth = 64, .rq_depth = 16, .max_sge = 1, .max_inline = 0};
    TRY(ndk_create_qp(pd_b, rcq, icq_b, "QP b", &attr, &qb));
    TRY(ndk_connect(qa, ndk_qp_address(qb)));
    TRY(ndk_connect(qb, ndk_qp_address(qa)));
    if (two) {
        print_node("QP a's NIC", ndk_qp_address(qa).node);
        print_node("QP b's NIC", ndk_qp_address(qb).node);
    }
    printf("  QP %u and QP %u connected %s\n", ndk_qp_num(qa), ndk_qp_num(qb),
           two ? "across the RoCEv2 wire" : "through the loopback port");

    uint8_t *src = ndk_alloc_dma(ad, BUF), *dst = ndk_alloc_dma(ad_b, BUF);
    if (!src || !dst) {
        fprintf(stderr, "qpnic-demo: ndk_alloc_dma failed\n");
        return 1;
    }
    for (uint32_t i = 0; i < BUF; i++)
        src[i] = (uint8_t)(i * 7 + (i >> 8));
    memset(dst, 0, BUF);
    ndk_mr *msrc, *mdst;
    TRY(ndk_create_mr(pd, &msrc));
    TRY(ndk_create_mr(pd_b, &mdst));
    TRY(ndk_register_mr(msrc, src, BUF, NDK_MR_FLAG_ALLOW_LOCAL_WRITE));
    TRY(ndk_register_mr(mdst, dst, BUF,
                        NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_WRITE));

    /* b's receive for the SEND that ends the chain */
    ndk_sge rsge = {(uint64_t)(uintptr_t)(dst + CHAIN * CHUNK), 64, ndk_mr_local_token(mdst)};
    TRY(ndk_receive(qb, "receive", &rsge, 1));
    ndk_arm_cq(rcq, NDK_CQ_NOTIFY_ANY);
    printf("\nArmed the receive CQ (NDK_CQ_NOTIFY_ANY).\n");

    ndk_counters c0, c1, c0_b, c1_b;
    TRY(ndk_query_counters(ad, &c0));
    TRY(ndk_query_counters(ad_b, &c0_b));
    printf("Posting 16 WRITEs with NDK_OP_FLAG_DEFER and one SEND without it...\n");
    for (uint32_t i = 0; i < CHAIN; i++) {
        ndk_sge s = {(uint64_t)(uintptr_t)(src + i * CHUNK), CHUNK, ndk_mr_local_token(msrc)};
        TRY(ndk_write(qa, (void *)(uintptr_t)(i + 1), &s, 1, (uint64_t)(uintptr_t)(dst + i * CHUNK),
                      ndk_mr_remote_token(mdst), NDK_OP_FLAG_DEFER));
    }
    ndk_sge s = {(uint64_t)(uintptr_t)(src + CHAIN * CHUNK), 64, ndk_mr_local_token(msrc)};
    TRY(ndk_send(qa, (void *)(uintptr_t)(CHAIN + 1), &s, 1, 0));

    const char *scale_env = getenv("QPNIC_E2E_TIMEOUT_SCALE");
    long scale = scale_env ? strtol(scale_env, NULL, 10) : 1;
    if (scale < 1 || scale > 1000)
        scale = 1;
    const uint32_t wait_ms = (uint32_t)(10000 * scale);
    ndk_status wst = ndk_wait_cq(rcq, wait_ms);
    CHECK(wst == NDK_STATUS_SUCCESS, "waiting for the notification: %s", ndk_status_str(wst));

    /* The receive completion can come before the SEND's own: the SEND
     * completes once its acknowledgement is back, after the receive's CQE.
     * Polling reads host memory only; on a board's serial line the last
     * CQE may take tens of milliseconds, so wait up to 10 s (scaled) for it. */
    ndk_result_ex r[CHAIN + 1];
    uint32_t got = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        got += ndk_get_cq_results_ex(icq, r + got, CHAIN + 1 - got);
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (got == CHAIN + 1 || (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > wait_ms)
            break;
    }
    printf("\nInitiator CQ: %u completions\n", got);
    CHECK(got == CHAIN + 1, "%u initiator completions, expected %u", got, CHAIN + 1);
    for (uint32_t i = 0; i < got; i++) {
        CHECK(r[i].status == NDK_STATUS_SUCCESS, "request %u: %s", i + 1, ndk_status_str(r[i].status));
        CHECK(r[i].request_context == (void *)(uintptr_t)(i + 1), "completion %u out of order", i + 1);
    }
    printf("  %u WRITE completions and %u SEND completion, in posting order\n",
           got > CHAIN ? CHAIN : got, got > CHAIN ? 1u : 0u);
    ndk_result_ex rr;
    uint32_t rgot = ndk_get_cq_results_ex(rcq, &rr, 1);
    CHECK(rgot == 1 && rr.status == NDK_STATUS_SUCCESS && rr.bytes_transferred == 64,
          "the receive did not complete with 64 bytes");
    if (rgot == 1)
        printf("Receive CQ: 1 completion, %u bytes, on QP %u (%s)\n", rr.bytes_transferred,
               rr.qp_num, (const char *)rr.qp_context);

    uint32_t bad = 0;
    for (uint32_t i = 0; i < CHAIN * CHUNK + 64; i++)
        bad += dst[i] != src[i];
    printf("Data: %u bytes written and sent, %u differ\n", CHAIN * CHUNK + 64, bad);
    CHECK(bad == 0, "%u bytes differ", bad);
    CHECK(atomic_load(&notifications) == 1, "%u notifications, expected 1", atomic_load(&notifications));

    TRY(ndk_query_counters(ad, &c1));
    TRY(ndk_query_counters(ad_b, &c1_b));
    counters_delta(two ? "NIC a (the sender)" : "the NIC", &c0, &c1);
    /* both NICs' counts together (one NIC: its own) */
    uint64_t doorbells = c1.doorbells - c0.doorbells, cqes = c1.cqes_written - c0.cqes_written;
    if (two) {
        counters_delta("NIC b (the receiver)", &c0_b, &c1_b);
        doorbells += c1_b.doorbells - c0_b.doorbells;
        cqes += c1_b.cqes_written - c0_b.cqes_written;
        /* every frame one sent, the other received: 17 requests, 17 acknowledgements */
        CHECK(c1.frames_sent - c0.frames_sent == CHAIN + 1 &&
                  c1_b.frames_received - c0_b.frames_received == CHAIN + 1 &&
                  c1_b.frames_sent - c0_b.frames_sent == CHAIN + 1 &&
                  c1.frames_received - c0.frames_received == CHAIN + 1,
              "frames: a sent %llu, b received %llu; b sent %llu, a received %llu (each should be %u)",
              (unsigned long long)(c1.frames_sent - c0.frames_sent),
              (unsigned long long)(c1_b.frames_received - c0_b.frames_received),
              (unsigned long long)(c1_b.frames_sent - c0_b.frames_sent),
              (unsigned long long)(c1.frames_received - c0.frames_received), CHAIN + 1);
    }
    CHECK(doorbells == 1, "the chain cost %llu doorbells", (unsigned long long)doorbells);
    CHECK(cqes == CHAIN + 2, "CQEs written: %llu", (unsigned long long)cqes);

    TRY(ndk_destroy_qp(qa));
    TRY(ndk_destroy_qp(qb));
    TRY(ndk_destroy_mr(msrc));
    TRY(ndk_destroy_mr(mdst));
    TRY(ndk_destroy_cq(icq));
    TRY(ndk_destroy_cq(rcq));
    if (two) {
        TRY(ndk_destroy_cq(rcq_a));
        TRY(ndk_destroy_cq(icq_b));
        TRY(ndk_destroy_pd(pd_b));
    }
    TRY(ndk_destroy_pd(pd));
    ndk_free_dma(ad, src);
    ndk_free_dma(ad_b, dst);
    TRY(ndk_close_adapter(ad));
    if (two)
        TRY(ndk_close_adapter(ad_b));
    printf("\n%s\n", failures ? "DEMO FAILED" : "Demo OK: every byte arrived, one doorbell, one notification.");
    return failures ? 1 : 0;
}
