/* tests/fw/test_arm_policy.c: host unit tests of the firmware's notification
 * policy (fw/arm_policy.c).
 *
 * For: checking each notification rule the policy implements (N1, N2, N3,
 * N4, N6, N7, N8), the 16-bit index wraparound, and a randomized run against
 * a naive reference model with unbounded indices.
 * Not for: the registers or the event loop (fw/main.c; see
 * tests/fw/tb_fw_on_core.v for the image on the core).
 *
 * usage: test_arm_policy [SEED]   (the randomized test prints its seed)
 * Prints "PASS <name>" per case, "FAIL <name>: <what>" on a failure, and a
 * closing "N passed, M failed"; exits non-zero when anything failed.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arm_policy.h"
#include "fw_check.h"

static const char *const trig_name[4] = { "ERRORS", "ANY", "SOLICITED", "UNKNOWN3" };
static const char *const act_name[4] = { "NONE", "DISARM", "NOTIFY", "OVERFLOW" };

static const char *act_str(enum arm_action a)
{
    return (unsigned)a < 4 ? act_name[a] : "?";
}

/* A CQ view; a mark index < 0 means no such CQE yet. */
static struct arm_cq_view mkview(uint16_t pi, uint16_t ci, long err, long sol)
{
    struct arm_cq_view v;

    v.pi = pi;
    v.ci = ci;
    v.last_err.valid = err >= 0;
    v.last_err.index = (uint16_t)(err >= 0 ? err : 0);
    v.last_sol.valid = sol >= 0;
    v.last_sol.index = (uint16_t)(sol >= 0 ? sol : 0);
    return v;
}

static void cq_fresh(struct arm_cq *cq)
{
    memset(cq, 0xA5, sizeof *cq); /* arm_cq_init must set every field */
    arm_cq_init(cq);
}

/* ------------------------------------------------------------------ N6 */

/* The table of RULES.md N6, rows first (pending), columns second (new). */
static const uint8_t n6_table[3][3] = {
    /* ERRORS */ { QPNIC_CQ_TRIGGER_ERRORS, QPNIC_CQ_TRIGGER_ANY, QPNIC_CQ_TRIGGER_SOLICITED },
    /* ANY */ { QPNIC_CQ_TRIGGER_ANY, QPNIC_CQ_TRIGGER_ANY, QPNIC_CQ_TRIGGER_ANY },
    /* SOLICITED */ { QPNIC_CQ_TRIGGER_SOLICITED, QPNIC_CQ_TRIGGER_ANY, QPNIC_CQ_TRIGGER_SOLICITED },
};

static uint8_t n6_first, n6_second;

/* One cell: arm, arm again on an empty CQ, then the merged arm must fire on
 * exactly the completions its merged trigger (N7) names. */
static void test_n6_cell(void)
{
    uint8_t want = n6_table[n6_first][n6_second];
    struct arm_cq_view empty = mkview(0, 0, -1, -1);
    static const bool flags[3][2] = { { false, false }, { true, false }, { false, true } };
    struct arm_cq cq;
    enum arm_action a;
    int k;

    CHECK(arm_merge(n6_first, n6_second) == want, "arm_merge(%s, %s) = %s, want %s",
          trig_name[n6_first], trig_name[n6_second],
          trig_name[arm_merge(n6_first, n6_second) & 3], trig_name[want]);
    cq_fresh(&cq);
    a = arm_on_arm(&cq, n6_first, &empty);
    CHECK(a == ARM_ACT_NONE, "first arm on an empty CQ gave %s", act_str(a));
    a = arm_on_arm(&cq, n6_second, &empty);
    CHECK(a == ARM_ACT_NONE, "second arm on an empty CQ gave %s", act_str(a));
    CHECK(cq.pending && cq.trigger == want, "pending %d trigger %s, want pending %s",
          cq.pending, trig_name[cq.trigger & 3], trig_name[want]);
    for (k = 0; k < 3; k++) {
        struct arm_cq c = cq;
        bool fire = arm_on_cqe(&c, flags[k][0], flags[k][1], 0) == ARM_ACT_NOTIFY;
        bool want_fire = want == QPNIC_CQ_TRIGGER_ANY || flags[k][0] ||
                         (want == QPNIC_CQ_TRIGGER_SOLICITED && flags[k][1]);
        CHECK(fire == want_fire, "merged arm %s: %s completion fired=%d, want %d",
              trig_name[want], k == 0 ? "ok" : k == 1 ? "error" : "solicited", fire,
              want_fire);
    }
}

