/* test_link.c: the host's side of the board link (docs/link.md) against a
 * fake NIC (link_nic.c) over a socketpair, a faulty line, a pseudo-terminal.
 *
 * Randomized cases print their seed; QPNIC_TEST_SEED=N replays the choices
 * (the faults each direction makes, the sizes and values), though not the
 * threads' timing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fake_nic.h"
#include "link.h"
#include "link_nic.h"
#include "regs.h"
#include "shm_proto.h"

static uint64_t seed;

static uint64_t rng_next(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ull; /* splitmix64 */
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)((t.tv_sec - t0->tv_sec) * 1000L + (t.tv_nsec - t0->tv_nsec) / 1000000L);
}

/* ---- frames ---- */

static void link_crc32_is_ieee(void)
{
    /* The check value of CRC-32/ISO-HDLC (zlib's crc32 of "123456789"). */
    const char *s = "123456789";
    uint32_t c = qpnic_link_crc32((const uint8_t *)s, strlen(s));
    CHECK(c == 0xCBF43926u, "crc32(\"123456789\") = 0x%08x, want 0xcbf43926", c);
    CHECK(qpnic_link_crc32(NULL, 0) == 0, "crc32 of nothing = 0x%08x, want 0", qpnic_link_crc32(NULL, 0));
}

static void link_stuffing_round_trips(void)
{
    uint64_t r = seed;
    for (int k = 0; k < 200; k++) {
        uint8_t body[QPNIC_LINK_MAX_BODY], frame[QPNIC_LINK_MAX_FRAME];
        size_t len = QPNIC_LINK_HDR_BYTES +
                     rng_next(&r) % (QPNIC_LINK_MAX_BODY - QPNIC_LINK_CRC_BYTES - QPNIC_LINK_HDR_BYTES + 1);
        for (size_t i = 0; i < len; i++) /* flags and escapes often */
            body[i] = (uint8_t)(rng_next(&r) % 3 == 0 ? QPNIC_LINK_FLAG + rng_next(&r) % 2 : rng_next(&r));
        size_t n = qpnic_link_frame(body, len, (uint32_t)rng_next(&r) & 0xFFu, frame); /* stamps the ack into body */
        CHECK(frame[0] == QPNIC_LINK_FLAG && frame[n - 1] == QPNIC_LINK_FLAG, "frame %d not between flags", k);
        for (size_t i = 1; i + 1 < n; i++)
            if (frame[i] == QPNIC_LINK_FLAG) {
                CHECK(0, "frame %d has a flag inside at byte %zu", k, i);
                break;
            }
        qpnic_unframer u;
        memset(&u, 0, sizeof u);
        int got = 0;
        for (size_t i = 0; i < n; i++)
            if (qpnic_unframe(&u, frame[i]) == 1) {
                got++;
                CHECK(u.len == len + QPNIC_LINK_CRC_BYTES && memcmp(u.body, body, len) == 0,
                      "frame %d: %zu bytes came back of %zu, or different ones", k, u.len, len + 4);
            }
        CHECK(got == 1, "frame %d unframed into %d bodies", k, got);
    }
}

/* A body of the given type and data length with a right CRC, in b (CRC included). */
static size_t make_body(uint8_t *b, uint32_t type, size_t dlen)
{
    size_t len = qpnic_link_body_size(type, dlen);
    memset(b, 0x11, len);
    qpnic_link_put32(b, QPNIC_FIELD(QPNIC_LINK_HDR_TYPE, type));
    qpnic_link_put32(b + len - 4, qpnic_link_crc32(b, len - 4));
    return len;
}

