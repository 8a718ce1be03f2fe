/* test_post.c: posting and deferral against a fake NIC: what reaches the
 * ring, when the doorbell rings (D1, D2, D5, D8), and the inline checks. */
#include <string.h>

#include "fake_nic.h"

typedef struct {
    fake_nic *f;
    ndk_adapter *ad;
    ndk_pd *pd;
    ndk_cq *cq;
    ndk_qp *a, *b;
    uint8_t *buf;
    ndk_mr *mr;
    ndk_sge sge;
    uint32_t sq_pi_reg, rq_pi_reg;
} rig;

static void rig_up(rig *r, uint32_t sq_depth, int connect)
{
    memset(r, 0, sizeof *r);
    r->f = fake_new(1 << 22);
    r->ad = fake_open(r->f);
    ndk_create_pd(r->ad, &r->pd);
    ndk_create_cq(r->ad, 64, NULL, NULL, &r->cq);
    ndk_qp_attr at = { sq_depth, 4, 2, 0 };
    CHECK_ST(ndk_create_qp(r->pd, r->cq, r->cq, (void *)0xA, &at, &r->a), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_create_qp(r->pd, r->cq, r->cq, (void *)0xB, &at, &r->b), NDK_STATUS_SUCCESS);
    if (connect) {
        ndk_connect(r->a, ndk_qp_address(r->b));
        ndk_connect(r->b, ndk_qp_address(r->a));
    }
    r->buf = ndk_alloc_dma(r->ad, 4096);
    ndk_create_mr(r->pd, &r->mr);
    ndk_register_mr(r->mr, r->buf, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE);
    r->sge = (ndk_sge){ (uint64_t)(uintptr_t)r->buf, 128, ndk_mr_local_token(r->mr) };
    r->sq_pi_reg = QPNIC_QPREG(fake_qp_index(ndk_qp_num(r->a)), SQ_PI);
    r->rq_pi_reg = QPNIC_QPREG(fake_qp_index(ndk_qp_num(r->a)), RQ_PI);
    fake_clear_log(r->f);
}

static void rig_down(rig *r)
{
    ndk_destroy_qp(r->a);
    ndk_destroy_qp(r->b);
    ndk_destroy_mr(r->mr);
    ndk_destroy_cq(r->cq);
    ndk_destroy_pd(r->pd);
    CHECK_ST(ndk_close_adapter(r->ad), NDK_STATUS_SUCCESS);
}

static const uint32_t *sq_slot(ndk_qp *qp, uint32_t i)
{
    return (const uint32_t *)(qp->sq.host + (size_t)(i & ((1u << qp->sq_log) - 1)) * QPNIC_WQE_BYTES);
}

static void send_rings_doorbell_with_wqe_in_ring(void)
{
    rig r;
    rig_up(&r, 8, 1);
    CHECK_ST(ndk_send(r.a, (void *)0x55, &r.sge, 1, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT), NDK_STATUS_SUCCESS);
    CHECK(fake_writes(r.f, r.sq_pi_reg) == 1 && fake_last(r.f, r.sq_pi_reg) == 1, "one doorbell, SQ_PI 1");
    const uint32_t *w = sq_slot(r.a, 0);
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_OPCODE) == QPNIC_WQE_OP_SEND, "opcode SEND");
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_NSGE) == 1, "nsge 1");
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_FLAGS) == NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, "flags");
    const uint32_t *s = w + QPNIC_WQE_SGE_WORD;
    CHECK(QPNIC_FIELD_GET(s, QPNIC_SGE_TOKEN) == r.sge.token && QPNIC_FIELD_GET(s, QPNIC_SGE_LEN) == 128, "SGE");
    CHECK(r.a->sq_ctx[0] == (void *)0x55, "request context stored by slot");
    CHECK_ST(ndk_write(r.a, NULL, &r.sge, 1, 0x1122334455ull, 0x777, 0), NDK_STATUS_SUCCESS);
    w = sq_slot(r.a, 1);
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_OPCODE) == QPNIC_WQE_OP_WRITE && QPNIC_FIELD_GET(w, QPNIC_WQE_RTOKEN) == 0x777 &&
              QPNIC_FIELD_GET(w, QPNIC_WQE_RVA_LO) == 0x2233445u * 16 + 5 && QPNIC_FIELD_GET(w, QPNIC_WQE_RVA_HI) == 0x11,
          "WRITE WQE");
    CHECK_ST(ndk_read(r.a, NULL, &r.sge, 1, 0x40, 0x778, 0), NDK_STATUS_SUCCESS);
    CHECK(QPNIC_FIELD_GET(sq_slot(r.a, 2), QPNIC_WQE_OPCODE) == QPNIC_WQE_OP_READ, "READ WQE");
    CHECK(fake_writes(r.f, r.sq_pi_reg) == 3 && fake_last(r.f, r.sq_pi_reg) == 3, "three doorbells");
    rig_down(&r);
}

