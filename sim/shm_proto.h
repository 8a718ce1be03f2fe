/* shm_proto.h: the co-simulation transport between qpnic-sim and libqpnic.
 *
 * qpnic-sim creates one file (normally under /dev/shm) and both processes map
 * it whole. It holds, in order: this header, and the DMA region, which is the
 * "host memory" the simulated NIC reaches by DMA. The host driver hands out
 * DMA buffers from that region (ndk_alloc_dma); the device address of byte k
 * of the region is dma_base + k.
 *
 * Three one-way rings cross the boundary, each a single-producer /
 * single-consumer ring of fixed slots with free-running 32-bit head (written
 * by the producer) and tail (written by the consumer):
 *   mmio   host -> sim   register writes and reads, in order
 *   ntf    sim  -> host  notifications (struct notify words of the layout)
 * and one reply slot carries the value of the newest register read.
 *
 * A side wakes the other with a futex on the ring's head, only when the other
 * said it sleeps (sim_sleeping / host_sleeping), so a busy ring costs no
 * system call.
 *
 * This is transport, not device: formats the NIC itself defines (registers,
 * WQEs, CQEs, notifications) come from spec/layout.toml. What is here is only
 * how those words travel between two processes.
 */
#ifndef QPNIC_SHM_PROTO_H
#define QPNIC_SHM_PROTO_H

#include <stdint.h>

#define QPNIC_SHM_MAGIC 0x314D4853434E5051ull /* "QPNCSHM1" little-endian */
#define QPNIC_SHM_VERSION 3u
#define QPNIC_SHM_HDR_BYTES 262144u        /* the DMA region starts here (page aligned) */
#define QPNIC_SHM_DMA_BASE 0x0000001000000000ull /* device address of DMA byte 0 */
#define QPNIC_SHM_MMIO_SLOTS 1024u
#define QPNIC_SHM_NTF_SLOTS 256u
/* Checker ranges: one per registered region and per driver ring, so the
 * full build's 1024 tokens, 256 QPs (two rings each) and 256 CQs fit, with
 * room to spare (2304), and one per span of host memory a fast-registered
 * region's pages cover, up to the full build's 4096 page table entries all
 * in separate spans. The simulator scans [0, ranges_hi) only. */
#define QPNIC_SHM_RANGES (2304u + 4096u)

/* The simulator's network (sim/wire.h, docs/wire.md "Two NICs"): NIC n is
 * 10.0.0.n. A NIC on no network that sends its own packets as frames
 * (qpnic-sim --wire --net-port 0) takes a link-local address,
 * QPNIC_SIM_LINK_LOCAL | (pid & 0xFFFF), which the host takes as no network. */
#define QPNIC_SIM_NET 0x0A000000u
#define QPNIC_SIM_LINK_LOCAL 0xA9FE0000u      /* 169.254.0.0/16 */
#define QPNIC_SIM_LINK_LOCAL_MASK 0xFFFF0000u

/* sim_state */
#define QPNIC_SIM_STARTING 0u
#define QPNIC_SIM_SERVING 1u
#define QPNIC_SIM_EXITED 2u

/* mmio slot op */
#define QPNIC_MMIO_WRITE 1u
#define QPNIC_MMIO_READ 2u

/* range perm bits: what the NIC may do there */
#define QPNIC_RANGE_READ 1u
#define QPNIC_RANGE_WRITE 2u

#ifdef __cplusplus
#include <atomic>
typedef std::atomic<uint32_t> qpnic_atomic_u32;
typedef std::atomic<uint64_t> qpnic_atomic_u64;
#else
#include <stdatomic.h>
typedef _Atomic uint32_t qpnic_atomic_u32;
typedef _Atomic uint64_t qpnic_atomic_u64;
#endif

typedef struct {
    uint32_t op;   /* QPNIC_MMIO_WRITE or QPNIC_MMIO_READ */
    uint32_t addr; /* register byte offset (layout: host registers) */
    uint32_t data; /* value to write; ignored for reads */
    uint32_t seq;  /* reads: the number the reply will carry */
} qpnic_mmio_slot;

/* One range of the DMA region the host says the NIC may touch. The simulator
 * checks every DMA the NIC makes against these and counts any access outside
 * them as a violation: a test reads the count and fails. len == 0: free slot. */
typedef struct {
    uint64_t addr; /* device address */
    uint64_t len;
    uint32_t perm; /* QPNIC_RANGE_* */
    uint32_t pad;
} qpnic_range;

typedef struct {
    /* identity, written once by the simulator before sim_state = SERVING */
    uint64_t magic;
    uint32_t version;
    uint32_t hdr_bytes;      /* QPNIC_SHM_HDR_BYTES */
    uint64_t dma_base;       /* QPNIC_SHM_DMA_BASE */
    uint64_t dma_bytes;      /* size of the DMA region */
    uint32_t sim_pid;
    uint32_t pad0;

    qpnic_atomic_u32 sim_state;    /* QPNIC_SIM_* */
    qpnic_atomic_u32 host_pid;     /* nonzero while a host is attached */
    qpnic_atomic_u32 shutdown;     /* host sets 1: the simulator exits */
    qpnic_atomic_u32 sim_sleeping; /* sim sets 1 before it futex-waits on mmio_head */
    qpnic_atomic_u32 host_sleeping;/* host sets 1 before it futex-waits on ntf_head */
    uint32_t pad1[3];

    /* register access, host -> sim */
    qpnic_atomic_u32 mmio_head;    /* host: slots written */
    qpnic_atomic_u32 mmio_tail;    /* sim: slots done */
    qpnic_atomic_u32 rd_seq;       /* sim: seq of the newest read reply */
    uint32_t rd_data;              /* sim: its value (written before rd_seq) */
    qpnic_mmio_slot mmio[QPNIC_SHM_MMIO_SLOTS];

    /* notifications, sim -> host */
    qpnic_atomic_u32 ntf_head;     /* sim */
    qpnic_atomic_u32 ntf_tail;     /* host */
    uint32_t ntf[QPNIC_SHM_NTF_SLOTS];

    /* the DMA checker; the host writes ranges, the simulator reads them */
    qpnic_range ranges[QPNIC_SHM_RANGES];
    qpnic_atomic_u32 ranges_hi;    /* host: no range at or above this index is in use */
    qpnic_atomic_u32 violations;   /* sim: DMA accesses outside every range */
    uint32_t first_violation_write;/* sim: 1 if the first one was a write */
    uint64_t first_violation_addr; /* sim: its device address */
    uint64_t first_violation_len;

    /* simulator statistics (not NIC counters) */
    qpnic_atomic_u64 sim_cycles;   /* cycles simulated so far */
    qpnic_atomic_u32 doorbell_delay; /* cycles each MMIO write costs (cost model; 0 = free) */
    uint32_t pad2;
} qpnic_shm_hdr;

#endif
