// qpnic_sge_skip: a segment list with its first `skip` bytes taken off, for
// a packet that lands in the middle of its message's buffer (a SEND's
// MIDDLE or LAST packet in its receive's SGEs, a READ response's MIDDLE or
// LAST in the READ's). Combinational.
//
// Segment n (device address at [n*64 +: 64], length at [n*32 +: 32]) loses
// what is left of skip after the segments before it: wholly when that is
// at least its length (length 0), else its first bytes (address + rest,
// length - rest). A skip past the list's end leaves every length 0.
// With ON = 0 (a build without the wire, where no packet lands mid-message)
// the list passes unchanged and the logic folds away.
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_sge_skip #(
    parameter MAX_SGE = `QPNIC_MAX_SGE,
    parameter ON      = 1
) (
    input  wire [MAX_SGE*64-1:0] in_addr,
    input  wire [MAX_SGE*32-1:0] in_len,
    input  wire [31:0]           skip,
    output reg  [MAX_SGE*64-1:0] out_addr,
    output reg  [MAX_SGE*32-1:0] out_len
);
    integer    n;
    reg [31:0] rest;   // bytes still to skip at segment n
    reg [31:0] len;
    always @* begin
        rest = (ON != 0) ? skip : 32'd0;
        for (n = 0; n < MAX_SGE; n = n + 1) begin
            len = in_len[n*32 +: 32];
            if (rest >= len) begin
                out_addr[n*64 +: 64] = in_addr[n*64 +: 64];
                out_len[n*32 +: 32]  = 32'd0;
                rest = rest - len;
            end else begin
                out_addr[n*64 +: 64] = in_addr[n*64 +: 64] + {32'd0, rest};
                out_len[n*32 +: 32]  = len - rest;
                rest = 32'd0;
            end
        end
    end
endmodule

`default_nettype wire
