/* transport.h: how the driver reaches a NIC, whatever carries it.
 *
 * For: the interface every carrier implements (today the co-simulation in
 * transport_sim.c; a board link later; a fake in the unit tests). The NIC
 * is three things to the driver: register writes and reads, DMA memory it
 * reaches, and notifications it sends.
 * Not for: anything about the NIC's registers or formats (adapter.c and the
 * object files do that through these calls).
 *
 * Locking: a transport is not thread safe. The adapter's mutex serializes
 * mmio_write, mmio_read, range_add and range_del; ntf_wait runs only on the
 * adapter's event thread; ntf_kick may be called from any thread.
 */
#ifndef QPNIC_TRANSPORT_H
#define QPNIC_TRANSPORT_H

#include <stdint.h>

#include "qpnic/ndk.h"

typedef struct qpnic_transport qpnic_transport;

typedef struct {
    /* Post a register write (in order with every other access). IO_ERROR if
     * the device is gone. */
    ndk_status (*mmio_write)(qpnic_transport *t, uint32_t addr, uint32_t val);
    /* Read a register; waits for the reply. IO_ERROR if the device is gone. */
    ndk_status (*mmio_read)(qpnic_transport *t, uint32_t addr, uint32_t *val);
    /* Take up to max notification words into words[], waiting up to
     * timeout_ms when none is there; *got = 0 on timeout. IO_ERROR if the
     * device is gone. */
    ndk_status (*ntf_wait)(qpnic_transport *t, uint32_t *words, uint32_t max,
                           uint32_t *got, int timeout_ms);
    /* Wake an ntf_wait early (adapter close). */
    void (*ntf_kick)(qpnic_transport *t);
    /* Tell the DMA checker the NIC may touch [dev_addr, +len) with perm
     * (QPNIC_RANGE_*). Returns a handle >= 0, or -1 when the table is full.
     * A carrier without a checker returns 0 and ignores range_del. */
    int (*range_add)(qpnic_transport *t, uint64_t dev_addr, uint64_t len, uint32_t perm);
    void (*range_del)(qpnic_transport *t, int handle);
    /* The DMA checker's verdict: accesses refused so far, and the device
     * address of the first (0 when none). NULL for a carrier without one. */
    void (*violations)(qpnic_transport *t, uint32_t *count, uint64_t *first_addr);
    /* Detach; stop a private device; free t. */
    void (*close)(qpnic_transport *t);
} qpnic_transport_ops;

struct qpnic_transport {
    const qpnic_transport_ops *ops;
    uint8_t *dma;          /* the host's view of the DMA memory */
    uint64_t dma_bytes;    /* its size */
    uint64_t dma_base;     /* device address of dma[0] */
    uint64_t node;         /* node address of this NIC (ndk_qp_addr.node) */
    void *sim_hdr;         /* co-simulation only: the qpnic_shm_hdr of sim/shm_proto.h; else NULL */
};

/* transport_sim.c: start a private simulator (path NULL) or attach to one
 * serving at path. */
ndk_status qpnic_sim_transport_open(const char *path, qpnic_transport **out);

#endif
