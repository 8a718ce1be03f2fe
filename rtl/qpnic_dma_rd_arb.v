// qpnic_dma_rd_arb: shares the core's one DMA read channel among N read
// masters, with several reads in flight at once, told apart by tag.
//
// A master's request goes out tagged with the master's index; the carrier
// answers each read with its beats (the last one with last), tagged the
// same, and answers the reads of one tag in the order they were asked
// (the reads of different tags in any order). The beats go to the master
// the tag names, so a master that waits for the carrier's round trip does
// not hold up the others, and a master may itself keep more than one read
// open (qpnic_gather keeps two). Every master still obeys the deadlock
// rule of docs/internals.md (a read only when the whole response has
// room), so each takes its beats without waiting for anyone else.
//
// Requests are granted round robin, one every other cycle at most (the
// request half is qpnic_dma_req_arb, whose "transaction" here is the
// request alone). Each granted request adds its length to the
// dma_read_bytes counter through cnt_valid/cnt_bytes.
//
// Parameters
//   N            read masters (>= 1)
//   TW           bits of a tag (enough for N)
//   MAX_OPEN     reads in flight at most, all masters together (a counter
//                bound: the masters' own limits keep below it)
//
// Ports
//   clk, rst                      clock, synchronous active-high reset
//   s_req_valid/ready [N]         each master's request handshake
//   s_req_addr [N*64], s_req_len [N*16]   each master's request
//   s_rsp_valid [N]               response beat, raised only for the master
//                                 its tag names
//   s_rsp_ready [N]               each master's readiness for a beat
//   s_rsp_data, s_rsp_keep, s_rsp_last    the response beat, shared
//   m_req_*, m_req_tag            the request towards the carrier, tagged
//   m_rsp_*, m_rsp_tag            its response beats, tagged
//   cnt_valid, cnt_bytes          pulse with the length of a granted request
//   idle                          no request held for the carrier (one
//                                 passing through in the idle cycle does
//                                 not count: its master is not idle) and
//                                 no read in flight
//
// Combinational paths (pass-through, by design): s_req_valid -> m_req_valid,
// m_req_ready -> s_req_ready (qpnic_dma_req_arb), m_rsp_valid/m_rsp_tag ->
// s_rsp_valid, s_rsp_ready/m_rsp_tag -> m_rsp_ready.
`default_nettype none

module qpnic_dma_rd_arb #(
    parameter N = 3,
    parameter TW = 2,
    parameter MAX_OPEN = 15
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
    output wire [TW-1:0]   m_req_tag,
    input  wire            m_rsp_valid,
    output reg             m_rsp_ready,
    input  wire [31:0]     m_rsp_data,
    input  wire [3:0]      m_rsp_keep,
    input  wire            m_rsp_last,
    input  wire [TW-1:0]   m_rsp_tag,

    output wire            cnt_valid,
    output wire [15:0]     cnt_bytes,

    output wire            idle
);
    localparam IW = (N > 1) ? $clog2(N) : 1;
    localparam OW = $clog2(MAX_OPEN + 1);

    initial begin
        if ((1 << TW) < N || TW < IW)
            $fatal(1, "qpnic_dma_rd_arb: %0d tag bits cannot name %0d masters", TW, N);
    end

    wire [IW-1:0] unused_owner;   // the tag names the master a beat is for
    wire [IW-1:0] req_sel;        // the master whose request is passed on
    wire          in_xfer;
    wire          req_idle;

    // The request half: a request is done once the carrier takes it.
    qpnic_dma_req_arb #(.N(N), .IW(IW)) u_req (
        .clk(clk), .rst(rst),
        .s_req_valid(s_req_valid), .s_req_ready(s_req_ready),
        .s_req_addr(s_req_addr), .s_req_len(s_req_len),
        .m_req_valid(m_req_valid), .m_req_ready(m_req_ready),
        .m_req_addr(m_req_addr), .m_req_len(m_req_len),
        .xfer_done(in_xfer), .owner(unused_owner), .in_xfer(in_xfer), .req_sel(req_sel),
        .cnt_valid(cnt_valid), .cnt_bytes(cnt_bytes), .idle(req_idle));

    // The request goes out tagged with its master's index.
    reg  [TW-1:0] req_tag;
    always @* begin
        req_tag = {TW{1'b0}};
        req_tag[IW-1:0] = req_sel;
    end
    assign m_req_tag = req_tag;

    // Reads granted and not yet answered to their last beat.
    reg  [OW-1:0] open_n;
    wire          granted  = m_req_valid && m_req_ready;
    wire          answered = m_rsp_valid && m_rsp_ready && m_rsp_last;
    always @(posedge clk) begin
        if (rst)
            open_n <= {OW{1'b0}};
        else if (granted && !answered)
            open_n <= open_n + 1'b1;
        else if (answered && !granted)
            open_n <= open_n - 1'b1;
    end
    assign idle = req_idle && open_n == {OW{1'b0}};

    // Each beat goes to the master its tag names.
    integer k;
    always @* begin
        s_rsp_valid = {N{1'b0}};
        m_rsp_ready = 1'b0;
        for (k = 0; k < N; k = k + 1) begin
            if (m_rsp_tag == k[TW-1:0]) begin
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
