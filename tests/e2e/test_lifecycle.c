/* test_lifecycle.c: every object's life, from creation to teardown.
 *
 * Memory-region flags as verbs users know them, a CQ destroyed under a
 * waiting thread, and a device that dies under a running program: each
 * through the whole NIC (RTL, firmware, driver).
 */
#include "e2e.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

/* Remote write without local write is refused, as ibv_reg_mr refuses it;
 * every other combination of the three rights registers. */
static void lifecycle_mr_remote_write_needs_local_write(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    const uint32_t rw_bit = NDK_MR_FLAG_ALLOW_REMOTE_WRITE & ~NDK_MR_FLAG_ALLOW_LOCAL_WRITE;
    const struct {
        uint32_t flags;
        ndk_status want;
    } cases[] = {
        { rw_bit, NDK_STATUS_INVALID_PARAMETER },
        { rw_bit | NDK_MR_FLAG_ALLOW_REMOTE_READ, NDK_STATUS_INVALID_PARAMETER },
        { 0, NDK_STATUS_SUCCESS },
        { NDK_MR_FLAG_ALLOW_LOCAL_WRITE, NDK_STATUS_SUCCESS },
        { NDK_MR_FLAG_ALLOW_REMOTE_READ, NDK_STATUS_SUCCESS },
        { NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ, NDK_STATUS_SUCCESS },
        { NDK_MR_FLAG_ALLOW_REMOTE_WRITE, NDK_STATUS_SUCCESS },
        { NDK_MR_FLAG_ALLOW_REMOTE_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ, NDK_STATUS_SUCCESS },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ndk_mr *mr;
        EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
        ndk_status st = ndk_register_mr(mr, p.a.buf, 4096, cases[i].flags);
        EXPECT(st == cases[i].want, "ndk_register_mr(flags 0x%x): %s, expected %s",
               cases[i].flags, ndk_status_str(st), ndk_status_str(cases[i].want));
        if (st != NDK_STATUS_SUCCESS)
            EXPECT(ndk_mr_remote_token(mr) == 0 && ndk_mr_local_token(mr) == 0,
                   "a refused registration (flags 0x%x) handed out tokens", cases[i].flags);
        EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    }
    e2e_pair_close(&p);
}

typedef struct {
    ndk_cq *cq;
    _Atomic int done;
    ndk_status st;
} waiter_arg;

static void *wait_forever(void *a)
{
    waiter_arg *w = a;
    w->st = ndk_wait_cq(w->cq, -1);
    atomic_store(&w->done, 1);
    return NULL;
}

static int wait_flag(_Atomic int *flag, int timeout_ms)
{
    uint64_t end = e2e_now_ms() + (uint64_t)timeout_ms;
    while (!atomic_load(flag) && e2e_now_ms() < end)
        usleep(500);
    return atomic_load(flag);
}

/* Destroying a CQ that another thread waits on (timeout -1) wakes that
 * thread with CANCELLED, and the adapter then closes. */