static void run_n6(void)
{
    for (n6_first = 0; n6_first < 3; n6_first++)
        for (n6_second = 0; n6_second < 3; n6_second++) {
            char name[128];
            snprintf(name, sizeof name, "N6_merge_%s_then_%s_is_%s", trig_name[n6_first],
                     trig_name[n6_second], trig_name[n6_table[n6_first][n6_second]]);
            case_begin(name);
            test_n6_cell();
            case_end();
        }
}

/* ------------------------------------------------------------------ N7 */

static uint8_t n7_trigger;
static int n7_kind; /* 0 ok, 1 error, 2 solicited */

static void test_n7_cell(void)
{
    bool error = n7_kind == 1, solicited = n7_kind == 2;
    bool want = n7_trigger == QPNIC_CQ_TRIGGER_ANY || error ||
                (n7_trigger == QPNIC_CQ_TRIGGER_SOLICITED && solicited);
    struct arm_cq_view empty = mkview(7, 7, -1, -1);
    struct arm_cq cq;
    enum arm_action a;

    CHECK(arm_trigger_matches(n7_trigger, error, solicited) == want,
          "arm_trigger_matches says %d, want %d", !want, want);
    cq_fresh(&cq);
    cq.pi_at_cb = 7;
    a = arm_on_arm(&cq, n7_trigger, &empty);
    CHECK(a == ARM_ACT_NONE, "arm on an empty CQ gave %s", act_str(a));
    a = arm_on_cqe(&cq, error, solicited, 7);
    CHECK(a == (want ? ARM_ACT_NOTIFY : ARM_ACT_NONE), "CQE event gave %s, want %s",
          act_str(a), want ? "NOTIFY" : "NONE");
    CHECK(cq.pending == !want, "after the event pending=%d, want %d", cq.pending, !want);
    /* The same completion seen in the view at ARM time decides the same. */
    cq_fresh(&cq);
    cq.pi_at_cb = 7;
    {
        struct arm_cq_view v = mkview(8, 7, error ? 7 : -1, solicited ? 7 : -1);
        a = arm_on_arm(&cq, n7_trigger, &v);
    }
    CHECK(a == (want ? ARM_ACT_NOTIFY : ARM_ACT_NONE), "arm with it in the view gave %s",
          act_str(a));
}

static void run_n7(void)
{
    static const char *const kind[3] = { "ok", "error", "solicited" };
    for (n7_trigger = 0; n7_trigger < 3; n7_trigger++)
        for (n7_kind = 0; n7_kind < 3; n7_kind++) {
            char name[128];
            snprintf(name, sizeof name, "N7_%s_trigger_on_%s_completion", trig_name[n7_trigger],
                     kind[n7_kind]);
            case_begin(name);
            test_n7_cell();
            case_end();
        }
}

/* ------------------------------------------------------------ N1, N2 */

static void N1_no_callback_without_arm(void)
{
    struct arm_cq cq;
    int i;

    cq_fresh(&cq);
    for (i = 0; i < 4; i++) {
        enum arm_action a = arm_on_cqe(&cq, i & 1, i & 2, (uint16_t)i);
        CHECK(a == ARM_ACT_NONE, "CQE %d on an unarmed CQ gave %s", i, act_str(a));
    }
}

static void N1_at_most_once_per_arm(void)
{
    struct arm_cq_view empty = mkview(0, 0, -1, -1);
    struct arm_cq cq;
    enum arm_action a;
    int i;

    cq_fresh(&cq);
    for (i = 0; i < 3; i++) { /* arming several times queues one callback (V4) */
        a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &empty);
        CHECK(a == ARM_ACT_NONE, "arm %d on an empty CQ gave %s", i, act_str(a));
    }
    a = arm_on_cqe(&cq, false, false, 0);
    CHECK(a == ARM_ACT_NOTIFY, "first CQE gave %s, want NOTIFY", act_str(a));
    for (i = 0; i < 3; i++) {
        a = arm_on_cqe(&cq, true, true, (uint16_t)(1 + i));
        CHECK(a == ARM_ACT_NONE, "CQE %d after the callback gave %s, want NONE", i, act_str(a));
    }
}

