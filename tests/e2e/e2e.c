/* e2e.c: the shared part of the end-to-end tests (see e2e.h). */
#include "e2e.h"

#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

unsigned e2e_case_timeout_s = 60;

void e2e_fail(void)
{
    /* Each case runs in its own child process (e2e_run): failing ends it,
     * and the parent reports it. The adapter's simulator gets SIGTERM from
     * its parent-death signal. */
    fflush(stdout);
    _exit(1);
}

uint64_t e2e_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

unsigned e2e_env_uint(const char *name, unsigned dflt)
{
    const char *v = getenv(name);
    return v ? (unsigned)strtoul(v, NULL, 0) : dflt;
}

uint8_t *e2e_pages(e2e_pair *p, uint32_t pages, void **block)
{
    *block = ndk_alloc_dma(p->ad, (size_t)(pages + 1) * 4096u);
    EXPECT(*block != NULL, "ndk_alloc_dma of %u pages", pages + 1);
    uint8_t *first = (uint8_t *)(((uintptr_t)*block + 4095u) & ~(uintptr_t)4095u);
    memset(first, 0, (size_t)pages * 4096u);
    return first;
}

void e2e_fill(uint8_t *b, uint32_t len, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1u;
    for (uint32_t i = 0; i < len; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        b[i] = (uint8_t)x;
    }
}

static _Atomic int g_callbacks_running;

void e2e_record_cb(void *fn_ctx, ndk_status cq_status)
{
    e2e_cb *cb = fn_ctx;
    /* N5: callbacks are serialized, never two at once, never nested. */
    if (atomic_fetch_add(&g_callbacks_running, 1) != 0) {
        fprintf(stderr, "FAIL: N5: a callback started while another was running\n");
        e2e_fail();
    }
    atomic_store(&cb->last_status, cq_status);
    if (cb->sleep_us)
        usleep(cb->sleep_us);
    if (cb->rearm_trigger >= 0) {
        ndk_result_ex r[16];
        uint32_t n;
        while ((n = ndk_get_cq_results_ex(cb->cq, r, 16)) > 0)
            atomic_fetch_add(&cb->polled, n);
        ndk_arm_cq(cb->cq, (uint32_t)cb->rearm_trigger);
    }
    atomic_fetch_add(&cb->calls, 1);
    atomic_fetch_sub(&g_callbacks_running, 1);
}

/* Waits for the NIC scaled by $QPNIC_E2E_TIMEOUT_SCALE (default 1): over a
 * board's serial line a request takes milliseconds, and on an impaired one
 * a lost frame waits out a retransmission timeout. */
