/* adapter.c: opening and closing an adapter, what it offers, its counters.
 *
 * For: ndk_open_adapter (choose a transport from the URI, check the NIC is
 * one this library knows, wait for its firmware, read its capabilities,
 * start the event thread), ndk_close_adapter (V10), ndk_query_adapter_info,
 * ndk_query_counters, and the register helpers every other file uses.
 * Not for: how a carrier moves register accesses (transport_sim.c, link*.c)
 * or the objects (objects.c, mr.c).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "link.h"
#include "regs.h"

#define FW_READY_TIMEOUT_MS 10000

/* ---- register helpers ---- */

/* Once one access finds the device gone, every later one fails at once
 * (the carrier would otherwise wait out its reply timeout each time). */
ndk_status qpnic_reg_write_locked(ndk_adapter *ad, uint32_t addr, uint32_t val)
{
    if (atomic_load(&ad->dead))
        return NDK_STATUS_IO_ERROR;
    atomic_fetch_add_explicit(&ad->mmio_writes, 1, memory_order_relaxed);
    ndk_status st = ad->t->ops->mmio_write(ad->t, addr, val);
    if (st == NDK_STATUS_IO_ERROR)
        qpnic_event_device_died(ad);
    return st;
}

ndk_status qpnic_reg_read_locked(ndk_adapter *ad, uint32_t addr, uint32_t *val)
{
    if (atomic_load(&ad->dead))
        return NDK_STATUS_IO_ERROR;
    ndk_status st = ad->t->ops->mmio_read(ad->t, addr, val);
    if (st == NDK_STATUS_IO_ERROR)
        qpnic_event_device_died(ad);
    return st;
}

ndk_status qpnic_poll(ndk_adapter *ad, qpnic_look_fn look, void *arg, int timeout_ms)
{
    struct timespec start, nap = { 0, 50000L };
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        int done = 0;
        ndk_status st = look(ad, arg, &done);
        if (st != NDK_STATUS_SUCCESS || done)
            return st;
        if (qpnic_ms_since(&start) > timeout_ms)
            return NDK_STATUS_TIMEOUT;
        nanosleep(&nap, NULL);
    }
}

ndk_status qpnic_reg_write(ndk_adapter *ad, uint32_t addr, uint32_t val)
{
    pthread_mutex_lock(&ad->lock);
    ndk_status st = qpnic_reg_write_locked(ad, addr, val);
    pthread_mutex_unlock(&ad->lock);
    return st;
}

ndk_status qpnic_reg_read(ndk_adapter *ad, uint32_t addr, uint32_t *val)
{
    pthread_mutex_lock(&ad->lock);
    ndk_status st = qpnic_reg_read_locked(ad, addr, val);
    pthread_mutex_unlock(&ad->lock);
    return st;
}

/* ---- open ---- */

static ndk_status check_identity(ndk_adapter *ad)
{
    uint32_t id = 0, version = 0;
    ndk_status st = qpnic_reg_read(ad, QPNIC_REG_ID, &id);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_read(ad, QPNIC_REG_VERSION, &version);
    if (st != NDK_STATUS_SUCCESS)
        return st;
    if (id != QPNIC_ID_VALUE || version != QPNIC_VERSION_VALUE)
        return NDK_STATUS_INTERNAL_ERROR;
    return NDK_STATUS_SUCCESS;
}

static ndk_status wait_fw_ready(ndk_adapter *ad)
{
    for (int waited_ms = 0;; waited_ms++) {
        uint32_t status = 0;
        ndk_status st = qpnic_reg_read(ad, QPNIC_REG_STATUS, &status);
        if (st != NDK_STATUS_SUCCESS)
            return st;
        if (QPNIC_FIELD_GET(&status, QPNIC_STATUS_FW_READY))
            return NDK_STATUS_SUCCESS;
        if (waited_ms >= FW_READY_TIMEOUT_MS)
            return NDK_STATUS_INTERNAL_ERROR; /* the firmware never came up */
        struct timespec ts = { 0, 1000000L };
        nanosleep(&ts, NULL);
    }
}

