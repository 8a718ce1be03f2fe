// qpnic_completer: retires SQ work in order (the initiator's completion
// side, like rxe_comp.c) and asks for its SQ CQEs.
//
// It pops the requester's outstanding entries one at a time. A LOCAL entry
// (FLUSHED, BAD_WQE, LOC_PROT, LOC_LEN) completes at once. Any other waits
// for the next response on the port (the loopback port keeps order): an ACK
// completes it SUCCESS; a READ_RESPONSE_ONLY completes a READ SUCCESS after
// its payload is scattered into the READ's (already checked) segments; a NAK
// completes it with the mapped status (RNR_NAK -> RNR, NAK_REM_ACC ->
// REM_ACCESS, NAK_REM_OP -> REM_OP, NAK_INV_REQ -> BAD_QP, an unexpected
// response -> REM_OP) and sets the QP to ERROR. Once an entry of a QP has
// completed in error, the QP's later entries complete FLUSHED (their
// responses are dropped) until the QP is reset. Each completion: an SQ CQE
// on the QP's send CQ, then sq_ci_inc. A QP in RESET gets neither.
//
// Parameters
//   NUM_QP     size of the flat context vectors
// Ports
//   qp_scq, qp_state                     QP contexts from qpnic_csr
//   ost_valid/ost_ready/ost_data         outstanding entries (rtl/qpnic_ost.vh)
//   in_*                                 responses from the responder's port FIFO
//   wr_req_*, wr_dat_*                   DMA write master (index 1): READ data
//   cqe_valid/ready, cqe_cqn, cqe_data   SQ CQE requests (phase bit 0)
//   sq_ci_inc_valid, sq_ci_inc_qpn       one-cycle strobe: one SQ WQE completed
//   qp_err_valid/ready, qp_err_qpn       set the QP to ERROR (held until ready)
//   idle                                 nothing in progress
`default_nettype none
`include "qpnic_layout.vh"
`include "qpnic_ost.vh"

module qpnic_completer #(
    parameter NUM_QP = 8
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire [NUM_QP*`QPNIC_CQN_BITS-1:0] qp_scq,
    input  wire [NUM_QP*2-1:0]  qp_state,
    input  wire                 ost_valid,
    output wire                 ost_ready,
    input  wire [`QPNIC_OST_WIDTH-1:0] ost_data,
    input  wire                 in_valid,
    output reg                  in_ready,
    input  wire [31:0]          in_data,
    input  wire [3:0]           in_keep,
    input  wire                 in_last,
    output wire                 wr_req_valid,
    input  wire                 wr_req_ready,
    output wire [63:0]          wr_req_addr,
    output wire [15:0]          wr_req_len,
    output wire                 wr_dat_valid,
    input  wire                 wr_dat_ready,
    output wire [31:0]          wr_dat_data,
    output wire [3:0]           wr_dat_keep,
    output wire                 wr_dat_last,
    output wire                 cqe_valid,
    input  wire                 cqe_ready,
    output wire [`QPNIC_CQN_BITS-1:0] cqe_cqn,
    output wire [127:0]         cqe_data,
    output wire                 sq_ci_inc_valid,
    output wire [7:0]           sq_ci_inc_qpn,
    output wire                 qp_err_valid,
    input  wire                 qp_err_ready,
    output wire [7:0]           qp_err_qpn,
    output wire                 idle
);
    localparam MAX_SGE = `QPNIC_MAX_SGE;
    localparam LRH_AT  = 0;
    localparam BTH_AT  = LRH_AT + `QPNIC_LRH_WORDS;
    localparam AETH_AT = BTH_AT + `QPNIC_BTH_WORDS;
    localparam [2:0] RESP_WORDS = AETH_AT + `QPNIC_AETH_WORDS;  // LRH + BTH + AETH

    localparam [3:0] S_IDLE  = 4'd0,  // take the next outstanding entry
                     S_HDR   = 4'd1,  // its response's header words
                     S_EVAL  = 4'd2,  // status from the response
                     S_DATA  = 4'd3,  // scatter or drop the payload
                     S_SCAT  = 4'd4,  // scatter running
                     S_DRAIN = 4'd5,  // drop the payload up to last
                     S_ERR   = 4'd6,  // QP to ERROR
                     S_CQE   = 4'd7,  // SQ CQE request
                     S_CI    = 4'd8;  // sq_ci_inc strobe

    reg [3:0]    state;
    // The entry's LOCAL bit is used as it is popped; the response's BTH
    // dest_qp and psn are stored but not checked (the loopback port keeps
    // order, so the next response is this entry's).
    /* verilator lint_off UNUSEDSIGNAL */
    reg [`QPNIC_OST_WIDTH-1:0] ent;
    reg [159:0]  hdr;
    /* verilator lint_on UNUSEDSIGNAL */
    reg [2:0]    hdr_i;
    reg          has_payload;
    reg [7:0]    status;
    reg [31:0]   scat_total;
    reg          raise_err;       // this completion sets the QP to ERROR
    reg [NUM_QP-1:0] comp_err;    // an earlier entry of the QP failed

    wire [7:0]  e_qpn    = ent[`QPNIC_OST_QPN];
    wire [15:0] e_index  = ent[`QPNIC_OST_INDEX];
    wire [15:0] e_type   = ent[`QPNIC_OST_TYPE];
    wire        e_read   = ent[`QPNIC_OST_READ];
    wire [31:0] e_bytes  = ent[`QPNIC_OST_BYTES];
    wire [MAX_SGE*32-1:0] e_seg_len  = ent[`QPNIC_OST_SEG_LEN_LSB +: 32*MAX_SGE];
    wire [MAX_SGE*64-1:0] e_seg_addr = ent[`QPNIC_OST_SEG_ADDR_LSB +: 64*MAX_SGE];

    wire [1:0] e_state  = qp_state[e_qpn*2 +: 2];
    wire       e_failed = comp_err[e_qpn*1 +: 1];

    // Whole words are taken so that each field comes out through its layout
    // macro; the bits of a word that belong to other fields are unused here.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] h_lrh  = hdr[32*(LRH_AT + `QPNIC_LRH_PAYLOAD_BYTES_WORD) +: 32];
    wire [31:0] h_op   = hdr[32*(BTH_AT + `QPNIC_BTH_OPCODE_WORD) +: 32];
    wire [31:0] h_aeth = hdr[32*(AETH_AT + `QPNIC_AETH_SYNDROME_WORD) +: 32];
    /* verilator lint_on UNUSEDSIGNAL */
    wire [31:0] payload = h_lrh[`QPNIC_LRH_PAYLOAD_BYTES];
    wire [7:0]  opcode  = h_op[`QPNIC_BTH_OPCODE];
    wire [7:0]  syn     = h_aeth[`QPNIC_AETH_SYNDROME];

    reg [7:0] nak_status;
    always @* begin
        case (syn)
        `QPNIC_AETH_SYNDROME_RNR_NAK:     nak_status = `QPNIC_CQE_STATUS_RNR;
        `QPNIC_AETH_SYNDROME_NAK_REM_ACC: nak_status = `QPNIC_CQE_STATUS_REM_ACCESS;
        `QPNIC_AETH_SYNDROME_NAK_INV_REQ: nak_status = `QPNIC_CQE_STATUS_BAD_QP;
        default:                          nak_status = `QPNIC_CQE_STATUS_REM_OP;
        endcase
    end

    // --- scatter for READ responses ---
    wire s_start_ready, s_done, s_idle, s_in_ready;
    qpnic_scatter u_scatter (
        .clk(clk), .rst(rst),
        .start_valid(state == S_DATA && has_payload && scat_total != 32'd0),
        .start_ready(s_start_ready),
        .start_addr(e_seg_addr), .start_len(e_seg_len), .start_total(scat_total),
        .in_valid(in_valid && state == S_SCAT), .in_ready(s_in_ready),
        .in_data(in_data), .in_keep(in_keep), .in_last(in_last),
        .wr_req_valid(wr_req_valid), .wr_req_ready(wr_req_ready),
        .wr_req_addr(wr_req_addr), .wr_req_len(wr_req_len),
        .wr_dat_valid(wr_dat_valid), .wr_dat_ready(wr_dat_ready),
        .wr_dat_data(wr_dat_data), .wr_dat_keep(wr_dat_keep),
        .wr_dat_last(wr_dat_last), .done(s_done), .idle(s_idle));

    always @* begin
        case (state)
        S_HDR, S_DRAIN: in_ready = 1'b1;
        S_SCAT:         in_ready = s_in_ready;
        default:        in_ready = 1'b0;
        endcase
    end

    // --- the SQ CQE ---
    qpnic_cqe_pack u_cqe (
        .byte_count(e_bytes), .qpn(e_qpn), .wqe_index(e_index), .inv_token(32'd0),
        .op_type(e_type), .status(status), .solicited(1'b0), .cqe(cqe_data));
    // A QP reset under its work gets no CQE (its CQ state is the host's).
    wire qp_live = (e_state != `QPNIC_QP_STATE_RESET);
    assign cqe_valid       = (state == S_CQE) && qp_live;
    assign cqe_cqn         = qp_scq[e_qpn*`QPNIC_CQN_BITS +: `QPNIC_CQN_BITS];
    assign sq_ci_inc_valid = (state == S_CI) && qp_live;
    assign sq_ci_inc_qpn   = e_qpn;
    assign qp_err_valid    = (state == S_ERR);
    assign qp_err_qpn      = e_qpn;
    assign ost_ready       = (state == S_IDLE);
    assign idle            = (state == S_IDLE) && s_idle;

    integer j;
    always @(posedge clk) begin
        if (rst) begin
            state       <= S_IDLE;
            ent         <= 0;
            hdr         <= 160'd0;
            hdr_i       <= 3'd0;
            has_payload <= 1'b0;
            status      <= `QPNIC_CQE_STATUS_SUCCESS;
            scat_total  <= 32'd0;
            raise_err   <= 1'b0;
            comp_err    <= 0;
        end else begin
            case (state)
            S_IDLE:
                if (ost_valid) begin
                    ent        <= ost_data;
                    hdr_i      <= 3'd0;
                    raise_err  <= 1'b0;
                    scat_total <= 32'd0;
                    if (ost_data[`QPNIC_OST_LOCAL]) begin
                        status <= ost_data[`QPNIC_OST_STATUS];
                        // the requester already set the QP to ERROR
                        if (ost_data[`QPNIC_OST_STATUS] != `QPNIC_CQE_STATUS_FLUSHED)
                            comp_err[ost_data[`QPNIC_OST_QPN]*1 +: 1] <= 1'b1;
                        state <= S_CQE;
                    end else
                        state <= S_HDR;
                end
            S_HDR:
                if (in_valid) begin
                    hdr[32*hdr_i +: 32] <= in_data;
                    hdr_i <= hdr_i + 3'd1;
                    if (in_last || hdr_i == RESP_WORDS - 3'd1) begin
                        has_payload <= !in_last;
                        state       <= S_EVAL;
                    end
                end
            S_EVAL: begin
                state <= S_DATA;
                if (e_failed)
                    status <= `QPNIC_CQE_STATUS_FLUSHED;
                else if (opcode == `QPNIC_IB_OPCODE_ACK &&
                         syn == `QPNIC_AETH_SYNDROME_ACK && !e_read)
                    status <= `QPNIC_CQE_STATUS_SUCCESS;
                else if (opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_ONLY && e_read) begin
                    status     <= `QPNIC_CQE_STATUS_SUCCESS;
                    scat_total <= (payload < e_bytes) ? payload : e_bytes;
                end else begin
                    status    <= (opcode == `QPNIC_IB_OPCODE_ACK) ? nak_status
                                                                  : `QPNIC_CQE_STATUS_REM_OP;
                    raise_err <= 1'b1;
                    comp_err[e_qpn*1 +: 1] <= 1'b1;
                end
            end
            S_DATA:
                if (has_payload && scat_total != 32'd0) begin
                    if (s_start_ready) state <= S_SCAT;
                end else if (has_payload)
                    state <= S_DRAIN;
                else
                    state <= raise_err ? S_ERR : S_CQE;
            S_SCAT:
                if (s_done) state <= raise_err ? S_ERR : S_CQE;
            S_DRAIN:
                if (in_valid && in_last) state <= raise_err ? S_ERR : S_CQE;
            S_ERR:
                if (qp_err_ready) state <= S_CQE;
            S_CQE:
                if (cqe_ready || !qp_live) state <= S_CI;
            S_CI:
                state <= S_IDLE;
            default: state <= S_IDLE;
            endcase

            for (j = 0; j < NUM_QP; j = j + 1)
                if (qp_state[j*2 +: 2] == `QPNIC_QP_STATE_RESET)
                    comp_err[j] <= 1'b0;
        end
    end
endmodule

`default_nettype wire
