/* link.c: the board link transport: the host's side of docs/link.md.
 *
 * For: a qpnic_transport over a byte pipe (link_pipe.c): the RESET
 * handshake, the go-back-N sender of the host's sequenced frames (register
 * writes and reads, DMA read data) with a retransmission timeout that
 * follows the measured round trips, the receiver of the NIC's frames, and
 * the one receive thread that reads the pipe, serves the NIC's DMA against
 * the library's own memory (checked against the registered ranges), hands
 * register replies to the waiting reader and queues notifications.
 * Not for: the bytes of a frame (link_frame.c), what carries them
 * (link_pipe.c), or what the registers mean (adapter.c).
 *
 * Threads and locks: one mutex (m) guards everything here, and one
 * condition variable (c) announces every change a caller may wait for: room
 * in the window, a register reply, a notification, a kick, the link's death.
 * The receive thread takes only m, never a lock of the adapter, so a caller
 * that holds the adapter's lock across mmio_read waits for the reply while
 * the thread goes on. Frames are written to the pipe with m held, which
 * keeps them in seq order on the line.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "link.h"
#include "shm_proto.h" /* QPNIC_SHM_DMA_BASE, QPNIC_RANGE_* */

#define DMA_BYTES (64ull << 20)          /* the memory the NIC reaches */
#define DMA_BASE QPNIC_SHM_DMA_BASE      /* its device address: the simulator's, so logs compare */
#define TXQ_SLOTS 64u                    /* host frames queued: the window in flight, then the rest */
#define RTO_INITIAL_US 50000u            /* before the first round trip is measured */
#define RTO_FLOOR_US 5000u
#define RTO_CEIL_US 1000000u
#define LINK_TIMEOUT_DEFAULT_MS 5000u
#define POLL_MS 2                        /* longest wait for bytes between looks at the timers */
#define NTF_MAX (1u << 16)               /* notifications queued before the NIC's are refused */

typedef struct {
    uint8_t body[QPNIC_LINK_MAX_BODY];
    size_t len;           /* without the CRC */
    uint64_t sent_us;     /* when last sent */
    int resent;           /* sent more than once: no round-trip sample (Karn) */
} tx_slot;

typedef struct {
    uint64_t addr, len;
    uint32_t perm;        /* QPNIC_RANGE_*; 0: a free entry */
} link_range;

typedef struct {
    qpnic_transport base;
    qpnic_pipe *pipe;
    pthread_t thread;
    int thread_started;
    atomic_int stop;
    pthread_mutex_t m;
    pthread_cond_t c;
    uint64_t timeout_us;  /* the link timeout */
    int dead;

    /* opening */
    uint32_t nonce;
    int reset_done;
    uint64_t open_us, reset_sent_us;
    ndk_status open_fail;  /* why the handshake failed, when it is not silence */

    /* sender: txq[(head + i) % TXQ_SLOTS] has seq una + i; the first `sent`
     * have been on the line */
    tx_slot txq[TXQ_SLOTS];
    unsigned head, count, sent, window;
    uint8_t una;
    uint64_t progress_us;  /* the oldest frame out was last acknowledged (or queued) */
    uint32_t rto_us, srtt_us, rttvar_us;
    int have_rtt;

    /* receiver */
    qpnic_unframer unf;
    uint8_t rx_expect;
    int ack_owed;

    /* the register read in flight (the adapter has one at a time) */
    uint8_t rd_tag;
    int rd_waiting, rd_done;
    uint32_t rd_val;

    /* notifications for ntf_wait */
    uint32_t *ntf;
    size_t ntf_cap, ntf_head, ntf_count;
    int kicked;

    link_range *ranges;
    size_t nranges;

    qpnic_link_counts counts;
    uint64_t first_violation;   /* device address of the first DMA refused */
    void *dma_map;
} link_transport;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Wait on c until at most `us` from now (m held). */
static void wait_us(link_transport *lt, uint64_t us)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + us * 1000u;
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    pthread_cond_timedwait(&lt->c, &lt->m, &ts);
}

static void die_locked(link_transport *lt, const char *why)
{
    if (lt->dead)
        return;
    lt->dead = 1;
    fprintf(stderr, "qpnic: link on %s: %s\n", lt->pipe->name, why);
    pthread_cond_broadcast(&lt->c);
}