static void link_body_checks_drop_bad_frames(void)
{
    uint8_t b[QPNIC_LINK_MAX_BODY + 8];
    size_t n = make_body(b, QPNIC_LINK_TYPE_NTF, 0);
    CHECK(qpnic_link_check_body(b, n, 1) == QPNIC_LINK_OK, "a good NTF refused");
    CHECK(qpnic_link_check_body(b, n, 0) == QPNIC_LINK_BAD_TYPE, "the NIC takes an NTF");
    b[5] ^= 4;
    CHECK(qpnic_link_check_body(b, n, 1) == QPNIC_LINK_BAD_CRC, "a flipped bit passed");
    n = make_body(b, QPNIC_LINK_TYPE_NTF, 0);
    CHECK(qpnic_link_check_body(b, n - 1, 1) != QPNIC_LINK_OK, "a short NTF passed");
    n = make_body(b, QPNIC_LINK_TYPE_ACK, 4); /* an ACK with 4 extra bytes */
    CHECK(qpnic_link_check_body(b, n, 1) == QPNIC_LINK_BAD_LEN, "a long ACK passed");
    n = make_body(b, QPNIC_LINK_TYPE_DMA_WR, QPNIC_LINK_MAX_DATA);
    CHECK(qpnic_link_check_body(b, n, 1) == QPNIC_LINK_OK, "a DMA_WR of %u bytes refused", QPNIC_LINK_MAX_DATA);
    n = make_body(b, QPNIC_LINK_TYPE_DMA_WR, 0);
    CHECK(qpnic_link_check_body(b, n, 1) == QPNIC_LINK_BAD_LEN, "a DMA_WR of no bytes passed");
    n = make_body(b, QPNIC_LINK_TYPE_ACK, 0);
    qpnic_link_put32(b, QPNIC_FIELD(QPNIC_LINK_HDR_TYPE, QPNIC_LINK_TYPE_RESET_DONE + 1));
    qpnic_link_put32(b + n - 4, qpnic_link_crc32(b, n - 4));
    CHECK(qpnic_link_check_body(b, n, 1) == QPNIC_LINK_BAD_TYPE, "an unknown type passed");
    CHECK(qpnic_link_check_body(b, 3, 1) == QPNIC_LINK_BAD_LEN, "3 bytes passed");
}

/* ---- a transport over a socketpair, with a fake NIC, maybe a faulty line ---- */

typedef struct {
    qpnic_transport *t;
    lnic *n;
    inj *x;
} rig;

static ndk_status rig_open(rig *r, const lnic_cfg *cfg, double rate, int silent)
{
    int sv[2], sw[2];
    memset(r, 0, sizeof *r);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        abort();
    int nic_fd = sv[1];
    if (rate > 0) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sw) != 0)
            abort();
        r->x = inj_start(sv[1], sw[0], rate, seed);
        nic_fd = sw[1];
    }
    r->n = lnic_start(nic_fd, cfg);
    fake_preset_regs(lnic_regs(r->n));
    if (silent)
        lnic_silence(r->n);
    qpnic_pipe *p = NULL;
    ndk_status st = qpnic_pipe_fd_open(sv[0], "socketpair", &p);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_link_transport_open(p, 7, &r->t);
    return st;
}

static void rig_close(rig *r)
{
    if (r->t)
        r->t->ops->close(r->t);
    if (r->x)
        inj_stop(r->x);
    lnic_stop(r->n);
}

#define REGS 64u
#define REG_BASE 0x100u

typedef struct {
    rig *r;
    int ops;
    uint64_t rng;
    int read_bad;   /* DMA reads whose bytes differed or never came */
    int stuck;      /* the host took nothing for 10 s */
} nic_job;

/* The NIC's half of the workload: DMA writes to their own 512-byte slots,
 * a notification after each, every 4th a DMA read of an earlier slot. */
