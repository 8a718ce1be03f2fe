/* test_lifecycle.c: every object's life, from creation to teardown.
 *
 * Memory-region flags as verbs users know them, a CQ destroyed under a
 * waiting thread, and a device that dies under a running program: each
 * through the whole NIC (RTL, firmware, driver).
 */
#include "e2e.h"
#include "qpnic_hw.h" /* struct qp_num: a QP number's table index */

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
    /* the same rule for ndk_fast_register's NDK_OP_FLAG_ALLOW_* rights:
     * REMOTE_WRITE's own bit alone fails inline, posts nothing */
    void *block;
    uint8_t *page = e2e_pages(&p, 1, &block);
    uint64_t list[1] = { ndk_dma_address(p.ad, page) };
    const uint32_t op_rw_bit = NDK_OP_FLAG_ALLOW_REMOTE_WRITE & ~NDK_OP_FLAG_ALLOW_LOCAL_WRITE;
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_fast_register(p.a.qp, NULL, mr, 1, list, 0, 4096, 0x5000000000ull, op_rw_bit),
                  NDK_STATUS_INVALID_PARAMETER);
    EXPECT(ndk_mr_remote_token(mr) == 0, "a refused FastRegister handed out a token");
    ndk_result_ex r;
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, &r, 1) == 0, "a refused FastRegister completed");
    EXPECT_STATUS(ndk_fast_register(p.a.qp, NULL, mr, 1, list, 0, 4096, 0x5000000000ull,
                                    NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
                  NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, &r, 1, 10000) == 1 && r.status == NDK_STATUS_SUCCESS,
           "a FastRegister with REMOTE_WRITE (0x30) did not complete SUCCESS");
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    ndk_free_dma(p.ad, block);
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
    e2e_expect_no_refused_dma(ad, "after the destroys");
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


#define CTX(i) ((void *)(uintptr_t)(0x1000u + (i)))

/* Expect n completions on cq: contexts first..first+n-1 in posting order,
 * each CANCELLED with type `type`, then nothing more once the NIC is idle. */
static void expect_cancelled(e2e_pair *p, ndk_cq *cq, uint32_t first, uint32_t n, uint32_t type,
                             const char *what)
{
    ndk_result_ex r[64];
    uint32_t got = e2e_poll(cq, r, n, 10000);
    EXPECT(got == n, "%s: %u completions, expected %u", what, got, n);
    for (uint32_t i = 0; i < n; i++) {
        EXPECT_STATUS(r[i].status, NDK_STATUS_CANCELLED);
        EXPECT(r[i].request_context == CTX(first + i),
               "%s: completion %u has context %p, expected %p (posting order)", what, i,
               r[i].request_context, CTX(first + i));
        EXPECT(r[i].type == type, "%s: completion %u has type %u, expected %u", what, i,
               r[i].type, type);
        EXPECT(r[i].bytes_transferred == 0, "%s: a flushed request reports %u bytes", what,
               r[i].bytes_transferred);
    }
    EXPECT(e2e_settle_and_poll(p, cq, r, 64) == 0, "%s: completions beyond the %u expected", what, n);
}

static ndk_status post_recv(e2e_side *s, uint32_t i)
{
    ndk_sge g = e2e_sge(s, 1024u * (i % 32), 1024);
    return ndk_receive(s->qp, CTX(i), &g, 1);
}

/* D4 + flush: ndk_disconnect flushes every posted receive and every request
 * DEFER still held, each exactly once, CANCELLED, in posting order; the
 * peer's memory is untouched (the held WRITEs never ran). */
