// qpnic_ost.vh: the outstanding entry the requester hands the completer
// through qpnic_datapath's outstanding FIFO, one per executed or locally
// completed SQ WQE, in execution order. Internal to the datapath (not a host
// or firmware format, so it is not in spec/layout.toml).
//
//   QPN       the QP
//   INDEX     free-running SQ index of the WQE (CQE wqe_index)
//   TYPE      enum cqe_type for the CQE
//   STATUS    enum cqe_status, for LOCAL entries
//   LOCAL     1: completed by the requester (FLUSHED, BAD_WQE, LOC_PROT,
//             LOC_LEN); no packet was sent, no response will come
//   READ      1: a READ: its response's payload goes to SEG_*
//   BYTES     message length (CQE bytes on success)
//   SLOT      READ: where its checked local segments wait in the datapath's
//             segment RAM (segment n at word SLOT * 4 + n; layout struct
//             seg); the entry carries this index, not the segments
//   SILENT    the WQE asked SILENT_SUCCESS: no CQE if it succeeds (its SQ
//             slot is still retired: SQ_CI_INC)
//   NO_CQE    an INLINE_DATA slot: never a CQE, whatever its status (its
//             request's WQE has the completion); the slot is retired
//   EPOCH     the QP's epoch when the WQE was claimed: an entry of another
//             epoch than its QP's (an RNR rewind came after it) is
//             discarded, its response dropped, its slot not retired
//   NET       its packet went to another NIC (the QP's peer is not 0): a
//             network may lose it or its answer (the completer's timer)
//   PEER      the QP's peer (struct lrh peer): its answer must come from
//             that NIC
`ifndef QPNIC_OST_VH
`define QPNIC_OST_VH
`define QPNIC_OST_SLOT_BITS 4
`define QPNIC_OST_QPN      7:0
`define QPNIC_OST_INDEX    23:8
`define QPNIC_OST_TYPE     31:24
`define QPNIC_OST_STATUS   39:32
`define QPNIC_OST_LOCAL    40
`define QPNIC_OST_READ     41
`define QPNIC_OST_BYTES    73:42
`define QPNIC_OST_SLOT     (74 + `QPNIC_OST_SLOT_BITS - 1):74
`define QPNIC_OST_SILENT   (74 + `QPNIC_OST_SLOT_BITS)
`define QPNIC_OST_NO_CQE   (75 + `QPNIC_OST_SLOT_BITS)
`define QPNIC_OST_EPOCH    (76 + `QPNIC_OST_SLOT_BITS)
`define QPNIC_OST_NET      (77 + `QPNIC_OST_SLOT_BITS)
`define QPNIC_OST_PEER     (79 + `QPNIC_OST_SLOT_BITS):(78 + `QPNIC_OST_SLOT_BITS)
`define QPNIC_OST_WIDTH    (80 + `QPNIC_OST_SLOT_BITS)
`endif