static ndk_status read_caps(ndk_adapter *ad)
{
    uint32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    ndk_status st = qpnic_reg_read(ad, QPNIC_REG_CAPS0, &c0);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_read(ad, QPNIC_REG_CAPS1, &c1);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_read(ad, QPNIC_REG_CAPS2, &c2);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_read(ad, QPNIC_REG_CAPS3, &c3);
    if (st != NDK_STATUS_SUCCESS)
        return st;
    ad->num_qp = QPNIC_FIELD_GET(&c0, QPNIC_CAPS0_NUM_QP);
    ad->num_cq = QPNIC_FIELD_GET(&c0, QPNIC_CAPS0_NUM_CQ);
    ad->num_mr = QPNIC_FIELD_GET(&c2, QPNIC_CAPS2_NUM_MR);
    ad->max_inline = QPNIC_FIELD_GET(&c2, QPNIC_CAPS2_MAX_INLINE);
    ad->num_pt = QPNIC_FIELD_GET(&c3, QPNIC_CAPS3_PT_ENTRIES);
    ad->max_sge = QPNIC_FIELD_GET(&c1, QPNIC_CAPS1_MAX_SGE);
    ad->log_max_qp_depth = QPNIC_FIELD_GET(&c1, QPNIC_CAPS1_LOG_MAX_QP_DEPTH);
    ad->log_max_cq_depth = QPNIC_FIELD_GET(&c1, QPNIC_CAPS1_LOG_MAX_CQ_DEPTH);
    ad->fetch_burst_wqes = QPNIC_FIELD_GET(&c1, QPNIC_CAPS1_FETCH_BURST_WQES);
    /* What the layout can carry: the register blocks' QPs and CQs, CQ
     * numbers CQN_BITS wide (QP CFG, events), indices INDEX_BITS, SGEs at
     * most MAX_SGE in a WQE, MR index below the tag, inline bytes in the
     * slots the driver builds (MAX_INLINE_BYTES), a page table of at least
     * one entry (CAPS3's 24 bits always fit bits 12..62 of an address). */
    if (ad->num_qp == 0 || ad->num_qp > QPNIC_MAX_NUM_QP || ad->num_cq == 0 ||
        ad->num_cq > QPNIC_MAX_NUM_CQ || ad->num_cq > (1u << QPNIC_CQN_BITS) ||
        ad->num_mr == 0 ||
        ad->num_mr > (1u << QPNIC_TOKEN_INDEX_BITS) || ad->max_sge > QPNIC_MAX_SGE ||
        ad->max_inline > QPNIC_MAX_INLINE_BYTES || ad->num_pt == 0 ||
        ad->log_max_qp_depth < 1 || ad->log_max_qp_depth > 15 ||
        ad->log_max_cq_depth < 1 || ad->log_max_cq_depth > 15)
        return NDK_STATUS_INTERNAL_ERROR;
    return NDK_STATUS_SUCCESS;
}

/* The node address: a NIC with the RoCEv2 wire is its IPv4 address (peer
 * table entry 0, which a NIC without the wire reads as 0); without the wire
 * the transport's (a simulator's process id, a board's URI hash). The peer
 * table's other entries start free: a NIC opened anew forgets them. */
static ndk_status read_node(ndk_adapter *ad)
{
    ndk_status st = qpnic_reg_read(ad, QPNIC_PEERREG(0, IP), &ad->wire_ip);
    for (uint32_t n = 1; st == NDK_STATUS_SUCCESS && ad->wire_ip && n < QPNIC_NUM_PEERS; n++)
        st = qpnic_reg_write(ad, QPNIC_PEERREG(n, IP), 0);
    ad->node = ad->wire_ip ? ad->wire_ip : ad->t->node;
    return st;
}

/* QPNIC_PATH_MTU (bytes: 256, 512, 1024, 2048 or 4096) sets the NIC's path
 * MTU (PATH_MTU, docs/wire.md "Segments"); unset, the NIC keeps its own
 * (PATH_MTU_RESET_LOG). Any other value fails the open: a typo must not
 * leave a NIC that disagrees with its peer about its packets. */
