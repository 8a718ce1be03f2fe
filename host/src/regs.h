/* regs.h: bit fields inside host registers that spec/layout.toml describes
 * only in prose (its register `doc` strings), not as generated fields.
 *
 * For: the host driver's decoding of CAPS0/CAPS1/STATUS and its encoding of
 * the QP and CQ CFG registers. Not for: anything the layout does generate
 * (register offsets, WQE/CQE/notify fields: use host/src/gen/qpnic_hw.h).
 *
 * Each field follows the generated naming scheme (_WORD, _SHIFT, _MASK) so
 * QPNIC_FIELD_GET / QPNIC_FIELD work on a one-word array. The positions are
 * copied from the register docs in docs/layout.md; when the layout grows
 * generated register fields, this file goes away.
 */
#ifndef QPNIC_HOST_REGS_H
#define QPNIC_HOST_REGS_H

#include "gen/qpnic_hw.h"

#define HREG_FIELD(name, shift, width)          \
    enum { name##_WORD = 0, name##_SHIFT = (shift), name##_MASK = (int)((1ull << (width)) - 1) }

/* CAPS0: num_qp[7:0] num_cq[15:8] num_mr[23:16] max_sge[27:24] */
HREG_FIELD(HREG_CAPS0_NUM_QP, 0, 8);
HREG_FIELD(HREG_CAPS0_NUM_CQ, 8, 8);
HREG_FIELD(HREG_CAPS0_NUM_MR, 16, 8);
HREG_FIELD(HREG_CAPS0_MAX_SGE, 24, 4);
/* CAPS1: log_max_qp_depth[4:0] log_max_cq_depth[12:8] fetch_burst_wqes[23:16] */
HREG_FIELD(HREG_CAPS1_LOG_MAX_QP_DEPTH, 0, 5);
HREG_FIELD(HREG_CAPS1_LOG_MAX_CQ_DEPTH, 8, 5);
HREG_FIELD(HREG_CAPS1_FETCH_BURST_WQES, 16, 8);
/* STATUS: bit 0 firmware ready, bit 1 NIC idle */
HREG_FIELD(HREG_STATUS_FW_READY, 0, 1);
HREG_FIELD(HREG_STATUS_IDLE, 1, 1);
/* QP CFG: sq_log_depth[4:0] rq_log_depth[12:8] send_cq[19:16] recv_cq[27:24] */
HREG_FIELD(HREG_QPCFG_SQ_LOG_DEPTH, 0, 5);
HREG_FIELD(HREG_QPCFG_RQ_LOG_DEPTH, 8, 5);
HREG_FIELD(HREG_QPCFG_SEND_CQ, 16, 4);
HREG_FIELD(HREG_QPCFG_RECV_CQ, 24, 4);
/* QP REMOTE: remote QP number[7:0] */
HREG_FIELD(HREG_QPREMOTE_QPN, 0, 8);
/* CQ CFG: log_depth[4:0] enable[31] */
HREG_FIELD(HREG_CQCFG_LOG_DEPTH, 0, 5);
HREG_FIELD(HREG_CQCFG_ENABLE, 31, 1);
/* CQ STATE: bit 0 enabled, bit 1 overrun */
HREG_FIELD(HREG_CQSTATE_ENABLED, 0, 1);
HREG_FIELD(HREG_CQSTATE_OVERRUN, 1, 1);

/* Ring indices (SQ_PI, RQ_PI, CQ CI, CQE wqe_index) are free-running and
 * 16 bits wide at the NIC (internals.md: qp_sq_pi[NUM_QP*16]; CQE
 * wqe_index[15:0]); the host counts in 32 bits and writes the low half. */
#define HREG_INDEX_MASK 0xFFFFu

#endif
