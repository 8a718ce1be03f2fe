/* test_notify.c: notification, rules N1-N8 (and V4, V5, V9), end to end.
 *
 * The arm policy runs in the firmware on the NIC's soft core; the callbacks
 * run on libqpnic's event thread. Every CQ of these tests has the recording
 * callback of e2e.c, which also fails the test if two callbacks ever overlap
 * (N5). Completions are made on side b's receive CQ by SENDs from side a:
 * a plain send, a solicited one, or an oversized one that fails the receive
 * (an error completion).
 */
#include "e2e.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

enum kind { PLAIN, SOLICITED, ERROR };

/* Make one receive completion of the given kind on b.rcq. */
static void make_receive(e2e_pair *p, enum kind k, uint32_t i)
{
    ndk_sge rg = e2e_sge(&p->b, 4096 + i * 64, 32);
    EXPECT_STATUS(ndk_receive(p->b.qp, (void *)(uintptr_t)(i + 1), &rg, 1), NDK_STATUS_SUCCESS);
    /* an error: 48 bytes into a 32-byte receive buffer */
    ndk_sge sg = e2e_sge(&p->a, i * 64, k == ERROR ? 48 : 16);
    uint32_t flags = k == SOLICITED ? NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT : 0;
    EXPECT_STATUS(ndk_send(p->a.qp, (void *)(uintptr_t)(i + 1), &sg, 1, flags), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p->a.icq, &r, 1, 10000) == 1, "the send did not complete");
    EXPECT_STATUS(ndk_sim_wait_idle(p->ad, 10000), NDK_STATUS_SUCCESS);
}

static unsigned calls(e2e_cb *cb) { return atomic_load(&cb->calls); }

static void settle(e2e_pair *p)
{
    EXPECT_STATUS(ndk_sim_wait_idle(p->ad, 10000), NDK_STATUS_SUCCESS);
    usleep(20000); /* the event thread had its chance to run a callback */
}

static void N1_V4_no_arm_no_callback_but_completions_poll(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    make_receive(&p, PLAIN, 0);
    make_receive(&p, SOLICITED, 1);
    settle(&p);
    EXPECT(calls(&p.b.rcq_cb) == 0, "a callback ran without an arm");
    ndk_result_ex r[4];
    EXPECT(ndk_get_cq_results_ex(p.b.rcq, r, 4) == 2, "completions of an unarmed CQ did not poll");
    e2e_pair_close(&p);
}

static void N1_one_callback_per_arm(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY);
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY); /* arming twice queues nothing more (V4) */
    for (uint32_t i = 0; i < 3; i++)
        make_receive(&p, PLAIN, i);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 1, 5000) >= 1, "no callback for the arm");
    settle(&p);
    EXPECT(calls(&p.b.rcq_cb) == 1, "%u callbacks for one arm, expected 1", calls(&p.b.rcq_cb));
    EXPECT(atomic_load(&p.b.rcq_cb.last_status) == NDK_STATUS_SUCCESS, "callback status not SUCCESS");
    e2e_pair_close(&p);
}

static void N2_arm_fires_on_a_completion_and_is_cleared(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY);
    settle(&p);
    EXPECT(calls(&p.b.rcq_cb) == 0, "an arm of an empty CQ fired");
    make_receive(&p, PLAIN, 0);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 1, 5000) == 1, "the arm did not fire on a completion");
    /* cleared: the next completion, without a new arm, calls nothing */
    make_receive(&p, PLAIN, 1);
    settle(&p);
    EXPECT(calls(&p.b.rcq_cb) == 1, "a cleared arm fired again");
    e2e_pair_close(&p);
}

/* The NIC counts, per notification, the cycles from the newest CQE of the
 * notified CQ to the notification leaving it (ndk_counters.ntf_latency_*).
 * An arm waiting on an empty CQ, then one completion: the latency is the
 * firmware's whole path, CQE event to NOTIFY, a few hundred cycles. */
static void N2_notification_latency_is_counted(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY);
    settle(&p);
    ndk_counters c0, c1;
    EXPECT_STATUS(ndk_query_counters(p.ad, &c0), NDK_STATUS_SUCCESS);
    make_receive(&p, PLAIN, 0);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 1, 5000) == 1, "the arm did not fire on a completion");
    EXPECT_STATUS(ndk_query_counters(p.ad, &c1), NDK_STATUS_SUCCESS);
    uint64_t n = c1.notifications - c0.notifications;
    uint64_t lat = c1.ntf_latency_sum - c0.ntf_latency_sum;
    EXPECT(n == 1, "%llu notifications counted for one callback", (unsigned long long)n);
    printf("N2: notification latency %llu cycles (max so far %llu)\n", (unsigned long long)lat,
           (unsigned long long)c1.ntf_latency_max);
    EXPECT(lat > 0 && lat < 2000, "latency %llu cycles: want 0 < latency < 2000", (unsigned long long)lat);
    EXPECT(c1.ntf_latency_max >= lat, "max %llu below this notification's %llu",
           (unsigned long long)c1.ntf_latency_max, (unsigned long long)lat);
    e2e_pair_close(&p);
}