/* ---- sending ---- */

static uint32_t hdr_word(uint32_t type, uint32_t seq, uint32_t ack, uint32_t tag)
{
    return QPNIC_FIELD(QPNIC_LINK_HDR_TYPE, type) | QPNIC_FIELD(QPNIC_LINK_HDR_SEQ, seq) |
           QPNIC_FIELD(QPNIC_LINK_HDR_ACK, ack) | QPNIC_FIELD(QPNIC_LINK_HDR_TAG, tag);
}

/* Put a body on the line with the ack of now (every frame carries it). */
static void send_body_locked(link_transport *lt, uint8_t *body, size_t len)
{
    if (lt->dead)
        return;
    uint8_t frame[QPNIC_LINK_MAX_FRAME];
    size_t n = qpnic_link_frame(body, len, lt->rx_expect, frame);
    if (lt->pipe->write(lt->pipe, frame, n) != 0) {
        die_locked(lt, "writing failed; the device is gone");
        return;
    }
    lt->counts.frames_out++;
    lt->ack_owed = 0;
}

static void send_ack_locked(link_transport *lt)
{
    uint8_t body[QPNIC_LINK_MIN_BODY];
    qpnic_link_put32(body, hdr_word(QPNIC_LINK_TYPE_ACK, 0, 0, 0));
    send_body_locked(lt, body, QPNIC_LINK_HDR_BYTES);
}

static void send_reset_locked(link_transport *lt)
{
    uint8_t body[QPNIC_LINK_MAX_BODY];
    uint32_t w[QPNIC_LINK_RESET_WORDS] = { hdr_word(QPNIC_LINK_TYPE_RESET, 0, 0, 0) };
    QPNIC_FIELD_SET(w, QPNIC_LINK_RESET_NONCE, lt->nonce);
    size_t len = qpnic_link_body_size(QPNIC_LINK_TYPE_RESET, 0) - QPNIC_LINK_CRC_BYTES;
    for (size_t i = 0; i < len / 4; i++)
        qpnic_link_put32(body + 4 * i, w[i]);
    send_body_locked(lt, body, len);
    lt->reset_sent_us = now_us();
}

static tx_slot *slot_at(link_transport *lt, unsigned i)
{
    return &lt->txq[(lt->head + i) % TXQ_SLOTS];
}

/* Send the queued frames the window allows that were never sent. */
static void pump_locked(link_transport *lt)
{
    unsigned limit = lt->count < lt->window ? lt->count : lt->window;
    while (lt->sent < limit && !lt->dead) {
        tx_slot *s = slot_at(lt, lt->sent);
        send_body_locked(lt, s->body, s->len);
        s->sent_us = now_us();
        lt->sent++;
    }
}

/* Queue a sequenced frame (the caller made room): its header words[0] and
 * words[1..nwords) after it, then data. */
static void queue_locked(link_transport *lt, uint32_t type, uint32_t tag, const uint32_t *words,
                         unsigned nwords, const uint8_t *data, size_t data_len)
{
    tx_slot *s = slot_at(lt, lt->count);
    uint8_t seq = (uint8_t)(lt->una + lt->count);
    qpnic_link_put32(s->body, hdr_word(type, seq, 0, tag));
    for (unsigned i = 1; i < nwords; i++)
        qpnic_link_put32(s->body + 4 * i, words[i]);
    s->len = qpnic_link_body_size(type, data_len) - QPNIC_LINK_CRC_BYTES;
    if (data_len)
        memcpy(s->body + s->len - data_len, data, data_len);
    s->resent = 0;
    if (lt->count == 0)
        lt->progress_us = now_us();
    lt->count++;
    pump_locked(lt);
}

/* RFC 6298's estimator, in microseconds, between the floor and the ceiling. */
static void rtt_sample_locked(link_transport *lt, uint32_t r)
{
    if (!lt->have_rtt) {
        lt->srtt_us = r;
        lt->rttvar_us = r / 2;
        lt->have_rtt = 1;
    } else {
        uint32_t d = lt->srtt_us > r ? lt->srtt_us - r : r - lt->srtt_us;
        lt->rttvar_us = (3 * lt->rttvar_us + d) / 4;
        lt->srtt_us = (7 * lt->srtt_us + r) / 8;
    }
    uint64_t rto = (uint64_t)lt->srtt_us + 4u * (uint64_t)lt->rttvar_us;
    lt->rto_us = rto < RTO_FLOOR_US ? RTO_FLOOR_US : rto > RTO_CEIL_US ? RTO_CEIL_US : (uint32_t)rto;
}

