/* link_nic.c: the fake board NIC and the faulty line of link_nic.h. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "link.h"
#include "link_nic.h"

#define NQ 64u          /* frames it queues; LINK_NIC_TX_FRAMES of them out at once */
#define LOG_MAX (1u << 16)

typedef struct {
    uint8_t b[QPNIC_LINK_MAX_BODY];
    size_t n;           /* without the CRC */
} nframe;

struct lnic {
    int fd;
    lnic_cfg cfg;
    pthread_t th;
    atomic_int stop;
    pthread_mutex_t m;
    pthread_cond_t c;
    uint32_t regs[0x10000 / 4];
    uint32_t *log_addr, *log_val;
    size_t nlog;
    int silent;
    int have_nonce;
    uint32_t nonce;
    uint8_t expect;      /* the host's next seq */
    int owe_ack;         /* frames applied since the last ack sent */
    uint64_t owe_since_ms; /* when the first of them was */
    nframe q[NQ];
    unsigned qh, qn, qsent;
    uint8_t qseq;        /* seq of q[qh] */
    uint64_t oldest_ms;  /* when the oldest frame out was (re)sent */
    uint8_t rd_tag;
    int rd_wait, rd_got;
    size_t rd_len;
    uint8_t rd_data[QPNIC_LINK_MAX_DATA];
    lnic_stats st;
    qpnic_unframer u;
};

static uint64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* the host end is gone: a test is ending */
        p += w;
        n -= (size_t)w;
    }
}

static void emit(lnic *n, uint8_t *body, size_t len)
{
    if (n->silent)
        return;
    uint8_t f[QPNIC_LINK_MAX_FRAME];
    write_all(n->fd, f, qpnic_link_frame(body, len, n->expect, f));
    n->owe_ack = 0;
}

/* Build a body: header of type/seq/tag, words w[1..nw), then data. */
static size_t build(uint8_t *b, uint32_t type, uint32_t seq, uint32_t tag, const uint32_t *w,
                    unsigned nw, const uint8_t *data, size_t dlen)
{
    qpnic_link_put32(b, QPNIC_FIELD(QPNIC_LINK_HDR_TYPE, type) | QPNIC_FIELD(QPNIC_LINK_HDR_SEQ, seq) |
                        QPNIC_FIELD(QPNIC_LINK_HDR_TAG, tag));
    for (unsigned i = 1; i < nw; i++)
        qpnic_link_put32(b + 4 * i, w[i]);
    size_t len = qpnic_link_body_size(type, dlen) - QPNIC_LINK_CRC_BYTES;
    if (dlen)
        memcpy(b + len - dlen, data, dlen);
    return len;
}

static void send_plain(lnic *n, uint32_t type, const uint32_t *w, unsigned nw)
{
    uint8_t b[QPNIC_LINK_MAX_BODY];
    emit(n, b, build(b, type, 0, 0, w, nw, NULL, 0));
}

/* Queue a sequenced frame; m held, room checked by the caller. */
static void enqueue(lnic *n, uint32_t type, uint32_t tag, const uint32_t *w, unsigned nw,
                    const uint8_t *data, size_t dlen)
{
    nframe *f = &n->q[(n->qh + n->qn) % NQ];
    f->n = build(f->b, type, (uint8_t)(n->qseq + n->qn), tag, w, nw, data, dlen);
    n->qn++;
}

static void error_once(lnic *n, const char *what, unsigned a, unsigned b)
{
    if (!n->st.error[0])
        snprintf(n->st.error, sizeof n->st.error, "%s (%u vs %u)", what, a, b);
}