static void N1_arm_satisfied_at_once_ignores_its_late_event(void)
{
    struct arm_cq_view v = mkview(1, 0, -1, -1);
    struct arm_cq cq;
    enum arm_action a;

    cq_fresh(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &v);
    CHECK(a == ARM_ACT_NOTIFY, "arm with a new CQE in the view gave %s", act_str(a));
    /* The CQE's event, raised because the armed bit was set before the view
     * was read, arrives after: no arm waits, so no second callback. */
    a = arm_on_cqe(&cq, false, false, 0);
    CHECK(a == ARM_ACT_NONE, "the late event gave %s, want NONE", act_str(a));
}

/* Arm twice before a completion; the firmware sees the completion between
 * the two ARM events (the first is satisfied at once). The completion's CQE
 * event, still queued, must not fire the second arm: that callback already
 * covered it (found end to end by N1_one_callback_per_arm). */
static void N1_stale_event_does_not_fire_a_later_arm(void)
{
    struct arm_cq_view v = mkview(1, 0, -1, -1);
    struct arm_cq cq;
    enum arm_action a;

    cq_fresh(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &v);
    CHECK(a == ARM_ACT_NOTIFY, "first arm gave %s, want NOTIFY", act_str(a));
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &v);
    CHECK(a == ARM_ACT_NONE, "second arm with only the seen CQE gave %s, want NONE", act_str(a));
    a = arm_on_cqe(&cq, false, false, 0);
    CHECK(a == ARM_ACT_NONE, "the stale event of CQE 0 gave %s, want NONE", act_str(a));
    a = arm_on_cqe(&cq, false, false, 1);
    CHECK(a == ARM_ACT_NOTIFY, "a new CQE gave %s, want NOTIFY", act_str(a));
}

static void N2_fire_clears_arm_and_records_pi(void)
{
    struct arm_cq_view empty = mkview(4, 4, -1, -1);
    struct arm_cq cq;
    enum arm_action a;

    cq_fresh(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ERRORS, &empty);
    CHECK(a == ARM_ACT_NONE, "arm gave %s", act_str(a));
    a = arm_on_cqe(&cq, false, true, 4);
    CHECK(a == ARM_ACT_NONE && cq.pending, "ok CQE on an ERRORS arm gave %s, pending %d",
          act_str(a), cq.pending);
    a = arm_on_cqe(&cq, true, false, 8);
    CHECK(a == ARM_ACT_NOTIFY, "error CQE gave %s, want NOTIFY", act_str(a));
    CHECK(!cq.pending, "the arm is still pending after its callback");
    CHECK(cq.pi_at_cb == 9, "pi at the callback is %u, want 9", cq.pi_at_cb);
}

/* ------------------------------------------------------------ N3, N4 */

/* A CQ whose last callback was at pi = 5. */
static void cq_after_callback_at_5(struct arm_cq *cq)
{
    struct arm_cq_view v = mkview(4, 0, -1, -1);

    cq_fresh(cq);
    (void)arm_on_arm(cq, QPNIC_CQ_TRIGGER_ERRORS, &v);
    (void)arm_on_cqe(cq, true, false, 4);
}

static void N3_new_completion_satisfies_at_once(void)
{
    struct arm_cq cq;
    struct arm_cq_view v = mkview(8, 5, -1, -1);
    enum arm_action a;

    cq_after_callback_at_5(&cq);
    CHECK(cq.pi_at_cb == 5 && !cq.pending, "setup: pi_at_cb %u pending %d", cq.pi_at_cb,
          cq.pending);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &v);
    CHECK(a == ARM_ACT_NOTIFY, "ANY arm with CQEs 5..7 new gave %s", act_str(a));
    CHECK(!cq.pending && cq.pi_at_cb == 8, "after: pending %d pi_at_cb %u", cq.pending,
          cq.pi_at_cb);
}