/* The NIC expects `ack` next: every frame before it arrived and was applied. */
static void take_ack_locked(link_transport *lt, uint8_t ack)
{
    unsigned n = (uint8_t)(ack - lt->una);
    if (n == 0 || n > lt->sent)
        return; /* nothing new, or an ack of frames never sent (stale) */
    tx_slot *newest = slot_at(lt, n - 1);
    uint64_t now = now_us();
    if (!newest->resent)
        rtt_sample_locked(lt, (uint32_t)(now - newest->sent_us));
    lt->head = (lt->head + n) % TXQ_SLOTS;
    lt->count -= n;
    lt->sent -= n;
    lt->una = ack;
    lt->progress_us = now;
    pthread_cond_broadcast(&lt->c);
}

/* The timers: the handshake's RESET, the link timeout, retransmission. */
static void tick_locked(link_transport *lt)
{
    uint64_t now = now_us();
    if (!lt->reset_done) {
        if (now - lt->open_us > lt->timeout_us)
            die_locked(lt, "no RESET_DONE came back within the link timeout; is the board there and loaded?");
        else if (now - lt->reset_sent_us >= lt->rto_us)
            send_reset_locked(lt);
        return;
    }
    if (lt->count > 0 && now - lt->progress_us > lt->timeout_us) {
        die_locked(lt, "no frame acknowledged within the link timeout; the device is gone");
        return;
    }
    if (lt->sent > 0 && now - slot_at(lt, 0)->sent_us >= lt->rto_us) {
        for (unsigned i = 0; i < lt->sent; i++) {
            tx_slot *s = slot_at(lt, i);
            send_body_locked(lt, s->body, s->len);
            s->sent_us = now;
            s->resent = 1;
        }
        lt->counts.retransmits += lt->sent;
        lt->rto_us = lt->rto_us * 2 > RTO_CEIL_US ? RTO_CEIL_US : lt->rto_us * 2; /* back off */
    }
    pump_locked(lt);
    if (lt->ack_owed)
        send_ack_locked(lt);
}

/* ---- serving the NIC's DMA ---- */

static int dma_allowed_locked(link_transport *lt, uint64_t addr, uint64_t len, uint32_t perm)
{
    uint64_t base = lt->base.dma_base, bytes = lt->base.dma_bytes;
    if (addr < base || addr - base > bytes || len > bytes - (addr - base))
        return 0;
    for (size_t i = 0; i < lt->nranges; i++) {
        const link_range *r = &lt->ranges[i];
        if ((r->perm & perm) == perm && r->perm && addr >= r->addr && addr - r->addr <= r->len &&
            len <= r->len - (addr - r->addr))
            return 1;
    }
    return 0;
}

static void violation_locked(link_transport *lt, const char *what, uint64_t addr, size_t len)
{
    if (lt->counts.dma_violations == 0)
        lt->first_violation = addr;
    if (lt->counts.dma_violations++ == 0)
        fprintf(stderr, "qpnic: link on %s: DMA %s of %zu bytes at 0x%llx outside the host's ranges: "
                "not performed (further ones counted, not printed)\n",
                lt->pipe->name, what, len, (unsigned long long)addr);
}

static uint64_t dma_addr(const uint32_t *w)
{
    return (uint64_t)QPNIC_FIELD_GET(w, QPNIC_LINK_DMA_ADDR_HI) << 32 |
           QPNIC_FIELD_GET(w, QPNIC_LINK_DMA_ADDR_LO);
}

static void dma_write_locked(link_transport *lt, const uint32_t *w, const uint8_t *body, size_t len)
{
    size_t off = qpnic_link_body_size(QPNIC_LINK_TYPE_DMA_WR, 0) - QPNIC_LINK_CRC_BYTES;
    size_t n = len - off - QPNIC_LINK_CRC_BYTES;
    uint64_t addr = dma_addr(w);
    if (dma_allowed_locked(lt, addr, n, QPNIC_RANGE_WRITE))
        memcpy(lt->base.dma + (addr - lt->base.dma_base), body + off, n);
    else
        violation_locked(lt, "write", addr, n);
}