static void *nic_work(void *arg)
{
    nic_job *j = arg;
    uint8_t *shadow = calloc((size_t)j->ops, QPNIC_LINK_MAX_DATA);
    size_t *lens = calloc((size_t)j->ops, sizeof *lens);
    uint64_t base = j->r->t->dma_base;
    for (int i = 0; i < j->ops; i++) {
        size_t len = 1 + rng_next(&j->rng) % QPNIC_LINK_MAX_DATA;
        for (size_t k = 0; k < len; k++)
            shadow[(size_t)i * QPNIC_LINK_MAX_DATA + k] = (uint8_t)rng_next(&j->rng);
        lens[i] = len;
        if (lnic_dma_write(j->r->n, base + (uint64_t)i * QPNIC_LINK_MAX_DATA, shadow + (size_t)i * QPNIC_LINK_MAX_DATA, len) != 0 ||
            lnic_notify(j->r->n, 0xA0000000u + (uint32_t)i) != 0) {
            j->stuck = 1; /* the host stopped taking frames */
            break;
        }
        if (i % 4 == 3) {
            int k = (int)(rng_next(&j->rng) % (uint64_t)(i + 1));
            uint8_t got[QPNIC_LINK_MAX_DATA];
            if (lnic_dma_read(j->r->n, base + (uint64_t)k * QPNIC_LINK_MAX_DATA, lens[k], got, 10000) != 0 ||
                memcmp(got, shadow + (size_t)k * QPNIC_LINK_MAX_DATA, lens[k]) != 0)
                j->read_bad++;
        }
    }
    /* The host memory is checked against this once everything is acknowledged. */
    int bad = lnic_drain(j->r->n, 10000) != 0;
    for (int i = 0; i < j->ops && !bad; i++)
        bad = memcmp(j->r->t->dma + (size_t)i * QPNIC_LINK_MAX_DATA, shadow + (size_t)i * QPNIC_LINK_MAX_DATA, lens[i]) != 0;
    j->read_bad += bad;
    free(shadow);
    free(lens);
    return NULL;
}

/* Every register write applied once and in order, every read right, every
 * DMA write in host memory, every DMA read answered right, every
 * notification delivered once and in order. */
