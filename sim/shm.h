// shm.h: the simulator's side of the shared file of sim/shm_proto.h.
//
// For: creating the file, mapping it, filling the identity part of the
// header, and the futex calls both rings use. Not for: the per-cycle serving
// of the rings (harness.cpp) or anything the host does.
#ifndef QPNIC_SIM_SHM_H
#define QPNIC_SIM_SHM_H

#include <cstddef>
#include <cstdint>

#include "shm_proto.h"

struct SimShm {
    int fd = -1;
    void *map = nullptr;
    size_t map_bytes = 0;
    qpnic_shm_hdr *hdr = nullptr;
    uint8_t *dma = nullptr; // byte 0 of the DMA region (device QPNIC_SHM_DMA_BASE)
    uint64_t dma_bytes = 0;
};

// Create path (it must not exist: O_CREAT|O_EXCL), size it to the header plus
// dma_bytes, map it shared and write the header's identity fields, leaving
// sim_state at STARTING. Returns 0, or -1 with a message in err.
int shm_create(const char *path, uint64_t dma_bytes, SimShm *out, char *err, size_t err_len);

// Unmap and close. Does not touch the name: the host that asked for the file
// removes it, unless the caller unlinks it itself.
void shm_close(SimShm *s);

// futex on a 32-bit word of the shared file (process-shared futexes).
void shm_futex_wake(qpnic_atomic_u32 *word);
// Sleep while *word == expected, at most timeout_ns; returns on a wake, a
// changed value, a signal or the timeout (the caller re-checks everything).
void shm_futex_wait(qpnic_atomic_u32 *word, uint32_t expected, long timeout_ns);

#endif