static ndk_status set_path_mtu(ndk_adapter *ad)
{
    const char *env = getenv("QPNIC_PATH_MTU");
    if (!env)
        return NDK_STATUS_SUCCESS;
    char *end = NULL;
    unsigned long bytes = strtoul(env, &end, 10);
    for (uint32_t log = QPNIC_PATH_MTU_MIN_LOG; (1ul << log) <= QPNIC_WIRE_MAX_PAYLOAD; log++)
        if (end != env && *end == '\0' && bytes == (1ul << log))
            return qpnic_reg_write(ad, QPNIC_REG_PATH_MTU, log);
    return NDK_STATUS_INVALID_PARAMETER;
}

static ndk_status alloc_tables(ndk_adapter *ad)
{
    ad->qps = calloc(ad->num_qp, sizeof *ad->qps);
    ad->cqs = calloc(ad->num_cq, sizeof *ad->cqs);
    ad->entries = calloc(ad->num_mr, sizeof *ad->entries);
    ad->pt_used = calloc(ad->num_pt, sizeof *ad->pt_used);
    ad->qp_gen = calloc(ad->num_qp, sizeof *ad->qp_gen);
    ad->cq_gen = calloc(ad->num_cq, sizeof *ad->cq_gen);
    if (!ad->qps || !ad->cqs || !ad->entries || !ad->pt_used || !ad->qp_gen || !ad->cq_gen)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    return NDK_STATUS_SUCCESS;
}

static void adapter_free(ndk_adapter *ad)
{
    if (ad->t) {
        qpnic_dma_buf_free(ad, &ad->ci_recs);
        ad->t->ops->close(ad->t);
    }
    qpnic_heap_fini(&ad->heap);
    free(ad->qps);
    free(ad->cqs);
    free(ad->entries);
    free(ad->pt_used);
    free(ad->qp_gen);
    free(ad->cq_gen);
    pthread_mutex_destroy(&ad->lock);
    pthread_mutex_destroy(&ad->ev_lock);
    pthread_cond_destroy(&ad->ev_cond);
    free(ad);
}

static ndk_adapter *adapter_new(qpnic_transport *t)
{
    ndk_adapter *ad = calloc(1, sizeof *ad);
    if (!ad)
        return NULL;
    ad->t = t;
    ad->next_tag = 1;
    pthread_mutex_init(&ad->lock, NULL);
    pthread_mutex_init(&ad->ev_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&ad->ev_cond, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&ad->ev_stop, 0);
    atomic_init(&ad->dead, 0);
    atomic_init(&ad->mmio_writes, 0);
    if (qpnic_heap_init(&ad->heap, t->dma_bytes) != 0) {
        ad->t = NULL;
        adapter_free(ad);
        return NULL;
    }
    return ad;
}

ndk_status qpnic_adapter_open_on(qpnic_transport *t, ndk_adapter **out)
{
    ndk_adapter *ad = adapter_new(t);
    if (!ad) {
        t->ops->close(t);
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    ndk_status st = check_identity(ad);
    if (st == NDK_STATUS_SUCCESS)
        st = wait_fw_ready(ad);
    if (st == NDK_STATUS_SUCCESS)
        st = read_caps(ad);
    if (st == NDK_STATUS_SUCCESS)
        st = read_node(ad);
    if (st == NDK_STATUS_SUCCESS)
        st = set_path_mtu(ad);
    if (st == NDK_STATUS_SUCCESS)
        st = alloc_tables(ad);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_ci_recs_init(ad);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_event_start(ad);
    if (st == NDK_STATUS_SUCCESS && qpnic_handle_add(ad, QPNIC_H_ADAPTER) != 0) {
        qpnic_event_stop(ad);
        st = NDK_STATUS_INSUFFICIENT_RESOURCES;
    }
    if (st != NDK_STATUS_SUCCESS) {
        adapter_free(ad);
        return st;
    }
    *out = ad;
    return NDK_STATUS_SUCCESS;
}

/* ---- the carriers, by URI scheme (API.md, ndk_open_adapter) ---- */

static ndk_status open_sim(const char *arg, const char *uri, qpnic_transport **t)
{
    (void)uri;
    return qpnic_sim_transport_open(arg, t);
}

/* A board's node address: the same for the same URI in every run, and not
 * the simulator's (a process id). */
static uint64_t board_node(const char *uri)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const char *p = uri; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    return h | 1ull << 63;
}