static void lifecycle_destroy_cq_wakes_its_waiter(void)
{
    ndk_adapter *ad;
    EXPECT_STATUS(ndk_open_adapter(NULL, &ad), NDK_STATUS_SUCCESS);
    for (int armed = 0; armed < 2; armed++) {
        waiter_arg w = { NULL, 0, NDK_STATUS_SUCCESS };
        EXPECT_STATUS(ndk_create_cq(ad, 8, NULL, NULL, &w.cq), NDK_STATUS_SUCCESS);
        ndk_arm_cq(w.cq, NDK_CQ_NOTIFY_ANY);
        pthread_t t;
        EXPECT(pthread_create(&t, NULL, wait_forever, &w) == 0, "pthread_create");
        usleep(50000); /* let it block */
        EXPECT(!atomic_load(&w.done), "ndk_wait_cq returned (%s) with nothing to wait for",
               ndk_status_str(w.st));
        EXPECT_STATUS(ndk_destroy_cq(w.cq), NDK_STATUS_SUCCESS);
        EXPECT(wait_flag(&w.done, 5000), "the waiter is still blocked after ndk_destroy_cq returned");
        pthread_join(t, NULL);
        EXPECT_STATUS(w.st, NDK_STATUS_CANCELLED);
    }
    EXPECT_STATUS(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

static void *close_adapter(void *a)
{
    ndk_adapter *ad = a;
    ndk_status st = ndk_close_adapter(ad);
    return (void *)(intptr_t)st;
}

/* The simulator is killed under a connected pair with an armed CQ and a
 * thread waiting: the arm's callback comes with INTERNAL_ERROR, the waiter
 * wakes with IO_ERROR, every call that needs the device returns IO_ERROR
 * (deferred posts too: they could never complete), a later arm gets its
 * callback as well, and teardown and close still free everything. */
static void lifecycle_dead_device_is_reported(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    uint64_t ra = e2e_remote_addr(&p.b, 0);
    uint32_t rt = ndk_mr_remote_token(p.b.mr);
    ndk_arm_cq(p.a.icq, NDK_CQ_NOTIFY_ERRORS); /* nothing will satisfy it */
    waiter_arg w = { p.a.icq, 0, NDK_STATUS_SUCCESS };
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, wait_forever, &w) == 0, "pthread_create");
    usleep(20000);

    int pid = ndk_sim_pid(p.ad);
    EXPECT(pid > 0, "no simulator pid");
    EXPECT(kill(pid, SIGKILL) == 0, "kill(%d)", pid);
    usleep(20000);

    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, ra, rt, 0), NDK_STATUS_IO_ERROR);
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, ra, rt, NDK_OP_FLAG_DEFER), NDK_STATUS_IO_ERROR);
    EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &g, 1), NDK_STATUS_IO_ERROR);
    ndk_cq *cq = NULL;
    EXPECT_STATUS(ndk_create_cq(p.ad, 8, NULL, NULL, &cq), NDK_STATUS_IO_ERROR);
    EXPECT(cq == NULL, "a failed ndk_create_cq handed out a CQ");
    ndk_pd *pd = NULL;
    EXPECT_STATUS(ndk_create_pd(p.ad, &pd), NDK_STATUS_IO_ERROR);
    ndk_counters c;
    EXPECT_STATUS(ndk_query_counters(p.ad, &c), NDK_STATUS_IO_ERROR);

    EXPECT(e2e_wait_calls(&p.a.icq_cb, 1, 5000) == 1,
           "the armed CQ got %u callbacks after the device died, expected 1",
           atomic_load(&p.a.icq_cb.calls));
    EXPECT_STATUS((ndk_status)atomic_load(&p.a.icq_cb.last_status), NDK_STATUS_INTERNAL_ERROR);
    EXPECT(wait_flag(&w.done, 5000), "a thread in ndk_wait_cq still waits on a dead device");
    pthread_join(t, NULL);
    EXPECT_STATUS(w.st, NDK_STATUS_IO_ERROR);
    EXPECT_STATUS(ndk_wait_cq(p.a.icq, 1000), NDK_STATUS_IO_ERROR);

    /* N1 still holds: one callback per arm, and none without one */
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 1, 5000) == 1, "an arm after the death got no callback");
    EXPECT_STATUS((ndk_status)atomic_load(&p.b.rcq_cb.last_status), NDK_STATUS_INTERNAL_ERROR);
    usleep(100000);
    EXPECT(atomic_load(&p.a.icq_cb.calls) == 1 && atomic_load(&p.b.rcq_cb.calls) == 1 &&
           atomic_load(&p.a.rcq_cb.calls) == 0 && atomic_load(&p.b.icq_cb.calls) == 0,
           "callbacks after the death: %u %u %u %u, expected 1 only on each armed CQ",
           atomic_load(&p.a.icq_cb.calls), atomic_load(&p.b.rcq_cb.calls),
           atomic_load(&p.a.rcq_cb.calls), atomic_load(&p.b.icq_cb.calls));

    /* teardown frees everything; close must not hang */
    EXPECT_STATUS(ndk_disconnect(p.a.qp), NDK_STATUS_IO_ERROR);
    EXPECT_STATUS(ndk_destroy_qp(p.a.qp), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_qp(p.b.qp), NDK_STATUS_SUCCESS);
    e2e_side *sides[2] = { &p.a, &p.b };
    for (int i = 0; i < 2; i++) {
        EXPECT_STATUS(ndk_destroy_mr(sides[i]->mr), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_destroy_cq(sides[i]->rcq), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_destroy_cq(sides[i]->icq), NDK_STATUS_SUCCESS);
        ndk_free_dma(p.ad, sides[i]->buf);
    }
    EXPECT_STATUS(ndk_destroy_pd(p.pd), NDK_STATUS_SUCCESS);
    pthread_t ct;
    EXPECT(pthread_create(&ct, NULL, close_adapter, p.ad) == 0, "pthread_create");
    void *ret;
    pthread_join(ct, &ret);
    EXPECT_STATUS((ndk_status)(intptr_t)ret, NDK_STATUS_SUCCESS);
}

int main(int argc, char **argv)
{
    static const e2e_case cases[] = {
        { "lifecycle_mr_remote_write_needs_local_write", lifecycle_mr_remote_write_needs_local_write },
        { "lifecycle_destroy_cq_wakes_its_waiter", lifecycle_destroy_cq_wakes_its_waiter },
        { "lifecycle_dead_device_is_reported", lifecycle_dead_device_is_reported },
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
