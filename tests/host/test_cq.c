/* test_cq.c: completions read from hand-made CQ rings (phase bit, wrap,
 * status mapping, contexts, V3, V7, C2, C4, the consumer index record and
 * no CI register write, SQ slots freed). */
#include <string.h>

#include "fake_nic.h"

typedef struct {
    fake_nic *f;
    ndk_adapter *ad;
    ndk_pd *pd;
    ndk_cq *cq;
    ndk_qp *a, *b;
    ndk_sge sge;
    uint32_t ci_reg;
} rig;

static void rig_up(rig *r, uint32_t cq_depth)
{
    memset(r, 0, sizeof *r);
    r->f = fake_new(1 << 22);
    r->ad = fake_open(r->f);
    ndk_create_pd(r->ad, &r->pd);
    ndk_create_cq(r->ad, cq_depth, NULL, NULL, &r->cq);
    ndk_qp_attr at = { 4, 4, 1, 0 };
    ndk_create_qp(r->pd, r->cq, r->cq, (void *)0xA, &at, &r->a);
    ndk_create_qp(r->pd, r->cq, r->cq, (void *)0xB, &at, &r->b);
    ndk_connect(r->a, ndk_qp_address(r->b));
    ndk_connect(r->b, ndk_qp_address(r->a));
    r->sge = (ndk_sge){ 0, 0, 0 };
    r->ci_reg = QPNIC_CQREG(r->cq->cqn, CI);
    fake_clear_log(r->f);
}

/* The CQ's consumer index record (struct ci_rec) in the driver's table. */
static uint32_t ci_rec(const rig *r)
{
    const uint32_t *rec = (const uint32_t *)(r->ad->ci_recs.host + (size_t)r->cq->cqn * QPNIC_CI_REC_BYTES);
    return QPNIC_FIELD_GET(rec, QPNIC_CI_REC_CI);
}

static void rig_down(rig *r)
{
    ndk_destroy_qp(r->a);
    ndk_destroy_qp(r->b);
    ndk_destroy_cq(r->cq);
    ndk_destroy_pd(r->pd);
    CHECK_ST(ndk_close_adapter(r->ad), NDK_STATUS_SUCCESS);
}

static void empty_cq_returns_nothing_without_mmio(void)
{
    rig r;
    rig_up(&r, 4);
    ndk_result res[4];
    CHECK(ndk_get_cq_results(r.cq, res, 4) == 0, "fresh CQ is empty");
    CHECK(r.f->nlog == 0, "polling an empty CQ writes no register (%zu writes)", r.f->nlog);
    rig_down(&r);
}

static void results_with_contexts_v3_v7(void)
{
    rig r;
    rig_up(&r, 8);
    ndk_send(r.a, (void *)0x100, &r.sge, 0, 0);
    ndk_send(r.a, (void *)0x101, &r.sge, 0, 0);
    ndk_receive(r.b, (void *)0x200, &r.sge, 0);
    uint32_t qa = ndk_qp_num(r.a), qb = ndk_qp_num(r.b);
    fake_put_cqe(r.cq, 0, qa, 0, QPNIC_OP_TYPE_SEND, QPNIC_CQE_STATUS_SUCCESS, 64, 0);
    fake_put_cqe(r.cq, 1, qb, 0, QPNIC_OP_TYPE_RECEIVE, QPNIC_CQE_STATUS_SUCCESS, 64, 0);
    ndk_result res[4];
    memset(res, 0, sizeof res);
    uint32_t n = ndk_get_cq_results(r.cq, res, 4);
    CHECK(n == 2, "two results, got %u", n);
    CHECK(res[0].status == NDK_STATUS_SUCCESS && res[0].bytes_transferred == 64 &&
              res[0].qp_context == (void *)0xA && res[0].request_context == (void *)0x100,
          "send result");
    CHECK(res[1].qp_context == (void *)0xB && res[1].request_context == (void *)0x200, "receive result");
    CHECK(fake_writes(r.f, r.ci_reg) == 0, "taking CQEs wrote the CI register %zu times", fake_writes(r.f, r.ci_reg));
    CHECK(ci_rec(&r) == 2, "the CQ's CI record says %u after 2 CQEs taken", ci_rec(&r));
    /* the second send fails: bytes 0 (V7), QP in error */
    fake_put_cqe(r.cq, 2, qa, 1, QPNIC_OP_TYPE_SEND, QPNIC_CQE_STATUS_RNR, 999, 0);
    n = ndk_get_cq_results(r.cq, res, 4);
    CHECK(n == 1 && res[0].status == NDK_STATUS_RECEIVER_NOT_READY && res[0].bytes_transferred == 0 &&
              res[0].request_context == (void *)0x101,
          "RNR result: status %s bytes %u", ndk_status_str(res[0].status), res[0].bytes_transferred);
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 0, 0), NDK_STATUS_INVALID_DEVICE_STATE);
    CHECK_ST(ndk_send(r.b, NULL, &r.sge, 0, 0), NDK_STATUS_SUCCESS);
    rig_down(&r);
}