/* Answer a DMA read with DMA_RD_DATA; 0 when there is no room to queue it
 * (the request is then not taken: the NIC sends it again). */
static int dma_read_locked(link_transport *lt, const uint32_t *w, uint32_t tag)
{
    if (lt->count >= TXQ_SLOTS)
        return 0;
    uint32_t n = QPNIC_FIELD_GET(w, QPNIC_LINK_DMA_LEN);
    uint64_t addr = dma_addr(w);
    uint8_t data[QPNIC_LINK_MAX_DATA];
    if (dma_allowed_locked(lt, addr, n, QPNIC_RANGE_READ)) {
        memcpy(data, lt->base.dma + (addr - lt->base.dma_base), n);
    } else {
        memset(data, 0, n);
        violation_locked(lt, "read", addr, n);
    }
    uint32_t hdr = 0;
    queue_locked(lt, QPNIC_LINK_TYPE_DMA_RD_DATA, tag, &hdr, QPNIC_LINK_HDR_WORDS, data, n);
    return 1;
}

/* ---- receiving ---- */

static int queue_ntf_locked(link_transport *lt, uint32_t word)
{
    if (lt->ntf_count == lt->ntf_cap) {
        size_t cap = lt->ntf_cap ? 2 * lt->ntf_cap : 256;
        uint32_t *p = cap <= NTF_MAX ? malloc(cap * sizeof *p) : NULL;
        if (!p)
            return 0; /* full: not taken, the NIC sends it again */
        for (size_t i = 0; i < lt->ntf_count; i++)
            p[i] = lt->ntf[(lt->ntf_head + i) % lt->ntf_cap];
        free(lt->ntf);
        lt->ntf = p;
        lt->ntf_cap = cap;
        lt->ntf_head = 0;
    }
    lt->ntf[(lt->ntf_head + lt->ntf_count) % lt->ntf_cap] = word;
    lt->ntf_count++;
    pthread_cond_broadcast(&lt->c);
    return 1;
}

/* Take a sequenced NIC frame that came in order; 0 when it cannot be taken now. */
static int deliver_locked(link_transport *lt, uint32_t type, uint32_t tag, const uint32_t *w,
                          const uint8_t *body, size_t len)
{
    switch (type) {
    case QPNIC_LINK_TYPE_MMIO_RD_REPLY:
        if (lt->rd_waiting && !lt->rd_done && tag == lt->rd_tag) {
            lt->rd_val = QPNIC_FIELD_GET(w, QPNIC_LINK_MMIO_DATA);
            lt->rd_done = 1;
            pthread_cond_broadcast(&lt->c);
        }
        return 1;
    case QPNIC_LINK_TYPE_NTF:
        return queue_ntf_locked(lt, QPNIC_FIELD_GET(w, QPNIC_LINK_NTF_WORD));
    case QPNIC_LINK_TYPE_DMA_WR:
        dma_write_locked(lt, w, body, len);
        return 1;
    default: /* DMA_RD_REQ */
        return dma_read_locked(lt, w, tag);
    }
}

static void reset_done_locked(link_transport *lt, const uint32_t *w)
{
    if (lt->reset_done || QPNIC_FIELD_GET(w, QPNIC_LINK_RESET_NONCE) != lt->nonce)
        return; /* a repeat, or the answer to an earlier open */
    uint32_t version = QPNIC_FIELD_GET(w, QPNIC_LINK_RESET_VERSION);
    if (version != QPNIC_LINK_VERSION) {
        char why[96];
        snprintf(why, sizeof why, "the NIC speaks link version %u, this library %u",
                 (unsigned)version, (unsigned)QPNIC_LINK_VERSION);
        lt->open_fail = NDK_STATUS_INTERNAL_ERROR;
        die_locked(lt, why);
        return;
    }
    uint32_t win = QPNIC_FIELD_GET(w, QPNIC_LINK_RESET_RX_FRAMES);
    lt->window = win == 0 ? 1 : win > TXQ_SLOTS ? TXQ_SLOTS : win;
    lt->reset_done = 1;
    pthread_cond_broadcast(&lt->c);
}

