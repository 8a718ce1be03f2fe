/* test_notify_stress.c: N5 under stress.
 *
 * Six CQs, each the CQ of one connected pair of QPs; the main thread keeps
 * every SQ busy with WRITEs for QPNIC_N5_SECONDS of wall-clock time
 * (default 60) while each CQ's callback drains its CQ and re-arms it from
 * inside the callback, the only consumer of that CQ. Checked: callbacks
 * never overlap or nest (N5), never outnumber the arms (N1), every WRITE's
 * completion is taken exactly once, in posting order per QP, and when the
 * traffic stops every CQ ends empty: no notification was missed (a CQE
 * after a re-arm that raised no callback would stay in its CQ).
 */
#include "e2e.h"

#include <sched.h>
#include <unistd.h>

#define NCQ 6
#define MAX_OPS (1u << 22)

typedef struct {
    ndk_cq *cq;
    _Atomic unsigned calls, arms, taken;
    int64_t last_id;           /* the last request taken (one initiator QP per CQ) */
} stress_cq;

static stress_cq cqs[NCQ];
static _Atomic int running;
static _Atomic unsigned char *seen;   /* per request id: completions taken */

static void on_cq(void *fn_ctx, ndk_status status)
{
    stress_cq *s = fn_ctx;
    if (atomic_fetch_add(&running, 1) != 0) {
        fprintf(stderr, "FAIL: N5: a callback started while another was running\n");
        e2e_fail();
    }
    unsigned calls = atomic_fetch_add(&s->calls, 1) + 1;
    if (calls > atomic_load(&s->arms)) {
        fprintf(stderr, "FAIL: N1: callback %u on a CQ armed %u times\n", calls, atomic_load(&s->arms));
        e2e_fail();
    }
    if (status != NDK_STATUS_SUCCESS) {
        fprintf(stderr, "FAIL: a callback with %s\n", ndk_status_str(status));
        e2e_fail();
    }
    ndk_result_ex r[32];
    uint32_t n;
    while ((n = ndk_get_cq_results_ex(s->cq, r, 32)) > 0)
        for (uint32_t i = 0; i < n; i++) {
            uintptr_t v = (uintptr_t)r[i].request_context;
            uint32_t id = (uint32_t)(v >> 8);
            if (r[i].status != NDK_STATUS_SUCCESS || id >= MAX_OPS) {
                fprintf(stderr, "FAIL: completion %p: %s\n", r[i].request_context,
                        ndk_status_str(r[i].status));
                e2e_fail();
            }
            if ((int64_t)id <= s->last_id) {
                fprintf(stderr, "FAIL: request %u completed after %lld (posting order)\n", id,
                        (long long)s->last_id);
                e2e_fail();
            }
            s->last_id = id;
            atomic_fetch_add(&seen[id], 1);
            atomic_fetch_add(&s->taken, 1);
        }
    atomic_fetch_add(&s->arms, 1); /* before the NIC can answer it */
    ndk_arm_cq(s->cq, NDK_CQ_NOTIFY_ANY);
    atomic_fetch_sub(&running, 1);
}

static void N5_stress_six_cqs_callbacks_drain_and_rearm(void)
{
    unsigned seconds = e2e_env_uint("QPNIC_N5_SECONDS", 60);
    seen = calloc(MAX_OPS, 1);
    EXPECT(seen != NULL, "calloc");
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_qp *init[NCQ], *targ[NCQ];
    for (int c = 0; c < NCQ; c++) {
        cqs[c].last_id = -1;
        EXPECT_STATUS(ndk_create_cq(p.ad, 256, on_cq, &cqs[c], &cqs[c].cq), NDK_STATUS_SUCCESS);
        for (int k = 0; k < 2; k++) {
            ndk_qp_attr attr = {.sq_depth = 32, .rq_depth = 2, .max_sge = 1, .max_inline = 0};
            EXPECT_STATUS(ndk_create_qp(p.pd, cqs[c].cq, cqs[c].cq, &cqs[c], &attr, k ? &targ[c] : &init[c]),
                          NDK_STATUS_SUCCESS);
        }
        EXPECT_STATUS(ndk_connect(init[c], ndk_qp_address(targ[c])), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_connect(targ[c], ndk_qp_address(init[c])), NDK_STATUS_SUCCESS);
        atomic_fetch_add(&cqs[c].arms, 1);
        ndk_arm_cq(cqs[c].cq, NDK_CQ_NOTIFY_ANY);
    }
    uint32_t rkey = ndk_mr_remote_token(p.b.mr);
    uint64_t end = e2e_now_ms() + 1000ull * seconds;
    uint32_t posted = 0, full = 0;
    uint64_t c0 = ndk_sim_cycles(p.ad);
    while (e2e_now_ms() < end && posted < MAX_OPS) {
        int c = (int)(posted % NCQ);
        ndk_sge g = e2e_sge(&p.a, 64u * (posted % 64), 64);
        ndk_status st = ndk_write(init[c], (void *)(uintptr_t)(((uintptr_t)posted << 8) | 1u), &g, 1,
                                  e2e_remote_addr(&p.b, 64u * (posted % 64)), rkey, 0);
        if (st == NDK_STATUS_INSUFFICIENT_RESOURCES) {
            full++;
            sched_yield();
            continue;
        }
        EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
        posted++;
    }
    /* let the callbacks take what is left */
    uint64_t deadline = e2e_now_ms() + 20000;
    unsigned taken = 0;
    while (e2e_now_ms() < deadline) {
        taken = 0;
        for (int c = 0; c < NCQ; c++)
            taken += atomic_load(&cqs[c].taken);
        if (taken == posted)
            break;
        usleep(2000);
    }
    uint64_t cycles = ndk_sim_cycles(p.ad) - c0;
    unsigned calls = 0, arms = 0;
    for (int c = 0; c < NCQ; c++) {
        calls += atomic_load(&cqs[c].calls);
        arms += atomic_load(&cqs[c].arms);
    }
    printf("N5 stress: %u s, %llu cycles, %u WRITEs on %d CQs, %u taken by %u callbacks (%u arms), "
           "SQ full %u times\n", seconds, (unsigned long long)cycles, posted, NCQ, taken, calls, arms, full);
    EXPECT(taken == posted, "%u of %u completions taken: a notification was missed", taken, posted);
    for (uint32_t i = 0; i < posted; i++)
        EXPECT(atomic_load(&seen[i]) == 1, "request %u completed %u times", i, atomic_load(&seen[i]));
    for (int c = 0; c < NCQ; c++) {
        EXPECT_STATUS(ndk_disconnect(init[c]), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_destroy_qp(init[c]), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_destroy_qp(targ[c]), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_destroy_cq(cqs[c].cq), NDK_STATUS_SUCCESS);
    }
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
    e2e_case_timeout_s = e2e_env_uint("QPNIC_N5_SECONDS", 60) + 120;
    static const e2e_case cases[] = {
        { "N5_stress_six_cqs_callbacks_drain_and_rearm", N5_stress_six_cqs_callbacks_drain_and_rearm },
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