static void N3_arm_with_new_completions_is_satisfied_at_once(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    make_receive(&p, PLAIN, 0); /* queued, never seen by a callback */
    settle(&p);
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 1, 5000) == 1,
           "arming a CQ holding a new completion did not fire at once");
    /* and again after a callback: a completion that came after it */
    make_receive(&p, PLAIN, 1);
    settle(&p);
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 2, 5000) == 2,
           "a completion newer than the last callback did not satisfy the arm at once");
    e2e_pair_close(&p);
}

/* N4 leaves the choice open; qpnic chooses "not at once" (fw/arm_policy.h). */
static void N4_arm_with_only_old_completions_waits(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY);
    make_receive(&p, PLAIN, 0);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 1, 5000) == 1, "the first arm did not fire");
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY); /* the CQ holds only the old completion */
    settle(&p);
    EXPECT(calls(&p.b.rcq_cb) == 1, "an arm was satisfied by a completion already seen");
    make_receive(&p, PLAIN, 1);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 2, 5000) == 2, "the arm did not fire on a new completion");
    e2e_pair_close(&p);
}

static void N5_callbacks_never_overlap(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    /* two CQs fire together; each callback lingers 30 ms; e2e_record_cb
     * fails the process if it finds the other one running */
    p.b.rcq_cb.sleep_us = 30000;
    p.a.icq_cb.sleep_us = 30000;
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY);
    ndk_arm_cq(p.a.icq, NDK_CQ_NOTIFY_ANY);
    make_receive(&p, PLAIN, 0);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 1, 5000) == 1, "receive CQ callback missing");
    EXPECT(e2e_wait_calls(&p.a.icq_cb, 1, 5000) == 1, "initiator CQ callback missing");
    e2e_pair_close(&p);
}

static void N5_callback_may_poll_and_rearm_its_cq(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    p.b.rcq_cb.rearm_trigger = NDK_CQ_NOTIFY_ANY;
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ANY);
    for (uint32_t i = 0; i < 4; i++) {
        make_receive(&p, PLAIN, i);
        EXPECT(e2e_wait_calls(&p.b.rcq_cb, i + 1, 5000) == i + 1,
               "callback %u missing after a re-arm from inside the callback", i + 1);
    }
    EXPECT(atomic_load(&p.b.rcq_cb.polled) == 4, "the callbacks polled %u results, expected 4",
           atomic_load(&p.b.rcq_cb.polled));
    e2e_pair_close(&p);
}

/* N6: arm twice, then make completions from the least to the most
 * exciting; the merged arm must fire exactly at the first one it accepts. */
static uint32_t merged_trigger(uint32_t a, uint32_t b)
{
    if (a == NDK_CQ_NOTIFY_ANY || b == NDK_CQ_NOTIFY_ANY)
        return NDK_CQ_NOTIFY_ANY;
    if (a == NDK_CQ_NOTIFY_SOLICITED || b == NDK_CQ_NOTIFY_SOLICITED)
        return NDK_CQ_NOTIFY_SOLICITED;
    return NDK_CQ_NOTIFY_ERRORS;
}

static void check_merge(uint32_t first, uint32_t second)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint32_t m = merged_trigger(first, second);
    ndk_arm_cq(p.b.rcq, first);
    ndk_arm_cq(p.b.rcq, second);
    static const char *kname[] = {"plain", "solicited", "error"};
    /* the kind at which the merged arm must fire (N7 of the merged trigger) */
    enum kind fires_at = m == NDK_CQ_NOTIFY_ANY ? PLAIN : m == NDK_CQ_NOTIFY_SOLICITED ? SOLICITED : ERROR;
    for (int k = PLAIN; k <= ERROR; k++) {
        make_receive(&p, (enum kind)k, (uint32_t)k);
        settle(&p);
        unsigned want = k >= (int)fires_at ? 1 : 0;
        if (want)
            (void)e2e_wait_calls(&p.b.rcq_cb, want, 5000);
        EXPECT(calls(&p.b.rcq_cb) == want,
               "N6: arm %u then %u (merged %u): after a %s completion %u callbacks, expected %u",
               first, second, m, kname[k], calls(&p.b.rcq_cb), want);
    }
    e2e_pair_close(&p);
}

