// qpnic_sge_skip: a segment list with its first `skip` bytes taken off, for
// a packet that lands in the middle of its message's buffer (a SEND's
// MIDDLE or LAST packet in its receive's SGEs, a READ response's MIDDLE or
// LAST in the READ's), or for a message resumed mid-way (the requester's
// gather). Combinational.
//
// Segment n (device address at [n*64 +: 64], length at [n*32 +: 32]) loses
// what is left of skip after the segments before it: wholly when that is
// at least its length (length 0), else its first bytes (address + rest,
// length - rest). A skip past the list's end leaves every length 0.
// With ON = 0 (a build without the wire, where no packet lands mid-message)
// the list passes unchanged, through no logic at all.
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
    generate if (ON != 0) begin : g_on
        integer    n;
        reg [31:0] rest;   // bytes still to skip at segment n
        reg [31:0] len;
        always @* begin
            rest = skip;
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
    end else begin : g_off
        // (a list with a skip of 0 would come out the same, but the
        // comparisons and adders are not seen to be constant)
        always @* begin
            out_addr = in_addr;
            out_len  = in_len;
        end
        wire unused_skip = &{1'b0, skip};
    end endgenerate
endmodule

`default_nettype wire