static void N3_matching_new_error_satisfies_errors_arm(void)
{
    struct arm_cq cq;
    struct arm_cq_view v = mkview(8, 0, 6, -1);
    enum arm_action a;

    cq_after_callback_at_5(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ERRORS, &v);
    CHECK(a == ARM_ACT_NOTIFY, "error at 6 after the callback at 5 gave %s", act_str(a));
}

static void N3_new_solicited_satisfies_solicited_arm(void)
{
    struct arm_cq cq;
    struct arm_cq_view v = mkview(8, 2, 1, 7);
    enum arm_action a;

    cq_after_callback_at_5(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_SOLICITED, &v);
    CHECK(a == ARM_ACT_NOTIFY, "solicited at 7 gave %s", act_str(a));
}

static void N3_nonmatching_new_completion_waits(void)
{
    struct arm_cq cq;
    struct arm_cq_view v = mkview(8, 0, 3, 7);
    enum arm_action a;

    cq_after_callback_at_5(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ERRORS, &v);
    CHECK(a == ARM_ACT_NONE && cq.pending, "ERRORS arm, newest error at 3 < 5 gave %s",
          act_str(a));
}

static void N3_consumed_completions_do_not_satisfy(void)
{
    struct arm_cq cq;
    struct arm_cq_view v = mkview(8, 8, 7, 6);
    enum arm_action a;

    cq_after_callback_at_5(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &v);
    CHECK(a == ARM_ACT_NONE, "arm on an emptied CQ (ci = pi = 8) gave %s", act_str(a));
    v = mkview(8, 7, 6, 6); /* error/solicited at 6 taken, 7 (ok) still there */
    cq_after_callback_at_5(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_SOLICITED, &v);
    CHECK(a == ARM_ACT_NONE, "SOLICITED arm, its match at 6 < ci 7, gave %s", act_str(a));
}

static void N3_first_arm_of_a_cq_with_completions(void)
{
    struct arm_cq cq;
    struct arm_cq_view v = mkview(3, 0, -1, -1);
    enum arm_action a;

    cq_fresh(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &v);
    CHECK(a == ARM_ACT_NOTIFY, "never-notified CQ holding 3 CQEs gave %s", act_str(a));
}

static void N4_completions_present_at_last_callback_do_not_satisfy(void)
{
    struct arm_cq cq;
    struct arm_cq_view v = mkview(5, 0, 4, 3);
    enum arm_action a;
    int t;

    for (t = 0; t < 3; t++) {
        cq_after_callback_at_5(&cq);
        a = arm_on_arm(&cq, (uint8_t)t, &v);
        CHECK(a == ARM_ACT_NONE && cq.pending,
              "%s arm, CQEs 0..4 all there at the callback at 5, gave %s", trig_name[t],
              act_str(a));
    }
}

static void N6_merged_arm_checked_at_once(void)
{
    struct arm_cq cq;
    struct arm_cq_view v = mkview(6, 0, -1, -1);
    enum arm_action a;

    cq_after_callback_at_5(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ERRORS, &v);
    CHECK(a == ARM_ACT_NONE, "ERRORS arm with an ok CQE at 5 gave %s", act_str(a));
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &v);
    CHECK(a == ARM_ACT_NOTIFY, "merged ANY arm with an ok CQE at 5 gave %s", act_str(a));
}

/* ------------------------------------------------------------------ N8 */

static void N8_overrun_notifies_overflow_unarmed(void)
{
    struct arm_cq cq;
    enum arm_action a;

    cq_fresh(&cq);
    a = arm_on_overrun(&cq);
    CHECK(a == ARM_ACT_OVERFLOW, "overrun on an unarmed CQ gave %s", act_str(a));
}

static void N8_overrun_notifies_and_kills_an_armed_cq(void)
{
    struct arm_cq_view empty = mkview(9, 9, -1, -1), full = mkview(20, 4, 12, 13);
    struct arm_cq cq;
    enum arm_action a;

    cq_fresh(&cq);
    (void)arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &empty);
    a = arm_on_overrun(&cq);
    CHECK(a == ARM_ACT_OVERFLOW, "overrun on an armed CQ gave %s", act_str(a));
    CHECK(!cq.pending, "the arm survived the overrun");
    a = arm_on_cqe(&cq, true, true, 20);
    CHECK(a == ARM_ACT_NONE, "CQE event after the overrun gave %s", act_str(a));
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &full);
    CHECK(a == ARM_ACT_DISARM, "arm on the dead CQ gave %s, want DISARM", act_str(a));
    CHECK(!cq.pending, "an arm on the dead CQ is pending");
    a = arm_on_overrun(&cq);
    CHECK(a == ARM_ACT_OVERFLOW, "a second overrun gave %s: never silent", act_str(a));
}

