/* fw/arm_policy.c: the CQ notification policy (see fw/arm_policy.h).
 *
 * For: the decisions only; pure C with no registers and no libc, so the same
 * file runs on the soft core and in the host unit tests.
 * Not for: anything that talks to the hardware (fw/main.c).
 */
#include "arm_policy.h"

/* Entries from index `from` up to (not including) index `to`, modulo 2^16. */
static uint16_t ring_dist(uint16_t from, uint16_t to)
{
    return (uint16_t)(to - from);
}

/* Whether index x lies in the window [from, to) of the 16-bit index circle. */
static bool in_window(uint16_t x, uint16_t from, uint16_t to)
{
    return ring_dist(from, x) < ring_dist(from, to);
}

static bool mark_in_window(const struct arm_mark *m, uint16_t from, uint16_t to)
{
    return m->valid && in_window(m->index, from, to);
}

/* Unknown trigger values count as ANY: the widest, it never loses a
 * notification. */
static uint8_t trigger_norm(uint8_t trigger)
{
    if (trigger == QPNIC_CQ_TRIGGER_ERRORS || trigger == QPNIC_CQ_TRIGGER_SOLICITED)
        return trigger;
    return QPNIC_CQ_TRIGGER_ANY;
}

void arm_cq_init(struct arm_cq *cq)
{
    cq->pending = false;
    cq->trigger = QPNIC_CQ_TRIGGER_ANY;
    cq->dead = false;
    cq->pi_at_cb = 0;
}

uint8_t arm_merge(uint8_t first, uint8_t second)
{
    /* N6, the table of RULES.md: rows the pending arm, columns the new one. */
    first = trigger_norm(first);
    second = trigger_norm(second);
    if (first == QPNIC_CQ_TRIGGER_ANY || second == QPNIC_CQ_TRIGGER_ANY)
        return QPNIC_CQ_TRIGGER_ANY;
    if (first == QPNIC_CQ_TRIGGER_ERRORS && second == QPNIC_CQ_TRIGGER_ERRORS)
        return QPNIC_CQ_TRIGGER_ERRORS;
    return QPNIC_CQ_TRIGGER_SOLICITED; /* ERRORS+SOLICITED either way, SOLICITED+SOLICITED */
}

bool arm_trigger_matches(uint8_t trigger, bool error, bool solicited)
{
    /* N7 */
    switch (trigger_norm(trigger)) {
    case QPNIC_CQ_TRIGGER_ERRORS:
        return error;
    case QPNIC_CQ_TRIGGER_SOLICITED:
        return solicited || error;
    default:
        return true;
    }
}

/* Whether a completion matching trigger lies in [from, view->pi). The marks
 * hold the newest error and solicited CQE, so if the newest one is older than
 * the window, none is in it. */
static bool window_has_match(const struct arm_cq_view *view, uint8_t trigger,
                             uint16_t from)
{
    if (ring_dist(from, view->pi) == 0)
        return false;
    switch (trigger) {
    case QPNIC_CQ_TRIGGER_ERRORS:
        return mark_in_window(&view->last_err, from, view->pi);
    case QPNIC_CQ_TRIGGER_SOLICITED:
        return mark_in_window(&view->last_err, from, view->pi) ||
               mark_in_window(&view->last_sol, from, view->pi);
    default:
        return true;
    }
}

/* A CQ just enabled: nothing written, nothing taken, no marks. */
static bool view_is_fresh(const struct arm_cq_view *view)
{
    return view->pi == 0 && view->ci == 0 && !view->last_err.valid &&
           !view->last_sol.valid;
}

/* N3, N4: the first index that can satisfy an arm at once: the later of ci
 * (older ones left the CQ) and the last callback's pi (older ones were there
 * at the last callback: our N4 choice is that they do not count). "Later" is
 * the one nearer to pi going backwards from it, which stays right across the
 * 16-bit wrap. */