static void run_workload(const char *label, double rate, int ops, int lazy_ack)
{
    rig r;
    lnic_cfg cfg;
    lnic_cfg_default(&cfg);
    cfg.lazy_ack = lazy_ack;
    ndk_status st = rig_open(&r, &cfg, rate, 0);
    CHECK(st == NDK_STATUS_SUCCESS, "%s: open returned %s", label, ndk_status_str(st));
    if (st != NDK_STATUS_SUCCESS) {
        rig_close(&r);
        return;
    }
    qpnic_transport *t = r.t;
    CHECK(t->ops->range_add(t, t->dma_base, (uint64_t)ops * QPNIC_LINK_MAX_DATA,
                            QPNIC_RANGE_READ | QPNIC_RANGE_WRITE) >= 0, "%s: range_add failed", label);
    nic_job job = { &r, ops, seed ^ 0x5555u, 0, 0 };
    pthread_t th;
    pthread_create(&th, NULL, nic_work, &job);

    int nw = 4 * ops;
    uint32_t *want_addr = calloc((size_t)nw, 4), *want_val = calloc((size_t)nw, 4);
    uint32_t last[REGS] = { 0 };
    uint64_t rr = seed ^ 0xAAAAu;
    int written = 0, read_wrong = 0, io_errors = 0;
    uint32_t ntf_next = 0;
    int ntf_wrong = 0;
    for (int i = 0; i < nw; i++) {
        uint32_t reg = (uint32_t)(rng_next(&rr) % REGS), val = (uint32_t)rng_next(&rr);
        if (t->ops->mmio_write(t, REG_BASE + 4 * reg, val) != NDK_STATUS_SUCCESS) {
            io_errors++;
            break;
        }
        want_addr[written] = REG_BASE + 4 * reg;
        want_val[written++] = val;
        last[reg] = val;
        if (i % 8 == 7) {
            uint32_t reg2 = (uint32_t)(rng_next(&rr) % REGS), got = 0;
            if (t->ops->mmio_read(t, REG_BASE + 4 * reg2, &got) != NDK_STATUS_SUCCESS)
                io_errors++;
            else if (got != last[reg2] && read_wrong++ == 0)
                fprintf(stderr, "%s: register 0x%x read 0x%x, last written 0x%x\n", label,
                        REG_BASE + 4 * reg2, got, last[reg2]);
        }
        uint32_t words[16], got = 0;
        t->ops->ntf_wait(t, words, 16, &got, 0);
        for (uint32_t k = 0; k < got; k++)
            ntf_wrong += words[k] != 0xA0000000u + ntf_next++;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (ntf_next < (uint32_t)ops && ms_since(&t0) < 10000) {
        uint32_t words[16], got = 0;
        t->ops->ntf_wait(t, words, 16, &got, 50);
        for (uint32_t k = 0; k < got; k++)
            ntf_wrong += words[k] != 0xA0000000u + ntf_next++;
    }
    pthread_join(th, NULL);
    /* one more read: every write before it has been applied */
    uint32_t dummy;
    CHECK(t->ops->mmio_read(t, REG_BASE, &dummy) == NDK_STATUS_SUCCESS, "%s: the closing read failed", label);

    uint32_t *log_a = calloc((size_t)nw + 1, 4), *log_v = calloc((size_t)nw + 1, 4);
    size_t nlog = lnic_log(r.n, log_a, log_v, (size_t)nw + 1);
    int order_bad = -1;
    for (size_t i = 0; i < nlog && i < (size_t)written && order_bad < 0; i++)
        if (log_a[i] != want_addr[i] || log_v[i] != want_val[i])
            order_bad = (int)i;
    lnic_stats ns;
    lnic_get_stats(r.n, &ns);
    qpnic_link_counts lc;
    qpnic_link_get_counts(t, &lc);

    CHECK(io_errors == 0, "%s: %d register accesses failed", label, io_errors);
    CHECK(nlog == (size_t)written, "%s: the NIC applied %zu register writes, %d were posted", label, nlog, written);
    CHECK(order_bad < 0, "%s: register write %d applied as 0x%x=0x%x, posted 0x%x=0x%x", label, order_bad,
          order_bad < 0 ? 0 : log_a[order_bad], order_bad < 0 ? 0 : log_v[order_bad],
          order_bad < 0 ? 0 : want_addr[order_bad], order_bad < 0 ? 0 : want_val[order_bad]);
    CHECK(read_wrong == 0, "%s: %d register reads returned a stale or wrong value", label, read_wrong);
    CHECK(ntf_next == (uint32_t)ops && ntf_wrong == 0, "%s: %u of %d notifications, %d out of order or twice",
          label, ntf_next, ops, ntf_wrong);
    CHECK(job.read_bad == 0, "%s: %d DMA reads or the final DMA memory were wrong", label, job.read_bad);
    CHECK(!job.stuck, "%s: the host stopped taking the NIC's frames", label);
    CHECK(ns.error[0] == '\0', "%s: the NIC saw: %s", label, ns.error);
    CHECK(lc.dma_violations == 0, "%s: %llu DMA violations inside the range", label,
          (unsigned long long)lc.dma_violations);
    CHECK(lc.window == QPNIC_LINK_NIC_RX_FRAMES, "%s: window %u, the NIC said %u", label, lc.window,
          QPNIC_LINK_NIC_RX_FRAMES);
    if (rate > 0)
        CHECK(inj_hits(r.x) > 0, "%s: the faulty line hit no frame: the case tested nothing", label);
    printf("  %s: %d writes, %d DMA, hits %u; host dropped crc %llu len %llu dup %llu gap %llu, resent %llu, rto %u ms; NIC out-of-seq %u bad %u\n",
           label, written, ops, r.x ? inj_hits(r.x) : 0, (unsigned long long)lc.bad_crc,
           (unsigned long long)lc.bad_len, (unsigned long long)lc.duplicates, (unsigned long long)lc.gaps,
           (unsigned long long)lc.retransmits, lc.rto_ms, ns.out_of_seq, ns.bad);
    free(want_addr);
    free(want_val);
    free(log_a);
    free(log_v);
    rig_close(&r);
}

static void link_clean_line_delivers_everything_once_in_order(void)
{
    run_workload("clean", 0.0, 400, 0);
}

/* A NIC that acknowledges two frames at once (or late): the host takes an
 * ack that covers more than its oldest frame. */
static void link_acks_covering_several_frames(void)
{
    run_workload("lazy acks", 0.0, 200, 1);
    run_workload("lazy acks, faults 3%", 0.03, 100, 1);
}

static void link_faulty_line_delivers_everything_once_in_order(void)
{
    const double rates[] = { 0.01, 0.03, 0.05 };
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        char label[32];
        snprintf(label, sizeof label, "faults %.0f%%", rates[i] * 100);
        run_workload(label, rates[i], 150, 0);
    }
}

