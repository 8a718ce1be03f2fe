/* fake_nic.h: a transport with no NIC behind it, for the driver's unit tests.
 *
 * For: running libqpnic's logic (objects, posting and deferral, completion
 * decoding, events) without the simulator: registers are a plain array the
 * test presets and inspects, every register write is logged in order, the
 * DMA region is ordinary memory, notifications are pushed by the test.
 * Not for: checking the NIC (nothing executes a WQE or writes a CQE).
 */
#ifndef QPNIC_TEST_FAKE_NIC_H
#define QPNIC_TEST_FAKE_NIC_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define FAKE_LOG_MAX 65536
#define FAKE_NTF_MAX 256
#define FAKE_RANGES 64

typedef struct {
    uint64_t addr, len;
    uint32_t perm;
    int used;
} fake_range;

typedef struct {
    qpnic_transport base;
    uint32_t regs[0x10000 / 4];
    struct {
        uint32_t addr, val;
    } log[FAKE_LOG_MAX];
    size_t nlog;
    pthread_mutex_t m;
    pthread_cond_t c;
    uint32_t ntf[FAKE_NTF_MAX];
    unsigned ntf_head, ntf_tail;
    int dead;           /* set: every call fails IO_ERROR */
    int kicked;         /* ntf_kick came: the next (or current) ntf_wait returns */
    int consume_sq;     /* set: a QP's SQ_PI write sets its SQ_CI too, as if
                         * the NIC executed the requests at once (the fuzzer) */
    fake_range ranges[FAKE_RANGES];
} fake_nic;

/* The default build's CAPS, ID, VERSION and firmware ready, into a
 * register file of 0x10000 / 4 words (indexed by address / 4). */
void fake_preset_regs(uint32_t *regs);
/* A fake with the default build's CAPS, ID, VERSION and firmware ready. */
fake_nic *fake_new(size_t dma_bytes);
/* Open an adapter over it (the adapter owns it from now on). */
ndk_adapter *fake_open(fake_nic *f);
/* Register writes to addr so far, and the value of the newest one. */
size_t fake_writes(fake_nic *f, uint32_t addr);
uint32_t fake_last(fake_nic *f, uint32_t addr);
/* Forget the write log. */
void fake_clear_log(fake_nic *f);
/* Queue a notification word for the event thread. */
void fake_notify(fake_nic *f, uint32_t word);
/* Live checker ranges covering [addr, addr+len) with perm. */
int fake_range_covers(fake_nic *f, uint64_t addr, uint64_t len, uint32_t perm);
/* Number of live checker ranges. */
int fake_ranges_live(fake_nic *f);
/* Write a CQE into cq's ring at free-running index `index`, as the NIC
 * would (phase bit for that pass, word 3 last). */
void fake_put_cqe(ndk_cq *cq, uint32_t index, uint32_t qpn, uint32_t wqe_index, uint32_t type,
                  uint32_t status, uint32_t bytes, uint32_t inv_token);
/* Mark the device dead. */
void fake_kill(fake_nic *f);

/* ---- a tiny test harness ---- */

extern int test_failures;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            test_failures++;                                                    \
        }                                                                       \
    } while (0)

#define CHECK_ST(call, want)                                                    \
    do {                                                                        \
        ndk_status st_ = (call);                                                \
        CHECK(st_ == (want), "%s returned %s, want %s", #call,                  \
              ndk_status_str(st_), ndk_status_str(want));                       \
    } while (0)

#define RUN(fn)                                                                 \
    do {                                                                        \
        int before_ = test_failures;                                            \
        fn();                                                                   \
        printf("%s %s\n", test_failures == before_ ? "PASS" : "FAIL", #fn);     \
    } while (0)

#define TEST_MAIN_END()                                                         \
    do {                                                                        \
        if (test_failures) {                                                    \
            printf("%d check(s) failed\n", test_failures);                      \
            return 1;                                                           \
        }                                                                       \
        return 0;                                                               \
    } while (0)

/* The QP register block index of QP number qpn (layout struct qp_num): the
 * n of QPNIC_QPREG(n, R). A QP number also carries a generation, never 0. */
static inline uint32_t fake_qp_index(uint32_t qpn)
{
    return QPNIC_FIELD_GET(&qpn, QPNIC_QP_NUM_INDEX);
}

#endif
