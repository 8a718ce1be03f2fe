// qpnic_sge_check: checks a WQE's scatter/gather list against the token
// table, for the requester (SQ WQEs) and the responder (RQ WQEs).
//
// On start it sends SGE 0 .. nsge-1 to a check port of qpnic_mr_table, one
// a cycle (local checks: lkey, bounds, the rights in need), and takes the
// answers as they come back, in order. An empty SGE is sent too but its
// answer is ignored: it moves nothing and names no segment. When every
// answer is in, done pulses and the outputs hold the result:
//   fail      some non-empty SGE was refused (token, bounds or rights)
//   total     the sum of the accepted SGE lengths (34 bits: no overflow)
//   seg_addr  segment n's device address at [n*64 +: 64] (0 if empty)
//   seg_len   segment n's length at [n*32 +: 32] (0 if empty or refused)
// They hold until the next start. While not busy, ld_valid writes segment
// ld_i of seg_addr and seg_len directly (a caller's segments that need no
// check: the requester's INLINE payload); fail and total stay.
//
// Ports
//   clk, rst             clock, synchronous active-high reset
//   start                a check begins (ignored while busy); sges, nsge and
//                        need must hold until done
//   sges                 the SGEs, layout struct sge, SGE n's words at
//                        [n*128 +: 128]
//   nsge                 SGEs in use (0 .. MAX_SGE; the caller checked it)
//   need                 enum mr_access bits every SGE's region must grant
//   busy                 a check is running (from the cycle after start)
//   done                 combinational pulse: the last answer is in
//   ld_valid, ld_i, ld_addr, ld_len   write segment ld_i (while not busy)
//   chk_*, res_*         the check port (remote is always 0 here)
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_sge_check #(
    parameter MAX_SGE = `QPNIC_MAX_SGE
) (
    input  wire                   clk,
    input  wire                   rst,
    input  wire                   start,
    input  wire [MAX_SGE*128-1:0] sges,
    input  wire [`QPNIC_WQE_NSGE_WIDTH-1:0] nsge,
    input  wire [2:0]             need,
    output reg                    busy,
    output wire                   done,
    input  wire                   ld_valid,
    input  wire [$clog2(MAX_SGE+1)-1:0] ld_i,
    input  wire [63:0]            ld_addr,
    input  wire [31:0]            ld_len,
    output reg                    fail,
    output reg  [33:0]            total,
    output reg  [MAX_SGE*64-1:0]  seg_addr,
    output reg  [MAX_SGE*32-1:0]  seg_len,
    output wire                   chk_valid,
    output wire [31:0]            chk_token,
    output wire [63:0]            chk_va,
    output wire [31:0]            chk_len,
    output wire [2:0]             chk_need,
    input  wire                   res_valid,
    input  wire                   res_ok,
    input  wire [63:0]            res_dev
);
    localparam SW = 32 * `QPNIC_SGE_WORDS;   // bits of one SGE

    // SGE numbers count 0 .. nsge <= MAX_SGE: no wider, so that selecting
    // an SGE by them is a small multiplexer, not a shifter over 16
    // positions (as in qpnic_gather).
    localparam IW = $clog2(MAX_SGE + 1);
    reg [IW-1:0] iss_i;   // next SGE to send
    reg [IW-1:0] res_i;   // next SGE whose answer comes back
    // the same, as wide as nsge
    localparam NW = `QPNIC_WQE_NSGE_WIDTH;
    wire [NW-1:0] iss_n = {{(NW - IW){1'b0}}, iss_i};
    wire [NW-1:0] res_n = {{(NW - IW){1'b0}}, res_i};

    // The SGE sent, and the SGE whose answer arrives. Whole words are taken
    // so that each field comes out through its layout macro.
    wire [SW-1:0] iss_sge = sges[iss_i*SW +: SW];
    // Of the answered SGE only its length is looked at.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [SW-1:0] res_sge = sges[res_i*SW +: SW];
    /* verilator lint_on UNUSEDSIGNAL */
    wire [31:0]   res_len = res_sge[`QPNIC_SGE_LEN_FLAT];

    assign chk_valid = busy && (iss_n < nsge);
    assign chk_token = iss_sge[`QPNIC_SGE_TOKEN_FLAT];
    assign chk_va    = {iss_sge[`QPNIC_SGE_VA_HI_FLAT], iss_sge[`QPNIC_SGE_VA_LO_FLAT]};
    assign chk_len   = iss_sge[`QPNIC_SGE_LEN_FLAT];
    assign chk_need  = need;
    // every answer is in: none outstanding, none arriving
    assign done      = busy && (res_n >= nsge) && !res_valid;

    always @(posedge clk) begin
        if (rst) begin
            busy  <= 1'b0;
            iss_i <= {IW{1'b0}};
            res_i <= {IW{1'b0}};
        end else if (!busy) begin
            if (start) begin
                busy  <= 1'b1;
                iss_i <= {IW{1'b0}};
                res_i <= {IW{1'b0}};
            end
        end else begin
            if (chk_valid) iss_i <= iss_i + 1'b1;
            if (res_valid) res_i <= res_i + 1'b1;
            if (done) busy <= 1'b0;
        end
    end

    // The results: cleared as a check starts (a synchronous reset of their
    // flip-flops), then each slot written with the constant index of its
    // own enable, so that no bit needs a multiplexer in front of it.
    wire clear = rst || (!busy && start);
    // an answer that counts: empty SGEs move nothing
    wire take  = busy && res_valid && res_len != 32'd0;
    // a segment written: an accepted answer, or a load (never both: a load
    // comes only while not busy); one write data for every slot
    wire          seg_wr   = ld_valid || (take && res_ok);
    wire [IW-1:0] seg_wi   = ld_valid ? ld_i : res_i;
    wire [63:0]   seg_wa   = ld_valid ? ld_addr : res_dev;
    wire [31:0]   seg_wl   = ld_valid ? ld_len : res_len;
    integer n;
    always @(posedge clk) begin
        if (clear) begin
            fail     <= 1'b0;
            total    <= 34'd0;
            seg_addr <= 0;
            seg_len  <= 0;
        end else begin
            if (take) begin
                if (!res_ok) fail  <= 1'b1;
                else         total <= total + {2'b00, res_len};
            end
            if (seg_wr)
                for (n = 0; n < MAX_SGE; n = n + 1)
                    if (seg_wi == n[IW-1:0]) begin
                        seg_addr[n*64 +: 64] <= seg_wa;
                        seg_len[n*32 +: 32]  <= seg_wl;
                    end
        end
    end
endmodule

`default_nettype wire
