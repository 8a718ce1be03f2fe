// qpnic_datapath: the QP contexts and everything between them and host
// memory that moves data: the QP table, the WQE fetch engine, the requester,
// the responder, the completer, and the FIFOs of the packet port they send
// on (docs/internals.md, "The datapath"). The QP table (qpnic_qp_table) has
// five clients: 0 the host's register port (from qpnic_csr), 1 the fetch
// engine, 2 the requester, 3 the responder, 4 the completer; its doorbell
// queue feeds the fetch engine.
//
//   qpnic_wqe_fetch --WQE words--> qpnic_requester --packets--> port FIFO --> txq
//        |                              | outstanding FIFO                  rxq --> qpnic_responder
//        v                              v                                              |
//   rd master 0               rd master 1, qpnic_completer <-- rxs   txs <-- port FIFO <--
//                                       wr master 1              rd master 2, wr master 0
//
// The packet port has two lanes each way, requests and responses; outside
// the datapath qpnic_loopback joins txq to rxq and txs to rxs (one NIC
// talking to itself), or qpnic_wire puts both lanes on a RoCEv2 frame port.
// A lane keeps its packets' order. The response port FIFO holds at least a
// MAX_DMA_BYTES read plus headers, so the responder's gather can always
// issue a whole read once the FIFO has drained (deadlock rule); the
// requester's gather reads into the requester's own staging FIFO, so the
// requester's port FIFO only decouples the two sides and can be smaller
// (docs/performance-analysis.md). The datapath also merges what its
// parts report to qpnic_csr and qpnic_cqe_writer: RQ CQEs from the responder
// and SQ CQEs from the completer (round robin, a presented CQE stays until
// taken), and the WQE fetch counts of the SQ fetch engine and of the
// responder's RQ WQE reads (added, so that both in one cycle lose nothing).
//
// Parameters
//   NUM_QP                   queue pairs
//   NUM_CQ                   completion queues (sizes nothing here: CQ
//                            numbers are CQN_BITS on the ports)
//   PORT_LOG_DEPTH           log2 of the response port FIFO's words (>= 8)
//   REQ_PORT_LOG_DEPTH       log2 of the request port FIFO's words (>= 4)
//   WQE_LOG_SLOTS            log2 of the WQE buffer in WQEs (>= 4)
//   WIRE                     0: no RoCEv2 wire in this build (qpnic_core's
//                            WIRE): every peer is this NIC, and the peer
//                            fields and the wire's rules fold away
//   TABLE_REGS               qpnic_qp_table's WORD_REGS (qpnic_core's ICE40:
//                            0 on the iCE40)
// Ports
//   clk, rst                 clock, synchronous active-high reset
//   h_*                      the host's register port to the QP table: one
//                            access of QP h_idx's block register h_off;
//                            h_rvalid/h_rdata answer a read, two or more
//                            cycles after it was accepted
//   chk_*, res_*             the two check ports of qpnic_mr_table, port 0
//                            the requester's, port 1 the responder's (flat,
//                            port p at [p*W +: W])
//   fr_*                     the requester's FAST_REG entries to qpnic_mr_table
//   cnt_fetch_read           WQE fetch DMA reads issued this cycle: the SQ
//                            fetch engine's plus the responder's RQ WQE
//                            reads (0..2)
//   cnt_wqes_fetched         WQEs those reads fetch (0 in other cycles)
//   cnt_drop                 the responder refused a request packet unexecuted
//   cnt_rnr                  the completer rewound a QP to send an RNR'd SEND again
//   cnt_nak                  the completer took a NAK for its entry
//   cnt_retx                 the completer sent a QP back to a request whose
//                            answer timed out
//   rto_en                   every packet goes on the wire (wire_en): the
//                            wire's rules and limits for every QP, not only
//                            those connected to another NIC
//   path_mtu                 log2 of the path MTU (qpnic_csr PATH_MTU): the
//                            requester's and the responder's packets on
//                            the wire carry at most this payload
//   cnt_dup                  duplicates this cycle (0..2): a request the
//                            responder saw again, a response the completer
//                            dropped as not its entry's
//   mr_fence_start/busy      an MR_CMD INVALIDATE is taken; a DMA job checked
//                            before it may still move data (qpnic_mr_fence)
//   cqe_valid/ready, cqe_cqn, cqe_data   CQE requests to qpnic_cqe_writer
//                            (word w at [32w+31:32w], phase bit 0)
//   rd_*                     DMA read masters: 0 WQE fetch, 1 requester,
//                            2 responder; rd_rsp_valid is raised only for
//                            the owner, data/keep/last are shared
//   wr_*                     DMA write masters: 0 responder, 1 completer
//   txq_*, rxq_*, txs_*, rxs_*  the packet port: requests out and in,
//                            responses out and in (port words: docs/layout.md
//                            lrh, bth, reth, aeth, ieth, then the payload)
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
    parameter NUM_MR             = 16,
    parameter PORT_LOG_DEPTH     = 8,
    parameter REQ_PORT_LOG_DEPTH = 6,
    parameter WQE_LOG_SLOTS      = 4,
    parameter QW                 = 8,
    parameter WIRE               = 1,
    parameter PARTITION          = 0,
    parameter TABLE_REGS         = 1
) (
    input  wire                 clk,
    input  wire                 rst,

    // MR_CMD GRANT from the csr: the requester's grant RAM
    input  wire                 gr_wr_en,
    input  wire                 gr_wr_window,
    input  wire [`QPNIC_TOKEN_INDEX_BITS-1:0] gr_wr_idx,
    input  wire [`QPNIC_PD_BITS-1:0] gr_wr_pd,
    input  wire [`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0] gr_wr_first,
    input  wire [31-`QPNIC_FREG_PAGE_SHIFT:0] gr_wr_pages,
    // the host's register port to the QP table (from qpnic_csr)
    input  wire                 h_valid,
    output wire                 h_ready,
    input  wire                 h_we,
    input  wire [QW-1:0]        h_idx,
    input  wire [`QPNIC_QP_OFFSET_BITS-1:0] h_off,
    input  wire [31:0]          h_wdata,
    output wire                 h_rvalid,
    output wire [31:0]          h_rdata,
    // token checks, to and from qpnic_mr_table
    output wire [1:0]           chk_valid,
    output wire [2*32-1:0]      chk_token,
    output wire [2*64-1:0]      chk_va,
    output wire [2*32-1:0]      chk_len,
    output wire [1:0]           chk_remote,
    output wire [2*3-1:0]       chk_need,
    output wire [1:0]           chk_inval,
    output wire [2*`QPNIC_PD_BITS-1:0] chk_pd,
    output wire                 fr_valid,
    input  wire                 fr_ready,
    output wire [`QPNIC_TOKEN_INDEX_BITS-1:0] fr_idx,
    output wire [`QPNIC_MR_CTX_BITS-1:0] fr_entry,
    input  wire [1:0]           res_valid,
    input  wire [1:0]           res_ok,
    input  wire [2*64-1:0]      res_dev,
    // counters in qpnic_csr
    output wire [1:0]           cnt_fetch_read,
    output wire [4:0]           cnt_wqes_fetched,
    output wire                 cnt_drop,
    output wire                 cnt_rnr,
    output wire [1:0]           cnt_dup,
    output wire                 cnt_retx,
    output wire                 cnt_nak,
    input  wire                 rto_en,
    input  wire [3:0]           path_mtu,
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
    input  wire                 mr_fence_start,
    output wire                 mr_fence_busy,
    // the packet port: requests out (the requester's port FIFO) and in (to
    // the responder); responses out (the responder's port FIFO) and in (to
    // the completer). qpnic_loopback or qpnic_wire attaches to it.
    output wire                 txq_valid,
    input  wire                 txq_ready,
    output wire [31:0]          txq_data,
    output wire [3:0]           txq_keep,
    output wire                 txq_last,
    input  wire                 rxq_valid,
    output wire                 rxq_ready,
    input  wire [31:0]          rxq_data,
    input  wire [3:0]           rxq_keep,
    input  wire                 rxq_last,
    output wire                 txs_valid,
    input  wire                 txs_ready,
    output wire [31:0]          txs_data,
    output wire [3:0]           txs_keep,
    output wire                 txs_last,
    input  wire                 rxs_valid,
    output wire                 rxs_ready,
    input  wire [31:0]          rxs_data,
    input  wire [3:0]           rxs_keep,
    input  wire                 rxs_last,
    // the soft core's transport port (PARTITION 1; qpnic_soc's window
    // at TP_IO_OFFSET): unused by the hardware partition, which answers
    // every access at once, reads with 0
    input  wire                 tp_valid,
    output wire                 tp_ready,
    input  wire [7:0]           tp_addr,
    input  wire [3:0]           tp_wstrb,
    input  wire [31:0]          tp_wdata,
    output wire [31:0]          tp_rdata,
    output wire                 idle
);
    localparam PORT_DEPTH = 1 << PORT_LOG_DEPTH;
    localparam OST_W      = `QPNIC_OST_WIDTH;
    // outstanding entries (requests in flight): half the slots of the
    // segment RAM (rtl/qpnic_ost.vh)
    localparam OST_LOG_DEPTH = `QPNIC_OST_SLOT_BITS - 1;

    // ------------------------------------------------------------ QP table
    // clients: 0 host, 1 fetch, 2 requester, 3 responder, 4 completer; in
    // the firmware partition 2 is the transport port and there are no more
    localparam NC = PARTITION == 0 ? 5 : 3;
    localparam OB = `QPNIC_QP_OFFSET_BITS;
    wire [NC-1:0]    tq_req_valid, tq_req_ready, tq_rsp_valid;
    wire [NC*4-1:0]  tq_req_op;
    wire [NC*QW-1:0] tq_req_qpn;
    wire [NC*32-1:0] tq_req_arg;
    wire [`QPNIC_QP_CTX_BITS-1:0] tq_rsp_ctx;
    wire [`QPNIC_INDEX_BITS-1:0] tq_rsp_n;
    wire [31:0]      tq_rsp_rdata;
    wire             db_valid, db_ready;
    wire [QW-1:0]    db_qpn;
    wire             fl_valid, fl_ready;
    wire [QW-1:0]    fl_qpn;
    wire             tq_idle;

    qpnic_qp_table #(.NUM_QP(NUM_QP), .CLIENTS(NC), .QW(QW), .WIRE(WIRE), .WORD_REGS(TABLE_REGS)) u_qpt (
        .clk(clk), .rst(rst),
        .req_valid(tq_req_valid), .req_ready(tq_req_ready), .req_op(tq_req_op),
        .req_qpn(tq_req_qpn), .req_arg(tq_req_arg),
        .req_off({{((NC-1)*OB){1'b0}}, h_off}),   // only the host names a register
        .rsp_valid(tq_rsp_valid), .rsp_ctx(tq_rsp_ctx), .rsp_n(tq_rsp_n),
        .rsp_rdata(tq_rsp_rdata),
        .db_valid(db_valid), .db_ready(db_ready), .db_qpn(db_qpn),
        .fl_valid(fl_valid), .fl_ready(fl_ready), .fl_qpn(fl_qpn),
        .idle(tq_idle));

    // client 0: the host's register port
    assign tq_req_valid[0]          = h_valid;
    assign h_ready                  = tq_req_ready[0];
    assign tq_req_op[0*4 +: 4]      = h_we ? `QPNIC_QP_OP_HOST_WRITE : `QPNIC_QP_OP_HOST_READ;
    assign tq_req_qpn[0*QW +: QW]   = h_idx;
    assign tq_req_arg[0*32 +: 32]   = h_wdata;
    assign h_rvalid                 = tq_rsp_valid[0];
    assign h_rdata                  = tq_rsp_rdata;

    // ---------------------------------------------------------------- fetch
    wire        wqe_valid, wqe_ready, wqe_last;
    wire [63:0] wqe_data;
    wire [QW-1:0] wqe_qpn;
    wire [`QPNIC_INDEX_BITS-1:0] wqe_index;
    wire        wqe_epoch;
    wire        fetch_idle;
    wire        sq_fetch_read;
    wire [3:0]  sq_wqes_fetched;

    qpnic_wqe_fetch #(.LOG_SLOTS(WQE_LOG_SLOTS), .QW(QW)) u_fetch (
        .clk(clk), .rst(rst),
        .db_valid(db_valid), .db_ready(db_ready), .db_qpn(db_qpn),
        .tq_req_valid(tq_req_valid[1]), .tq_req_ready(tq_req_ready[1]),
        .tq_req_op(tq_req_op[1*4 +: 4]), .tq_req_qpn(tq_req_qpn[1*QW +: QW]),
        .tq_req_arg(tq_req_arg[1*32 +: 32]),
        .tq_rsp_valid(tq_rsp_valid[1]), .tq_rsp_ctx(tq_rsp_ctx), .tq_rsp_n(tq_rsp_n),
        .rd_req_valid(rd_req_valid[0]), .rd_req_ready(rd_req_ready[0]),
        .rd_req_addr(rd_req_addr[0*64 +: 64]), .rd_req_len(rd_req_len[0*16 +: 16]),
        .rd_rsp_valid(rd_rsp_valid[0]), .rd_rsp_ready(rd_rsp_ready[0]),
        .rd_rsp_data(rd_rsp_data), .rd_rsp_keep(rd_rsp_keep), .rd_rsp_last(rd_rsp_last),
        .wqe_valid(wqe_valid), .wqe_ready(wqe_ready), .wqe_data(wqe_data),
        .wqe_last(wqe_last), .wqe_qpn(wqe_qpn), .wqe_index(wqe_index), .wqe_epoch(wqe_epoch),
        .cnt_fetch_read(sq_fetch_read), .cnt_wqes_fetched(sq_wqes_fetched),
        .idle(fetch_idle));

    generate if (PARTITION == 0) begin : g_hw
        // no transport port: an access is answered at once, a read with 0
        assign tp_ready = 1'b1;
        assign tp_rdata = 32'd0;
        wire unused_tp = &{1'b0, tp_valid, tp_addr, tp_wstrb, tp_wdata};

        // ------------------------------------------------------------ requester
        wire        rq_out_valid, rq_out_ready, rq_out_last;
        wire [31:0] rq_out_data;
        wire [3:0]  rq_out_keep;
        wire [REQ_PORT_LOG_DEPTH:0] req_port_count;
        wire        ost_in_valid, ost_in_ready, ost_out_valid, ost_out_ready;
        wire [OST_W-1:0] ost_in_data, ost_out_data;
        wire [OST_LOG_DEPTH:0] ost_count;
        wire        req_idle;
        wire        req_fence_hold, req_gather_busy, req_gather_drain;
        wire        cp_retire_read;   // the completer retires a READ's entry
        // READs outstanding (pushed by the requester, not yet retired by the
        // completer), for READ_FENCE
        reg  [OST_LOG_DEPTH+1:0] reads_out;
        wire        reads_idle = (reads_out == 0);
        // SENDs, WRITEs and READs outstanding (entries not LOCAL), for the
        // requester's token table operations (FAST_REG, INVALIDATE, BIND)
        wire        cp_retire_remote;
        reg  [OST_LOG_DEPTH+1:0] remotes_out;
        wire        remotes_idle = (remotes_out == 0);
        // and the NIC they all went to (LRH peer; 0 loops back in this one).
        // The requester sends a packet to another NIC than these only when none
        // is outstanding: answers from different NICs come back by different
        // ways and would overtake each other at the completer, which takes
        // them in its entries' order (a loopback answer overtaking a
        // network's was never taken: docs/wire.md, "Two NICs").
        reg  [`QPNIC_PEER_BITS-1:0] out_peer;
        // and, for packets on the wire, the one QP they belong to: a wire can
        // lose an answer, and while the completer waits for it (its oldest
        // entry's) it drops every other QP's answers, which then time out in
        // turn, each going back behind the others' entries, until their
        // retries run out. So the packets on the wire outstanding at any time
        // are one QP's (docs/wire.md, "One QP at a time").
        reg  [QW-1:0] out_qpn;
        // The completer's retirements count down a cycle late, from registers:
        // its retire comes at the end of the QP table's arbitration, and with
        // the counters' carry chains behind it that was the 85F's longest path
        // (docs/synthesis.md, run 36). A count that falls a cycle late only
        // makes a fence or a token table operation wait a cycle longer; the
        // pushes still count at once, so it never reads idle too early.
        reg         retire_read_r, retire_remote_r;
        wire        push_remote = ost_in_valid && ost_in_ready && !ost_in_data[`QPNIC_OST_LOCAL];
        wire        push_read   = ost_in_valid && ost_in_ready && ost_in_data[`QPNIC_OST_READ];
        always @(posedge clk) begin
            if (rst) begin
                retire_read_r   <= 1'b0;
                retire_remote_r <= 1'b0;
                remotes_out     <= 0;
                out_peer        <= {`QPNIC_PEER_BITS{1'b0}};
                out_qpn         <= {QW{1'b0}};
                reads_out       <= 0;
            end else begin
                retire_read_r   <= cp_retire_read;
                retire_remote_r <= cp_retire_remote;
                // +1 or -1 (all ones) in one adder, when only one of the two
                if (push_remote != retire_remote_r)
                    remotes_out <= remotes_out + {{(OST_LOG_DEPTH+1){retire_remote_r}}, 1'b1};
                if (push_read != retire_read_r)
                    reads_out <= reads_out + {{(OST_LOG_DEPTH+1){retire_read_r}}, 1'b1};
                if (push_remote) begin
                    out_peer <= ost_in_data[`QPNIC_OST_PEER];
                    out_qpn  <= ost_in_data[`QPNIC_OST_QPN];
                end
            end
        end

        // the requester's checks are local (lkey) ones
        assign chk_remote[0] = 1'b0;
        // the requester asks the completer whether a READ is one to resume
        wire [QW-1:0] look_qpn;
        wire [`QPNIC_INDEX_BITS-1:0] look_index;
        wire [`QPNIC_QP_NUM_GEN_WIDTH-1:0] look_gen;
        wire          look_hit;
        wire [31:0]   look_bytes;
        qpnic_requester #(.WIRE(WIRE), .NUM_MR(NUM_MR), .QW(QW)) u_req (
            .wire_all(rto_en), .path_mtu(path_mtu),
            .clk(clk), .rst(rst),
            .gr_wr_en(gr_wr_en), .gr_wr_window(gr_wr_window), .gr_wr_idx(gr_wr_idx), .gr_wr_pd(gr_wr_pd),
            .gr_wr_first(gr_wr_first), .gr_wr_pages(gr_wr_pages),
            .tq_req_valid(tq_req_valid[2]), .tq_req_ready(tq_req_ready[2]),
            .tq_req_op(tq_req_op[2*4 +: 4]), .tq_req_qpn(tq_req_qpn[2*QW +: QW]),
            .tq_req_arg(tq_req_arg[2*32 +: 32]),
            .tq_rsp_valid(tq_rsp_valid[2]), .tq_rsp_ctx(tq_rsp_ctx),
            .chk_valid(chk_valid[0]), .chk_token(chk_token[0*32 +: 32]),
            .chk_va(chk_va[0*64 +: 64]), .chk_len(chk_len[0*32 +: 32]),
            .chk_need(chk_need[0*3 +: 3]), .chk_inval(chk_inval[0]),
            .chk_pd(chk_pd[0 +: `QPNIC_PD_BITS]), .reads_idle(reads_idle), .remotes_idle(remotes_idle),
            .out_peer(out_peer), .out_qpn(out_qpn),
            .fr_valid(fr_valid), .fr_ready(fr_ready), .fr_idx(fr_idx), .fr_entry(fr_entry),
            .res_valid(res_valid[0]), .res_ok(res_ok[0]), .res_dev(res_dev[0*64 +: 64]),
            .wqe_valid(wqe_valid), .wqe_ready(wqe_ready), .wqe_data(wqe_data),
            .wqe_last(wqe_last), .wqe_qpn(wqe_qpn), .wqe_index(wqe_index), .wqe_epoch(wqe_epoch),
            .rd_req_valid(rd_req_valid[1]), .rd_req_ready(rd_req_ready[1]),
            .rd_req_addr(rd_req_addr[1*64 +: 64]), .rd_req_len(rd_req_len[1*16 +: 16]),
            .rd_rsp_valid(rd_rsp_valid[1]), .rd_rsp_ready(rd_rsp_ready[1]),
            .rd_rsp_data(rd_rsp_data), .rd_rsp_keep(rd_rsp_keep), .rd_rsp_last(rd_rsp_last),
            .out_valid(rq_out_valid), .out_ready(rq_out_ready), .out_data(rq_out_data),
            .out_keep(rq_out_keep), .out_last(rq_out_last),
            .ost_valid(ost_in_valid), .ost_ready(ost_in_ready), .ost_data(ost_in_data),
            .seg_wr_en(seg_wr_en), .seg_wr_addr(seg_wr_addr), .seg_wr_data(seg_wr_data),
            .psn_wr_en(psn_wr_en), .psn_wr_slot(psn_wr_slot), .psn_wr_psn(psn_wr_psn),
            .psn_wr_last(psn_wr_last),
            .look_qpn(look_qpn), .look_index(look_index), .look_gen(look_gen),
            .look_hit(look_hit), .look_bytes(look_bytes),
            .fence_hold(req_fence_hold), .gather_busy(req_gather_busy),
            .gather_drain(req_gather_drain),
            .idle(req_idle));

        // Each message's PSNs, by outstanding slot: its first packet's and its
        // last's (the same unless it was segmented on the wire; a READ's last
        // is its last response packet's). The requester writes them as the
        // PSNs are taken, after the entry's push; the completer reads them for
        // the entry at its head, once a response has come (so after the
        // write). The slot is written again only 2^OST_SLOT_BITS entries later
        // (as u_segs). A build without the wire segments nothing: no last.
        wire        psn_wr_en;
        wire [`QPNIC_OST_SLOT_BITS-1:0] psn_wr_slot, cp_psn_slot;
        wire [23:0] psn_wr_psn, psn_wr_last, cp_psn, cp_psn_last;
        reg  [23:0] ost_psn [0:(1 << `QPNIC_OST_SLOT_BITS) - 1];
        always @(posedge clk)
            if (psn_wr_en) ost_psn[psn_wr_slot] <= psn_wr_psn;
        assign cp_psn = ost_psn[cp_psn_slot];
        if (WIRE != 0) begin : g_psn_last
            reg  [23:0] ost_psn_last [0:(1 << `QPNIC_OST_SLOT_BITS) - 1];
            always @(posedge clk)
                if (psn_wr_en) ost_psn_last[psn_wr_slot] <= psn_wr_last;
            assign cp_psn_last = ost_psn_last[cp_psn_slot];
        end else begin : g_no_psn_last
            assign cp_psn_last = cp_psn;
            wire unused_last = &{1'b0, psn_wr_last};
        end

        // READs' checked segments, by outstanding slot: requester in, completer out
        wire        seg_wr_en, seg_rd_en;
        wire [`QPNIC_OST_SLOT_BITS+1:0] seg_wr_addr, seg_rd_addr;
        wire [`QPNIC_SEG_BITS-1:0]      seg_wr_data, seg_rd_data;
        wire        seg_busy;
        // (a slot is read only after it was written: no clearing; and never
        // while it is written, RDW_OLD 0: the requester writes slot s again
        // only 2^OST_SLOT_BITS entries later, while the ost FIFO holds half as
        // many, so the completer is done with s long before)
        qpnic_ram_sdp #(.WIDTH(`QPNIC_SEG_BITS), .AW(`QPNIC_OST_SLOT_BITS + 2), .CLEAR(0), .RDW_OLD(0)) u_segs (
            .clk(clk), .rst(rst), .busy(seg_busy),
            .wr_en(seg_wr_en), .wr_addr(seg_wr_addr), .wr_data(seg_wr_data),
            .rd_en(seg_rd_en), .rd_addr(seg_rd_addr), .rd_data(seg_rd_data));

        // --------------------------------------- the port's FIFOs and ost FIFO
        // The port FIFOs hold a beat in 36 bits, one block RAM wide: a port
        // beat's keep always has lane 0 (its bytes are packed from lane 0, as
        // the DMA read data they come from; docs/internals.md), so keep[0] is
        // not stored.
        wire [2:0]  txq_keep_hi;
        assign txq_keep = {txq_keep_hi, 1'b1};
        qpnic_fifo #(.WIDTH(36), .LOG_DEPTH(REQ_PORT_LOG_DEPTH), .STYLE("block")) u_port_req (
            .clk(clk), .rst(rst),
            .in_valid(rq_out_valid), .in_ready(rq_out_ready),
            .in_data({rq_out_last, rq_out_keep[3:1], rq_out_data}),
            .out_valid(txq_valid), .out_ready(txq_ready),
            .out_data({txq_last, txq_keep_hi, txq_data}),
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
        wire        rs_cqe_valid, rs_cqe_ready;
        wire [`QPNIC_CQN_BITS-1:0] rs_cqe_cqn;
        wire [127:0] rs_cqe_data;
        wire        rs_idle;
        wire        rs_at_bound;
        wire        rq_fetch_read;
        wire        rs_dup, cnt_stale;
        assign cnt_dup = {1'b0, rs_dup} + {1'b0, cnt_stale};

        qpnic_responder #(.NUM_QP(NUM_QP), .QW(QW), .OUT_DEPTH(PORT_DEPTH), .WIRE(WIRE)) u_resp (
            .wire_all(rto_en), .path_mtu(path_mtu),
            .clk(clk), .rst(rst),
            .tq_req_valid(tq_req_valid[3]), .tq_req_ready(tq_req_ready[3]),
            .tq_req_op(tq_req_op[3*4 +: 4]), .tq_req_qpn(tq_req_qpn[3*QW +: QW]),
            .tq_req_arg(tq_req_arg[3*32 +: 32]),
            .tq_rsp_valid(tq_rsp_valid[3]), .tq_rsp_ctx(tq_rsp_ctx),
            .fl_valid(fl_valid), .fl_ready(fl_ready), .fl_qpn(fl_qpn),
            .chk_valid(chk_valid[1]), .chk_token(chk_token[1*32 +: 32]),
            .chk_va(chk_va[1*64 +: 64]), .chk_len(chk_len[1*32 +: 32]),
            .chk_remote(chk_remote[1]), .chk_need(chk_need[1*3 +: 3]), .chk_inval(chk_inval[1]),
            .chk_pd(chk_pd[`QPNIC_PD_BITS +: `QPNIC_PD_BITS]),
            .res_valid(res_valid[1]), .res_ok(res_ok[1]), .res_dev(res_dev[1*64 +: 64]),
            .in_valid(rxq_valid), .in_ready(rxq_ready), .in_data(rxq_data),
            .in_keep(rxq_keep), .in_last(rxq_last),
            .out_valid(rs_out_valid), .out_ready(rs_out_ready), .out_data(rs_out_data),
            .out_keep(rs_out_keep), .out_last(rs_out_last), .out_count({{(15-PORT_LOG_DEPTH){1'b0}}, rsp_port_count}),
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
            .cnt_rq_fetch(rq_fetch_read), .cnt_drop(cnt_drop), .cnt_dup(rs_dup),
            .at_bound(rs_at_bound), .idle(rs_idle));

        // (36 bits a beat, keep[0] always set: see u_port_req)
        wire [2:0]  txs_keep_hi;
        assign txs_keep = {txs_keep_hi, 1'b1};
        qpnic_fifo #(.WIDTH(36), .LOG_DEPTH(PORT_LOG_DEPTH), .STYLE("block")) u_port_rsp (
            .clk(clk), .rst(rst),
            .in_valid(rs_out_valid), .in_ready(rs_out_ready),
            .in_data({rs_out_last, rs_out_keep[3:1], rs_out_data}),
            .out_valid(txs_valid), .out_ready(txs_ready),
            .out_data({txs_last, txs_keep_hi, txs_data}),
            .count(rsp_port_count));
    `ifndef SYNTHESIS
        always @(posedge clk)
            if (!rst && ((rq_out_valid && !rq_out_keep[0]) || (rs_out_valid && !rs_out_keep[0])))
                $error("qpnic_datapath: a port beat without keep[0]");
    `endif

        // ------------------------------------------------------------ completer
        wire        cp_cqe_valid, cp_cqe_ready;
        wire [`QPNIC_CQN_BITS-1:0] cp_cqe_cqn;
        wire [127:0] cp_cqe_data;
        wire        cp_idle;
        wire        cp_fence_busy, cp_fence_retire;

        qpnic_completer #(.QW(QW), .WIRE(WIRE)) u_comp (
            .clk(clk), .rst(rst),
            .tq_req_valid(tq_req_valid[4]), .tq_req_ready(tq_req_ready[4]),
            .tq_req_op(tq_req_op[4*4 +: 4]), .tq_req_qpn(tq_req_qpn[4*QW +: QW]),
            .tq_req_arg(tq_req_arg[4*32 +: 32]),
            .tq_rsp_valid(tq_rsp_valid[4]), .tq_rsp_ctx(tq_rsp_ctx),
            .ost_valid(ost_out_valid), .ost_ready(ost_out_ready), .ost_data(ost_out_data),
            .seg_rd_en(seg_rd_en), .seg_rd_addr(seg_rd_addr), .seg_rd_data(seg_rd_data),
            .in_valid(rxs_valid), .in_ready(rxs_ready), .in_data(rxs_data),
            .in_keep(rxs_keep), .in_last(rxs_last),
            .wr_req_valid(wr_req_valid[1]), .wr_req_ready(wr_req_ready[1]),
            .wr_req_addr(wr_req_addr[1*64 +: 64]), .wr_req_len(wr_req_len[1*16 +: 16]),
            .wr_dat_valid(wr_dat_valid[1]), .wr_dat_ready(wr_dat_ready[1]),
            .wr_dat_data(wr_dat_data[1*32 +: 32]), .wr_dat_keep(wr_dat_keep[1*4 +: 4]),
            .wr_dat_last(wr_dat_last[1]),
            .cqe_valid(cp_cqe_valid), .cqe_ready(cp_cqe_ready), .cqe_cqn(cp_cqe_cqn),
            .cqe_data(cp_cqe_data),
            .fence_busy(cp_fence_busy), .fence_retire(cp_fence_retire), .retire_read(cp_retire_read), .retire_remote(cp_retire_remote),
            .cnt_rnr(cnt_rnr), .psn_slot(cp_psn_slot), .psn_of_slot(cp_psn),
            .psn_last_of_slot(cp_psn_last), .cnt_stale(cnt_stale),
            .look_qpn(look_qpn), .look_index(look_index), .look_gen(look_gen),
            .look_hit(look_hit), .look_bytes(look_bytes),
            .rto_en(rto_en), .path_mtu(path_mtu), .cnt_retx(cnt_retx), .cnt_nak(cnt_nak),
            .idle(cp_idle));

        // --------------------------------------------------------------- fence
        qpnic_mr_fence #(.CW(OST_LOG_DEPTH + 1)) u_fence (
            .clk(clk), .rst(rst), .start(mr_fence_start),
            .rq_hold(req_fence_hold), .rq_gather_busy(req_gather_busy),
            .ost_push(ost_in_valid && ost_in_ready), .ost_count(ost_count),
            .cp_busy(cp_fence_busy), .cp_retire(cp_fence_retire),
            .rs_bound(rs_at_bound), .gather_drain(req_gather_drain), .busy(mr_fence_busy));

        // ------------------------------------------- WQE fetch counts: added
        // An RQ WQE read fetches one WQE. The two masters may issue in the same
        // cycle (the arbiter here never does, but nothing here relies on it):
        // the sum keeps both.
        assign cnt_fetch_read   = {1'b0, sq_fetch_read} + {1'b0, rq_fetch_read};
        assign cnt_wqes_fetched = {1'b0, sq_wqes_fetched} + {4'd0, rq_fetch_read};

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

        assign idle = tq_idle && !seg_busy && fetch_idle && req_idle && rs_idle && cp_idle &&
                      req_port_count == 0 && rsp_port_count == 0 && ost_count == 0;
    end else begin : g_fw
        // ---------------------------------------------------------------
        // The firmware partition (docs/partitions.md): the requester, the
        // responder and the completer are the soft core's C
        // (fw/transport.c), which reaches the QP table (client 2), the
        // fetched WQEs, a token check port (port 0), a DMA read and a DMA
        // write master (1 each) and the CQE writer through the transport
        // port. There is no packet port: a message goes from one QP to
        // another inside the firmware (the loopback), never on a wire.
        wire tp_ring_read;
        wire tp_idle;
        qpnic_fw_transport #(.QW(QW), .NUM_MR(NUM_MR)) u_tp (
            .clk(clk), .rst(rst),
            .gr_wr_en(gr_wr_en), .gr_wr_window(gr_wr_window), .gr_wr_idx(gr_wr_idx), .gr_wr_pd(gr_wr_pd),
            .gr_wr_first(gr_wr_first), .gr_wr_pages(gr_wr_pages),
            .fr_valid(fr_valid), .fr_ready(fr_ready), .fr_idx(fr_idx), .fr_entry(fr_entry),
            .bus_valid(tp_valid), .bus_ready(tp_ready), .bus_addr(tp_addr),
            .bus_wstrb(tp_wstrb), .bus_wdata(tp_wdata), .bus_rdata(tp_rdata),
            .wqe_valid(wqe_valid), .wqe_ready(wqe_ready), .wqe_data(wqe_data),
            .wqe_last(wqe_last), .wqe_qpn(wqe_qpn), .wqe_index(wqe_index), .wqe_epoch(wqe_epoch),
            .tq_req_valid(tq_req_valid[2]), .tq_req_ready(tq_req_ready[2]),
            .tq_req_op(tq_req_op[2*4 +: 4]), .tq_req_qpn(tq_req_qpn[2*QW +: QW]),
            .tq_req_arg(tq_req_arg[2*32 +: 32]),
            .tq_rsp_valid(tq_rsp_valid[2]), .tq_rsp_ctx(tq_rsp_ctx), .tq_rsp_n(tq_rsp_n),
            .fl_valid(fl_valid), .fl_ready(fl_ready), .fl_qpn(fl_qpn),
            .chk_valid(chk_valid[0]), .chk_token(chk_token[0*32 +: 32]),
            .chk_va(chk_va[0*64 +: 64]), .chk_len(chk_len[0*32 +: 32]),
            .chk_remote(chk_remote[0]), .chk_need(chk_need[0*3 +: 3]), .chk_inval(chk_inval[0]),
            .chk_pd(chk_pd[0 +: `QPNIC_PD_BITS]),
            .res_valid(res_valid[0]), .res_ok(res_ok[0]), .res_dev(res_dev[0*64 +: 64]),
            .rd_req_valid(rd_req_valid[1]), .rd_req_ready(rd_req_ready[1]),
            .rd_req_addr(rd_req_addr[1*64 +: 64]), .rd_req_len(rd_req_len[1*16 +: 16]),
            .rd_rsp_valid(rd_rsp_valid[1]), .rd_rsp_ready(rd_rsp_ready[1]),
            .rd_rsp_data(rd_rsp_data), .rd_rsp_keep(rd_rsp_keep), .rd_rsp_last(rd_rsp_last),
            .wr_req_valid(wr_req_valid[1]), .wr_req_ready(wr_req_ready[1]),
            .wr_req_addr(wr_req_addr[1*64 +: 64]), .wr_req_len(wr_req_len[1*16 +: 16]),
            .wr_dat_valid(wr_dat_valid[1]), .wr_dat_ready(wr_dat_ready[1]),
            .wr_dat_data(wr_dat_data[1*32 +: 32]), .wr_dat_keep(wr_dat_keep[1*4 +: 4]),
            .wr_dat_last(wr_dat_last[1]),
            .cqe_valid(cqe_valid), .cqe_ready(cqe_ready), .cqe_cqn(cqe_cqn), .cqe_data(cqe_data),
            .cnt_ring_read(tp_ring_read), .cnt_drop(cnt_drop), .cnt_rnr(cnt_rnr),
            .fence_start(mr_fence_start), .fence_busy(mr_fence_busy),
            .idle(tp_idle));

        // the parts of the boundary this partition has no use for
        assign chk_valid[1]   = 1'b0;
        assign chk_token[32 +: 32] = 32'd0;
        assign chk_va[64 +: 64]    = 64'd0;
        assign chk_len[32 +: 32]   = 32'd0;
        assign chk_remote[1]  = 1'b0;
        assign chk_need[3 +: 3]    = 3'd0;
        assign chk_inval[1]   = 1'b0;
        assign chk_pd[`QPNIC_PD_BITS +: `QPNIC_PD_BITS] = {`QPNIC_PD_BITS{1'b0}};
        assign rd_req_valid[2]    = 1'b0;
        assign rd_req_addr[2*64 +: 64] = 64'd0;
        assign rd_req_len[2*16 +: 16]  = 16'd0;
        assign rd_rsp_ready[2]    = 1'b0;
        assign wr_req_valid[0]    = 1'b0;
        assign wr_req_addr[0 +: 64] = 64'd0;
        assign wr_req_len[0 +: 16]  = 16'd0;
        assign wr_dat_valid[0]    = 1'b0;
        assign wr_dat_data[0 +: 32] = 32'd0;
        assign wr_dat_keep[0 +: 4]  = 4'd0;
        assign wr_dat_last[0]     = 1'b0;
        assign cnt_dup  = 2'd0;
        assign cnt_retx = 1'b0;
        assign cnt_nak  = 1'b0;
        assign cnt_fetch_read   = {1'b0, sq_fetch_read} + {1'b0, tp_ring_read};
        assign cnt_wqes_fetched = {1'b0, sq_wqes_fetched} + {4'd0, tp_ring_read};
        assign txq_valid = 1'b0;
        assign txq_data  = 32'd0;
        assign txq_keep  = 4'd0;
        assign txq_last  = 1'b0;
        assign txs_valid = 1'b0;
        assign txs_data  = 32'd0;
        assign txs_keep  = 4'd0;
        assign txs_last  = 1'b0;
        assign rxq_ready = 1'b1;
        assign rxs_ready = 1'b1;
        assign idle = tq_idle && fetch_idle && tp_idle;
        // inputs only the hardware engines read
        wire unused_fw = &{1'b0, res_valid[1], res_ok[1], res_dev[64 +: 64],
                           rto_en, path_mtu, rxq_valid, rxq_data, rxq_keep, rxq_last,
                           rxs_valid, rxs_data, rxs_keep, rxs_last, txq_ready, txs_ready,
                           rd_req_ready[2], rd_rsp_valid[2], wr_req_ready[0], wr_dat_ready[0]};
    end endgenerate
endmodule

`default_nettype wire