static void on_reset(lnic *n, const uint32_t *w)
{
    uint32_t nonce = QPNIC_FIELD_GET(w, QPNIC_LINK_RESET_NONCE);
    if (n->have_nonce && nonce == n->nonce) {
        n->st.reset_repeats++;
    } else { /* the NIC and the link start again */
        n->have_nonce = 1;
        n->nonce = nonce;
        n->expect = 0;
        n->qh = n->qn = n->qsent = 0;
        n->qseq = 0;
        n->st.resets++;
    }
    if (n->cfg.lose_reset_done > 0) {
        n->cfg.lose_reset_done--;
        return;
    }
    uint32_t r[QPNIC_LINK_RESET_WORDS] = { 0 };
    QPNIC_FIELD_SET(r, QPNIC_LINK_RESET_NONCE, nonce);
    QPNIC_FIELD_SET(r, QPNIC_LINK_RESET_RX_FRAMES, n->cfg.rx_frames);
    QPNIC_FIELD_SET(r, QPNIC_LINK_RESET_TX_FRAMES, QPNIC_LINK_NIC_TX_FRAMES);
    QPNIC_FIELD_SET(r, QPNIC_LINK_RESET_VERSION, n->cfg.version);
    send_plain(n, QPNIC_LINK_TYPE_RESET_DONE, r, QPNIC_LINK_RESET_WORDS);
}

/* Apply a host frame that came in order; 0 when it cannot be taken now. */
static int apply(lnic *n, uint32_t type, uint32_t tag, const uint32_t *w, const uint8_t *b, size_t len)
{
    uint32_t addr = QPNIC_FIELD_GET(w, QPNIC_LINK_MMIO_ADDR);
    if (type == QPNIC_LINK_TYPE_MMIO_WR) {
        n->regs[addr / 4] = QPNIC_FIELD_GET(w, QPNIC_LINK_MMIO_DATA);
        if (n->nlog < LOG_MAX) {
            n->log_addr[n->nlog] = addr;
            n->log_val[n->nlog++] = n->regs[addr / 4];
        }
    } else if (type == QPNIC_LINK_TYPE_MMIO_RD) {
        if (n->qn >= NQ)
            return 0;
        uint32_t r[QPNIC_LINK_MMIO_WORDS] = { 0 };
        QPNIC_FIELD_SET(r, QPNIC_LINK_MMIO_ADDR, addr);
        QPNIC_FIELD_SET(r, QPNIC_LINK_MMIO_DATA, n->regs[addr / 4]);
        enqueue(n, QPNIC_LINK_TYPE_MMIO_RD_REPLY, tag, r, QPNIC_LINK_MMIO_WORDS, NULL, 0);
    } else { /* DMA_RD_DATA */
        size_t got = len - qpnic_link_body_size(type, 0);
        if (!n->rd_wait || tag != n->rd_tag)
            error_once(n, "DMA_RD_DATA with a tag not asked for", tag, n->rd_tag);
        else if (got != n->rd_len)
            error_once(n, "DMA_RD_DATA of the wrong length", (unsigned)got, (unsigned)n->rd_len);
        else {
            memcpy(n->rd_data, b + 4 * QPNIC_LINK_HDR_WORDS, got);
            n->rd_got = 1;
        }
    }
    pthread_cond_broadcast(&n->c);
    return 1;
}

static void on_body(lnic *n, const uint8_t *b, size_t len)
{
    if (qpnic_link_check_body(b, len, 0) != QPNIC_LINK_OK) {
        n->st.bad++;
        return;
    }
    uint32_t w[QPNIC_LINK_MMIO_WORDS] = { 0 };
    for (unsigned i = 0; i < QPNIC_LINK_MMIO_WORDS && 4 * i + 4 <= len; i++)
        w[i] = qpnic_link_get32(b + 4 * i);
    uint32_t type = QPNIC_FIELD_GET(w, QPNIC_LINK_HDR_TYPE);
    if (type == QPNIC_LINK_TYPE_RESET) {
        on_reset(n, w);
        return;
    }
    if (!n->have_nonce)
        return;
    unsigned acked = (uint8_t)(QPNIC_FIELD_GET(w, QPNIC_LINK_HDR_ACK) - n->qseq);
    if (acked > 0 && acked <= n->qsent) {
        n->qh = (n->qh + acked) % NQ;
        n->qn -= acked;
        n->qsent -= acked;
        n->qseq = (uint8_t)(n->qseq + acked);
        n->oldest_ms = ms_now();
        pthread_cond_broadcast(&n->c);
    }
    if (type == QPNIC_LINK_TYPE_ACK)
        return;
    if (QPNIC_FIELD_GET(w, QPNIC_LINK_HDR_SEQ) != n->expect) {
        n->st.out_of_seq++;
        send_plain(n, QPNIC_LINK_TYPE_ACK, w, 0);
        return;
    }
    if (apply(n, type, QPNIC_FIELD_GET(w, QPNIC_LINK_HDR_TAG), w, b, len)) {
        n->expect++;
        if (n->owe_ack++ == 0)
            n->owe_since_ms = ms_now();
        n->st.applied++;
    }
}

