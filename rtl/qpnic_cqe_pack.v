// qpnic_cqe_pack: the 128-bit CQE request word (layout struct cqe, word w at
// bits 32w+31:32w) from its fields, in one place for the completer (SQ
// CQEs) and the responder (RQ CQEs). The phase bit is left 0: the CQE
// writer sets it. Purely combinational.
//
// Ports
//   byte_count   bytes transferred; packed only when status is SUCCESS (V7)
//   qp_index, qp_gen   the QP the request belongs to (V3): its table index
//                and the generation of its number, packed as struct qp_num
//   wqe_index    free-running index of the WQE in its SQ or RQ
//   inv_token    RECEIVE_AND_INVALIDATE: the invalidated token
//   cqe_type     enum cqe_type
//   status       enum cqe_status
//   solicited    a receive of a send that asked for a solicited event (N7)
//   cqe          the packed CQE
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_cqe_pack (
    input  wire [31:0]  byte_count,
    input  wire [`QPNIC_QP_NUM_INDEX_WIDTH-1:0] qp_index,
    input  wire [`QPNIC_QP_NUM_GEN_WIDTH-1:0]   qp_gen,
    input  wire [`QPNIC_CQE_WQE_INDEX_WIDTH-1:0] wqe_index,
    input  wire [31:0]  inv_token,
    input  wire [`QPNIC_CQE_TYPE_WIDTH-1:0] cqe_type,
    input  wire [7:0]   status,
    input  wire         solicited,
    output reg  [127:0] cqe
);
    // the QP's full number, as its owner knows it (ndk_qp_num)
    reg [`QPNIC_CQE_QPN_WIDTH-1:0] qpn;
    always @* begin
        qpn = {`QPNIC_CQE_QPN_WIDTH{1'b0}};
        qpn[`QPNIC_QP_NUM_INDEX] = qp_index;
        qpn[`QPNIC_QP_NUM_GEN]   = qp_gen;
    end

    always @* begin
        cqe = 128'd0;
        cqe[`QPNIC_CQE_BYTE_COUNT_FLAT] =
            (status == `QPNIC_CQE_STATUS_SUCCESS) ? byte_count : 32'd0;
        cqe[`QPNIC_CQE_QPN_FLAT]       = qpn;
        cqe[`QPNIC_CQE_WQE_INDEX_FLAT] = wqe_index;
        cqe[`QPNIC_CQE_INV_TOKEN_FLAT] = inv_token;
        cqe[`QPNIC_CQE_TYPE_FLAT]      = cqe_type;
        cqe[`QPNIC_CQE_STATUS_FLAT]    = status;
        cqe[`QPNIC_CQE_SOLICITED_FLAT] = solicited;
    end
endmodule

`default_nettype wire