static uint16_t arm_window_start(const struct arm_cq *cq,
                                 const struct arm_cq_view *view)
{
    if (ring_dist(view->ci, view->pi) <= ring_dist(cq->pi_at_cb, view->pi))
        return view->ci;
    return cq->pi_at_cb;
}

/* N1, N2: the arm is used up by its one callback. */
static enum arm_action fire(struct arm_cq *cq, uint16_t pi)
{
    cq->pending = false;
    cq->pi_at_cb = pi;
    return ARM_ACT_NOTIFY;
}

/* N6: the trigger an arm waits with, merged into a pending arm's. */
static uint8_t arm_merged(const struct arm_cq *cq, uint8_t trigger)
{
    return cq->pending ? arm_merge(cq->trigger, trigger) : trigger_norm(trigger);
}

bool arm_needs_view(const struct arm_cq *cq, uint16_t pi_at_arm)
{
    /* A dead CQ at index 0 may have been re-enabled: only the view tells. */
    return pi_at_arm != cq->pi_at_cb || (cq->dead && pi_at_arm == 0);
}

enum arm_action arm_on_arm(struct arm_cq *cq, uint8_t trigger,
                           const struct arm_cq_view *view)
{
    uint8_t merged;

    if (view->pi == 0 && view_is_fresh(view)) {
        /* The CQ was (re-)enabled: forget an overrun and an old callback
         * index of its previous life. A pending arm is kept (N6 merges). */
        cq->dead = false;
        cq->pi_at_cb = 0;
    }
    if (cq->dead)
        return ARM_ACT_DISARM; /* N8: an overrun CQ completes nothing again */

    merged = arm_merged(cq, trigger);
    /* N3 can only hold when a CQE came after the last callback: most arms
     * (made right after a callback) skip the window arithmetic: it is on
     * the notification latency's path when an arm and its completion come
     * back to back (docs/performance-analysis.md). */
    if (view->pi != cq->pi_at_cb) {
        struct arm_cq_view clamped = *view;
        /* The host may have taken CQEs written after the arm: CI can be past
         * the arm's index. Nothing below the arm's index is left then. */
        if (ring_dist(view->pi, view->ci) != 0 && ring_dist(view->pi, view->ci) < 0x8000u)
            clamped.ci = view->pi;
        if (window_has_match(&clamped, merged, arm_window_start(cq, &clamped)))
            return fire(cq, view->pi); /* N3 */
    }
    cq->pending = true;
    cq->trigger = merged;
    return ARM_ACT_NONE;
}

enum arm_action arm_on_arm_no_view(struct arm_cq *cq, uint8_t trigger)
{
    /* arm_on_arm with an empty window: a CQ that needs no view at index 0 is
     * alive with its last callback at 0, so there is no fresh CQ to forget,
     * and N3 cannot hold. */
    if (cq->dead)
        return ARM_ACT_DISARM; /* N8 */
    cq->trigger = arm_merged(cq, trigger);
    cq->pending = true;
    return ARM_ACT_NONE;
}

/* Whether the CQE at `index` was already in the CQ at the last callback. */
static bool covered_by_last_callback(const struct arm_cq *cq, uint16_t index)
{
    return ring_dist(index, cq->pi_at_cb) != 0 && ring_dist(index, cq->pi_at_cb) <= 0x8000u;
}

enum arm_action arm_on_cqe(struct arm_cq *cq, bool error, bool solicited, uint16_t index)
{
    if (!cq->pending)
        return ARM_ACT_NONE; /* N1: no arm, no callback */
    if (covered_by_last_callback(cq, index))
        return ARM_ACT_NONE; /* N1: an event queued before the last callback */
    if (!arm_trigger_matches(cq->trigger, error, solicited))
        return ARM_ACT_NONE; /* N7 */
    return fire(cq, (uint16_t)(index + 1u)); /* N2 */
}

enum arm_action arm_on_overrun(struct arm_cq *cq)
{
    /* N8: never silent, whether armed or not. */
    cq->pending = false;
    cq->dead = true;
    return ARM_ACT_OVERFLOW;
}