static void N8_reenabled_cq_lives_again(void)
{
    struct arm_cq_view fresh = mkview(0, 0, -1, -1);
    struct arm_cq cq;
    enum arm_action a;

    cq_fresh(&cq);
    cq.pi_at_cb = 300;
    (void)arm_on_overrun(&cq);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ERRORS, &fresh);
    CHECK(a == ARM_ACT_NONE && cq.pending, "arm on a freshly enabled CQ gave %s",
          act_str(a));
    CHECK(cq.pi_at_cb == 0, "pi_at_cb %u kept from the old life", cq.pi_at_cb);
    a = arm_on_cqe(&cq, true, false, 0);
    CHECK(a == ARM_ACT_NOTIFY, "error CQE on the revived CQ gave %s", act_str(a));
}

/* ---------------------------------------------------- others, wraparound */

static void unknown_trigger_counts_as_any(void)
{
    struct arm_cq_view empty = mkview(0, 0, -1, -1);
    struct arm_cq cq;

    CHECK(arm_merge(3, QPNIC_CQ_TRIGGER_ERRORS) == QPNIC_CQ_TRIGGER_ANY, "merge(3, ERRORS)");
    CHECK(arm_trigger_matches(3, false, false), "trigger 3 does not match an ok completion");
    cq_fresh(&cq);
    (void)arm_on_arm(&cq, 3, &empty);
    CHECK(cq.pending && cq.trigger == QPNIC_CQ_TRIGGER_ANY, "trigger 3 stored as %u",
          cq.trigger);
}

static void wrap_window_across_zero(void)
{
    struct arm_cq cq;
    struct arm_cq_view v;
    enum arm_action a;

    /* Last callback at 0xFFFE, ci 0xFFFD, pi 3: the window is [0xFFFE, 3). */
    cq_fresh(&cq);
    cq.pi_at_cb = 0xFFFE;
    v = mkview(3, 0xFFFD, -1, -1);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &v);
    CHECK(a == ARM_ACT_NOTIFY, "ANY over the wrap gave %s", act_str(a));

    cq_fresh(&cq);
    cq.pi_at_cb = 0xFFFE;
    v = mkview(3, 0xFFFD, 0xFFFF, -1);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ERRORS, &v);
    CHECK(a == ARM_ACT_NOTIFY, "error at 0xFFFF in [0xFFFE, 3) gave %s", act_str(a));

    cq_fresh(&cq);
    cq.pi_at_cb = 0xFFFE;
    v = mkview(3, 0xFFFD, 0xFFFD, 0x0003);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_SOLICITED, &v);
    CHECK(a == ARM_ACT_NONE, "error at 0xFFFD (before the callback), solicited at pi: %s",
          act_str(a));
}

static void wrap_ci_later_than_callback(void)
{
    struct arm_cq cq;
    struct arm_cq_view v;
    enum arm_action a;

    /* Callback at 0xFFF0, ci 1, pi 2: window [1, 2). */
    cq_fresh(&cq);
    cq.pi_at_cb = 0xFFF0;
    v = mkview(2, 1, 0xFFFF, -1);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ERRORS, &v);
    CHECK(a == ARM_ACT_NONE, "error at 0xFFFF already taken (ci 1) gave %s", act_str(a));
    v = mkview(2, 1, 1, -1);
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ERRORS, &v);
    CHECK(a == ARM_ACT_NOTIFY, "error at 1 in [1, 2) gave %s", act_str(a));
}

static void wrap_pi_equal_after_callback(void)
{
    struct arm_cq cq;
    struct arm_cq_view v = mkview(0, 0xFFF0, 0xFFFF, 0xFFFF);
    enum arm_action a;

    /* Callback at 0 (= pi after wrapping): nothing after it. */
    cq_fresh(&cq);
    cq.pi_at_cb = 0;
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &v);
    CHECK(a == ARM_ACT_NONE, "no CQE since the callback at pi gave %s", act_str(a));
    CHECK(cq.pi_at_cb == 0, "pi_at_cb moved to %u", cq.pi_at_cb);
}