#define MERGE_CASE(a, b)                                                        \
    static void N6_merge_##a##_then_##b(void)                                   \
    {                                                                           \
        check_merge(NDK_CQ_NOTIFY_##a, NDK_CQ_NOTIFY_##b);                      \
    }
MERGE_CASE(ANY, ANY)
MERGE_CASE(ANY, ERRORS)
MERGE_CASE(ANY, SOLICITED)
MERGE_CASE(ERRORS, ANY)
MERGE_CASE(ERRORS, ERRORS)
MERGE_CASE(ERRORS, SOLICITED)
MERGE_CASE(SOLICITED, ANY)
MERGE_CASE(SOLICITED, ERRORS)
MERGE_CASE(SOLICITED, SOLICITED)

/* N7 and V5, one arm each: ERRORS only on an error; SOLICITED on a solicited
 * receive or an error; ANY on anything. */
static void N7_errors_trigger_ignores_successes(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_ERRORS);
    make_receive(&p, PLAIN, 0);
    make_receive(&p, SOLICITED, 1);
    settle(&p);
    EXPECT(calls(&p.b.rcq_cb) == 0, "ERRORS fired on a successful completion");
    make_receive(&p, ERROR, 2);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 1, 5000) == 1, "ERRORS did not fire on an error completion");
    ndk_result_ex r[4];
    EXPECT(ndk_get_cq_results_ex(p.b.rcq, r, 4) == 3, "three receive completions expected");
    EXPECT(r[2].status != NDK_STATUS_SUCCESS, "the oversized receive did not fail");
    e2e_pair_close(&p);
}

static void N7_V5_solicited_trigger_waits_for_a_solicited_receive(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_arm_cq(p.b.rcq, NDK_CQ_NOTIFY_SOLICITED);
    make_receive(&p, PLAIN, 0);
    settle(&p);
    EXPECT(calls(&p.b.rcq_cb) == 0, "SOLICITED fired on an unsolicited receive");
    make_receive(&p, SOLICITED, 1);
    EXPECT(e2e_wait_calls(&p.b.rcq_cb, 1, 5000) == 1, "SOLICITED did not fire on a solicited receive");
    ndk_result_ex r[4];
    EXPECT(ndk_get_cq_results_ex(p.b.rcq, r, 4) == 2, "two receive completions expected");
    e2e_pair_close(&p);
}

static void N7_any_trigger_fires_on_success(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_arm_cq(p.a.icq, NDK_CQ_NOTIFY_ANY);
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0),
                            ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_wait_calls(&p.a.icq_cb, 1, 5000) == 1, "ANY did not fire on a successful write");
    e2e_pair_close(&p);
}

/* N8 and V2: a CQ shared by both QPs, too small for what they post. The
 * overrun reaches the callback as BUFFER_OVERFLOW without any arm; the CQEs
 * that fit stay, the ones beyond are dropped (docs/conformance.md). */
static void N8_V2_overrun_is_reported_never_silent(void)
{
    e2e_pair p;
    e2e_opts o = {.cq_depth = 4, .share_cq = 1};
    e2e_pair_open(&p, &o);
    for (uint32_t i = 0; i < 6; i++) {
        ndk_sge g = e2e_sge(&p.a, i * 64, 64);
        EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, i * 64),
                                ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
    }
    EXPECT(e2e_wait_calls(&p.a.icq_cb, 1, 5000) == 1, "an overrun produced no callback");
    EXPECT(atomic_load(&p.a.icq_cb.last_status) == NDK_STATUS_BUFFER_OVERFLOW,
           "overrun callback status %s, expected BUFFER_OVERFLOW",
           ndk_status_str(atomic_load(&p.a.icq_cb.last_status)));
    ndk_result_ex r[8];
    uint32_t n = e2e_settle_and_poll(&p, p.a.icq, r, 8);
    EXPECT(n == 4, "%u completions kept in a 4-deep CQ after its overrun, expected 4", n);
    e2e_pair_close(&p);
}

/* N8 with the consumer index record: a 4-deep CQ filled and emptied eight
 * times over. Taking completions writes no register (the CI goes to the
 * CQ's record in host memory); each time the NIC's own copy of CI says the
 * CQ is full it reads the record instead of declaring an overrun. So no
 * overrun, every completion arrives, and polling cost no register write. */
