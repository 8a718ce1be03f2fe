/* fw/main.c: the soft core's event loop.
 *
 * For: popping events (ARM, CQE, OVERRUN) from EVT_POP, asking the policy
 * (fw/arm_policy.c) what they mean, and doing what it says through the
 * firmware registers: ARMED_CLR and NOTIFY.
 * Not for: policy decisions (all in arm_policy.c, unit-tested on the host),
 * or field positions (all from the generated fw/gen/qpnic_fw_hw.h).
 *
 * The firmware runs behind the hardware, so it judges each event as of the
 * moment the NIC saw it: an ARM by the CQ's producer index when the doorbell
 * came (the event's index; the doorbell also set the armed bit, so every
 * later CQE arrives as its own event), a CQE by the index it was written at
 * (docs/internals.md, "Firmware and its hardware").
 */
#include <stdbool.h>
#include <stdint.h>

#include "arm_policy.h"
#include "qpnic_fw_hw.h"
#ifdef QPNIC_FW_TRANSPORT
#include "transport.h"
#endif

/* CQs the firmware keeps state for: every CQ number an event can name
 * (layout: event.cqn, CQN_BITS wide), so no build has more. 6 bytes each:
 * 1.5 KiB of the core's RAM for 256. */
#define FW_MAX_CQ (1u << QPNIC_CQN_BITS)

#if QPNIC_NUM_CQ > FW_MAX_CQ
#error "the default build has more CQs than the firmware keeps state for"
#endif

static struct arm_cq cqs[FW_MAX_CQ];

static uint32_t reg_read(uint32_t offset)
{
    return *(volatile uint32_t *)(QPNIC_FW_IO_BASE + offset);
}

static void reg_write(uint32_t offset, uint32_t value)
{
    *(volatile uint32_t *)(QPNIC_FW_IO_BASE + offset) = value;
}

/* A struct cq_mark, laid out for this core: valid a mask, index one shift. */
static struct arm_mark mark_decode(uint32_t word)
{
    const uint32_t w[QPNIC_CQ_MARK_WORDS] = { word };
    struct arm_mark m;

    m.valid = QPNIC_FIELD_IS(w, QPNIC_CQ_MARK_VALID, 1);
    m.index = (uint16_t)QPNIC_FIELD_GET(w, QPNIC_CQ_MARK_INDEX);
    return m;
}

/* The CQ as an arm sees it: pi as it was when the arm doorbell came (the
 * event's index), ci and the marks as they are now. A mark newer than pi lies
 * outside the arm's window; that CQE arrives as its own event. CQ_CI is read
 * as a halfword (its 16 bits are the register's low half, the first two
 * bytes on this little-endian core): PicoRV32 picks the halfword with a
 * multiplexer, where a cast of the word would cost two 16-bit shifts. */
static void read_cq_view(uint32_t cqn, uint16_t pi_at_arm, struct arm_cq_view *view)
{
    reg_write(QPNIC_FWREG_CQ_SEL, cqn);
    view->ci = *(volatile uint16_t *)(QPNIC_FW_IO_BASE + QPNIC_FWREG_CQ_CI);
    view->pi = pi_at_arm;
    view->last_err = mark_decode(reg_read(QPNIC_FWREG_CQ_LAST_ERR));
    view->last_sol = mark_decode(reg_read(QPNIC_FWREG_CQ_LAST_SOL));
}

static void notify(uint32_t cqn, uint32_t status)
{
    /* qpnic_fw_if adds the CQ's generation (struct notify gen) */
    reg_write(QPNIC_FWREG_NOTIFY, QPNIC_FIELD(QPNIC_NOTIFY_CQN, cqn) |
                                      QPNIC_FIELD(QPNIC_NOTIFY_STATUS, status));
}

/* Carry out what the policy decided for cqn.
 *
 * The notification goes out before the armed bit is cleared: it is what the
 * host waits for (the notification latency counters time it). The order is
 * safe: an arm the host makes in between queues an ARM event, and ARMED_CLR
 * is ignored while one is queued, so the new arm keeps its CQE events. */
static void act(uint32_t cqn, enum arm_action action)
{
    switch (action) {
    case ARM_ACT_NONE:
        break;
    case ARM_ACT_DISARM:
        reg_write(QPNIC_FWREG_ARMED_CLR, cqn);
        break;
    case ARM_ACT_NOTIFY:
        notify(cqn, QPNIC_NTF_STATUS_SUCCESS);
        reg_write(QPNIC_FWREG_ARMED_CLR, cqn);
        break;
    case ARM_ACT_OVERFLOW:
        notify(cqn, QPNIC_NTF_STATUS_OVERFLOW); /* N8 */
        reg_write(QPNIC_FWREG_ARMED_CLR, cqn);
        break;
    }
}