static void wrap_stale_callback_index_from_old_life(void)
{
    struct arm_cq cq;
    struct arm_cq_view v = mkview(4, 1, -1, -1);
    enum arm_action a;

    /* CQ re-enabled after a callback at 300: pi_at_cb is "ahead" of pi, so
     * the window falls back to [ci, pi). */
    cq_fresh(&cq);
    cq.pi_at_cb = 300;
    a = arm_on_arm(&cq, QPNIC_CQ_TRIGGER_ANY, &v);
    CHECK(a == ARM_ACT_NOTIFY, "stale pi_at_cb 300, ci 1, pi 4 gave %s", act_str(a));
}

/* ------------------------------------------------ randomized vs a model */

static unsigned long long rng_state;

static uint32_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static uint32_t rnd_below(uint32_t n)
{
    return rnd() % n;
}

#define MODEL_DEPTH 64u /* CQ entries; a power of two */

/* The reference: unbounded indices, every CQE's flags kept, decisions by
 * scanning, the N6 table looked up, N4 choice as documented. */
struct model {
    uint64_t pi, ci, pi_cb;
    bool pending, dead;
    uint8_t trigger;
    bool err[MODEL_DEPTH], sol[MODEL_DEPTH]; /* by index % depth */
    bool has_err, has_sol;
    uint64_t last_err, last_sol;
};

static uint8_t model_norm(uint8_t t)
{
    return t < 3 ? t : QPNIC_CQ_TRIGGER_ANY;
}

static bool model_matches(uint8_t t, bool err, bool sol)
{
    return t == QPNIC_CQ_TRIGGER_ANY || err || (t == QPNIC_CQ_TRIGGER_SOLICITED && sol);
}

static struct arm_cq_view model_view(const struct model *m)
{
    struct arm_cq_view v;

    v.pi = (uint16_t)m->pi;
    v.ci = (uint16_t)m->ci;
    v.last_err.valid = m->has_err;
    v.last_err.index = (uint16_t)m->last_err;
    v.last_sol.valid = m->has_sol;
    v.last_sol.index = (uint16_t)m->last_sol;
    return v;
}

static enum arm_action model_arm(struct model *m, uint8_t t)
{
    uint64_t i, from;

    if (m->pi == 0 && m->ci == 0 && !m->has_err && !m->has_sol) {
        m->dead = false;
        m->pi_cb = 0;
    }
    if (m->dead)
        return ARM_ACT_DISARM;
    t = m->pending ? n6_table[m->trigger][model_norm(t)] : model_norm(t);
    from = m->ci > m->pi_cb ? m->ci : m->pi_cb;
    for (i = from; i < m->pi; i++)
        if (model_matches(t, m->err[i % MODEL_DEPTH], m->sol[i % MODEL_DEPTH])) {
            m->pending = false;
            m->pi_cb = m->pi;
            return ARM_ACT_NOTIFY;
        }
    m->pending = true;
    m->trigger = t;
    return ARM_ACT_NONE;
}

static enum arm_action model_cqe(struct model *m, bool err, bool sol)
{
    if (!m->pending || !model_matches(m->trigger, err, sol))
        return ARM_ACT_NONE;
    m->pending = false;
    m->pi_cb = m->pi;
    return ARM_ACT_NOTIFY;
}

static void model_reenable(struct model *m)
{
    m->pi = m->ci = 0;
    m->has_err = m->has_sol = false;
}

/* Whether the model is inside the documented 16-bit limits. */
static bool model_in_limits(const struct model *m)
{
    return m->pi - m->pi_cb < 65536 - MODEL_DEPTH &&
           (!m->has_err || m->pi - m->last_err < 65536 - MODEL_DEPTH) &&
           (!m->has_sol || m->pi - m->last_sol < 65536 - MODEL_DEPTH);
}

/* arm_needs_view: when it says no, an empty view (ci = pi, no marks) and
 * arm_on_arm_no_view, which main.c calls then, must give the same action and
 * state as any real view would. */
