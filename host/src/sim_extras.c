/* sim_extras.c: the test-only calls of qpnic/ndk_sim.h.
 *
 * For: reading the simulator's DMA-checker verdict and cycle count, setting
 * its doorbell cost model, all through the shared header. Not for: anything
 * a program needs (those calls are in ndk.h).
 */
#include <time.h>

#include "internal.h"
#include "regs.h"
#include "qpnic/ndk_sim.h"
#include "shm_proto.h"

static qpnic_shm_hdr *sim_hdr(ndk_adapter *ad)
{
    return qpnic_handle_live(ad, QPNIC_H_ADAPTER) ? (qpnic_shm_hdr *)ad->t->sim_hdr : NULL;
}

ndk_status ndk_sim_dma_violations(ndk_adapter *ad, uint32_t *count, uint64_t *first_addr)
{
    if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER))
        return NDK_STATUS_INVALID_PARAMETER;
    if (!ad->t->ops->violations)
        return NDK_STATUS_INVALID_DEVICE_STATE; /* a carrier with no DMA checker */
    uint32_t n = 0;
    uint64_t first = 0;
    ad->t->ops->violations(ad->t, &n, &first);
    if (count)
        *count = n;
    if (first_addr)
        *first_addr = first;
    return NDK_STATUS_SUCCESS;
}

ndk_status ndk_sim_set_doorbell_delay(ndk_adapter *ad, uint32_t cycles)
{
    qpnic_shm_hdr *h = sim_hdr(ad);
    if (!h) {
        if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER))
            return NDK_STATUS_INVALID_PARAMETER;
        /* a carrier without the cost model: no added cost is what it has */
        return cycles == 0 ? NDK_STATUS_SUCCESS : NDK_STATUS_INVALID_DEVICE_STATE;
    }
    atomic_store(&h->doorbell_delay, cycles);
    return NDK_STATUS_SUCCESS;
}

uint64_t ndk_sim_mmio_writes(ndk_adapter *ad)
{
    return qpnic_handle_live(ad, QPNIC_H_ADAPTER) ? atomic_load(&ad->mmio_writes) : 0;
}

uint64_t ndk_sim_cycles(ndk_adapter *ad)
{
    qpnic_shm_hdr *h = sim_hdr(ad);
    return h ? atomic_load(&h->sim_cycles) : 0;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

ndk_status ndk_sim_wait_idle(ndk_adapter *ad, int timeout_ms)
{
    if (!qpnic_handle_live(ad, QPNIC_H_ADAPTER))
        return NDK_STATUS_INVALID_PARAMETER;
    uint64_t end = now_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
    for (;;) {
        uint32_t status = 0;
        /* MMIO is in order: this read's reply comes after every earlier write. */
        ndk_status st = qpnic_reg_read(ad, QPNIC_REG_STATUS, &status);
        if (st != NDK_STATUS_SUCCESS)
            return st;
        if (QPNIC_FIELD_GET(&status, QPNIC_STATUS_IDLE))
            return NDK_STATUS_SUCCESS;
        if (now_ms() >= end)
            return NDK_STATUS_TIMEOUT;
        struct timespec ts = { 0, 100000L };
        nanosleep(&ts, NULL);
    }
}

int ndk_sim_pid(ndk_adapter *ad)
{
    qpnic_shm_hdr *h = sim_hdr(ad);
    return h ? (int)h->sim_pid : 0;
}