static ndk_status open_tty(const char *arg, const char *uri, qpnic_transport **t)
{
    qpnic_pipe *p = NULL;
    ndk_status st = qpnic_pipe_tty_open(arg, &p);
    return st == NDK_STATUS_SUCCESS ? qpnic_link_transport_open(p, board_node(uri), t) : st;
}

static ndk_status open_usb(const char *arg, const char *uri, qpnic_transport **t)
{
    qpnic_pipe *p = NULL;
    ndk_status st = qpnic_pipe_usb_open(arg ? arg : "", &p);
    return st == NDK_STATUS_SUCCESS ? qpnic_link_transport_open(p, board_node(uri), t) : st;
}

enum uri_arg { ARG_OPTIONAL, ARG_REQUIRED };

static const struct {
    const char *scheme;
    enum uri_arg arg;   /* "scheme" alone allowed, or only "scheme:ARG" */
    ndk_status (*open)(const char *arg, const char *uri, qpnic_transport **t);
} carriers[] = {
    { "sim", ARG_OPTIONAL, open_sim }, /* a private simulator; sim:PATH one serving at PATH */
    { "tty", ARG_REQUIRED, open_tty }, /* tty:DEV, a board on a serial device */
    { "usb", ARG_OPTIONAL, open_usb }, /* usb[:VID:PID[:SERIAL]], a board's FTDI bridge */
};

ndk_status ndk_open_adapter(const char *uri, ndk_adapter **out)
{
    if (!out)
        return NDK_STATUS_INVALID_PARAMETER;
    *out = NULL;
    if (!uri)
        uri = "sim";
    for (size_t i = 0; i < sizeof carriers / sizeof carriers[0]; i++) {
        size_t n = strlen(carriers[i].scheme);
        if (strncmp(uri, carriers[i].scheme, n) != 0 || (uri[n] != '\0' && uri[n] != ':'))
            continue;
        const char *arg = uri[n] == ':' ? uri + n + 1 : NULL;
        if (arg ? *arg == '\0' : carriers[i].arg == ARG_REQUIRED)
            return NDK_STATUS_INVALID_PARAMETER;
        qpnic_transport *t = NULL;
        ndk_status st = carriers[i].open(arg, uri, &t);
        if (st != NDK_STATUS_SUCCESS)
            return st;
        return qpnic_adapter_open_on(t, out);
    }
    return NDK_STATUS_INVALID_PARAMETER;
}

/* ---- close ---- */

ndk_status ndk_close_adapter(ndk_adapter *ad)
{
    if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER))
        return NDK_STATUS_INVALID_PARAMETER;
    if (qpnic_event_on_thread(ad))
        return NDK_STATUS_INVALID_DEVICE_STATE; /* from a callback: it would join itself */
    pthread_mutex_lock(&ad->lock);
    uint32_t live = ad->live_objects;
    if (live == 0)
        qpnic_zombies_drop(ad, NULL); /* no CQ is left: nothing reports them */
    pthread_mutex_unlock(&ad->lock);
    if (live != 0)
        return NDK_STATUS_DEVICE_BUSY; /* V10 */
    qpnic_handle_del(ad);
    qpnic_event_stop(ad);
    adapter_free(ad);
    return NDK_STATUS_SUCCESS;
}

/* ---- queries ---- */

