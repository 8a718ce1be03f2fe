// qpnic_link_framer: the board link's transmit framing (docs/link.md
// "Frames"). Sends one frame: a flag, the body (the header word, then
// nbytes more bytes that it reads a word at a time from its user, then the
// CRC), byte-stuffed, and a closing flag.
//
// The user starts a frame with start, hdr and nbytes, and answers each
// word_rd (word word_idx of the body after the header, 0 first) with
// word_data in the next cycle (a RAM's registered read), held until the
// next word_rd. cut cuts the
// frame short: the framer sends a flag after the byte in flight and stops,
// and the receiver drops the cut body (its CRC fails).
//
// Parameters
//   IW          bits of nbytes and of a byte index
// Ports
//   clk, rst                      clock, synchronous active-high reset
//   start, hdr, nbytes            send a frame (taken only while !busy)
//   word_rd, word_idx, word_data  the body's words after the header
//   cut                         stop the frame now
//   busy                          a frame is being sent
//   out_valid, out_ready, out_data   the line's bytes (to the UART)
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_link_framer #(
    parameter IW = 10
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            start,
    input  wire [31:0]     hdr,
    input  wire [IW-1:0]   nbytes,
    output reg             word_rd,
    output wire [IW-3:0]   word_idx,
    input  wire [31:0]     word_data,
    input  wire            cut,
    output wire            busy,
    output reg             out_valid,
    input  wire            out_ready,
    output reg  [7:0]      out_data
);
    localparam [7:0] FLAG = `QPNIC_LINK_FLAG;
    localparam [7:0] ESC  = `QPNIC_LINK_ESC;
    localparam [7:0] XOR  = `QPNIC_LINK_ESC_XOR;
    localparam [IW-1:0] FOUR = 4;

    localparam [2:0] S_IDLE  = 3'd0,   // nothing to send
                     S_OPEN  = 3'd1,   // the opening flag
                     S_FETCH = 3'd2,   // word_rd of the next body word is out
                     S_LOAD  = 3'd3,   // its word_data is there
                     S_BODY  = 3'd4,   // the body's bytes, header first
                     S_CRC   = 3'd5,   // the CRC's four bytes
                     S_CLOSE = 3'd6;   // the closing flag

    reg [2:0]    state;
    reg [IW-1:0] left;       // body bytes after the current word's
    reg [IW-1:0] pos;        // index of the next body byte, header included
    reg [31:0]   word;       // the current word, its next byte lowest
    reg [2:0]    in_word;    // bytes of word still to send
    reg [31:0]   crc;
    reg          esc_next;   // the byte in out_data was ESC: its partner is next
    reg [7:0]    partner;
    wire [7:0]   cur = state == S_CRC ? ~crc[7:0] : word[7:0];
    wire [31:0]  crc_next;
    qpnic_link_crc u_crc (.crc_in(crc), .data(cur), .crc_out(crc_next));
    wire         stuff = cur == FLAG || cur == ESC;
    // the byte in out_data leaves at this edge (or there is none)
    wire         free = !out_valid || out_ready;

    assign busy = state != S_IDLE;
    assign word_idx = pos[IW-1:2] - 1'b1;

    always @(posedge clk) begin
        word_rd <= 1'b0;
        if (out_valid && out_ready) out_valid <= 1'b0;
        if (rst) begin
            state <= S_IDLE;
            left <= {IW{1'b0}};
            pos <= {IW{1'b0}};
            word <= 32'd0;
            in_word <= 3'd0;
            crc <= 32'hFFFFFFFF;
            esc_next <= 1'b0;
            partner <= 8'd0;
            out_valid <= 1'b0;
            out_data <= 8'd0;
        end else if (free && esc_next) begin
            // the second byte of an escape pair comes before anything else
            out_valid <= 1'b1;
            out_data <= partner;
            esc_next <= 1'b0;
        end else if (cut && state != S_IDLE) begin
            if (free) begin
                out_valid <= 1'b1;
                out_data <= FLAG;
                state <= S_IDLE;
            end
        end else begin
            case (state)
            S_IDLE: if (start) begin
                state <= S_OPEN;
                word <= hdr;
                in_word <= 3'd4;
                left <= nbytes;
                pos <= {IW{1'b0}};
                crc <= 32'hFFFFFFFF;
            end
            S_OPEN: if (free) begin
                out_valid <= 1'b1;
                out_data <= FLAG;
                state <= S_BODY;
            end
            S_FETCH: state <= S_LOAD;
            S_LOAD: begin
                // word_data answers the word_rd of two cycles ago
                word <= word_data;
                in_word <= left < 4 ? left[2:0] : 3'd4;
                left <= left < 4 ? {IW{1'b0}} : left - FOUR;
                state <= S_BODY;
            end
            S_BODY, S_CRC: if (free) begin
                out_valid <= 1'b1;
                out_data <= stuff ? ESC : cur;
                esc_next <= stuff;
                partner <= cur ^ XOR;
                word <= {8'd0, word[31:8]};
                if (state == S_BODY) begin
                    crc <= crc_next;
                    pos <= pos + 1'b1;
                end else begin
                    crc <= {8'hFF, crc[31:8]};   // shifts the next CRC byte down
                end
                in_word <= in_word - 1'b1;
                if (in_word == 3'd1) begin
                    if (state == S_CRC) begin
                        state <= S_CLOSE;
                    end else if (left != {IW{1'b0}}) begin
                        word_rd <= 1'b1;
                        state <= S_FETCH;
                    end else begin
                        state <= S_CRC;
                        in_word <= 3'd4;
                    end
                end
            end
            S_CLOSE: if (free) begin
                out_valid <= 1'b1;
                out_data <= FLAG;
                state <= S_IDLE;
            end
            default: state <= S_IDLE;
            endcase
        end
    end
endmodule
