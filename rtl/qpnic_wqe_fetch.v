// qpnic_wqe_fetch: the scheduler and WQE fetch engine (DESIGN.md, D8).
//
// It serves the doorbell queue of qpnic_qp_table: a QP is in that queue
// while its SQ holds WQEs the engine has not claimed, once, in the order
// the doorbells came (a QP with more left goes back to the tail: round
// robin). No QP is looked at unless it is in the queue, so the engine's
// cost does not grow with the number of QPs. For the QP at the head, once
// the WQE buffer has room for a whole burst, it asks the table to FETCH up
// to FETCH_BURST_WQES WQEs: the table claims n = min(new WQEs,
// FETCH_BURST_WQES, WQEs to the ring's end) atomically (0 for a QP in
// RESET), advances the QP's fetch pointer and answers with n and the ring.
// The engine fetches the n WQEs with one DMA read into its WQE buffer and
// hands them to the requester two 32-bit words (64 bits) at a time, so a
// WQE takes 8 cycles, with the QP number and free-running WQE index of
// each. QPs in ERROR are fetched too: their WQEs must be flushed. The
// buffer's slots are reserved when the read is issued, so the read's
// response always has room (the deadlock rule of docs/internals.md).
//
// Parameters
//   LOG_SLOTS         log2 of the WQE buffer's size in WQEs (>= 4: 16 WQEs)
//   FETCH_BURST_WQES  most WQEs fetched by one DMA read (64 B each; with
//                     MAX_DMA_BYTES 512 this is 8)
//   QW                bits of a QP number
// Ports
//   db_valid/ready, db_qpn   the doorbell queue (qpnic_qp_table)
//   tq_req_*                 request port of qpnic_qp_table (op FETCH)
//   tq_rsp_valid, tq_rsp_ctx, tq_rsp_n   its answer: the context before the
//                        claim (fetch_ptr, ring base and size) and n
//   rd_req_*, rd_rsp_*   DMA read master (index 0); responses are whole
//                        32-bit words (rings are 64-byte aligned)
//   wqe_valid/wqe_ready  WQE word pairs out, pair 0 (words 0, 1) first;
//                        wqe_last on pair 7 (words 14, 15)
//   wqe_data             the pair: word 2p at [31:0], word 2p+1 at [63:32]
//   wqe_qpn, wqe_index   the QP and free-running SQ index of that WQE
//   wqe_epoch            the QP's epoch when the WQE was claimed (a WQE
//                        claimed before an RNR rewind is stale)
//   cnt_fetch_read       one-cycle strobe: a WQE fetch read was issued
//   cnt_wqes_fetched     WQEs that read fetches (valid with the strobe, else 0)
//   idle                 nothing queued, nothing in flight, buffer empty
// The queue's head is popped into a register, then offered to the table
// (no combinational path from the queue to the table).
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_wqe_fetch #(
    parameter LOG_SLOTS        = 4,
    parameter FETCH_BURST_WQES = `QPNIC_FETCH_BURST_WQES,
    parameter QW               = 8
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire                 db_valid,
    output wire                 db_ready,
    input  wire [QW-1:0]        db_qpn,
    output wire                 tq_req_valid,
    input  wire                 tq_req_ready,
    output wire [3:0]           tq_req_op,
    output wire [QW-1:0]        tq_req_qpn,
    output wire [31:0]          tq_req_arg,
    input  wire                 tq_rsp_valid,
    // the context word all the table's clients share; this one reads the
    // fetch pointer and the SQ ring
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [`QPNIC_QP_CTX_BITS-1:0] tq_rsp_ctx,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [`QPNIC_INDEX_BITS-1:0] tq_rsp_n,
    output wire                 rd_req_valid,
    input  wire                 rd_req_ready,
    output wire [63:0]          rd_req_addr,
    output wire [15:0]          rd_req_len,
    input  wire                 rd_rsp_valid,
    output wire                 rd_rsp_ready,
    input  wire [31:0]          rd_rsp_data,
    input  wire [3:0]           rd_rsp_keep,
    input  wire                 rd_rsp_last,
    output wire                 wqe_valid,
    input  wire                 wqe_ready,
    output wire [63:0]          wqe_data,
    output wire                 wqe_last,
    output wire [QW-1:0]        wqe_qpn,
    output wire [`QPNIC_INDEX_BITS-1:0] wqe_index,
    output wire                 wqe_epoch,
    output wire                 cnt_fetch_read,
    output wire [3:0]           cnt_wqes_fetched,
    output wire                 idle
);
    localparam SLOTS      = 1 << LOG_SLOTS;
    localparam WQE_WORDS  = `QPNIC_WQE_WORDS;
    localparam WQE_BYTES  = `QPNIC_WQE_BYTES;
    localparam LOG_PAIRS  = LOG_SLOTS + $clog2(WQE_WORDS / 2);  // WQE_WORDS is a power of two
    // LAST_WORD = WQE_WORDS - 1 in 4 bits (16 words: 15), LAST_PAIR its pair
    localparam [4:0] WQE_WORDS_5 = WQE_WORDS;
    localparam [3:0] LAST_WORD = WQE_WORDS_5[3:0] - 4'd1;
    localparam [2:0] LAST_PAIR = LAST_WORD[3:1];

    localparam [2:0] S_PICK  = 3'd0,  // take the queue's head QP
                     S_CLAIM = 3'd1,  // wait for the table's answer: n, the ring
                     S_REQ   = 3'd2,  // DMA read request out
                     S_DATA  = 3'd3,  // response into the buffer
                     S_ASK   = 3'd4,  // FETCH for that QP, until the table grants it
                     S_HOLD  = 3'd5;  // the popped QP into ask_qpn

    reg [2:0]            state;
    reg [QW-1:0]         cur_qpn;
    reg [`QPNIC_INDEX_BITS-1:0] cur_index;   // index of the next WQE word 0 to arrive
    reg                  cur_epoch;   // the QP's epoch at the claim
    reg [63:0]           req_addr;
    reg [15:0]           req_len;
    reg [3:0]            req_n;
    reg [3:0]            in_word;     // word within the arriving WQE
    reg [LOG_SLOTS:0]    reserved;    // slots held by fetched or in-flight WQEs
    reg [2:0]            out_pair;    // pair within the WQE being handed out
    reg [31:0]           even_word;   // an arrived even word, waiting for its pair

    wire [LOG_SLOTS:0] free_slots = SLOTS[LOG_SLOTS:0] - reserved;
    // The head QP is offered only when the buffer can take a whole burst, so
    // reads go out as full as the SQ allows: fewer, fuller reads (D8).
    localparam [LOG_SLOTS:0] BURST = FETCH_BURST_WQES;
    wire               burst_fits = (free_slots >= BURST);
    // The head is popped into cur_qpn, copied to ask_qpn and asked for
    // from there, so that the queue's block RAM is not on the path into the
    // table's arbiter: Yosys merges cur_qpn, the register right at the
    // queue's (asynchronous) read, into the RAM as its synchronous read
    // port, whose clock-to-out on the ECP5 is 5.8 ns; ask_qpn stays a
    // flip-flop. The QP's sched mark keeps it out of the queue meanwhile.
    reg [QW-1:0] ask_qpn;
    assign db_ready     = (state == S_PICK) && db_valid && burst_fits;
    assign tq_req_valid = (state == S_ASK);
    assign tq_req_op    = `QPNIC_QP_OP_FETCH;
    assign tq_req_qpn   = ask_qpn;
    assign tq_req_arg   = FETCH_BURST_WQES;

    // the table's answer: n claimed, from fetch_ptr on, in the QP's ring
    wire [`QPNIC_INDEX_BITS-1:0] claim_ptr = tq_rsp_ctx[`QPNIC_QP_CTX_FETCH_PTR_FLAT];
    wire [63:0] ring_base = {tq_rsp_ctx[`QPNIC_QP_CTX_SQ_BASE_HI_FLAT],
                             tq_rsp_ctx[`QPNIC_QP_CTX_SQ_BASE_LO_FLAT]};
    wire [4:0]  ring_log  = tq_rsp_ctx[`QPNIC_QP_CTX_SQ_LOG_FLAT];
    wire [`QPNIC_INDEX_BITS-1:0] ring_mask = {`QPNIC_INDEX_BITS{1'b1}} >> (`QPNIC_INDEX_BITS - ring_log);
    wire        claimed   = (state == S_CLAIM) && tq_rsp_valid && tq_rsp_n != 0;
    wire [`QPNIC_INDEX_BITS-1:0] burst_n   = tq_rsp_n;   // <= FETCH_BURST_WQES

    // --- the WQE buffer: word pairs, plus one (qpn, index, epoch) entry per WQE ---
    wire [LOG_PAIRS:0] words_count;
    wire [LOG_SLOTS:0] meta_count;
    wire               words_in_ready, meta_in_ready, meta_out_valid;
    wire               rsp_fire  = rd_rsp_valid && rd_rsp_ready;
    wire               wqe_fire  = wqe_valid && wqe_ready;
    wire               wqe_done  = wqe_fire && wqe_last;

    assign rd_rsp_ready = (state == S_DATA);

    // A pair goes in as its odd word arrives (WQE reads are whole WQEs, so
    // pairs never straddle reads).
    qpnic_fifo #(.WIDTH(64), .LOG_DEPTH(LOG_PAIRS), .STYLE("block")) u_words (
        .clk(clk), .rst(rst),
        .in_valid(rsp_fire && in_word[0]), .in_ready(words_in_ready),
        .in_data({rd_rsp_data, even_word}),
        .out_valid(wqe_valid), .out_ready(wqe_ready), .out_data(wqe_data),
        .count(words_count));

    qpnic_fifo #(.WIDTH(1 + `QPNIC_INDEX_BITS + QW), .LOG_DEPTH(LOG_SLOTS), .STYLE("block")) u_meta (
        .clk(clk), .rst(rst),
        .in_valid(rsp_fire && in_word == 4'd0), .in_ready(meta_in_ready),
        .in_data({cur_epoch, cur_index, cur_qpn}),
        .out_valid(meta_out_valid), .out_ready(wqe_done),
        .out_data({wqe_epoch, wqe_index, wqe_qpn}),
        .count(meta_count));

    assign wqe_last = (out_pair == LAST_PAIR);

    assign rd_req_valid     = (state == S_REQ);
    assign rd_req_addr      = req_addr;
    assign rd_req_len       = req_len;
    assign cnt_fetch_read   = rd_req_valid && rd_req_ready;
    assign cnt_wqes_fetched = cnt_fetch_read ? req_n : 4'd0;

    assign idle = (state == S_PICK) && !db_valid && (reserved == 0);

    always @(posedge clk) begin
        if (rst) begin
            state     <= S_PICK;
            cur_qpn   <= {QW{1'b0}};
            ask_qpn   <= {QW{1'b0}};
            cur_index <= 0;
            cur_epoch <= 1'b0;
            req_addr  <= 64'd0;
            req_len   <= 16'd0;
            req_n     <= 4'd0;
            in_word   <= 4'd0;
            reserved  <= 0;
            out_pair  <= 3'd0;
            even_word <= 32'd0;
        end else begin
            case (state)
            S_PICK:
                if (db_ready) begin
                    cur_qpn <= db_qpn;
                    state   <= S_HOLD;
                end
            S_HOLD: begin
                ask_qpn <= cur_qpn;
                state   <= S_ASK;
            end
            S_ASK:
                if (tq_req_ready) state <= S_CLAIM;
            S_CLAIM:
                if (tq_rsp_valid) begin
                    cur_index <= claim_ptr;
                    cur_epoch <= tq_rsp_ctx[`QPNIC_QP_CTX_EPOCH_FLAT];
                    req_addr  <= ring_base + {42'd0, claim_ptr & ring_mask, 6'd0};
                    req_len   <= burst_n * WQE_BYTES[15:0];
                    req_n     <= burst_n[3:0];
                    in_word   <= 4'd0;
                    // n = 0: a QP in RESET, or nothing left (a stale entry)
                    state     <= claimed ? S_REQ : S_PICK;
                end
            S_REQ:
                if (rd_req_ready) state <= S_DATA;
            S_DATA:
                if (rsp_fire) begin
                    in_word <= in_word + 4'd1;
                    if (!in_word[0]) even_word <= rd_rsp_data;
                    if (in_word == LAST_WORD) cur_index <= cur_index + 1'b1;
                    if (rd_rsp_last) state <= S_PICK;
                end
            default: state <= S_PICK;
            endcase

            reserved <= reserved + (claimed ? burst_n[LOG_SLOTS:0] : 0)
                                 - (wqe_done ? 1 : 0);
            if (wqe_fire) out_pair <= out_pair + 3'd1;
        end
    end

    // Unused: keep (WQE reads are whole words), FIFO status that the slot
    // reservation already guarantees.
    wire unused = &{1'b0, rd_rsp_keep, words_in_ready, meta_in_ready,
                    meta_out_valid, words_count, meta_count};
endmodule

`default_nettype wire
