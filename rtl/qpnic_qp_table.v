// qpnic_qp_table: every QP's context and its one owner. A QP's whole state
// (layout struct qp_ctx: rings, CQs, peer, state, ring indices, the fetch
// pointer, the PSN, the completer's error mark, the doorbell mark) is one
// word, kept at one address of two block RAMs (the host's configuration in
// one, written a field at a time; the rest in the other, written back
// whole; see "the RAMs" below); nothing outside this module holds a copy that
// outlives one request. Model: Corundum's queue_manager (one RAM word per
// queue, a request port, a read-modify-write pipeline).
//
// Clients (request ports, flat, client c at [c*W +: W]) ask for operations
// (enum qp_op), each one atomic read-modify-write of one QP's word:
//   READ        answer the context
//   HOST_READ   answer register req_off of the QP block in rsp_rdata
//   HOST_WRITE  write req_arg to register req_off (layout blocks.qp):
//               (QPN keeps the generation of the QP's number);
//               STATE = RESET zeroes SQ_PI, RQ_PI, SQ_CI, RQ_CI, the fetch
//               pointer, the PSN and comp_err; SQ_PI is the doorbell
//   FETCH       claim n = min(SQ_PI - fetch_ptr, req_arg, WQEs to the ring's
//               end) WQEs, 0 in RESET; fetch_ptr += n; answered with n in
//               rsp_n and the context as it was (fetch_ptr before)
//   PSN         answer the context, then psn + n, n - 1 in req_arg[15:0]
//               (a message's packets, or a READ's response packets;
//               unless req_arg[16] is not the QP's epoch: a WQE gone
//               stale under a rewind)
//   REWIND      an RNR NAK (req_arg = its PSN), or with req_arg[24] a
//               timeout (req_arg[23:0] = the oldest request's PSN): in RTS
//               with rnr_left (retry_left) != 0, fetch_ptr = sq_ci (that
//               request), psn = req_arg[23:0], epoch flips, rnr_left - 1
//               (not when RNR_RETRY_FOREVER; retry_left - 1, unless
//               req_arg[25]: the request made progress, and then with
//               retry_left 0 too, and retry_left = RETRY_COUNT again),
//               rnr_wait = 1;
//               answered (the context before: the asker sees whether)
//   RNR_WAKE    rnr_wait = 0, and the QP is queued if WQEs wait
//   RSP_RNR     as a target, an RNR NAK (or a NAK failing the initiator)
//               went out: rsp_rnr = 1, epsn = req_arg (the request's PSN),
//               nak_sent = 0
//   RSP_SEQ     as a target, a request arrives (req_arg[23:0] its PSN,
//               req_arg[24] a WRITE or READ, req_arg[25] over the wire):
//               req_arg[27:26] its NIC): answered; for a QP in RTS whose
//               peer that is, epsn + 1 and nak_sent = 0 when the PSN is
//               epsn and req_arg[24] is set; nak_sent = 1 when
//               req_arg[25] is set, the PSN is ahead of epsn and
//               rsp_rnr = 0; otherwise nothing changes
//   RSP_READ    as a target, a READ whose response is n > 1 packets was
//               taken: epsn = req_arg[23:0] (its PSN + n) for a QP in RTS
//   SET_ERR     state = ERROR, when req_arg[16] is the QP's epoch (a local
//               failure of a WQE gone stale under a rewind changes nothing)
//   COMP_FAIL   comp_err = 1, and with req_arg[0] state = ERROR
//   RQ_CI_ERR   rq_ci + 1, state = ERROR (a receive completed in error)
//   RQ_CI_INC, SQ_CI_INC   rq_ci + 1 (rsp_rnr = 0, nak_sent = 0, epsn + 1: the SEND
//               executed), sq_ci + 1 (rnr_left =
//               rnr_retry: progress restores the retries)
//   RQ_FLUSH    in ERROR with rq_ci != rq_pi: rq_ci + 1 (the answer's rq_ci
//               is the receive to complete FLUSHED); else rq_flush = 0
// The arbiter takes one request a cycle, round robin over the clients
// (req_ready is the grant, combinational from req_valid and the QPs in B
// and C). Pipeline:
// (docs/internals.md "Receiver not ready" tells the retry's whole story.)
//   A  (cycle t)    grant; the RAM reads the QP's word
//   B  (cycle t+1)  the word is registered (the RAM's output is not on the
//                   path of the operation: block RAM clock-to-out is long)
//   C  (cycle t+2)  the operation is applied and the word written back
//   answer (t+3)    for the operations that are asked something (READ,
//                   HOST_READ, FETCH, PSN, RQ_FLUSH, REWIND, RSP_SEQ):
//                   rsp_valid[c] pulses for the client that asked, with
//                   the word as it was before the operation (rsp_ctx) and
//                   rsp_n, rsp_rdata.
// The others (HOST_WRITE, SET_ERR, COMP_FAIL, *_CI_INC) answer nothing; a
// client's later request sees them.
// With WORD_REGS 0 (the iCE40, whose clock is slow enough) B registers
// nothing: the RAM reads in B, at B's QP, so that its own output register
// holds the word in C, and the answer is C's, at t+2, straight from the
// word and the operation (the clients take it as they take a registered
// one). Two words of flip-flops fewer, 2 x QP_CTX_BITS. A request for a QP that an operation in
// B or C holds waits (req_ready low) until that one is written back, so
// every operation reads the word its predecessors wrote: no forwarding
// path, and the RAM's read-before-write in one cycle never matters.
//
// The doorbell queue: a QP whose SQ has WQEs the fetch engine has not
// claimed is in the queue once (its sched bit marks it). A doorbell (or a
// STATE write out of RESET) that leaves SQ_PI ahead of fetch_ptr queues it
// unless sched is set; a FETCH that leaves more behind queues it again at
// the tail (round robin over QPs), one that leaves none clears sched. The
// queue never holds a QP twice, so NUM_QP entries never overflow. A RESET
// leaves sched alone: a QP still in the queue is fetched (n = 0) and
// dequeued then. The fetch engine pops it from db_*.
//
// The flush queue: a QP in ERROR with receives posted (rq_ci != rq_pi) is
// in it once (its rq_flush bit marks it), whatever put it there: a STATE
// write, SET_ERR, COMP_FAIL, or an RQ_PI write while in ERROR. The
// responder pops it (fl_*) between packets and asks RQ_FLUSH until the
// answer says nothing is left, which dequeues it. Like sched, a RESET
// leaves rq_flush alone: a queued QP is popped and dequeued then.
//
// The QP state machine is this module's: every change of state, the host's
// STATE writes and the engines' ERROR alike, is checked against the
// layout's transitions (`QPNIC_QP_STATE_HOST_MAY, `QPNIC_QP_STATE_NIC_MAY);
// a change they do not allow (ERROR to RTS; an engine's ERROR in RESET)
// leaves the state as it was, and a refused host write changes nothing.
//
// A request for a QP number >= NUM_QP changes nothing and is answered with
// an all-zero context (state RESET) and rdata 0.
//
// After rst the table clears itself (qpnic_ram_sdp, one word a cycle), with
// every req_ready low.
//
// Parameters
//   NUM_QP    queue pairs (>= 1)
//   CLIENTS   request ports (>= 1)
//   QW        bits of a QP number on the ports (>= clog2(NUM_QP))
//   WIRE      0: no RoCEv2 wire: the QP's peer reads 0 (this NIC)
//   WORD_REGS 1: the word registered in B and the answer after C (the
//             ECP5 at 50 MHz); 0: neither, the answer at t+2 (see above)
// Ports
//   clk, rst                          clock, synchronous active-high reset
//   req_valid/ready [CLIENTS]         one request per client
//   req_op [4], req_qpn [QW], req_arg [32], req_off [QP_OFFSET_BITS]   its fields
//   rsp_valid [CLIENTS]               the answer, three cycles after the grant
//                                     (two with WORD_REGS 0)
//   rsp_ctx [QP_CTX_BITS], rsp_n [16], rsp_rdata [32]   shared answer fields,
//                                     meaningful only while rsp_valid is high
//                                     (with WORD_REGS 0 they change every cycle)
//   db_valid/ready, db_qpn            the doorbell queue, towards the fetch engine
//   fl_valid/ready, fl_qpn            the flush queue, towards the responder
//   idle                              nothing in the pipeline, nothing queued
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_qp_table #(
    parameter NUM_QP  = 8,
    parameter CLIENTS = 5,
    parameter QW      = 8,
    parameter WIRE    = 1,
    parameter WORD_REGS = 1
) (
    input  wire                    clk,
    input  wire                    rst,

    input  wire [CLIENTS-1:0]      req_valid,
    output reg  [CLIENTS-1:0]      req_ready,
    input  wire [CLIENTS*4-1:0]    req_op,
    input  wire [CLIENTS*QW-1:0]   req_qpn,
    input  wire [CLIENTS*32-1:0]   req_arg,
    input  wire [CLIENTS*`QPNIC_QP_OFFSET_BITS-1:0] req_off,

    output reg  [CLIENTS-1:0]      rsp_valid,
    output reg  [`QPNIC_QP_CTX_BITS-1:0] rsp_ctx,
    output reg  [`QPNIC_INDEX_BITS-1:0] rsp_n,
    output reg  [31:0]             rsp_rdata,

    output wire                    db_valid,
    input  wire                    db_ready,
    output wire [QW-1:0]           db_qpn,

    output wire                    fl_valid,
    input  wire                    fl_ready,
    output wire [QW-1:0]           fl_qpn,

    output wire                    idle
);
    localparam EB  = `QPNIC_QP_CTX_BITS;
    localparam OB  = `QPNIC_QP_OFFSET_BITS;
    localparam AW  = (NUM_QP > 1) ? $clog2(NUM_QP) : 1;
    localparam IW  = `QPNIC_INDEX_BITS;   // a ring index
    localparam CW  = (CLIENTS > 1) ? $clog2(CLIENTS) : 1;

    // the RAM clears itself after reset; no request is taken meanwhile
    wire clearing;

    // ---- stage A: round-robin grant, RAM read --------------------------------
    // The round robin picks a client from req_valid alone, and the RAM reads
    // that client's QP; the grant then also needs the picked QP to be in
    // neither B nor C (see above). The comparison with B and C is kept off
    // the RAM's address (it decides only whether the read counts): on the
    // ECP5 the address path was the core's longest (docs/synthesis.md, run
    // 39). A picked client that must wait stays first in the round robin,
    // so it is granted once its QP is written back, at most two cycles on.
    reg          b_valid, c_valid;
    reg [QW-1:0] b_qpn, c_qpn;

    reg [CW-1:0] rr_last;     // client granted last
    reg          pick;        // some client asks
    reg [CW-1:0] g;           // the client picked
    reg [CW:0]   cand;        // rr_last + k, wrapped below CLIENTS
    localparam [CW:0] NCLI = CLIENTS;
    integer k;
    always @* begin
        pick = 1'b0;
        g    = {CW{1'b0}};
        for (k = 1; k <= CLIENTS; k = k + 1) begin
            cand = {1'b0, rr_last} + k[CW:0];
            if (cand >= NCLI) cand = cand - NCLI;
            if (!pick && req_valid[cand[CW-1:0]]) begin
                pick = 1'b1;
                g    = cand[CW-1:0];
            end
        end
    end

    wire [QW-1:0] g_qpn  = req_qpn[g*QW +: QW];
    wire          g_in   = ({{(32-QW){1'b0}}, g_qpn} < NUM_QP);
    // Whether each client's QP is in B or C, compared for every client at
    // once: the grant then selects one bit by g, instead of selecting g's
    // QP number first and comparing it after (that chain, from rr_last
    // through the QP number's multiplexer into the comparison, was the
    // 85F's worst path in run 53).
    reg  [CLIENTS-1:0] held;
    integer h;
    always @* begin
        for (h = 0; h < CLIENTS; h = h + 1)
            held[h] = (b_valid && req_qpn[h*QW +: QW] == b_qpn) ||
                      (c_valid && req_qpn[h*QW +: QW] == c_qpn);
    end
    wire          g_held = held[g];
    wire          grant  = pick && !clearing && !g_held;
    always @* begin
        req_ready    = {CLIENTS{1'b0}};
        req_ready[g] = grant;
    end

    // the request as it moves through B and C
    reg          b_in, c_in;
    wire         cfg_busy;    // cfg_ram clears (the same cycles as st_ram)
    reg [CW-1:0] b_client, c_client;
    reg [3:0]    b_op, c_op;
    reg [31:0]   b_arg, c_arg;
    reg [OB-1:0] b_off, c_off;
    always @(posedge clk) begin
        if (rst) begin
            rr_last  <= {CW{1'b0}};
            b_valid  <= 1'b0;
            c_valid  <= 1'b0;
        end else begin
            b_valid <= grant;
            c_valid <= b_valid;
            if (grant) rr_last <= g;
        end
        // the fields need no reset: b_valid and c_valid say when they count
        b_in     <= g_in;
        b_client <= g;
        b_op     <= req_op[g*4 +: 4];
        b_qpn    <= g_qpn;
        b_arg    <= req_arg[g*32 +: 32];
        b_off    <= req_off[g*OB +: OB];
        c_in     <= b_in;
        c_client <= b_client;
        c_op     <= b_op;
        c_qpn    <= b_qpn;
        // zero while the RAMs clear: cfg_ram's write data, which comes from
        // c_arg alone, is then the zero word (cfg_ram's ZERO_DATA); zeroed
        // by rst too, since the clear writes from the cycle after rst (a
        // reset in the middle of traffic, as a board link's RESET is, leaves
        // an old argument in b_arg)
        c_arg    <= (rst || cfg_busy) ? 32'd0 : b_arg;
        c_off    <= b_off;
    end

    // ---- the RAMs; stage B registers their word -----------------------------
    // The word lives in two RAMs read at the same address. What only the
    // host configures (the rings' bases, CFG, REMOTE, PD, the QPN's
    // generation, RNR_RETRY) is in cfg_ram, a field a lane of 9-bit byte
    // enables: a HOST_WRITE writes its register's field from c_arg alone
    // and no operation reads it first (no multiplexer in front of any of
    // its bits). The rest, which the operations change, is in st_ram,
    // written back whole.
    wire [EB-1:0] ram_q;
    // Stage C writes its QP's word back whatever the operation: where
    // nothing changes, new_word is cur. The enable is then no decision of
    // the operation's (run 48's worst path went from stage C's decisions
    // through the flush queue's mark into the RAM's write port).
    wire          wr_en = c_valid && c_in;
    // new_word is the whole layout word; only st_ram's fields of it are
    // written (cfg_ram's come from c_arg, the layout's gaps are zero)
    /* verilator lint_off UNUSEDSIGNAL */
    reg  [EB-1:0] new_word;
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [EB-1:0] cur;        // the word of the operation in C

    // st_ram's word: the fields the operations change, packed
`define QPT_ST(w) {w[`QPNIC_QP_CTX_NAK_SENT_FLAT], \
        w[`QPNIC_QP_CTX_RETRY_LEFT_FLAT], w[`QPNIC_QP_CTX_EPSN_FLAT], w[`QPNIC_QP_CTX_RSP_RNR_FLAT], \
        w[`QPNIC_QP_CTX_RNR_LEFT_FLAT], w[`QPNIC_QP_CTX_RNR_WAIT_FLAT], w[`QPNIC_QP_CTX_EPOCH_FLAT], \
        w[`QPNIC_QP_CTX_PSN_FLAT], w[`QPNIC_QP_CTX_FETCH_PTR_FLAT], w[`QPNIC_QP_CTX_RQ_CI_FLAT], \
        w[`QPNIC_QP_CTX_SQ_CI_FLAT], w[`QPNIC_QP_CTX_RQ_PI_FLAT], w[`QPNIC_QP_CTX_SQ_PI_FLAT], \
        w[`QPNIC_QP_CTX_RQ_FLUSH_FLAT], w[`QPNIC_QP_CTX_COMP_ERR_FLAT], w[`QPNIC_QP_CTX_SCHED_FLAT], \
        w[`QPNIC_QP_CTX_STATE_FLAT]}
    localparam SB = `QPNIC_QP_CTX_NAK_SENT_WIDTH +
                    `QPNIC_QP_CTX_RETRY_LEFT_WIDTH + `QPNIC_QP_CTX_EPSN_WIDTH + `QPNIC_QP_CTX_RSP_RNR_WIDTH +
                    `QPNIC_QP_CTX_RNR_LEFT_WIDTH + `QPNIC_QP_CTX_RNR_WAIT_WIDTH +
                    `QPNIC_QP_CTX_EPOCH_WIDTH + `QPNIC_QP_CTX_PSN_WIDTH + 5 * IW +
                    `QPNIC_QP_CTX_RQ_FLUSH_WIDTH + `QPNIC_QP_CTX_COMP_ERR_WIDTH +
                    `QPNIC_QP_CTX_SCHED_WIDTH + `QPNIC_QP_CTX_STATE_WIDTH;
    wire [SB-1:0] st_q;

    // register fields written into (possibly wider) context fields
    reg [`QPNIC_QP_CTX_SEND_CQ_WIDTH-1:0]    w_scq;
    reg [`QPNIC_QP_CTX_RECV_CQ_WIDTH-1:0]    w_rcq;
    reg [`QPNIC_QP_CTX_REMOTE_QPN_WIDTH-1:0] w_rqpn;
    always @* begin
        w_scq  = 0;
        w_rcq  = 0;
        w_rqpn = 0;
        w_scq[`QPNIC_QP_CFG_SEND_CQ_WIDTH-1:0]   = c_arg[`QPNIC_QP_CFG_SEND_CQ];
        w_rcq[`QPNIC_QP_CFG_RECV_CQ_WIDTH-1:0]   = c_arg[`QPNIC_QP_CFG_RECV_CQ];
        w_rqpn[`QPNIC_QP_REMOTE_QPN_WIDTH-1:0]   = c_arg[`QPNIC_QP_REMOTE_QPN];
    end

    // cfg_ram's word: lanes of 9 bits, each register's field from lane
    // L_<register> on (a field never shares a lane with another)
    // (each field's lanes: its width from the layout, rounded up to lanes)
    localparam LB = 9;
    localparam W_BASE = `QPNIC_QP_CTX_SQ_BASE_LO_WIDTH;   // each ring base word
    localparam W_CFG  = `QPNIC_QP_CTX_RECV_CQ_WIDTH + `QPNIC_QP_CTX_SEND_CQ_WIDTH +
                        `QPNIC_QP_CTX_RQ_LOG_WIDTH + `QPNIC_QP_CTX_SQ_LOG_WIDTH;
    localparam W_REM  = `QPNIC_QP_CTX_PEER_WIDTH + `QPNIC_QP_CTX_REMOTE_QPN_WIDTH;   // peer, qpn
    localparam W_PD   = `QPNIC_PD_BITS;
    localparam W_GEN  = `QPNIC_QP_CTX_GEN_WIDTH;
    localparam W_RNR  = `QPNIC_QP_CTX_RNR_RETRY_WIDTH;
    localparam N_BASE = (W_BASE + LB - 1) / LB, N_CFG = (W_CFG + LB - 1) / LB,
               N_REM  = (W_REM + LB - 1) / LB,  N_PD  = (W_PD + LB - 1) / LB,
               N_GEN  = (W_GEN + LB - 1) / LB,  N_RNR = (W_RNR + LB - 1) / LB;
    localparam L_SQ_LO = 0,                L_SQ_HI  = L_SQ_LO + N_BASE,
               L_RQ_LO = L_SQ_HI + N_BASE, L_RQ_HI  = L_RQ_LO + N_BASE,
               L_CFG   = L_RQ_HI + N_BASE, L_REMOTE = L_CFG + N_CFG,
               L_PD    = L_REMOTE + N_REM, L_GEN    = L_PD + N_PD,
               L_RNR   = L_GEN + N_GEN,    CL       = L_RNR + N_RNR;
    wire          host_wr = c_valid && c_in && c_op == `QPNIC_QP_OP_HOST_WRITE;
    reg  [CL-1:0]    cfg_we;
    reg  [CL*LB-1:0] cfg_wd;
    // the lanes' bits above their fields are written zero and never read
    /* verilator lint_off UNUSEDSIGNAL */
    wire [CL*LB-1:0] cfg_q;
    /* verilator lint_on UNUSEDSIGNAL */
    always @* begin
        cfg_we = {CL{1'b0}};
        if (host_wr)
            case (c_off)
            `QPNIC_QPREG_SQ_BASE_LO: cfg_we[L_SQ_LO +: N_BASE] = {N_BASE{1'b1}};
            `QPNIC_QPREG_SQ_BASE_HI: cfg_we[L_SQ_HI +: N_BASE] = {N_BASE{1'b1}};
            `QPNIC_QPREG_RQ_BASE_LO: cfg_we[L_RQ_LO +: N_BASE] = {N_BASE{1'b1}};
            `QPNIC_QPREG_RQ_BASE_HI: cfg_we[L_RQ_HI +: N_BASE] = {N_BASE{1'b1}};
            `QPNIC_QPREG_CFG:        cfg_we[L_CFG +: N_CFG]     = {N_CFG{1'b1}};
            `QPNIC_QPREG_REMOTE:     cfg_we[L_REMOTE +: N_REM]  = {N_REM{1'b1}};
            `QPNIC_QPREG_PD:         cfg_we[L_PD +: N_PD]       = {N_PD{1'b1}};
            `QPNIC_QPREG_QPN:        cfg_we[L_GEN +: N_GEN]     = {N_GEN{1'b1}};
            `QPNIC_QPREG_RNR_RETRY:  cfg_we[L_RNR +: N_RNR]     = {N_RNR{1'b1}};
            default: ;
            endcase
        // every field from c_arg; only the lanes enabled above are written
        cfg_wd = {(CL*LB){1'b0}};
        cfg_wd[L_SQ_LO*LB +: W_BASE]  = c_arg;
        cfg_wd[L_SQ_HI*LB +: W_BASE]  = c_arg;
        cfg_wd[L_RQ_LO*LB +: W_BASE]  = c_arg;
        cfg_wd[L_RQ_HI*LB +: W_BASE]  = c_arg;
        cfg_wd[L_CFG*LB +: W_CFG]     = {w_rcq, w_scq, c_arg[`QPNIC_QP_CFG_RQ_LOG], c_arg[`QPNIC_QP_CFG_SQ_LOG]};
        cfg_wd[L_REMOTE*LB +: W_REM]  = {c_arg[`QPNIC_QP_REMOTE_PEER], w_rqpn};
        cfg_wd[L_PD*LB +: W_PD]       = c_arg[`QPNIC_PD_BITS-1:0];
        cfg_wd[L_GEN*LB +: W_GEN]     = c_arg[`QPNIC_QP_NUM_GEN];
        cfg_wd[L_RNR*LB +: W_RNR]     = c_arg[`QPNIC_QP_RNR_RETRY];
    end

    // RDW_OLD 0: a QP being written back is never granted (g_held), so a
    // read of the word being written is never used (with WORD_REGS 0 the
    // read is B's, whose QP is not C's either). CLEAR 2: a small table
    // clears by a bit per word (qpnic_ram_sdp); cfg_ram, written a field
    // at a time, clears by writing zeros, in the same 2^RAW cycles.
    // With WORD_REGS 0 the RAMs have twice the words, and the upper half
    // is never written: a QP number the table does not have reads word
    // 2^AW, which is zero after the clear (see cur below).
    localparam RAW = AW + (WORD_REGS != 0 ? 0 : 1);
    wire [RAW-1:0] rd_qpn, wr_qpn;
    generate
        if (WORD_REGS != 0) begin : read_in_a
            assign rd_qpn = g_qpn[AW-1:0];
            assign wr_qpn = c_qpn[AW-1:0];
        end else begin : read_in_b
            assign rd_qpn = b_in ? {1'b0, b_qpn[AW-1:0]} : {1'b1, {AW{1'b0}}};
            assign wr_qpn = {1'b0, c_qpn[AW-1:0]};
        end
    endgenerate
    qpnic_ram_sdp #(.WIDTH(SB), .AW(RAW), .CLEAR(2), .RDW_OLD(0), .STYLE("block")) st_ram (
        .clk(clk), .rst(rst), .busy(clearing),
        .wr_en(wr_en), .wr_addr(wr_qpn), .wr_data(`QPT_ST(new_word)),
        .rd_en(1'b1), .rd_addr(rd_qpn), .rd_data(st_q));
    qpnic_ram_sdp #(.WIDTH(CL*LB), .AW(RAW), .CLEAR(1), .RDW_OLD(0), .LANES(CL), .ZERO_DATA(1),
                    .STYLE("block")) cfg_ram (
        .clk(clk), .rst(rst), .busy(cfg_busy),
        .wr_en(cfg_we), .wr_addr(wr_qpn), .wr_data(cfg_wd),
        .rd_en(1'b1), .rd_addr(rd_qpn), .rd_data(cfg_q));

    // the word, in the layout's order (its unused bits zero)
    reg [EB-1:0] ram_w;
    always @* begin
        ram_w = {EB{1'b0}};
        `QPT_ST(ram_w) = st_q;
        ram_w[`QPNIC_QP_CTX_SQ_BASE_LO_FLAT] = cfg_q[L_SQ_LO*LB +: W_BASE];
        ram_w[`QPNIC_QP_CTX_SQ_BASE_HI_FLAT] = cfg_q[L_SQ_HI*LB +: W_BASE];
        ram_w[`QPNIC_QP_CTX_RQ_BASE_LO_FLAT] = cfg_q[L_RQ_LO*LB +: W_BASE];
        ram_w[`QPNIC_QP_CTX_RQ_BASE_HI_FLAT] = cfg_q[L_RQ_HI*LB +: W_BASE];
        {ram_w[`QPNIC_QP_CTX_RECV_CQ_FLAT], ram_w[`QPNIC_QP_CTX_SEND_CQ_FLAT],
         ram_w[`QPNIC_QP_CTX_RQ_LOG_FLAT], ram_w[`QPNIC_QP_CTX_SQ_LOG_FLAT]} = cfg_q[L_CFG*LB +: W_CFG];
        {ram_w[`QPNIC_QP_CTX_PEER_FLAT], ram_w[`QPNIC_QP_CTX_REMOTE_QPN_FLAT]} = cfg_q[L_REMOTE*LB +: W_REM];
        // (without the wire every peer is this NIC: a constant the readers fold)
        if (WIRE == 0) ram_w[`QPNIC_QP_CTX_PEER_FLAT] = 0;
        ram_w[`QPNIC_QP_CTX_PD_FLAT]  = cfg_q[L_PD*LB +: W_PD];
        ram_w[`QPNIC_QP_CTX_GEN_FLAT] = cfg_q[L_GEN*LB +: W_GEN];
        ram_w[`QPNIC_QP_CTX_RNR_RETRY_FLAT] = cfg_q[L_RNR*LB +: W_RNR];
    end
    assign ram_q = ram_w;

    // A QP number the table does not have reads as an all-zero word (state
    // RESET), the answer such a request gets, with no multiplexer in front
    // of the word's bits: with WORD_REGS, a synchronous reset of cur's
    // flip-flops; without, the RAMs' zero word (above).
    generate
        if (WORD_REGS != 0) begin : word_reg
            always @(posedge clk) cur <= b_in ? ram_q : {EB{1'b0}};
        end else begin : word_ram
            always @* cur = ram_q;
        end
    endgenerate

    // ---- stage C: the operation ------------------------------------------------
    // fields of the current word
    wire [`QPNIC_QP_STATE_BITS-1:0] st = cur[`QPNIC_QP_CTX_STATE_FLAT];
    wire        sched   = cur[`QPNIC_QP_CTX_SCHED_FLAT];
    wire [IW-1:0] sq_pi   = cur[`QPNIC_QP_CTX_SQ_PI_FLAT];
    wire [IW-1:0] ptr     = cur[`QPNIC_QP_CTX_FETCH_PTR_FLAT];
    wire [4:0]  sq_log  = cur[`QPNIC_QP_CTX_SQ_LOG_FLAT];
    wire        in_reset = (st == `QPNIC_QP_STATE_RESET);
    // an engine's ERROR (SET_ERR, COMP_FAIL, RQ_CI_ERR), if the machine allows it
    wire        nic_err  = `QPNIC_QP_STATE_NIC_MAY(st, `QPNIC_QP_STATE_ERROR);
    // the state a host write asks for, and whether the machine allows it
    wire [`QPNIC_QP_STATE_BITS-1:0] host_st = c_arg[`QPNIC_QP_STATE_BITS-1:0];
    wire        host_ok  = (c_arg[31:`QPNIC_QP_STATE_BITS] == 0) && `QPNIC_QP_STATE_HOST_MAY(st, host_st);
    wire        in_error = (st == `QPNIC_QP_STATE_ERROR);
    wire [IW-1:0] rq_pi   = cur[`QPNIC_QP_CTX_RQ_PI_FLAT];
    wire [IW-1:0] rq_ci   = cur[`QPNIC_QP_CTX_RQ_CI_FLAT];
    wire        rq_fl   = cur[`QPNIC_QP_CTX_RQ_FLUSH_FLAT];
    // the receiver-not-ready retry (docs/internals.md)
    wire        epoch    = cur[`QPNIC_QP_CTX_EPOCH_FLAT];
    wire        rnr_wait = cur[`QPNIC_QP_CTX_RNR_WAIT_FLAT];
    wire [`QPNIC_QP_CTX_RNR_LEFT_WIDTH-1:0] rnr_left  = cur[`QPNIC_QP_CTX_RNR_LEFT_FLAT];
    wire [`QPNIC_QP_CTX_RNR_LEFT_WIDTH-1:0] rnr_retry = cur[`QPNIC_QP_CTX_RNR_RETRY_FLAT];
    wire [IW-1:0] sq_ci     = cur[`QPNIC_QP_CTX_SQ_CI_FLAT];
    wire        arg_epoch = (c_arg[`QPNIC_EPOCH_ARG_BIT] == epoch);   // PSN, SET_ERR: the WQE's epoch is the QP's
    localparam [`QPNIC_QP_CTX_RNR_LEFT_WIDTH-1:0] RNR_FOREVER = `QPNIC_RNR_RETRY_FOREVER;
    wire [`QPNIC_QP_CTX_RETRY_LEFT_WIDTH-1:0] retry_left = cur[`QPNIC_QP_CTX_RETRY_LEFT_FLAT];
    localparam [`QPNIC_QP_CTX_RETRY_LEFT_WIDTH-1:0] RETRIES = `QPNIC_RETRY_COUNT;
    wire        arg_tmo  = c_arg[24];   // REWIND: a timeout, not an RNR NAK
    wire        arg_prog = c_arg[25];   // REWIND of a timeout: the request made progress
    wire        rewinds = (st == `QPNIC_QP_STATE_RTS) &&
                          (arg_tmo ? (retry_left != 0 || arg_prog) : rnr_left != 0);
    // FETCH claims nothing in RESET or while the RNR timer runs
    wire        fetch_off = in_reset || rnr_wait;

    // FETCH: n = min(SQ_PI - fetch_ptr, arg, WQEs to the ring's end), and
    // the new fetch pointer ptr + n, chosen from three candidates computed
    // side by side (SQ_PI itself, the ring's end, ptr + arg), so that no
    // adder waits for a comparison
    wire [IW-1:0] mask    = ({{(IW-1){1'b0}}, 1'b1} << sq_log) - 1'b1;   // sq_log >= IW: all ones
    wire [IW:0] to_end  = {1'b0, ~ptr & mask} + 1'b1;
    wire [IW-1:0] avail   = sq_pi - ptr;
    wire [IW-1:0] arg_n   = c_arg[IW-1:0];
    wire        e_lt_a  = to_end < {1'b0, avail};       // the ring's end first
    wire        r_lt_a  = arg_n < avail;                 // the burst first
    wire        r_lt_e  = {1'b0, arg_n} < to_end;
    wire        end_min = e_lt_a && !r_lt_e;
    wire        arg_min = r_lt_a && (r_lt_e || !e_lt_a);
    wire [IW-1:0] fetch_n = fetch_off ? {IW{1'b0}} :
                          arg_min  ? arg_n :
                          end_min  ? to_end[IW-1:0] : avail;
    wire [IW-1:0] ptr_end = (ptr | mask) + 1'b1;
    wire [IW-1:0] ptr_arg = ptr + arg_n;
    wire [IW-1:0] fetch_ptr_new = fetch_off ? ptr :
                          arg_min  ? ptr_arg :
                          end_min  ? ptr_end : sq_pi;
    // WQEs left behind: the QP goes back to the queue
    wire        fetch_more = !fetch_off && (e_lt_a || r_lt_a);

    // the host's view of register c_off; a register field may be narrower
    // than the context's (CQ and QP numbers), the context holds what the
    // host wrote
    /* verilator lint_off UNUSEDSIGNAL */
    wire [`QPNIC_QP_CTX_SEND_CQ_WIDTH-1:0]    cur_scq  = cur[`QPNIC_QP_CTX_SEND_CQ_FLAT];
    wire [`QPNIC_QP_CTX_RECV_CQ_WIDTH-1:0]    cur_rcq  = cur[`QPNIC_QP_CTX_RECV_CQ_FLAT];
    wire [`QPNIC_QP_CTX_REMOTE_QPN_WIDTH-1:0] cur_rqpn = cur[`QPNIC_QP_CTX_REMOTE_QPN_FLAT];
    // RSP_SEQ: the request's PSN ahead of the expected one (24-bit
    // sequence arithmetic, as the responder's)
    wire [`QPNIC_QP_CTX_EPSN_WIDTH-1:0] seq_behind = cur[`QPNIC_QP_CTX_EPSN_FLAT] -
                                                     c_arg[`QPNIC_QP_CTX_EPSN_WIDTH-1:0];
    wire seq_ahead = seq_behind[`QPNIC_QP_CTX_EPSN_WIDTH-1];
    // RSP_SEQ moves epsn or nak_sent only for a QP in RTS and a request
    // from its peer (arg bits 27:26); one the responder refuses changes
    // nothing (a destroyed QP's number of another generation still can:
    // the argument has no room for the generation)
    wire seq_takes = (st == `QPNIC_QP_STATE_RTS) &&
                     (c_arg[26 +: `QPNIC_PEER_BITS] == cur[`QPNIC_QP_CTX_PEER_FLAT]);
    /* verilator lint_on UNUSEDSIGNAL */
    reg [31:0] rdata;
    always @* begin
        rdata = 32'd0;
        case (c_off)
        `QPNIC_QPREG_SQ_BASE_LO: rdata = cur[`QPNIC_QP_CTX_SQ_BASE_LO_FLAT];
        `QPNIC_QPREG_SQ_BASE_HI: rdata = cur[`QPNIC_QP_CTX_SQ_BASE_HI_FLAT];
        `QPNIC_QPREG_RQ_BASE_LO: rdata = cur[`QPNIC_QP_CTX_RQ_BASE_LO_FLAT];
        `QPNIC_QPREG_RQ_BASE_HI: rdata = cur[`QPNIC_QP_CTX_RQ_BASE_HI_FLAT];
        `QPNIC_QPREG_CFG: begin
            rdata[`QPNIC_QP_CFG_SQ_LOG]  = cur[`QPNIC_QP_CTX_SQ_LOG_FLAT];
            rdata[`QPNIC_QP_CFG_RQ_LOG]  = cur[`QPNIC_QP_CTX_RQ_LOG_FLAT];
            rdata[`QPNIC_QP_CFG_SEND_CQ] = cur_scq[`QPNIC_QP_CFG_SEND_CQ_WIDTH-1:0];
            rdata[`QPNIC_QP_CFG_RECV_CQ] = cur_rcq[`QPNIC_QP_CFG_RECV_CQ_WIDTH-1:0];
        end
        `QPNIC_QPREG_REMOTE: begin
            rdata[`QPNIC_QP_REMOTE_QPN]  = cur_rqpn[`QPNIC_QP_REMOTE_QPN_WIDTH-1:0];
            rdata[`QPNIC_QP_REMOTE_PEER] = cur[`QPNIC_QP_CTX_PEER_FLAT];
        end
        `QPNIC_QPREG_STATE:   rdata[`QPNIC_QP_CTX_STATE_WIDTH-1:0] = st;
        `QPNIC_QPREG_SQ_PI:   rdata[IW-1:0] = sq_pi;
        `QPNIC_QPREG_RQ_PI:   rdata[IW-1:0] = rq_pi;
        `QPNIC_QPREG_SQ_CI:   rdata[IW-1:0] = cur[`QPNIC_QP_CTX_SQ_CI_FLAT];
        `QPNIC_QPREG_RQ_CI:   rdata[IW-1:0] = rq_ci;
        `QPNIC_QPREG_PD:      rdata[`QPNIC_PD_BITS-1:0] = cur[`QPNIC_QP_CTX_PD_FLAT];
        `QPNIC_QPREG_RNR_RETRY: rdata[`QPNIC_QP_RNR_RETRY] = rnr_retry;
        `QPNIC_QPREG_QPN: begin
            rdata[`QPNIC_QP_NUM_INDEX] = {{(`QPNIC_QP_NUM_INDEX_WIDTH-QW){1'b0}}, c_qpn};
            rdata[`QPNIC_QP_NUM_GEN]   = cur[`QPNIC_QP_CTX_GEN_FLAT];
        end
        default: ;
        endcase
        if (!c_in) rdata = 32'd0;
    end

    // new_word, whether it is written, and whether the QP joins the queue
    reg        push;
    reg        fl_push;
    reg [IW-1:0] w_pi, w_ptr;
    reg [`QPNIC_QP_STATE_BITS-1:0] w_state;
    always @* begin
        new_word = cur;
        push     = 1'b0;
        fl_push  = 1'b0;
        w_pi     = sq_pi;
        w_ptr    = ptr;
        w_state  = st;
        if (c_valid && c_in) begin
            case (c_op)
            `QPNIC_QP_OP_HOST_WRITE: begin
                case (c_off)
                `QPNIC_QPREG_STATE: if (host_ok) begin   // a refused write changes nothing
                    w_state = host_st;
                    new_word[`QPNIC_QP_CTX_STATE_FLAT] = w_state;
                    if (w_state == `QPNIC_QP_STATE_RESET) begin
                        w_pi  = {IW{1'b0}};
                        w_ptr = {IW{1'b0}};
                        new_word[`QPNIC_QP_CTX_SQ_PI_FLAT]     = {IW{1'b0}};
                        new_word[`QPNIC_QP_CTX_RQ_PI_FLAT]     = {IW{1'b0}};
                        new_word[`QPNIC_QP_CTX_SQ_CI_FLAT]     = {IW{1'b0}};
                        new_word[`QPNIC_QP_CTX_RQ_CI_FLAT]     = {IW{1'b0}};
                        new_word[`QPNIC_QP_CTX_FETCH_PTR_FLAT] = {IW{1'b0}};
                        new_word[`QPNIC_QP_CTX_PSN_FLAT]       = 0;
                        new_word[`QPNIC_QP_CTX_COMP_ERR_FLAT]  = 1'b0;
                        new_word[`QPNIC_QP_CTX_EPOCH_FLAT]     = 1'b0;
                        new_word[`QPNIC_QP_CTX_RNR_WAIT_FLAT]  = 1'b0;
                        new_word[`QPNIC_QP_CTX_RSP_RNR_FLAT]   = 1'b0;
                        new_word[`QPNIC_QP_CTX_NAK_SENT_FLAT]  = 1'b0;
                        new_word[`QPNIC_QP_CTX_EPSN_FLAT]   = 0;
                    end
                    // connected: the retries start full
                    if (w_state == `QPNIC_QP_STATE_RTS) begin
                        new_word[`QPNIC_QP_CTX_NAK_SENT_FLAT]   = 1'b0;
                        new_word[`QPNIC_QP_CTX_RNR_LEFT_FLAT]   = rnr_retry;
                        new_word[`QPNIC_QP_CTX_RETRY_LEFT_FLAT] = RETRIES;
                    end
                end
                `QPNIC_QPREG_SQ_PI: begin
                    w_pi = c_arg[IW-1:0];
                    new_word[`QPNIC_QP_CTX_SQ_PI_FLAT] = w_pi;
                end
                `QPNIC_QPREG_RQ_PI: new_word[`QPNIC_QP_CTX_RQ_PI_FLAT] = c_arg[IW-1:0];
                default: ;   // cfg_ram's (above), read-only or unmapped
                endcase
                // a doorbell or a state out of RESET may leave WQEs to fetch
                // (not while the RNR timer runs: RNR_WAKE queues it then)
                if (!sched && !rnr_wait && w_state != `QPNIC_QP_STATE_RESET && w_pi != w_ptr) begin
                    push  = 1'b1;
                    new_word[`QPNIC_QP_CTX_SCHED_FLAT] = 1'b1;
                end
            end
            `QPNIC_QP_OP_FETCH: begin
                new_word[`QPNIC_QP_CTX_FETCH_PTR_FLAT] = fetch_ptr_new;
                // more behind: back to the tail of the queue; else dequeued
                push = fetch_more;
                new_word[`QPNIC_QP_CTX_SCHED_FLAT] = fetch_more;
            end
            // (for a stale WQE, PSN writes back the word as it was)
            `QPNIC_QP_OP_PSN: begin
                if (arg_epoch)
                    new_word[`QPNIC_QP_CTX_PSN_FLAT] = cur[`QPNIC_QP_CTX_PSN_FLAT] +
                                                      {8'd0, c_arg[15:0]} + 1'b1;
            end
            `QPNIC_QP_OP_REWIND:
                if (rewinds) begin
                    new_word[`QPNIC_QP_CTX_FETCH_PTR_FLAT] = sq_ci;
                    new_word[`QPNIC_QP_CTX_PSN_FLAT]       = c_arg[`QPNIC_QP_CTX_PSN_WIDTH-1:0];
                    new_word[`QPNIC_QP_CTX_EPOCH_FLAT]     = !epoch;
                    new_word[`QPNIC_QP_CTX_RNR_WAIT_FLAT]  = 1'b1;
                    // (progress restores the retries, as an ACK does:
                    // they count go-backs that got no further)
                    if (arg_tmo && arg_prog)
                        new_word[`QPNIC_QP_CTX_RETRY_LEFT_FLAT] = RETRIES;
                    else if (arg_tmo)
                        new_word[`QPNIC_QP_CTX_RETRY_LEFT_FLAT] = retry_left - 1'b1;
                    else if (rnr_left != RNR_FOREVER)
                        new_word[`QPNIC_QP_CTX_RNR_LEFT_FLAT] = rnr_left - 1'b1;
                end
            `QPNIC_QP_OP_RNR_WAKE: begin
                new_word[`QPNIC_QP_CTX_RNR_WAIT_FLAT] = 1'b0;
                if (!sched && !in_reset && sq_pi != ptr) begin
                    push = 1'b1;
                    new_word[`QPNIC_QP_CTX_SCHED_FLAT] = 1'b1;
                end
            end
            `QPNIC_QP_OP_RSP_RNR: begin
                new_word[`QPNIC_QP_CTX_RSP_RNR_FLAT] = 1'b1;
                new_word[`QPNIC_QP_CTX_NAK_SENT_FLAT] = 1'b0;
                new_word[`QPNIC_QP_CTX_EPSN_FLAT] = c_arg[`QPNIC_QP_CTX_EPSN_WIDTH-1:0];
            end
            // a WRITE or READ of the expected PSN executes: the next one
            // (a request over the wire ahead of it: the gap's one NAK is out)
            `QPNIC_QP_OP_RSP_SEQ:
                if (!seq_takes)
                    ;   // not a request the QP takes: the responder refuses it
                else if (c_arg[24] && c_arg[`QPNIC_QP_CTX_EPSN_WIDTH-1:0] == cur[`QPNIC_QP_CTX_EPSN_FLAT]) begin
                    new_word[`QPNIC_QP_CTX_EPSN_FLAT] = cur[`QPNIC_QP_CTX_EPSN_FLAT] + 1'b1;
                    new_word[`QPNIC_QP_CTX_NAK_SENT_FLAT] = 1'b0;
                end else if (c_arg[25] && seq_ahead && !cur[`QPNIC_QP_CTX_RSP_RNR_FLAT])
                    new_word[`QPNIC_QP_CTX_NAK_SENT_FLAT] = 1'b1;
            // a READ's response packets took their PSNs: the next request's
            `QPNIC_QP_OP_RSP_READ:
                if (st == `QPNIC_QP_STATE_RTS)
                    new_word[`QPNIC_QP_CTX_EPSN_FLAT] = c_arg[`QPNIC_QP_CTX_EPSN_WIDTH-1:0];
            `QPNIC_QP_OP_SET_ERR:
                if (nic_err && arg_epoch) begin
                    new_word[`QPNIC_QP_CTX_STATE_FLAT] = `QPNIC_QP_STATE_ERROR;
                end
            `QPNIC_QP_OP_COMP_FAIL: begin
                new_word[`QPNIC_QP_CTX_COMP_ERR_FLAT] = 1'b1;
                if (c_arg[0] && nic_err)
                    new_word[`QPNIC_QP_CTX_STATE_FLAT] = `QPNIC_QP_STATE_ERROR;
            end
            `QPNIC_QP_OP_RQ_CI_ERR: begin
                new_word[`QPNIC_QP_CTX_RQ_CI_FLAT] = rq_ci + 1'b1;
                new_word[`QPNIC_QP_CTX_RSP_RNR_FLAT] = 1'b0;
                if (nic_err)
                    new_word[`QPNIC_QP_CTX_STATE_FLAT] = `QPNIC_QP_STATE_ERROR;
            end
            `QPNIC_QP_OP_RQ_CI_INC: begin
                new_word[`QPNIC_QP_CTX_RQ_CI_FLAT] = rq_ci + 1'b1;
                new_word[`QPNIC_QP_CTX_RSP_RNR_FLAT] = 1'b0;
                new_word[`QPNIC_QP_CTX_NAK_SENT_FLAT] = 1'b0;
                new_word[`QPNIC_QP_CTX_EPSN_FLAT] = cur[`QPNIC_QP_CTX_EPSN_FLAT] + 1'b1;
            end
            `QPNIC_QP_OP_RQ_FLUSH: begin
                if (in_error && rq_ci != rq_pi)
                    new_word[`QPNIC_QP_CTX_RQ_CI_FLAT] = rq_ci + 1'b1;
                else
                    new_word[`QPNIC_QP_CTX_RQ_FLUSH_FLAT] = 1'b0;
            end
            `QPNIC_QP_OP_SQ_CI_INC: begin
                new_word[`QPNIC_QP_CTX_SQ_CI_FLAT] = sq_ci + 1'b1;
                new_word[`QPNIC_QP_CTX_RNR_LEFT_FLAT] = rnr_retry;
                new_word[`QPNIC_QP_CTX_RETRY_LEFT_FLAT] = RETRIES;
            end
            default: ;   // READ, HOST_READ
            endcase
            // whatever the operation: a QP left in ERROR with receives
            // posted joins the flush queue, once
            if (c_op != `QPNIC_QP_OP_RQ_FLUSH && !rq_fl &&
                new_word[`QPNIC_QP_CTX_STATE_FLAT] == `QPNIC_QP_STATE_ERROR &&
                new_word[`QPNIC_QP_CTX_RQ_PI_FLAT] != new_word[`QPNIC_QP_CTX_RQ_CI_FLAT]) begin
                fl_push = 1'b1;
                new_word[`QPNIC_QP_CTX_RQ_FLUSH_FLAT] = 1'b1;
            end
        end
    end

    // ---- the answer, the doorbell queue ------------------------------------------
    wire asked = (c_op == `QPNIC_QP_OP_READ) || (c_op == `QPNIC_QP_OP_HOST_READ) ||
                 (c_op == `QPNIC_QP_OP_FETCH) || (c_op == `QPNIC_QP_OP_PSN) ||
                 (c_op == `QPNIC_QP_OP_RQ_FLUSH) || (c_op == `QPNIC_QP_OP_REWIND) ||
                 (c_op == `QPNIC_QP_OP_RSP_SEQ);
    wire [IW-1:0] ans_n = (c_in && c_op == `QPNIC_QP_OP_FETCH) ? fetch_n[IW-1:0] : {IW{1'b0}};
    generate
        if (WORD_REGS != 0) begin : answer_reg
            always @(posedge clk) begin
                if (rst) begin
                    rsp_valid <= {CLIENTS{1'b0}};
                    rsp_ctx   <= {EB{1'b0}};
                    rsp_n     <= {IW{1'b0}};
                    rsp_rdata <= 32'd0;
                end else begin
                    rsp_valid <= {CLIENTS{1'b0}};
                    if (c_valid && asked) begin
                        rsp_valid[c_client] <= 1'b1;
                        rsp_ctx   <= cur;   // all zero when !c_in (see cur)
                        rsp_n     <= ans_n;
                        rsp_rdata <= rdata;
                    end
                end
            end
        end else begin : answer_now
            // C's answer as it is (the fields count only with rsp_valid)
            always @* begin
                rsp_valid = {CLIENTS{1'b0}};
                rsp_valid[c_client] = c_valid && asked;
                rsp_ctx   = cur;
                rsp_n     = ans_n;
                rsp_rdata = rdata;
            end
        end
    endgenerate

    localparam LOG_Q = AW;
    // The push leaves stage C through a register, so that the queue's
    // write is not at the end of the read-modify-write's path (the QP joins
    // the queue a cycle after its sched mark is written; nothing looks at
    // the queue in between).
    // The queues hold a QP's low AW bits: only a QP of the table (c_in,
    // below NUM_QP) is pushed, so the bits above are zero.
    reg            push_r, fl_push_r;
    reg  [AW-1:0]  push_qpn;
    always @(posedge clk) begin
        if (rst) begin
            push_r    <= 1'b0;
            fl_push_r <= 1'b0;
            push_qpn  <= {AW{1'b0}};
        end else begin
            push_r    <= push;
            fl_push_r <= fl_push;
            push_qpn  <= c_qpn[AW-1:0];
        end
    end

    wire [LOG_Q:0] db_count;
    wire           db_in_ready;
    wire [AW-1:0]  db_q, fl_q;
    qpnic_fifo #(.WIDTH(AW), .LOG_DEPTH(LOG_Q)) u_db (
        .clk(clk), .rst(rst),
        .in_valid(push_r), .in_ready(db_in_ready), .in_data(push_qpn),
        .out_valid(db_valid), .out_ready(db_ready), .out_data(db_q),
        .count(db_count));

    wire [LOG_Q:0] fl_count;
    wire           fl_in_ready;
    qpnic_fifo #(.WIDTH(AW), .LOG_DEPTH(LOG_Q)) u_fl (
        .clk(clk), .rst(rst),
        .in_valid(fl_push_r), .in_ready(fl_in_ready), .in_data(push_qpn),
        .out_valid(fl_valid), .out_ready(fl_ready), .out_data(fl_q),
        .count(fl_count));
    generate
        if (AW < QW) begin : qpn_ext
            assign db_qpn = {{(QW - AW){1'b0}}, db_q};
            assign fl_qpn = {{(QW - AW){1'b0}}, fl_q};
        end else begin : qpn_all
            assign db_qpn = db_q;
            assign fl_qpn = fl_q;
        end
    endgenerate

    assign idle = !b_valid && !c_valid && !push_r && !fl_push_r && (db_count == 0) &&
                  (fl_count == 0) && !clearing;

    // in_ready is always high when push_r (fl_push_r) is: each queue holds
    // a QP at most once (the sched, rq_flush bits), and is NUM_QP (rounded
    // up) deep.
    wire unused = &{1'b0, db_in_ready, fl_in_ready};
endmodule

`undef QPT_ST
`default_nettype wire
