// qpnic_responder: serves the packets that arrive on the port (the target
// side, like rxe_resp.c), one packet at a time.
//
// The destination QP's context comes from qpnic_qp_table (RSP_SEQ, asked
// as the BTH's PSN word arrives, the QP's number noted from the word
// before); the dispatch waits for its answer.
//   - destination QP absent or not RTS, its number of another generation
//     (struct qp_num: a destroyed QP's number, now reused), the request
//     from another NIC than the QP's peer (qp_ctx peer), an unknown
//     opcode, or a READ_REQUEST over the wire (from another NIC, or any
//     with wire_all) whose response would be more than 65,536 packets of
//     the path MTU: ACK carrying NAK_INV_REQ, payload dropped, cnt_drop;
//   - the PSN against the QP's expected one (qp_ctx epsn, which RSP_SEQ
//     advances for a WRITE or READ that has it, RQ_CI_INC for a SEND): a
//     request ahead of it is refused, NAK_PSN_SEQ, nothing executed,
//     payload dropped (after an RNR NAK every request but that SEND, which
//     its requester sends again: docs/internals.md "Receiver not ready";
//     after a NAK_REM_ACC, RSP_RNR sets epsn back to the refused request's
//     PSN, so the requests its initiator sent behind it, which it completes
//     FLUSHED, never execute); a request behind it is a duplicate (a frame
//     the network delivered twice, or a retransmission): a WRITE or SEND
//     is acknowledged again without executing, a READ answered again;
//   - SEND_ONLY: no RQ WQE posted (rq_ci == rq_pi): RNR_NAK, memory
//     untouched, no RQ CQE; RSP_RNR marks the QP (rsp_rnr, epsn stays the
//     SEND's) until a receive is consumed. Otherwise the RQ WQE at rq_ci is read by DMA;
//     an opcode other than RECV or nsge > MAX_SGE gives an RQ CQE BAD_WQE;
//     every non-empty SGE is checked (local token, bounds, LOCAL_WRITE):
//     LOC_PROT; a payload larger than the SGEs: what fits is written, the
//     rest dropped, LOC_LEN. Each consumed RQ WQE gets an RQ CQE (RECEIVE,
//     solicited = BTH.se) on the QP's receive CQ, then RQ_CI_INC, or
//     RQ_CI_ERR when it failed (the QP goes to ERROR, and its other
//     receives are flushed); the sender gets ACK on success, NAK_REM_OP
//     otherwise.
//   - SEND_ONLY_INV: a SEND (as above) whose receive, when it succeeded,
//     then invalidates the IETH's token through the check port (chk_inval:
//     it must be a valid region's rkey, and the entry is cleared): the RQ
//     CQE is RECEIVE_AND_INVALIDATE with the token (C2-C4); a token that is
//     not valid completes the receive BAD_TOKEN and NAKs NAK_REM_ACC;
//   - WRITE_ONLY: remote token, REMOTE_WRITE and bounds (a zero-length write
//     is not checked), then the payload is scattered and ACKed; NAK_REM_ACC
//     with the payload dropped otherwise (and the mark above).
//   - READ_REQUEST: remote token, REMOTE_READ and bounds, then a
//     READ_RESPONSE_ONLY (AETH ACK) carries the data, gathered by DMA; an
//     ACK packet carrying NAK_REM_ACC otherwise.
// Segments (WIRE builds; docs/wire.md, "Segments"): a message to this NIC
// from another comes in packets of at most the path MTU. Each QP keeps its
// message in progress between packets (m_*: kind, next PSN, a WRITE's next
// address, token and bytes left, a SEND's bytes so far):
//   - WRITE_FIRST is checked for the RETH's whole range; WRITE_MIDDLE and
//     WRITE_LAST with the message's token for their own bytes, scattered
//     where the packet before ended;
//   - SEND_FIRST takes the receive (or RNR NAK); SEND_MIDDLE, SEND_LAST
//     and SEND_LAST_INV read the same receive WQE again, check its SGEs,
//     and scatter past the bytes already received (qpnic_sge_skip); only
//     the last consumes the receive (its CQE has the message's bytes),
//     and a receive too small fails the packet that overflows it;
//   - a MIDDLE or LAST that continues no message of its kind at its PSN,
//     or whose length its WRITE's RETH does not leave, or a FIRST or
//     MIDDLE whose payload is not this NIC's path MTU: NAK_INV_REQ, and
//     the QP takes nothing more (as after NAK_REM_ACC);
//   - a packet without AckReq (a message's packets before its last) gets
//     no ACK; NAKs always go;
//   - a READ_REQUEST over the wire is answered in packets of the path MTU
//     (READ_RESPONSE_FIRST, _MIDDLE without AETH, _LAST), each with the
//     next PSN; RSP_READ moves epsn past all of them.
// Between packets the responder also serves the QP table's flush queue: a
// QP in ERROR with receives posted. For each it asks RQ_FLUSH, which claims
// the receive at rq_ci while any is left, and completes that receive with
// an RQ CQE FLUSHED (no DMA but the CQE), in posting order, until the table
// answers that none is left. Only the responder consumes RQ WQEs, so a
// receive is never both filled and flushed; a queued flush goes before the
// next packet's first word.
// Responses: LRH (peer = the request's: back where it came from), BTH
// (dest_qp = the QP's remote, psn = the request's),
// AETH (syndrome; msn = the request's psn), then any payload. A response's
// header is handed to a small emitter that sends its words while the FSM
// goes on to the next packet (an ACK costs the FSM one cycle, not five); a
// READ's data follows once the emitter has sent its header, and the next
// response waits for the emitter, so responses keep packet order.
// A WRITE whose payload is accepted starts the scatter as it is dispatched.
// Token checks go to the responder's check port of qpnic_mr_table: a WRITE's
// or READ's RETH as its last header word arrives (the dispatch waits for the
// answer), an RQ WQE's SGEs through qpnic_sge_check.
//
// Parameters
//   NUM_QP           queue pairs (a dest_qp at or above is absent)
//   QW               bits of a QP number
//   OUT_DEPTH        words the completer's port FIFO holds (at least one
//                    whole MAX_DMA_BYTES read plus a header)
//   WIRE             0: no RoCEv2 wire: every request comes from this NIC
//                    (its LRH peer is read as 0, and the wire's rules fold)
// Ports
//   tq_req_*, tq_rsp_*   request port of qpnic_qp_table: READ, RQ_CI_INC,
//                    RQ_CI_ERR, RQ_FLUSH, RSP_RNR
//   fl_valid/ready, fl_qpn   the table's flush queue
//   chk_*, res_*     check port of qpnic_mr_table (request in, answer a
//                    fixed number of cycles later)
//   in_*             packets from the requester's port FIFO, each with its
//                    whole header (the RETH's check relies on it)
//   out_*            responses to the completer's port FIFO; out_count is
//                    the words in it now (deadlock rule)
//   rd_req_*, rd_rsp_*   DMA read master (index 2): RQ WQEs and READ data
//   wr_req_*, wr_dat_*   DMA write master (index 0): SEND and WRITE payloads
//   cqe_valid/ready, cqe_cqn, cqe_data   RQ CQE requests (phase bit 0)
//   cnt_rq_fetch     one-cycle strobe: the DMA read of one RQ WQE was issued
//                    (counts as a WQE fetch read and one WQE fetched)
//   cnt_dup          one-cycle strobe: a request behind its QP's expected
//                    PSN (a duplicate) was taken
//   wire_all         every packet goes on the wire (wire_en): the wire's
//                    limits for every request, not only another NIC's
//   path_mtu         log2 of the path MTU (PATH_MTU): a READ's response on
//                    the wire goes in packets of at most this payload
//   cnt_drop         one-cycle strobe: a request packet was refused unexecuted
//   at_bound         between packets: the last one's data has moved, the
//                    next one's first word not taken (qpnic_mr_fence)
//   idle             no packet in progress
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_responder #(
    parameter NUM_QP    = 8,
    parameter QW        = 8,
    parameter OUT_DEPTH = 256,
    parameter WIRE      = 1
) (
    input  wire                 clk,
    input  wire                 rst,
    output wire                 tq_req_valid,
    input  wire                 tq_req_ready,
    output wire [3:0]           tq_req_op,
    output wire [QW-1:0]        tq_req_qpn,
    output wire [31:0]          tq_req_arg,
    input  wire                 tq_rsp_valid,
    // the context word all the table's clients share; this one reads the
    // fields of its RQ side
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [`QPNIC_QP_CTX_BITS-1:0] tq_rsp_ctx,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                 fl_valid,
    output wire                 fl_ready,
    input  wire [QW-1:0]        fl_qpn,
    output wire                 chk_valid,
    output wire [31:0]          chk_token,
    output wire [63:0]          chk_va,
    output wire [31:0]          chk_len,
    output wire                 chk_remote,
    output wire                 chk_inval,
    output wire [`QPNIC_PD_BITS-1:0] chk_pd,
    output wire [2:0]           chk_need,
    input  wire                 res_valid,
    input  wire                 res_ok,
    input  wire [63:0]          res_dev,
    input  wire                 in_valid,
    output reg                  in_ready,
    input  wire [31:0]          in_data,
    input  wire [3:0]           in_keep,
    input  wire                 in_last,
    output reg                  out_valid,
    input  wire                 out_ready,
    output reg  [31:0]          out_data,
    output reg  [3:0]           out_keep,
    output reg                  out_last,
    input  wire [15:0]          out_count,
    output reg                  rd_req_valid,
    input  wire                 rd_req_ready,
    output reg  [63:0]          rd_req_addr,
    output reg  [15:0]          rd_req_len,
    input  wire                 rd_rsp_valid,
    output reg                  rd_rsp_ready,
    input  wire [31:0]          rd_rsp_data,
    input  wire [3:0]           rd_rsp_keep,
    input  wire                 rd_rsp_last,
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
    output wire                 cnt_rq_fetch,
    output wire                 cnt_drop,
    input  wire                 wire_all,
    input  wire [3:0]           path_mtu,
    output wire                 cnt_dup,
    output wire                 at_bound,
    output wire                 idle
);
    localparam MAX_SGE   = `QPNIC_MAX_SGE;
    localparam SGE_WORDS = `QPNIC_SGE_WORDS;
    localparam WQE_BYTES = `QPNIC_WQE_BYTES;
    localparam [4:0] WQE_WORDS_5 = `QPNIC_WQE_WORDS;
    localparam [3:0] LAST_WQE_WORD = WQE_WORDS_5[3:0] - 4'd1;  // 16 - 1 in 4 bits
    // header word positions: LRH, BTH, then RETH (requests) or AETH (responses)
    localparam LRH_AT = 0;
    localparam BTH_AT = LRH_AT + `QPNIC_LRH_WORDS;
    localparam EXT_AT = BTH_AT + `QPNIC_BTH_WORDS;
    localparam [3:0] HDR_PLAIN  = EXT_AT;                      // LRH + BTH
    localparam [3:0] HDR_RETH   = EXT_AT + `QPNIC_RETH_WORDS;  // + RETH
    localparam [3:0] HDR_IETH   = EXT_AT + `QPNIC_IETH_WORDS;  // + IETH
    localparam [3:0] RESP_WORDS = EXT_AT + `QPNIC_AETH_WORDS;  // + AETH

    localparam [4:0] S_HDR      = 5'd0,   // take the request's header words
                     S_DISPATCH = 5'd1,   // decide what the packet gets
                     S_RQ_REQ   = 5'd2,   // DMA read of the RQ WQE
                     S_RQ_DATA  = 5'd3,   // its 16 words
                     S_RQ_CHECK = 5'd4,   // opcode, nsge, then SGEs to the check port
                     S_DATA     = 5'd5,   // scatter or drop the payload
                     S_SCAT     = 5'd6,   // scatter running
                     S_DRAIN    = 5'd7,   // drop the payload up to last
                     S_CQE      = 5'd8,   // RQ CQE request
                     S_RQINC    = 5'd9,   // RQ_CI_INC
                     S_RESP     = 5'd10,  // response header words
                     S_GSTART   = 5'd11,  // start the READ's gather
                     S_GDATA    = 5'd12,  // READ data onto the port
                     S_RWAIT    = 5'd13,  // READ: wait for its header to go out
                     S_FL_ASK   = 5'd14,  // flush: RQ_FLUSH for QP dq
                     S_FL_WAIT  = 5'd15,  // its answer: a receive to flush, or none
                     S_INVAL    = 5'd16,  // SEND_ONLY_INV: the IETH's token invalidated
                     S_RNR      = 5'd17,  // RSP_RNR: the QP waits for that SEND again
                     S_RDADV    = 5'd18;  // RSP_READ: a READ's response packets take their PSNs

    reg [4:0]    state;
    reg          inv_sent;     // S_INVAL: its check went out
    localparam   HDR_SLOTS = HDR_RETH;   // the longest request header
    reg [32*HDR_SLOTS-1:0] hdr; // request header, word w at [32w +: 32]
    integer      wj;           // a word's slot (hdr, rqwqe)
    reg [3:0]    hdr_i;
    reg          has_payload;  // beats follow the header
    reg [QW-1:0] dq;           // destination QP (meaningful when ctx_valid)
    // its context, as the READ found it
    reg          ctx_valid;    // the READ was answered for this packet
    reg [`QPNIC_QP_STATE_BITS-1:0] ctx_state;
    reg [63:0]   ctx_rq_base;
    reg [4:0]    ctx_rq_log;
    reg [`QPNIC_INDEX_BITS-1:0] ctx_rq_pi, ctx_rq_ci;
    reg [`QPNIC_CQN_BITS-1:0] ctx_rcq;
    reg [23:0]   ctx_remote;
    reg [`QPNIC_QP_NUM_GEN_WIDTH-1:0] ctx_gen;
    reg [`QPNIC_PD_BITS-1:0] ctx_pd;   // every check names the QP's PD
    reg [23:0]   ctx_epsn;     // the PSN it expects next (as it was before RSP_SEQ)
    reg          ctx_rsp_rnr;  // it refused a SEND for want of a receive (rsp_rnr)
    reg [`QPNIC_PEER_BITS-1:0] ctx_peer;   // its connected QP's NIC
    reg          ctx_nak_sent; // the gap at epsn has had its NAK (nak_sent, before RSP_SEQ)
    reg          resp_quiet;   // no answer: a request in a gap whose NAK went out
    reg          resp_epsn;    // the answer names epsn, not the request's PSN (a gap's NAK)
    reg          dq_in;        // the destination QP's index is below NUM_QP
    reg          reth_late;    // the RETH's check waits for the context (its PD)
    reg          tq_busy;      // a table request is up (until granted)
    reg          tq_wait;      // the READ's answer is awaited
    reg          flushing;     // S_CQE completes a flushed receive
    // The whole RQ WQE, word w at [32w +: 32]; words 1-3 (rtoken, rva) mean
    // nothing for a RECV and are not looked at.
    /* verilator lint_off UNUSEDSIGNAL */
    reg [511:0]  rqwqe;
    /* verilator lint_on UNUSEDSIGNAL */
    reg [3:0]    rq_word;
    reg          sge_phase;    // S_RQ_CHECK: opcode and nsge passed, SGEs in check
    reg          reth_chk;     // the RETH's check is out; S_DISPATCH waits
    // segments: the RQ WQE's checked SGEs (a receive's), or the RETH's one
    // (a WRITE's, a READ's: reth_dev is its checked device address)
    reg [63:0]   reth_dev;
    wire         sg_busy, sg_done, sg_fail;
    wire [33:0]  sge_sum;
    wire [MAX_SGE*64-1:0] sg_addr;
    wire [MAX_SGE*32-1:0] sg_len;
    reg [31:0]   scat_total;   // bytes to write
    reg          need_cqe;     // an RQ WQE was consumed
    reg [7:0]    rq_status;
    reg [7:0]    syn;          // AETH syndrome of the response
    reg          read_resp;    // answer with READ_RESPONSE_* + data
    // the response emitter: the header fields it sends, latched
    reg          r_busy;       // header words still to send
    reg [2:0]    r_i;          // next word
    reg [7:0]    r_syn;
    reg [23:0]   r_psn;
    reg [23:0]   r_dqp;
    reg [`QPNIC_PEER_BITS-1:0] r_peer;   // where the request came from (LRH peer)
    reg [31:0]   r_len;        // payload bytes (READ)
    reg [7:0]    r_op;         // its opcode: ACK, or a READ_RESPONSE_*
    // a READ's response segmented on the wire
    reg [31:0]   rr_left;      // bytes after the packet being sent
    wire         r_read  = (r_op != `QPNIC_IB_OPCODE_ACK);   // READ_RESPONSE_* (else ACK)
    wire         rr_more = SEGS && (rr_left != 32'd0);      // packets of the response follow
    // a packet after the response's first: its gather already runs
    wire         rr_going = (r_op == `QPNIC_IB_OPCODE_READ_RESPONSE_MIDDLE) ||
                            (r_op == `QPNIC_IB_OPCODE_READ_RESPONSE_LAST);
    wire [31:0]  mtu_b   = 32'd1 << path_mtu;                   // the path MTU in bytes
    // what the packet does to its QP's message state (at S_RESP)
    localparam [1:0] M_KEEP = 2'd0, M_WRITE = 2'd1, M_SEND = 2'd2, M_CLEAR = 2'd3;
    reg [1:0]    m_take;

    // --- request header fields ---
    // Whole words are taken so that each field comes out through its layout
    // macro; the bits of a word that belong to other fields are unused here.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] h_lrh  = hdr[32*(LRH_AT + `QPNIC_LRH_PAYLOAD_BYTES_WORD) +: 32];
    wire [31:0] h_peer = WIRE != 0 ? hdr[32*(LRH_AT + `QPNIC_LRH_PEER_WORD) +: 32] : 32'd0;
    wire [31:0] h_op   = hdr[32*(BTH_AT + `QPNIC_BTH_OPCODE_WORD) +: 32];
    wire [31:0] h_se   = hdr[32*(BTH_AT + `QPNIC_BTH_SE_WORD) +: 32];
    wire [31:0] h_dqp  = hdr[32*(BTH_AT + `QPNIC_BTH_DEST_QP_WORD) +: 32];
    wire [31:0] h_psn  = hdr[32*(BTH_AT + `QPNIC_BTH_PSN_WORD) +: 32];
    wire [31:0] h_dlen = hdr[32*(EXT_AT + `QPNIC_RETH_DMA_LEN_WORD) +: 32];
    wire [31:0] h_ieth = hdr[32*(EXT_AT + `QPNIC_IETH_RKEY_WORD) +: 32];
    // The RETH's words as they are in the cycle its last word arrives, when
    // its check goes out: that word is in_data, the ones before it are in
    // hdr. The responder's packets are the requester's, whose headers are
    // always whole (a RETH, then its payload or last), so only the RETH's
    // last word needs in_data, and the BTH (the opcode) is in hdr by then.
    localparam [3:0] VAHI_AT = EXT_AT + `QPNIC_RETH_VA_HI_WORD;
    localparam [3:0] VALO_AT = EXT_AT + `QPNIC_RETH_VA_LO_WORD;
    localparam [3:0] RKEY_AT = EXT_AT + `QPNIC_RETH_RKEY_WORD;
    localparam [3:0] DLEN_AT = EXT_AT + `QPNIC_RETH_DMA_LEN_WORD;
    localparam [3:0] RETH_LAST = HDR_RETH - 4'd1;
    wire [31:0] n_vahi = (VAHI_AT == RETH_LAST && hdr_i == VAHI_AT) ? in_data : hdr[32*VAHI_AT +: 32];
    wire [31:0] n_valo = (VALO_AT == RETH_LAST && hdr_i == VALO_AT) ? in_data : hdr[32*VALO_AT +: 32];
    wire [31:0] n_rkey = (RKEY_AT == RETH_LAST && hdr_i == RKEY_AT) ? in_data : hdr[32*RKEY_AT +: 32];
    wire [31:0] n_dlen = (DLEN_AT == RETH_LAST && hdr_i == DLEN_AT) ? in_data : hdr[32*DLEN_AT +: 32];
    wire [31:0] rq_w0  = rqwqe[32*`QPNIC_WQE_OPCODE_WORD +: 32];
    wire [31:0] rq_w0n = rqwqe[32*`QPNIC_WQE_NSGE_WORD +: 32];
    /* verilator lint_on UNUSEDSIGNAL */
    wire [31:0] payload  = h_lrh[`QPNIC_LRH_PAYLOAD_BYTES];
    wire [7:0]  opcode   = h_op[`QPNIC_BTH_OPCODE];
    wire        se       = h_se[`QPNIC_BTH_SE];
    wire [23:0] req_psn  = h_psn[`QPNIC_BTH_PSN];
    wire [31:0] reth_len = h_dlen[`QPNIC_RETH_DMA_LEN];

    // The opcodes: a message in one packet (ONLY), or segmented on the wire
    // (FIRST, MIDDLE, LAST; a build without the wire knows only ONLY, and
    // the message state below folds away)
    localparam SEGS = (WIRE != 0);
    wire op_s_only  = (opcode == `QPNIC_IB_OPCODE_SEND_ONLY);
    wire op_si_only = (opcode == `QPNIC_IB_OPCODE_SEND_ONLY_INV);
    wire op_w_only  = (opcode == `QPNIC_IB_OPCODE_WRITE_ONLY);
    wire op_s_first = SEGS && (opcode == `QPNIC_IB_OPCODE_SEND_FIRST);
    wire op_s_mid   = SEGS && (opcode == `QPNIC_IB_OPCODE_SEND_MIDDLE);
    wire op_s_last  = SEGS && (opcode == `QPNIC_IB_OPCODE_SEND_LAST);
    wire op_si_last = SEGS && (opcode == `QPNIC_IB_OPCODE_SEND_LAST_INV);
    wire op_w_first = SEGS && (opcode == `QPNIC_IB_OPCODE_WRITE_FIRST);
    wire op_w_mid   = SEGS && (opcode == `QPNIC_IB_OPCODE_WRITE_MIDDLE);
    wire op_w_last  = SEGS && (opcode == `QPNIC_IB_OPCODE_WRITE_LAST);
    wire is_send  = op_s_only || op_s_first || op_s_mid || op_s_last;   // any SEND packet but an invalidating one's end
    wire is_write = op_w_only || op_w_first || op_w_mid || op_w_last;   // any WRITE packet
    wire is_read  = (opcode == `QPNIC_IB_OPCODE_READ_REQUEST);
    wire is_sinv  = op_si_only || op_si_last;   // a SEND's last packet that invalidates
    // the packet begins its message (FIRST, ONLY, a READ), ends it (LAST, ONLY, a READ)
    wire p_first  = !(op_s_mid || op_s_last || op_si_last || op_w_mid || op_w_last);
    wire p_last   = !(op_s_first || op_s_mid || op_w_first || op_w_mid);
    wire [31:0] inv_rkey = h_ieth[`QPNIC_IETH_RKEY];
    // the request came over the wire: from another NIC, or any with wire_all
    wire        over_wire = wire_all || h_peer[`QPNIC_LRH_PEER] != 0;
    // A READ's response on the wire goes in packets of the path MTU; one of
    // more than 65,536 packets (16 MiB at 256 bytes) is refused, as the
    // requester refuses such a message (its PSN request cannot count them)
    wire        rd_seg = SEGS && over_wire;
    wire [33:0] rd_max = 34'd1 << ({30'd0, path_mtu} + 34'd16);
    wire read_too_big = is_read && rd_seg && {2'b00, reth_len} > rd_max;
    // its packets less one
    wire [31:0] rd_less = reth_len - 32'd1;
    wire [31:0] rd_pkts = rd_less >> path_mtu;
    wire        rd_multi = is_read && rd_seg && reth_len != 32'd0 && rd_pkts != 32'd0;

    // Header length: LRH + BTH, plus a RETH (a WRITE's first packet, a
    // READ) or an IETH. Compared only once the BTH is in (the LRH + BTH
    // count is past the BTH).
    wire [3:0] hdr_words = ((is_write && p_first) || is_read) ? HDR_RETH : is_sinv ? HDR_IETH : HDR_PLAIN;
    wire        ackreq   = h_psn[`QPNIC_BTH_ACKREQ];   // the initiator wants this packet answered

    // --- each QP's message in progress (a segmented WRITE or SEND) ---
    // A MIDDLE or LAST packet goes on from where its message's packet
    // before it ended, so each QP keeps, between packets: that a message
    // is in progress (m_on) and of which kind (m_send), the PSN its next
    // packet carries (m_psn), and for a WRITE its next virtual address
    // and remote token (m_va, m_rkey) and the bytes left of its RETH
    // length (m_left), for a SEND the bytes its receive took so far
    // (m_left too). Written at S_RESP, read by dq as the packet arrives.
    localparam MW = 1 + 1 + 24 + 64 + 32 + 32;
    wire [MW-1:0] m_word;
    wire          m_on   = m_word[MW-1];
    wire          m_send = m_word[MW-2];
    wire [23:0]   m_psn  = m_word[128 +: 24];
    wire [63:0]   m_va   = m_word[64 +: 64];
    wire [31:0]   m_rkey = m_word[32 +: 32];
    wire [31:0]   m_left = m_word[0 +: 32];
    reg           m_we;
    reg  [MW-1:0] m_wd;
    generate if (SEGS) begin : g_msg
        // (the on bits reset; the rest means nothing while its bit is off)
        reg [MW-2:0]     msg [0:NUM_QP-1];
        reg [NUM_QP-1:0] ons;
        always @(posedge clk)
            if (m_we) msg[dq] <= m_wd[MW-2:0];
        always @(posedge clk)
            if (rst)       ons     <= {NUM_QP{1'b0}};
            else if (m_we) ons[dq] <= m_wd[MW-1];
        assign m_word = {ons[dq], msg[dq]};
    end else begin : g_no_msg
        assign m_word = {MW{1'b0}};
        wire unused_m = &{1'b0, m_we, m_wd};
    end endgenerate
    // The packet against its message (requests taken in PSN order): a
    // MIDDLE or LAST continues a message of its kind at its PSN, and a
    // WRITE's fits its RETH's length (a MIDDLE short of it, a LAST
    // exactly); a WRITE's FIRST leaves some of it for later. (A FIRST or
    // ONLY always begins a new one: a message abandoned by its initiator,
    // whose QP failed or was reset, leaves its state behind.) Else
    // NAK_INV_REQ, and the QP takes nothing more (as after NAK_REM_ACC).
    // A FIRST or MIDDLE carries exactly the path MTU: one of another
    // length comes from a NIC with another path MTU, whose READs this one
    // would answer in more packets than it counted PSNs for.
    wire mtu_bad = !p_last && payload != mtu_b;
    wire seq_bad = SEGS && (is_send || is_sinv || is_write) && (mtu_bad ||
                   (p_first ? (op_w_first && (payload == 32'd0 || payload >= reth_len)) :
                    (!m_on || m_send != !is_write || m_psn != req_psn || payload == 32'd0 ||
                     (is_write && (p_last ? payload != m_left : payload >= m_left)))));
    // a SEND's packet lands this far into its receive
    wire [31:0] m_off = (SEGS && !p_first) ? m_left : 32'd0;

    // --- destination QP ---
    // READ as the dest_qp word arrives, if that QP exists
    localparam [3:0] DQP_AT = BTH_AT + `QPNIC_BTH_DEST_QP_WORD;
    localparam [3:0] PSN_AT = BTH_AT + `QPNIC_BTH_PSN_WORD;
    // a QP number's two fields (struct qp_num): the index picks the table
    // entry as the word arrives, the generation is compared with the
    // entry's once its context is in
    /* verilator lint_off UNUSEDSIGNAL */
    wire [23:0] in_dqp   = in_data[`QPNIC_BTH_DEST_QP];
    wire [23:0] pkt_dqp  = h_dqp[`QPNIC_BTH_DEST_QP];
    /* verilator lint_on UNUSEDSIGNAL */
    wire [`QPNIC_QP_NUM_INDEX_WIDTH-1:0] in_dqp_idx = in_dqp[`QPNIC_QP_NUM_INDEX];
    wire [`QPNIC_QP_NUM_GEN_WIDTH-1:0] pkt_gen = pkt_dqp[`QPNIC_QP_NUM_GEN];
    wire        dqp_word = (state == S_HDR) && in_valid && hdr_i == DQP_AT;
    wire        psn_word = (state == S_HDR) && in_valid && hdr_i == PSN_AT;
    assign tq_req_valid = tq_busy;
    // a receive completed in error takes its QP to ERROR with it
    assign tq_req_op    = (state == S_RQINC)   ? (rq_status == `QPNIC_CQE_STATUS_SUCCESS ?
                                                  `QPNIC_QP_OP_RQ_CI_INC : `QPNIC_QP_OP_RQ_CI_ERR) :
                          (state == S_FL_ASK) ? `QPNIC_QP_OP_RQ_FLUSH :
                          (state == S_RNR)    ? `QPNIC_QP_OP_RSP_RNR :
                          (state == S_RDADV)  ? `QPNIC_QP_OP_RSP_READ : `QPNIC_QP_OP_RSP_SEQ;
    assign tq_req_qpn   = dq;
    // RSP_SEQ: the PSN, and whether the request executes as it is taken (a
    // WRITE or READ; a SEND once its receive is consumed); RSP_RNR: the
    // PSN (the others ignore the argument)
    // (bit 25: it came over the wire, where a gap gets one NAK: nak_sent;
    // bits 27:26 the NIC it came from: the table moves nothing for a
    // request the QP does not take from there)
    // (a SEND's FIRST and MIDDLE too: only its last consumes the receive;
    // RSP_READ's argument: the PSN after a READ's response packets)
    assign tq_req_arg   = (state == S_RDADV) ? {8'd0, req_psn + rd_pkts[23:0] + 24'd1} :
                          {4'd0, h_peer[`QPNIC_LRH_PEER], over_wire,
                           is_write || is_read || (is_send && !p_last), req_psn};
    wire   tq_grant     = tq_busy && tq_req_ready;
    wire   ctx_wait     = tq_busy || tq_wait;

    // (a connected QP takes requests from its peer's NIC only: another NIC
    // in the peer table naming it is refused as if it had no such QP)
    wire        dq_rts  = ctx_valid && (ctx_state == `QPNIC_QP_STATE_RTS) && (ctx_gen == pkt_gen) &&
                          (ctx_peer == h_peer[`QPNIC_LRH_PEER]);
    // The request's PSN against the QP's expected one (24-bit sequence
    // arithmetic, as InfiniBand's): behind it by 1 .. 2^23 - 1 is a
    // duplicate (acknowledged again, not executed again; a READ is answered
    // again), anything else but equal is ahead: refused with NAK_PSN_SEQ
    // (after an RNR NAK, every request but that SEND is ahead)
    wire [23:0] psn_behind = ctx_epsn - req_psn;
    wire        dup      = (psn_behind != 24'd0) && !psn_behind[23];
    wire        seq_drop = (psn_behind != 24'd0) && psn_behind[23];
    // Over the wire (from another NIC, or any with wire_all) a request
    // ahead of epsn outside the RNR rule means a gap: a request lost or
    // overtaken. The first gets NAK_PSN_SEQ naming epsn, which sends the
    // initiator back at once (go-back-N); the rest are dropped unanswered
    // until epsn moves (rxe's sent_psn_nak). After an RNR NAK every request
    // ahead is NAKed with its own PSN on the loopback (whose initiator
    // waits for each answer), and dropped unanswered over the wire.
    wire        seq_gap   = seq_drop && over_wire && !ctx_rsp_rnr;
    // the flush queue is popped at a packet boundary, before a next word
    wire        fl_go   = (state == S_HDR) && (hdr_i == 4'd0) && fl_valid && !tq_busy && !tq_wait;
    assign fl_ready = fl_go;
    // RQ_FLUSH's answer: the table claimed the receive at its rq_ci
    wire [`QPNIC_INDEX_BITS-1:0] rsp_rq_pi = tq_rsp_ctx[`QPNIC_QP_CTX_RQ_PI_FLAT];
    wire [`QPNIC_INDEX_BITS-1:0] rsp_rq_ci = tq_rsp_ctx[`QPNIC_QP_CTX_RQ_CI_FLAT];
    wire        fl_claimed = (tq_rsp_ctx[`QPNIC_QP_CTX_STATE_FLAT] == `QPNIC_QP_STATE_ERROR) &&
                             (rsp_rq_ci != rsp_rq_pi);
    wire [`QPNIC_INDEX_BITS-1:0] rq_ci   = ctx_rq_ci;
    wire [`QPNIC_INDEX_BITS-1:0] rq_mask = {`QPNIC_INDEX_BITS{1'b1}} >> (`QPNIC_INDEX_BITS - ctx_rq_log);
    wire [63:0] rq_addr = ctx_rq_base + {42'd0, rq_ci & rq_mask, 6'd0};
    // The read request takes it from a register: S_DISPATCH decides only
    // with the context in (!ctx_wait), so the address is settled the cycle
    // before S_RQ_REQ, and the shift and 64-bit add are not on the path into
    // the read arbiter (docs/synthesis.md, run 45).
    reg  [63:0] rq_addr_r;
    always @(posedge clk) rq_addr_r <= rq_addr;

    // --- RQ WQE fields ---
    wire [7:0]  rq_opcode = rq_w0[`QPNIC_WQE_OPCODE];
    wire [3:0]  rq_nsge   = rq_w0n[`QPNIC_WQE_NSGE];
    // --- the check port: the RETH as its last word arrives, else RQ SGEs ---
    wire hdr_done  = (state == S_HDR) && in_valid && (in_last || hdr_i == hdr_words - 4'd1);
    // The RETH's check names the QP's PD, which comes with its context: it
    // goes out as the last header word arrives when the context is in (the
    // usual case: the READ went out at the dest_qp word), else from
    // S_DISPATCH once it is.
    wire reth_want = hdr_done && (is_write || is_read);
    // (a WRITE's MIDDLE or LAST has no RETH: its header ends with the PSN
    // word, whose RSP_SEQ is only now going out: its check waits for that
    // context like a late one, so that the dispatch has the context when
    // the check's one answer comes)
    wire ctx_soon  = psn_word && dq_in;
    wire reth_now  = reth_want && !ctx_wait && !ctx_soon;
    wire reth_late_iss = (state == S_DISPATCH) && reth_late && !ctx_wait;
    wire reth_iss  = reth_now || reth_late_iss;
    wire        sg_chk_valid;
    wire [31:0] sg_chk_token, sg_chk_len;
    wire [63:0] sg_chk_va;
    wire [2:0]  sg_chk_need;
    qpnic_sge_check u_sge (
        .clk(clk), .rst(rst),
        .start(state == S_RQ_CHECK && !sge_phase && rq_opcode == `QPNIC_WQE_OP_RECV &&
               rq_nsge <= MAX_SGE),
        .sges(rqwqe[32*`QPNIC_WQE_SGE_WORD +: 32*SGE_WORDS*MAX_SGE]),
        .nsge(rq_nsge), .need(`QPNIC_MR_ACCESS_LOCAL_WRITE),
        .busy(sg_busy), .done(sg_done), .fail(sg_fail), .total(sge_sum),
        .ld_valid(1'b0), .ld_i({($clog2(MAX_SGE + 1)){1'b0}}), .ld_addr(64'd0), .ld_len(32'd0),
        .seg_addr(sg_addr), .seg_len(sg_len),
        .chk_valid(sg_chk_valid), .chk_token(sg_chk_token), .chk_va(sg_chk_va),
        .chk_len(sg_chk_len), .chk_need(sg_chk_need),
        .res_valid(res_valid), .res_ok(res_ok), .res_dev(res_dev));
    // the three never overlap: SGE checks run only in S_RQ_CHECK, the
    // invalidate only in S_INVAL
    wire inv_iss = (state == S_INVAL) && !inv_sent;
    assign chk_valid  = reth_iss || sg_chk_valid || inv_iss;
    assign chk_inval  = inv_iss;
    assign chk_pd     = ctx_pd;
    // (a WRITE's MIDDLE or LAST has no RETH: its message's token and next
    // address, for its payload)
    wire   chk_reth   = p_first || !SEGS;
    assign chk_token  = sg_busy ? sg_chk_token : inv_iss ? inv_rkey :
                        chk_reth ? n_rkey[`QPNIC_RETH_RKEY] : m_rkey;
    assign chk_va     = sg_busy ? sg_chk_va :
                        chk_reth ? {n_vahi[`QPNIC_RETH_VA_HI], n_valo[`QPNIC_RETH_VA_LO]} : m_va;
    assign chk_len    = sg_busy ? sg_chk_len : chk_reth ? n_dlen[`QPNIC_RETH_DMA_LEN] : payload;
    assign chk_remote = !sg_busy;
    assign chk_need   = sg_busy ? sg_chk_need :
                        is_write ? `QPNIC_MR_ACCESS_REMOTE_WRITE : `QPNIC_MR_ACCESS_REMOTE_READ;
    // S_DISPATCH acts in the cycle the RETH's answer arrives. The check goes
    // out only once the destination QP's context is in (reth_now, or
    // reth_late from S_DISPATCH), and no table request follows it, so the
    // dispatch never waits for the context when the answer's one pulse
    // comes: the answer needs no holding register.
    wire reth_wait = reth_late || (reth_chk && !res_valid);
    // the bytes the check covered: the RETH's, or a MIDDLE's or LAST's payload
    wire [31:0] c_span = (SEGS && !p_first) ? payload : reth_len;
    wire reth_ok   = (c_span == 32'd0) || res_ok;
    wire [63:0] mr_dev = res_dev;

    // --- scatter (write master) and gather (READ data) ---
    // A WRITE with an accepted, non-empty payload starts the scatter from
    // S_DISPATCH, with the checked RETH as its one segment; a receive's
    // payload starts it from S_DATA, with the checked SGEs. The scatter is
    // idle whenever the FSM is outside S_SCAT (S_SCAT waits for its done),
    // so a WRITE never needs the second way: S_DATA drains the payload of
    // any other WRITE (none, empty, or refused).
    wire        s_start_ready, s_done, s_idle;
    wire        s_in_ready;
    // w_total, the bytes a WRITE puts down, is registered while S_DISPATCH
    // waits for the RETH's check (at least three cycles, the header
    // complete from the first), so neither its comparison nor its test for
    // zero sits on the path from the check's answer to the scatter's start.
    reg  [31:0] w_total;
    reg         w_total_nz;
    always @(posedge clk) begin
        w_total    <= (payload < c_span) ? payload : c_span;
        w_total_nz <= (payload != 32'd0) && (c_span != 32'd0);
    end
    wire        w_fast    = (state == S_DISPATCH) && !reth_wait && !ctx_wait && dq_rts && !seq_drop && !dup &&
                            is_write && reth_ok && !seq_bad &&
                            has_payload && w_total_nz && s_start_ready;
    // Its one segment is segment 0; the later ones are the SGE check's as
    // they are, not zeros: the scatter never reaches them, since w_total <=
    // reth_len (its bytes run out with segment 0 at the latest), so segment
    // 0 alone needs a multiplexer.
    wire [MAX_SGE*64-1:0] wf_addr = {sg_addr[MAX_SGE*64-1:64], mr_dev};
    wire [MAX_SGE*32-1:0] wf_len  = {sg_len[MAX_SGE*32-1:32], c_span};
    // A SEND's packet after its first lands m_off bytes into its receive's
    // SGEs (a build without the wire: no skip, folded away)
    wire [MAX_SGE*64-1:0] sk_addr;
    wire [MAX_SGE*32-1:0] sk_len;
    qpnic_sge_skip #(.ON(SEGS)) u_skip (
        .in_addr(sg_addr), .in_len(sg_len), .skip(m_off),
        .out_addr(sk_addr), .out_len(sk_len));
    qpnic_scatter u_scatter (
        .clk(clk), .rst(rst),
        .start_valid(w_fast || (state == S_DATA && scat_total != 32'd0 && has_payload)),
        .start_ready(s_start_ready),
        .start_addr(w_fast ? wf_addr : sk_addr),
        .start_len(w_fast ? wf_len : sk_len),
        .start_total(w_fast ? w_total : scat_total),
        .in_valid(in_valid && state == S_SCAT), .in_ready(s_in_ready),
        .in_data(in_data), .in_keep(in_keep), .in_last(in_last),
        .wr_req_valid(wr_req_valid), .wr_req_ready(wr_req_ready),
        .wr_req_addr(wr_req_addr), .wr_req_len(wr_req_len),
        .wr_dat_valid(wr_dat_valid), .wr_dat_ready(wr_dat_ready),
        .wr_dat_data(wr_dat_data), .wr_dat_keep(wr_dat_keep),
        .wr_dat_last(wr_dat_last), .done(s_done), .idle(s_idle));

    wire        g_start_ready, g_idle;
    wire        g_rd_req_valid, g_rd_rsp_ready;
    wire [63:0] g_rd_req_addr;
    wire [15:0] g_rd_req_len;
    wire        g_out_valid, g_out_last;
    wire [31:0] g_out_data;
    wire [3:0]  g_out_keep;
    // A READ's one segment, the RETH's; its later segments are empty.
    // Its data goes straight into the port FIFO, so the gather reads only
    // what that FIFO has room for (the deadlock rule). A segmented
    // response also puts its later packets' headers there, between the
    // data: the FIFO (OUT_DEPTH words) holds data of at most
    // OUT_DEPTH * 4 / MTU + 1 packets, whose headers join it: the gather
    // sees the FIFO that much fuller.
    localparam integer OUT_BYTES_I = OUT_DEPTH * 4;
    localparam [15:0]  OUT_BYTES   = OUT_BYTES_I[15:0];
    localparam [15:0]  RESP_W16    = {12'd0, RESP_WORDS};
    wire [15:0] hdr_room = (OUT_BYTES >> path_mtu) * RESP_W16 + RESP_W16;
    wire [15:0] g_sink = out_count + (rr_more ? hdr_room : 16'd0);
    qpnic_gather #(.SINK_WORDS(OUT_DEPTH)) u_gather (
        .clk(clk), .rst(rst),
        .start_valid(state == S_GSTART), .start_ready(g_start_ready), .start_one(1'b0), .drain(1'b0),
        .start_addr({{(MAX_SGE*64-64){1'b0}}, reth_dev}),
        .start_len({{(MAX_SGE*32-32){1'b0}}, reth_len}), .sink_count(g_sink),
        .rd_req_valid(g_rd_req_valid), .rd_req_ready(rd_req_ready),
        .rd_req_addr(g_rd_req_addr), .rd_req_len(g_rd_req_len),
        .rd_rsp_valid(rd_rsp_valid), .rd_rsp_ready(g_rd_rsp_ready),
        .rd_rsp_data(rd_rsp_data), .rd_rsp_keep(rd_rsp_keep),
        .rd_rsp_last(rd_rsp_last),
        .out_valid(g_out_valid), .out_ready(g_out_ready),
        .out_data(g_out_data), .out_keep(g_out_keep), .out_last(g_out_last),
        .idle(g_idle));
    // ... cut into the response's packets on the wire (r_len each)
    wire        g_out_ready;
    wire        gp_valid, gp_last, gp_idle;
    wire [31:0] gp_data;
    wire [3:0]  gp_keep;
    wire        gp_ready = out_ready && state == S_GDATA;
    qpnic_pkt_split #(.ON(SEGS)) u_split (
        .clk(clk), .rst(rst), .pkt_len(r_len),
        .in_valid(g_out_valid), .in_ready(g_out_ready), .in_data(g_out_data),
        .in_keep(g_out_keep), .in_last(g_out_last),
        .out_valid(gp_valid), .out_ready(gp_ready), .out_data(gp_data),
        .out_keep(gp_keep), .out_last(gp_last), .idle(gp_idle));

    // --- read master: the RQ WQE read, else the gather ---
    // Both read with the master's one tag, whose reads the carrier answers
    // in order: the RQ WQE read waits until no read of the gather is in
    // flight (g_idle), so its data is its own.
    always @* begin
        if (state == S_RQ_REQ || state == S_RQ_DATA) begin
            rd_req_valid = (state == S_RQ_REQ) && g_idle;
            rd_req_addr  = rq_addr_r;
            rd_req_len   = WQE_BYTES[15:0];
            rd_rsp_ready = (state == S_RQ_DATA);
        end else begin
            rd_req_valid = g_rd_req_valid;
            rd_req_addr  = g_rd_req_addr;
            rd_req_len   = g_rd_req_len;
            rd_rsp_ready = g_rd_rsp_ready;
        end
    end

    // --- the response header: ACK, or READ_RESPONSE_* with the data ---
    // Built from the emitter's latched fields (S_RESP latches them; a
    // segmented READ's later packets, S_GDATA). A READ_RESPONSE_MIDDLE has
    // no AETH.
    wire [31:0] resp_payload = r_read ? r_len : 32'd0;
    wire        r_aeth = (r_op != `QPNIC_IB_OPCODE_READ_RESPONSE_MIDDLE);
    // Word r_i of it, built on its own (one word a cycle goes out).
    reg [31:0] resp_word;
    always @* begin
        resp_word = 32'd0;
        case ({1'b0, r_i})
        LRH_AT + `QPNIC_LRH_PEER_WORD:
            resp_word[`QPNIC_LRH_PEER] = r_peer;
        LRH_AT + `QPNIC_LRH_PAYLOAD_BYTES_WORD:
            resp_word[`QPNIC_LRH_PAYLOAD_BYTES] = resp_payload;
        BTH_AT + `QPNIC_BTH_OPCODE_WORD: begin   // opcode and pkey share it
            resp_word[`QPNIC_BTH_OPCODE] = r_op;
            resp_word[`QPNIC_BTH_PKEY]   = 16'hFFFF;
        end
        BTH_AT + `QPNIC_BTH_DEST_QP_WORD: resp_word[`QPNIC_BTH_DEST_QP] = r_dqp;
        BTH_AT + `QPNIC_BTH_PSN_WORD:     resp_word[`QPNIC_BTH_PSN]     = r_psn;
        EXT_AT + `QPNIC_AETH_SYNDROME_WORD: begin   // syndrome and msn share it
            resp_word[`QPNIC_AETH_SYNDROME] = r_syn;
            resp_word[`QPNIC_AETH_MSN]      = r_psn;
        end
        default: ;
        endcase
    end
    localparam [2:0] RESP_LAST = RESP_WORDS[2:0] - 3'd1;
    wire resp_final = (r_i == (r_aeth ? RESP_LAST : RESP_LAST - 3'd1));

    // The emitter has the port while it sends; the READ's data (S_GDATA)
    // comes only after it has finished.
    always @* begin
        out_valid = 1'b0;
        out_data  = 32'd0;
        out_keep  = 4'd0;
        out_last  = 1'b0;
        if (r_busy) begin
            out_valid = 1'b1;
            out_data  = resp_word;
            out_keep  = 4'hF;
            out_last  = resp_final && (resp_payload == 32'd0);
        end else if (state == S_GDATA) begin
            out_valid = gp_valid;
            out_data  = gp_data;
            out_keep  = gp_keep;
            out_last  = gp_last;
        end
    end

    always @* begin
        case (state)
        S_HDR:          in_ready = !fl_go;
        S_DRAIN:        in_ready = 1'b1;
        S_SCAT:         in_ready = s_in_ready;
        default:        in_ready = 1'b0;
        endcase
    end

    // --- the RQ CQE ---
    // C2-C4: a receive that invalidated says so, with the token
    wire cqe_inv = is_sinv && !flushing && rq_status == `QPNIC_CQE_STATUS_SUCCESS;
    qpnic_cqe_pack u_cqe (
        .byte_count(flushing ? 32'd0 : m_off + payload),   // the message's bytes
        .qp_index({{(`QPNIC_QP_NUM_INDEX_WIDTH-QW){1'b0}}, dq}), .qp_gen(ctx_gen),
        .wqe_index(rq_ci), .inv_token(cqe_inv ? inv_rkey : 32'd0),
        .cqe_type(cqe_inv ? `QPNIC_CQE_TYPE_RECEIVE_AND_INVALIDATE : `QPNIC_CQE_TYPE_RECEIVE),
        .status(rq_status), .solicited(se && !flushing), // N7
        .cqe(cqe_data));
    assign cqe_valid = (state == S_CQE);
    assign cqe_cqn   = ctx_rcq;

    assign cnt_rq_fetch    = (state == S_RQ_REQ) && rd_req_valid && rd_req_ready;
    assign cnt_drop        = (state == S_DISPATCH) && !reth_wait && !ctx_wait &&
                             (!dq_rts || read_too_big || (!seq_drop && !dup && seq_bad));
    assign cnt_dup         = (state == S_DISPATCH) && !reth_late_iss && !reth_wait && !ctx_wait && dq_rts &&
                             (is_send || is_sinv || is_write || is_read) && dup;

    assign at_bound = (state == S_HDR) && (hdr_i == 4'd0);
    assign idle = (state == S_HDR) && (hdr_i == 4'd0) && s_idle && g_idle && gp_idle && !r_busy && !fl_valid;

    // The message state the packet leaves (written as S_RESP hands its
    // answer over, or drops it)
    wire        resp_leave = (state == S_RESP) && (resp_quiet || !r_busy);
    wire [63:0] w_va_at    = chk_reth ? {n_vahi[`QPNIC_RETH_VA_HI], n_valo[`QPNIC_RETH_VA_LO]} : m_va;
    wire [31:0] w_left_at  = chk_reth ? reth_len : m_left;
    always @* begin
        m_we = resp_leave && m_take != M_KEEP;
        m_wd = m_word;
        case (m_take)
        M_WRITE: m_wd = {!p_last, 1'b0, req_psn + 24'd1, w_va_at + {32'd0, payload},
                         chk_reth ? n_rkey[`QPNIC_RETH_RKEY] : m_rkey, w_left_at - payload};
        M_SEND:  m_wd = {!p_last && rq_status == `QPNIC_CQE_STATUS_SUCCESS, 1'b1, req_psn + 24'd1,
                         64'd0, 32'd0, m_off + payload};
        M_CLEAR: m_wd[MW-1] = 1'b0;
        default: ;
        endcase
    end

    // the receive's bytes from this packet's on (past the packets before it)
    wire [33:0] rq_room  = (sge_sum > {2'b00, m_off}) ? sge_sum - {2'b00, m_off} : 34'd0;
    wire [33:0] payload34 = {2'b00, payload};
    // once the data has moved: a SEND_ONLY_INV (or _LAST_INV) whose receive
    // succeeded invalidates, then the RQ CQE (if a receive was consumed:
    // by a SEND's last packet, or by one that failed), the response
    wire rq_end = p_last || rq_status != `QPNIC_CQE_STATUS_SUCCESS;
    wire [4:0] after_data = (need_cqe && rq_end && is_sinv && rq_status == `QPNIC_CQE_STATUS_SUCCESS) ? S_INVAL :
                            (need_cqe && rq_end) ? S_CQE : S_RESP;

    always @(posedge clk) begin
        if (rst) begin
            state       <= S_HDR;
            hdr         <= {32*HDR_SLOTS{1'b0}};
            hdr_i       <= 4'd0;
            has_payload <= 1'b0;
            dq          <= {QW{1'b0}};
            ctx_valid   <= 1'b0;
            ctx_state   <= `QPNIC_QP_STATE_RESET;
            ctx_rq_base <= 64'd0;
            ctx_rq_log  <= 5'd0;
            ctx_rq_pi   <= 0;
            ctx_rq_ci   <= 0;
            ctx_rcq     <= 0;
            ctx_remote  <= 24'd0;
            ctx_gen     <= 0;
            ctx_pd      <= 0;
            ctx_epsn    <= 24'd0;
            ctx_rsp_rnr <= 1'b0;
            ctx_peer    <= {`QPNIC_PEER_BITS{1'b0}};
            ctx_nak_sent <= 1'b0;
            resp_quiet  <= 1'b0;
            resp_epsn   <= 1'b0;
            dq_in       <= 1'b0;
            reth_late   <= 1'b0;
            tq_busy     <= 1'b0;
            tq_wait     <= 1'b0;
            flushing    <= 1'b0;
            inv_sent    <= 1'b0;
            rqwqe       <= 512'd0;
            rq_word     <= 4'd0;
            sge_phase   <= 1'b0;
            reth_chk    <= 1'b0;
            reth_dev    <= 64'd0;
            scat_total  <= 32'd0;
            need_cqe    <= 1'b0;
            rq_status   <= `QPNIC_CQE_STATUS_SUCCESS;
            syn         <= `QPNIC_AETH_SYNDROME_ACK;
            read_resp   <= 1'b0;
            r_busy      <= 1'b0;
            r_i         <= 3'd0;
            r_syn       <= `QPNIC_AETH_SYNDROME_ACK;
            r_psn       <= 24'd0;
            r_dqp       <= 24'd0;
            r_peer      <= {`QPNIC_PEER_BITS{1'b0}};
            r_len       <= 32'd0;
            r_op        <= `QPNIC_IB_OPCODE_ACK;
            rr_left     <= 32'd0;
            m_take      <= M_KEEP;
        end else begin
            // the destination QP's context: its number as its word
            // arrives, RSP_SEQ (with the PSN) as the PSN's does, answered
            // three cycles after the grant; RQ_CI_INC in S_RQINC
            if (dqp_word) begin
                dq_in <= {{(32-`QPNIC_QP_NUM_INDEX_WIDTH){1'b0}}, in_dqp_idx} < NUM_QP;
                dq    <= in_dqp_idx[QW-1:0];
            end
            if (psn_word && dq_in) tq_busy <= 1'b1;
            // RQ_CI_INC next, or the next RQ_FLUSH
            if (state == S_CQE && cqe_ready) tq_busy <= 1'b1;
            if (fl_go) begin
                tq_busy <= 1'b1;
                dq      <= fl_qpn;
            end
            if (tq_grant) begin
                tq_busy <= 1'b0;
                tq_wait <= (state != S_RQINC) && (state != S_RNR) && (state != S_RDADV);
            end
            if (tq_wait && tq_rsp_valid) begin
                tq_wait     <= 1'b0;
                ctx_valid   <= 1'b1;
                ctx_state   <= tq_rsp_ctx[`QPNIC_QP_CTX_STATE_FLAT];
                ctx_rq_base <= {tq_rsp_ctx[`QPNIC_QP_CTX_RQ_BASE_HI_FLAT],
                                tq_rsp_ctx[`QPNIC_QP_CTX_RQ_BASE_LO_FLAT]};
                ctx_rq_log  <= tq_rsp_ctx[`QPNIC_QP_CTX_RQ_LOG_FLAT];
                ctx_rq_pi   <= tq_rsp_ctx[`QPNIC_QP_CTX_RQ_PI_FLAT];
                ctx_rq_ci   <= tq_rsp_ctx[`QPNIC_QP_CTX_RQ_CI_FLAT];
                ctx_rcq     <= tq_rsp_ctx[`QPNIC_QP_CTX_RECV_CQ_FLAT];
                ctx_remote  <= tq_rsp_ctx[`QPNIC_QP_CTX_REMOTE_QPN_FLAT];
                ctx_gen     <= tq_rsp_ctx[`QPNIC_QP_CTX_GEN_FLAT];
                ctx_pd      <= tq_rsp_ctx[`QPNIC_QP_CTX_PD_FLAT];
                ctx_epsn    <= tq_rsp_ctx[`QPNIC_QP_CTX_EPSN_FLAT];
                ctx_rsp_rnr <= tq_rsp_ctx[`QPNIC_QP_CTX_RSP_RNR_FLAT];
                ctx_peer    <= tq_rsp_ctx[`QPNIC_QP_CTX_PEER_FLAT];
                ctx_nak_sent <= tq_rsp_ctx[`QPNIC_QP_CTX_NAK_SENT_FLAT];
            end

            // the emitter: one header word a cycle while the port takes it
            if (r_busy && out_ready) begin
                r_i <= r_i + 3'd1;
                if (resp_final) r_busy <= 1'b0;
            end

            case (state)
            S_HDR:
                if (fl_go)
                    state <= S_FL_ASK;
                else if (in_valid) begin
                    // each word's slot by its own constant index: no
                    // multiplexer in front of the header's bits (Yosys
                    // builds one for a part-select by a moving index)
                    for (wj = 0; wj < HDR_SLOTS; wj = wj + 1)
                        if ({28'd0, hdr_i} == wj) hdr[32*wj +: 32] <= in_data;
                    hdr_i <= hdr_i + 4'd1;
                    if (hdr_done) begin
                        has_payload <= !in_last;
                        reth_chk    <= reth_now;
                        reth_late   <= reth_want && (ctx_wait || ctx_soon);
                        state       <= S_DISPATCH;
                    end
                end
            S_DISPATCH: if (reth_late_iss) begin
                reth_late <= 1'b0;
                reth_chk  <= 1'b1;
            end else if (!reth_wait && !ctx_wait) begin
                reth_chk   <= 1'b0;
                hdr_i      <= 4'd0;
                scat_total <= 32'd0;
                sge_phase  <= 1'b0;
                inv_sent   <= 1'b0;
                rq_word    <= 4'd0;
                need_cqe   <= 1'b0;
                read_resp  <= 1'b0;
                rq_status  <= `QPNIC_CQE_STATUS_SUCCESS;
                syn        <= `QPNIC_AETH_SYNDROME_ACK;
                resp_quiet <= 1'b0;
                resp_epsn  <= 1'b0;
                m_take     <= M_KEEP;
                state      <= S_DATA;
                if (!dq_rts || !(is_send || is_sinv || is_write || is_read) || read_too_big)
                    syn <= `QPNIC_AETH_SYNDROME_NAK_INV_REQ;
                else if (seq_drop) begin
                    syn <= `QPNIC_AETH_SYNDROME_NAK_PSN_SEQ;  // nothing executed
                    resp_epsn  <= seq_gap;
                    // (over the wire after an RNR NAK: none at all. The
                    // initiator goes back to the refused SEND and sends
                    // these again; a NAK each would name PSNs of the
                    // message it sends again, and send it back again)
                    resp_quiet <= (seq_gap && ctx_nak_sent) || (over_wire && ctx_rsp_rnr);
                end
                else if (dup && !is_read)
                    resp_quiet <= !ackreq;   // executed before: the ACK again (if asked), nothing else
                else if (seq_bad) begin
                    // out of its message's order: refused, and (as after
                    // NAK_REM_ACC) the QP takes nothing more
                    syn     <= `QPNIC_AETH_SYNDROME_NAK_INV_REQ;
                    m_take  <= M_CLEAR;
                    tq_busy <= 1'b1;
                    state   <= S_RNR;
                end
                else if (is_send || is_sinv) begin
                    // (a packet after the first: its receive is still posted)
                    if (p_first && ctx_rq_ci == ctx_rq_pi) begin
                        syn     <= `QPNIC_AETH_SYNDROME_RNR_NAK;  // nothing written
                        tq_busy <= 1'b1;                         // RSP_RNR
                        state   <= S_RNR;
                    end else begin
                        m_take     <= M_SEND;
                        resp_quiet <= !ackreq;   // a packet before the last: no ACK
                        state      <= S_RQ_REQ;
                    end
                end else if (!reth_ok) begin
                    // the initiator's QP fails with this NAK; the requests it
                    // sent behind it must not execute here either: the QP
                    // takes nothing more (RSP_RNR with this PSN, which no
                    // request will carry again) until it is reset. A READ
                    // behind epsn (a duplicate, or on the loopback a stale
                    // one's PSN - 1) only gets the NAK: the QP has taken the
                    // requests after it, and setting epsn back to its PSN
                    // would refuse the next request's
                    syn     <= `QPNIC_AETH_SYNDROME_NAK_REM_ACC;
                    if (!dup) begin
                        m_take  <= M_CLEAR;
                        tq_busy <= 1'b1;
                        state   <= S_RNR;
                    end
                end
                else begin
                    reth_dev <= mr_dev;
                    if (is_write) begin
                        m_take     <= M_WRITE;
                        resp_quiet <= !ackreq;   // a packet before the last: no ACK
                        if (w_fast) state <= S_SCAT;  // the scatter took it
                    end else begin
                        read_resp <= 1'b1;
                        // its response packets take their PSNs
                        if (rd_multi && !dup) begin
                            tq_busy <= 1'b1;
                            state   <= S_RDADV;
                        end
                    end
                end
            end
            S_RNR:
                if (tq_grant) state <= S_DATA;
            S_RDADV:
                if (tq_grant) state <= S_DATA;
            S_RQ_REQ:
                if (rd_req_valid && rd_req_ready) state <= S_RQ_DATA;
            S_RQ_DATA:
                if (rd_rsp_valid) begin
                    for (wj = 0; wj < `QPNIC_WQE_WORDS; wj = wj + 1)   // (as hdr)
                        if ({28'd0, rq_word} == wj) rqwqe[32*wj +: 32] <= rd_rsp_data;
                    rq_word <= rq_word + 4'd1;
                    if (rd_rsp_last || rq_word == LAST_WQE_WORD) begin
                        need_cqe <= 1'b1;
                        state    <= S_RQ_CHECK;
                    end
                end
            S_RQ_CHECK:
                if (!sge_phase) begin
                    if (rq_opcode != `QPNIC_WQE_OP_RECV || rq_nsge > MAX_SGE) begin
                        rq_status <= `QPNIC_CQE_STATUS_BAD_WQE;
                        syn       <= `QPNIC_AETH_SYNDROME_NAK_REM_OP;
                        resp_quiet <= 1'b0;
                        state     <= S_DATA;
                    end else
                        sge_phase <= 1'b1;
                end else begin
                    // with done, every answer is in (sge_sum included)
                    if (sg_done) begin
                        state <= S_DATA;
                        if (sg_fail) begin
                            rq_status <= `QPNIC_CQE_STATUS_LOC_PROT;
                            syn       <= `QPNIC_AETH_SYNDROME_NAK_REM_OP;
                            resp_quiet <= 1'b0;
                        end else if (payload34 > rq_room) begin
                            // write what fits, drop the rest
                            rq_status  <= `QPNIC_CQE_STATUS_LOC_LEN;
                            syn        <= `QPNIC_AETH_SYNDROME_NAK_REM_OP;
                            resp_quiet <= 1'b0;
                            scat_total <= rq_room[31:0];
                        end else
                            scat_total <= payload;
                    end
                end
            S_DATA:
                // scat_total is non-zero only for an accepted receive
                if (has_payload && scat_total != 32'd0) begin
                    if (s_start_ready) state <= S_SCAT;
                end else if (has_payload)
                    state <= S_DRAIN;
                else
                    state <= after_data;
            S_SCAT:
                if (s_done) state <= after_data;
            S_DRAIN:
                if (in_valid && in_last) state <= after_data;
            S_INVAL: begin
                inv_sent <= 1'b1;
                if (inv_sent && res_valid) begin
                    if (!res_ok) begin
                        rq_status <= `QPNIC_CQE_STATUS_BAD_TOKEN;
                        syn       <= `QPNIC_AETH_SYNDROME_NAK_REM_ACC;
                        resp_quiet <= 1'b0;
                    end
                    state <= S_CQE;
                end
            end
            S_CQE:
                if (cqe_ready) state <= flushing ? S_FL_ASK : S_RQINC;
            S_FL_ASK:
                if (tq_grant) state <= S_FL_WAIT;
            S_FL_WAIT:
                if (tq_rsp_valid) begin
                    if (fl_claimed) begin
                        flushing  <= 1'b1;
                        rq_status <= `QPNIC_CQE_STATUS_FLUSHED;
                        state     <= S_CQE;
                    end else begin
                        flushing  <= 1'b0;
                        ctx_valid <= 1'b0;   // the next packet READs its own
                        state     <= S_HDR;
                    end
                end
            S_RQINC:
                if (tq_grant) state <= S_RESP;
            S_RESP:
                // a request in a gap whose NAK went out: no answer
                if (resp_quiet) begin
                    resp_quiet <= 1'b0;
                    resp_epsn  <= 1'b0;
                    ctx_valid  <= 1'b0;   // the next packet READs its own
                    state      <= S_HDR;
                end else
                // hand the header to the emitter once it is free
                if (!r_busy) begin
                    r_busy <= 1'b1;
                    r_i    <= 3'd0;
                    r_syn  <= syn;
                    // a READ's response: one packet, or the first of its segments
                    r_op   <= !read_resp ? `QPNIC_IB_OPCODE_ACK :
                              rd_multi ? `QPNIC_IB_OPCODE_READ_RESPONSE_FIRST :
                                         `QPNIC_IB_OPCODE_READ_RESPONSE_ONLY;
                    rr_left  <= rd_multi ? reth_len - mtu_b : 32'd0;
                    r_psn  <= resp_epsn ? ctx_epsn : req_psn;   // a gap's NAK names epsn
                    resp_epsn <= 1'b0;
                    // (a request refused as not the QP's learns nothing of it)
                    r_dqp  <= dq_rts ? ctx_remote : 24'd0;
                    r_peer <= h_peer[`QPNIC_LRH_PEER];   // back where it came from
                    ctx_valid <= 1'b0;   // the next packet READs its own
                    r_len  <= rd_multi ? mtu_b : reth_len;
                    state  <= (read_resp && reth_len != 32'd0) ? S_RWAIT : S_HDR;
                end
            S_RWAIT:
                if (!r_busy) state <= rr_going ? S_GDATA : S_GSTART;
            S_GSTART:
                if (g_start_ready) state <= S_GDATA;
            S_GDATA:
                if (gp_valid && out_ready && gp_last) begin
                    if (rr_more) begin
                        // the next packet of a segmented response: its
                        // header, then its data from where the gather is
                        r_busy  <= 1'b1;
                        r_i     <= 3'd0;
                        r_psn   <= r_psn + 24'd1;
                        if (rr_left > mtu_b) begin
                            r_op    <= `QPNIC_IB_OPCODE_READ_RESPONSE_MIDDLE;
                            r_len   <= mtu_b;
                            rr_left <= rr_left - mtu_b;
                        end else begin
                            r_op    <= `QPNIC_IB_OPCODE_READ_RESPONSE_LAST;
                            r_len   <= rr_left;
                            rr_left <= 32'd0;
                        end
                        state   <= S_RWAIT;
                    end else
                        state <= S_HDR;
                end
            default: state <= S_HDR;
            endcase
        end
    end
endmodule

`default_nettype wire
