// qpnic_wqe_fetch: the scheduler and WQE fetch engine (DESIGN.md, D8).
//
// Round robin over the QPs whose state is not RESET and whose SQ producer
// index (the doorbell) is ahead of the engine's fetch pointer, it fetches
// n = min(new WQEs, FETCH_BURST_WQES, WQEs to the ring's end, free buffer
// slots) WQEs with one DMA read into its WQE buffer (waiting, while the
// buffer is nearly full, until the first three terms fit, so reads go out
// full), and hands them to the requester two 32-bit words (64 bits) at a
// time, so a WQE takes 8 cycles, with the QP number and free-running WQE
// index of each. QPs in ERROR are fetched too: their WQEs must be
// flushed. A QP's fetch pointer is held at 0 while the QP is in RESET. A
// buffer slot is reserved when its read is issued, so the read's response
// always has room (the deadlock rule of docs/internals.md).
//
// Parameters
//   NUM_QP            queue pairs
//   LOG_SLOTS         log2 of the WQE buffer's size in WQEs (>= 4: 16 WQEs)
//   FETCH_BURST_WQES  most WQEs fetched by one DMA read (64 B each; with
//                     MAX_DMA_BYTES 512 this is 8)
// Ports
//   qp_sq_base, qp_sq_log, qp_state, qp_sq_pi   QP contexts from qpnic_csr
//   rd_req_*, rd_rsp_*   DMA read master (index 0); responses are whole
//                        32-bit words (rings are 64-byte aligned)
//   wqe_valid/wqe_ready  WQE word pairs out, pair 0 (words 0, 1) first;
//                        wqe_last on pair 7 (words 14, 15)
//   wqe_data             the pair: word 2p at [31:0], word 2p+1 at [63:32]
//   wqe_qpn, wqe_index   the QP and free-running SQ index of that WQE
//   cnt_fetch_read       one-cycle strobe: a WQE fetch read was issued
//   cnt_wqes_fetched     WQEs that read fetches (valid with the strobe, else 0)
//   idle                 nothing to fetch, nothing in flight, buffer empty
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_wqe_fetch #(
    parameter NUM_QP           = 8,
    parameter LOG_SLOTS        = 4,
    parameter FETCH_BURST_WQES = `QPNIC_FETCH_BURST_WQES
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire [NUM_QP*64-1:0] qp_sq_base,
    input  wire [NUM_QP*5-1:0]  qp_sq_log,
    input  wire [NUM_QP*2-1:0]  qp_state,
    input  wire [NUM_QP*16-1:0] qp_sq_pi,
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
    output wire [7:0]           wqe_qpn,
    output wire [15:0]          wqe_index,
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

    localparam [1:0] S_PICK = 2'd0,  // choose a QP and a burst
                     S_REQ  = 2'd1,  // DMA read request out
                     S_DATA = 2'd2;  // response into the buffer

    reg [1:0]            state;
    reg [NUM_QP*16-1:0]  fetch_ptr;   // per QP: next SQ index to fetch
    reg [7:0]            rr_last;     // QP served last (round robin)
    reg [7:0]            cur_qpn;
    reg [15:0]           cur_index;   // index of the next WQE word 0 to arrive
    reg [63:0]           req_addr;
    reg [15:0]           req_len;
    reg [3:0]            req_n;
    reg [3:0]            in_word;     // word within the arriving WQE
    reg [LOG_SLOTS:0]    reserved;    // slots held by fetched or in-flight WQEs
    reg [2:0]            out_pair;    // pair within the WQE being handed out
    reg [31:0]           even_word;   // an arrived even word, waiting for its pair

    // --- the choice: first pending QP after rr_last, and its burst size ---
    reg        pick_found;
    reg [7:0]  pick_qpn;
    reg [15:0] pick_ptr;
    reg [31:0] pick_n;
    reg [31:0] any_pending;
    integer i;
    reg [7:0]  q;
    reg [15:0] ptr_q, avail_q;
    reg [31:0] depth_q, to_end_q, n_q;
    always @* begin
        pick_found  = 1'b0;
        pick_qpn    = 8'd0;
        pick_ptr    = 16'd0;
        pick_n      = 32'd0;
        any_pending = 32'd0;
        for (i = 1; i <= NUM_QP; i = i + 1) begin
            q        = (rr_last + i[7:0]) % NUM_QP[7:0];
            ptr_q    = fetch_ptr[q*16 +: 16];
            avail_q  = qp_sq_pi[q*16 +: 16] - ptr_q;
            depth_q  = 32'd1 << qp_sq_log[q*5 +: 5];
            to_end_q = depth_q - ({16'd0, ptr_q} & (depth_q - 32'd1));
            n_q      = {16'd0, avail_q};
            if (n_q > FETCH_BURST_WQES) n_q = FETCH_BURST_WQES;
            if (n_q > to_end_q) n_q = to_end_q;
            if (qp_state[q*2 +: 2] != `QPNIC_QP_STATE_RESET && avail_q != 16'd0) begin
                any_pending = any_pending + 32'd1;
                if (!pick_found) begin
                    pick_found = 1'b1;
                    pick_qpn   = q;
                    pick_ptr   = ptr_q;
                    pick_n     = n_q;
                end
            end
        end
    end

    wire [LOG_SLOTS:0] free_slots = SLOTS[LOG_SLOTS:0] - reserved;
    // A burst waits until the buffer can take all of it, rather than going
    // out short: fewer, fuller reads (D8); n still equals the min() above.
    wire [15:0]        burst_n    = pick_n[15:0];  // <= FETCH_BURST_WQES
    wire               burst_fits = (pick_n <= {{(31-LOG_SLOTS){1'b0}}, free_slots});
    wire [63:0]        ring_base  = qp_sq_base[pick_qpn*64 +: 64];
    wire [15:0]        ring_mask  = 16'hFFFF >> (16 - qp_sq_log[pick_qpn*5 +: 5]);
    wire               do_pick    = (state == S_PICK) && pick_found && burst_fits;

    // --- the WQE buffer: word pairs, plus one (qpn, index) entry per WQE ---
    wire [LOG_PAIRS:0] words_count;
    wire [LOG_SLOTS:0] meta_count;
    wire               words_in_ready, meta_in_ready, meta_out_valid;
    wire               rsp_fire  = rd_rsp_valid && rd_rsp_ready;
    wire               wqe_fire  = wqe_valid && wqe_ready;
    wire               wqe_done  = wqe_fire && wqe_last;

    assign rd_rsp_ready = (state == S_DATA);

    // A pair goes in as its odd word arrives (WQE reads are whole WQEs, so
    // pairs never straddle reads).
    qpnic_fifo #(.WIDTH(64), .LOG_DEPTH(LOG_PAIRS)) u_words (
        .clk(clk), .rst(rst),
        .in_valid(rsp_fire && in_word[0]), .in_ready(words_in_ready),
        .in_data({rd_rsp_data, even_word}),
        .out_valid(wqe_valid), .out_ready(wqe_ready), .out_data(wqe_data),
        .count(words_count));

    qpnic_fifo #(.WIDTH(24), .LOG_DEPTH(LOG_SLOTS)) u_meta (
        .clk(clk), .rst(rst),
        .in_valid(rsp_fire && in_word == 4'd0), .in_ready(meta_in_ready),
        .in_data({cur_index, cur_qpn}),
        .out_valid(meta_out_valid), .out_ready(wqe_done),
        .out_data({wqe_index, wqe_qpn}),
        .count(meta_count));

    assign wqe_last = (out_pair == LAST_PAIR);

    assign rd_req_valid     = (state == S_REQ);
    assign rd_req_addr      = req_addr;
    assign rd_req_len       = req_len;
    assign cnt_fetch_read   = rd_req_valid && rd_req_ready;
    assign cnt_wqes_fetched = cnt_fetch_read ? req_n : 4'd0;

    assign idle = (state == S_PICK) && (any_pending == 32'd0) && (reserved == 0);

    integer j;
    always @(posedge clk) begin
        if (rst) begin
            state     <= S_PICK;
            fetch_ptr <= 0;
            rr_last   <= NUM_QP[7:0] - 8'd1;
            cur_qpn   <= 8'd0;
            cur_index <= 16'd0;
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
                if (do_pick) begin
                    cur_qpn   <= pick_qpn;
                    cur_index <= pick_ptr;
                    req_addr  <= ring_base + {42'd0, pick_ptr & ring_mask, 6'd0};
                    req_len   <= burst_n * WQE_BYTES[15:0];
                    req_n     <= burst_n[3:0];
                    fetch_ptr[pick_qpn*16 +: 16] <= pick_ptr + burst_n;
                    rr_last   <= pick_qpn;
                    in_word   <= 4'd0;
                    state     <= S_REQ;
                end
            S_REQ:
                if (rd_req_ready) state <= S_DATA;
            S_DATA:
                if (rsp_fire) begin
                    in_word <= in_word + 4'd1;
                    if (!in_word[0]) even_word <= rd_rsp_data;
                    if (in_word == LAST_WORD) cur_index <= cur_index + 16'd1;
                    if (rd_rsp_last) state <= S_PICK;
                end
            default: state <= S_PICK;
            endcase

            reserved <= reserved + (do_pick ? burst_n[LOG_SLOTS:0] : 0)
                                 - (wqe_done ? 1 : 0);
            if (wqe_fire) out_pair <= out_pair + 3'd1;

            // A QP in RESET starts over at index 0 (its rings were zeroed).
            for (j = 0; j < NUM_QP; j = j + 1)
                if (qp_state[j*2 +: 2] == `QPNIC_QP_STATE_RESET)
                    fetch_ptr[j*16 +: 16] <= 16'd0;
        end
    end

    // Unused: keep (WQE reads are whole words), FIFO status that the slot
    // reservation already guarantees.
    wire unused = &{1'b0, rd_rsp_keep, words_in_ready, meta_in_ready,
                    meta_out_valid, words_count, meta_count};
endmodule

`default_nettype wire
