// tb_bits.h: bit-field access to Verilator ports of any width, for the RTL
// unit testbenches. Flat vectors (per-QP, per-MR state) are set and read
// field by field: setb(top->mr_va, i * 64, 64, va).
// Not for anything but testbenches.
#ifndef QPNIC_TB_BITS_H
#define QPNIC_TB_BITS_H
#include <cstdint>
#include <cstddef>
#include "verilated.h"

// Wide ports (more than 64 bits): VlWide<N>, 32-bit words, LSB first.
template <std::size_t N>
static inline void setb(VlWide<N> &w, int lsb, int width, uint64_t v) {
    for (int i = 0; i < width; i++) {
        int b = lsb + i;
        uint32_t m = 1u << (b % 32);
        if ((v >> i) & 1) w[b / 32] |= m;
        else w[b / 32] &= ~m;
    }
}
template <std::size_t N>
static inline uint64_t getb(const VlWide<N> &w, int lsb, int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; i++) {
        int b = lsb + i;
        if ((w[b / 32] >> (b % 32)) & 1) v |= (uint64_t)1 << i;
    }
    return v;
}
// Narrow ports: CData, SData, IData, QData.
template <typename T>
static inline void setb(T &w, int lsb, int width, uint64_t v) {
    uint64_t m = (width >= 64 ? ~0ull : ((1ull << width) - 1)) << lsb;
    w = (T)(((uint64_t)w & ~m) | ((v << lsb) & m));
}
template <typename T>
static inline uint64_t getb(const T &w, int lsb, int width) {
    uint64_t m = width >= 64 ? ~0ull : ((1ull << width) - 1);
    return ((uint64_t)w >> lsb) & m;
}
#endif