/* Send what the window allows, again after the timeout, or an ACK. */
static void timers(lnic *n)
{
    uint64_t now = ms_now();
    if (n->qsent > 0 && now - n->oldest_ms >= (uint64_t)n->cfg.rto_ms) {
        for (unsigned i = 0; i < n->qsent; i++)
            emit(n, n->q[(n->qh + i) % NQ].b, n->q[(n->qh + i) % NQ].n);
        n->oldest_ms = now;
    }
    while (n->qsent < n->qn && n->qsent < QPNIC_LINK_NIC_TX_FRAMES) {
        if (n->qsent == 0)
            n->oldest_ms = now;
        nframe *f = &n->q[(n->qh + n->qsent++) % NQ];
        emit(n, f->b, f->n);
    }
    if (n->owe_ack && (!n->cfg.lazy_ack || n->owe_ack >= 2 || now - n->owe_since_ms >= 3))
        send_plain(n, QPNIC_LINK_TYPE_ACK, NULL, 0);
}

static void *nic_main(void *arg)
{
    lnic *n = arg;
    uint8_t buf[2048];
    while (!atomic_load(&n->stop)) {
        struct pollfd p = { .fd = n->fd, .events = POLLIN };
        ssize_t got = 0;
        if (poll(&p, 1, 1) > 0) {
            got = read(n->fd, buf, sizeof buf);
            if (got <= 0 && errno != EINTR && errno != EAGAIN) {
                struct timespec ts = { 0, 1000000L }; /* the host end closed: idle until stopped */
                nanosleep(&ts, NULL);
                got = 0;
            }
        }
        pthread_mutex_lock(&n->m);
        for (ssize_t i = 0; i < got && !n->silent; i++)
            if (qpnic_unframe(&n->u, buf[i]) > 0)
                on_body(n, n->u.body, n->u.len);
        if (!n->silent && n->have_nonce)
            timers(n);
        pthread_mutex_unlock(&n->m);
    }
    return NULL;
}

void lnic_cfg_default(lnic_cfg *cfg)
{
    cfg->version = QPNIC_LINK_VERSION;
    cfg->rx_frames = QPNIC_LINK_NIC_RX_FRAMES;
    cfg->lose_reset_done = 0;
    cfg->lazy_ack = 0;
    cfg->rto_ms = 10;
}

lnic *lnic_start(int fd, const lnic_cfg *cfg)
{
    lnic *n = calloc(1, sizeof *n);
    if (!n)
        abort();
    n->fd = fd;
    n->cfg = *cfg;
    n->log_addr = calloc(LOG_MAX, sizeof *n->log_addr);
    n->log_val = calloc(LOG_MAX, sizeof *n->log_val);
    if (!n->log_addr || !n->log_val)
        abort();
    pthread_mutex_init(&n->m, NULL);
    pthread_cond_init(&n->c, NULL);
    atomic_init(&n->stop, 0);
    if (pthread_create(&n->th, NULL, nic_main, n) != 0)
        abort();
    return n;
}

