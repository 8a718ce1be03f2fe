/* regs.h: what the host driver assumes of the NIC's registers beyond the
 * generated layout (host/src/gen/qpnic_hw.h, which has every offset and
 * field, packed registers included: QPNIC_QP_CFG_SQ_LOG, QPNIC_CAPS0_*...).
 */
#ifndef QPNIC_HOST_REGS_H
#define QPNIC_HOST_REGS_H

#include "gen/qpnic_hw.h"

/* Ring indices (SQ_PI, RQ_PI, CQ CI, CQE wqe_index) are free-running and
 * INDEX_BITS wide at the NIC (layout); the host counts in 32 bits and writes
 * the low INDEX_BITS. */
#define HREG_INDEX_MASK ((1u << QPNIC_INDEX_BITS) - 1u)

/* A CQE carries its type as enum cqe_type: the NDK_OP_TYPE value in 8 bits,
 * bit 7 standing for bit 15 (layout, enum cqe_type). */
static inline uint32_t qpnic_cqe_type_to_ndk(uint32_t t)
{
    return ((t & 0x80u) << 8) | (t & 0x7Fu);
}
static inline uint32_t qpnic_ndk_to_cqe_type(uint32_t t)
{
    return ((t >> 8) & 0x80u) | (t & 0x7Fu);
}

#endif
