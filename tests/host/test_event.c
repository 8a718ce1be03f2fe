/* test_event.c: notifications become callbacks on one thread (N5), wake
 * ndk_wait_cq (V9), report overruns (N8); arming writes the ARM register. */
#include <string.h>
#include <unistd.h>

#include "fake_nic.h"

static uint32_t ntf_word(uint32_t cqn, uint32_t status)
{
    uint32_t w[1] = { 0 };
    QPNIC_FIELD_SET(w, QPNIC_NOTIFY_CQN, cqn);
    QPNIC_FIELD_SET(w, QPNIC_NOTIFY_STATUS, status);
    return w[0];
}

typedef struct {
    atomic_int calls;
    atomic_int inside;     /* callbacks running now */
    atomic_int overlap;    /* N5 broken: two at once */
    atomic_int last_status;
    ndk_cq *cq;            /* for the re-entrant test */
    int rearm;
    pthread_t thread;
    atomic_int other_thread;
} cb_state;

static void on_cq(void *ctx, ndk_status status)
{
    cb_state *s = ctx;
    if (atomic_fetch_add(&s->inside, 1) != 0)
        atomic_store(&s->overlap, 1);
    if (atomic_load(&s->calls) == 0)
        s->thread = pthread_self();
    else if (!pthread_equal(s->thread, pthread_self()))
        atomic_store(&s->other_thread, 1);
    usleep(200);
    if (s->cq) { /* a callback may poll and re-arm its own CQ */
        ndk_result r[4];
        (void)ndk_get_cq_results(s->cq, r, 4);
        if (s->rearm)
            ndk_arm_cq(s->cq, NDK_CQ_NOTIFY_ANY);
    }
    atomic_store(&s->last_status, status);
    atomic_fetch_sub(&s->inside, 1);
    atomic_fetch_add(&s->calls, 1);
}

static void wait_calls(cb_state *s, int n)
{
    for (int i = 0; i < 2000 && atomic_load(&s->calls) < n; i++)
        usleep(1000);
}

