// dma_check.h: the simulator's DMA checker, as a pure function.
//
// For: deciding whether one DMA access of the NIC is allowed, i.e. lies inside
// the DMA region and inside one host range with the right permission
// (sim/shm_proto.h, qpnic_range). Kept apart from the harness so that it can
// be unit-tested without a model (tests/sim/test_dma_check.cpp).
// Not for: counting or reporting violations (the harness does that), or for
// anything the NIC itself checks (MR tokens and bounds are RTL).
#ifndef QPNIC_SIM_DMA_CHECK_H
#define QPNIC_SIM_DMA_CHECK_H

#include <cstddef>
#include <cstdint>

#include "shm_proto.h"

// The DMA region as device addresses: [base, base + bytes).
struct DmaRegion {
    uint64_t base;
    uint64_t bytes;
};

// True when [addr, addr + len) lies inside the region, len >= 1, and some
// range among ranges[0..n) with len != 0 covers all of it and has every bit
// of perm (QPNIC_RANGE_READ for a DMA read, QPNIC_RANGE_WRITE for a write).
// The host may rewrite ranges while the simulator runs: each field is read
// once with a relaxed atomic load, so a range being changed gives the old or
// the new answer for that access, never undefined behaviour.
bool dma_access_allowed(const qpnic_range *ranges, size_t n, DmaRegion region,
                        uint64_t addr, uint64_t len, uint32_t perm);

// True when [addr, addr + len) with len >= 1 lies inside [lo, lo + lo_len),
// without overflowing anywhere in 64 bits.
bool dma_span_inside(uint64_t addr, uint64_t len, uint64_t lo, uint64_t lo_len);

#endif