void lnic_stop(lnic *n)
{
    atomic_store(&n->stop, 1);
    pthread_join(n->th, NULL);
    close(n->fd);
    free(n->log_addr);
    free(n->log_val);
    pthread_mutex_destroy(&n->m);
    pthread_cond_destroy(&n->c);
    free(n);
}

uint32_t *lnic_regs(lnic *n)
{
    return n->regs;
}

size_t lnic_log(lnic *n, uint32_t *addr, uint32_t *val, size_t max)
{
    pthread_mutex_lock(&n->m);
    size_t k = n->nlog < max ? n->nlog : max;
    memcpy(addr, n->log_addr, k * sizeof *addr);
    memcpy(val, n->log_val, k * sizeof *val);
    pthread_mutex_unlock(&n->m);
    return k;
}

void lnic_silence(lnic *n)
{
    pthread_mutex_lock(&n->m);
    n->silent = 1;
    pthread_mutex_unlock(&n->m);
}

/* Wait on c until cond_fn holds or timeout; m held. */
static int wait_for(lnic *n, int (*cond_fn)(lnic *), int timeout_ms)
{
    uint64_t end = ms_now() + (uint64_t)timeout_ms;
    while (!cond_fn(n)) {
        if (ms_now() >= end)
            return -1;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 2000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&n->c, &n->m, &ts);
    }
    return 0;
}

static int has_room(lnic *n) { return n->qn < NQ; }
static int all_acked(lnic *n) { return n->qn == 0; }
static int read_back(lnic *n) { return n->rd_got; }

#define ROOM_TIMEOUT_MS 10000

/* Queue a NIC request, waiting for room (m held); 0, or -1 when the host
 * took nothing for ROOM_TIMEOUT_MS. */
static int request(lnic *n, uint32_t type, uint32_t tag, const uint32_t *w, unsigned nw,
                   const uint8_t *data, size_t dlen)
{
    if (wait_for(n, has_room, ROOM_TIMEOUT_MS) != 0)
        return -1;
    enqueue(n, type, tag, w, nw, data, dlen);
    return 0;
}

static void dma_words(uint32_t *w, uint64_t addr)
{
    QPNIC_FIELD_SET(w, QPNIC_LINK_DMA_ADDR_LO, (uint32_t)addr);
    QPNIC_FIELD_SET(w, QPNIC_LINK_DMA_ADDR_HI, (uint32_t)(addr >> 32));
}

int lnic_dma_write(lnic *n, uint64_t addr, const uint8_t *data, size_t len)
{
    uint32_t w[QPNIC_LINK_DMA_WORDS] = { 0 };
    dma_words(w, addr);
    pthread_mutex_lock(&n->m);
    int r = request(n, QPNIC_LINK_TYPE_DMA_WR, 0, w, QPNIC_LINK_DMA_LEN_WORD, data, len);
    pthread_mutex_unlock(&n->m);
    return r;
}

int lnic_notify(lnic *n, uint32_t word)
{
    uint32_t w[QPNIC_LINK_NTF_WORDS] = { 0 };
    QPNIC_FIELD_SET(w, QPNIC_LINK_NTF_WORD, word);
    pthread_mutex_lock(&n->m);
    int r = request(n, QPNIC_LINK_TYPE_NTF, 0, w, QPNIC_LINK_NTF_WORDS, NULL, 0);
    pthread_mutex_unlock(&n->m);
    return r;
}

int lnic_dma_read(lnic *n, uint64_t addr, size_t len, uint8_t *out, int timeout_ms)
{
    uint32_t w[QPNIC_LINK_DMA_WORDS] = { 0 };
    dma_words(w, addr);
    QPNIC_FIELD_SET(w, QPNIC_LINK_DMA_LEN, len);
    pthread_mutex_lock(&n->m);
    n->rd_tag++;
    n->rd_len = len;
    n->rd_got = 0;
    n->rd_wait = 1;
    int r = request(n, QPNIC_LINK_TYPE_DMA_RD_REQ, n->rd_tag, w, QPNIC_LINK_DMA_WORDS, NULL, 0);
    if (r == 0)
        r = wait_for(n, read_back, timeout_ms);
    if (r == 0)
        memcpy(out, n->rd_data, len);
    n->rd_wait = 0;
    pthread_mutex_unlock(&n->m);
    return r;
}