static void link_silent_nic_gives_io_error_within_timeout(void)
{
    setenv("QPNIC_LINK_TIMEOUT_MS", "300", 1);
    rig r;
    lnic_cfg cfg;
    lnic_cfg_default(&cfg);
    ndk_status st = rig_open(&r, &cfg, 0.0, 0);
    CHECK(st == NDK_STATUS_SUCCESS, "open returned %s", ndk_status_str(st));
    if (st == NDK_STATUS_SUCCESS) {
        qpnic_transport *t = r.t;
        uint32_t v = 0;
        CHECK_ST(t->ops->mmio_read(t, QPNIC_REG_ID, &v), NDK_STATUS_SUCCESS);
        lnic_silence(r.n);
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_ST(t->ops->mmio_read(t, QPNIC_REG_ID, &v), NDK_STATUS_IO_ERROR);
        uint64_t ms = ms_since(&t0);
        CHECK(ms >= 250 && ms < 1300, "the read gave up after %llu ms, the link timeout is 300", (unsigned long long)ms);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_ST(t->ops->mmio_write(t, QPNIC_REG_ID, 1), NDK_STATUS_IO_ERROR);
        uint32_t w[4], got = 9;
        CHECK_ST(t->ops->ntf_wait(t, w, 4, &got, 1000), NDK_STATUS_IO_ERROR);
        CHECK(got == 0, "a dead link gave %u notifications", got);
        CHECK(ms_since(&t0) < 200, "calls on a dead link took %llu ms", (unsigned long long)ms_since(&t0));
    }
    rig_close(&r);

    /* no RESET_DONE ever: the open itself gives up */
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = rig_open(&r, &cfg, 0.0, 1);
    uint64_t ms = ms_since(&t0);
    CHECK(st == NDK_STATUS_IO_ERROR, "open of a silent NIC returned %s", ndk_status_str(st));
    CHECK(ms >= 250 && ms < 1300, "open of a silent NIC gave up after %llu ms, the link timeout is 300",
          (unsigned long long)ms);
    r.t = NULL;
    rig_close(&r);
    unsetenv("QPNIC_LINK_TIMEOUT_MS");
}

static void link_reset_done_lost_is_resent(void)
{
    rig r;
    lnic_cfg cfg;
    lnic_cfg_default(&cfg);
    cfg.lose_reset_done = 2;
    ndk_status st = rig_open(&r, &cfg, 0.0, 0);
    CHECK(st == NDK_STATUS_SUCCESS, "open with two RESET_DONEs lost returned %s", ndk_status_str(st));
    lnic_stats ns;
    lnic_get_stats(r.n, &ns);
    CHECK(ns.resets == 1, "the NIC reset %u times, want once (one nonce per open)", ns.resets);
    CHECK(ns.reset_repeats >= 2, "the NIC saw %u repeated RESETs, want at least 2", ns.reset_repeats);
    if (st == NDK_STATUS_SUCCESS) {
        uint32_t v = 0;
        CHECK_ST(r.t->ops->mmio_read(r.t, QPNIC_REG_ID, &v), NDK_STATUS_SUCCESS);
        CHECK(v == QPNIC_ID_VALUE, "ID read 0x%x after the handshake, want 0x%x", v, QPNIC_ID_VALUE);
    }
    rig_close(&r);
}

static void link_unknown_version_refused(void)
{
    rig r;
    lnic_cfg cfg;
    lnic_cfg_default(&cfg);
    cfg.version = QPNIC_LINK_VERSION + 1;
    ndk_status st = rig_open(&r, &cfg, 0.0, 0);
    CHECK(st == NDK_STATUS_INTERNAL_ERROR, "open of a NIC of link version %u returned %s",
          QPNIC_LINK_VERSION + 1, ndk_status_str(st));
    if (st == NDK_STATUS_SUCCESS)
        r.t->ops->close(r.t);
    r.t = NULL;
    rig_close(&r);
}

