// qpnic_link_deframe: the board link's receive framing (docs/link.md
// "Frames"). Takes the line's bytes, finds the frames between flags, undoes
// the byte stuffing, and hands out each body byte with its index; at the
// closing flag it says how long the body was and whether it is sound: its
// CRC checks, no escape was broken, no byte was lost to a framing error, and
// it is 8 to MAX_BYTES bytes long. What the bytes mean is the link's.
//
// Bytes before the first flag are ignored. A flag ends the frame it is in
// and opens the next, so after a corrupt byte the next frame starts clean.
// An empty body (two flags in a row) is no frame. Bytes past MAX_BYTES are
// not handed out (the body is then unsound anyway).
//
// Parameters
//   MAX_BYTES   the longest sound body, CRC included
//   IW          bits of a byte index (MAX_BYTES < 2^IW)
// Ports
//   clk, rst                       clock, synchronous active-high reset
//   in_valid, in_data, in_err      the line's bytes (the UART's), and a
//                                  byte lost to a framing error
//   byte_valid, byte_idx, byte_data   a body byte, unstuffed, its index
//   done, done_ok, done_len        at a closing flag: the body's length and
//                                  whether it is sound (one-cycle pulse)
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_link_deframe #(
    parameter MAX_BYTES = 520,
    parameter IW        = 10
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          in_valid,
    input  wire [7:0]    in_data,
    input  wire          in_err,
    output reg           byte_valid,
    output reg  [IW-1:0] byte_idx,
    output reg  [7:0]    byte_data,
    output reg           done,
    output reg           done_ok,
    output reg  [IW-1:0] done_len
);
    localparam [7:0]    FLAG = `QPNIC_LINK_FLAG;
    localparam [7:0]    ESC  = `QPNIC_LINK_ESC;
    localparam [7:0]    XOR  = `QPNIC_LINK_ESC_XOR;
    localparam [31:0]   RESIDUE = 32'hDEBB20E3;
    localparam [IW-1:0] MAX = MAX_BYTES;
    localparam [IW-1:0] MIN = 8;

    reg          in_frame;   // a flag has been seen
    reg          esc;        // the previous byte was ESC
    reg          bad;        // broken escape, lost byte, or too long
    reg [IW-1:0] len;
    reg [31:0]   crc;
    wire [7:0]   b = esc ? in_data ^ XOR : in_data;
    wire [31:0]  crc_next;
    qpnic_link_crc u_crc (.crc_in(crc), .data(b), .crc_out(crc_next));

    always @(posedge clk) begin
        byte_valid <= 1'b0;
        done <= 1'b0;
        if (rst) begin
            in_frame <= 1'b0;
            esc <= 1'b0;
            bad <= 1'b0;
            len <= {IW{1'b0}};
            crc <= 32'hFFFFFFFF;
            byte_idx <= {IW{1'b0}};
            byte_data <= 8'd0;
            done_ok <= 1'b0;
            done_len <= {IW{1'b0}};
        end else if (in_err) begin
            bad <= 1'b1;
        end else if (in_valid) begin
            if (in_data == FLAG) begin
                if (in_frame && len != {IW{1'b0}}) begin
                    done <= 1'b1;
                    done_ok <= !bad && !esc && crc == RESIDUE && len >= MIN;
                    done_len <= len;
                end
                in_frame <= 1'b1;
                esc <= 1'b0;
                bad <= 1'b0;
                len <= {IW{1'b0}};
                crc <= 32'hFFFFFFFF;
            end else if (in_frame) begin
                if (in_data == ESC && !esc) begin
                    esc <= 1'b1;
                end else begin
                    esc <= 1'b0;
                    if (in_data == ESC) bad <= 1'b1;    // ESC ESC: no such pair
                    if (len == MAX) begin
                        bad <= 1'b1;                     // too long: stop counting
                    end else begin
                        byte_valid <= 1'b1;
                        byte_idx <= len;
                        byte_data <= b;
                        crc <= crc_next;
                        len <= len + 1'b1;
                    end
                end
            end
        end
    end
endmodule
