// qpnic_completer: retires SQ work in order (the initiator's completion
// side, like rxe_comp.c) and asks for its SQ CQEs.
//
// It pops the requester's outstanding entries one at a time and READs the
// entry's QP context from qpnic_qp_table (state, send CQ, comp_err). A LOCAL entry
// (FLUSHED, BAD_WQE, LOC_PROT, LOC_LEN, BAD_TOKEN; SUCCESS for an
// INVALIDATE, FLUSHED instead once an earlier entry failed) completes at
// once. Any other waits
// for its response on the port: the next one that carries the entry's PSN
// (qpnic_datapath keeps each entry's PSN by its slot) and names its QP;
// others are duplicates (of a frame, or answers to a request the responder
// saw twice) and are dropped (cnt_stale). Its response: an ACK
// completes it SUCCESS; a READ_RESPONSE_ONLY completes a READ SUCCESS after
// its payload is scattered into the READ's (already checked) segments.
// A message segmented on the wire (docs/wire.md) has a first PSN and a
// last (the datapath keeps both by slot): its ACK carries the last; a NAK
// names any of its packets'; a READ's response comes as FIRST, MIDDLE ..,
// LAST, each with the next PSN from the first, each packet scattered
// where the one before it ended (qpnic_sge_skip), the READ completing
// with its LAST. A NAK
// completes it with the mapped status (RNR_NAK -> RNR, NAK_REM_ACC ->
// REM_ACCESS, NAK_REM_OP -> REM_OP, NAK_INV_REQ -> BAD_QP, an unexpected
// response -> REM_OP) and sets the QP to ERROR. Once an entry of a QP has
// completed in error, the QP's later entries complete FLUSHED (their
// responses are dropped) until the QP is reset: the table's comp_err mark
// (COMP_FAIL, with the state to ERROR for a NAK).
// Receiver not ready (docs/internals.md): an RNR NAK of a QP in RTS with
// retries left does not complete its SEND. The completer asks the table to
// REWIND the QP to it (fetch from the SEND again, its PSN again, the epoch
// flipped, one retry fewer, FETCH held) and puts the QP in qpnic_rnr_timer;
// when the timer says so (between entries) it sends RNR_WAKE, and the QP
// is fetched again from the SEND. Entries of another epoch than their QP's
// (pushed before the rewind) are discarded: response dropped, no CQE, no
// SQ_CI_INC; the rewound WQEs come again and complete then. With no
// retries left (or not in RTS), the SEND completes RNR as any NAK.
// On the wire (an entry whose packet went to another NIC, or any with
// rto_en) the same rewind also follows a timeout (no answer in RTO
// cycles) and a NAK_PSN_SEQ naming the entry's PSN (the target missed that
// request: go-back-N at once), counted against retry_left; with none left
// the request completes RETRY_EXC. A go-back that got further than the
// last is not counted, and sets retry_left full again. A READ's gap (a
// later packet of its response, or an answer to a later request) sends
// the QP back at once too (rr_gap). A message cut short is resumed where
// its target stopped taking it (see "a message resumed" below). There an ACK is also cumulative: one of
// a later PSN of the entry's QP, from its NIC, completes a WRITE or SEND
// entry whose own ACK was lost, and is held for the next entry (held).
// Each completion: an SQ CQE on the QP's send CQ (none for a success that
// asked SILENT_SUCCESS, nor for an INLINE_DATA slot), then SQ_CI_INC. A
// QP in RESET (when its entry was
// popped) gets neither. A LOCAL entry that failed after an earlier entry
// of its QP failed (the requester ran ahead of that one's NAK) completes
// FLUSHED like every later entry.
//
// Parameters
//   QW         bits of a QP number
//   WIRE       0: no RoCEv2 wire: every answer and entry is this NIC's
//              (peer 0), and the wire's rules fold away
// Ports
//   tq_req_*, tq_rsp_*                   request port of qpnic_qp_table:
//                                        READ, COMP_FAIL, SQ_CI_INC,
//                                        REWIND, RNR_WAKE
//   ost_valid/ost_ready/ost_data         outstanding entries (rtl/qpnic_ost.vh)
//   seg_rd_*                             a READ's segments, read from the
//                                        segment RAM at its entry's slot
//   in_*                                 responses from the responder's port FIFO
//   wr_req_*, wr_dat_*                   DMA write master (index 1): READ data
//   cqe_valid/ready, cqe_cqn, cqe_data   SQ CQE requests (phase bit 0)
//   fence_busy, fence_retire             on an entry; done with it
//                                        (qpnic_mr_fence)
//   retire_read, retire_remote           the entry retired is a READ's; a
//                                        packet's (not LOCAL): the
//                                        datapath's counts for READ_FENCE
//                                        and the token table operations
//   cnt_rnr                              one-cycle strobe: a QP was
//                                        rewound to retry an RNR'd SEND
//   rto_en                               every packet goes on the wire
//                                        (wire_en): the wire's rules for
//                                        every entry, not only for the
//                                        entries marked NET (qpnic_ost.vh)
//   cnt_nak                              one-cycle strobe: its entry's
//                                        answer is a NAK (AETH not ACK)
//   cnt_retx                             one-cycle strobe: a QP went back
//                                        to a request whose answer timed out
//   psn_slot, psn_of_slot                the entry's first PSN, by its slot
//   path_mtu                             log2 of the path MTU (PATH_MTU): a
//                                        READ response's FIRST and MIDDLE
//                                        carry exactly that
//   psn_last_of_slot                     its last packet's PSN (the same
//                                        unless segmented on the wire)
//   cnt_stale                            one-cycle strobe: a response
//                                        that was not the entry's dropped
//   look_qpn, look_index, look_gen       the requester's WQE (its QP, SQ
//                                        index and the QP's generation)
//   look_hit, look_bytes                 ... is a message to resume: its
//                                        first look_bytes are taken ("a
//                                        message resumed" below)
//   idle                                 nothing in progress, no QP
//                                        waiting for its RNR timer
`default_nettype none
`include "qpnic_layout.vh"
`include "qpnic_ost.vh"

module qpnic_completer #(
    parameter QW   = 8,
    parameter WIRE = 1
) (
    input  wire                 clk,
    input  wire                 rst,
    output wire                 tq_req_valid,
    input  wire                 tq_req_ready,
    output reg  [3:0]           tq_req_op,
    output wire [QW-1:0]        tq_req_qpn,
    output wire [31:0]          tq_req_arg,
    input  wire                 tq_rsp_valid,
    // the context word all the table's clients share; this one reads
    // state, send CQ and comp_err
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [`QPNIC_QP_CTX_BITS-1:0] tq_rsp_ctx,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                 ost_valid,
    output wire                 ost_ready,
    input  wire [`QPNIC_OST_WIDTH-1:0] ost_data,
    output wire                 seg_rd_en,
    output wire [`QPNIC_OST_SLOT_BITS+1:0] seg_rd_addr,
    input  wire [`QPNIC_SEG_BITS-1:0]      seg_rd_data,
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
    output wire                 fence_busy,
    output wire                 fence_retire,
    output wire                 retire_read,
    output wire                 retire_remote,
    output wire                 cnt_rnr,
    input  wire                 rto_en,
    input  wire [3:0]           path_mtu,
    output wire                 cnt_retx,
    output wire                 cnt_nak,
    output wire [`QPNIC_OST_SLOT_BITS-1:0] psn_slot,
    input  wire [23:0]          psn_of_slot,
    input  wire [23:0]          psn_last_of_slot,
    output wire                 cnt_stale,
    input  wire [QW-1:0]        look_qpn,
    input  wire [`QPNIC_INDEX_BITS-1:0] look_index,
    input  wire [`QPNIC_QP_NUM_GEN_WIDTH-1:0] look_gen,
    output wire                 look_hit,
    output wire [31:0]          look_bytes,
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
                     S_ERR   = 4'd6,  // COMP_FAIL: comp_err, and ERROR for a NAK
                     S_CQE   = 4'd7,  // SQ CQE request
                     S_CI    = 4'd8,  // SQ_CI_INC
                     S_CTX   = 4'd9,  // READ the entry's QP context
                     S_RWND  = 4'd10, // REWIND after an RNR NAK, and its answer
                     S_WAKE  = 4'd11, // RNR_WAKE of a QP whose timer ran out
                     S_SKIP  = 4'd12; // drop a response that is not the entry's (or has
                                      // no entry), up to last

    reg [3:0]    state;
    // Whole words of the entry and the header are kept; each field is
    // taken through its macro, the other bits of a word unused here.
    /* verilator lint_off UNUSEDSIGNAL */
    reg [`QPNIC_OST_WIDTH-1:0] ent;
    reg [32*RESP_WORDS-1:0] hdr;
    /* verilator lint_on UNUSEDSIGNAL */
    reg [2:0]    hdr_i;
    reg          has_payload;
    reg [7:0]    status;
    reg [31:0]   scat_total;
    reg          raise_err;       // this completion sets the QP to ERROR
    // the entry's QP, as its READ found it
    reg [`QPNIC_QP_STATE_BITS-1:0] ctx_state;
    reg [`QPNIC_CQN_BITS-1:0] ctx_scq;
    reg [`QPNIC_QP_NUM_GEN_WIDTH-1:0] ctx_gen;   // the generation of its number
    reg          ctx_failed;      // comp_err: an earlier entry of the QP failed
    reg          ctx_rnr_ok;      // in RTS with RNR retries left
    reg          discard;         // a stale entry: response dropped, not retired
    reg          rnr_try;         // an RNR NAK to retry: REWIND, not a completion
    reg          tmo_try;         // S_RWND for a timeout, not an RNR NAK
    reg          nak_try;         // ... for a NAK_PSN_SEQ (the target's expected PSN in hdr)
    reg [16:0]   tmo;             // cycles S_HDR has waited with nothing coming
    localparam [16:0] RTO = `QPNIC_RTO_CYCLES - 1;
    reg          tq_busy;         // a table request is up (until granted)
    reg          orphan;          // S_SKIP drops a response that came with no entry
    reg          held;            // hdr holds an ACK still to evaluate for the next entry
    // a READ whose response is segmented: its packets taken so far
    reg [31:0]   rd_off;          // payload bytes taken (where the next one lands)
    reg          rd_mid;          // this packet is not the response's last
    // the packets taken: every one before the last carries exactly the
    // path MTU (rr_mtu_ok), steady while requests are outstanding
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0]  rd_pkts = rd_off >> path_mtu;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [15:0]  rd_k    = rd_pkts[15:0];   // (the next one's PSN is the first + rd_k)

    wire [QW-1:0] e_qpn  = ent[`QPNIC_OST_QPN];
    wire [`QPNIC_INDEX_BITS-1:0] e_index  = ent[`QPNIC_OST_INDEX];
    wire [`QPNIC_CQE_TYPE_WIDTH-1:0] e_type = ent[`QPNIC_OST_TYPE];
    wire        e_read   = ent[`QPNIC_OST_READ];
    wire [31:0] e_bytes  = ent[`QPNIC_OST_BYTES];
    wire [`QPNIC_OST_SLOT_BITS-1:0] e_slot = ent[`QPNIC_OST_SLOT];

    // A READ's segments: read from the segment RAM at its slot, one a cycle
    // from the pop on (sr_i), each word arriving a cycle later (sr_got);
    // the scatter starts only once all are in (segs_in).
    reg [MAX_SGE*64-1:0] e_seg_addr;
    reg [MAX_SGE*32-1:0] e_seg_len;
    reg [1:0]  sr_i, sr_got_i;
    reg        sr_busy, sr_got, segs_in;
    assign seg_rd_en   = sr_busy;
    assign seg_rd_addr = {e_slot, sr_i};

    wire [`QPNIC_QP_STATE_BITS-1:0] e_state = ctx_state;
    wire       e_failed = ctx_failed;

    // --- the table request: READ (S_CTX), COMP_FAIL (S_ERR), SQ_CI_INC (S_CI),
    // REWIND (S_RWND), RNR_WAKE (S_WAKE)
    assign tq_req_valid = tq_busy;
    assign tq_req_qpn   = e_qpn;
    // COMP_FAIL: ERROR too for a NAK; REWIND: the SEND's PSN
    // REWIND: the SEND's PSN (an RNR NAK), or with bit 24 the entry's (a
    // timeout), for a READ the PSN of its first response packet not taken
    assign tq_req_arg   = (state == S_RWND) ? (tmo_try ? {6'd0, progress, 1'b1, psn_back} : {8'd0, r_psn})
                                            : {31'd0, raise_err};
    always @* begin
        case (state)
        S_ERR:   tq_req_op = `QPNIC_QP_OP_COMP_FAIL;
        S_CI:    tq_req_op = `QPNIC_QP_OP_SQ_CI_INC;
        S_RWND:  tq_req_op = `QPNIC_QP_OP_REWIND;
        S_WAKE:  tq_req_op = `QPNIC_QP_OP_RNR_WAKE;
        default: tq_req_op = `QPNIC_QP_OP_READ;
        endcase
    end
    wire tq_grant = tq_busy && tq_req_ready;

    // Whole words are taken so that each field comes out through its layout
    // macro; the bits of a word that belong to other fields are unused here.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] h_lrh  = hdr[32*(LRH_AT + `QPNIC_LRH_PAYLOAD_BYTES_WORD) +: 32];
    wire [31:0] h_op   = hdr[32*(BTH_AT + `QPNIC_BTH_OPCODE_WORD) +: 32];
    wire [31:0] h_aeth = hdr[32*(AETH_AT + `QPNIC_AETH_SYNDROME_WORD) +: 32];
    wire [31:0] h_psn  = hdr[32*(BTH_AT + `QPNIC_BTH_PSN_WORD) +: 32];
    wire [31:0] h_peer = WIRE != 0 ? hdr[32*(LRH_AT + `QPNIC_LRH_PEER_WORD) +: 32] : 32'd0;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [23:0] r_psn   = h_psn[`QPNIC_BTH_PSN];   // the request's PSN, echoed
    wire [`QPNIC_PEER_BITS-1:0] r_peer = h_peer[`QPNIC_LRH_PEER];   // the NIC it came from
    // (its QP's index is compared; the generation is the QP table's to check)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] h_dqp  = hdr[32*(BTH_AT + `QPNIC_BTH_DEST_QP_WORD) +: 32];
    wire [23:0] r_dqp   = h_dqp[`QPNIC_BTH_DEST_QP];
    /* verilator lint_on UNUSEDSIGNAL */
    // The response is the entry's when it comes from the entry's QP's NIC
    // (LRH peer), carries the entry's PSN (the requester noted it by the
    // entry's slot) and names the entry's QP; a NAK_INV_REQ names none
    // (its target had no QP to answer from). Any other is a duplicate the
    // network delivered, or the answer to one the responder saw twice:
    // dropped, and the entry waits on.
    assign psn_slot = e_slot;
    wire [`QPNIC_QP_NUM_INDEX_WIDTH-1:0] r_dqp_idx = r_dqp[`QPNIC_QP_NUM_INDEX];
    wire [`QPNIC_PEER_BITS-1:0] e_peer = WIRE != 0 ? ent[`QPNIC_OST_PEER] : {`QPNIC_PEER_BITS{1'b0}};
    wire [31:0] payload = h_lrh[`QPNIC_LRH_PAYLOAD_BYTES];
    wire [7:0]  opcode  = h_op[`QPNIC_BTH_OPCODE];
    wire [7:0]  syn     = h_aeth[`QPNIC_AETH_SYNDROME];
    // An ACK is cumulative (InfiniBand's): the target executes in PSN order,
    // so an ACK of a later PSN of the entry's QP, from its NIC, says the
    // entry's request executed too, its own ACK lost. A WRITE or SEND then
    // completes on it, and the ACK is held for the next entry; a READ still
    // needs its own answer (its data).
    // (only its sign is read: ahead or behind, 24-bit sequence arithmetic)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [23:0] psn_fwd = r_psn - psn_last_of_slot;
    /* verilator lint_on UNUSEDSIGNAL */
    wire        same_nic = (r_peer == e_peer);
    wire        same_qp  = (r_dqp_idx == {{(`QPNIC_QP_NUM_INDEX_WIDTH-QW){1'b0}}, e_qpn});
    wire        implied = on_wire && same_nic && same_qp && (r_psn != psn_last_of_slot) && !psn_fwd[23] &&
                          opcode == `QPNIC_IB_OPCODE_ACK && syn == `QPNIC_AETH_SYNDROME_ACK && !e_read;
    // The PSN the answer must carry: an ACK the message's last; a READ's
    // response packet the first + the packets taken; a NAK any of the
    // message's (the target refused that packet), the READ request's first.
    wire        is_nak   = opcode == `QPNIC_IB_OPCODE_ACK && syn != `QPNIC_AETH_SYNDROME_ACK;
    wire [23:0] psn_in   = r_psn - psn_of_slot;
    wire [23:0] psn_span = psn_last_of_slot - psn_of_slot;
    // (a build without the wire: every message one packet, its PSN the one)
    wire        psn_ok   = (WIRE == 0) ? r_psn == psn_of_slot :
                           is_nak ? (e_read ? r_psn == psn_of_slot : psn_in <= psn_span) :
                           e_read ? r_psn == psn_of_slot + {8'd0, rd_k} : r_psn == psn_last_of_slot;
    // a READ's response packet, and the last of them (ONLY or LAST)
    wire        rr_any = opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_ONLY ||
                         opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_FIRST ||
                         opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_MIDDLE ||
                         opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_LAST;
    wire        rr_end = opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_ONLY ||
                         opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_LAST;
    // (FIRST and ONLY only as the first packet, MIDDLE and LAST only after)
    wire        rr_order = ((WIRE == 0) || rd_k == 16'd0) == (opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_ONLY ||
                                               opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_FIRST);
    // (FIRST and MIDDLE carry exactly the path MTU: another length is a
    // target of another path MTU, whose PSNs no longer agree with these:
    // the READ fails, and with it its QP)
    // ... and the last is the PSN the request reserved for it: a target of
    // a larger path MTU answers in fewer packets)
    wire        rr_mtu_ok = (WIRE == 0) ? rr_end :
                            rr_end ? r_psn == psn_last_of_slot : payload == (32'd1 << path_mtu);
    // the header's words: a READ_RESPONSE_MIDDLE has no AETH (its opcode
    // is in well before its last header word)
    wire [2:0]  resp_words = (WIRE != 0 && opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_MIDDLE) ?
                             RESP_WORDS - 3'd1 : RESP_WORDS;
    // (a READ's response packet out of its order, FIRST or ONLY after the
    // first, MIDDLE or LAST as it, is no packet of this response: an
    // answer to an earlier copy of the request)
    wire        not_ours = !same_nic || !psn_ok || (e_read && rr_any && !rr_order) ||
                           (!same_qp && !(opcode == `QPNIC_IB_OPCODE_ACK && syn == `QPNIC_AETH_SYNDROME_NAK_INV_REQ));
    // A gap in a READ's response on the wire: its target answers in PSN
    // order, so a later packet of the response (a MIDDLE or LAST ahead of
    // the next one expected), or any answer to a later request, says a
    // packet of it was lost. The QP goes back at once, as rxe does, rather
    // than wait for the timer; but not while a go-back of the QP has had
    // no answer yet (rt_on, rxe's started_retry): the packets the earlier
    // copies' answers still bring are ahead too.
    wire        rt_busy;
    wire        rr_gap   = on_wire && e_read && !discard && !e_failed && same_nic && same_qp && !rt_busy &&
                           ((psn_in > {8'd0, rd_k} && psn_in <= psn_span &&
                             (opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_MIDDLE ||
                              opcode == `QPNIC_IB_OPCODE_READ_RESPONSE_LAST)) ||
                            (!psn_fwd[23] && psn_fwd != 24'd0));

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
    // a packet after the first lands where the one before it ended, the
    // first of a resumed READ where its earlier copies ended (only a
    // READ's response segmented on the wire has such): rd_at, below
    wire [31:0] rd_at;
    wire [MAX_SGE*64-1:0] k_seg_addr;
    wire [MAX_SGE*32-1:0] k_seg_len;
    qpnic_sge_skip #(.ON(WIRE != 0)) u_skip (
        .in_addr(e_seg_addr), .in_len(e_seg_len), .skip(rd_at),
        .out_addr(k_seg_addr), .out_len(k_seg_len));
    qpnic_scatter u_scatter (
        .clk(clk), .rst(rst),
        .start_valid(state == S_DATA && has_payload && scat_total != 32'd0 && segs_in),
        .start_ready(s_start_ready),
        .start_addr(k_seg_addr), .start_len(k_seg_len), .start_total(scat_total),
        .in_valid(in_valid && state == S_SCAT), .in_ready(s_in_ready),
        .in_data(in_data), .in_keep(in_keep), .in_last(in_last),
        .wr_req_valid(wr_req_valid), .wr_req_ready(wr_req_ready),
        .wr_req_addr(wr_req_addr), .wr_req_len(wr_req_len),
        .wr_dat_valid(wr_dat_valid), .wr_dat_ready(wr_dat_ready),
        .wr_dat_data(wr_dat_data), .wr_dat_keep(wr_dat_keep),
        .wr_dat_last(wr_dat_last), .done(s_done), .idle(s_idle));

    always @* begin
        case (state)
        S_HDR, S_DRAIN, S_SKIP: in_ready = 1'b1;
        S_SCAT:         in_ready = s_in_ready;
        default:        in_ready = 1'b0;
        endcase
    end

    // --- the SQ CQE ---
    qpnic_cqe_pack u_cqe (
        .byte_count(e_bytes),
        .qp_index({{(`QPNIC_QP_NUM_INDEX_WIDTH-QW){1'b0}}, e_qpn}), .qp_gen(ctx_gen),
        .wqe_index(e_index), .inv_token(32'd0), .cqe_type(e_type), .status(status), .solicited(1'b0), .cqe(cqe_data));
    // A QP reset under its work gets no CQE (its CQ state is the host's).
    wire qp_live = (e_state != `QPNIC_QP_STATE_RESET);
    // SILENT_SUCCESS: a success writes no CQE (the SQ slot is still
    // retired); an INLINE_DATA slot never does
    wire cqe_skip = (ent[`QPNIC_OST_SILENT] && status == `QPNIC_CQE_STATUS_SUCCESS) || ent[`QPNIC_OST_NO_CQE];
    assign cqe_valid       = (state == S_CQE) && qp_live && !cqe_skip;
    assign cqe_cqn         = ctx_scq;
    // the RNR timer: a rewound QP goes in; a due one is woken between entries
    wire          tm_due;
    wire [QW-1:0] tm_qpn;
    wire          tm_idle;
    // the answered context may be rewound: in RTS with retries left (the
    // table's REWIND tests the same, atomically)
    wire          rsp_rnr_ok = tq_rsp_ctx[`QPNIC_QP_CTX_STATE_FLAT] == `QPNIC_QP_STATE_RTS &&
                               tq_rsp_ctx[`QPNIC_QP_CTX_RNR_LEFT_FLAT] != 0;
    wire          progress;   // (below: "a message resumed")
    // (a timeout's REWIND counts retry_left instead, and one with progress
    // needs none left: the table's own test, or the two would disagree)
    wire          rsp_tmo_ok = tq_rsp_ctx[`QPNIC_QP_CTX_STATE_FLAT] == `QPNIC_QP_STATE_RTS &&
                               (tq_rsp_ctx[`QPNIC_QP_CTX_RETRY_LEFT_FLAT] != 0 || progress);
    wire          rewound = (state == S_RWND) && !tq_busy && tq_rsp_valid &&
                            (tmo_try ? rsp_tmo_ok : rsp_rnr_ok);
    qpnic_rnr_timer #(.QW(QW)) u_rnr (
        .clk(clk), .rst(rst),
        .in_valid(rewound), .in_qpn(e_qpn),
        .due_valid(tm_due), .due_ready(state == S_IDLE), .due_qpn(tm_qpn),
        .idle(tm_idle));
    // --- a message resumed ---
    // A message cut short on the wire is resumed where its target stopped
    // taking it, as rxe does, not sent again whole:
    //   - a READ whose response lost a packet (the timer sent the QP back
    //     to it): from its first response packet not taken;
    //   - a WRITE or SEND whose target NAKed a packet of it (NAK_PSN_SEQ:
    //     the target took the packets before): from that packet.
    // The QP goes back to that PSN (psn_back), and each QP remembers for
    // that message (its SQ index, its QP's generation, that PSN) the bytes
    // its target already took (rs_*). The requester asks here (look_*)
    // for every WQE, and sends that message from those bytes on: a READ's
    // request with its RETH address and length moved on (the target,
    // which executed the READ before, answers the duplicate from its first
    // packet); a WRITE's or SEND's packets from a MIDDLE or LAST, which
    // the target's message state continues. Its new entry finds the bytes
    // (rs_hit, with its first PSN) and a READ's packets land past them
    // (base_now). No packet's data is asked for, nor written, twice.
    // Forgotten when an entry of the QP completes. A timeout of a WRITE or
    // SEND goes back to where its copy started. A build without the wire
    // has no such message.
    wire        rs_hit;
    wire [31:0] rs_bytes;
    // Progress: a go-back of a message after it got further than at its
    // last go-back (a READ: response bytes down in this copy; a WRITE or
    // SEND: the target's NAK names a later packet than this copy's first)
    // costs no retry and restores them (REWIND argument bit 25), as rxe
    // restores its retries on progress: a long message on a lossy wire is
    // not failed for losses it recovers from. A timeout of a WRITE or SEND
    // shows no progress. Each go-back with progress reaches further into a
    // finite message, so they end.
    // The bytes before this copy's first packet: the resume table's, which
    // stays as it is while the entry is served (it is set and cleared only
    // as an entry of the QP leaves). Read from the first packet on, when
    // the entry's slot surely has its PSN.
    wire [31:0] base_now = (WIRE == 0) ? 32'd0 : rs_hit ? rs_bytes : 32'd0;
    // (a NAK's packet is below 2^16 of the message's: its bytes fit 32 bits)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] nak_at   = {8'd0, psn_in} << path_mtu;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [31:0] rs_now   = base_now + (e_read ? rd_off : nak_try ? nak_at : 32'd0);
    assign      progress = (WIRE != 0) && rs_now > base_now;
    // where the copy that follows starts: a READ's first response packet
    // not taken, the packet a NAK names, else where this copy started
    wire [23:0] psn_back = e_read ? psn_of_slot + {8'd0, rd_k} : nak_try ? r_psn : psn_of_slot;
    wire        rs_set = (state == S_RWND) && rewound && progress;
    // where this packet lands (a build without the wire: at 0, and the
    // READ's offset registers fold away)
    assign      rd_at    = (WIRE == 0) ? 32'd0 : base_now + rd_off;
    wire        rs_clr = (state == S_CQE) && (cqe_ready || !qp_live || cqe_skip);
    generate if (WIRE != 0) begin : g_resume
        localparam NQ = 1 << QW;
        reg [NQ-1:0]                 rs_on;
        reg [`QPNIC_INDEX_BITS-1:0]  rs_idx [0:NQ-1];
        reg [`QPNIC_QP_NUM_GEN_WIDTH-1:0] rs_gen [0:NQ-1];
        reg [23:0]                   rs_psn [0:NQ-1];
        reg [31:0]                   rs_len [0:NQ-1];
        always @(posedge clk) begin
            if (rst)
                rs_on <= {NQ{1'b0}};
            else if (rs_set)
                rs_on[e_qpn] <= 1'b1;
            else if (rs_clr)
                rs_on[e_qpn] <= 1'b0;
            if (rs_set) begin
                rs_idx[e_qpn] <= e_index;
                rs_gen[e_qpn] <= ctx_gen;
                rs_psn[e_qpn] <= psn_back;
                rs_len[e_qpn] <= rs_now;
            end
        end
        // a go-back of the QP that no answer has followed yet
        reg [NQ-1:0] rt_on;
        always @(posedge clk) begin
            if (rst)
                rt_on <= {NQ{1'b0}};
            else if (rewound)
                rt_on[e_qpn] <= 1'b1;
            else if (state == S_EVAL && !not_ours)
                rt_on[e_qpn] <= 1'b0;
        end
        assign rt_busy  = rt_on[e_qpn];
        assign rs_hit   = rs_on[e_qpn] && rs_idx[e_qpn] == e_index && rs_psn[e_qpn] == psn_of_slot;
        assign rs_bytes = rs_len[e_qpn];
        // (a READ of a QP made again in its slot is another generation's)
        assign look_hit   = rs_on[look_qpn] && rs_idx[look_qpn] == look_index &&
                            rs_gen[look_qpn] == look_gen;
        assign look_bytes = rs_len[look_qpn];
    end else begin : g_no_resume
        assign rs_hit     = 1'b0;
        assign rs_bytes   = 32'd0;
        assign rt_busy    = 1'b0;
        assign look_hit   = 1'b0;
        assign look_bytes = 32'd0;
        wire unused_rs = &{1'b0, rs_set, rs_clr, look_qpn, look_index, look_gen};
    end endgenerate

    assign cnt_rnr  = rewound && !tmo_try;
    assign cnt_retx = rewound && tmo_try;
    assign cnt_nak  = (state == S_EVAL) && !not_ours && opcode == `QPNIC_IB_OPCODE_ACK &&
                      syn != `QPNIC_AETH_SYNDROME_ACK;
    // The wire's rules (the retransmit timer, the early exits below) hold
    // for an entry whose packet went on the wire: to another NIC (NET), or
    // every entry when the wire is forced. The loopback inside the NIC
    // loses nothing, and a long request legitimately takes longer there.
    wire          on_wire   = WIRE != 0 && (rto_en || ent[`QPNIC_OST_NET]);
    // The retransmit timer: the entry's answer has not begun to come for
    // RTO cycles
    wire          timed_out = on_wire && (state == S_HDR) && (hdr_i == 3'd0) && !in_valid && (tmo == RTO);
    // a response dropped: not the entry's, or with no entry at all
    assign cnt_stale = ((state == S_EVAL) && not_ours && !rr_gap) ||
                       ((state == S_IDLE) && !tm_due && !ost_valid && in_valid);

    assign ost_ready       = (state == S_IDLE) && !tm_due;
    // for qpnic_mr_fence: on an entry; done with it (every entry leaves
    // through S_CI; a wake is no entry)
    assign fence_busy      = (state != S_IDLE) && (state != S_WAKE);
    assign fence_retire    = (state == S_CI) && (tq_grant || !tq_busy);
    assign retire_read     = fence_retire && e_read;   // a READ leaves (READ_FENCE)
    assign retire_remote   = fence_retire && !ent[`QPNIC_OST_LOCAL];   // a packet's entry leaves
    assign idle            = (state == S_IDLE) && s_idle && !tq_busy && !sr_busy && !sr_got &&
                             tm_idle;

    // The response is evaluated: a stale entry is dropped; an RNR NAK with
    // retries left rewinds the QP; a NAK (raise_err) fails the QP first.
    task respond_done;
        begin
            if (rd_mid) begin
                // a READ's response packet before its last: wait for the next
                rd_mid <= 1'b0;
                rd_off <= rd_off + payload;
                hdr_i  <= 3'd0;
                tmo    <= 17'd0;
                state  <= S_HDR;
            end else if (discard)
                state <= S_CI;     // tq_busy low: no SQ_CI_INC
            else if (rnr_try || tmo_try) begin
                tq_busy <= 1'b1;   // REWIND (an RNR NAK; a READ's gap)
                state   <= S_RWND;
            end else if (raise_err) begin
                tq_busy <= 1'b1;   // COMP_FAIL with ERROR
                state   <= S_ERR;
            end else
                state <= S_CQE;
        end
    endtask

    integer j;
    always @(posedge clk) begin
        if (rst) begin
            state       <= S_IDLE;
            ent         <= 0;
            hdr         <= {32*RESP_WORDS{1'b0}};
            hdr_i       <= 3'd0;
            has_payload <= 1'b0;
            status      <= `QPNIC_CQE_STATUS_SUCCESS;
            scat_total  <= 32'd0;
            raise_err   <= 1'b0;
            ctx_state   <= `QPNIC_QP_STATE_RESET;
            ctx_scq     <= 0;
            ctx_gen     <= 0;
            ctx_failed  <= 1'b0;
            ctx_rnr_ok  <= 1'b0;
            discard     <= 1'b0;
            rnr_try     <= 1'b0;
            tmo_try     <= 1'b0;
            nak_try     <= 1'b0;
            tmo         <= 17'd0;
            tq_busy     <= 1'b0;
            orphan      <= 1'b0;
            held        <= 1'b0;
            rd_off      <= 32'd0;
            rd_mid      <= 1'b0;
            e_seg_addr  <= 0;
            e_seg_len   <= 0;
            sr_i        <= 2'd0;
            sr_got_i    <= 2'd0;
            sr_busy     <= 1'b0;
            sr_got      <= 1'b0;
            segs_in     <= 1'b0;
        end else begin
            // the segment reads of a READ entry
            sr_got   <= sr_busy;
            sr_got_i <= sr_i;
            if (sr_busy) begin
                sr_i <= sr_i + 2'd1;
                if ({2'b00, sr_i} == MAX_SGE - 1) sr_busy <= 1'b0;
            end
            if (sr_got) begin
                // each segment's registers by a constant index: an enable
                // per segment, no multiplexer by sr_got_i in front of them
                for (j = 0; j < MAX_SGE; j = j + 1)
                    if ({1'b0, sr_got_i} == j[2:0]) begin
                        e_seg_addr[j*64 +: 64] <= {seg_rd_data[`QPNIC_SEG_ADDR_HI_FLAT],
                                                   seg_rd_data[`QPNIC_SEG_ADDR_LO_FLAT]};
                        e_seg_len[j*32 +: 32]  <= seg_rd_data[`QPNIC_SEG_LEN_FLAT];
                    end
                if (!sr_busy) segs_in <= 1'b1;
            end

            case (state)
            S_IDLE:
                if (tm_due) begin
                    // a QP's RNR timer ran out: wake it (ent holds only its number)
                    ent                 <= 0;
                    ent[`QPNIC_OST_QPN] <= {{(8-QW){1'b0}}, tm_qpn};
                    tq_busy             <= 1'b1;
                    state               <= S_WAKE;
                end else if (!ost_valid && in_valid) begin
                    // a response with no entry to wait for it: every
                    // entry is pushed before its packet leaves, so this
                    // answers one that was retired already (a duplicate)
                    orphan <= 1'b1;
                    state  <= S_SKIP;
                end else if (ost_valid) begin
                    ent        <= ost_data;
                    hdr_i      <= 3'd0;
                    raise_err  <= 1'b0;
                    discard    <= 1'b0;
                    rnr_try    <= 1'b0;
                    tmo_try    <= 1'b0;
                    nak_try    <= 1'b0;
                    scat_total <= 32'd0;
                    rd_off     <= 32'd0;
                    rd_mid     <= 1'b0;
                    tq_busy    <= 1'b1;    // READ the QP's context
                    state      <= S_CTX;
                    // a READ's segments come from the segment RAM
                    sr_busy    <= ost_data[`QPNIC_OST_READ];
                    sr_i       <= 2'd0;
                    segs_in    <= !ost_data[`QPNIC_OST_READ];
                end
            S_CTX:
                // READ answered two cycles after its grant
                if (!tq_busy && tq_rsp_valid) begin
                    ctx_state  <= tq_rsp_ctx[`QPNIC_QP_CTX_STATE_FLAT];
                    ctx_scq    <= tq_rsp_ctx[`QPNIC_QP_CTX_SEND_CQ_FLAT];
                    ctx_gen    <= tq_rsp_ctx[`QPNIC_QP_CTX_GEN_FLAT];
                    ctx_failed <= tq_rsp_ctx[`QPNIC_QP_CTX_COMP_ERR_FLAT];
                    ctx_rnr_ok <= rsp_rnr_ok;
                    if (tq_rsp_ctx[`QPNIC_QP_CTX_EPOCH_FLAT] != ent[`QPNIC_OST_EPOCH]) begin
                        // pushed before a rewind of its QP: it comes again.
                        // On the loopback it takes its response (which
                        // always comes, in order); on the wire it leaves at
                        // once, and its response, if one comes, is dropped
                        // as no entry's (it may never come: the rewind may
                        // be for a lost frame)
                        discard <= 1'b1;
                        state   <= (ent[`QPNIC_OST_LOCAL] || on_wire) ? S_CI : S_HDR;
                    end else if (ent[`QPNIC_OST_LOCAL] &&
                        ent[`QPNIC_OST_STATUS] == `QPNIC_CQE_STATUS_SUCCESS) begin
                        // a local operation that succeeded (an INVALIDATE):
                        // after an earlier failure of the QP it completes
                        // FLUSHED like every later entry (flush order)
                        status <= tq_rsp_ctx[`QPNIC_QP_CTX_COMP_ERR_FLAT] ?
                                  `QPNIC_CQE_STATUS_FLUSHED : `QPNIC_CQE_STATUS_SUCCESS;
                        state  <= S_CQE;
                    end else if (ent[`QPNIC_OST_LOCAL] && tq_rsp_ctx[`QPNIC_QP_CTX_COMP_ERR_FLAT]) begin
                        // a local failure after an earlier failure of the
                        // QP (the requester ran ahead of that one's NAK):
                        // FLUSHED, as every request after a failed one
                        status <= `QPNIC_CQE_STATUS_FLUSHED;
                        state  <= S_CQE;
                    end else if (ent[`QPNIC_OST_LOCAL]) begin
                        status <= ent[`QPNIC_OST_STATUS];
                        // the requester already set the QP to ERROR; later
                        // entries of the QP complete FLUSHED
                        if (ent[`QPNIC_OST_STATUS] != `QPNIC_CQE_STATUS_FLUSHED) begin
                            tq_busy <= 1'b1;
                            state   <= S_ERR;
                        end else
                            state <= S_CQE;
                    end else if (on_wire && tq_rsp_ctx[`QPNIC_QP_CTX_COMP_ERR_FLAT]) begin
                        // on the wire, an earlier request of the QP
                        // failed: FLUSHED at once, whatever answer comes
                        // (on a wire that loses frames none may; one that
                        // comes is no entry's). The loopback takes the
                        // answer first, as it always did.
                        status <= `QPNIC_CQE_STATUS_FLUSHED;
                        state  <= S_CQE;
                    end else begin
                        tmo   <= 17'd0;
                        state <= S_HDR;
                    end
                end
            S_HDR:
                if (held) begin
                    // the ACK that completed the entry before: this one's?
                    held  <= 1'b0;
                    state <= S_EVAL;
                end else if (timed_out) begin
                    // go back to this request: REWIND (its answer or the
                    // request itself was lost)
                    tmo_try <= 1'b1;
                    tq_busy <= 1'b1;
                    state   <= S_RWND;
                end else if (!in_valid && hdr_i == 3'd0) begin
                    if (tmo != RTO) tmo <= tmo + 17'd1;
                end else if (in_valid) begin
                    // word by word, each by a constant index (as above)
                    for (j = 0; j < RESP_WORDS; j = j + 1)
                        if (hdr_i == j[2:0]) hdr[32*j +: 32] <= in_data;
                    hdr_i <= hdr_i + 3'd1;
                    if (in_last || hdr_i == resp_words - 3'd1) begin
                        has_payload <= !in_last;
                        state       <= S_EVAL;
                    end
                end
            S_EVAL: begin
                state <= S_DATA;
                if (not_ours && implied && !discard && !e_failed) begin
                    status <= `QPNIC_CQE_STATUS_SUCCESS;   // acknowledged by a later ACK
                    held   <= 1'b1;
                end else if (not_ours && rr_gap) begin
                    // a packet of this READ's response is missing: go back
                    // to it at once (after this one's payload), as a NAK
                    // would, rather than wait for the timer
                    tmo_try    <= 1'b1;
                    scat_total <= 32'd0;
                end else if (not_ours) begin
                    hdr_i <= 3'd0;
                    state <= has_payload ? S_SKIP : S_HDR;
                end else if (e_failed)
                    status <= `QPNIC_CQE_STATUS_FLUSHED;
                else if (opcode == `QPNIC_IB_OPCODE_ACK &&
                         syn == `QPNIC_AETH_SYNDROME_ACK && !e_read)
                    status <= `QPNIC_CQE_STATUS_SUCCESS;
                else if (rr_any && e_read && rr_order && rr_mtu_ok) begin
                    if (!discard) begin
                        // what fits of it after the bytes before it
                        scat_total <= (rd_at >= e_bytes) ? 32'd0 :
                                      (payload < e_bytes - rd_at) ? payload : e_bytes - rd_at;
                        if (rr_end) status <= `QPNIC_CQE_STATUS_SUCCESS;
                        else        rd_mid <= 1'b1;
                    end
                end else if (discard)
                    ;   // a stale entry's response: dropped
                else if (opcode == `QPNIC_IB_OPCODE_ACK && syn == `QPNIC_AETH_SYNDROME_RNR_NAK &&
                         ctx_rnr_ok)
                    rnr_try <= 1'b1;
                else if (on_wire && opcode == `QPNIC_IB_OPCODE_ACK && syn == `QPNIC_AETH_SYNDROME_NAK_PSN_SEQ) begin
                    // the target expects this request's PSN: it never got
                    // it (or took a later one first). Go back to it now,
                    // as the timer would later: a retransmission
                    tmo_try <= 1'b1;
                    nak_try <= 1'b1;
                    tq_busy <= 1'b1;
                    state   <= S_RWND;
                end
                else begin
                    status    <= (opcode == `QPNIC_IB_OPCODE_ACK) ? nak_status
                                                                  : `QPNIC_CQE_STATUS_REM_OP;
                    raise_err <= 1'b1;
                end
            end
            S_DATA:
                if (has_payload && scat_total != 32'd0) begin
                    if (s_start_ready && segs_in) state <= S_SCAT;
                end else if (has_payload)
                    state <= S_DRAIN;
                else
                    respond_done();
            S_SCAT:
                if (s_done) respond_done();
            S_DRAIN:
                if (in_valid && in_last) respond_done();
            S_SKIP:
                if (in_valid && in_last) begin
                    orphan <= 1'b0;
                    state  <= orphan ? S_IDLE : S_HDR;
                end
            S_ERR:
                if (tq_grant) begin
                    tq_busy <= 1'b0;
                    state   <= S_CQE;
                end
            S_RWND:
                // REWIND answered three cycles after its grant: rewound (the
                // SEND comes again; not retired), or the QP left RTS or ran
                // out meanwhile: the SEND completes RNR
                if (!tq_busy && tq_rsp_valid) begin
                    if (rewound)
                        state <= S_CI;   // tq_busy low: no SQ_CI_INC
                    else begin
                        // no retries left: RNR, or RETRY_EXC for a timeout,
                        // whose request never got an answer: FLUSHED if
                        // its QP left RTS meanwhile (flushed, destroyed,
                        // or failed by a later request)
                        status    <= !tmo_try ? `QPNIC_CQE_STATUS_RNR :
                                     tq_rsp_ctx[`QPNIC_QP_CTX_STATE_FLAT] != `QPNIC_QP_STATE_RTS ?
                                         `QPNIC_CQE_STATUS_FLUSHED : `QPNIC_CQE_STATUS_RETRY_EXC;
                        raise_err <= 1'b1;
                        tq_busy   <= 1'b1;
                        state     <= S_ERR;
                    end
                end
            S_WAKE:
                if (tq_grant) begin
                    tq_busy <= 1'b0;
                    state   <= S_IDLE;
                end
            S_CQE:
                if (cqe_ready || !qp_live || cqe_skip) begin
                    tq_busy <= qp_live;    // SQ_CI_INC
                    state   <= S_CI;
                end
            S_CI:
                if (tq_grant || !tq_busy) begin
                    tq_busy <= 1'b0;
                    state   <= S_IDLE;
                end
            default: state <= S_IDLE;
            endcase
            if ((state == S_CTX || state == S_RWND) && tq_grant) tq_busy <= 1'b0;
        end
    end
endmodule

`default_nettype wire