int lnic_drain(lnic *n, int timeout_ms)
{
    pthread_mutex_lock(&n->m);
    int r = wait_for(n, all_acked, timeout_ms);
    pthread_mutex_unlock(&n->m);
    return r;
}

void lnic_get_stats(lnic *n, lnic_stats *out)
{
    pthread_mutex_lock(&n->m);
    *out = n->st;
    pthread_mutex_unlock(&n->m);
}

/* ---- the faulty line ---- */

typedef struct {
    inj *x;
    int from, to;
    uint64_t rng;
    pthread_t th;
} inj_dir;

struct inj {
    inj_dir dir[2];
    double rate;
    atomic_int stop;
    atomic_uint hits;
};

static uint64_t rnd(uint64_t *s)
{
    /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* Pass one frame (flag, stuffed bytes, flag) on, hit or not. */
static void pass_frame(inj_dir *d, uint8_t *f, size_t n)
{
    if ((double)(rnd(&d->rng) >> 11) / 9007199254740992.0 >= d->x->rate) {
        write_all(d->to, f, n);
        return;
    }
    atomic_fetch_add(&d->x->hits, 1u);
    switch (rnd(&d->rng) % 4) {
    case 0: /* a flipped bit somewhere between the flags */
        f[1 + rnd(&d->rng) % (n - 2)] ^= (uint8_t)(1u << (rnd(&d->rng) % 8));
        write_all(d->to, f, n);
        break;
    case 1: /* lost */
        break;
    case 2: /* twice */
        write_all(d->to, f, n);
        write_all(d->to, f, n);
        break;
    default: /* cut short: the next frame's flag ends it */
        write_all(d->to, f, 1 + rnd(&d->rng) % (n - 1));
        break;
    }
}

static void *inj_main(void *arg)
{
    inj_dir *d = arg;
    uint8_t in[2048];
    uint8_t f[QPNIC_LINK_MAX_FRAME + 2];
    size_t n = 0;
    while (!atomic_load(&d->x->stop)) {
        struct pollfd p = { .fd = d->from, .events = POLLIN };
        if (poll(&p, 1, 2) <= 0)
            continue;
        ssize_t got = read(d->from, in, sizeof in);
        if (got <= 0)
            break;
        for (ssize_t i = 0; i < got; i++) {
            if (in[i] != QPNIC_LINK_FLAG) {
                if (n == 0)
                    f[n++] = QPNIC_LINK_FLAG;
                if (n < sizeof f - 1)
                    f[n++] = in[i];
            } else if (n > 1) {
                f[n++] = QPNIC_LINK_FLAG;
                pass_frame(d, f, n);
                n = 0;
            }
        }
    }
    return NULL;
}

inj *inj_start(int a_fd, int b_fd, double rate, uint64_t seed)
{
    inj *x = calloc(1, sizeof *x);
    if (!x)
        abort();
    x->rate = rate;
    atomic_init(&x->stop, 0);
    atomic_init(&x->hits, 0u);
    for (int i = 0; i < 2; i++) {
        inj_dir *d = &x->dir[i];
        d->x = x;
        d->from = i ? b_fd : a_fd;
        d->to = i ? a_fd : b_fd;
        d->rng = (seed ^ (i ? 0x9E3779B97F4A7C15ull : 0x632BE59BD9B4E019ull)) | 1u;
        if (pthread_create(&d->th, NULL, inj_main, d) != 0)
            abort();
    }
    return x;
}

unsigned inj_hits(inj *x)
{
    return atomic_load(&x->hits);
}

void inj_stop(inj *x)
{
    atomic_store(&x->stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(x->dir[i].th, NULL);
    close(x->dir[0].from);
    close(x->dir[1].from);
    free(x);
}