static void N3_view_shortcut_changes_nothing(void)
{
    int tried = 0;

    rng_state = 12345;
    for (int k = 0; k < 200000; k++) {
        struct arm_cq a, b, c;
        uint16_t pi = (uint16_t)rnd();
        cq_fresh(&a);
        a.pending = rnd_below(2);
        a.trigger = (uint8_t)rnd_below(4);
        a.dead = rnd_below(8) == 0;
        a.pi_at_cb = rnd_below(2) ? pi : (uint16_t)rnd();
        if (arm_needs_view(&a, pi))
            continue;
        tried++;
        b = a;
        c = a;
        struct arm_cq_view real = mkview(pi, (uint16_t)(pi - rnd_below(64)),
                                         rnd_below(2) ? (long)(uint16_t)(pi - rnd_below(64)) : -1,
                                         rnd_below(2) ? (long)(uint16_t)(pi - rnd_below(64)) : -1);
        struct arm_cq_view cut = mkview(pi, pi, -1, -1);
        uint8_t t = (uint8_t)rnd_below(4);
        enum arm_action ra = arm_on_arm(&a, t, &real);
        enum arm_action rb = arm_on_arm(&b, t, &cut);
        CHECK(ra == rb && a.pending == b.pending && a.trigger == b.trigger &&
                  a.dead == b.dead && a.pi_at_cb == b.pi_at_cb,
              "case %d: the view shortcut changed the outcome (%s vs %s)", k, act_str(ra),
              act_str(rb));
        enum arm_action rc = arm_on_arm_no_view(&c, t);
        CHECK(ra == rc && a.pending == c.pending && a.trigger == c.trigger &&
                  a.dead == c.dead && a.pi_at_cb == c.pi_at_cb,
              "case %d: arm_on_arm_no_view changed the outcome (%s vs %s)", k, act_str(ra),
              act_str(rc));
    }
    CHECK(tried > 1000, "only %d cases took the shortcut", tried);
}

static unsigned long long rand_seed;
static unsigned long rand_steps, rand_notifies, rand_overruns, rand_wraps;