ndk_status ndk_query_adapter_info(ndk_adapter *ad, ndk_adapter_info *info)
{
    if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER) || !info)
        return NDK_STATUS_INVALID_PARAMETER;
    memset(info, 0, sizeof *info);
    info->max_qp = ad->num_qp;
    info->max_cq = ad->num_cq;
    info->max_qp_depth = 1u << ad->log_max_qp_depth;
    info->max_cq_depth = 1u << ad->log_max_cq_depth;
    info->max_sge = ad->max_sge;
    info->max_mr = ad->num_mr;
    info->max_inline = ad->max_inline;
    info->max_fr_pages = ad->num_pt;
    info->fetch_burst_wqes = ad->fetch_burst_wqes;
    info->max_message_bytes = QPNIC_MAX_MSG_BYTES;
    info->dma_bytes = ad->t->dma_bytes;
    info->layout_version = QPNIC_VERSION_VALUE; /* the open checked the NIC's VERSION is this */
    return NDK_STATUS_SUCCESS;
}

/* A 64-bit counter: reading _LO latches _HI, so the two halves agree. */
static ndk_status read_counter(ndk_adapter *ad, uint32_t lo_reg, uint64_t *v)
{
    uint32_t lo = 0, hi = 0;
    ndk_status st = qpnic_reg_read_locked(ad, lo_reg, &lo);
    if (st == NDK_STATUS_SUCCESS)
        st = qpnic_reg_read_locked(ad, lo_reg + 4u, &hi);
    *v = ((uint64_t)hi << 32) | lo;
    return st;
}

ndk_status ndk_query_counters(ndk_adapter *ad, ndk_counters *c)
{
    if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER) || !c)
        return NDK_STATUS_INVALID_PARAMETER;
    struct {
        uint32_t reg;
        uint64_t *dst;
    } const list[] = {
        { QPNIC_REG_CNT_DOORBELLS_LO, &c->doorbells },
        { QPNIC_REG_CNT_WQES_FETCHED_LO, &c->wqes_fetched },
        { QPNIC_REG_CNT_WQE_FETCH_READS_LO, &c->wqe_fetch_reads },
        { QPNIC_REG_CNT_DMA_READ_BYTES_LO, &c->dma_read_bytes },
        { QPNIC_REG_CNT_DMA_WRITE_BYTES_LO, &c->dma_write_bytes },
        { QPNIC_REG_CNT_CQES_WRITTEN_LO, &c->cqes_written },
        { QPNIC_REG_CNT_NOTIFICATIONS_LO, &c->notifications },
        { QPNIC_REG_CNT_CYCLES_LO, &c->cycles },
        { QPNIC_REG_CNT_NTF_LATENCY_SUM_LO, &c->ntf_latency_sum },
        { QPNIC_REG_CNT_NTF_LATENCY_MAX_LO, &c->ntf_latency_max },
        { QPNIC_REG_CNT_PKTS_DROPPED_LO, &c->packets_dropped },
        { QPNIC_REG_CNT_RNR_RETRIES_LO, &c->rnr_retries },
        { QPNIC_REG_CNT_FRAMES_SENT_LO, &c->frames_sent },
        { QPNIC_REG_CNT_FRAMES_RECEIVED_LO, &c->frames_received },
        { QPNIC_REG_CNT_FRAMES_DROPPED_LO, &c->frames_dropped },
        { QPNIC_REG_CNT_ICRC_ERRORS_LO, &c->icrc_errors },
        { QPNIC_REG_CNT_DUPLICATES_LO, &c->duplicates },
        { QPNIC_REG_CNT_RETRANSMITS_LO, &c->retransmits },
        { QPNIC_REG_CNT_NAKS_LO, &c->naks },
        { QPNIC_REG_CNT_WIRE_PAYLOAD_BYTES_LO, &c->wire_payload_bytes },
    };
    memset(c, 0, sizeof *c);
    ndk_status st = NDK_STATUS_SUCCESS;
    pthread_mutex_lock(&ad->lock); /* a LO/HI pair is never split by another reader */
    for (size_t i = 0; i < sizeof list / sizeof list[0] && st == NDK_STATUS_SUCCESS; i++)
        st = read_counter(ad, list[i].reg, list[i].dst);
    pthread_mutex_unlock(&ad->lock);
    return st;
}
