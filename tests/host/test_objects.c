/* test_objects.c: PDs, CQs, QPs, MRs against a fake NIC: what the driver
 * programs, what it grants (V6), and teardown order (V10). */
#include <string.h>

#include "fake_nic.h"
#include "regs.h"
#include "shm_proto.h"

static void cq_depth_rounded_and_programmed(void)
{
    fake_nic *f = fake_new(1 << 22);
    ndk_adapter *ad = fake_open(f);
    ndk_cq *cq = NULL;
    CHECK_ST(ndk_create_cq(ad, 0, NULL, NULL, &cq), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_create_cq(ad, (1u << QPNIC_LOG_MAX_CQ_DEPTH) + 1, NULL, NULL, &cq),
             NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_create_cq(ad, 5, NULL, NULL, &cq), NDK_STATUS_SUCCESS);
    CHECK(cq->log_depth == 3, "depth 5 rounds to 8, log %u", cq->log_depth);
    uint32_t cfg = fake_last(f, QPNIC_CQREG(cq->cqn, CFG));
    CHECK(QPNIC_FIELD_GET(&cfg, QPNIC_CQ_CFG_LOG_DEPTH) == 3 && QPNIC_FIELD_GET(&cfg, QPNIC_CQ_CFG_ENABLE) == 1,
          "CQ CFG 0x%x", cfg);
    uint64_t base = ((uint64_t)fake_last(f, QPNIC_CQREG(cq->cqn, BASE_HI)) << 32) |
                    fake_last(f, QPNIC_CQREG(cq->cqn, BASE_LO));
    CHECK(base == cq->ring.dev && base % 16 == 0, "CQ base 0x%llx", (unsigned long long)base);
    CHECK(fake_range_covers(f, base, 8 * QPNIC_CQE_BYTES, QPNIC_RANGE_WRITE), "CQ ring has a WRITE range");
    int zero = 1;
    for (unsigned i = 0; i < 8 * QPNIC_CQE_BYTES; i++)
        zero &= cq->ring.host[i] == 0;
    CHECK(zero, "CQ ring zeroed (phase 0: nothing written yet)");
    ndk_cq *small = NULL;
    CHECK_ST(ndk_create_cq(ad, 1, NULL, NULL, &small), NDK_STATUS_SUCCESS);
    CHECK(small && small->log_depth == 1, "depth 1 rounds to 2");
    CHECK_ST(ndk_destroy_cq(small), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_cq(cq), NDK_STATUS_SUCCESS);
    CHECK(fake_last(f, QPNIC_CQREG(0, CFG)) == 0, "destroy disables the CQ");
    /* left: the adapter's CQ consumer index record table, until close */
    CHECK(fake_ranges_live(f) == 1, "ranges removed: %d left, want the CI record table's only", fake_ranges_live(f));
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void cq_numbers_run_out(void)
{
    fake_nic *f = fake_new(1 << 22);
    ndk_adapter *ad = fake_open(f);
    ndk_cq *cqs[QPNIC_NUM_CQ + 1];
    for (unsigned i = 0; i < QPNIC_NUM_CQ; i++)
        CHECK_ST(ndk_create_cq(ad, 4, NULL, NULL, &cqs[i]), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_create_cq(ad, 4, NULL, NULL, &cqs[QPNIC_NUM_CQ]), NDK_STATUS_INSUFFICIENT_RESOURCES);
    CHECK_ST(ndk_destroy_cq(cqs[3]), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_create_cq(ad, 4, NULL, NULL, &cqs[3]), NDK_STATUS_SUCCESS);
    CHECK(cqs[3]->cqn == 3, "freed number reused, got %u", cqs[3]->cqn);
    for (unsigned i = 0; i < QPNIC_NUM_CQ; i++)
        ndk_destroy_cq(cqs[i]);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void qp_attr_granted_v6(void)
{
    fake_nic *f = fake_new(1 << 22);
    ndk_adapter *ad = fake_open(f);
    ndk_pd *pd;
    ndk_cq *rcq, *scq;
    ndk_qp *qp = NULL;
    ndk_create_pd(ad, &pd);
    ndk_create_cq(ad, 64, NULL, NULL, &rcq);
    ndk_create_cq(ad, 64, NULL, NULL, &scq);
    ndk_qp_attr big = { (1u << QPNIC_LOG_MAX_QP_DEPTH) + 1, 4, 1, 0 };
    CHECK_ST(ndk_create_qp(pd, rcq, scq, NULL, &big, &qp), NDK_STATUS_INVALID_PARAMETER);
    ndk_qp_attr sge = { 4, 4, QPNIC_MAX_SGE + 1, 0 };
    CHECK_ST(ndk_create_qp(pd, rcq, scq, NULL, &sge, &qp), NDK_STATUS_INVALID_PARAMETER);
    ndk_qp_attr a = { 5, 0, 2, 100 };
    CHECK_ST(ndk_create_qp(NULL, rcq, scq, NULL, &a, &qp), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_create_qp(pd, NULL, scq, NULL, &a, &qp), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_create_qp(pd, rcq, NULL, NULL, &a, &qp), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_create_qp(pd, rcq, scq, (void *)0x1234, &a, &qp), NDK_STATUS_SUCCESS);
    CHECK(a.sq_depth == 8 && a.rq_depth == 2 && a.max_sge == 2 && a.max_inline == QPNIC_MAX_INLINE_BYTES,
          "granted sq %u rq %u sge %u inline %u", a.sq_depth, a.rq_depth, a.max_sge, a.max_inline);
    uint32_t n = fake_qp_index(ndk_qp_num(qp));
    uint32_t cfg = fake_last(f, QPNIC_QPREG(n, CFG));
    CHECK(QPNIC_FIELD_GET(&cfg, QPNIC_QP_CFG_SQ_LOG) == 3 && QPNIC_FIELD_GET(&cfg, QPNIC_QP_CFG_RQ_LOG) == 1 &&
          QPNIC_FIELD_GET(&cfg, QPNIC_QP_CFG_SEND_CQ) == scq->cqn && QPNIC_FIELD_GET(&cfg, QPNIC_QP_CFG_RECV_CQ) == rcq->cqn,
          "QP CFG 0x%x", cfg);
    CHECK(fake_last(f, QPNIC_QPREG(n, STATE)) == QPNIC_QP_STATE_RESET, "new QP is RESET");
    uint64_t sq = ((uint64_t)fake_last(f, QPNIC_QPREG(n, SQ_BASE_HI)) << 32) | fake_last(f, QPNIC_QPREG(n, SQ_BASE_LO));
    uint64_t rq = ((uint64_t)fake_last(f, QPNIC_QPREG(n, RQ_BASE_HI)) << 32) | fake_last(f, QPNIC_QPREG(n, RQ_BASE_LO));
    CHECK(sq % 64 == 0 && fake_range_covers(f, sq, 8 * QPNIC_WQE_BYTES, QPNIC_RANGE_READ), "SQ ring READ range");
    CHECK(rq % 64 == 0 && fake_range_covers(f, rq, 2 * QPNIC_WQE_BYTES, QPNIC_RANGE_READ), "RQ ring READ range");
    ndk_qp_addr addr = ndk_qp_address(qp);
    CHECK(addr.qp_num == ndk_qp_num(qp) && addr.node == f->base.node, "address");
    /* no QP number is InfiniBand's QP 0 or 1 (docs/wire.md) */
    CHECK(ndk_qp_num(qp) > 0xFF, "QP number 0x%x: generation 0", ndk_qp_num(qp));
    ndk_destroy_qp(qp);
    ndk_destroy_cq(rcq);
    ndk_destroy_cq(scq);
    ndk_destroy_pd(pd);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void teardown_order_v10(void)
{
    fake_nic *f = fake_new(1 << 22);
    ndk_adapter *ad = fake_open(f);
    ndk_pd *pd;
    ndk_cq *cq;
    ndk_qp *qp;
    ndk_mr *mr;
    ndk_create_pd(ad, &pd);
    ndk_create_cq(ad, 16, NULL, NULL, &cq);
    ndk_qp_attr a = { 4, 4, 1, 0 };
    CHECK_ST(ndk_create_qp(pd, cq, cq, NULL, &a, &qp), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_create_mr(pd, &mr), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_DEVICE_BUSY);
    CHECK_ST(ndk_destroy_cq(cq), NDK_STATUS_DEVICE_BUSY);
    CHECK_ST(ndk_destroy_pd(pd), NDK_STATUS_DEVICE_BUSY);
    CHECK_ST(ndk_destroy_qp(qp), NDK_STATUS_SUCCESS);
    CHECK(fake_last(f, QPNIC_QPREG(0, STATE)) == QPNIC_QP_STATE_RESET, "destroy resets the QP");
    CHECK_ST(ndk_destroy_pd(pd), NDK_STATUS_DEVICE_BUSY); /* the MR */
    CHECK_ST(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_cq(cq), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_pd(pd), NDK_STATUS_SUCCESS);
    CHECK(fake_ranges_live(f) == 1, "checker ranges left: %d, want the CI record table's only", fake_ranges_live(f));
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void connect_rules(void)
{
    fake_nic *f = fake_new(1 << 22);
    ndk_adapter *ad = fake_open(f);
    ndk_pd *pd;
    ndk_cq *cq;
    ndk_qp *a, *b;
    ndk_create_pd(ad, &pd);
    ndk_create_cq(ad, 16, NULL, NULL, &cq);
    ndk_qp_attr at = { 4, 4, 1, 0 };
    ndk_create_qp(pd, cq, cq, NULL, &at, &a);
    ndk_create_qp(pd, cq, cq, NULL, &at, &b);
    ndk_qp_addr other = ndk_qp_address(b);
    other.node++;
    CHECK_ST(ndk_connect(a, other), NDK_STATUS_INVALID_PARAMETER);
    ndk_qp_addr none = { ndk_qp_address(b).node, 7 };
    CHECK_ST(ndk_connect(a, none), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_disconnect(a), NDK_STATUS_INVALID_DEVICE_STATE);
    CHECK_ST(ndk_connect(a, ndk_qp_address(b)), NDK_STATUS_SUCCESS);
    CHECK(fake_last(f, QPNIC_QPREG(fake_qp_index(ndk_qp_num(a)), REMOTE)) == ndk_qp_num(b), "REMOTE = peer");
    CHECK(fake_last(f, QPNIC_QPREG(fake_qp_index(ndk_qp_num(a)), STATE)) == QPNIC_QP_STATE_RTS, "STATE = RTS");
    CHECK(fake_writes(f, QPNIC_QPREG(fake_qp_index(ndk_qp_num(b)), REMOTE)) == 0, "each QP connects itself");
    CHECK_ST(ndk_connect(a, ndk_qp_address(b)), NDK_STATUS_INVALID_DEVICE_STATE);
    CHECK_ST(ndk_disconnect(a), NDK_STATUS_SUCCESS);
    CHECK(fake_last(f, QPNIC_QPREG(fake_qp_index(ndk_qp_num(a)), STATE)) == QPNIC_QP_STATE_ERROR, "STATE = ERROR");
    ndk_sge s = { 0, 0, 0 };
    CHECK_ST(ndk_send(a, NULL, &s, 0, 0), NDK_STATUS_INVALID_DEVICE_STATE);
    CHECK_ST(ndk_receive(a, NULL, &s, 0), NDK_STATUS_INVALID_DEVICE_STATE);
    ndk_destroy_qp(a);
    ndk_destroy_qp(b);
    ndk_destroy_cq(cq);
    ndk_destroy_pd(pd);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void mr_register_tokens_and_program(void)
{
    fake_nic *f = fake_new(1 << 22);
    ndk_adapter *ad = fake_open(f);
    ndk_pd *pd;
    ndk_mr *mr, *mr2;
    ndk_create_pd(ad, &pd);
    uint8_t *buf = ndk_alloc_dma(ad, 4096);
    uint8_t *buf2 = ndk_alloc_dma(ad, 4096);
    ndk_create_mr(pd, &mr);
    CHECK(ndk_mr_local_token(mr) == 0 && ndk_mr_remote_token(mr) == 0, "no tokens before register");
    int x;
    CHECK_ST(ndk_register_mr(mr, &x, 4, 0), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_register_mr(mr, buf, 4097, 0), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_register_mr(mr, buf + 4000, 200, 0), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_register_mr(mr, buf, 0, 0), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_register_mr(mr, buf, 16, 0x100), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_register_mr(mr, buf + 64, 1000, NDK_MR_FLAG_ALLOW_REMOTE_WRITE), NDK_STATUS_SUCCESS);
    uint32_t l = ndk_mr_local_token(mr), r = ndk_mr_remote_token(mr);
    uint32_t idx = l & ((1u << QPNIC_TOKEN_INDEX_BITS) - 1);
    CHECK(l != 0 && r != 0 && l != r, "tokens l 0x%x r 0x%x", l, r);
    CHECK((r & ((1u << QPNIC_TOKEN_INDEX_BITS) - 1)) == idx, "both tokens select entry %u", idx);
    CHECK(fake_last(f, QPNIC_REG_MR_IDX) == idx, "MR_IDX");
    CHECK(fake_last(f, QPNIC_REG_MR_LKEY) == l && fake_last(f, QPNIC_REG_MR_RKEY) == r, "MR keys");
    CHECK(fake_last(f, QPNIC_REG_MR_LEN) == 1000, "MR_LEN");
    uint64_t va = ((uint64_t)fake_last(f, QPNIC_REG_MR_VA_HI) << 32) | fake_last(f, QPNIC_REG_MR_VA_LO);
    uint64_t dev = ((uint64_t)fake_last(f, QPNIC_REG_MR_DMA_HI) << 32) | fake_last(f, QPNIC_REG_MR_DMA_LO);
    CHECK(va == (uint64_t)(uintptr_t)(buf + 64), "MR VA is the pointer");
    CHECK(dev == ndk_dma_address(ad, buf + 64), "MR DMA is its device address");
    CHECK(fake_last(f, QPNIC_REG_MR_ACCESS) == (QPNIC_MR_ACCESS_LOCAL_WRITE | QPNIC_MR_ACCESS_REMOTE_WRITE),
          "REMOTE_WRITE (0x5) gives LOCAL_WRITE|REMOTE_WRITE, got 0x%x", fake_last(f, QPNIC_REG_MR_ACCESS));
    CHECK(fake_last(f, QPNIC_REG_MR_CMD) == QPNIC_MR_CMD_WRITE, "MR_CMD WRITE");
    CHECK(fake_range_covers(f, dev, 1000, QPNIC_RANGE_READ | QPNIC_RANGE_WRITE), "MR range READ|WRITE");
    CHECK_ST(ndk_register_mr(mr, buf, 16, 0), NDK_STATUS_INVALID_DEVICE_STATE);

    ndk_create_mr(pd, &mr2);
    CHECK_ST(ndk_register_mr(mr2, buf2, 4096, NDK_MR_FLAG_ALLOW_REMOTE_READ), NDK_STATUS_SUCCESS);
    CHECK(fake_last(f, QPNIC_REG_MR_ACCESS) == QPNIC_MR_ACCESS_REMOTE_READ, "REMOTE_READ only");
    CHECK(fake_range_covers(f, ndk_dma_address(ad, buf2), 4096, QPNIC_RANGE_READ) &&
              !fake_range_covers(f, ndk_dma_address(ad, buf2), 4096, QPNIC_RANGE_WRITE),
          "read-only MR: READ range only");
    CHECK(ndk_mr_local_token(mr2) != l && ndk_mr_local_token(mr2) != r, "fresh tokens");
    fake_clear_log(f);
    CHECK_ST(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    CHECK(fake_last(f, QPNIC_REG_MR_IDX) == idx && fake_last(f, QPNIC_REG_MR_CMD) == QPNIC_MR_CMD_INVALIDATE,
          "destroy invalidates entry %u", idx);
    CHECK(!fake_range_covers(f, dev, 1000, QPNIC_RANGE_READ), "MR range removed");
    CHECK_ST(ndk_destroy_mr(mr2), NDK_STATUS_SUCCESS);
    ndk_destroy_pd(pd);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void mr_table_runs_out(void)
{
    fake_nic *f = fake_new(1 << 22);
    ndk_adapter *ad = fake_open(f);
    ndk_pd *pd;
    ndk_create_pd(ad, &pd);
    uint8_t *buf = ndk_alloc_dma(ad, 64);
    ndk_mr *mrs[QPNIC_NUM_MR + 1];
    for (unsigned i = 0; i <= QPNIC_NUM_MR; i++) {
        ndk_create_mr(pd, &mrs[i]);
        CHECK_ST(ndk_register_mr(mrs[i], buf, 64, 0),
                 i < QPNIC_NUM_MR ? NDK_STATUS_SUCCESS : NDK_STATUS_INSUFFICIENT_RESOURCES);
    }
    for (unsigned i = 0; i <= QPNIC_NUM_MR; i++)
        ndk_destroy_mr(mrs[i]);
    ndk_destroy_pd(pd);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void adapter_info_from_caps(void)
{
    fake_nic *f = fake_new(1 << 20);
    ndk_adapter *ad = fake_open(f);
    ndk_adapter_info info;
    CHECK_ST(ndk_query_adapter_info(ad, &info), NDK_STATUS_SUCCESS);
    CHECK(info.max_qp == QPNIC_NUM_QP && info.max_cq == QPNIC_NUM_CQ && info.max_mr == QPNIC_NUM_MR &&
              info.max_sge == QPNIC_MAX_SGE && info.max_qp_depth == 1u << QPNIC_LOG_MAX_QP_DEPTH &&
              info.max_cq_depth == 1u << QPNIC_LOG_MAX_CQ_DEPTH && info.max_inline == QPNIC_MAX_INLINE_BYTES &&
              info.fetch_burst_wqes == QPNIC_FETCH_BURST_WQES,
          "info from CAPS");
    f->regs[QPNIC_REG_CNT_CYCLES_LO / 4] = 5;
    f->regs[QPNIC_REG_CNT_CYCLES_HI / 4] = 7;
    f->regs[QPNIC_REG_CNT_NTF_LATENCY_SUM_LO / 4] = 300;
    f->regs[QPNIC_REG_CNT_NTF_LATENCY_SUM_HI / 4] = 2;
    f->regs[QPNIC_REG_CNT_NTF_LATENCY_MAX_LO / 4] = 250;
    ndk_counters c;
    CHECK_ST(ndk_query_counters(ad, &c), NDK_STATUS_SUCCESS);
    CHECK(c.cycles == ((7ull << 32) | 5), "cycles 0x%llx", (unsigned long long)c.cycles);
    CHECK(c.ntf_latency_sum == ((2ull << 32) | 300), "ntf_latency_sum 0x%llx, want 0x20000012c",
          (unsigned long long)c.ntf_latency_sum);
    CHECK(c.ntf_latency_max == 250, "ntf_latency_max %llu, want 250", (unsigned long long)c.ntf_latency_max);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void open_rejects_unknown_uri(void)
{
    ndk_adapter *ad = (ndk_adapter *)1;
    CHECK_ST(ndk_open_adapter("pcie:0", &ad), NDK_STATUS_INVALID_PARAMETER);
    CHECK(ad == NULL, "out cleared on failure");
    CHECK_ST(ndk_open_adapter("sim:", &ad), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_open_adapter("sim:/nonexistent/qpnic-none", &ad), NDK_STATUS_IO_ERROR);
}

/* Handles are looked up, never trusted (ndk.h "Handles are checked"): a
 * destroyed object, a closed adapter, a handle of the wrong kind and an
 * object of another adapter are refused with INVALID_PARAMETER, and the
 * driver's own ring memory is never the caller's to free or register. */
static void handles_checked(void)
{
    fake_nic *f = fake_new(1 << 22), *g = fake_new(1 << 22);
    ndk_adapter *ad = fake_open(f), *other = fake_open(g);
    ndk_pd *pd = NULL, *opd = NULL;
    ndk_cq *cq = NULL, *ocq = NULL, *gone = NULL;
    CHECK_ST(ndk_create_pd(ad, &pd), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_create_pd(other, &opd), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_create_cq(ad, 4, NULL, NULL, &cq), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_create_cq(other, 4, NULL, NULL, &ocq), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_create_cq(ad, 4, NULL, NULL, &gone), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_cq(gone), NDK_STATUS_SUCCESS);

    /* a destroyed CQ: every call refuses it */
    ndk_result r;
    CHECK_ST(ndk_destroy_cq(gone), NDK_STATUS_INVALID_PARAMETER);
    CHECK(ndk_get_cq_results(gone, &r, 1) == 0, "results from a destroyed CQ");
    CHECK(ndk_cq_depth(gone) == 0, "depth of a destroyed CQ");
    CHECK_ST(ndk_wait_cq(gone, 0), NDK_STATUS_INVALID_PARAMETER);
    size_t writes = f->nlog;
    ndk_arm_cq(gone, NDK_CQ_NOTIFY_ANY);
    CHECK(f->nlog == writes, "arming a destroyed CQ wrote %zu registers", f->nlog - writes);

    /* the wrong kind, and another adapter's objects */
    ndk_qp_attr attr = { .sq_depth = 4, .rq_depth = 4, .max_sge = 1 };
    ndk_qp *qp = NULL;
    CHECK_ST(ndk_destroy_qp((ndk_qp *)(void *)cq), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_create_qp((ndk_pd *)(void *)cq, cq, cq, NULL, &attr, &qp), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_create_qp(pd, cq, gone, NULL, &attr, &qp), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_create_qp(pd, cq, ocq, NULL, &attr, &qp), NDK_STATUS_INVALID_PARAMETER);
    CHECK(cq->refs == 0 && ocq->refs == 0 && pd->refs == 0, "a refused create took references");
    ndk_mr *mr = NULL;
    CHECK_ST(ndk_create_mr(pd, &mr), NDK_STATUS_SUCCESS);
    void *theirs = ndk_alloc_dma(other, 4096);
    CHECK(theirs != NULL, "alloc on the other adapter");
    CHECK_ST(ndk_register_mr(mr, theirs, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE), NDK_STATUS_INVALID_PARAMETER);

    /* the driver's ring memory is not the caller's */
    uint8_t *ring = cq->ring.host;
    ndk_free_dma(ad, ring);
    CHECK(qpnic_heap_contains(&ad->heap, cq->ring.dev - ad->t->dma_base, cq->ring.bytes,
                              QPNIC_HEAP_DRIVER) == 0, "ndk_free_dma freed a CQ ring");
    CHECK_ST(ndk_register_mr(mr, ring, 64, NDK_MR_FLAG_ALLOW_LOCAL_WRITE), NDK_STATUS_INVALID_PARAMETER);

    /* a closed adapter */
    CHECK_ST(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_mr(mr), NDK_STATUS_INVALID_PARAMETER);
    ndk_free_dma(other, theirs);
    CHECK_ST(ndk_destroy_cq(ocq), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_pd(opd), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_close_adapter(other), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_close_adapter(other), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_create_pd(other, &opd), NDK_STATUS_INVALID_PARAMETER);
    CHECK(ndk_alloc_dma(other, 64) == NULL, "alloc on a closed adapter");
    CHECK_ST(ndk_destroy_cq(cq), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_pd(pd), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

int main(void)
{
    RUN(cq_depth_rounded_and_programmed);
    RUN(cq_numbers_run_out);
    RUN(qp_attr_granted_v6);
    RUN(teardown_order_v10);
    RUN(connect_rules);
    RUN(mr_register_tokens_and_program);
    RUN(mr_table_runs_out);
    RUN(adapter_info_from_caps);
    RUN(open_rejects_unknown_uri);
    RUN(handles_checked);
    TEST_MAIN_END();
}
