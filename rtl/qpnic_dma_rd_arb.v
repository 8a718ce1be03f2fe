// qpnic_dma_rd_arb: shares the core's one DMA read channel among N read
// masters, one whole transaction at a time, round robin.
//
// A transaction is a request handshake followed by its response beats up to
// and including the one with last. While master k owns the channel, its
// request and response pass straight through; the others wait (their
// rsp_valid stays low). Each granted request adds its length to the
// dma_read_bytes counter through cnt_valid/cnt_bytes.
//
// Parameters
//   N            read masters (>= 1)
//
// Ports
//   clk, rst                      clock, synchronous active-high reset
//   s_req_valid/ready [N]         each master's request handshake
//   s_req_addr [N*64], s_req_len [N*16]   each master's request
//   s_rsp_valid [N]               response beat, raised only for the owner
//   s_rsp_ready [N]               each master's readiness for a beat
//   s_rsp_data, s_rsp_keep, s_rsp_last    the response beat, shared
//   m_req_*, m_rsp_*              the channel towards the carrier
//   cnt_valid, cnt_bytes          pulse with the length of a granted request
//   idle                          no transaction granted or in progress
//
// Combinational paths (pass-through of the owner's handshake, by design):
// s_req_valid -> m_req_valid, m_req_ready -> s_req_ready, m_rsp_valid ->
// s_rsp_valid, s_rsp_ready -> m_rsp_ready. While idle, the round-robin pick
// among the raised s_req_valid is passed through in the same cycle, so a
// request waiting when the channel frees is granted one cycle after the
// previous last beat (a request's valid never depends on its ready, so
// this makes no loop); the owner is registered from then on.
// The ownership and the request half live in qpnic_dma_req_arb, shared
// with the other arbiter.
`default_nettype none

module qpnic_dma_rd_arb #(
    parameter N = 3
) (
    input  wire            clk,
    input  wire            rst,

    input  wire [N-1:0]    s_req_valid,
    output wire [N-1:0]    s_req_ready,
    input  wire [N*64-1:0] s_req_addr,
    input  wire [N*16-1:0] s_req_len,
    output reg  [N-1:0]    s_rsp_valid,
    input  wire [N-1:0]    s_rsp_ready,
    output wire [31:0]     s_rsp_data,
    output wire [3:0]      s_rsp_keep,
    output wire            s_rsp_last,

    output wire            m_req_valid,
    input  wire            m_req_ready,
    output wire [63:0]     m_req_addr,
    output wire [15:0]     m_req_len,
    input  wire            m_rsp_valid,
    output reg             m_rsp_ready,
    input  wire [31:0]     m_rsp_data,
    input  wire [3:0]      m_rsp_keep,
    input  wire            m_rsp_last,

    output wire            cnt_valid,
    output wire [15:0]     cnt_bytes,

    output wire            idle
);
    localparam IW = (N > 1) ? $clog2(N) : 1;

    wire [IW-1:0] owner;
    wire          in_xfer;
    wire          xfer_done = m_rsp_valid && m_rsp_ready && m_rsp_last;

    qpnic_dma_req_arb #(.N(N), .IW(IW)) u_req (
        .clk(clk), .rst(rst),
        .s_req_valid(s_req_valid), .s_req_ready(s_req_ready),
        .s_req_addr(s_req_addr), .s_req_len(s_req_len),
        .m_req_valid(m_req_valid), .m_req_ready(m_req_ready),
        .m_req_addr(m_req_addr), .m_req_len(m_req_len),
        .xfer_done(xfer_done), .owner(owner), .in_xfer(in_xfer),
        .cnt_valid(cnt_valid), .cnt_bytes(cnt_bytes), .idle(idle));

    // The response beats pass between the carrier and the owner only.
    integer k;
    always @* begin
        s_rsp_valid = {N{1'b0}};
        m_rsp_ready = 1'b0;
        for (k = 0; k < N; k = k + 1) begin
            if (in_xfer && owner == k[IW-1:0]) begin
                s_rsp_valid[k] = m_rsp_valid;
                m_rsp_ready    = s_rsp_ready[k];
            end
        end
    end

    assign s_rsp_data = m_rsp_data;
    assign s_rsp_keep = m_rsp_keep;
    assign s_rsp_last = m_rsp_last;
endmodule

`default_nettype wire