static void flush_disconnect_cancels_receives_and_held_chain(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    for (uint32_t i = 0; i < 5; i++)
        EXPECT_STATUS(post_recv(&p.b, i), NDK_STATUS_SUCCESS);
    e2e_fill(p.a.buf, 4096, 7);
    for (uint32_t i = 0; i < 3; i++) {
        ndk_sge g = e2e_sge(&p.a, 0, 4096);
        EXPECT_STATUS(ndk_write(p.a.qp, CTX(100 + i), &g, 1, e2e_remote_addr(&p.b, 0),
                                ndk_mr_remote_token(p.b.mr), NDK_OP_FLAG_DEFER),
                      NDK_STATUS_SUCCESS);
    }
    ndk_result_ex r[8];
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, 8) == 0, "a held chain completed before disconnect");
    EXPECT_STATUS(ndk_disconnect(p.a.qp), NDK_STATUS_SUCCESS);
    expect_cancelled(&p, p.a.icq, 100, 3, NDK_OP_TYPE_WRITE, "held WRITEs of a disconnected QP");
    for (uint32_t i = 0; i < 4096; i++)
        EXPECT(p.b.buf[i] == 0, "byte %u of the peer changed: a flushed WRITE ran", i);
    EXPECT(e2e_settle_and_poll(&p, p.b.rcq, r, 8) == 0, "receives completed before their QP left RTS");
    EXPECT_STATUS(ndk_disconnect(p.b.qp), NDK_STATUS_SUCCESS);
    expect_cancelled(&p, p.b.rcq, 0, 5, NDK_OP_TYPE_RECEIVE, "receives of a disconnected QP");
    ndk_sge g = e2e_sge(&p.b, 0, 8);
    EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &g, 1), NDK_STATUS_INVALID_DEVICE_STATE);
    e2e_pair_close(&p);
}

/* An error completion puts the QP in ERROR at the NIC: the receives posted
 * on it are flushed after that error, in order. */
static void flush_error_completion_flushes_receives(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    for (uint32_t i = 0; i < 4; i++)
        EXPECT_STATUS(post_recv(&p.a, i), NDK_STATUS_SUCCESS);
    ndk_sge bad = e2e_sge(&p.a, 0, 8);
    bad.token ^= 0x100;
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(50), &bad, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p.a.icq, &r, 1, 10000) == 1, "no completion for the failing WRITE");
    EXPECT_STATUS(r.status, NDK_STATUS_ACCESS_VIOLATION);
    expect_cancelled(&p, p.a.rcq, 0, 4, NDK_OP_TYPE_RECEIVE, "receives of a QP in error");
    e2e_pair_close(&p);
}

/* Destroying a QP that was never connected flushes its receives to its CQ,
 * each with its contexts and the QP's number though the QP is gone, and
 * leaves the CQ usable. */
