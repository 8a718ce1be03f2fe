/* regs.h: what the host driver assumes of the NIC's registers beyond the
 * generated layout (host/src/gen/qpnic_hw.h, which has every offset and
 * field, packed registers included: QPNIC_QP_CFG_SQ_LOG, QPNIC_CAPS0_*...).
 */
#ifndef QPNIC_HOST_REGS_H
#define QPNIC_HOST_REGS_H

#include "gen/qpnic_hw.h"

/* Ring indices (SQ_PI, RQ_PI, CQ CI, CQE wqe_index) are free-running and
 * 16 bits wide at the NIC (internals.md: qp_sq_pi[NUM_QP*16]; CQE
 * wqe_index[15:0]); the host counts in 32 bits and writes the low half. */
#define HREG_INDEX_MASK 0xFFFFu

#endif
