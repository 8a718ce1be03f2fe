// dma_check.cpp: the DMA checker (see dma_check.h). Pure functions, no state.
#include "dma_check.h"

bool dma_span_inside(uint64_t addr, uint64_t len, uint64_t lo, uint64_t lo_len) {
    if (len == 0 || addr < lo)
        return false;
    uint64_t off = addr - lo;
    return off < lo_len && len <= lo_len - off;
}

bool dma_access_allowed(const qpnic_range *ranges, size_t n, DmaRegion region,
                        uint64_t addr, uint64_t len, uint32_t perm) {
    if (!dma_span_inside(addr, len, region.base, region.bytes))
        return false;
    for (size_t i = 0; i < n; i++) {
        // The host writes ranges while we run: load each field once.
        uint64_t r_len = __atomic_load_n(&ranges[i].len, __ATOMIC_RELAXED);
        if (r_len == 0)
            continue;
        uint64_t r_addr = __atomic_load_n(&ranges[i].addr, __ATOMIC_RELAXED);
        uint32_t r_perm = __atomic_load_n(&ranges[i].perm, __ATOMIC_RELAXED);
        if ((r_perm & perm) == perm && dma_span_inside(addr, len, r_addr, r_len))
            return true;
    }
    return false;
}
