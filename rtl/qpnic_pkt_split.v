// qpnic_pkt_split: cuts a message's payload stream into packets of given
// lengths, for segmentation at the path MTU (docs/wire.md, "Segments").
//
// The input is a message's payload as a gather makes it: beats whose kept
// bytes are packed from lane 0 (keep 1, 3, 7 or F), a partial beat possible
// anywhere (a DMA read's end), last on the message's final beat. The output
// is the same bytes, in the same order, with last on the final beat of each
// packet: a packet ends when pkt_len bytes have gone (or at the message's
// last beat). pkt_len is the current packet's payload, held steady by the
// owner from its header until that packet's last beat is taken.
//
// A beat that straddles a packet's end goes out twice: its first bytes, keep
// masked, as the packet's last beat; then, after the owner has sent the next
// header, the rest, shifted down to lane 0 (so every beat out is packed from
// lane 0 too, as the framer and the port expect). The owner sends a header
// between packets; the splitter simply waits with out_valid low until the
// owner takes its beats again (the owner's multiplexer decides who has the
// port, the splitter does not need to know).
//
// Parameters
//   ON           0: no segments (a build without the wire): the stream
//                passes through as it is, one packet a message
// Ports
//   pkt_len      this packet's payload bytes (1 .. 2^32 - 1)
//   in_*         the message's payload stream (valid/ready, data, keep, last)
//   out_*        the packets' payload beats; out_last ends a packet
//   idle         between packets: no part of a beat sent, no byte counted
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_pkt_split #(
    parameter ON = 1
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [31:0] pkt_len,
    input  wire        in_valid,
    output wire        in_ready,
    input  wire [31:0] in_data,
    input  wire [3:0]  in_keep,
    input  wire        in_last,
    output wire        out_valid,
    input  wire        out_ready,
    output wire [31:0] out_data,
    output wire [3:0]  out_keep,
    output wire        out_last,
    output wire        idle
);
`include "qpnic_roce.vh"
    generate if (ON != 0) begin : g_on
        reg  [31:0] used;   // bytes of this packet sent
        reg  [1:0]  off;    // bytes of the head beat sent with the packet before

        // the head beat's bytes not yet sent, moved down to lane 0
        wire [3:0]  k    = in_keep >> off;
        wire [2:0]  n    = keep_bytes(k);
        wire [31:0] left = pkt_len - used;
        // the packet ends inside this beat (before its last byte)
        wire        cut  = {29'd0, n} > left;
        wire [1:0]  l2   = left[1:0];   // 1 .. 3 when cut
        wire        ends = cut || ({29'd0, n} == left) || in_last;

        assign out_valid = in_valid;
        assign out_data  = in_data >> {off, 3'b000};
        assign out_keep  = cut ? (k & ~(4'hF << l2)) : k;
        assign out_last  = ends;
        // the beat is used up unless the packet ended inside it
        assign in_ready  = out_ready && !cut;
        assign idle      = (used == 32'd0) && (off == 2'd0);

        always @(posedge clk) begin
            if (rst) begin
                used <= 32'd0;
                off  <= 2'd0;
            end else if (in_valid && out_ready) begin
                if (cut) begin
                    off  <= off + l2;
                    used <= 32'd0;
                end else begin
                    off  <= 2'd0;
                    used <= ends ? 32'd0 : used + {29'd0, n};
                end
            end
        end
    end else begin : g_off
        assign out_valid = in_valid;
        assign out_data  = in_data;
        assign out_keep  = in_keep;
        assign out_last  = in_last;
        assign in_ready  = out_ready;
        assign idle      = 1'b1;
        wire unused_len = &{1'b0, pkt_len, clk, rst};
    end endgenerate
endmodule

`default_nettype wire
