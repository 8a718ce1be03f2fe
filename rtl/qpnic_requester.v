// qpnic_requester: executes SQ WQEs (the initiator side, like rxe_req.c).
//
// For each WQE from qpnic_wqe_fetch, in order, the requester first READs its
// QP's context from qpnic_qp_table, then:
//   - QP in RESET: dropped (its rings were zeroed under it);
//   - a stale WQE (claimed in another epoch than the QP's: an RNR rewind
//     came between, docs/internals.md "Receiver not ready"): dropped, and
//     it moved nothing; its QP fetches it again;
//   - FAST_REG, INVALIDATE, BIND (they change the token table): wait in
//     S_DECODE until no SEND, WRITE or READ of any QP is outstanding
//     (remotes_idle), then READ the context again and decide on that: so
//     they take effect only once every earlier request is acknowledged, not
//     after one that failed (the QP is in ERROR then: FLUSHED) nor before a
//     SEND that an RNR NAK sends again (the rewind makes them stale);
//   - QP in ERROR: FLUSHED;
//   - INLINE_DATA (a slot of an INLINE request's payload): retired with no
//     CQE (outstanding entry NO_CQE), whatever the QP's state;
//   - opcode other than SEND/SEND_INV/WRITE/READ/INVALIDATE/FAST_REG/BIND,
//     nsge > MAX_SGE, a BIND whose nsge is not 1, whose range is empty or
//     whose entry is not a window of the QP's PD (MR_CMD GRANT_WINDOW),
//     a FAST_REG whose device address is not a page-table address (it
//     would reach any host memory) or whose pages lie outside the run the
//     host granted its entry for the QP's PD (MR_CMD GRANT), or an INLINE
//     request with SGEs or above MAX_INLINE_BYTES: BAD_WQE;
//   - READ_FENCE: the WQE waits in S_DECODE, before its checks, until no
//     READ of any QP is outstanding (reads_idle: the datapath counts
//     them), so its gather sees what earlier READs brought;
//   - FAST_REG: the token table entry of struct wqe_freg, in the QP's PD,
//     written through the table's fast-register port (fr_*), in SQ order:
//     completes locally SUCCESS;
//   - BIND: its SGE 0 (the window's range and the region's local token)
//     checked like a local SGE (LOCAL_WRITE needed when the window grants
//     REMOTE_WRITE): LOC_PROT on a failure; else the window's entry of
//     struct wqe_bind (rkey, range, the checked device address, the QP's
//     PD, mr_ctx window set) through the same port as FAST_REG, in SQ
//     order: completes locally SUCCESS;
//   - INVALIDATE: one check with chk_inval for the WQE's token (either
//     token of a local region), which clears the entry if it is valid:
//     completes locally, SUCCESS, or BAD_TOKEN (then the QP goes to ERROR);
//     executed in SQ order, when the requester reaches it;
//   - an INLINE SEND, SEND_INV or WRITE (struct wqe_inline): no SGE check;
//     its payload's segments are in the SQ ring itself (this WQE's words
//     5..15, then words 1..15 of the next one or two slots, which come
//     here as INLINE_DATA), addressed from the QP's SQ base and the WQE's
//     index, and gathered as any payload;
//   - every non-empty SGE checked against the token table (local token,
//     bounds, LOCAL_WRITE for READ targets) before any DMA: LOC_PROT on a
//     failure. qpnic_sge_check sends the SGEs to the table's check port one
//     a cycle and collects their answers;
//   - a message above MAX_MSG_BYTES: LOC_LEN; on the wire (to another NIC,
//     or any with wire_all) one of more than 65,536 packets of the path
//     MTU (16 MiB at 256 bytes), whose packet count the PSN request cannot
//     carry: LOC_LEN.
// These complete locally: an outstanding entry marked LOCAL goes to the
// completer (which keeps SQ completions in order), and all but FLUSHED set
// the QP to ERROR (SET_ERR, done before the next WQE's READ, so that WQE
// sees ERROR). Otherwise the requester pushes an
// outstanding entry and sends its message on the port: LRH, BTH, RETH for
// WRITE_ONLY / READ_REQUEST, an IETH (the token to invalidate) for
// SEND_ONLY_INV, then the payload (SEND, SEND_INV, WRITE) gathered from
// the SGEs by qpnic_gather. Header words have full keep; last marks the
// packet's final beat.
// Segments (docs/wire.md): a message on the wire (WIRE builds; a QP whose
// peer is another NIC, or any with wire_all) goes in packets of at most
// the path MTU (path_mtu): FIRST (the RETH, for a
// WRITE), MIDDLE, LAST (the IETH, for a SEND_INV; SE), or ONLY when it
// fits one, each with the next PSN (PSN takes the count), AckReq on the
// last only. A READ is one request whose response takes the PSNs of its
// packets (PSN takes their count too). The outstanding entry's slot gets
// the first PSN and the last (psn_wr_last). qpnic_pkt_split cuts the
// staged payload at the packets' ends. A message the completer resumes
// (look_*: it was cut short on the wire, and the QP went back to the
// first packet its target has not taken) goes from there on only: a
// READ's request with its RETH address and length moved on by the bytes
// already down; a WRITE's or SEND's packets from a MIDDLE (or LAST),
// gathered from those bytes on (job_mid). It takes the PSNs of the
// packets left; its entry keeps the whole length for the CQE.
//
// Two stages, so that a stream of messages keeps the DMA read channel busy
// (docs/performance-analysis.md):
//   - the front end takes a WQE, checks it, pushes its outstanding entry and
//     starts the gather of its payload (once the gather is free), takes the
//     packet's PSN and the peer's QP number from the table (PSN), hands the
//     packet's header fields to the back end as a job (once the one job
//     register is free), then takes the next WQE; so the gather can run a
//     message ahead of the header the back end is sending;
//   - the back end sends each job's header, then its payload from the
//     staging FIFO, which the gather fills ahead of it.
// The gather's reads sink into the staging FIFO, never into the port: a
// read is issued only when the staging FIFO has room for its whole response
// (the deadlock rule of docs/internals.md), so the back end's header words
// and the next message's payload reads overlap. Jobs, payloads and
// outstanding entries all keep WQE order.
//
// Parameters
//   STAGE_LOG_DEPTH   log2 of the staging FIFO's words; it must hold two
//                     MAX_DMA_BYTES reads (512 bytes: 8, the default; a
//                     SEND's gather uses half: qpnic_gather start_one;
//                     still one block RAM on the ECP5, whose DP16KD is
//                     512 x 36)
// Ports
//   tq_req_*, tq_rsp_*              request port of qpnic_qp_table: READ
//                                   (the WQE's QP), PSN (a packet's), SET_ERR
//   chk_*, res_*                    check port of qpnic_mr_table: a request
//                                   (token, va, len, need, inval, pd) in,
//                                   its answer (ok, device address) a fixed
//                                   number of cycles later
//   fr_valid/ready, fr_idx, fr_entry   a FAST_REG's or BIND's entry to the table
//   reads_idle                      no READ of any QP outstanding (READ_FENCE)
//   remotes_idle                    no SEND, WRITE or READ of any QP
//                                   outstanding (the token table's operations)
//   out_peer                        the NIC those outstanding went to (LRH
//                                   peer; meaningful while !remotes_idle): a
//                                   packet to another waits for them all
//   out_qpn                         the QP of the last one: a packet on the
//                                   wire of another QP waits for them all
//   wqe_*                           WQE word pairs from qpnic_wqe_fetch,
//                                   with each WQE's QP, index and epoch
//   rd_req_*, rd_rsp_*              DMA read master (index 1), payload reads
//   out_*                           packets to the port FIFO
//   ost_valid/ost_ready/ost_data    outstanding entries (rtl/qpnic_ost.vh)
//   seg_wr_*                        a READ's checked segments into the
//                                   segment RAM, at its entry's slot
//   psn_wr_*                        a message's first PSN and its last
//                                   packet's (psn_wr_last), at its entry's slot
//                                   (taken after the entry is pushed: the
//                                   completer needs it only once the
//                                   packet has been answered)
//   fence_hold                      the front end holds a WQE in its token
//                                   check or waiting for the gather
//   gather_busy                     the gather has a job or a read in
//                                   flight (qpnic_mr_fence)
//   gather_drain                    the fence waits for the gather: it
//                                   takes no job while reads are in flight
//   path_mtu                        log2 of the path MTU (PATH_MTU): the
//                                   most payload of a packet on the wire
//   wire_all                        every packet goes on the wire (wire_en):
//                                   the wire's limits for every QP, not
//                                   only those connected to another NIC
//   idle                            no WQE in progress, nothing staged
`default_nettype none
`include "qpnic_layout.vh"
`include "qpnic_ost.vh"

module qpnic_requester #(
    parameter WIRE            = 1,
    parameter NUM_MR          = 16,
    parameter STAGE_LOG_DEPTH = 8,
    parameter QW              = 8
) (
    input  wire                 clk,
    input  wire                 rst,
    // MR_CMD GRANT (qpnic_csr): the page table run token entry gr_wr_idx
    // may be fast-registered over, and by which PD (pages 0: none)
    input  wire                 gr_wr_en,
    input  wire                 gr_wr_window,   // the entry is a window: BINDs only
    input  wire [`QPNIC_TOKEN_INDEX_BITS-1:0] gr_wr_idx,
    input  wire [`QPNIC_PD_BITS-1:0] gr_wr_pd,
    input  wire [`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0] gr_wr_first,
    input  wire [31-`QPNIC_FREG_PAGE_SHIFT:0] gr_wr_pages,
    output wire                 tq_req_valid,
    input  wire                 tq_req_ready,
    output reg  [3:0]           tq_req_op,
    output wire [QW-1:0]        tq_req_qpn,
    output wire [31:0]          tq_req_arg,
    input  wire                 tq_rsp_valid,
    // the context word all the table's clients share; this one reads
    // state, PSN and the peer's QP number
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [`QPNIC_QP_CTX_BITS-1:0] tq_rsp_ctx,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire                 chk_valid,
    output wire [31:0]          chk_token,
    output wire [63:0]          chk_va,
    output wire [31:0]          chk_len,
    output wire [2:0]           chk_need,
    input  wire                 res_valid,
    input  wire                 res_ok,
    input  wire [63:0]          res_dev,
    input  wire                 wqe_valid,
    output wire                 wqe_ready,
    input  wire [63:0]          wqe_data,
    input  wire                 wqe_last,
    input  wire [QW-1:0]        wqe_qpn,
    input  wire [`QPNIC_INDEX_BITS-1:0] wqe_index,
    input  wire                 wqe_epoch,
    output wire                 rd_req_valid,
    input  wire                 rd_req_ready,
    output wire [63:0]          rd_req_addr,
    output wire [15:0]          rd_req_len,
    input  wire                 rd_rsp_valid,
    output wire                 rd_rsp_ready,
    input  wire [31:0]          rd_rsp_data,
    input  wire [3:0]           rd_rsp_keep,
    input  wire                 rd_rsp_last,
    output reg                  out_valid,
    input  wire                 out_ready,
    output reg  [31:0]          out_data,
    output reg  [3:0]           out_keep,
    output reg                  out_last,
    output wire                 ost_valid,
    input  wire                 ost_ready,
    output wire [`QPNIC_OST_WIDTH-1:0] ost_data,
    output wire                 seg_wr_en,
    output wire [`QPNIC_OST_SLOT_BITS+1:0] seg_wr_addr,
    output wire [`QPNIC_SEG_BITS-1:0]      seg_wr_data,
    output wire                 psn_wr_en,
    output wire [`QPNIC_OST_SLOT_BITS-1:0] psn_wr_slot,
    output wire [23:0]          psn_wr_psn,
    output wire [23:0]          psn_wr_last,
    output wire                 chk_inval,
    output wire                 fr_valid,
    input  wire                 fr_ready,
    output wire [`QPNIC_TOKEN_INDEX_BITS-1:0] fr_idx,
    output wire [`QPNIC_MR_CTX_BITS-1:0] fr_entry,
    input  wire                 reads_idle,
    input  wire                 remotes_idle,
    input  wire [`QPNIC_PEER_BITS-1:0] out_peer,
    input  wire [QW-1:0]        out_qpn,
    output wire [`QPNIC_PD_BITS-1:0] chk_pd,
    output wire                 fence_hold,
    output wire                 gather_busy,
    input  wire                 gather_drain,
    input  wire                 wire_all,
    input  wire [3:0]           path_mtu,
    output wire [QW-1:0]        look_qpn,
    output wire [`QPNIC_INDEX_BITS-1:0] look_index,
    output wire [`QPNIC_QP_NUM_GEN_WIDTH-1:0] look_gen,
    input  wire                 look_hit,
    input  wire [31:0]          look_bytes,
    output wire                 idle
);
    localparam MAX_SGE   = `QPNIC_MAX_SGE;
    localparam SGE_WORDS = `QPNIC_SGE_WORDS;
    localparam [33:0] MAX_MSG = `QPNIC_MAX_MSG_BYTES;
    // header word positions: LRH, then BTH, then RETH
    localparam LRH_AT  = 0;
    localparam BTH_AT  = LRH_AT + `QPNIC_LRH_WORDS;
    localparam RETH_AT = BTH_AT + `QPNIC_BTH_WORDS;
    localparam [3:0] HDR_PLAIN = RETH_AT;                      // LRH + BTH
    localparam [3:0] HDR_RETH  = RETH_AT + `QPNIC_RETH_WORDS;  // + RETH
    localparam [3:0] HDR_IETH  = RETH_AT + `QPNIC_IETH_WORDS;  // + IETH, at the RETH's place

    localparam STAGE_DEPTH = 1 << STAGE_LOG_DEPTH;

    // front end
    localparam [3:0] S_LOAD   = 4'd0,  // take the next WQE, two words a cycle
                     S_DECODE = 4'd1,  // state, opcode and nsge checks
                     S_CHECK  = 4'd2,  // SGEs to the check port, answers back
                     S_OST    = 4'd3,  // push the outstanding entry, start the gather
                     S_ERR    = 4'd4,  // QP to ERROR (local failures)
                     S_JOB    = 4'd5,  // take the PSN, hand the header fields to the back end
                     S_CTX    = 4'd6,  // wait for the READ of the WQE's QP context
                     S_SEG    = 4'd7,  // a READ's segments into the segment RAM
                     S_INV    = 4'd8,  // INVALIDATE: its check (which clears the entry)
                     S_FREG   = 4'd9,  // FAST_REG, BIND: the entry to the token table
                     S_INL    = 4'd10; // an INLINE request's segment addresses, one a cycle
    // back end
    localparam [1:0] B_IDLE   = 2'd0,  // wait for a job
                     B_HDR    = 2'd1,  // header words onto the port
                     B_DATA   = 2'd2;  // payload from the staging FIFO

    reg [3:0]    state;
    reg          inv_sent;      // S_INV: the invalidate's check went out
    reg [1:0]    bstate;
    reg [511:0]  wqe;           // the WQE, word w at [32w +: 32]
    localparam   WQE_PAIRS = `QPNIC_WQE_WORDS / 2;   // 64-bit pairs of it (wqe_data)
    integer      wp;
    reg [2:0]    ld_pair;
    reg [QW-1:0] qpn;
    reg [`QPNIC_INDEX_BITS-1:0] index;
    reg          epoch;         // the QP's epoch when the WQE was claimed
    reg          is_local;
    reg [7:0]    status;
    // from qpnic_sge_check: the checked SGEs
    wire         sg_busy, sg_done, sg_fail;
    wire [33:0]  total;         // sum of the SGE lengths
    wire [MAX_SGE*64-1:0] seg_addr;
    wire [MAX_SGE*32-1:0] seg_len;
    reg [3:0]    hdr_i;
    reg [`QPNIC_OST_SLOT_BITS-1:0] ost_slot;   // slot of the next entry
    reg [1:0]    seg_i;         // S_SEG, S_INL: the segment being written
    // the QP context of this WQE (its READ's answer) and of the table
    // request in flight
    reg [`QPNIC_QP_STATE_BITS-1:0] ctx_state;
    reg [`QPNIC_PD_BITS-1:0] ctx_pd;   // its PD: every check of the WQE names it
    reg [`QPNIC_PEER_BITS-1:0] ctx_peer;   // its peer's NIC (0: this one, the packet loops back)
    reg [`QPNIC_QP_NUM_GEN_WIDTH-1:0] ctx_gen;   // the generation of its QP's number
    reg [63:0]   ctx_sq_base;   // its SQ ring (INLINE payloads are there)
    reg [4:0]    ctx_sq_log;
    reg          ctx_have;      // ctx_state is the answer for this WQE
    reg          ctx_stale;     // the QP was rewound since the WQE's claim
    reg          tt_fresh;      // a token table operation's context was READ again after the wait
    reg          tq_busy;       // a request is up (until granted)
    reg          tq_wait;       // its answer is awaited
    // the job: what the back end needs of a WQE for its packet's header
    reg          job_valid;
    reg          job_write, job_read, job_se, job_inv;
    reg [31:0]   job_total;
    reg [31:0]   job_rtoken, job_rva_lo, job_rva_hi;
    reg [23:0]   job_psn, job_dqp;
    reg [23:0]   nxt_psn, nxt_dqp;  // the PSN's answer, until it joins the job
    reg [`QPNIC_PEER_BITS-1:0] job_peer;   // the peer QP's NIC (LRH peer)
    reg          job_seg;       // segmented at the path MTU (on the wire)
    reg          job_mid;       // resumed: its first packet is a MIDDLE or LAST
    reg          job_stale;     // its WQE went stale under a rewind: every packet PSN - 1
    reg          nxt_stale;
    // the back end's place in a segmented message
    reg [15:0]   b_k;           // the packet being sent (0: the first)
    reg [31:0]   b_left;        // the message's bytes after the packets sent
    reg [31:0]   b_plen;        // this packet's payload (qpnic_pkt_split)

    // --- WQE fields ---
    // Whole words are taken so that each field comes out through its layout
    // macro; the bits of a word that belong to other fields are unused here.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] w_op    = wqe[32*`QPNIC_WQE_OPCODE_WORD +: 32];
    wire [31:0] w_nsge  = wqe[32*`QPNIC_WQE_NSGE_WORD +: 32];
    wire [31:0] w_flags = wqe[32*`QPNIC_WQE_FLAGS_WORD +: 32];
    wire [7:0]  opcode  = w_op[`QPNIC_WQE_OPCODE];
    wire [3:0]  nsge    = w_nsge[`QPNIC_WQE_NSGE];
    wire [15:0] flags   = w_flags[`QPNIC_WQE_FLAGS];
    /* verilator lint_on UNUSEDSIGNAL */
    wire [31:0] w_rtoken = wqe[32*`QPNIC_WQE_RTOKEN_WORD +: 32];
    wire [31:0] w_rva_lo = wqe[32*`QPNIC_WQE_RVA_LO_WORD +: 32];
    wire [31:0] w_rva_hi = wqe[32*`QPNIC_WQE_RVA_HI_WORD +: 32];
    wire [31:0] rtoken   = w_rtoken[`QPNIC_WQE_RTOKEN];
    wire [31:0] rva_lo   = w_rva_lo[`QPNIC_WQE_RVA_LO];
    wire [31:0] rva_hi   = w_rva_hi[`QPNIC_WQE_RVA_HI];

    wire is_send  = (opcode == `QPNIC_WQE_OP_SEND);
    wire is_write = (opcode == `QPNIC_WQE_OP_WRITE);
    wire is_read  = (opcode == `QPNIC_WQE_OP_READ);
    wire is_sinv  = (opcode == `QPNIC_WQE_OP_SEND_INV);
    wire is_inval = (opcode == `QPNIC_WQE_OP_INVALIDATE);
    wire is_freg  = (opcode == `QPNIC_WQE_OP_FAST_REG);
    wire is_bind  = (opcode == `QPNIC_WQE_OP_BIND);
    wire is_idata = (opcode == `QPNIC_WQE_OP_INLINE_DATA);
    wire is_inline = ((flags & `QPNIC_OP_FLAG_INLINE) != 16'd0) && (is_send || is_sinv || is_write);
    wire [7:0] inline_len = wqe[`QPNIC_WQE_INLINE_INLINE_LEN_FLAT];
    wire inline_bad = is_inline && ((nsge != 4'd0) || ({24'd0, inline_len} > `QPNIC_MAX_INLINE_BYTES));
    // The entry a FAST_REG or a BIND writes, in the QP's PD (word w of the
    // WQE is at [32w +: 32], as the layout's _FLAT ranges count). FAST_REG:
    // all of it from its WQE (struct wqe_freg); the entry is the lkey's low
    // bits. BIND: a window (struct wqe_bind), the entry the rkey's low bits,
    // its device address the region's, as the check of SGE 0 translated it
    // (seg_addr), no local token, remote rights only.
    wire [31:0] f_lkey = wqe[`QPNIC_WQE_FREG_LKEY_FLAT];
    wire [31:0] b_rkey = wqe[`QPNIC_WQE_BIND_RKEY_FLAT];
    wire [2:0]  b_access = wqe[`QPNIC_WQE_BIND_ACCESS_FLAT] &
                           (`QPNIC_MR_ACCESS_REMOTE_READ | `QPNIC_MR_ACCESS_REMOTE_WRITE);
    // a BIND is malformed unless SGE 0, and only it, names a range
    // (and, below, unless its entry was granted as a window of the QP's PD)
    wire        bind_shape_bad = is_bind && ((nsge != 4'd1) || (wqe[`QPNIC_WQE_BIND_LEN_FLAT] == 32'd0));
    // a FAST_REG maps pages through the page table only: a device address
    // without PT_ADDR_BIT would be a region over any host memory the WQE
    // names, outside every registered range (found by the ring fuzzer)
    wire [63:0] f_dma = {wqe[`QPNIC_WQE_FREG_DMA_HI_FLAT], wqe[`QPNIC_WQE_FREG_DMA_LO_FLAT]};
    // ... and only over the page table run the host granted the lkey's
    // entry (MR_CMD GRANT), in the QP's PD: the entries of another region,
    // of another PD or of none (stale frame numbers) stay out of reach
    // (found by the ring fuzzer too). One grant RAM word per token entry,
    // read at the WQE's lkey as the WQE waits for its context.
    localparam PS  = `QPNIC_FREG_PAGE_SHIFT;
    localparam PTW = `QPNIC_CAPS3_PT_ENTRIES_WIDTH;
    localparam PGW = 32 - PS;
    localparam GW  = 1 + `QPNIC_PD_BITS + PTW + PGW;
    localparam TIB = `QPNIC_TOKEN_INDEX_BITS;
    localparam GAW = (NUM_MR > 1) ? $clog2(NUM_MR) : 1;
    localparam [TIB:0] NUM_MR_V = NUM_MR[TIB:0];
    wire          gr_busy;
    wire [GW-1:0] gr_word;
    qpnic_ram_sdp #(.WIDTH(GW), .AW(GAW), .CLEAR(1)) u_grants (
        .clk(clk), .rst(rst), .busy(gr_busy),
        .wr_en(gr_wr_en && ({1'b0, gr_wr_idx} < NUM_MR_V)), .wr_addr(gr_wr_idx[GAW-1:0]),
        .wr_data({gr_wr_window, gr_wr_pd, gr_wr_first, gr_wr_pages}),
        .rd_en(1'b1), .rd_addr(f_lkey[GAW-1:0]), .rd_data(gr_word));
    // the word from a register too: the block RAM's clock-to-out (5.8 ns on
    // the ECP5) ahead of the check's carry chains made it the 85F's
    // longest path (docs/synthesis.md, run 38); the check has cycles to
    // spare (see grant_bad_r below)
    reg  [GW-1:0]             gr_word_r;
    reg                       gr_busy_r;
    always @(posedge clk) begin
        gr_word_r <= gr_word;
        gr_busy_r <= gr_busy;
    end
    wire                      g_window = gr_word_r[GW-1];
    wire [`QPNIC_PD_BITS-1:0] g_pd    = gr_word_r[GW-2 -: `QPNIC_PD_BITS];
    wire [PTW-1:0]            g_first = gr_word_r[PGW +: PTW];
    wire [PGW-1:0]            g_pages = gr_word_r[PGW-1:0];
    wire [PTW-1:0]            f_entry = f_dma[PS +: PTW];
    wire [PTW-1:0]            f_rel   = f_entry - g_first;
    // where the region ends, in bytes from the run's first page
    wire [PTW+PS:0]           f_end   = {1'b0, f_rel, f_dma[PS-1:0]} +
                                        {{(PTW+PS+1-32){1'b0}}, wqe[`QPNIC_WQE_FREG_LEN_FLAT]};
    wire        g_here = !gr_busy_r && ({1'b0, f_lkey[TIB-1:0]} < NUM_MR_V) && g_pd == ctx_pd;
    wire        freg_granted = g_here && !g_window &&
                               g_pages != {PGW{1'b0}} && f_entry >= g_first &&
                               f_end <= {{(PTW+PS+1-32){1'b0}}, g_pages, {PS{1'b0}}};
    // a BIND writes only an entry the host made a window of the QP's PD
    // (MR_CMD GRANT_WINDOW): never a region's, of its PD or another. Its
    // rkey is word 1, as a FAST_REG's lkey: the same grant word.
    // The grant checks (the grant RAM's word, a subtraction, an addition,
    // compares) are too long for S_DECODE's cycle, so they are registered
    // every cycle and used on the WQE's second pass through S_DECODE
    // (tt_fresh): a FAST_REG or BIND always makes that pass (it waits for
    // the remotes and READs its context again, S_CTX), and by then the WQE,
    // its lkey's grant word and the QP's PD have been steady for cycles
    // (the lkey is the WQE's since S_LOAD; the RAM's word, its register and
    // this one follow it three cycles later, while the context's second
    // READ alone takes as long: S_CTX asks, and the answer comes three
    // cycles after the grant, two with qpnic_qp_table WORD_REGS 0, the
    // iCE40's). A QP that changed
    // meanwhile is stale and goes back to S_LOAD first.
    reg         grant_bad_r;
    always @(posedge clk)
        grant_bad_r <= (is_freg && !freg_granted) || (is_bind && !(g_here && g_window));
    wire        bind_bad = bind_shape_bad || (is_bind && tt_fresh && grant_bad_r);
    wire        freg_bad = is_freg && (!f_dma[`QPNIC_PT_ADDR_BIT] || (tt_fresh && grant_bad_r) ||
                                       f_dma[`QPNIC_PT_ADDR_BIT-1:PS+PTW] != {(`QPNIC_PT_ADDR_BIT-PS-PTW){1'b0}});
    assign fr_valid = (state == S_FREG);
    assign fr_idx   = is_bind ? b_rkey[`QPNIC_TOKEN_INDEX_BITS-1:0] : f_lkey[`QPNIC_TOKEN_INDEX_BITS-1:0];
    qpnic_mr_pack u_fr (
        .va(is_bind ? {wqe[`QPNIC_WQE_BIND_VA_HI_FLAT], wqe[`QPNIC_WQE_BIND_VA_LO_FLAT]}
                    : {wqe[`QPNIC_WQE_FREG_VA_HI_FLAT], wqe[`QPNIC_WQE_FREG_VA_LO_FLAT]}),
        .len(is_bind ? wqe[`QPNIC_WQE_BIND_LEN_FLAT] : wqe[`QPNIC_WQE_FREG_LEN_FLAT]),
        .dma(is_bind ? seg_addr[63:0] : f_dma),
        .lkey(is_bind ? 32'd0 : f_lkey),
        .rkey(is_bind ? b_rkey : wqe[`QPNIC_WQE_FREG_RKEY_FLAT]),
        .access(is_bind ? b_access : wqe[`QPNIC_WQE_FREG_ACCESS_FLAT]),
        .pd(ctx_pd), .window(is_bind), .entry(fr_entry));

    // The SGE list, checked by qpnic_sge_check while in S_CHECK (started as
    // S_DECODE moves there).
    wire fence_wait = ((flags & `QPNIC_OP_FLAG_READ_FENCE) != 16'd0) && !reads_idle;
    // a token table operation not yet READ again after the remotes' wait
    wire tt_wait  = (is_freg || is_inval || is_bind) && !tt_fresh;
    wire sg_start = (state == S_DECODE) && !fence_wait && !tt_wait && !ctx_stale &&
                    (cur_state != `QPNIC_QP_STATE_RESET) &&
                    !cur_in_err && (is_send || is_sinv || is_write || is_read || is_bind) &&
                    nsge <= MAX_SGE && !bind_bad && !is_inline;
    // the rights the SGEs need: a READ writes them; a window that grants
    // REMOTE_WRITE needs a region the NIC may write
    wire [2:0] sg_need = (is_read || (is_bind && (b_access & `QPNIC_MR_ACCESS_REMOTE_WRITE) != 3'd0))
                         ? `QPNIC_MR_ACCESS_LOCAL_WRITE : 3'd0;
    // the check port: the SGE checks, or an INVALIDATE's one check
    wire        sg_chk_valid;
    wire [31:0] sg_chk_token;
    wire        inv_issue = (state == S_INV) && !inv_sent;
    assign chk_valid = sg_chk_valid || inv_issue;
    assign chk_token = inv_issue ? rtoken : sg_chk_token;
    assign chk_inval = inv_issue;
    assign chk_pd    = ctx_pd;
    qpnic_sge_check u_sge (
        .clk(clk), .rst(rst),
        .start(sg_start), .sges(wqe[32*`QPNIC_WQE_SGE_WORD +: 32*SGE_WORDS*MAX_SGE]),
        .nsge(nsge), .need(sg_need),
        .busy(sg_busy), .done(sg_done), .fail(sg_fail), .total(total),
        .ld_valid(state == S_INL), .ld_i(seg_i), .ld_addr(inl_part), .ld_len(inl_len),
        .seg_addr(seg_addr), .seg_len(seg_len),
        .chk_valid(sg_chk_valid), .chk_token(sg_chk_token), .chk_va(chk_va),
        .chk_len(chk_len), .chk_need(chk_need),
        .res_valid(res_valid), .res_ok(res_ok), .res_dev(res_dev));

    // --- QP state of this WQE (from its READ) ---
    wire [`QPNIC_QP_STATE_BITS-1:0] cur_state = ctx_state;
    wire       cur_in_err = (cur_state == `QPNIC_QP_STATE_ERROR);

    // --- the table request: READ in S_LOAD/S_CTX, SET_ERR in S_ERR, PSN in S_JOB ---
    // PSN and SET_ERR carry the WQE's epoch (READ ignores it): a WQE that
    // went stale under a rewind neither takes a PSN nor fails its QP
    assign tq_req_valid = tq_busy;
    assign tq_req_qpn   = qpn;
    // (PSN: the message's packets less one in bits 15:0, 0 for others)
    assign tq_req_arg   = {{(31 - `QPNIC_EPOCH_ARG_BIT){1'b0}}, epoch,
                           (state == S_JOB) ? npkts_m1 : 16'd0};
    always @* begin
        case (state)
        S_ERR:   tq_req_op = `QPNIC_QP_OP_SET_ERR;
        S_JOB:   tq_req_op = `QPNIC_QP_OP_PSN;
        default: tq_req_op = `QPNIC_QP_OP_READ;
        endcase
    end
    wire tq_grant  = tq_busy && tq_req_ready;
    wire tq_answer = tq_wait && tq_rsp_valid;
    // PSN's answer: the packet's PSN and the peer's QP number
    wire [23:0] rsp_psn = tq_rsp_ctx[`QPNIC_QP_CTX_PSN_FLAT];
    wire [23:0] rsp_dqp = tq_rsp_ctx[`QPNIC_QP_CTX_REMOTE_QPN_FLAT];
    wire        rsp_same_epoch = (tq_rsp_ctx[`QPNIC_QP_CTX_EPOCH_FLAT] == epoch);

    // --- CQE type of this opcode (unknown ones complete as SEND) ---
    reg [`QPNIC_CQE_TYPE_WIDTH-1:0] cqe_type;
    always @* begin
        case (opcode)
        `QPNIC_WQE_OP_WRITE:      cqe_type = `QPNIC_CQE_TYPE_WRITE;
        `QPNIC_WQE_OP_READ:       cqe_type = `QPNIC_CQE_TYPE_READ;
        `QPNIC_WQE_OP_FAST_REG:   cqe_type = `QPNIC_CQE_TYPE_FAST_REGISTER;
        `QPNIC_WQE_OP_BIND:       cqe_type = `QPNIC_CQE_TYPE_BIND;
        `QPNIC_WQE_OP_INVALIDATE: cqe_type = `QPNIC_CQE_TYPE_INVALIDATE;
        default:                  cqe_type = `QPNIC_CQE_TYPE_SEND;
        endcase
    end

    // --- segments: the message's packets on the wire ---
    wire        ctx_net  = ctx_peer != 0;   // the packet goes to another NIC
    wire        seg_on   = (WIRE != 0) && (ctx_net || wire_all);
    // A request resumed (a READ, WRITE, SEND or SEND_INV): the bytes of
    // its message (a READ's response) the target already took, less than
    // the whole (the packet that completes it never needs sending again)
    assign look_qpn   = qpn;
    assign look_index = index;
    assign look_gen   = ctx_gen;
    // (held through S_JOB: its PSN request and the job take the same)
    // (only a WQE that sent packets has an entry: its index says it)
    wire [31:0] r_skip_now = ((WIRE != 0) && look_hit && look_bytes < p_total[31:0]) ? look_bytes : 32'd0;
    reg  [31:0] r_skip;
    wire [31:0] q_total  = p_total[31:0] - r_skip;   // what the packets carry
    // packets less one: of a READ's response, or of the message; 16 bits
    // (a longer one completed LOC_LEN in S_CHECK: seg_max)
    wire [31:0] p_less   = q_total - 32'd1;
    // (its bits above 15 are zero for every message that gets this far)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] p_pkts   = p_less >> path_mtu;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [15:0] npkts_m1 = (seg_on && p_total != 34'd0) ? p_pkts[15:0] : 16'd0;
    wire [33:0] seg_max  = 34'd1 << ({30'd0, path_mtu} + 34'd16);

    // --- the packet header, from the job and the back end's place ---
    // (PATH_MTU is steady while requests are outstanding: the front end's
    // packet count and the back end's packets agree)
    wire [12:0] mtu_b    = 13'd1 << path_mtu;
    // (a build without the wire sends every message as one packet: these
    // fold to it, the back end's packet index and bytes left with them)
    wire        b_at0    = (WIRE == 0) || (b_k == 16'd0);   // the job's first packet
    wire        b_first  = b_at0 && !job_mid;                // the message's
    wire [31:0] b_rem    = b_at0 ? job_total : b_left;       // bytes from this packet on
    wire        b_lastp  = (WIRE == 0) || !job_seg || job_read || b_rem <= {19'd0, mtu_b};
    wire       has_reth    = (job_write && b_first) || job_read;
    wire       has_ieth    = job_inv && b_lastp;
    wire [3:0] hdr_words   = has_reth ? HDR_RETH : has_ieth ? HDR_IETH : HDR_PLAIN;
    wire [31:0] payload    = job_read ? 32'd0 : b_lastp ? b_rem : {19'd0, mtu_b};
    wire [23:0] cur_psn    = (WIRE == 0) ? job_psn : job_psn + {8'd0, b_k};
    // A stale WQE's message on the wire is not sent at all (its payload is
    // drained): its packets would carry PSNs the rewound requests carry
    // again, and a target could take one for theirs. (On the loopback, which
    // loses nothing, it goes out as PSN - 1, a duplicate the target answers
    // again: the completer waits for that answer there.)
    wire        hdr_mute   = job_stale && job_seg;
    // packets of this message follow the one B_DATA sends (the bytes after it)
    wire        b_more     = (WIRE != 0) && (b_left != 32'd0);
    reg         dat_mute;   // the packet whose payload B_DATA drains is muted
    reg  [7:0]  b_opcode;
    always @* begin
        if (job_read)
            b_opcode = `QPNIC_IB_OPCODE_READ_REQUEST;
        else if (job_write)
            b_opcode = (b_first && b_lastp) ? `QPNIC_IB_OPCODE_WRITE_ONLY :
                       b_first ? `QPNIC_IB_OPCODE_WRITE_FIRST :
                       b_lastp ? `QPNIC_IB_OPCODE_WRITE_LAST : `QPNIC_IB_OPCODE_WRITE_MIDDLE;
        else if (b_first && b_lastp)
            b_opcode = job_inv ? `QPNIC_IB_OPCODE_SEND_ONLY_INV : `QPNIC_IB_OPCODE_SEND_ONLY;
        else
            b_opcode = b_first ? `QPNIC_IB_OPCODE_SEND_FIRST :
                       !b_lastp ? `QPNIC_IB_OPCODE_SEND_MIDDLE :
                       job_inv ? `QPNIC_IB_OPCODE_SEND_LAST_INV : `QPNIC_IB_OPCODE_SEND_LAST;
    end
    // Header word hdr_i, built on its own: one 32-bit word a cycle, never
    // the whole header (which the simulator would rebuild every cycle). Each
    // header word holds the fields the layout puts in it (BTH opcode, se and
    // pkey share BTH word 0).
    reg [31:0] hdr_word;
    always @* begin
        hdr_word = 32'd0;
        case (hdr_i)
        LRH_AT + `QPNIC_LRH_PEER_WORD:
            hdr_word[`QPNIC_LRH_PEER] = job_peer;
        LRH_AT + `QPNIC_LRH_PAYLOAD_BYTES_WORD:
            hdr_word[`QPNIC_LRH_PAYLOAD_BYTES] = payload;
        BTH_AT + `QPNIC_BTH_OPCODE_WORD: begin
            hdr_word[`QPNIC_BTH_OPCODE] = b_opcode;
            hdr_word[`QPNIC_BTH_SE]     = job_se && b_lastp;
            hdr_word[`QPNIC_BTH_PKEY]   = 16'hFFFF;
        end
        BTH_AT + `QPNIC_BTH_DEST_QP_WORD:
            hdr_word[`QPNIC_BTH_DEST_QP] = job_dqp;
        BTH_AT + `QPNIC_BTH_PSN_WORD: begin
            hdr_word[`QPNIC_BTH_PSN]    = cur_psn;
            hdr_word[`QPNIC_BTH_ACKREQ] = b_lastp;   // one answer a message
        end
        RETH_AT + `QPNIC_RETH_VA_HI_WORD:   // the IETH, for SEND_ONLY_INV, sits here
            if (has_ieth) hdr_word[`QPNIC_IETH_RKEY] = job_rtoken;
            else         hdr_word[`QPNIC_RETH_VA_HI] = job_rva_hi;
        RETH_AT + `QPNIC_RETH_VA_LO_WORD:   hdr_word[`QPNIC_RETH_VA_LO]   = job_rva_lo;
        RETH_AT + `QPNIC_RETH_RKEY_WORD:    hdr_word[`QPNIC_RETH_RKEY]    = job_rtoken;
        RETH_AT + `QPNIC_RETH_DMA_LEN_WORD: hdr_word[`QPNIC_RETH_DMA_LEN] = job_total;
        default: ;
        endcase
    end

    // --- the payload's segments: the checked SGEs, or an INLINE request's
    // slots of the SQ ring ---
    wire [33:0]           p_total = is_inline ? {26'd0, inline_len} : total;
    // The INLINE segments of the WQE at `index`: INLINE_HEAD_BYTES from its
    // word 5, then up to INLINE_SLOT_BYTES from word 1 of each of the next
    // INLINE_DATA_SLOTS slots (each ring position wraps at the SQ's depth).
    // MAX_SGE (3) segments hold the WQE's and its two data slots'.
    // where in its slot each part starts: the bytes a slot carries are its
    // last; below one slot's 64 bytes, so a part's address is the ring's
    // base plus {slot position, offset}: one add
    localparam integer INL_HEAD_BYTE = `QPNIC_WQE_BYTES - `QPNIC_INLINE_HEAD_BYTES;   // word 5
    localparam integer INL_SLOT_BYTE = `QPNIC_WQE_BYTES - `QPNIC_INLINE_SLOT_BYTES;   // word 1
    localparam [5:0] INL_HEAD_AT = INL_HEAD_BYTE[5:0];
    localparam [5:0] INL_SLOT_AT = INL_SLOT_BYTE[5:0];
    function [63:0] sq_part(input [`QPNIC_INDEX_BITS-1:0] i, input [5:0] at);
        reg [`QPNIC_INDEX_BITS-1:0] pos;
        begin
            pos     = i & ~({`QPNIC_INDEX_BITS{1'b1}} << ctx_sq_log);
            sq_part = ctx_sq_base + {{(58-`QPNIC_INDEX_BITS){1'b0}}, pos, at};
        end
    endfunction
    // S_INL computes them one a cycle (seg_i), through one adder rather
    // than one per segment, and loads each into the SGE check's results
    // (seg_addr, seg_len), where the gather takes every payload's segments
    // from: segment 0 is the WQE's own slot (from word 5), segment n the
    // slot n places on (from word 1)
    wire [`QPNIC_INDEX_BITS-1:0] inl_pos  = index + {{(`QPNIC_INDEX_BITS-2){1'b0}}, seg_i};
    wire [63:0]                  inl_part = sq_part(inl_pos, (seg_i == 2'd0) ? INL_HEAD_AT : INL_SLOT_AT);
    wire [7:0]  inl_l0 = (inline_len < 8'd`QPNIC_INLINE_HEAD_BYTES) ? inline_len : 8'd`QPNIC_INLINE_HEAD_BYTES;
    wire [7:0]  inl_r1 = inline_len - inl_l0;
    wire [7:0]  inl_l1 = (inl_r1 < 8'd`QPNIC_INLINE_SLOT_BYTES) ? inl_r1 : 8'd`QPNIC_INLINE_SLOT_BYTES;
    wire [7:0]  inl_l2 = inl_r1 - inl_l1;
    // segment seg_i's length, for S_INL
    wire [31:0] inl_len = {24'd0, (seg_i == 2'd0) ? inl_l0 : (seg_i == 2'd1) ? inl_l1 : inl_l2};

    // --- the outstanding entry ---
    reg [`QPNIC_OST_WIDTH-1:0] ost;
    always @* begin
        ost = 0;
        ost[`QPNIC_OST_QPN]    = {{(8-QW){1'b0}}, qpn};
        ost[`QPNIC_OST_INDEX]  = index;
        ost[`QPNIC_OST_TYPE]   = cqe_type;
        ost[`QPNIC_OST_STATUS] = status;
        ost[`QPNIC_OST_LOCAL]  = is_local;
        ost[`QPNIC_OST_READ]   = is_read && !is_local;
        // a local completion moved nothing (its byte count is not read: V7)
        ost[`QPNIC_OST_BYTES]  = is_local ? 32'd0 : p_total[31:0];
        ost[`QPNIC_OST_SLOT]   = ost_slot;
        ost[`QPNIC_OST_SILENT] = (flags & `QPNIC_OP_FLAG_SILENT_SUCCESS) != 16'd0;
        ost[`QPNIC_OST_NO_CQE] = is_idata;
        ost[`QPNIC_OST_EPOCH]  = epoch;
        ost[`QPNIC_OST_NET]    = ctx_net && !is_local;
        ost[`QPNIC_OST_PEER]   = ctx_peer;
    end
    // A packet's entry and the start of its gather go together.
    wire has_payload = !is_read && !is_local && p_total != 34'd0;
    // A packet to another NIC (a peer, or this one's loopback) than the
    // outstanding packets' waits for them all to be answered: the
    // completer takes the answers in its entries' order, and one NIC's
    // would overtake another's (docs/wire.md, "Two NICs"). On the wire, a
    // packet of another QP than theirs waits too: while the completer
    // waits for one QP's lost answer it drops the others' ("One QP at a
    // time")
    wire class_clear = remotes_idle || (ctx_peer == out_peer && (!seg_on || qpn == out_qpn));
    wire ost_go      = (state == S_OST) && (is_local || ((!has_payload || g_start_ready) && class_clear));
    assign ost_valid = ost_go;
    assign ost_data  = ost;

    // A READ's segments go to the segment RAM at its entry's slot, one a
    // cycle, before the entry is pushed; the completer reads them there when
    // the READ's response comes. The RAM has twice the outstanding FIFO's
    // slots: the FIFO's entries and the completer's one are never the slot
    // being written.
    reg [`QPNIC_SEG_BITS-1:0] seg_word;
    always @* begin
        seg_word = {`QPNIC_SEG_BITS{1'b0}};
        seg_word[`QPNIC_SEG_ADDR_LO_FLAT] = seg_addr[seg_i*64 +: 32];
        seg_word[`QPNIC_SEG_ADDR_HI_FLAT] = seg_addr[seg_i*64+32 +: 32];
        seg_word[`QPNIC_SEG_LEN_FLAT]     = seg_len[seg_i*32 +: 32];
    end
    // the PSN's answer, at the slot of the entry pushed just before
    assign psn_wr_en   = (state == S_JOB) && tq_answer;
    assign psn_wr_slot = ost_slot - 1'b1;
    assign psn_wr_psn  = rsp_same_epoch ? rsp_psn : rsp_psn - 24'd1;
    assign psn_wr_last = psn_wr_psn + {8'd0, npkts_m1};
    assign seg_wr_en   = (state == S_SEG);
    assign seg_wr_addr = {ost_slot, seg_i};
    assign seg_wr_data = seg_word;


    // --- the gather (SEND and WRITE payloads) into the staging FIFO ---
    // (a resumed message's from the bytes its target has not taken on;
    // r_skip is settled before S_OST: the look-up answers as S_DECODE
    // begins)
    wire [MAX_SGE*64-1:0] g_seg_addr;
    wire [MAX_SGE*32-1:0] g_seg_len;
    qpnic_sge_skip #(.ON(WIRE != 0)) u_skip (
        .in_addr(seg_addr), .in_len(seg_len), .skip(r_skip_now),
        .out_addr(g_seg_addr), .out_len(g_seg_len));
    wire        g_out_valid, g_out_ready, g_out_last, g_idle;
    wire [31:0] g_out_data;
    wire [3:0]  g_out_keep;
    wire        g_start_ready;
    wire [STAGE_LOG_DEPTH:0] st_count;
    qpnic_gather #(.SINK_WORDS(STAGE_DEPTH)) u_gather (
        .clk(clk), .rst(rst),
        .start_valid(ost_go && ost_ready && !is_local && has_payload),
        .start_ready(g_start_ready), .start_one(is_send || is_sinv), .drain(gather_drain),
        .start_addr(g_seg_addr), .start_len(g_seg_len),   // (INLINE's loaded in S_INL)
        .sink_count({{(15-STAGE_LOG_DEPTH){1'b0}}, st_count}),
        .rd_req_valid(rd_req_valid), .rd_req_ready(rd_req_ready),
        .rd_req_addr(rd_req_addr), .rd_req_len(rd_req_len),
        .rd_rsp_valid(rd_rsp_valid), .rd_rsp_ready(rd_rsp_ready),
        .rd_rsp_data(rd_rsp_data), .rd_rsp_keep(rd_rsp_keep),
        .rd_rsp_last(rd_rsp_last),
        .out_valid(g_out_valid), .out_ready(g_out_ready),
        .out_data(g_out_data), .out_keep(g_out_keep), .out_last(g_out_last),
        .idle(g_idle));

    wire        st_valid, st_last;
    wire [31:0] st_data;
    wire [2:0]  st_keep_hi;
    wire [3:0]  st_keep = {st_keep_hi, 1'b1};
    wire        st_ready;
    // 36 bits a beat, one block RAM wide: the gather's keep is the DMA read
    // data's, packed from lane 0, so keep[0] is always set and not stored
    qpnic_fifo #(.WIDTH(36), .LOG_DEPTH(STAGE_LOG_DEPTH), .STYLE("block")) u_stage (
        .clk(clk), .rst(rst),
        .in_valid(g_out_valid), .in_ready(g_out_ready),
        .in_data({g_out_last, g_out_keep[3:1], g_out_data}),
        .out_valid(st_valid), .out_ready(st_ready),
        .out_data({st_last, st_keep_hi, st_data}),
        .count(st_count));
`ifndef SYNTHESIS
    always @(posedge clk)
        if (!rst && g_out_valid && !g_out_keep[0])
            $error("qpnic_requester: a gathered beat without keep[0]");
`endif

    // --- the staged payload, cut into packets on the wire ---
    // (a build without the wire sends every message as one packet)
    wire        sp_valid, sp_last, sp_idle;
    wire [31:0] sp_data;
    wire [3:0]  sp_keep;
    wire        sp_ready = (bstate == B_DATA) && (out_ready || dat_mute);
    qpnic_pkt_split #(.ON(WIRE != 0)) u_split (
        .clk(clk), .rst(rst), .pkt_len(b_plen),
        .in_valid(st_valid), .in_ready(st_ready), .in_data(st_data),
        .in_keep(st_keep), .in_last(st_last),
        .out_valid(sp_valid), .out_ready(sp_ready), .out_data(sp_data),
        .out_keep(sp_keep), .out_last(sp_last), .idle(sp_idle));

    // --- the back end: header, then the staged payload ---
    wire hdr_final = (hdr_i == hdr_words - 4'd1);
    always @* begin
        out_valid = 1'b0;
        out_data  = 32'd0;
        out_keep  = 4'd0;
        out_last  = 1'b0;
        if (bstate == B_HDR) begin
            out_valid = !hdr_mute;
            out_data  = hdr_word;
            out_keep  = 4'hF;
            out_last  = hdr_final && (payload == 32'd0);
        end else if (bstate == B_DATA) begin
            out_valid = sp_valid && !dat_mute;
            out_data  = sp_data;
            out_keep  = sp_keep;
            out_last  = sp_last;
        end
    end

    assign wqe_ready = (state == S_LOAD);
    assign fence_hold  = (state == S_CHECK) || (state == S_OST);
    assign gather_busy = !g_idle;
    assign idle      = (state == S_LOAD) && (ld_pair == 3'd0) && !job_valid && !sg_busy &&
                       !tq_busy && !tq_wait &&
                       (bstate == B_IDLE) && g_idle && (st_count == 0) && sp_idle;

    // A local completion: status s, QP to ERROR unless s is FLUSHED or
    // SUCCESS (an INVALIDATE).
    task finish_local(input [7:0] s);
        begin
            is_local <= 1'b1;
            status   <= s;
            state    <= S_OST;
        end
    endtask

    always @(posedge clk) begin
        if (rst) begin
            state      <= S_LOAD;
            inv_sent   <= 1'b0;
            wqe        <= 512'd0;
            ld_pair    <= 3'd0;
            qpn        <= {QW{1'b0}};
            ctx_state  <= `QPNIC_QP_STATE_RESET;
            ctx_pd     <= 0;
            ctx_gen    <= 0;
            r_skip     <= 32'd0;
            ctx_peer   <= {`QPNIC_PEER_BITS{1'b0}};
            ctx_sq_base <= 64'd0;
            ctx_sq_log <= 5'd0;
            ctx_have   <= 1'b0;
            tq_busy    <= 1'b0;
            tq_wait    <= 1'b0;
            index      <= 0;
            epoch      <= 1'b0;
            ctx_stale  <= 1'b0;
            tt_fresh   <= 1'b0;
            is_local   <= 1'b0;
            status     <= `QPNIC_CQE_STATUS_SUCCESS;
            hdr_i      <= 4'd0;
            ost_slot   <= 0;
            seg_i      <= 2'd0;
            bstate     <= B_IDLE;
            job_valid  <= 1'b0;
            job_psn    <= 24'd0;
            job_dqp    <= 24'd0;
            nxt_psn    <= 24'd0;
            nxt_dqp    <= 24'd0;
            job_peer   <= {`QPNIC_PEER_BITS{1'b0}};
            job_seg    <= 1'b0;
            job_stale  <= 1'b0;
            job_mid    <= 1'b0;
            nxt_stale  <= 1'b0;
            dat_mute   <= 1'b0;
            b_k        <= 16'd0;
            b_left     <= 32'd0;
            b_plen     <= 32'd0;
            job_write  <= 1'b0;
            job_read   <= 1'b0;
            job_se     <= 1'b0;
            job_inv    <= 1'b0;
            job_total  <= 32'd0;
            job_rtoken <= 32'd0;
            job_rva_lo <= 32'd0;
            job_rva_hi <= 32'd0;
        end else begin
            case (state)
            S_LOAD:
                if (wqe_valid) begin
                    // each pair's slot by its own constant index: no
                    // multiplexer in front of the 512 bits (Yosys builds one
                    // for a part-select by a moving index)
                    for (wp = 0; wp < WQE_PAIRS; wp = wp + 1)
                        if ({29'd0, ld_pair} == wp) wqe[64*wp +: 64] <= wqe_data;
                    ld_pair <= ld_pair + 3'd1;
                    // the WQE's QP is known with its first pair: READ its
                    // context while the rest of the WQE comes in
                    if (ld_pair == 3'd0) begin
                        qpn      <= wqe_qpn;
                        index    <= wqe_index;
                        epoch    <= wqe_epoch;
                        tt_fresh <= 1'b0;
                        tq_busy  <= 1'b1;
                        ctx_have <= 1'b0;
                    end
                    if (wqe_last) begin
                        ld_pair <= 3'd0;
                        state   <= S_CTX;
                    end
                end
            S_CTX:
                if (ctx_have || tq_answer) state <= S_DECODE;
            S_DECODE: begin
                is_local <= 1'b0;
                status   <= `QPNIC_CQE_STATUS_SUCCESS;
                if (cur_state == `QPNIC_QP_STATE_RESET || ctx_stale)
                    state <= S_LOAD;
                else if (is_idata)
                    finish_local(`QPNIC_CQE_STATUS_SUCCESS);   // retired, no CQE
                else if (cur_in_err)
                    finish_local(`QPNIC_CQE_STATUS_FLUSHED);
                else if (!(is_send || is_sinv || is_write || is_read || is_inval || is_freg || is_bind) ||
                         nsge > MAX_SGE || bind_bad || freg_bad || inline_bad)
                    finish_local(`QPNIC_CQE_STATUS_BAD_WQE);
                else if (tt_wait) begin
                    // a token table operation: once every earlier request
                    // is acknowledged, READ the context again and decide
                    // on that (stale, ERROR)
                    if (remotes_idle) begin
                        tt_fresh <= 1'b1;
                        tq_busy  <= 1'b1;
                        ctx_have <= 1'b0;
                        state    <= S_CTX;
                    end
                end else if (fence_wait)
                    state <= S_DECODE;   // READ_FENCE: earlier READs first
                else if (is_freg)
                    state <= S_FREG;
                else if (is_inval) begin
                    inv_sent <= 1'b0;
                    state    <= S_INV;
                end else if (is_inline) begin
                    seg_i <= 2'd0;
                    state <= S_INL;
                end else
                    state <= S_CHECK;
            end
            S_FREG:
                if (fr_ready) finish_local(`QPNIC_CQE_STATUS_SUCCESS);
            S_INV: begin
                inv_sent <= 1'b1;
                if (inv_sent && res_valid)
                    finish_local(res_ok ? `QPNIC_CQE_STATUS_SUCCESS : `QPNIC_CQE_STATUS_BAD_TOKEN);
            end
            S_CHECK:   // with done, every answer is in (total included)
                if (sg_done) begin
                    if (sg_fail)
                        finish_local(`QPNIC_CQE_STATUS_LOC_PROT);
                    else if (is_bind)
                        state <= S_FREG;   // the window's entry, from the answer
                    else if (total > MAX_MSG || (seg_on && total > seg_max))
                        finish_local(`QPNIC_CQE_STATUS_LOC_LEN);
                    else if (is_read) begin
                        seg_i <= 2'd0;
                        state <= S_SEG;
                    end else
                        state <= S_OST;
                end
            S_SEG: begin
                seg_i <= seg_i + 2'd1;
                if ({2'b00, seg_i} == MAX_SGE - 1) state <= S_OST;
            end
            S_INL: begin
                seg_i <= seg_i + 2'd1;
                if ({2'b00, seg_i} == MAX_SGE - 1) state <= S_OST;
            end
            S_OST:
                // ost_go: a packet with payload also needs the gather
                if (ost_go && ost_ready) begin
                    ost_slot <= ost_slot + 1'b1;
                    if (!is_local) begin
                        tq_busy <= 1'b1;      // PSN
                        state   <= S_JOB;
                    end else if (status == `QPNIC_CQE_STATUS_FLUSHED ||
                                 status == `QPNIC_CQE_STATUS_SUCCESS)
                        state <= S_LOAD;
                    else begin
                        tq_busy <= 1'b1;      // SET_ERR
                        state   <= S_ERR;
                    end
                end
            S_ERR:
                if (tq_grant) state <= S_LOAD;
            S_JOB:
                // the PSN's answer is in (job_psn) and the job register free
                if (!tq_busy && !tq_wait && !job_valid) state <= S_LOAD;
            default: state <= S_LOAD;
            endcase

            // the table request: up until granted; READ and PSN then await
            // their answer
            if (tq_grant) begin
                tq_busy <= 1'b0;
                tq_wait <= (state != S_ERR);
            end
            if (tq_answer) tq_wait <= 1'b0;
            if (state != S_JOB) r_skip <= r_skip_now;
            // the READ's answer, in S_LOAD or S_CTX
            if (tq_answer && (state == S_LOAD || state == S_CTX)) begin
                ctx_stale  <= !rsp_same_epoch;
                ctx_state <= tq_rsp_ctx[`QPNIC_QP_CTX_STATE_FLAT];
                ctx_peer  <= tq_rsp_ctx[`QPNIC_QP_CTX_PEER_FLAT];
                ctx_gen   <= tq_rsp_ctx[`QPNIC_QP_CTX_GEN_FLAT];
                ctx_pd    <= tq_rsp_ctx[`QPNIC_QP_CTX_PD_FLAT];
                ctx_sq_base <= {tq_rsp_ctx[`QPNIC_QP_CTX_SQ_BASE_HI_FLAT], tq_rsp_ctx[`QPNIC_QP_CTX_SQ_BASE_LO_FLAT]};
                ctx_sq_log  <= tq_rsp_ctx[`QPNIC_QP_CTX_SQ_LOG_FLAT];
                ctx_have  <= 1'b1;
            end
            if (state == S_JOB && tq_answer) begin
                // a WQE gone stale since its READ took no PSN (the table
                // did not count it): it goes out as PSN - 1, which the
                // target, waiting for the rewound SEND's PSN, drops
                nxt_psn <= psn_wr_psn;
                nxt_stale <= !rsp_same_epoch;
                nxt_dqp <= rsp_dqp;
            end

            // the job register: filled by the front end, freed by the back
            // end once the header is out
            if (state == S_JOB && !tq_busy && !tq_wait && !job_valid) begin
                job_valid  <= 1'b1;
                job_psn    <= nxt_psn;
                job_dqp    <= nxt_dqp;
                job_peer   <= ctx_peer;   // (set at connect: the READ's answer has it)
                job_seg    <= seg_on;
                job_stale  <= nxt_stale;
                job_write  <= is_write;
                job_read   <= is_read;
                job_se     <= (is_send || is_sinv) &&
                              ((flags & `QPNIC_OP_FLAG_SEND_AND_SOLICIT) != 16'd0);
                job_inv    <= is_sinv;
                job_total  <= q_total;
                job_mid    <= (WIRE != 0) && !is_read && r_skip != 32'd0;
                job_rtoken <= rtoken;
                {job_rva_hi, job_rva_lo} <= {rva_hi, rva_lo} + {32'd0, r_skip};
            end

            case (bstate)
            B_IDLE:
                if (job_valid) begin
                    hdr_i  <= 4'd0;
                    bstate <= B_HDR;
                end
            B_HDR:
                if (out_ready || hdr_mute) begin
                    hdr_i <= hdr_i + 4'd1;
                    if (hdr_final) begin
                        // the job is the back end's until its last header
                        if (b_lastp) job_valid <= 1'b0;
                        b_plen <= payload;
                        b_left <= b_rem - payload;
                        dat_mute <= hdr_mute;
                        bstate <= (payload == 32'd0) ? B_IDLE : B_DATA;
                    end
                end
            B_DATA:
                if (sp_valid && (out_ready || dat_mute) && sp_last) begin
                    hdr_i <= 4'd0;
                    if (b_more) begin
                        b_k    <= b_k + 16'd1;   // the message's next packet
                        bstate <= B_HDR;
                    end else begin
                        b_k    <= 16'd0;         // straight on to the next job's header
                        bstate <= job_valid ? B_HDR : B_IDLE;
                    end
                end
            default: bstate <= B_IDLE;
            endcase

        end
    end
endmodule

`default_nettype wire