static void d8_chain_rings_once(void)
{
    rig r;
    rig_up(&r, 16, 1);
    for (int i = 0; i < 9; i++)
        CHECK_ST(ndk_send(r.a, NULL, &r.sge, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    CHECK(fake_writes(r.f, r.sq_pi_reg) == 0, "D1: no doorbell while deferring, got %zu",
          fake_writes(r.f, r.sq_pi_reg));
    CHECK_ST(ndk_write(r.a, NULL, &r.sge, 1, 0, 1, 0), NDK_STATUS_SUCCESS);
    CHECK(fake_writes(r.f, r.sq_pi_reg) == 1 && fake_last(r.f, r.sq_pi_reg) == 10,
          "D8: one doorbell for the chain of 10, got %zu writes, last %u", fake_writes(r.f, r.sq_pi_reg),
          fake_last(r.f, r.sq_pi_reg));
    rig_down(&r);
}

static void d5_inline_failure_rings_chain_first(void)
{
    rig r;
    rig_up(&r, 16, 1);
    ndk_sge three[3] = { r.sge, r.sge, r.sge };
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    /* nsge above the granted 2 */
    CHECK_ST(ndk_send(r.a, NULL, three, 3, NDK_OP_FLAG_DEFER), NDK_STATUS_INVALID_PARAMETER);
    CHECK(fake_writes(r.f, r.sq_pi_reg) == 1 && fake_last(r.f, r.sq_pi_reg) == 2,
          "D5: the two deferred were rung (SQ_PI 2), got %zu writes, last %u",
          fake_writes(r.f, r.sq_pi_reg), fake_last(r.f, r.sq_pi_reg));
    CHECK(r.a->sq_pi == 2, "D3: the failed request was not written (sq_pi %u)", r.a->sq_pi);
    /* a failure with nothing held rings nothing */
    CHECK_ST(ndk_send(r.a, NULL, three, 3, 0), NDK_STATUS_INVALID_PARAMETER);
    CHECK(fake_writes(r.f, r.sq_pi_reg) == 1, "nothing held, no extra doorbell");
    /* D7: FastRegister(DEFER) ok, FastRegister(DEFER) fails: the same with sends */
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 1, NDK_OP_FLAG_DEFER | 0x100000u), NDK_STATUS_INVALID_PARAMETER);
    CHECK(fake_last(r.f, r.sq_pi_reg) == 3, "D5 again: SQ_PI 3, got %u", fake_last(r.f, r.sq_pi_reg));
    rig_down(&r);
}

