// qpnic_datapath: everything between the QP contexts and host memory that
// moves data: the WQE fetch engine, the requester, the loopback port, the
// responder, the completer (docs/internals.md, "The datapath").
//
//   qpnic_wqe_fetch --WQE words--> qpnic_requester --packets--> port FIFO
//        |                              | outstanding FIFO         |
//        v                              v                          v
//   rd master 0               rd master 1, qpnic_completer <-- port FIFO <-- qpnic_responder
//                                       wr master 1              rd master 2, wr master 0
//
// The two port FIFOs are the loopback port (a packet keeps its order). The
// responder's (responses) holds at least a MAX_DMA_BYTES read plus headers,
// so its gather can always issue a whole read once the FIFO has drained
// (deadlock rule); the requester's gather reads into the requester's own
// staging FIFO, so the requester's port FIFO only decouples the two sides
// and can be smaller (docs/performance-analysis.md). The datapath also merges what its
// parts report to qpnic_csr and qpnic_cqe_writer: qp_err from requester and
// completer (one a cycle, the completer first, the other waits: none is
// lost), RQ CQEs from the responder and SQ CQEs from the completer (round
// robin, a presented CQE stays until taken), and the WQE fetch counts of the
// SQ fetch engine and of the responder's RQ WQE reads (added, so that both in
// one cycle lose nothing).
//
// Parameters
//   NUM_QP, NUM_CQ           sizes of the context vectors (NUM_CQ sizes
//                            nothing here: CQ numbers are CQN_BITS on the ports)
//   PORT_LOG_DEPTH           log2 of the response port FIFO's words (>= 8)
//   REQ_PORT_LOG_DEPTH       log2 of the request port FIFO's words (>= 4)
//   OST_LOG_DEPTH            log2 of outstanding entries (requests in flight)
//   WQE_LOG_SLOTS            log2 of the WQE buffer in WQEs (>= 4)
// Ports
//   clk, rst                 clock, synchronous active-high reset
//   qp_*                     QP contexts from qpnic_csr, flat
//   chk_*, res_*             the two check ports of qpnic_mr_table, port 0
//                            the requester's, port 1 the responder's (flat,
//                            port p at [p*W +: W])
//   qp_err_valid, qp_err_qpn       strobe: set the QP's state to ERROR
//   rq_ci_inc_valid, rq_ci_inc_qpn strobe: one RQ WQE consumed
//   sq_ci_inc_valid, sq_ci_inc_qpn strobe: one SQ WQE completed
//   cnt_fetch_read           WQE fetch DMA reads issued this cycle: the SQ
//                            fetch engine's plus the responder's RQ WQE
//                            reads (0..2)
//   cnt_wqes_fetched         WQEs those reads fetch (0 in other cycles)
//   cqe_valid/ready, cqe_cqn, cqe_data   CQE requests to qpnic_cqe_writer
//                            (word w at [32w+31:32w], phase bit 0)
//   rd_*                     DMA read masters: 0 WQE fetch, 1 requester,
//                            2 responder; rd_rsp_valid is raised only for
//                            the owner, data/keep/last are shared
//   wr_*                     DMA write masters: 0 responder, 1 completer
//   idle                     no work: nothing to fetch, every engine idle,
//                            every FIFO empty
`default_nettype none
`include "qpnic_layout.vh"
`include "qpnic_ost.vh"

module qpnic_datapath #(
    parameter NUM_QP             = 8,
    // verilator lint_off UNUSEDPARAM
    // NUM_CQ is part of the boundary (docs/internals.md) but nothing here is
    // sized by it: CQ numbers pass through as CQN_BITS-bit fields.
    parameter NUM_CQ             = 8,
    // verilator lint_on UNUSEDPARAM
    parameter PORT_LOG_DEPTH     = 8,
    parameter REQ_PORT_LOG_DEPTH = 6,
    parameter OST_LOG_DEPTH      = 3,
    parameter WQE_LOG_SLOTS      = 4
) (
    input  wire                 clk,
    input  wire                 rst,
    // contexts from qpnic_csr
    input  wire [NUM_QP*64-1:0] qp_sq_base,
    input  wire [NUM_QP*64-1:0] qp_rq_base,
    input  wire [NUM_QP*5-1:0]  qp_sq_log,
    input  wire [NUM_QP*5-1:0]  qp_rq_log,
    input  wire [NUM_QP*`QPNIC_CQN_BITS-1:0] qp_scq,
    input  wire [NUM_QP*`QPNIC_CQN_BITS-1:0] qp_rcq,
    input  wire [NUM_QP*8-1:0]  qp_remote,
    input  wire [NUM_QP*2-1:0]  qp_state,
    input  wire [NUM_QP*16-1:0] qp_sq_pi,
    input  wire [NUM_QP*16-1:0] qp_rq_pi,
    input  wire [NUM_QP*16-1:0] qp_rq_ci,
    // token checks, to and from qpnic_mr_table
    output wire [1:0]           chk_valid,
    output wire [2*32-1:0]      chk_token,
    output wire [2*64-1:0]      chk_va,
    output wire [2*32-1:0]      chk_len,
    output wire [1:0]           chk_remote,
    output wire [2*3-1:0]       chk_need,
    input  wire [1:0]           res_valid,
    input  wire [1:0]           res_ok,
    input  wire [2*64-1:0]      res_dev,
    // updates to qpnic_csr
    output wire                 qp_err_valid,
    output wire [7:0]           qp_err_qpn,
    output wire                 rq_ci_inc_valid,
    output wire [7:0]           rq_ci_inc_qpn,
    output wire                 sq_ci_inc_valid,
    output wire [7:0]           sq_ci_inc_qpn,
    output wire [1:0]           cnt_fetch_read,
    output wire [4:0]           cnt_wqes_fetched,
    // CQE requests to qpnic_cqe_writer
    output wire                 cqe_valid,
    input  wire                 cqe_ready,
    output wire [`QPNIC_CQN_BITS-1:0] cqe_cqn,
    output wire [127:0]         cqe_data,
    // DMA read masters
    output wire [2:0]           rd_req_valid,
    input  wire [2:0]           rd_req_ready,
    output wire [3*64-1:0]      rd_req_addr,
    output wire [3*16-1:0]      rd_req_len,
    input  wire [2:0]           rd_rsp_valid,
    output wire [2:0]           rd_rsp_ready,
    input  wire [31:0]          rd_rsp_data,
    input  wire [3:0]           rd_rsp_keep,
    input  wire                 rd_rsp_last,
    // DMA write masters
    output wire [1:0]           wr_req_valid,
    input  wire [1:0]           wr_req_ready,
    output wire [2*64-1:0]      wr_req_addr,
    output wire [2*16-1:0]      wr_req_len,
    output wire [1:0]           wr_dat_valid,
    input  wire [1:0]           wr_dat_ready,
    output wire [2*32-1:0]      wr_dat_data,
    output wire [2*4-1:0]       wr_dat_keep,
    output wire [1:0]           wr_dat_last,
    output wire                 idle
);
    localparam PORT_DEPTH = 1 << PORT_LOG_DEPTH;
    localparam OST_W      = `QPNIC_OST_WIDTH;

    // ---------------------------------------------------------------- fetch
    wire        wqe_valid, wqe_ready, wqe_last;
    wire [63:0] wqe_data;
    wire [7:0]  wqe_qpn;
    wire [15:0] wqe_index;
    wire        fetch_idle;
    wire        sq_fetch_read;
    wire [3:0]  sq_wqes_fetched;

    qpnic_wqe_fetch #(.NUM_QP(NUM_QP), .LOG_SLOTS(WQE_LOG_SLOTS)) u_fetch (
        .clk(clk), .rst(rst),
        .qp_sq_base(qp_sq_base), .qp_sq_log(qp_sq_log), .qp_state(qp_state),
        .qp_sq_pi(qp_sq_pi),
        .rd_req_valid(rd_req_valid[0]), .rd_req_ready(rd_req_ready[0]),
        .rd_req_addr(rd_req_addr[0*64 +: 64]), .rd_req_len(rd_req_len[0*16 +: 16]),
        .rd_rsp_valid(rd_rsp_valid[0]), .rd_rsp_ready(rd_rsp_ready[0]),
        .rd_rsp_data(rd_rsp_data), .rd_rsp_keep(rd_rsp_keep), .rd_rsp_last(rd_rsp_last),
        .wqe_valid(wqe_valid), .wqe_ready(wqe_ready), .wqe_data(wqe_data),
        .wqe_last(wqe_last), .wqe_qpn(wqe_qpn), .wqe_index(wqe_index),
        .cnt_fetch_read(sq_fetch_read), .cnt_wqes_fetched(sq_wqes_fetched),
        .idle(fetch_idle));

    // ------------------------------------------------------------ requester
    wire        rq_out_valid, rq_out_ready, rq_out_last;
    wire [31:0] rq_out_data;
    wire [3:0]  rq_out_keep;
    wire [REQ_PORT_LOG_DEPTH:0] req_port_count;
    wire        ost_in_valid, ost_in_ready, ost_out_valid, ost_out_ready;
    wire [OST_W-1:0] ost_in_data, ost_out_data;
    wire [OST_LOG_DEPTH:0] ost_count;
    wire        req_err_valid, req_err_ready;
    wire [7:0]  req_err_qpn;
    wire        req_idle;

    // the requester's checks are local (lkey) ones
    assign chk_remote[0] = 1'b0;
    qpnic_requester #(.NUM_QP(NUM_QP)) u_req (
        .clk(clk), .rst(rst),
        .qp_state(qp_state), .qp_remote(qp_remote),
        .chk_valid(chk_valid[0]), .chk_token(chk_token[0*32 +: 32]),
        .chk_va(chk_va[0*64 +: 64]), .chk_len(chk_len[0*32 +: 32]),
        .chk_need(chk_need[0*3 +: 3]),
        .res_valid(res_valid[0]), .res_ok(res_ok[0]), .res_dev(res_dev[0*64 +: 64]),
        .wqe_valid(wqe_valid), .wqe_ready(wqe_ready), .wqe_data(wqe_data),
        .wqe_last(wqe_last), .wqe_qpn(wqe_qpn), .wqe_index(wqe_index),
        .rd_req_valid(rd_req_valid[1]), .rd_req_ready(rd_req_ready[1]),
        .rd_req_addr(rd_req_addr[1*64 +: 64]), .rd_req_len(rd_req_len[1*16 +: 16]),
        .rd_rsp_valid(rd_rsp_valid[1]), .rd_rsp_ready(rd_rsp_ready[1]),
        .rd_rsp_data(rd_rsp_data), .rd_rsp_keep(rd_rsp_keep), .rd_rsp_last(rd_rsp_last),
        .out_valid(rq_out_valid), .out_ready(rq_out_ready), .out_data(rq_out_data),
        .out_keep(rq_out_keep), .out_last(rq_out_last),
        .ost_valid(ost_in_valid), .ost_ready(ost_in_ready), .ost_data(ost_in_data),
        .qp_err_valid(req_err_valid), .qp_err_ready(req_err_ready),
        .qp_err_qpn(req_err_qpn), .idle(req_idle));

    // ------------------------------------------- loopback port and ost FIFO
    wire        rs_in_valid, rs_in_ready, rs_in_last;
    wire [31:0] rs_in_data;
    wire [3:0]  rs_in_keep;

    qpnic_fifo #(.WIDTH(37), .LOG_DEPTH(REQ_PORT_LOG_DEPTH)) u_port_req (
        .clk(clk), .rst(rst),
        .in_valid(rq_out_valid), .in_ready(rq_out_ready),
        .in_data({rq_out_last, rq_out_keep, rq_out_data}),
        .out_valid(rs_in_valid), .out_ready(rs_in_ready),
        .out_data({rs_in_last, rs_in_keep, rs_in_data}),
        .count(req_port_count));

    qpnic_fifo #(.WIDTH(OST_W), .LOG_DEPTH(OST_LOG_DEPTH)) u_ost (
        .clk(clk), .rst(rst),
        .in_valid(ost_in_valid), .in_ready(ost_in_ready), .in_data(ost_in_data),
        .out_valid(ost_out_valid), .out_ready(ost_out_ready), .out_data(ost_out_data),
        .count(ost_count));

    // ------------------------------------------------------------ responder
    wire        rs_out_valid, rs_out_ready, rs_out_last;
    wire [31:0] rs_out_data;
    wire [3:0]  rs_out_keep;
    wire [PORT_LOG_DEPTH:0] rsp_port_count;
    wire [15:0] rsp_port_room = PORT_DEPTH[15:0] - {{(15-PORT_LOG_DEPTH){1'b0}}, rsp_port_count};
    wire        rs_cqe_valid, rs_cqe_ready;
    wire [`QPNIC_CQN_BITS-1:0] rs_cqe_cqn;
    wire [127:0] rs_cqe_data;
    wire        rs_idle;
    wire        rq_fetch_read;

    qpnic_responder #(.NUM_QP(NUM_QP)) u_resp (
        .clk(clk), .rst(rst),
        .qp_rq_base(qp_rq_base), .qp_rq_log(qp_rq_log), .qp_rcq(qp_rcq),
        .qp_remote(qp_remote), .qp_state(qp_state), .qp_rq_pi(qp_rq_pi),
        .qp_rq_ci(qp_rq_ci),
        .chk_valid(chk_valid[1]), .chk_token(chk_token[1*32 +: 32]),
        .chk_va(chk_va[1*64 +: 64]), .chk_len(chk_len[1*32 +: 32]),
        .chk_remote(chk_remote[1]), .chk_need(chk_need[1*3 +: 3]),
        .res_valid(res_valid[1]), .res_ok(res_ok[1]), .res_dev(res_dev[1*64 +: 64]),
        .in_valid(rs_in_valid), .in_ready(rs_in_ready), .in_data(rs_in_data),
        .in_keep(rs_in_keep), .in_last(rs_in_last),
        .out_valid(rs_out_valid), .out_ready(rs_out_ready), .out_data(rs_out_data),
        .out_keep(rs_out_keep), .out_last(rs_out_last), .out_room(rsp_port_room),
        .rd_req_valid(rd_req_valid[2]), .rd_req_ready(rd_req_ready[2]),
        .rd_req_addr(rd_req_addr[2*64 +: 64]), .rd_req_len(rd_req_len[2*16 +: 16]),
        .rd_rsp_valid(rd_rsp_valid[2]), .rd_rsp_ready(rd_rsp_ready[2]),
        .rd_rsp_data(rd_rsp_data), .rd_rsp_keep(rd_rsp_keep), .rd_rsp_last(rd_rsp_last),
        .wr_req_valid(wr_req_valid[0]), .wr_req_ready(wr_req_ready[0]),
        .wr_req_addr(wr_req_addr[0*64 +: 64]), .wr_req_len(wr_req_len[0*16 +: 16]),
        .wr_dat_valid(wr_dat_valid[0]), .wr_dat_ready(wr_dat_ready[0]),
        .wr_dat_data(wr_dat_data[0*32 +: 32]), .wr_dat_keep(wr_dat_keep[0*4 +: 4]),
        .wr_dat_last(wr_dat_last[0]),
        .cqe_valid(rs_cqe_valid), .cqe_ready(rs_cqe_ready), .cqe_cqn(rs_cqe_cqn),
        .cqe_data(rs_cqe_data),
        .rq_ci_inc_valid(rq_ci_inc_valid), .rq_ci_inc_qpn(rq_ci_inc_qpn),
        .cnt_rq_fetch(rq_fetch_read), .idle(rs_idle));

    wire        cp_in_valid, cp_in_ready, cp_in_last;
    wire [31:0] cp_in_data;
    wire [3:0]  cp_in_keep;

    qpnic_fifo #(.WIDTH(37), .LOG_DEPTH(PORT_LOG_DEPTH)) u_port_rsp (
        .clk(clk), .rst(rst),
        .in_valid(rs_out_valid), .in_ready(rs_out_ready),
        .in_data({rs_out_last, rs_out_keep, rs_out_data}),
        .out_valid(cp_in_valid), .out_ready(cp_in_ready),
        .out_data({cp_in_last, cp_in_keep, cp_in_data}),
        .count(rsp_port_count));

    // ------------------------------------------------------------ completer
    wire        cp_cqe_valid, cp_cqe_ready;
    wire [`QPNIC_CQN_BITS-1:0] cp_cqe_cqn;
    wire [127:0] cp_cqe_data;
    wire        cp_err_valid, cp_err_ready;
    wire [7:0]  cp_err_qpn;
    wire        cp_idle;

    qpnic_completer #(.NUM_QP(NUM_QP)) u_comp (
        .clk(clk), .rst(rst),
        .qp_scq(qp_scq), .qp_state(qp_state),
        .ost_valid(ost_out_valid), .ost_ready(ost_out_ready), .ost_data(ost_out_data),
        .in_valid(cp_in_valid), .in_ready(cp_in_ready), .in_data(cp_in_data),
        .in_keep(cp_in_keep), .in_last(cp_in_last),
        .wr_req_valid(wr_req_valid[1]), .wr_req_ready(wr_req_ready[1]),
        .wr_req_addr(wr_req_addr[1*64 +: 64]), .wr_req_len(wr_req_len[1*16 +: 16]),
        .wr_dat_valid(wr_dat_valid[1]), .wr_dat_ready(wr_dat_ready[1]),
        .wr_dat_data(wr_dat_data[1*32 +: 32]), .wr_dat_keep(wr_dat_keep[1*4 +: 4]),
        .wr_dat_last(wr_dat_last[1]),
        .cqe_valid(cp_cqe_valid), .cqe_ready(cp_cqe_ready), .cqe_cqn(cp_cqe_cqn),
        .cqe_data(cp_cqe_data),
        .sq_ci_inc_valid(sq_ci_inc_valid), .sq_ci_inc_qpn(sq_ci_inc_qpn),
        .qp_err_valid(cp_err_valid), .qp_err_ready(cp_err_ready),
        .qp_err_qpn(cp_err_qpn), .idle(cp_idle));

    // ------------------------------------------- WQE fetch counts: added
    // An RQ WQE read fetches one WQE. The two masters may issue in the same
    // cycle (the arbiter here never does, but nothing here relies on it):
    // the sum keeps both.
    assign cnt_fetch_read   = {1'b0, sq_fetch_read} + {1'b0, rq_fetch_read};
    assign cnt_wqes_fetched = {1'b0, sq_wqes_fetched} + {4'd0, rq_fetch_read};

    // ------------------------------------------------ qp_err: one a cycle
    // The csr takes a strobe every cycle; the completer goes first and the
    // requester holds its request until its turn.
    assign qp_err_valid  = cp_err_valid || req_err_valid;
    assign qp_err_qpn    = cp_err_valid ? cp_err_qpn : req_err_qpn;
    assign cp_err_ready  = 1'b1;
    assign req_err_ready = !cp_err_valid;

    // ------------------------------------------------ CQEs: round robin
    // cqe_sel 0 responder (RQ CQEs), 1 completer (SQ CQEs). A CQE shown and
    // not yet taken keeps the choice (cqe_hold), so valid and data stay put.
    reg  cqe_hold, cqe_hold_sel, cqe_prio;
    wire cqe_pick = cqe_prio ? (cp_cqe_valid ? 1'b1 : 1'b0)
                             : (rs_cqe_valid ? 1'b0 : 1'b1);
    wire cqe_sel  = cqe_hold ? cqe_hold_sel : cqe_pick;

    assign cqe_valid    = cqe_sel ? cp_cqe_valid : rs_cqe_valid;
    assign cqe_cqn      = cqe_sel ? cp_cqe_cqn   : rs_cqe_cqn;
    assign cqe_data     = cqe_sel ? cp_cqe_data  : rs_cqe_data;
    assign rs_cqe_ready = !cqe_sel && cqe_ready;
    assign cp_cqe_ready =  cqe_sel && cqe_ready;

    always @(posedge clk) begin
        if (rst) begin
            cqe_hold     <= 1'b0;
            cqe_hold_sel <= 1'b0;
            cqe_prio     <= 1'b0;
        end else if (cqe_valid && cqe_ready) begin
            cqe_hold <= 1'b0;
            cqe_prio <= !cqe_sel;   // the other side goes first next time
        end else if (cqe_valid) begin
            cqe_hold     <= 1'b1;
            cqe_hold_sel <= cqe_sel;
        end
    end

    assign idle = fetch_idle && req_idle && rs_idle && cp_idle &&
                  req_port_count == 0 && rsp_port_count == 0 && ost_count == 0;
endmodule

`default_nettype wire
