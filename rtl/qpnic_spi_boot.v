// qpnic_spi_boot: copies the soft core's firmware image from a board's SPI
// configuration flash into the core's RAM at boot, for a RAM that cannot
// hold an initial image (the UP5K's SPRAM: qpnic_soc FW_LOAD 1;
// docs/boards.md, "The iCEBreaker"), and checks it. `make prog` writes the
// image at OFFSET, past the bitstream (spec/layout.toml FW_IMAGE_MAGIC;
// fw/bin2hex.py): FW_IMAGE_MAGIC and VERSION_VALUE, the RAM's WORDS words,
// little-endian, then a CRC-32/MPEG-2 of it all.
//
// After rst, in SPI mode 0 (SCK idles low; MOSI is set while SCK is low,
// MISO sampled as SCK rises), SCK at half the clock:
//   1. 0xAB, "release from power-down": the iCE40 may leave the flash in
//      deep power-down after configuring itself, and a flash in it answers
//      nothing else;
//   2. chip select high for WAKE_CYCLES (the flash's tRES1, 3 us at most
//      on the common parts; 5 us here);
//   3. 0x03 "read" with the 24-bit OFFSET, then the image, each word's
//      first byte its bits 7:0:
//      - the header's two words, compared with FW_IMAGE_MAGIC and
//        VERSION_VALUE: at the first that differs (an erased flash, whose
//        words read 0xFFFFFFFF; another layout's firmware) the read stops,
//        before any word reaches the RAM;
//      - the RAM's words, each out on ld_* as it is complete (ld_valid one
//        cycle, ld_addr its index);
//      - the CRC word. Every bit read goes through the CRC as MISO gives
//        it, so the CRC of the whole image, its own word included, is 0
//        unless a bit changed on its way (a stale or half-written image);
//   4. chip select high, and until the next rst either done (the header
//      and the CRC matched) or bad (not).
// Chip select moves only while SCK is low: it rises a cycle after the last
// falling edge.
// It takes about (8 + 32 + 32 * (WORDS + 3)) * 2 cycles: 262,416 for 4,096
// words, 21.9 ms at 12 MHz. The board holds the NIC in reset until done,
// and lights its error LED on bad (what the RAM got is then never run).
//
// Parameters
//   CLK_HZ   clk's frequency (for WAKE_CYCLES)
//   WORDS    32-bit words to load (the soft core's RAM)
//   OFFSET   the image's first byte in the flash
//
// Ports
//   clk, rst                       clock, synchronous active-high reset
//   spi_cs_n, spi_sck, spi_mosi    to the flash (chip select low active)
//   spi_miso                       from the flash
//   ld_valid, ld_addr, ld_data     one word of the image for the RAM
//   done                           the whole image is loaded and checked
//   bad                            the image was refused: its header or CRC
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_spi_boot #(
    parameter CLK_HZ = 12000000,
    parameter WORDS = 4096,
    parameter [23:0] OFFSET = 24'h100000
) (
    input  wire        clk,
    input  wire        rst,
    output reg         spi_cs_n,
    output reg         spi_sck,
    output reg         spi_mosi,
    input  wire        spi_miso,
    output reg         ld_valid,
    output reg  [15:0] ld_addr,
    output reg  [31:0] ld_data,
    output reg         done,
    output reg         bad
);
    localparam [7:0]  CMD_WAKE = 8'hAB;
    localparam [7:0]  CMD_READ = 8'h03;
    localparam        WAKE_CYCLES = CLK_HZ / 200000 + 1;   // 5 us
    localparam        WW = $clog2(WAKE_CYCLES + 1);
    localparam [31:0] MAGIC    = `QPNIC_FW_IMAGE_MAGIC;
    localparam [31:0] VERSION  = `QPNIC_VERSION_VALUE;
    localparam [15:0] HDR      = `QPNIC_FW_IMAGE_HDR_WORDS;
    localparam [15:0] TOTAL    = HDR + WORDS + 1;    // the header, the RAM's, the CRC
    localparam [31:0] CRC_POLY = 32'h04C11DB7;

    localparam S_IDLE = 3'd0, S_WAKE = 3'd1, S_WAIT = 3'd2, S_HDR = 3'd3, S_DATA = 3'd4,
               S_DONE = 3'd5, S_BAD = 3'd6;
    reg  [2:0]  st;
    reg  [31:0] sh_out;      // bits still to send, the next one at 31
    reg  [5:0]  bits;        // bits left of the command (S_WAKE, S_HDR)
    reg  [4:0]  bit_in;      // bits of the word received so far
    reg  [23:0] word;        // the word's first three bytes, the last in at 23:16
    reg  [6:0]  byte_in;     // the byte coming in, MSB first: its bits so far
    reg  [WW-1:0] wait_cnt;
    reg  [15:0] n_word;      // the image's words read whole
    reg         hdr_ok;      // the header's words so far matched
    reg  [31:0] crc;         // CRC-32/MPEG-2 of the image's bits so far
    // the byte whose last bit MISO carries now (its end: bit_in[2:0] == 7)
    wire [7:0]  byte_now = {byte_in, spi_miso};
    wire [31:0] word_now = {byte_now, word};   // the word it ends (bit_in 31)
    wire [31:0] crc_next = {crc[30:0], 1'b0} ^ ((crc[31] ^ spi_miso) ? CRC_POLY : 32'd0);

    // one bit: SCK low (MOSI set) one cycle, high (MISO taken) the next
    always @(posedge clk) begin
        if (rst) begin
            st       <= S_IDLE;
            spi_cs_n <= 1'b1;
            spi_sck  <= 1'b0;
            spi_mosi <= 1'b0;
            ld_valid <= 1'b0;
            ld_addr  <= 16'd0;
            ld_data  <= 32'd0;
            done     <= 1'b0;
            bad      <= 1'b0;
            n_word   <= 16'd0;
            hdr_ok   <= 1'b1;
            crc      <= 32'hFFFFFFFF;
            sh_out   <= 32'd0;
            bits     <= 6'd0;
            bit_in   <= 5'd0;
            word     <= 24'd0;
            byte_in  <= 7'd0;
            wait_cnt <= {WW{1'b0}};
        end else begin
            ld_valid <= 1'b0;
            case (st)
            S_IDLE: begin
                spi_cs_n <= 1'b0;
                spi_mosi <= CMD_WAKE[7];
                sh_out   <= {CMD_WAKE[6:0], 25'd0};
                bits     <= 6'd8;
                st       <= S_WAKE;
            end
            S_WAKE, S_HDR:
                if (!spi_sck) begin
                    spi_sck <= 1'b1;                   // the flash takes MOSI
                    bits    <= bits - 6'd1;
                end else if (bits != 6'd0) begin
                    spi_sck  <= 1'b0;
                    spi_mosi <= sh_out[31];
                    sh_out   <= {sh_out[30:0], 1'b0};
                end else if (st == S_WAKE) begin
                    spi_sck  <= 1'b0;                  // chip select rises next
                    wait_cnt <= WAKE_CYCLES[WW-1:0];
                    st       <= S_WAIT;
                end else begin
                    spi_sck <= 1'b0;                   // the flash sets the first bit
                    st      <= S_DATA;
                end
            S_WAIT:
                if (wait_cnt != {WW{1'b0}}) begin
                    spi_cs_n <= 1'b1;
                    wait_cnt <= wait_cnt - 1'b1;
                end else begin
                    spi_cs_n <= 1'b0;
                    spi_mosi <= CMD_READ[7];
                    sh_out   <= {CMD_READ[6:0], OFFSET, 1'b0};
                    bits     <= 6'd32;
                    st       <= S_HDR;
                end
            S_DATA:
                if (!spi_sck) begin
                    spi_sck <= 1'b1;                   // MISO taken as SCK rises
                    byte_in <= {byte_in[5:0], spi_miso};
                    bit_in  <= bit_in + 5'd1;
                    crc     <= crc_next;
                    if (bit_in[2:0] == 3'd7)
                        word <= {byte_now, word[23:8]};
                    if (bit_in == 5'd31) begin
                        // a whole word: the header's, the RAM's or the CRC
                        n_word <= n_word + 16'd1;
                        if (n_word < HDR)
                            hdr_ok <= word_now == (n_word == 16'd0 ? MAGIC : VERSION);
                        else if (n_word != TOTAL - 16'd1) begin
                            ld_valid <= 1'b1;
                            ld_addr  <= n_word - HDR;
                            ld_data  <= word_now;
                        end
                    end
                end else begin
                    spi_sck <= 1'b0;                   // (chip select rises next)
                    if (!hdr_ok)
                        st <= S_BAD;                   // no word reached the RAM
                    else if (n_word == TOTAL)
                        st <= crc == 32'd0 ? S_DONE : S_BAD;
                end
            S_DONE: begin    // until the next rst
                spi_cs_n <= 1'b1;
                done     <= 1'b1;
            end
            default: begin   // S_BAD: until the next rst
                spi_cs_n <= 1'b1;
                bad      <= 1'b1;
            end
            endcase
        end
    end
endmodule

`default_nettype wire
