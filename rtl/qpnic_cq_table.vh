// qpnic_cq_table.vh: the op codes of qpnic_cq_table's CQE writer port (c_op)
// and firmware port (f_op). Internal to the NIC (the host and the firmware
// never see them, so they are not in spec/layout.toml); what each op does is
// in qpnic_cq_table.v's header.
`ifndef QPNIC_CQ_TABLE_VH
`define QPNIC_CQ_TABLE_VH
// CQE writer port
`define QPNIC_CQT_C_READ       2'd0  // answer the context
`define QPNIC_CQT_C_WRITTEN    2'd1  // a CQE was written: PI + 1, marks, stamp; answered
`define QPNIC_CQT_C_OVERRUN    2'd2  // the CQ was full: set overrun; not answered
// firmware port
`define QPNIC_CQT_F_READ       2'd0  // answer PI, CI and the marks
`define QPNIC_CQT_F_ARMED_CLR  2'd1  // clear armed unless an ARM is queued; not answered
`define QPNIC_CQT_F_ARM_POPPED 2'd2  // an ARM event was popped: arms_queued - 1; not answered
`endif
