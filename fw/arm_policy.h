/* fw/arm_policy.h: the CQ notification policy of the firmware.
 *
 * For: deciding, one CQ at a time, what an event means for that CQ's arm:
 * merge a new arm into a pending one (N6), satisfy an arm at once (N3, N4),
 * fire a pending arm on a completion (N2, N7), at most once per arm (N1), and
 * report an overrun (N8). The caller (fw/main.c) feeds it events and a view
 * of the CQ, and carries out the action it returns through the registers.
 *
 * Not for: touching registers, knowing how many CQs there are, or queueing
 * notifications. It is pure freestanding C (no libc), built both for the soft
 * core and for the host unit tests (tests/fw/test_arm_policy.c).
 *
 * Indices. CQ indices are the CQ's free-running 16-bit counters (PI, CI and
 * the cq_mark index), compared modulo 2^16: "x is in [a, b)" means
 * (uint16_t)(x - a) < (uint16_t)(b - a). This is exact as long as the
 * indices compared lie within 65536 CQEs of each other; see "Limits".
 *
 * The choices this policy makes (the rules leave them open):
 *
 * - N4: an arm is NOT satisfied at once by completions that were all in the
 *   CQ already at the last callback. At ARM time only a matching completion
 *   whose index is in [ci, pi) (still in the CQ) and >= the producer index
 *   recorded at the last callback counts (N3). A completion the consumer has
 *   already taken (index < ci) does not satisfy an arm at once either: the
 *   consumer has seen it.
 * - Every event is judged as of the moment the NIC saw it, not when the
 *   firmware gets to it: an ARM by the CQ's producer index when its doorbell
 *   came (the event's index), a CQE by the index it was written at. CQEs
 *   from an arm's index on arrive as CQE events queued behind the ARM (the
 *   doorbell set the armed bit), so nothing is judged twice or missed.
 * - The index "at the last callback" is the arm's index when an arm is
 *   satisfied at once, and the firing CQE's index + 1 when a CQE fires it: a
 *   CQE event below it was covered by that callback and fires nothing (N1),
 *   even for an arm made since.
 * - N8: every OVERRUN event is notified with status OVERFLOW, whether an arm
 *   is pending or not, and clears any pending arm. The CQ is then dead: later
 *   arms on it are dropped (the armed bit is cleared, no notification), since
 *   an overrun CQ never completes anything again. The one way back is a
 *   freshly enabled CQ: an ARM whose view shows PI = CI = 0 and no error or
 *   solicited mark resets that CQ's policy state (the firmware sees no event
 *   for a CQ being re-enabled, so this is the only sign it gets).
 * - A trigger value outside the cq_trigger enum is taken as ANY (the widest:
 *   it never loses a notification).
 *
 * Limits (16-bit indices): the error and solicited marks keep only the
 * newest such CQE's index. If more than 65536 - depth CQEs pass after it, its
 * index can alias into the live window and satisfy an arm at once that
 * should wait (a spurious notification, harmless to a consumer that polls).
 * Likewise a last-callback index more than 65536 - depth CQEs old can alias
 * and narrow the window, so an arm that N3 says is satisfied waits for the
 * next matching completion instead.
 */
#ifndef QPNIC_FW_ARM_POLICY_H
#define QPNIC_FW_ARM_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "qpnic_fw_hw.h"

/* Where the newest error or solicited CQE of a CQ went (layout cq_mark). */
struct arm_mark {
    bool valid;     /* such a CQE was written since the CQ was enabled */
    uint16_t index; /* its free-running CQ index */
};

/* One CQ as an ARM event sees it: pi from the event (the producer index when
 * the arm doorbell came), ci and the marks read from CQ_CI, CQ_LAST_ERR and
 * CQ_LAST_SOL. ci may be past pi (the host took later CQEs); the policy
 * clamps it. */
struct arm_cq_view {
    uint16_t pi;
    uint16_t ci;
    struct arm_mark last_err;
    struct arm_mark last_sol;
};

/* The policy's state for one CQ. Zero (or arm_cq_init) is the state of a CQ
 * that was never armed. */
