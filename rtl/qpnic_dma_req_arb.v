// qpnic_dma_req_arb: the half the two DMA arbiters share: who owns the
// channel, and the request handshake. qpnic_dma_rd_arb adds the response
// channel, qpnic_dma_wr_arb the data channel; each tells this module when
// its transaction's last beat has passed (xfer_done).
//
// Ownership is round robin: while idle, the lowest requesting master above
// the last owner wins, else the lowest requesting master; its request passes
// through in the same cycle, so a request waiting when the channel frees is
// granted one cycle after the previous last beat. The owner is registered
// from then on until xfer_done.
//
// Parameters
//   N, IW                masters (>= 1), bits of a master index
// Ports
//   clk, rst             clock, synchronous active-high reset
//   s_req_valid/ready [N], s_req_addr [N*64], s_req_len [N*16]
//                        each master's request handshake and request
//   m_req_valid/ready, m_req_addr, m_req_len   the request towards the carrier
//   xfer_done            the owner's last beat passed this cycle
//   owner                the master that owns the channel (valid when in_xfer)
//   req_sel              the master whose request is passed on (valid with
//                        m_req_valid)
//   in_xfer              the request is done, beats pass for the owner
//   cnt_valid, cnt_bytes a granted request and its length (byte counters)
//   idle                 nothing granted or in progress
//
// Combinational paths (pass-through of the owner's handshake, by design):
// s_req_valid -> m_req_valid, m_req_ready -> s_req_ready. A request's valid
// never depends on its ready, so the same-cycle pick makes no loop.
`default_nettype none

module qpnic_dma_req_arb #(
    parameter N = 3,
    parameter IW = 2
) (
    input  wire            clk,
    input  wire            rst,

    input  wire [N-1:0]    s_req_valid,
    output reg  [N-1:0]    s_req_ready,
    input  wire [N*64-1:0] s_req_addr,
    input  wire [N*16-1:0] s_req_len,

    output reg             m_req_valid,
    input  wire            m_req_ready,
    output reg  [63:0]     m_req_addr,
    output reg  [15:0]     m_req_len,

    input  wire            xfer_done,
    output reg  [IW-1:0]   owner,
    output wire            in_xfer,
    output wire [IW-1:0]   req_sel,

    output wire            cnt_valid,
    output wire [15:0]     cnt_bytes,
    output wire            idle
);
    localparam [1:0] S_IDLE = 2'd0,   // choose the next owner, pass its request
                     S_REQ  = 2'd1,   // pass the owner's request
                     S_XFER = 2'd2;   // the owner's beats pass until xfer_done

    reg [1:0] state;

    // Round robin pick among the requesting masters.
    reg [IW-1:0] pick;
    reg          pick_ok;
    integer k;
    always @* begin
        pick    = owner;
        pick_ok = 1'b0;
        for (k = N - 1; k >= 0; k = k - 1) begin
            if (s_req_valid[k]) begin
                pick    = k[IW-1:0];
                pick_ok = 1'b1;
            end
        end
        for (k = N - 1; k >= 0; k = k - 1) begin
            if (s_req_valid[k] && k[IW-1:0] > owner)
                pick = k[IW-1:0];
        end
    end

    wire [IW-1:0] sel = (state == S_IDLE) ? pick : owner;
    wire          req_phase = state == S_REQ || (state == S_IDLE && pick_ok);

    // The owner's request: an indexed part-select, which Yosys maps to a
    // plain multiplexer (195 LUT4 on ECP5 for 3 masters; a loop over the
    // masters with the part-select inside an if per master made 834), and
    // its handshake. sel < N always: pick and owner name a master.
    integer j;
    always @* begin
        m_req_addr  = s_req_addr[sel*64 +: 64];
        m_req_len   = s_req_len[sel*16 +: 16];
        m_req_valid = req_phase && s_req_valid[sel];
        s_req_ready = {N{1'b0}};
        for (j = 0; j < N; j = j + 1)
            if (sel == j[IW-1:0] && req_phase) s_req_ready[j] = m_req_ready;
    end

    assign in_xfer   = state == S_XFER;
    assign req_sel   = sel;
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
                state <= m_req_ready ? S_XFER : S_REQ;
            end
            S_REQ:  if (m_req_valid && m_req_ready) state <= S_XFER;
            S_XFER: if (xfer_done) state <= S_IDLE;
            default: state <= S_IDLE;
            endcase
        end
    end
endmodule

`default_nettype wire