static void random_policy_matches_model(void)
{
    struct model m;
    struct arm_cq cq;
    bool stalled = false;
    unsigned long step;
    uint64_t start;

    memset(&m, 0, sizeof m);
    cq_fresh(&cq);
    rng_state = rand_seed ? rand_seed : 1;
    /* Start a little before the first wrap, as after a long life. */
    start = 65536 - 200 + rnd_below(100);
    m.pi = m.ci = m.pi_cb = start;
    cq.pi_at_cb = (uint16_t)start;
    m.has_err = true; /* an error long ago, still inside the limits */
    m.last_err = start - 10;

    for (step = 0; step < rand_steps; step++) {
        uint32_t op = rnd_below(100);
        enum arm_action got = ARM_ACT_NONE, want = ARM_ACT_NONE;
        const char *what = "";

        if (!stalled && rnd_below(150000) == 0)
            stalled = true; /* the host stops taking CQEs: an overrun follows */
        if (op < 50) {
            if (m.pi - m.ci == MODEL_DEPTH) {
                what = "overrun";
                got = arm_on_overrun(&cq);
                want = ARM_ACT_OVERFLOW;
                m.pending = false;
                m.dead = true;
                rand_overruns++;
                model_reenable(&m); /* the host re-creates it, then arms */
                stalled = false;
                if (got == want) {
                    struct arm_cq_view v = model_view(&m);
                    uint8_t t = (uint8_t)rnd_below(4);
                    what = "arm after re-enable";
                    got = arm_on_arm(&cq, t, &v);
                    want = model_arm(&m, t);
                }
            } else {
                bool err = rnd_below(100) < 10, sol = rnd_below(100) < 15;
                uint64_t i = m.pi++;
                m.err[i % MODEL_DEPTH] = err;
                m.sol[i % MODEL_DEPTH] = sol;
                if (err) {
                    m.has_err = true;
                    m.last_err = i;
                }
                if (sol) {
                    m.has_sol = true;
                    m.last_sol = i;
                }
                if ((uint16_t)m.pi == 0)
                    rand_wraps++;
                if (m.pending) { /* the armed bit is set: an event */
                    what = err ? (sol ? "CQE error+solicited" : "CQE error")
                               : (sol ? "CQE solicited" : "CQE ok");
                    got = arm_on_cqe(&cq, err, sol, (uint16_t)(m.pi - 1));
                    want = model_cqe(&m, err, sol);
                }
            }
        } else if (op < 75) {
            if (!stalled)
                m.ci += rnd_below((uint32_t)(m.pi - m.ci) + 1);
        } else {
            uint8_t r = (uint8_t)rnd_below(20);
            uint8_t t = r < 7 ? QPNIC_CQ_TRIGGER_ERRORS
                        : r < 12 ? QPNIC_CQ_TRIGGER_ANY
                        : r < 19 ? QPNIC_CQ_TRIGGER_SOLICITED : 3;
            struct arm_cq_view v = model_view(&m);
            what = "arm";
            got = arm_on_arm(&cq, t, &v);
            want = model_arm(&m, t);
        }
        CHECK(got == want,
              "seed %llu step %lu: %s: policy %s, model %s (pi %" PRIu64 " ci %" PRIu64
              " pi_cb %" PRIu64 ")",
              rand_seed, step, what, act_str(got), act_str(want), m.pi, m.ci, m.pi_cb);
        CHECK(cq.pending == m.pending && cq.dead == m.dead &&
                  (!m.pending || cq.trigger == m.trigger) &&
                  cq.pi_at_cb == (uint16_t)m.pi_cb,
              "seed %llu step %lu: after %s the state differs: policy pending %d trig %u "
              "dead %d pi_cb %u, model %d %u %d %u",
              rand_seed, step, what, cq.pending, cq.trigger, cq.dead, cq.pi_at_cb,
              m.pending, m.trigger, m.dead, (unsigned)(uint16_t)m.pi_cb);
        CHECK(model_in_limits(&m),
              "seed %llu step %lu: the generator left the 16-bit limits (pi %" PRIu64
              " pi_cb %" PRIu64 ")",
              rand_seed, step, m.pi, m.pi_cb);
        if (got == ARM_ACT_NOTIFY)
            rand_notifies++;
    }
    CHECK(rand_wraps >= 2 && rand_notifies > 1000 && rand_overruns >= 1,
          "the run covered too little: %lu wraps, %lu notifications, %lu overruns",
          rand_wraps, rand_notifies, rand_overruns);
}

int main(int argc, char **argv)
{
    rand_seed = argc > 1 ? strtoull(argv[1], NULL, 0)
                         : (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
    rand_steps = argc > 2 ? strtoul(argv[2], NULL, 0) : 2000000ul;

    run_n6();
    run_n7();
    RUN(N1_no_callback_without_arm);
    RUN(N1_at_most_once_per_arm);
    RUN(N1_arm_satisfied_at_once_ignores_its_late_event);
    RUN(N1_stale_event_does_not_fire_a_later_arm);
    RUN(N3_view_shortcut_changes_nothing);
    RUN(N2_fire_clears_arm_and_records_pi);
    RUN(N3_new_completion_satisfies_at_once);
    RUN(N3_matching_new_error_satisfies_errors_arm);
    RUN(N3_new_solicited_satisfies_solicited_arm);
    RUN(N3_nonmatching_new_completion_waits);
    RUN(N3_consumed_completions_do_not_satisfy);
    RUN(N3_first_arm_of_a_cq_with_completions);
    RUN(N4_completions_present_at_last_callback_do_not_satisfy);
    RUN(N6_merged_arm_checked_at_once);
    RUN(N8_overrun_notifies_overflow_unarmed);
    RUN(N8_overrun_notifies_and_kills_an_armed_cq);
    RUN(N8_reenabled_cq_lives_again);
    RUN(unknown_trigger_counts_as_any);
    RUN(wrap_window_across_zero);
    RUN(wrap_ci_later_than_callback);
    RUN(wrap_pi_equal_after_callback);
    RUN(wrap_stale_callback_index_from_old_life);

    printf("random test: seed %llu, %lu steps (rerun: test_arm_policy %llu %lu)\n",
           rand_seed, rand_steps, rand_seed, rand_steps);
    RUN(random_policy_matches_model);
    printf("random test: %lu notifications, %lu overruns, %lu index wraps\n", rand_notifies,
           rand_overruns, rand_wraps);

    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