static void flush_destroy_completes_receives(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_cq *cq;
    EXPECT_STATUS(ndk_create_cq(p.ad, 16, NULL, NULL, &cq), NDK_STATUS_SUCCESS);
    ndk_qp *qp;
    ndk_qp_attr attr = {.sq_depth = 4, .rq_depth = 8, .max_sge = 1, .max_inline = 0};
    EXPECT_STATUS(ndk_create_qp(p.pd, cq, cq, CTX(77), &attr, &qp), NDK_STATUS_SUCCESS);
    uint32_t qpn = ndk_qp_num(qp);
    for (uint32_t i = 0; i < 6; i++) {
        ndk_sge g = e2e_sge(&p.a, 64u * i, 64);
        EXPECT_STATUS(ndk_receive(qp, CTX(i), &g, 1), NDK_STATUS_SUCCESS);
    }
    EXPECT_STATUS(ndk_destroy_qp(qp), NDK_STATUS_SUCCESS);
    ndk_result_ex r[8];
    uint32_t got = e2e_poll(cq, r, 6, 10000);
    EXPECT(got == 6, "%u completions of the destroyed QP's 6 receives", got);
    for (uint32_t i = 0; i < got; i++) {
        EXPECT_STATUS(r[i].status, NDK_STATUS_CANCELLED);
        EXPECT(r[i].qp_num == qpn, "flushed receive %u names QP %u, expected %u", i, r[i].qp_num, qpn);
        EXPECT(r[i].request_context == CTX(i) && r[i].qp_context == CTX(77),
               "flushed receive %u of a destroyed QP: contexts %p %p, expected %p %p", i,
               r[i].request_context, r[i].qp_context, CTX(i), CTX(77));
    }
    EXPECT(e2e_settle_and_poll(&p, cq, r, 8) == 0, "more completions than receives");
    EXPECT_STATUS(ndk_destroy_cq(cq), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* Disconnect and destroy in the middle of a stream of WRITEs: once
 * ndk_destroy_qp returns the NIC reads nothing more (counters) and writes
 * nothing more into the peer (its buffer, watched); every WRITE completed
 * exactly once, the successes before the flushed ones. */
static void teardown_destroy_during_writes_stops_dma(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    enum { N = 40, LEN = 4096 };
    e2e_fill(p.a.buf, LEN, 3);
    for (uint32_t i = 0; i < N; i++) {
        ndk_sge g = e2e_sge(&p.a, 0, LEN);
        EXPECT_STATUS(ndk_write(p.a.qp, CTX(i), &g, 1, e2e_remote_addr(&p.b, LEN * (1 + i % 8)),
                                ndk_mr_remote_token(p.b.mr), i + 1 < N ? NDK_OP_FLAG_DEFER : 0),
                      NDK_STATUS_SUCCESS);
    }
    usleep(2000); /* let some of them run */
    EXPECT_STATUS(ndk_disconnect(p.a.qp), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_qp(p.a.qp), NDK_STATUS_SUCCESS);
    ndk_counters c0, c1;
    EXPECT_STATUS(ndk_query_counters(p.ad, &c0), NDK_STATUS_SUCCESS);
    static uint8_t snap[9 * LEN];
    memcpy(snap, p.b.buf, sizeof snap);
    EXPECT_STATUS(ndk_sim_wait_idle(p.ad, 10000), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_query_counters(p.ad, &c1), NDK_STATUS_SUCCESS);
    EXPECT(c1.dma_read_bytes == c0.dma_read_bytes, "the NIC read %llu bytes after destroy returned",
           (unsigned long long)(c1.dma_read_bytes - c0.dma_read_bytes));
    EXPECT(memcmp(snap, p.b.buf, sizeof snap) == 0, "the peer's memory changed after destroy returned");
    ndk_result_ex r[N + 1];
    uint32_t got = e2e_poll(p.a.icq, r, N, 10000);
    EXPECT(got == N, "%u completions of %u WRITEs", got, N);
    uint32_t ok = 0;
    for (uint32_t i = 0; i < got; i++) {
        EXPECT(r[i].request_context == CTX(i), "completion %u of the destroyed QP has context %p, "
               "expected %p (posting order)", i, r[i].request_context, CTX(i));
        if (r[i].status == NDK_STATUS_SUCCESS) {
            EXPECT(ok == i, "a successful WRITE (completion %u) after a flushed one", i);
            ok++;
        } else
            EXPECT_STATUS(r[i].status, NDK_STATUS_CANCELLED);
    }
    printf("teardown: %u WRITEs done, %u flushed\n", ok, got - ok);
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, N + 1) == 0, "more completions than WRITEs");
    /* e2e_pair_close destroys a.qp: create a stand-in so it has one */
    ndk_qp_attr attr = {.sq_depth = 4, .rq_depth = 4, .max_sge = 1, .max_inline = 0};
    EXPECT_STATUS(ndk_create_qp(p.pd, p.a.rcq, p.a.icq, NULL, &attr, &p.a.qp), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* Safe reuse: b is destroyed and its table index handed to a new QP c.
 * a, still connected to b's number, sends: the NIC refuses the packet (the
 * number's generation is b's, not c's) and counts it; c's posted receive
 * and its memory stay untouched, and a's SEND fails. */
static void reuse_qp_number_refuses_the_old_peers_packets(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint32_t old_num = ndk_qp_num(p.b.qp);
    EXPECT_STATUS(ndk_disconnect(p.b.qp), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_qp(p.b.qp), NDK_STATUS_SUCCESS);
    ndk_qp *c;
    ndk_qp_attr attr = {.sq_depth = 4, .rq_depth = 4, .max_sge = 1, .max_inline = 0};
    EXPECT_STATUS(ndk_create_qp(p.pd, p.b.rcq, p.b.icq, &p.b, &attr, &c), NDK_STATUS_SUCCESS);
    p.b.qp = c; /* e2e_pair_close destroys it */
    uint32_t new_num = ndk_qp_num(c);
    EXPECT(new_num != old_num, "a re-created QP got the destroyed one's number 0x%x", old_num);
    EXPECT((new_num & QPNIC_QP_NUM_INDEX_MASK) == (old_num & QPNIC_QP_NUM_INDEX_MASK),
           "the new QP (0x%x) did not reuse the destroyed one's index (0x%x): nothing is shown",
           new_num, old_num);
    ndk_qp_addr stale = { ndk_qp_address(p.a.qp).node, old_num };
    EXPECT_STATUS(ndk_connect(c, stale), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_connect(c, ndk_qp_address(p.a.qp)), NDK_STATUS_SUCCESS);
    ndk_sge rg = e2e_sge(&p.b, 0, 256);
    EXPECT_STATUS(ndk_receive(c, CTX(7), &rg, 1), NDK_STATUS_SUCCESS);
    ndk_counters c0, c1;
    EXPECT_STATUS(ndk_query_counters(p.ad, &c0), NDK_STATUS_SUCCESS);
    e2e_fill(p.a.buf, 256, 11);
    ndk_sge g = e2e_sge(&p.a, 0, 256);
    EXPECT_STATUS(ndk_send(p.a.qp, CTX(1), &g, 1, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r[4];
    EXPECT(e2e_poll(p.a.icq, r, 1, 10000) == 1, "the SEND to a destroyed QP's number never completed");
    EXPECT(r[0].status != NDK_STATUS_SUCCESS, "a SEND to a destroyed QP's number succeeded");
    EXPECT_STATUS(r[0].status, NDK_STATUS_INVALID_DEVICE_STATE);
    EXPECT(e2e_settle_and_poll(&p, p.b.rcq, r, 4) == 0, "the new QP got a completion for the old peer's SEND");
    for (uint32_t i = 0; i < 256; i++)
        EXPECT(p.b.buf[i] == 0, "byte %u of the new QP's receive buffer changed", i);
    EXPECT_STATUS(ndk_query_counters(p.ad, &c1), NDK_STATUS_SUCCESS);
    EXPECT(c1.packets_dropped == c0.packets_dropped + 1, "packets_dropped went %llu -> %llu, expected +1",
           (unsigned long long)c0.packets_dropped, (unsigned long long)c1.packets_dropped);
    e2e_pair_close(&p);
}

/* Two QPs of p's PD on cq (both sides' CQs), connected to each other; n
 * SENDs from the first to receives on the second: 2n completions on cq. */
static void traffic_on_cq(e2e_pair *p, ndk_cq *cq, uint32_t n)
{
    ndk_qp *q[2];
    for (int i = 0; i < 2; i++) {
        ndk_qp_attr attr = {.sq_depth = 8, .rq_depth = 8, .max_sge = 1, .max_inline = 0};
        EXPECT_STATUS(ndk_create_qp(p->pd, cq, cq, NULL, &attr, &q[i]), NDK_STATUS_SUCCESS);
    }
    EXPECT_STATUS(ndk_connect(q[0], ndk_qp_address(q[1])), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_connect(q[1], ndk_qp_address(q[0])), NDK_STATUS_SUCCESS);
    for (uint32_t i = 0; i < n; i++) {
        ndk_sge r = e2e_sge(&p->b, 64u * i, 64), g = e2e_sge(&p->a, 64u * i, 64);
        EXPECT_STATUS(ndk_receive(q[1], NULL, &r, 1), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_send(q[0], NULL, &g, 1, 0), NDK_STATUS_SUCCESS);
    }
    EXPECT_STATUS(ndk_sim_wait_idle(p->ad, 10000), NDK_STATUS_SUCCESS);
    for (int i = 0; i < 2; i++) {
        EXPECT_STATUS(ndk_disconnect(q[i]), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_destroy_qp(q[i]), NDK_STATUS_SUCCESS);
    }
}

/* Safe reuse of a CQ number (N1, N3): CQ X is armed and destroyed with its
 * arm pending; the CQ created next (same number: the driver hands out the
 * lowest free) gets completions but no callback, since nobody armed it (N1);
 * armed, it fires at once (N3), although X had been called back at the
 * very same producer index. */
static void reuse_cq_number_starts_without_arm_N1_N3(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    e2e_cb cbx, cby;
    memset(&cbx, 0, sizeof cbx);
    memset(&cby, 0, sizeof cby);
    cbx.rearm_trigger = cby.rearm_trigger = -1;
    ndk_cq *x, *y;
    EXPECT_STATUS(ndk_create_cq(p.ad, 16, e2e_record_cb, &cbx, &x), NDK_STATUS_SUCCESS);
    traffic_on_cq(&p, x, 2);                  /* 4 CQEs on X */
    ndk_arm_cq(x, NDK_CQ_NOTIFY_ANY);         /* N3: fires at once, at index 4 */
    EXPECT(e2e_wait_calls(&cbx, 1, 5000) == 1, "X's arm over 4 new CQEs did not fire (N3)");
    ndk_arm_cq(x, NDK_CQ_NOTIFY_ANY);         /* left pending */
    EXPECT_STATUS(ndk_sim_wait_idle(p.ad, 10000), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_cq(x), NDK_STATUS_SUCCESS);

    EXPECT_STATUS(ndk_create_cq(p.ad, 16, e2e_record_cb, &cby, &y), NDK_STATUS_SUCCESS);
    cby.cq = y;
    traffic_on_cq(&p, y, 2);                  /* 4 CQEs on Y: index 4 again */
    usleep(100000);
    EXPECT(atomic_load(&cby.calls) == 0, "a CQ nobody armed got %u callbacks (N1): it inherited "
           "the destroyed CQ's arm", atomic_load(&cby.calls));
    ndk_arm_cq(y, NDK_CQ_NOTIFY_ANY);
    EXPECT(e2e_wait_calls(&cby, 1, 5000) == 1, "Y's first arm over 4 CQEs never fired (N3): it "
           "inherited the destroyed CQ's callback index");
    EXPECT(atomic_load(&cbx.calls) == 1, "the destroyed CQ's callback ran %u times",
           atomic_load(&cbx.calls));
    EXPECT_STATUS(ndk_destroy_cq(y), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

static uint32_t qp_state(ndk_qp *qp)
{
    uint32_t st = 99;
    EXPECT_STATUS(ndk_query_qp_state(qp, &st), NDK_STATUS_SUCCESS);
    return st;
}

/* The QP state machine as a program sees it: RESET after create, CONNECTED
 * after connect, ERROR after disconnect, and no way back; a failed receive
 * takes both ends to ERROR at the NIC (the receiver's other receives are
 * flushed after it), which the query shows before any completion is polled. */
static void state_machine_through_a_qps_life(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_qp *q;
    ndk_qp_attr attr = {.sq_depth = 4, .rq_depth = 4, .max_sge = 1, .max_inline = 0};
    EXPECT_STATUS(ndk_create_qp(p.pd, p.a.rcq, p.a.icq, NULL, &attr, &q), NDK_STATUS_SUCCESS);
    EXPECT(qp_state(q) == NDK_QP_STATE_RESET, "a new QP is in state %u, not RESET", qp_state(q));
    EXPECT(qp_state(p.a.qp) == NDK_QP_STATE_CONNECTED, "a connected QP is in state %u", qp_state(p.a.qp));
    EXPECT_STATUS(ndk_connect(q, ndk_qp_address(p.b.qp)), NDK_STATUS_SUCCESS);
    EXPECT(qp_state(q) == NDK_QP_STATE_CONNECTED, "after connect: state %u", qp_state(q));
    EXPECT_STATUS(ndk_disconnect(q), NDK_STATUS_SUCCESS);
    EXPECT(qp_state(q) == NDK_QP_STATE_ERROR, "after disconnect: state %u", qp_state(q));
    EXPECT_STATUS(ndk_connect(q, ndk_qp_address(p.b.qp)), NDK_STATUS_INVALID_DEVICE_STATE);
    EXPECT(qp_state(q) == NDK_QP_STATE_ERROR, "a refused connect changed the state to %u", qp_state(q));
    EXPECT_STATUS(ndk_destroy_qp(q), NDK_STATUS_SUCCESS);
    uint32_t st;
    EXPECT_STATUS(ndk_query_qp_state(NULL, &st), NDK_STATUS_INVALID_PARAMETER);
    EXPECT_STATUS(ndk_query_qp_state(p.a.qp, NULL), NDK_STATUS_INVALID_PARAMETER);

    /* a receive too small: the receiver's QP and the sender's go to ERROR */
    for (uint32_t i = 0; i < 3; i++) {
        ndk_sge r = e2e_sge(&p.b, 64u * i, 16);
        EXPECT_STATUS(ndk_receive(p.b.qp, CTX(i), &r, 1), NDK_STATUS_SUCCESS);
    }
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_send(p.a.qp, CTX(10), &g, 1, 0), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_sim_wait_idle(p.ad, 10000), NDK_STATUS_SUCCESS);
    EXPECT(qp_state(p.b.qp) == NDK_QP_STATE_ERROR, "a failed receive left its QP in state %u", qp_state(p.b.qp));
    EXPECT(qp_state(p.a.qp) == NDK_QP_STATE_ERROR, "a failed send left its QP in state %u", qp_state(p.a.qp));
    ndk_sge r2 = e2e_sge(&p.b, 0, 16);
    EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &r2, 1), NDK_STATUS_INVALID_DEVICE_STATE);
    ndk_result_ex r[4];
    EXPECT(e2e_poll(p.b.rcq, r, 3, 10000) == 3, "the three receives did not all complete");
    EXPECT_STATUS(r[0].status, NDK_STATUS_BUFFER_OVERFLOW);
    for (uint32_t i = 1; i < 3; i++) {
        EXPECT_STATUS(r[i].status, NDK_STATUS_CANCELLED);
        EXPECT(r[i].request_context == CTX(i), "flushed receive %u out of order", i);
    }
    EXPECT(e2e_poll(p.a.icq, r, 1, 10000) == 1, "the send did not complete");
    EXPECT_STATUS(r[0].status, NDK_STATUS_REMOTE_OPERATION_ERROR);
    e2e_pair_close(&p);
}

/* ndk_destroy_mr in the middle of a stream of WRITEs into that region: once
 * it returns the NIC writes nothing more there (the peer's buffer, watched;
 * the simulator's checker, which refuses writes outside registered memory,
 * in e2e_pair_close), and every WRITE completes exactly once: the ones that
 * ran before the invalidation SUCCESS, the first after it
 * REMOTE_ACCESS_ERROR, the rest CANCELLED, never a success after a failure. */
static void teardown_destroy_mr_during_writes_stops_dma(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    enum { N = 40, LEN = 4096 };
    e2e_fill(p.a.buf, LEN, 5);
    uint32_t rkey = ndk_mr_remote_token(p.b.mr);
    for (uint32_t i = 0; i < N; i++) {
        ndk_sge g = e2e_sge(&p.a, 0, LEN);
        EXPECT_STATUS(ndk_write(p.a.qp, CTX(i), &g, 1, e2e_remote_addr(&p.b, LEN * (i % 8)), rkey,
                                i + 1 < N ? NDK_OP_FLAG_DEFER : 0),
                      NDK_STATUS_SUCCESS);
    }
    /* destroy once a few WRITEs have landed and more are on their way */
    ndk_counters c;
    uint64_t end = e2e_now_ms() + 10000;
    do {
        EXPECT_STATUS(ndk_query_counters(p.ad, &c), NDK_STATUS_SUCCESS);
    } while (c.dma_write_bytes < 3 * LEN + LEN / 2 && e2e_now_ms() < end);
    EXPECT_STATUS(ndk_destroy_mr(p.b.mr), NDK_STATUS_SUCCESS);
    static uint8_t snap[8 * LEN];
    memcpy(snap, p.b.buf, sizeof snap);
    EXPECT_STATUS(ndk_sim_wait_idle(p.ad, 10000), NDK_STATUS_SUCCESS);
    EXPECT(memcmp(snap, p.b.buf, sizeof snap) == 0, "the NIC wrote into the region after ndk_destroy_mr returned");
    ndk_result_ex r[N + 1];
    uint32_t got = e2e_poll(p.a.icq, r, N, 10000);
    EXPECT(got == N, "%u completions of %u WRITEs", got, N);
    uint32_t ok = 0, failed = 0;
    for (uint32_t i = 0; i < got; i++) {
        EXPECT(r[i].request_context == CTX(i), "completion %u out of posting order", i);
        if (r[i].status == NDK_STATUS_SUCCESS) {
            EXPECT(failed == 0, "WRITE %u succeeded after an earlier one failed", i);
            ok++;
        } else {
            EXPECT_STATUS(r[i].status, failed ? NDK_STATUS_CANCELLED : NDK_STATUS_REMOTE_ACCESS_ERROR);
            failed++;
        }
    }
    printf("destroy_mr: %u WRITEs done, %u refused or flushed\n", ok, failed);
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, r, N + 1) == 0, "more completions than WRITEs");
    /* a stand-in, for e2e_pair_close to destroy */
    EXPECT_STATUS(ndk_create_mr(p.pd, &p.b.mr), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* A destroy while another QP streams WRITEs: it returns as soon as the
 * jobs that were in the NIC at the invalidate are done, not when the stream
 * pauses. With DMA reads that take 300 cycles (as over a board's link, in
 * proportion) the requester's gather takes each WRITE's job while the last
 * one's read is still in flight, so it is never idle between jobs; the MR
 * fence has it drain (take no job while reads are open) until its note
 * clears. Without that, this destroy waited out the whole stream (10 s, then
 * DEVICE_BUSY). */
typedef struct {
    e2e_pair *p;
    _Atomic int stop;
    unsigned posted, done, failed;
} stream_state;

/* take the stream's completions there are now */
static void stream_take(stream_state *st)
{
    ndk_result_ex r[16];
    uint32_t n = ndk_get_cq_results_ex(st->p->a.icq, r, 16);
    for (uint32_t i = 0; i < n; i++) {
        st->done++;
        st->failed += r[i].status != NDK_STATUS_SUCCESS;
    }
}

static void *stream_writes(void *arg)
{
    stream_state *st = arg;
    e2e_pair *p = st->p;
    ndk_sge g = e2e_sge(&p->a, 0, 64);
    uint32_t rkey = ndk_mr_remote_token(p->b.mr);
    while (!atomic_load(&st->stop)) {
        /* chains of 16, one doorbell each: the requester takes WQEs back to back */
        ndk_status s = ndk_write(p->a.qp, CTX(st->posted), &g, 1, e2e_remote_addr(&p->b, 64 * (st->posted % 64)),
                                 rkey, st->posted % 16 != 15 ? NDK_OP_FLAG_DEFER : 0);
        if (s == NDK_STATUS_SUCCESS)
            st->posted++;
        stream_take(st);
    }
    uint64_t end = e2e_now_ms() + e2e_scaled_ms(10000);
    while (st->done < st->posted && e2e_now_ms() < end)
        stream_take(st);
    return NULL;
}

static void teardown_destroy_mr_during_a_stream_returns_promptly(void)
{
    /* this case's simulator answers DMA reads after 300 cycles */
    const char *old = getenv("QPNIC_SIM_ARGS");
    char *saved = old ? strdup(old) : NULL;
    setenv("QPNIC_SIM_ARGS", "--dma-latency 300", 1);
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    if (saved) {
        setenv("QPNIC_SIM_ARGS", saved, 1);
        free(saved);
    } else {
        unsetenv("QPNIC_SIM_ARGS");
    }
    ndk_mr *other;
    EXPECT_STATUS(ndk_create_mr(p.pd, &other), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(other, p.a.buf + E2E_BUF_BYTES / 2, 4096, NDK_MR_FLAG_ALLOW_REMOTE_READ),
                  NDK_STATUS_SUCCESS);
    static stream_state st;
    memset(&st, 0, sizeof st);
    st.p = &p;
    pthread_t th;
    EXPECT(pthread_create(&th, NULL, stream_writes, &st) == 0, "stream thread not started");
    ndk_counters c;
    uint64_t end = e2e_now_ms() + e2e_scaled_ms(10000);
    do {
        EXPECT_STATUS(ndk_query_counters(p.ad, &c), NDK_STATUS_SUCCESS);
    } while (c.dma_write_bytes < 64 * 256 && e2e_now_ms() < end);
    uint64_t t0 = e2e_now_ms();
    ndk_status ds = ndk_destroy_mr(other);
    uint64_t took = e2e_now_ms() - t0;
    EXPECT_STATUS(ndk_query_counters(p.ad, &c), NDK_STATUS_SUCCESS);
    uint64_t written_then = c.dma_write_bytes;
    atomic_store(&st.stop, 1);
    pthread_join(th, NULL);
    EXPECT_STATUS(ds, NDK_STATUS_SUCCESS);
    EXPECT(took < e2e_scaled_ms(2000), "ndk_destroy_mr took %llu ms during a stream of WRITEs",
           (unsigned long long)took);
    EXPECT(written_then > 64 * 256, "the stream had not started: %llu bytes written",
           (unsigned long long)written_then);
    EXPECT(st.done == st.posted && st.failed == 0, "%u WRITEs posted, %u completed, %u failed", st.posted, st.done,
           st.failed);
    printf("destroy_mr during a stream: %llu ms, %u WRITEs in the stream\n", (unsigned long long)took, st.posted);
    e2e_pair_close(&p);
}

/* A destroy while the FastRegister or Bind that names the object is still
 * in an SQ, held by DEFER: the destroy hands it over and waits until the
 * NIC has executed it, then invalidates. Otherwise the WQE, run later,
 * would write the token table entry again and revive the destroyed
 * object's token over memory given up. Here: b fast-registers a page and
 * binds a window over b's region, both held; both destroys succeed; the
 * two completions come (SUCCESS); afterwards neither token opens anything
 * and no byte moves. */
static void teardown_destroy_waits_for_its_held_fast_register_and_bind(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    void *block;
    uint8_t *page = e2e_pages(&p, 1, &block);
    memset(p.b.buf, 0, 4096);
    uint64_t list[1] = { ndk_dma_address(p.ad, page) };
    const uint64_t base_va = 0x6200000000ull;
    ndk_mr *mr;
    ndk_mw *mw;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_create_mw(p.pd, &mw), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_fast_register(p.b.qp, CTX(1), mr, 1, list, 0, 4096, base_va,
                                    NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_bind(p.b.qp, CTX(2), p.b.mr, mw, (uint64_t)(uintptr_t)p.b.buf, 4096,
                           NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    uint32_t fr_rkey = ndk_mr_remote_token(mr), mw_rkey = ndk_mw_remote_token(mw);
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_mw(mw), NDK_STATUS_SUCCESS);
    /* a SEND without DEFER: it would hand over the chain, were it held */
    ndk_sge rr = e2e_sge(&p.a, 8192, 64), sg = e2e_sge(&p.b, 8192, 16);
    EXPECT_STATUS(ndk_receive(p.a.qp, NULL, &rr, 1), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_send(p.b.qp, CTX(5), &sg, 1, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r[3];
    EXPECT(e2e_poll(p.b.icq, r, 3, 10000) == 3, "the FastRegister, Bind and SEND did not all complete");
    for (int i = 0; i < 3; i++)
        EXPECT(r[i].status == NDK_STATUS_SUCCESS, "b's request %d completed %s", i, ndk_status_str(r[i].status));
    EXPECT(e2e_poll(p.a.rcq, r, 1, 10000) == 1, "the SEND's receive never completed");
    e2e_fill(p.a.buf, 64, 6);
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(3), &g, 1, base_va, fr_rkey, 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, r, 1, 10000) == 1, "the WRITE never completed");
    EXPECT(r[0].status == NDK_STATUS_REMOTE_ACCESS_ERROR,
           "a WRITE with a destroyed fast-registered region's token completed %s", ndk_status_str(r[0].status));
    for (int i = 0; i < 4096; i++)
        EXPECT(page[i] == 0, "byte %d of the destroyed region's page changed", i);
    /* a's QP is in ERROR now: the window's token, from b's side */
    EXPECT_STATUS(ndk_invalidate(p.b.qp, CTX(4), mw_rkey, 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.b.icq, r, 1, 10000) == 1, "the Invalidate never completed");
    EXPECT(r[0].status == NDK_STATUS_INVALID_TOKEN,
           "the destroyed window's token is valid at the NIC (its Invalidate completed %s)",
           ndk_status_str(r[0].status));
    ndk_free_dma(p.ad, block);
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
    static const e2e_case cases[] = {
        { "lifecycle_mr_remote_write_needs_local_write", lifecycle_mr_remote_write_needs_local_write },
        { "lifecycle_destroy_cq_wakes_its_waiter", lifecycle_destroy_cq_wakes_its_waiter },
        { "lifecycle_dead_device_is_reported", lifecycle_dead_device_is_reported },
        { "flush_disconnect_cancels_receives_and_held_chain", flush_disconnect_cancels_receives_and_held_chain },
        { "flush_error_completion_flushes_receives", flush_error_completion_flushes_receives },
        { "flush_destroy_completes_receives", flush_destroy_completes_receives },
        { "teardown_destroy_during_writes_stops_dma", teardown_destroy_during_writes_stops_dma },
        { "reuse_qp_number_refuses_the_old_peers_packets", reuse_qp_number_refuses_the_old_peers_packets },
        { "reuse_cq_number_starts_without_arm_N1_N3", reuse_cq_number_starts_without_arm_N1_N3 },
        { "state_machine_through_a_qps_life", state_machine_through_a_qps_life },
        { "teardown_destroy_mr_during_writes_stops_dma", teardown_destroy_mr_during_writes_stops_dma },
        { "teardown_destroy_mr_during_a_stream_returns_promptly", teardown_destroy_mr_during_a_stream_returns_promptly },
        { "teardown_destroy_waits_for_its_held_fast_register_and_bind",
          teardown_destroy_waits_for_its_held_fast_register_and_bind },
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
