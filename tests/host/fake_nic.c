/* fake_nic.c: the register-array transport of fake_nic.h (unit tests only). */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "fake_nic.h"
#include "regs.h"

int test_failures;

#define FAKE_DMA_BASE 0x0000001000000000ull

/* For a register of a QP's block: the block's address and the register's
 * offset in it, and 1; 0 for any other register. */
static int qp_reg(uint32_t addr, uint32_t *block, uint32_t *off)
{
    uint32_t a = addr & 0xFFFFu;
    uint32_t top = QPNIC_QP_BASE + QPNIC_MAX_NUM_QP * QPNIC_QP_STRIDE;
    if (a < QPNIC_QP_BASE || a >= top)
        return 0;
    *block = a - (a - QPNIC_QP_BASE) % QPNIC_QP_STRIDE;
    *off = a - *block;
    return 1;
}

static ndk_status f_write(qpnic_transport *t, uint32_t addr, uint32_t val)
{
    fake_nic *f = (fake_nic *)t;
    pthread_mutex_lock(&f->m);
    ndk_status st = NDK_STATUS_SUCCESS;
    if (f->dead) {
        st = NDK_STATUS_IO_ERROR;
    } else {
        if (f->nlog < FAKE_LOG_MAX) {
            f->log[f->nlog].addr = addr;
            f->log[f->nlog].val = val;
            f->nlog++;
        }
        f->regs[(addr & 0xFFFFu) / 4] = val;
        uint32_t block, off;
        if (f->consume_sq && qp_reg(addr, &block, &off) && off == QPNIC_QPREG_SQ_PI)
            f->regs[(block + QPNIC_QPREG_SQ_CI) / 4] = val;
    }
    pthread_mutex_unlock(&f->m);
    return st;
}

/* A QP in ERROR has flushed everything at once: its SQ_CI and RQ_CI read as
 * its producer indices (so the driver's destroy finds it quiesced). */
static uint32_t f_flushed_ci(const fake_nic *f, uint32_t addr, uint32_t val)
{
    uint32_t block, off;
    if (!qp_reg(addr, &block, &off))
        return val;
    if (f->regs[(block + QPNIC_QPREG_STATE) / 4] != QPNIC_QP_STATE_ERROR)
        return val;
    if (off == QPNIC_QPREG_SQ_CI)
        return f->regs[(block + QPNIC_QPREG_SQ_PI) / 4];
    if (off == QPNIC_QPREG_RQ_CI)
        return f->regs[(block + QPNIC_QPREG_RQ_PI) / 4];
    return val;
}

static ndk_status f_read(qpnic_transport *t, uint32_t addr, uint32_t *val)
{
    fake_nic *f = (fake_nic *)t;
    pthread_mutex_lock(&f->m);
    ndk_status st = f->dead ? NDK_STATUS_IO_ERROR : NDK_STATUS_SUCCESS;
    *val = f_flushed_ci(f, addr, f->regs[(addr & 0xFFFFu) / 4]);
    pthread_mutex_unlock(&f->m);
    return st;
}

static ndk_status f_ntf_wait(qpnic_transport *t, uint32_t *words, uint32_t max, uint32_t *got,
                             int timeout_ms)
{
    fake_nic *f = (fake_nic *)t;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)timeout_ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&f->m);
    /* a kick before the wait began counts too: the adapter's close does
     * not wait a whole poll period for the event thread */
    while (f->ntf_head == f->ntf_tail && !f->dead && !f->kicked)
        if (pthread_cond_timedwait(&f->c, &f->m, &ts) == ETIMEDOUT)
            break;
    f->kicked = 0;
    uint32_t n = 0;
    while (n < max && f->ntf_tail != f->ntf_head)
        words[n++] = f->ntf[f->ntf_tail++ % FAKE_NTF_MAX];
    int dead = f->dead;
    pthread_mutex_unlock(&f->m);
    *got = n;
    return (n == 0 && dead) ? NDK_STATUS_IO_ERROR : NDK_STATUS_SUCCESS;
}

