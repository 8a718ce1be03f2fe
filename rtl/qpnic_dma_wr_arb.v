// qpnic_dma_wr_arb: shares the core's one DMA write channel among N write
// masters, one whole transaction at a time, round robin.
//
// A transaction is a request handshake followed by its data beats up to and
// including the one with last. While master k owns the channel, its request
// and its data pass straight through; the others wait (their ready stays
// low). Each granted request adds its length to the dma_write_bytes counter
// through cnt_valid/cnt_bytes.
//
// Parameters
//   N            write masters (>= 1)
//
// Ports
//   clk, rst                      clock, synchronous active-high reset
//   s_req_valid/ready [N]         each master's request handshake
//   s_req_addr [N*64], s_req_len [N*16]   each master's request
//   s_dat_valid/ready [N]         each master's data handshake
//   s_dat_data [N*32], s_dat_keep [N*4], s_dat_last [N]   its data beats
//   m_req_*, m_dat_*              the channel towards the carrier
//   cnt_valid, cnt_bytes          pulse with the length of a granted request
//   idle                          no transaction granted or in progress
//
// Combinational paths (pass-through of the owner's handshake, by design):
// s_req_valid -> m_req_valid, m_req_ready -> s_req_ready, s_dat_valid ->
// m_dat_valid, m_dat_ready -> s_dat_ready. While idle, the round-robin pick
// among the raised s_req_valid is passed through in the same cycle, so a
// request waiting when the channel frees is granted one cycle after the
// previous last beat (a request's valid never depends on its ready, so
// this makes no loop); the owner is registered from then on.
`default_nettype none

module qpnic_dma_wr_arb #(
    parameter N = 3
) (
    input  wire            clk,
    input  wire            rst,

    input  wire [N-1:0]    s_req_valid,
    output reg  [N-1:0]    s_req_ready,
    input  wire [N*64-1:0] s_req_addr,
    input  wire [N*16-1:0] s_req_len,
    input  wire [N-1:0]    s_dat_valid,
    output reg  [N-1:0]    s_dat_ready,
    input  wire [N*32-1:0] s_dat_data,
    input  wire [N*4-1:0]  s_dat_keep,
    input  wire [N-1:0]    s_dat_last,

    output reg             m_req_valid,
    input  wire            m_req_ready,
    output reg  [63:0]     m_req_addr,
    output reg  [15:0]     m_req_len,
    output reg             m_dat_valid,
    input  wire            m_dat_ready,
    output reg  [31:0]     m_dat_data,
    output reg  [3:0]      m_dat_keep,
    output reg             m_dat_last,

    output wire            cnt_valid,
    output wire [15:0]     cnt_bytes,

    output wire            idle
);
    localparam IW = (N > 1) ? $clog2(N) : 1;

    localparam [1:0] S_IDLE = 2'd0,   // choose the next owner, pass its request
                     S_REQ  = 2'd1,   // pass the owner's request
                     S_DAT  = 2'd2;   // pass the owner's data until last

    reg [1:0]    state;
    reg [IW-1:0] owner;
    wire [IW-1:0] sel;   // the master whose signals pass: pick while idle

    wire [IW-1:0] pick;
    wire          pick_ok;
    qpnic_rr_pick #(.N(N), .IW(IW)) u_pick (
        .valid(s_req_valid), .last(owner), .pick(pick), .pick_ok(pick_ok));
    integer k;

    assign sel = (state == S_IDLE) ? pick : owner;

    always @* begin
        s_req_ready = {N{1'b0}};
        s_dat_ready = {N{1'b0}};
        m_req_valid = 1'b0;
        m_req_addr  = 64'd0;
        m_req_len   = 16'd0;
        m_dat_valid = 1'b0;
        m_dat_data  = 32'd0;
        m_dat_keep  = 4'd0;
        m_dat_last  = 1'b0;
        for (k = 0; k < N; k = k + 1) begin
            if (sel == k[IW-1:0]) begin
                m_req_addr = s_req_addr[k*64 +: 64];
                m_req_len  = s_req_len[k*16 +: 16];
                m_dat_data = s_dat_data[k*32 +: 32];
                m_dat_keep = s_dat_keep[k*4 +: 4];
                m_dat_last = s_dat_last[k];
                if (state == S_REQ || (state == S_IDLE && pick_ok)) begin
                    m_req_valid    = s_req_valid[k];
                    s_req_ready[k] = m_req_ready;
                end
                if (state == S_DAT) begin
                    m_dat_valid    = s_dat_valid[k];
                    s_dat_ready[k] = m_dat_ready;
                end
            end
        end
    end

    assign cnt_valid = m_req_valid && m_req_ready;
    assign cnt_bytes = m_req_len;
    assign idle      = state == S_IDLE;

    always @(posedge clk) begin
        if (rst) begin
            state <= S_IDLE;
            owner <= N[IW-1:0] - 1'b1;   // so master 0 goes first
        end else begin
            case (state)
            S_IDLE: if (pick_ok) begin
                owner <= pick;
                state <= m_req_ready ? S_DAT : S_REQ;
            end
            S_REQ: if (m_req_valid && m_req_ready) state <= S_DAT;
            S_DAT: if (m_dat_valid && m_dat_ready && m_dat_last) state <= S_IDLE;
            default: state <= S_IDLE;
            endcase
        end
    end
endmodule

`default_nettype wire