static void d5_ring_full_and_state_failures_ring(void)
{
    rig r;
    rig_up(&r, 4, 1);
    for (int i = 0; i < 3; i++)
        CHECK_ST(ndk_send(r.a, NULL, &r.sge, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    CHECK(fake_writes(r.f, r.sq_pi_reg) == 0, "held");
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    CHECK(fake_writes(r.f, r.sq_pi_reg) == 1 && fake_last(r.f, r.sq_pi_reg) == 4,
          "D2: a chain that fills the SQ is rung, got %zu writes", fake_writes(r.f, r.sq_pi_reg));
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 1, 0), NDK_STATUS_INSUFFICIENT_RESOURCES);
    CHECK(fake_writes(r.f, r.sq_pi_reg) == 1, "nothing held: no doorbell on the full-queue failure");

    rig r2;
    rig_up(&r2, 8, 0); /* not connected */
    CHECK_ST(ndk_send(r2.a, NULL, &r2.sge, 1, 0), NDK_STATUS_INVALID_DEVICE_STATE);
    CHECK_ST(ndk_read(r2.a, NULL, &r2.sge, 1, 0, 0, 0), NDK_STATUS_INVALID_DEVICE_STATE);
    CHECK(fake_writes(r2.f, r2.sq_pi_reg) == 0, "no doorbell for an unconnected QP");
    rig_down(&r2);
    rig_down(&r);
}

static void inline_checks(void)
{
    rig r;
    rig_up(&r, 8, 1);
    CHECK_ST(ndk_send(NULL, NULL, &r.sge, 1, 0), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_send(r.a, NULL, NULL, 1, 0), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_send(r.a, NULL, NULL, 0, 0), NDK_STATUS_SUCCESS); /* zero-length send */
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 1, NDK_OP_FLAG_ALLOW_REMOTE_READ), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_read(r.a, NULL, &r.sge, 1, 0, 0, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT), NDK_STATUS_INVALID_PARAMETER);
    ndk_sge too_long = { r.sge.addr, QPNIC_MAX_INLINE_BYTES + 1, 0 };
    CHECK_ST(ndk_send(r.a, NULL, &too_long, 1, NDK_OP_FLAG_INLINE), NDK_STATUS_INVALID_PARAMETER);
    ndk_sge huge[2] = { { 0, 0x80000000u, 1 }, { 0, 0x80000000u, 1 } };
    CHECK_ST(ndk_send(r.a, NULL, huge, 2, 0), NDK_STATUS_INVALID_PARAMETER);
    CHECK_ST(ndk_send(r.a, NULL, &r.sge, 1, NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_READ_FENCE), NDK_STATUS_SUCCESS);
    CHECK(r.a->sq_pi == 2, "only the two good sends were written, sq_pi %u", r.a->sq_pi);
    rig_down(&r);
}

static void receive_before_connect_v8(void)
{
    rig r;
    rig_up(&r, 8, 0);
    CHECK_ST(ndk_receive(r.a, (void *)0x77, &r.sge, 1), NDK_STATUS_SUCCESS);
    CHECK(fake_writes(r.f, r.rq_pi_reg) == 1 && fake_last(r.f, r.rq_pi_reg) == 1, "RQ_PI rung at once");
    const uint32_t *w = (const uint32_t *)r.a->rq.host;
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_OPCODE) == QPNIC_WQE_OP_RECV, "RECV WQE");
    CHECK(r.a->rq_ctx[0] == (void *)0x77, "receive context");
    for (int i = 1; i < 4; i++)
        CHECK_ST(ndk_receive(r.a, NULL, &r.sge, 1), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_receive(r.a, NULL, &r.sge, 1), NDK_STATUS_INSUFFICIENT_RESOURCES);
    CHECK(fake_writes(r.f, r.rq_pi_reg) == 4, "four receives rung");
    rig_down(&r);
}

int main(void)
{
    RUN(send_rings_doorbell_with_wqe_in_ring);
    RUN(d8_chain_rings_once);
    RUN(d5_inline_failure_rings_chain_first);
    RUN(d5_ring_full_and_state_failures_ring);
    RUN(inline_checks);
    RUN(receive_before_connect_v8);
    TEST_MAIN_END();
}