uint64_t e2e_scaled_ms(int timeout_ms)
{
    static unsigned scale;
    if (!scale)
        scale = e2e_env_uint("QPNIC_E2E_TIMEOUT_SCALE", 1);
    return (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * (scale ? scale : 1);
}

unsigned e2e_wait_calls(e2e_cb *cb, unsigned n, int timeout_ms)
{
    uint64_t end = e2e_now_ms() + e2e_scaled_ms(timeout_ms);
    while (atomic_load(&cb->calls) < n && e2e_now_ms() < end)
        usleep(200);
    return atomic_load(&cb->calls);
}

static void cq_open(ndk_adapter *ad, uint32_t depth, e2e_cb *cb, ndk_cq **out)
{
    cb->rearm_trigger = -1;
    ndk_status st = ndk_create_cq(ad, depth, e2e_record_cb, cb, out);
    EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
    cb->cq = *out;
}

static void side_open(e2e_pair *p, e2e_side *s, const e2e_opts *o)
{
    uint32_t cq_depth = o->cq_depth ? o->cq_depth : 64;
    ndk_status st;
    ndk_adapter *ad = s == &p->b ? p->ad_b : p->ad;
    ndk_pd *pd = s == &p->b ? p->pd_b : p->pd;

    if (o->share_cq && s == &p->b) {
        s->rcq = p->a.rcq;
        s->icq = p->a.icq;
    } else {
        cq_open(ad, cq_depth, &s->rcq_cb, &s->rcq);
        cq_open(ad, cq_depth, &s->icq_cb, &s->icq);
    }

    ndk_qp_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.sq_depth = o->sq_depth ? o->sq_depth : 64;
    attr.rq_depth = o->rq_depth ? o->rq_depth : 64;
    attr.max_sge = 3;
    st = ndk_create_qp(pd, s->rcq, s->icq, s, &attr, &s->qp);
    EXPECT_STATUS(st, NDK_STATUS_SUCCESS);

    s->buf = ndk_alloc_dma(ad, E2E_BUF_BYTES);
    EXPECT(s->buf != NULL, "ndk_alloc_dma(%u) gave NULL", E2E_BUF_BYTES);
    memset(s->buf, 0, E2E_BUF_BYTES);
    st = ndk_create_mr(pd, &s->mr);
    EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
    st = ndk_register_mr(s->mr, s->buf, E2E_BUF_BYTES,
                         NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ |
                             NDK_MR_FLAG_ALLOW_REMOTE_WRITE);
    EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
}

void e2e_pair_open(e2e_pair *p, const e2e_opts *o)
{
    e2e_opts none;
    memset(&none, 0, sizeof none);
    if (!o)
        o = &none;
    memset(p, 0, sizeof *p);
    /* $QPNIC_URI picks the backend (a board, or the board-level simulator
     * over its tty: make test-board); unset: a private simulator */
    ndk_status st = ndk_open_adapter(getenv("QPNIC_URI"), &p->ad);
    EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
    st = ndk_create_pd(p->ad, &p->pd);
    EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
    p->ad_b = p->ad;
    p->pd_b = p->pd;
    if ((o->two_nics || e2e_env_uint("QPNIC_E2E_TWO_NICS", 0)) && !o->share_cq) {
        st = ndk_open_adapter(getenv("QPNIC_URI"), &p->ad_b);
        EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
        st = ndk_create_pd(p->ad_b, &p->pd_b);
        EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
    }
    side_open(p, &p->a, o);
    side_open(p, &p->b, o);
    if (o->set_rnr) {
        EXPECT_STATUS(ndk_set_rnr_retry(p->a.qp, o->rnr_retry), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_set_rnr_retry(p->b.qp, o->rnr_retry), NDK_STATUS_SUCCESS);
    }
    st = ndk_connect(p->a.qp, ndk_qp_address(p->b.qp));
    EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
    st = ndk_connect(p->b.qp, ndk_qp_address(p->a.qp));
    EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
}

static void side_close(e2e_side *s, ndk_adapter *ad, int own_cqs)
{
    EXPECT_STATUS(ndk_destroy_mr(s->mr), NDK_STATUS_SUCCESS);
    if (own_cqs) {
        EXPECT_STATUS(ndk_destroy_cq(s->rcq), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_destroy_cq(s->icq), NDK_STATUS_SUCCESS);
    }
    ndk_free_dma(ad, s->buf);
}

void e2e_expect_no_refused_dma(ndk_adapter *ad, const char *when)
{
    uint32_t violations = 0;
    uint64_t first = 0;
    ndk_status st = ndk_sim_dma_violations(ad, &violations, &first);
    EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
    EXPECT(violations == 0, "%s: the NIC made %u DMA accesses outside registered memory, "
           "the first at device address 0x%llx", when, violations, (unsigned long long)first);
}

void e2e_pair_close(e2e_pair *p)
{
    int two = p->ad_b != p->ad;
    e2e_expect_no_refused_dma(p->ad, "before teardown");
    if (two)
        e2e_expect_no_refused_dma(p->ad_b, "before teardown (the second NIC)");
    /* V10: QPs go before the CQs they report to. */
    EXPECT_STATUS(ndk_destroy_qp(p->a.qp), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_qp(p->b.qp), NDK_STATUS_SUCCESS);
    side_close(&p->b, p->ad_b, p->b.rcq != p->a.rcq);
    side_close(&p->a, p->ad, 1);
    EXPECT_STATUS(ndk_destroy_pd(p->pd), NDK_STATUS_SUCCESS);
    if (two)
        EXPECT_STATUS(ndk_destroy_pd(p->pd_b), NDK_STATUS_SUCCESS);
    /* nothing may touch what the destroys gave back */
    EXPECT_STATUS(ndk_sim_wait_idle(p->ad, 10000), NDK_STATUS_SUCCESS);
    e2e_expect_no_refused_dma(p->ad, "after teardown");
    EXPECT_STATUS(ndk_close_adapter(p->ad), NDK_STATUS_SUCCESS);
    if (two) {
        EXPECT_STATUS(ndk_sim_wait_idle(p->ad_b, 10000), NDK_STATUS_SUCCESS);
        e2e_expect_no_refused_dma(p->ad_b, "after teardown (the second NIC)");
        EXPECT_STATUS(ndk_close_adapter(p->ad_b), NDK_STATUS_SUCCESS);
    }
}

ndk_sge e2e_sge(const e2e_side *s, uint32_t off, uint32_t len)
{
    ndk_sge g;
    g.addr = (uint64_t)(uintptr_t)(s->buf + off);
    g.length = len;
    g.token = ndk_mr_local_token(s->mr);
    return g;
}

uint64_t e2e_remote_addr(const e2e_side *s, uint32_t off)
{
    return (uint64_t)(uintptr_t)(s->buf + off);
}

uint32_t e2e_poll(ndk_cq *cq, ndk_result_ex *out, uint32_t n, int timeout_ms)
{
    uint32_t got = 0;
    uint64_t end = e2e_now_ms() + e2e_scaled_ms(timeout_ms);
    while (got < n) {
        got += ndk_get_cq_results_ex(cq, out + got, n - got);
        if (got < n) {
            if (e2e_now_ms() > end)
                break;
            usleep(100);
        }
    }
    return got;
}

ndk_result_ex e2e_expect_one(ndk_cq *cq, ndk_status want, const char *what, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, what);
    vsnprintf(name, sizeof name, what, ap);
    va_end(ap);
    ndk_result_ex r;
    memset(&r, 0, sizeof r);
    EXPECT(e2e_poll(cq, &r, 1, 10000) == 1, "%s never completed", name);
    EXPECT(r.status == want, "%s: status %s, expected %s", name, ndk_status_str(r.status),
           ndk_status_str(want));
    return r;
}