static void N8_polled_cq_reads_the_ci_record_not_a_register(void)
{
    e2e_pair p;
    e2e_opts o = {.cq_depth = 4};
    e2e_pair_open(&p, &o);
    uint64_t poll_writes = 0;
    uint32_t total = 0;
    for (uint32_t round = 0; round < 8; round++) {
        for (uint32_t i = 0; i < 4; i++) {
            ndk_sge g = e2e_sge(&p.a, i * 64, 64);
            EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, i * 64),
                                    ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
        }
        ndk_result_ex r[4];
        uint64_t w0 = ndk_sim_mmio_writes(p.ad);
        uint32_t n = e2e_poll(p.a.icq, r, 4, 5000);
        poll_writes += ndk_sim_mmio_writes(p.ad) - w0;
        EXPECT(n == 4, "round %u: %u of 4 completions arrived in a 4-deep CQ", round, n);
        for (uint32_t i = 0; i < n; i++)
            EXPECT_STATUS(r[i].status, NDK_STATUS_SUCCESS);
        total += n;
    }
    EXPECT(total == 32, "%u of 32 completions", total);
    EXPECT(poll_writes == 0, "taking completions made %llu register writes", (unsigned long long)poll_writes);
    EXPECT(atomic_load(&p.a.icq_cb.calls) == 0, "a callback (overrun?) with status %s on a CQ that was polled",
           ndk_status_str(atomic_load(&p.a.icq_cb.last_status)));
    e2e_pair_close(&p);
}

/* V9: ndk_wait_cq blocks without spinning until the notification. */
struct poster { e2e_pair *p; };

static void *post_later(void *arg)
{
    struct poster *ps = arg;
    usleep(100000);
    ndk_sge g = e2e_sge(&ps->p->a, 0, 8);
    if (ndk_write(ps->p->a.qp, NULL, &g, 1, e2e_remote_addr(&ps->p->b, 0),
                  ndk_mr_remote_token(ps->p->b.mr), 0) != NDK_STATUS_SUCCESS)
        fprintf(stderr, "post_later: write failed\n");
    return NULL;
}

static void V9_wait_blocks_until_the_notification(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    EXPECT_STATUS(ndk_wait_cq(p.a.icq, 10), NDK_STATUS_INVALID_DEVICE_STATE);
    ndk_arm_cq(p.a.icq, NDK_CQ_NOTIFY_ANY);
    EXPECT_STATUS(ndk_wait_cq(p.a.icq, 50), NDK_STATUS_TIMEOUT);
    struct poster ps = {&p};
    pthread_t t;
    pthread_create(&t, NULL, post_later, &ps);
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    EXPECT_STATUS(ndk_wait_cq(p.a.icq, 10000), NDK_STATUS_SUCCESS);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    pthread_join(t, NULL);
    double cpu_ms = (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) / 1e6;
    printf("V9: waited ~100 ms using %.2f ms of CPU\n", cpu_ms);
    EXPECT(cpu_ms < 20.0, "ndk_wait_cq used %.1f ms of CPU in a 100 ms wait: it spins", cpu_ms);
    ndk_result_ex r;
    EXPECT(ndk_get_cq_results_ex(p.a.icq, &r, 1) == 1, "the completion did not poll after the wait");
    e2e_pair_close(&p);
}

/* C1: the consumer serializes GetCqResults, GetCqResultsEx and ArmCq on one
 * CQ; the provider need not lock them against each other. Three consumer
 * threads take turns under the consumer's own mutex, each with another of
 * the three calls, on one CQ while the NIC completes C1_OPS WRITEs: every
 * completion is taken exactly once, by whichever call came, in posting
 * order, and none is lost or doubled. */
#define C1_OPS 512u
typedef struct {
    ndk_cq *cq;
    pthread_mutex_t lock;            /* the consumer's serialization (C1) */
    unsigned seen[C1_OPS];           /* completions taken, per request */
    unsigned taken, next, bad_order, bad_status;
    int stop;
} c1_state;

static void c1_take(c1_state *st, ndk_status status, void *ctx)
{
    uintptr_t i = (uintptr_t)ctx - 1;
    if (i < C1_OPS) st->seen[i]++;
    if (i != st->next) st->bad_order++;  /* completions are in posting order */
    if (status != NDK_STATUS_SUCCESS) st->bad_status++;
    st->next = (unsigned)i + 1;
    st->taken++;
}

typedef struct { c1_state *st; int call; } c1_arg;

