/* e2e.h: what the end-to-end tests share.
 *
 * Every test here runs the whole NIC: libqpnic starts a private qpnic-sim
 * (the Verilator model of the RTL with the firmware on its soft core), or
 * opens the URI in $QPNIC_URI (a board, or the board-level simulator over
 * its tty), and the test talks to it only through the public API, as a
 * user program would.
 *
 * A test file is a list of cases; each case gets a fresh loopback pair (two
 * connected QPs on one adapter, each with its own CQs and a registered
 * buffer) from e2e_pair_open and checks, on close, that the simulator saw no
 * DMA outside the memory the driver registered.
 *
 * Not for: unit tests of one layer (tests/rtl, tests/fw, tests/host).
 */
#ifndef QPNIC_E2E_H
#define QPNIC_E2E_H

#include <qpnic/ndk.h>
#include <qpnic/ndk_sim.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A failed expectation ends the case with file, line and what went wrong. */
#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
            e2e_fail();                                                     \
        }                                                                   \
    } while (0)

/* got is evaluated once (it is often the call under test). */
#define EXPECT_STATUS(got, want)                                            \
    do {                                                                    \
        ndk_status got_ = (got), want_ = (want);                            \
        EXPECT(got_ == want_, "status %s, expected %s",                     \
               ndk_status_str(got_), ndk_status_str(want_));                \
    } while (0)

#define E2E_BUF_BYTES 65536u

/* What the recording callback saw of one CQ's notifications. */
typedef struct {
    ndk_cq *cq;
    _Atomic unsigned calls;
    _Atomic int last_status;
    unsigned sleep_us;        /* stay this long inside each callback (N5 tests) */
    int rearm_trigger;        /* >= 0: poll the CQ empty and re-arm it from the callback */
    _Atomic unsigned polled;  /* results the callback took when it polled */
} e2e_cb;

/* The callback every test CQ gets; fn_ctx is its e2e_cb. It also checks N5:
 * if it ever finds another callback running, the process fails. */
void e2e_record_cb(void *fn_ctx, ndk_status cq_status);
/* Wait until cb->calls reaches n or timeout_ms passes; returns calls. */
/* timeout_ms scaled by $QPNIC_E2E_TIMEOUT_SCALE (default 1): a wait for the
 * NIC, which over a board's serial line takes longer. */
uint64_t e2e_scaled_ms(int timeout_ms);
unsigned e2e_wait_calls(e2e_cb *cb, unsigned n, int timeout_ms);

/* One side of a loopback pair. */
typedef struct {
    ndk_cq *rcq;     /* receive CQ */
    ndk_cq *icq;     /* initiator CQ */
    e2e_cb rcq_cb, icq_cb;
    ndk_qp *qp;
    ndk_mr *mr;      /* registered over buf with every right */
    uint8_t *buf;    /* E2E_BUF_BYTES of DMA memory */
} e2e_side;

typedef struct {
    ndk_adapter *ad;
    ndk_pd *pd;
    e2e_side a, b;   /* a.qp and b.qp are connected to each other */
    /* side b's adapter and PD: ad and pd, or a second NIC's (two_nics) */
    ndk_adapter *ad_b;
    ndk_pd *pd_b;
} e2e_pair;

/* Options of e2e_pair_open; zero means the default. */
typedef struct {
    uint32_t sq_depth, rq_depth, cq_depth;
    int share_cq;    /* both sides' QPs use side a's CQs */
    int set_rnr;     /* ndk_set_rnr_retry(rnr_retry) on both QPs before they connect */
    uint32_t rnr_retry;
    int two_nics;    /* side b on a second adapter: the pair talks over the wire
                      * (also with $QPNIC_E2E_TWO_NICS=1; not with share_cq) */
} e2e_opts;

void e2e_fail(void);
/* The simulator's DMA checker refused nothing so far (when: for the message). */
void e2e_expect_no_refused_dma(ndk_adapter *ad, const char *when);
void e2e_pair_open(e2e_pair *p, const e2e_opts *o);
void e2e_pair_close(e2e_pair *p);

/* An SGE over [off, off + len) of a side's buffer. */
ndk_sge e2e_sge(const e2e_side *s, uint32_t off, uint32_t len);
/* The remote address and token of [off, ...) of a side's buffer. */
uint64_t e2e_remote_addr(const e2e_side *s, uint32_t off);

/* Poll cq until n results arrived or timeout_ms passed; returns how many. */
uint32_t e2e_poll(ndk_cq *cq, ndk_result_ex *out, uint32_t n, int timeout_ms);
/* One result from cq within 10 s, with status want (the test fails
 * otherwise, naming the request as the printf-style what says); returns it. */
ndk_result_ex e2e_expect_one(ndk_cq *cq, ndk_status want, const char *what, ...)
    __attribute__((format(printf, 3, 4)));
/* Wait until the NIC has nothing in flight (device idle), then poll once:
 * the number of results present. Used to show that something did NOT come. */
uint32_t e2e_settle_and_poll(e2e_pair *p, ndk_cq *cq, ndk_result_ex *out, uint32_t n);

/* `pages` zeroed, page-aligned pages of DMA memory (for page lists);
 * *block is what to give ndk_free_dma. */
uint8_t *e2e_pages(e2e_pair *p, uint32_t pages, void **block);
void e2e_fill(uint8_t *b, uint32_t len, uint32_t seed);
uint64_t e2e_now_ms(void);
/* Environment variable name as a number (strtoul base 0), dflt when unset:
 * the knobs of the long runs (their seconds, their seed). */
unsigned e2e_env_uint(const char *name, unsigned dflt);

/* Seconds a case may run before it is killed as hung (default 60). */
extern unsigned e2e_case_timeout_s;

/* Run named cases; prints "PASS name" each and the closing count line. */
typedef void (*e2e_case_fn)(void);
typedef struct { const char *name; e2e_case_fn fn; } e2e_case;
int e2e_run(const e2e_case *cases, size_t n, int argc, char **argv);

#endif