static void f_kick(qpnic_transport *t)
{
    fake_nic *f = (fake_nic *)t;
    pthread_mutex_lock(&f->m);
    f->kicked = 1;
    pthread_cond_broadcast(&f->c);
    pthread_mutex_unlock(&f->m);
}

static int f_range_add(qpnic_transport *t, uint64_t addr, uint64_t len, uint32_t perm)
{
    fake_nic *f = (fake_nic *)t;
    for (int i = 0; i < FAKE_RANGES; i++) {
        if (f->ranges[i].used)
            continue;
        f->ranges[i] = (fake_range){ addr, len, perm, 1 };
        return i;
    }
    return -1;
}

static void f_range_del(qpnic_transport *t, int h)
{
    fake_nic *f = (fake_nic *)t;
    if (h >= 0 && h < FAKE_RANGES)
        f->ranges[h].used = 0;
}

static void f_close(qpnic_transport *t)
{
    fake_nic *f = (fake_nic *)t;
    free(f->base.dma);
    pthread_mutex_destroy(&f->m);
    pthread_cond_destroy(&f->c);
    free(f);
}

static const qpnic_transport_ops fake_ops = {
    .mmio_write = f_write,
    .mmio_read = f_read,
    .ntf_wait = f_ntf_wait,
    .ntf_kick = f_kick,
    .range_add = f_range_add,
    .range_del = f_range_del,
    .close = f_close,
};

void fake_preset_regs(uint32_t *regs)
{
    uint32_t c0 = QPNIC_FIELD(QPNIC_CAPS0_NUM_QP, QPNIC_NUM_QP) |
                  QPNIC_FIELD(QPNIC_CAPS0_NUM_CQ, QPNIC_NUM_CQ);
    uint32_t c1 = QPNIC_FIELD(QPNIC_CAPS1_LOG_MAX_QP_DEPTH, QPNIC_LOG_MAX_QP_DEPTH) |
                  QPNIC_FIELD(QPNIC_CAPS1_LOG_MAX_CQ_DEPTH, QPNIC_LOG_MAX_CQ_DEPTH) |
                  QPNIC_FIELD(QPNIC_CAPS1_FETCH_BURST_WQES, QPNIC_FETCH_BURST_WQES) |
                  QPNIC_FIELD(QPNIC_CAPS1_MAX_SGE, QPNIC_MAX_SGE);
    uint32_t c2 = QPNIC_FIELD(QPNIC_CAPS2_NUM_MR, QPNIC_NUM_MR) | QPNIC_FIELD(QPNIC_CAPS2_MAX_INLINE, QPNIC_MAX_INLINE_BYTES);
    regs[QPNIC_REG_ID / 4] = QPNIC_ID_VALUE;
    regs[QPNIC_REG_VERSION / 4] = QPNIC_VERSION_VALUE;
    regs[QPNIC_REG_CAPS0 / 4] = c0;
    regs[QPNIC_REG_CAPS1 / 4] = c1;
    regs[QPNIC_REG_CAPS2 / 4] = c2;
    regs[QPNIC_REG_CAPS3 / 4] = QPNIC_FIELD(QPNIC_CAPS3_PT_ENTRIES, QPNIC_NUM_PT);
    regs[QPNIC_REG_STATUS / 4] = QPNIC_FIELD(QPNIC_STATUS_FW_READY, 1);
}

fake_nic *fake_new(size_t dma_bytes)
{
    fake_nic *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->base.ops = &fake_ops;
    f->base.dma = aligned_alloc(4096, dma_bytes);
    if (!f->base.dma)
        abort();
    memset(f->base.dma, 0xA5, dma_bytes); /* the driver must zero what it uses */
    f->base.dma_bytes = dma_bytes;
    f->base.dma_base = FAKE_DMA_BASE;
    f->base.node = 42;
    pthread_mutex_init(&f->m, NULL);
    pthread_cond_init(&f->c, NULL);
    fake_preset_regs(f->regs);
    return f;
}