static void *c1_consumer(void *a)
{
    c1_arg *arg = a;
    c1_state *st = arg->st;
    for (;;) {
        pthread_mutex_lock(&st->lock);
        if (st->stop) {
            pthread_mutex_unlock(&st->lock);
            return NULL;
        }
        if (arg->call == 0) {
            ndk_result r[3];
            uint32_t n = ndk_get_cq_results(st->cq, r, 3);
            for (uint32_t k = 0; k < n; k++) c1_take(st, r[k].status, r[k].request_context);
        } else {
            if (arg->call == 2) ndk_arm_cq(st->cq, NDK_CQ_NOTIFY_ANY);
            ndk_result_ex r[2];
            uint32_t n = ndk_get_cq_results_ex(st->cq, r, 2);
            for (uint32_t k = 0; k < n; k++) c1_take(st, r[k].status, r[k].request_context);
        }
        pthread_mutex_unlock(&st->lock);
        sched_yield();
    }
}

static void C1_consumer_serialized_calls_from_three_threads(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    static c1_state st;
    memset(&st, 0, sizeof st);
    st.cq = p.a.icq;
    pthread_mutex_init(&st.lock, NULL);
    pthread_t th[3];
    c1_arg args[3];
    for (int t = 0; t < 3; t++) {
        args[t] = (c1_arg){&st, t};
        EXPECT(pthread_create(&th[t], NULL, c1_consumer, &args[t]) == 0, "thread %d not started", t);
    }
    /* each wait is for progress (a post taken, a completion taken), not
     * for the whole run: over a board's serial line the run takes a while */
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    uint64_t limit = e2e_scaled_ms(30000);
    uint64_t t0 = e2e_now_ms();
    for (uint32_t i = 0; i < C1_OPS;) {
        ndk_status s = ndk_write(p.a.qp, (void *)(uintptr_t)(i + 1), &g, 1, e2e_remote_addr(&p.b, 0),
                                 ndk_mr_remote_token(p.b.mr), 0);
        if (s == NDK_STATUS_INSUFFICIENT_RESOURCES) {   /* SQ full: the consumers free it */
            EXPECT(e2e_now_ms() - t0 < limit, "SQ stayed full: completions not taken");
            sched_yield();
            continue;
        }
        EXPECT_STATUS(s, NDK_STATUS_SUCCESS);
        i++;
        t0 = e2e_now_ms();
    }
    unsigned last = 0;
    for (;;) {
        pthread_mutex_lock(&st.lock);
        unsigned taken = st.taken;
        pthread_mutex_unlock(&st.lock);
        if (taken != last) {
            last = taken;
            t0 = e2e_now_ms();
        }
        if (taken >= C1_OPS || e2e_now_ms() - t0 > limit) break;
        usleep(1000);
    }
    pthread_mutex_lock(&st.lock);
    st.stop = 1;
    pthread_mutex_unlock(&st.lock);
    for (int t = 0; t < 3; t++) pthread_join(th[t], NULL);
    EXPECT(st.taken == C1_OPS, "%u of %u completions taken", st.taken, C1_OPS);
    for (uint32_t i = 0; i < C1_OPS; i++)
        EXPECT(st.seen[i] == 1, "request %u completed %u times", i, st.seen[i]);
    EXPECT(st.bad_order == 0, "%u completions out of posting order", st.bad_order);
    EXPECT(st.bad_status == 0, "%u completions not SUCCESS", st.bad_status);
    pthread_mutex_destroy(&st.lock);
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
#define C(f) {#f, f}
    static const e2e_case cases[] = {
        C(N1_V4_no_arm_no_callback_but_completions_poll),
        C(N1_one_callback_per_arm),
        C(N2_arm_fires_on_a_completion_and_is_cleared),
        C(N2_notification_latency_is_counted),
        C(N3_arm_with_new_completions_is_satisfied_at_once),
        C(N4_arm_with_only_old_completions_waits),
        C(N5_callbacks_never_overlap),
        C(N5_callback_may_poll_and_rearm_its_cq),
        C(N6_merge_ANY_then_ANY), C(N6_merge_ANY_then_ERRORS), C(N6_merge_ANY_then_SOLICITED),
        C(N6_merge_ERRORS_then_ANY), C(N6_merge_ERRORS_then_ERRORS),
        C(N6_merge_ERRORS_then_SOLICITED), C(N6_merge_SOLICITED_then_ANY),
        C(N6_merge_SOLICITED_then_ERRORS), C(N6_merge_SOLICITED_then_SOLICITED),
        C(N7_errors_trigger_ignores_successes),
        C(N7_V5_solicited_trigger_waits_for_a_solicited_receive),
        C(N7_any_trigger_fires_on_success),
        C(N8_V2_overrun_is_reported_never_silent),
        C(N8_polled_cq_reads_the_ci_record_not_a_register),
        C(V9_wait_blocks_until_the_notification),
        C(C1_consumer_serialized_calls_from_three_threads),
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