static void on_body_locked(link_transport *lt, const uint8_t *body, size_t len)
{
    switch (qpnic_link_check_body(body, len, 1)) {
    case QPNIC_LINK_BAD_LEN: lt->counts.bad_len++; return;
    case QPNIC_LINK_BAD_CRC: lt->counts.bad_crc++; return;
    case QPNIC_LINK_BAD_TYPE: lt->counts.bad_type++; return;
    case QPNIC_LINK_OK: break;
    }
    lt->counts.frames_in++;
    uint32_t w[QPNIC_LINK_DMA_WORDS] = { 0 };
    size_t nw = len / 4 < QPNIC_LINK_DMA_WORDS ? len / 4 : QPNIC_LINK_DMA_WORDS;
    for (size_t i = 0; i < nw; i++)
        w[i] = qpnic_link_get32(body + 4 * i);
    uint32_t type = QPNIC_FIELD_GET(w, QPNIC_LINK_HDR_TYPE);
    uint8_t seq = (uint8_t)QPNIC_FIELD_GET(w, QPNIC_LINK_HDR_SEQ);
    if (type == QPNIC_LINK_TYPE_RESET_DONE) {
        reset_done_locked(lt, w);
        return;
    }
    if (!lt->reset_done)
        return; /* before RESET_DONE: from the NIC's life before this open */
    if (type == QPNIC_LINK_TYPE_DMA_RD_REQ) {
        uint32_t n = QPNIC_FIELD_GET(w, QPNIC_LINK_DMA_LEN);
        if (n == 0 || n > QPNIC_LINK_MAX_DATA) {
            lt->counts.bad_len++;
            return;
        }
    }
    take_ack_locked(lt, (uint8_t)QPNIC_FIELD_GET(w, QPNIC_LINK_HDR_ACK));
    if (type == QPNIC_LINK_TYPE_ACK)
        return;
    if (seq != lt->rx_expect) {
        if ((uint8_t)(lt->rx_expect - seq) <= 128)
            lt->counts.duplicates++;
        else
            lt->counts.gaps++;
        send_ack_locked(lt); /* tell the NIC where we stand */
        return;
    }
    if (!deliver_locked(lt, type, QPNIC_FIELD_GET(w, QPNIC_LINK_HDR_TAG), w, body, len))
        return;
    lt->rx_expect++;
    lt->ack_owed = 1;
}

static void *rx_main(void *arg)
{
    link_transport *lt = arg;
    uint8_t buf[4096];
    while (!atomic_load(&lt->stop)) {
        int n = lt->pipe->read(lt->pipe, buf, sizeof buf, POLL_MS);
        pthread_mutex_lock(&lt->m);
        if (n < 0)
            die_locked(lt, "reading failed; the device is gone");
        for (int i = 0; i < n && !lt->dead; i++) {
            int r = qpnic_unframe(&lt->unf, buf[i]);
            if (r > 0)
                on_body_locked(lt, lt->unf.body, lt->unf.len);
            else if (r < 0)
                lt->counts.bad_len++;
        }
        if (!lt->dead)
            tick_locked(lt);
        int dead = lt->dead;
        pthread_mutex_unlock(&lt->m);
        if (dead)
            break;
    }
    return NULL;
}

/* ---- the transport calls ---- */

/* Wait (m held) for room in the window; 0, or -1 when the link is dead. */
static int wait_window_locked(link_transport *lt)
{
    while (!lt->dead && lt->count >= lt->window)
        wait_us(lt, 100000u);
    return lt->dead ? -1 : 0;
}

static ndk_status link_mmio_write(qpnic_transport *t, uint32_t addr, uint32_t val)
{
    link_transport *lt = (link_transport *)t;
    pthread_mutex_lock(&lt->m);
    ndk_status st = NDK_STATUS_IO_ERROR;
    if (wait_window_locked(lt) == 0) {
        uint32_t w[QPNIC_LINK_MMIO_WORDS] = { 0 };
        QPNIC_FIELD_SET(w, QPNIC_LINK_MMIO_ADDR, addr);
        QPNIC_FIELD_SET(w, QPNIC_LINK_MMIO_DATA, val);
        queue_locked(lt, QPNIC_LINK_TYPE_MMIO_WR, 0, w, QPNIC_LINK_MMIO_WORDS, NULL, 0);
        st = lt->dead ? NDK_STATUS_IO_ERROR : NDK_STATUS_SUCCESS;
    }
    pthread_mutex_unlock(&lt->m);
    return st;
}