struct arm_cq {
    bool pending;      /* an arm waits (N1: cleared when it fires) */
    uint8_t trigger;   /* the pending arm's trigger, QPNIC_CQ_TRIGGER_*, merged (N6) */
    bool dead;         /* an OVERRUN was seen (N8): arms are dropped */
    uint16_t pi_at_cb; /* producer index at the last callback (N3, N4) */
};

/* What the caller must do after an event. */
enum arm_action {
    ARM_ACT_NONE,     /* nothing; a pending arm keeps its armed bit set */
    ARM_ACT_DISARM,   /* clear the CQ's armed bit; no notification */
    ARM_ACT_NOTIFY,   /* clear the armed bit, notify the CQ with SUCCESS */
    ARM_ACT_OVERFLOW, /* clear the armed bit, notify the CQ with OVERFLOW (N8) */
};

/* Reset one CQ's state: no arm pending, alive, last callback at index 0. */
void arm_cq_init(struct arm_cq *cq);

/* N6: the trigger of an arm made while an arm with trigger `first` is still
 * pending, given the new arm's trigger `second`. Unknown values count as ANY. */
uint8_t arm_merge(uint8_t first, uint8_t second);

/* N7: whether a completion (error: status not SUCCESS; solicited: a
 * solicited receive) satisfies trigger. ERRORS: an error; ANY: any;
 * SOLICITED: solicited or an error. Unknown triggers count as ANY. */
bool arm_trigger_matches(uint8_t trigger, bool error, bool solicited);

/* Whether arm_on_arm needs the CQ's ci and marks for an arm at pi_at_arm.
 * Not when the last callback's index is the arm's index: then no CQE can lie
 * between them, the window of N3 is empty whatever ci and the marks say, and
 * the firmware saves four register accesses on its most common arm (the one
 * made right after a callback). A dead CQ at index 0 needs them: it may have
 * been enabled afresh. */
bool arm_needs_view(const struct arm_cq *cq, uint16_t pi_at_arm);

/* An ARM event with `trigger`. view->pi is the CQ's producer index when the
 * arm doorbell reached the NIC (the event's index); CQEs from there on raise
 * their own CQE events, queued behind this one, because the doorbell set the
 * armed bit (docs/internals.md). view->ci and the marks are read now.
 * Merges into a pending arm (N6), then checks N3/N4 over the CQEs below
 * view->pi. Returns ARM_ACT_NOTIFY if satisfied at once (the arm is cleared
 * and view->pi recorded as the last callback's index), ARM_ACT_NONE if it now
 * waits, ARM_ACT_DISARM if the CQ is dead (N8). */
enum arm_action arm_on_arm(struct arm_cq *cq, uint8_t trigger,
                           const struct arm_cq_view *view);

/* An ARM event for which arm_needs_view said no: what arm_on_arm does then
 * with any view (its window is empty), without one and in fewer steps, for
 * the common arm on the notification latency's path: ARM_ACT_DISARM if the
 * CQ is dead (N8), else the arm is merged into a pending one (N6) and waits
 * (ARM_ACT_NONE). */
enum arm_action arm_on_arm_no_view(struct arm_cq *cq, uint8_t trigger);

/* A CQE event for a completion with the given flags, written at CQ index
 * `index`. Returns ARM_ACT_NOTIFY if a pending arm fires (N2, N7; the arm is
 * cleared, N1, and index + 1 recorded as the last callback's index: the
 * CQEs after it were not seen by this callback), else ARM_ACT_NONE (no
 * arm pending, no match, or a stale event: its CQE was already in the CQ at
 * the last callback, so that callback covered it and a later arm must not
 * fire on it a second time, N1). */
enum arm_action arm_on_cqe(struct arm_cq *cq, bool error, bool solicited, uint16_t index);

/* An OVERRUN event: always ARM_ACT_OVERFLOW (N8); any pending arm is cleared
 * and the CQ is dead from now on. */
enum arm_action arm_on_overrun(struct arm_cq *cq);

#endif