static void handle_arm(uint32_t cqn, struct arm_cq *cq, uint8_t trigger,
                       uint16_t pi_at_arm)
{
    struct arm_cq_view view;

    if (!arm_needs_view(cq, pi_at_arm)) {
        /* the common arm, right after a callback: nothing can be in its
         * window, so the policy needs no view, and takes the short way */
        act(cqn, arm_on_arm_no_view(cq, trigger));
        return;
    }
    read_cq_view(cqn, pi_at_arm, &view);
    act(cqn, arm_on_arm(cq, trigger, &view));
}

/* The event's fields, with few shifts: this is the notification latency's
 * path, and PicoRV32 without its barrel shifter (the smaller build) takes a
 * cycle per 4 bits of a shift. The layout puts the numbers where they come
 * cheaply (cqn: a mask; index: one shift by 16; trigger: a shift by 8), and
 * the type and flags are compared in place (QPNIC_FIELD_IS), never shifted
 * down. */
static void handle_event(uint32_t word)
{
    const uint32_t ev[QPNIC_EVENT_WORDS] = { word };
    uint32_t cqn = QPNIC_FIELD_GET(ev, QPNIC_EVENT_CQN);

    if (cqn >= FW_MAX_CQ)
        return; /* cannot happen: main refuses to start on a bigger build */
    struct arm_cq *cq = &cqs[cqn];
    uint16_t index = (uint16_t)QPNIC_FIELD_GET(ev, QPNIC_EVENT_INDEX);

    if (QPNIC_FIELD_IS(ev, QPNIC_EVENT_TYPE, QPNIC_EVT_TYPE_CQE)) {
        /* the common one, tested first (latency) */
        act(cqn, arm_on_cqe(cq, QPNIC_FIELD_IS(ev, QPNIC_EVENT_ERROR, 1),
                            QPNIC_FIELD_IS(ev, QPNIC_EVENT_SOLICITED, 1), index));
    } else if (QPNIC_FIELD_IS(ev, QPNIC_EVENT_TYPE, QPNIC_EVT_TYPE_ARM)) {
        handle_arm(cqn, cq, (uint8_t)QPNIC_FIELD_GET(ev, QPNIC_EVENT_TRIGGER), index);
    } else if (QPNIC_FIELD_IS(ev, QPNIC_EVENT_TYPE, QPNIC_EVT_TYPE_OVERRUN)) {
        act(cqn, arm_on_overrun(cq));
    } else if (QPNIC_FIELD_IS(ev, QPNIC_EVENT_TYPE, QPNIC_EVT_TYPE_RESET)) {
        /* created or destroyed: no arm, no marks, no callback index carried
         * over to the CQ that gets this number next */
        arm_cq_init(cq); /* (its generation: qpnic_fw_if takes it) */
    }
}

#ifdef QPNIC_FW_TRANSPORT
void tp_service_events(void)
{
    uint32_t word = reg_read(QPNIC_FWREG_EVT_POP);
    const uint32_t ev[QPNIC_EVENT_WORDS] = { word };

    if (QPNIC_FIELD_IS(ev, QPNIC_EVENT_VALID, 1))
        handle_event(word);
}
#endif

int main(void)
{
    uint32_t i, num_cq = reg_read(QPNIC_FWREG_NUM_CQ);

    /* A build with more CQs than we keep state for never says it is ready:
     * the host sees a NIC that does not come up, not one that loses events. */
    if (num_cq > FW_MAX_CQ) {
        for (;;)
            continue;
    }
    /* Only the CQs the build has get events: boot does not pay for the rest. */
    for (i = 0; i < num_cq; i++)
        arm_cq_init(&cqs[i]);
    reg_write(QPNIC_FWREG_FW_READY, 1);

    for (;;) {
#ifdef QPNIC_FW_TRANSPORT
        /* the firmware partition: the transport between events
         * (docs/partitions.md) */
        tp_service_events();
        tp_poll();
#else
        uint32_t word = reg_read(QPNIC_FWREG_EVT_POP);
        const uint32_t ev[QPNIC_EVENT_WORDS] = { word };

        if (QPNIC_FIELD_IS(ev, QPNIC_EVENT_VALID, 1))
            handle_event(word);
#endif
    }
}