static ndk_status link_mmio_read(qpnic_transport *t, uint32_t addr, uint32_t *val)
{
    link_transport *lt = (link_transport *)t;
    pthread_mutex_lock(&lt->m);
    ndk_status st = NDK_STATUS_IO_ERROR;
    if (wait_window_locked(lt) == 0) {
        uint32_t w[QPNIC_LINK_MMIO_ADDR_WORD + 1u] = { 0 };
        QPNIC_FIELD_SET(w, QPNIC_LINK_MMIO_ADDR, addr);
        lt->rd_tag++;
        lt->rd_waiting = 1;
        lt->rd_done = 0;
        queue_locked(lt, QPNIC_LINK_TYPE_MMIO_RD, lt->rd_tag, w, QPNIC_LINK_MMIO_ADDR_WORD + 1u, NULL, 0);
        /* A NIC that takes the read but never answers is as gone as a
         * silent one. */
        uint64_t deadline = now_us() + lt->timeout_us;
        while (!lt->rd_done && !lt->dead) {
            if (now_us() >= deadline)
                die_locked(lt, "no reply to a register read within the link timeout; the device is gone");
            else
                wait_us(lt, 100000u);
        }
        lt->rd_waiting = 0;
        if (lt->rd_done) {
            *val = lt->rd_val;
            st = NDK_STATUS_SUCCESS;
        }
    }
    pthread_mutex_unlock(&lt->m);
    return st;
}

static ndk_status link_ntf_wait(qpnic_transport *t, uint32_t *words, uint32_t max, uint32_t *got,
                                int timeout_ms)
{
    link_transport *lt = (link_transport *)t;
    pthread_mutex_lock(&lt->m);
    uint64_t deadline = now_us() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000u;
    for (;;) {
        uint64_t now = now_us();
        if (lt->ntf_count || lt->dead || lt->kicked || now >= deadline)
            break;
        wait_us(lt, deadline - now);
    }
    lt->kicked = 0;
    uint32_t n = lt->ntf_count < max ? (uint32_t)lt->ntf_count : max;
    for (uint32_t i = 0; i < n; i++)
        words[i] = lt->ntf[(lt->ntf_head + i) % lt->ntf_cap];
    if (n) {
        lt->ntf_head = (lt->ntf_head + n) % lt->ntf_cap;
        lt->ntf_count -= n;
    }
    *got = n;
    ndk_status st = n == 0 && lt->dead ? NDK_STATUS_IO_ERROR : NDK_STATUS_SUCCESS;
    pthread_mutex_unlock(&lt->m);
    return st;
}

static void link_ntf_kick(qpnic_transport *t)
{
    link_transport *lt = (link_transport *)t;
    pthread_mutex_lock(&lt->m);
    lt->kicked = 1;
    pthread_cond_broadcast(&lt->c);
    pthread_mutex_unlock(&lt->m);
}

static int link_range_add(qpnic_transport *t, uint64_t dev_addr, uint64_t len, uint32_t perm)
{
    link_transport *lt = (link_transport *)t;
    if (perm == 0)
        return -1;
    pthread_mutex_lock(&lt->m);
    size_t i = 0;
    while (i < lt->nranges && lt->ranges[i].perm)
        i++;
    if (i == lt->nranges) { /* every entry used: double the table */
        size_t cap = i ? 2 * i : 64;
        link_range *p = cap <= (size_t)INT32_MAX ? realloc(lt->ranges, cap * sizeof *p) : NULL;
        if (!p) {
            pthread_mutex_unlock(&lt->m);
            return -1;
        }
        memset(p + i, 0, (cap - i) * sizeof *p);
        lt->ranges = p;
        lt->nranges = cap;
    }
    lt->ranges[i] = (link_range){ dev_addr, len, perm };
    pthread_mutex_unlock(&lt->m);
    return (int)i;
}