static void arm_writes_register_and_wait_v9(void)
{
    fake_nic *f = fake_new(1 << 20);
    ndk_adapter *ad = fake_open(f);
    cb_state s;
    memset(&s, 0, sizeof s);
    ndk_cq *cq;
    ndk_create_cq(ad, 8, on_cq, &s, &cq);
    CHECK_ST(ndk_wait_cq(cq, 10), NDK_STATUS_INVALID_DEVICE_STATE); /* never armed */
    ndk_arm_cq(cq, 7); /* not a trigger: ignored */
    CHECK(fake_writes(f, QPNIC_CQREG(cq->cqn, ARM)) == 0, "invalid trigger writes nothing");
    ndk_arm_cq(cq, NDK_CQ_NOTIFY_SOLICITED);
    uint32_t arm = fake_last(f, QPNIC_CQREG(cq->cqn, ARM));
    CHECK(QPNIC_FIELD_GET(&arm, QPNIC_CQ_ARM_TRIGGER) == QPNIC_CQ_TRIGGER_SOLICITED &&
              QPNIC_FIELD_GET(&arm, QPNIC_CQ_ARM_CI_VALID) == 1 && QPNIC_FIELD_GET(&arm, QPNIC_CQ_ARM_CI) == 0,
          "ARM register 0x%08x: want the trigger and the CI (0)", arm);
    CHECK_ST(ndk_wait_cq(cq, 20), NDK_STATUS_TIMEOUT);
    fake_notify(f, ntf_word(cq->cqn, QPNIC_NTF_STATUS_SUCCESS));
    CHECK_ST(ndk_wait_cq(cq, 2000), NDK_STATUS_SUCCESS);
    CHECK(atomic_load(&s.calls) == 1, "callback ran once before the wait returned, %d", atomic_load(&s.calls));
    CHECK_ST(ndk_wait_cq(cq, 0), NDK_STATUS_SUCCESS); /* already came: at once */
    ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
    CHECK_ST(ndk_wait_cq(cq, 20), NDK_STATUS_TIMEOUT); /* a new arm waits anew */
    ndk_destroy_cq(cq);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void callbacks_serialized_n5(void)
{
    fake_nic *f = fake_new(1 << 20);
    ndk_adapter *ad = fake_open(f);
    cb_state s;
    memset(&s, 0, sizeof s);
    ndk_cq *c1, *c2;
    ndk_create_cq(ad, 8, on_cq, &s, &c1);
    ndk_create_cq(ad, 8, on_cq, &s, &c2);
    for (int i = 0; i < 50; i++)
        fake_notify(f, ntf_word(i % 2 ? c1->cqn : c2->cqn, QPNIC_NTF_STATUS_SUCCESS));
    fake_notify(f, ntf_word(7, QPNIC_NTF_STATUS_SUCCESS)); /* no such CQ: dropped */
    wait_calls(&s, 50);
    CHECK(atomic_load(&s.calls) == 50, "50 callbacks, got %d", atomic_load(&s.calls));
    CHECK(!atomic_load(&s.overlap), "N5: two callbacks ran at once");
    CHECK(!atomic_load(&s.other_thread), "callbacks ran on more than one thread");
    CHECK(!pthread_equal(s.thread, pthread_self()), "callbacks run on the library's thread");
    ndk_destroy_cq(c1);
    ndk_destroy_cq(c2);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void callback_polls_and_rearms_own_cq(void)
{
    fake_nic *f = fake_new(1 << 20);
    ndk_adapter *ad = fake_open(f);
    cb_state s;
    memset(&s, 0, sizeof s);
    ndk_cq *cq;
    ndk_create_cq(ad, 8, on_cq, &s, &cq);
    s.cq = cq;
    s.rearm = 1;
    fake_put_cqe(cq, 0, 3, 0, QPNIC_OP_TYPE_SEND, QPNIC_CQE_STATUS_SUCCESS, 1, 0);
    ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
    fake_notify(f, ntf_word(cq->cqn, QPNIC_NTF_STATUS_SUCCESS));
    wait_calls(&s, 1);
    CHECK(atomic_load(&s.calls) == 1, "callback ran");
    CHECK(fake_writes(f, QPNIC_CQREG(cq->cqn, ARM)) == 2, "re-armed from the callback");
    uint32_t rearm = fake_last(f, QPNIC_CQREG(cq->cqn, ARM));
    CHECK(QPNIC_FIELD_GET(&rearm, QPNIC_CQ_ARM_CI) == 1,
          "the re-arm after polling one CQE carries CI %u, want 1 (polled from the callback)",
          QPNIC_FIELD_GET(&rearm, QPNIC_CQ_ARM_CI));
    s.cq = NULL;
    ndk_destroy_cq(cq);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void overrun_reported_n8(void)
{
    fake_nic *f = fake_new(1 << 20);
    ndk_adapter *ad = fake_open(f);
    cb_state s;
    memset(&s, 0, sizeof s);
    ndk_pd *pd;
    ndk_cq *cq;
    ndk_qp *qp;
    ndk_create_pd(ad, &pd);
    ndk_create_cq(ad, 2, on_cq, &s, &cq);
    ndk_qp_attr at = { 4, 4, 1, 0 };
    ndk_create_qp(pd, cq, cq, NULL, &at, &qp);
    ndk_connect(qp, ndk_qp_address(qp));
    ndk_arm_cq(cq, NDK_CQ_NOTIFY_ERRORS);
    fake_notify(f, ntf_word(cq->cqn, QPNIC_NTF_STATUS_OVERFLOW));
    CHECK_ST(ndk_wait_cq(cq, 2000), NDK_STATUS_BUFFER_OVERFLOW);
    CHECK(atomic_load(&s.last_status) == NDK_STATUS_BUFFER_OVERFLOW, "callback got BUFFER_OVERFLOW");
    CHECK_ST(ndk_send(qp, NULL, NULL, 0, 0), NDK_STATUS_INVALID_DEVICE_STATE);
    CHECK_ST(ndk_receive(qp, NULL, NULL, 0), NDK_STATUS_INVALID_DEVICE_STATE);
    ndk_destroy_qp(qp);
    ndk_destroy_cq(cq);
    ndk_destroy_pd(pd);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void dead_device_ends_waits(void)
{
    fake_nic *f = fake_new(1 << 20);
    ndk_adapter *ad = fake_open(f);
    ndk_cq *cq;
    ndk_create_cq(ad, 8, NULL, NULL, &cq);
    ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
    fake_kill(f);
    CHECK_ST(ndk_wait_cq(cq, 5000), NDK_STATUS_IO_ERROR);
    CHECK_ST(ndk_wait_cq(cq, -1), NDK_STATUS_IO_ERROR);
    ndk_destroy_cq(cq);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

typedef struct {
    ndk_cq *cq;
    atomic_int done;
} self_destroy;

static void destroy_cq_from_its_callback_fn(void *ctx, ndk_status st)
{
    (void)st;
    self_destroy *d = ctx;
    CHECK_ST(ndk_destroy_cq(d->cq), NDK_STATUS_SUCCESS);
    atomic_store(&d->done, 1);
}

static void destroy_cq_from_its_callback(void)
{
    fake_nic *f = fake_new(1 << 20);
    ndk_adapter *ad = fake_open(f);
    static self_destroy d;
    CHECK_ST(ndk_create_cq(ad, 8, destroy_cq_from_its_callback_fn, &d, &d.cq), NDK_STATUS_SUCCESS);
    fake_notify(f, ntf_word(d.cq->cqn, QPNIC_NTF_STATUS_SUCCESS));
    for (int i = 0; i < 2000 && !atomic_load(&d.done); i++)
        usleep(1000);
    CHECK(atomic_load(&d.done), "callback destroyed its CQ");
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

int main(void)
{
    RUN(arm_writes_register_and_wait_v9);
    RUN(callbacks_serialized_n5);
    RUN(callback_polls_and_rearms_own_cq);
    RUN(overrun_reported_n8);
    RUN(dead_device_ends_waits);
    RUN(destroy_cq_from_its_callback);
    TEST_MAIN_END();
}