ndk_adapter *fake_open(fake_nic *f)
{
    ndk_adapter *ad = NULL;
    ndk_status st = qpnic_adapter_open_on(&f->base, &ad);
    if (st != NDK_STATUS_SUCCESS) {
        fprintf(stderr, "fake_open: %s\n", ndk_status_str(st));
        abort();
    }
    return ad;
}

size_t fake_writes(fake_nic *f, uint32_t addr)
{
    size_t n = 0;
    pthread_mutex_lock(&f->m);
    for (size_t i = 0; i < f->nlog; i++)
        n += f->log[i].addr == addr;
    pthread_mutex_unlock(&f->m);
    return n;
}

uint32_t fake_last(fake_nic *f, uint32_t addr)
{
    uint32_t v = 0xDEADBEEFu;
    pthread_mutex_lock(&f->m);
    for (size_t i = 0; i < f->nlog; i++)
        if (f->log[i].addr == addr)
            v = f->log[i].val;
    pthread_mutex_unlock(&f->m);
    return v;
}

void fake_clear_log(fake_nic *f)
{
    pthread_mutex_lock(&f->m);
    f->nlog = 0;
    pthread_mutex_unlock(&f->m);
}

void fake_notify(fake_nic *f, uint32_t word)
{
    pthread_mutex_lock(&f->m);
    f->ntf[f->ntf_head++ % FAKE_NTF_MAX] = word;
    pthread_cond_broadcast(&f->c);
    pthread_mutex_unlock(&f->m);
}

int fake_range_covers(fake_nic *f, uint64_t addr, uint64_t len, uint32_t perm)
{
    for (int i = 0; i < FAKE_RANGES; i++) {
        fake_range *r = &f->ranges[i];
        if (r->used && addr >= r->addr && addr + len <= r->addr + r->len && (r->perm & perm) == perm)
            return 1;
    }
    return 0;
}

int fake_ranges_live(fake_nic *f)
{
    int n = 0;
    for (int i = 0; i < FAKE_RANGES; i++)
        n += f->ranges[i].used;
    return n;
}

void fake_kill(fake_nic *f)
{
    pthread_mutex_lock(&f->m);
    f->dead = 1;
    pthread_cond_broadcast(&f->c);
    pthread_mutex_unlock(&f->m);
}

void fake_put_cqe(ndk_cq *cq, uint32_t index, uint32_t qpn, uint32_t wqe_index, uint32_t type,
                  uint32_t status, uint32_t bytes, uint32_t inv_token)
{
    uint32_t w[QPNIC_CQE_WORDS] = { 0 };
    QPNIC_FIELD_SET(w, QPNIC_CQE_BYTE_COUNT, bytes);
    QPNIC_FIELD_SET(w, QPNIC_CQE_QPN, qpn);
    QPNIC_FIELD_SET(w, QPNIC_CQE_WQE_INDEX, wqe_index);
    QPNIC_FIELD_SET(w, QPNIC_CQE_INV_TOKEN, inv_token);
    QPNIC_FIELD_SET(w, QPNIC_CQE_TYPE, qpnic_ndk_to_cqe_type(type));
    QPNIC_FIELD_SET(w, QPNIC_CQE_STATUS, status);
    QPNIC_FIELD_SET(w, QPNIC_CQE_PHASE, ((index >> cq->log_depth) & 1u) ^ 1u);
    uint32_t *e = (uint32_t *)(cq->ring.host +
                               (size_t)(index & ((1u << cq->log_depth) - 1)) * QPNIC_CQE_BYTES);
    e[0] = w[0];
    e[1] = w[1];
    e[2] = w[2];
    __atomic_store_n(&e[3], w[3], __ATOMIC_RELEASE); /* as the NIC: word 3 last */
}