static void link_range_del(qpnic_transport *t, int handle)
{
    link_transport *lt = (link_transport *)t;
    pthread_mutex_lock(&lt->m);
    if (handle >= 0 && (size_t)handle < lt->nranges)
        lt->ranges[handle].perm = 0;
    pthread_mutex_unlock(&lt->m);
}

static void link_close(qpnic_transport *t)
{
    link_transport *lt = (link_transport *)t;
    atomic_store(&lt->stop, 1);
    if (lt->thread_started)
        pthread_join(lt->thread, NULL);
    lt->pipe->close(lt->pipe);
    if (lt->dma_map)
        munmap(lt->dma_map, DMA_BYTES);
    pthread_mutex_destroy(&lt->m);
    pthread_cond_destroy(&lt->c);
    free(lt->ntf);
    free(lt->ranges);
    free(lt);
}

static void link_violations(qpnic_transport *t, uint32_t *count, uint64_t *first_addr)
{
    link_transport *lt = (link_transport *)t;
    pthread_mutex_lock(&lt->m);
    *count = (uint32_t)lt->counts.dma_violations;
    *first_addr = lt->first_violation;
    pthread_mutex_unlock(&lt->m);
}

static const qpnic_transport_ops link_ops = {
    .mmio_write = link_mmio_write,
    .mmio_read = link_mmio_read,
    .ntf_wait = link_ntf_wait,
    .ntf_kick = link_ntf_kick,
    .range_add = link_range_add,
    .range_del = link_range_del,
    .violations = link_violations,
    .close = link_close,
};

void qpnic_link_get_counts(qpnic_transport *t, qpnic_link_counts *out)
{
    link_transport *lt = (link_transport *)t;
    pthread_mutex_lock(&lt->m);
    *out = lt->counts;
    out->rto_ms = lt->rto_us / 1000u;
    out->window = lt->window;
    pthread_mutex_unlock(&lt->m);
}

/* ---- opening ---- */

static uint64_t link_timeout_us(void)
{
    const char *env = getenv("QPNIC_LINK_TIMEOUT_MS");
    char *end = NULL;
    unsigned long ms = env ? strtoul(env, &end, 10) : 0;
    if (!env || end == env || *end != '\0' || ms == 0)
        ms = LINK_TIMEOUT_DEFAULT_MS;
    return (uint64_t)ms * 1000u;
}

static uint32_t fresh_nonce(void)
{
    uint32_t n = 0;
    if (getrandom(&n, sizeof n, GRND_NONBLOCK) != (ssize_t)sizeof n)
        n = (uint32_t)now_us() ^ (uint32_t)getpid() << 16;
    return n;
}

ndk_status qpnic_link_transport_open(qpnic_pipe *pipe, uint64_t node, qpnic_transport **out)
{
    link_transport *lt = calloc(1, sizeof *lt);
    if (!lt) {
        pipe->close(pipe);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    lt->pipe = pipe;
    pthread_mutex_init(&lt->m, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&lt->c, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&lt->stop, 0);
    void *mem = mmap(NULL, DMA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        link_close(&lt->base);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    lt->dma_map = mem;
    lt->base.ops = &link_ops;
    lt->base.dma = mem;
    lt->base.dma_bytes = DMA_BYTES;
    lt->base.dma_base = DMA_BASE;
    lt->base.node = node;
    lt->timeout_us = link_timeout_us();
    lt->rto_us = RTO_INITIAL_US;
    lt->window = 1;
    lt->nonce = fresh_nonce();

    pthread_mutex_lock(&lt->m);
    lt->open_us = now_us();
    send_reset_locked(lt);
    pthread_mutex_unlock(&lt->m);
    if (pthread_create(&lt->thread, NULL, rx_main, lt) != 0) {
        link_close(&lt->base);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    lt->thread_started = 1;

    pthread_mutex_lock(&lt->m);
    while (!lt->reset_done && !lt->dead)
        wait_us(lt, 100000u);
    ndk_status st = lt->reset_done && !lt->dead ? NDK_STATUS_SUCCESS
                    : lt->open_fail ? lt->open_fail : NDK_STATUS_IO_ERROR;
    pthread_mutex_unlock(&lt->m);
    if (st != NDK_STATUS_SUCCESS) {
        link_close(&lt->base);
        return st;
    }
    *out = &lt->base;
    return NDK_STATUS_SUCCESS;
}