static void phase_bit_across_wraps(void)
{
    rig r;
    rig_up(&r, 2); /* 2 CQEs: wraps every two */
    uint32_t qa = ndk_qp_num(r.a);
    uint32_t idx = 0;
    for (int round = 0; round < 5; round++) {
        for (int k = 0; k < 2; k++) {
            CHECK_ST(ndk_send(r.a, (void *)(uintptr_t)(idx + 1), &r.sge, 0, 0), NDK_STATUS_SUCCESS);
            fake_put_cqe(r.cq, idx, qa, idx, QPNIC_OP_TYPE_SEND, QPNIC_CQE_STATUS_SUCCESS, idx, 0);
            idx++;
        }
        ndk_result res[3];
        uint32_t n = ndk_get_cq_results(r.cq, res, 3);
        CHECK(n == 2, "round %d: two results, got %u", round, n);
        CHECK(res[0].request_context == (void *)(uintptr_t)(idx - 1) &&
                  res[1].request_context == (void *)(uintptr_t)idx,
              "round %d: contexts in order", round);
        CHECK(ndk_get_cq_results(r.cq, res, 3) == 0, "round %d: old-phase CQEs are not taken again", round);
    }
    CHECK(ci_rec(&r) == 10, "CI record 10 after five wraps, got %u", ci_rec(&r));
    CHECK(fake_writes(r.f, r.ci_reg) == 0, "taking CQEs wrote the CI register");
    rig_down(&r);
}

static void sq_slots_freed_by_completions(void)
{
    rig r;
    rig_up(&r, 16);
    uint32_t qa = ndk_qp_num(r.a);
    for (int i = 0; i < 4; i++)
        CHECK_ST(ndk_send(r.a, NULL, &r.sge, 0, 0), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 0, 0), NDK_STATUS_INSUFFICIENT_RESOURCES);
    fake_put_cqe(r.cq, 0, qa, 0, QPNIC_OP_TYPE_SEND, QPNIC_CQE_STATUS_SUCCESS, 0, 0);
    fake_put_cqe(r.cq, 1, qa, 1, QPNIC_OP_TYPE_SEND, QPNIC_CQE_STATUS_SUCCESS, 0, 0);
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 0, 0), NDK_STATUS_INSUFFICIENT_RESOURCES); /* not retrieved yet */
    ndk_result res[1];
    CHECK(ndk_get_cq_results(r.cq, res, 1) == 1, "take one");
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 0, 0), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 0, 0), NDK_STATUS_INSUFFICIENT_RESOURCES);
    CHECK(ndk_get_cq_results(r.cq, res, 1) == 1, "take the other");
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 0, 0), NDK_STATUS_SUCCESS);
    rig_down(&r);
}

static void receive_and_invalidate_c2_c4(void)
{
    rig r;
    rig_up(&r, 8);
    uint32_t qb = ndk_qp_num(r.b);
    ndk_receive(r.b, (void *)0x300, &r.sge, 0);
    ndk_receive(r.b, (void *)0x301, &r.sge, 0);
    fake_put_cqe(r.cq, 0, qb, 0, QPNIC_OP_TYPE_RECEIVE_AND_INVALIDATE, QPNIC_CQE_STATUS_SUCCESS, 8, 0xABCD0102u);
    fake_put_cqe(r.cq, 1, qb, 1, QPNIC_OP_TYPE_RECEIVE_AND_INVALIDATE, QPNIC_CQE_STATUS_SUCCESS, 8, 0xABCD0103u);
    ndk_result plain;
    CHECK(ndk_get_cq_results(r.cq, &plain, 1) == 1 && plain.status == NDK_STATUS_SUCCESS &&
              plain.request_context == (void *)0x300,
          "C2: retrievable with plain GetCqResults as a receive");
    ndk_result_ex ex;
    CHECK(ndk_get_cq_results_ex(r.cq, &ex, 1) == 1, "one ex result");
    CHECK(ex.type == NDK_OP_TYPE_RECEIVE_AND_INVALIDATE && ex.type_specific == 0xABCD0103u &&
              ex.qp_num == qb && ex.request_context == (void *)0x301 && ex.bytes_transferred == 8,
          "C4: type 0x%x token 0x%llx qp %u", ex.type, (unsigned long long)ex.type_specific, ex.qp_num);
    rig_down(&r);
}

static void flushed_and_unknown_qp(void)
{
    rig r;
    rig_up(&r, 8);
    uint32_t qa = ndk_qp_num(r.a);
    ndk_send(r.a, (void *)0x9, &r.sge, 0, 0);
    fake_put_cqe(r.cq, 0, qa, 0, QPNIC_OP_TYPE_SEND, QPNIC_CQE_STATUS_FLUSHED, 0, 0);
    fake_put_cqe(r.cq, 1, 7, 0, QPNIC_OP_TYPE_WRITE, QPNIC_CQE_STATUS_SUCCESS, 5, 0); /* no QP 7 */
    ndk_result_ex ex[2];
    CHECK(ndk_get_cq_results_ex(r.cq, ex, 2) == 2, "two");
    CHECK(ex[0].status == NDK_STATUS_CANCELLED && ex[0].type == NDK_OP_TYPE_SEND, "flushed -> CANCELLED");
    CHECK(ex[1].qp_context == NULL && ex[1].request_context == NULL && ex[1].qp_num == 7 &&
              ex[1].type == NDK_OP_TYPE_WRITE,
          "a CQE of no live QP: NULL contexts");
    rig_down(&r);
}

int main(void)
{
    RUN(empty_cq_returns_nothing_without_mmio);
    RUN(results_with_contexts_v3_v7);
    RUN(phase_bit_across_wraps);
    RUN(sq_slots_freed_by_completions);
    RUN(receive_and_invalidate_c2_c4);
    RUN(flushed_and_unknown_qp);
    TEST_MAIN_END();
}