static void link_dma_outside_ranges_not_performed(void)
{
    rig r;
    lnic_cfg cfg;
    lnic_cfg_default(&cfg);
    ndk_status st = rig_open(&r, &cfg, 0.0, 0);
    CHECK(st == NDK_STATUS_SUCCESS, "open returned %s", ndk_status_str(st));
    if (st != NDK_STATUS_SUCCESS) {
        rig_close(&r);
        return;
    }
    qpnic_transport *t = r.t;
    uint64_t b = t->dma_base;
    int rw = t->ops->range_add(t, b, 4096, QPNIC_RANGE_READ | QPNIC_RANGE_WRITE);
    int ro = t->ops->range_add(t, b + 8192, 4096, QPNIC_RANGE_READ);
    CHECK(rw >= 0 && ro >= 0 && rw != ro, "range_add gave %d and %d", rw, ro);
    memset(t->dma, 0x5A, 3 * 4096 + 4096);
    uint8_t pat[64], got[64], zero[64];
    memset(pat, 0xC3, sizeof pat);
    memset(zero, 0, sizeof zero);
    int q = lnic_dma_write(r.n, b + 100, pat, sizeof pat);   /* inside: done */
    q |= lnic_dma_write(r.n, b + 4096 - 32, pat, sizeof pat); /* straddles the end: not done */
    q |= lnic_dma_write(r.n, b + 8192 + 64, pat, sizeof pat); /* read-only range: not done */
    q |= lnic_dma_write(r.n, b + 12288, pat, sizeof pat);     /* in no range: not done */
    CHECK(q == 0, "the NIC could not queue its DMA writes");
    CHECK(lnic_drain(r.n, 5000) == 0, "the host did not take the DMA writes");
    CHECK(memcmp(t->dma + 100, pat, sizeof pat) == 0, "a DMA write inside a range was not performed");
    CHECK(t->dma[4096 - 32] == 0x5A && t->dma[4096 + 31] == 0x5A, "a DMA write across a range's end was performed");
    CHECK(t->dma[8192 + 64] == 0x5A, "a DMA write into a read-only range was performed");
    CHECK(t->dma[12288] == 0x5A, "a DMA write outside every range was performed");
    CHECK(lnic_dma_read(r.n, b + 8192 + 64, sizeof got, got, 5000) == 0, "a DMA read in range got no answer");
    CHECK(got[0] == 0x5A && got[63] == 0x5A, "a DMA read inside a range read 0x%x", got[0]);
    CHECK(lnic_dma_read(r.n, b + 12288, sizeof got, got, 5000) == 0, "a DMA read outside got no answer");
    CHECK(memcmp(got, zero, sizeof got) == 0, "a DMA read outside the ranges was not answered with zeros");
    t->ops->range_del(t, rw);
    CHECK(lnic_dma_write(r.n, b + 200, pat, sizeof pat) == 0, "the NIC could not queue a DMA write");
    CHECK(lnic_drain(r.n, 5000) == 0, "the host did not take the last DMA write");
    CHECK(t->dma[200] == 0x5A, "a DMA write into a deleted range was performed");
    qpnic_link_counts lc;
    qpnic_link_get_counts(t, &lc);
    CHECK(lc.dma_violations == 5, "%llu violations counted, want 5", (unsigned long long)lc.dma_violations);
    rig_close(&r);
}

/* ---- the carriers through ndk_open_adapter ---- */