uint32_t e2e_settle_and_poll(e2e_pair *p, ndk_cq *cq, ndk_result_ex *out, uint32_t n)
{
    /* two NICs: each idle, twice over (a frame between them, out of one
     * and not yet into the other, shows in neither) */
    for (int round = 0; round < (p->ad_b != p->ad ? 2 : 1); round++) {
        EXPECT_STATUS(ndk_sim_wait_idle(p->ad, 10000), NDK_STATUS_SUCCESS);
        if (p->ad_b != p->ad)
            EXPECT_STATUS(ndk_sim_wait_idle(p->ad_b, 10000), NDK_STATUS_SUCCESS);
    }
    return ndk_get_cq_results_ex(cq, out, n);
}

int e2e_run(const e2e_case *cases, size_t n, int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    unsigned passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (only && !strstr(cases[i].name, only))
            continue;
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            alarm(e2e_case_timeout_s);
            cases[i].fn();
            fflush(stdout);
            _exit(0);
        }
        int ws = 0;
        waitpid(pid, &ws, 0);
        if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) {
            printf("PASS %s\n", cases[i].name);
            passed++;
        } else {
            if (WIFSIGNALED(ws))
                fprintf(stderr, "FAIL %s: killed by signal %d%s\n", cases[i].name,
                        WTERMSIG(ws), WTERMSIG(ws) == SIGALRM ? " (timed out)" : "");
            printf("FAIL %s\n", cases[i].name);
            failed++;
        }
    }
    printf("%s: %u passed, %u failed\n", argv[0], passed, failed);
    return failed ? 1 : 0;
}
