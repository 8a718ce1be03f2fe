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
// The ownership and the request half live in qpnic_dma_req_arb, shared
// with the other arbiter.
`default_nettype none

module qpnic_dma_wr_arb #(
    parameter N = 3
) (
    input  wire            clk,
    input  wire            rst,

    input  wire [N-1:0]    s_req_valid,
    output wire [N-1:0]    s_req_ready,
    input  wire [N*64-1:0] s_req_addr,
    input  wire [N*16-1:0] s_req_len,
    input  wire [N-1:0]    s_dat_valid,
    output reg  [N-1:0]    s_dat_ready,
    input  wire [N*32-1:0] s_dat_data,
    input  wire [N*4-1:0]  s_dat_keep,
    input  wire [N-1:0]    s_dat_last,

    output wire            m_req_valid,
    input  wire            m_req_ready,
    output wire [63:0]     m_req_addr,
    output wire [15:0]     m_req_len,
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

    wire [IW-1:0] owner;
    wire [IW-1:0] unused_req_sel;   // owner names the master once its request is done
    wire          in_xfer;
    wire          xfer_done = m_dat_valid && m_dat_ready && m_dat_last;

    qpnic_dma_req_arb #(.N(N), .IW(IW)) u_req (
        .clk(clk), .rst(rst),
        .s_req_valid(s_req_valid), .s_req_ready(s_req_ready),
        .s_req_addr(s_req_addr), .s_req_len(s_req_len),
        .m_req_valid(m_req_valid), .m_req_ready(m_req_ready),
        .m_req_addr(m_req_addr), .m_req_len(m_req_len),
        .xfer_done(xfer_done), .owner(owner), .in_xfer(in_xfer), .req_sel(unused_req_sel),
        .cnt_valid(cnt_valid), .cnt_bytes(cnt_bytes), .idle(idle));

    // The data beats pass from the owner to the carrier only (an indexed
    // select, as in qpnic_dma_req_arb; owner < N always).
    integer k;
    always @* begin
        m_dat_data  = s_dat_data[owner*32 +: 32];
        m_dat_keep  = s_dat_keep[owner*4 +: 4];
        m_dat_last  = s_dat_last[owner];
        m_dat_valid = in_xfer && s_dat_valid[owner];
        s_dat_ready = {N{1'b0}};
        for (k = 0; k < N; k = k + 1)
            if (owner == k[IW-1:0] && in_xfer) s_dat_ready[k] = m_dat_ready;
    end
endmodule

`default_nettype wire