/* Run open(uri) with stderr in a file; its message into msg. */
static ndk_status open_capturing(const char *uri, char *msg, size_t msg_len, uint64_t *ms)
{
    fflush(stderr);
    char path[] = "/tmp/qpnic-test-link-XXXXXX";
    int fd = mkstemp(path);
    int saved = dup(2);
    dup2(fd, 2);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ndk_adapter *ad = NULL;
    ndk_status st = ndk_open_adapter(uri, &ad);
    *ms = ms_since(&t0);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(fd, msg, msg_len - 1, 0);
    msg[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    if (ad)
        ndk_close_adapter(ad);
    return st;
}

static void link_open_without_device_says_why(void)
{
    char msg[512];
    uint64_t ms;
    ndk_status st = open_capturing("tty:/dev/qpnic-no-such-tty", msg, sizeof msg, &ms);
    CHECK(st == NDK_STATUS_IO_ERROR, "tty: with no device returned %s", ndk_status_str(st));
    CHECK(strstr(msg, "/dev/qpnic-no-such-tty") && strstr(msg, strerror(ENOENT)),
          "tty: message does not name the device and the reason: \"%s\"", msg);
    CHECK(ms < 2000, "tty: with no device took %llu ms", (unsigned long long)ms);
    printf("  said: %s", msg);
    st = open_capturing("tty:/dev/null", msg, sizeof msg, &ms);
    CHECK(st == NDK_STATUS_IO_ERROR, "tty:/dev/null returned %s", ndk_status_str(st));
    CHECK(strstr(msg, "/dev/null") && strstr(msg, "serial"), "tty:/dev/null message: \"%s\"", msg);
    /* No FTDI bridge with this made-up serial is plugged in anywhere. */
    st = open_capturing("usb:0403:6015:QPNIC-NO-SUCH", msg, sizeof msg, &ms);
    CHECK(st == NDK_STATUS_IO_ERROR, "usb: with no device returned %s", ndk_status_str(st));
    CHECK(strstr(msg, "usb:0403:6015:QPNIC-NO-SUCH") && strlen(msg) > 40,
          "usb: message does not name the device and the reason: \"%s\"", msg);
    CHECK(ms < 5000, "usb: with no device took %llu ms", (unsigned long long)ms);
    printf("  said: %s", msg);
    st = open_capturing("usb:zz", msg, sizeof msg, &ms);
    CHECK(st == NDK_STATUS_INVALID_PARAMETER, "usb:zz returned %s", ndk_status_str(st));
    st = open_capturing("tty:", msg, sizeof msg, &ms);
    CHECK(st == NDK_STATUS_INVALID_PARAMETER, "tty: without a device returned %s", ndk_status_str(st));
    st = open_capturing("ttyx", msg, sizeof msg, &ms);
    CHECK(st == NDK_STATUS_INVALID_PARAMETER, "an unknown scheme returned %s", ndk_status_str(st));
}

/* The whole adapter over a pseudo-terminal at a rate without a Bnnn constant. */
static void link_tty_adapter_over_pty(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    CHECK(m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0, "no pseudo-terminal: %s", strerror(errno));
    if (m < 0)
        return;
    char uri[128];
    snprintf(uri, sizeof uri, "tty:%s", ptsname(m));
    lnic_cfg cfg;
    lnic_cfg_default(&cfg);
    lnic *n = lnic_start(m, &cfg);
    fake_preset_regs(lnic_regs(n));
    setenv("QPNIC_LINK_BAUD", "12000000", 1);
    ndk_adapter *ad = NULL;
    ndk_status st = ndk_open_adapter(uri, &ad);
    unsetenv("QPNIC_LINK_BAUD");
    CHECK(st == NDK_STATUS_SUCCESS, "open of %s returned %s", uri, ndk_status_str(st));
    if (st == NDK_STATUS_SUCCESS) {
        ndk_adapter_info info;
        CHECK_ST(ndk_query_adapter_info(ad, &info), NDK_STATUS_SUCCESS);
        CHECK(info.max_qp == QPNIC_NUM_QP, "max_qp %u over the tty, the NIC has %u", (unsigned)info.max_qp,
              QPNIC_NUM_QP);
        CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
    }
    lnic_stats ns;
    lnic_get_stats(n, &ns);
    CHECK(ns.resets == 1 && ns.error[0] == '\0', "over the tty: %u resets, error \"%s\"", ns.resets, ns.error);
    lnic_stop(n);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* a side that writes after the other closed gets EPIPE */
    const char *env = getenv("QPNIC_TEST_SEED");
    seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20;
    printf("test_link: seed %llu (QPNIC_TEST_SEED=%llu replays)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    RUN(link_crc32_is_ieee);
    RUN(link_stuffing_round_trips);
    RUN(link_body_checks_drop_bad_frames);
    RUN(link_clean_line_delivers_everything_once_in_order);
    RUN(link_acks_covering_several_frames);
    RUN(link_faulty_line_delivers_everything_once_in_order);
    RUN(link_silent_nic_gives_io_error_within_timeout);
    RUN(link_reset_done_lost_is_resent);
    RUN(link_unknown_version_refused);
    RUN(link_dma_outside_ranges_not_performed);
    RUN(link_open_without_device_says_why);
    RUN(link_tty_adapter_over_pty);
    TEST_MAIN_END();
}
