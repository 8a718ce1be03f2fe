// qpnic_icebreaker: the NIC on a 1BitSquared iCEBreaker (iCE40UP5K-SG48),
// in the firmware partition (docs/partitions.md): the requester, responder
// and completer are the soft core's C, so that the NIC is meant to fit the
// UP5K. Its host link is the FT2232H's channel B, a UART to the FPGA, at
// 3 Mbaud (the 12 MHz clock's quarter: qpnic_uart takes 4 clocks a bit).
// The one clock is the 12 MHz oscillator's, without a PLL (docs/boards.md).
//   LEDG_N (green, on the board)  link up
//   LEDR_N (red, on the board)    error: a frame dropped as corrupt; lit
//                                 steady, the NIC held in reset: the
//                                 flash's firmware image refused
//   LED1 (the snap-off PMOD 2)    activity
//   LED5 (its middle LED)         heartbeat
//   LED2..LED4                    dark
//   BTN_N (the board's button)    resets the NIC
//
// Parameters: the core's sizes, those of `make synth TARGET=up5k-fw`;
// `make bitstream BOARD=icebreaker` sets them from that target of
// synth/targets.toml (boards/boards.toml, sizes_from), PARTITION and
// ICE40 (the core built for the iCE40, area over clock: qpnic_core)
// included, so these defaults serve lint and simulation. FW_HEX is the firmware
// partition's image (qpnic-fw-tp.hex), an absolute path from the flow;
// with FW_LOAD 1 (the default) nothing reads it: the soft core's RAM is
// the UP5K's SPRAM, which has no initial contents, and qpnic_spi_boot
// copies the image from the configuration flash at boot (make prog puts
// it there, at the layout's FW_FLASH_OFFSET) while the NIC is held in
// reset: about 22 ms at 12 MHz. An image it refuses (erased, another
// layout's, corrupt) keeps the NIC in reset, the red LED lit.
//
// Ports (names as in the board's published constraint file, the icestorm
// project's examples/icebreaker/icebreaker.pcf; boards/icebreaker/
// icebreaker.pcf)
//   CLK         the 12 MHz oscillator
//   RX          the FT2232H channel B's TXD: the host's bytes to the NIC
//   TX          its RXD: the NIC's bytes to the host
//   BTN_N       the user button, low when pressed
//   LEDR_N, LEDG_N   the board's red and green LEDs, low is lit
//   LED1..LED5  the snap-off PMOD's LEDs, high is lit
//   FLASH_SCK, FLASH_SSB, FLASH_IO0, FLASH_IO1   the configuration flash
//               (SPI: clock, chip select, MOSI, MISO), where the firmware
//               image waits at FW_FLASH_OFFSET past the bitstream
`default_nettype none
`include "qpnic_layout.vh"
module qpnic_icebreaker #(
    parameter NUM_QP = 8,
    parameter NUM_CQ = 8,
    parameter NUM_MR = 16,
    parameter NUM_PT = 256,
    parameter PARTITION = 1,
    parameter ICE40 = 1,
    parameter FW_LOAD = 1,
    parameter FW_HEX = "qpnic-fw-tp.hex"
) (
    input  wire CLK,
    input  wire RX,
    output wire TX,
    input  wire BTN_N,
    output wire LEDR_N,
    output wire LEDG_N,
    output wire LED1,
    output wire LED2,
    output wire LED3,
    output wire LED4,
    output wire LED5,
    output wire FLASH_SCK,
    output wire FLASH_SSB,
    output wire FLASH_IO0,
    input  wire FLASH_IO1
);
    localparam FW_WORDS = PARTITION != 0 ? `QPNIC_FW_TP_RAM_WORDS : `QPNIC_FW_RAM_WORDS;

    // ---- the firmware, from the flash into the soft core's SPRAM ------------
    // (FW_LOAD 1: qpnic_spi_boot; the button reloads it, as it resets the NIC)
    wire        fw_ld_valid, fw_ready, fw_bad;
    wire [15:0] fw_ld_addr;
    wire [31:0] fw_ld_data;
    generate
        if (FW_LOAD != 0) begin : boot
            wire boot_rst;
            qpnic_reset_sync boot_reset (.clk(CLK), .arst(!BTN_N), .rst(boot_rst));
            qpnic_spi_boot #(.CLK_HZ(12000000), .WORDS(FW_WORDS), .OFFSET(`QPNIC_FW_FLASH_OFFSET)) loader (
                .clk(CLK), .rst(boot_rst),
                .spi_cs_n(FLASH_SSB), .spi_sck(FLASH_SCK), .spi_mosi(FLASH_IO0), .spi_miso(FLASH_IO1),
                .ld_valid(fw_ld_valid), .ld_addr(fw_ld_addr), .ld_data(fw_ld_data), .done(fw_ready),
                .bad(fw_bad));
        end else begin : image
            // the image is the block RAM's initial contents; the flash idles
            assign {fw_ld_valid, fw_ld_addr, fw_ld_data, fw_ready, fw_bad} = {1'b0, 16'd0, 32'd0, 1'b1, 1'b0};
            assign {FLASH_SSB, FLASH_SCK, FLASH_IO0} = 3'b100;
            wire unused_flash = &{1'b0, FLASH_IO1};
        end
    endgenerate

    wire led_link, led_activity, led_error, led_heartbeat;
    qpnic_board_nic #(
        .CLK_HZ(12000000), .BAUD(3000000),
        .NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .NUM_PT(NUM_PT),
        .PARTITION(PARTITION),
        .FW_WORDS(FW_WORDS), .FW_HEX(FW_HEX), .ICE40(ICE40),
        .FW_LOAD(FW_LOAD)
    ) nic (
        .clk(CLK), .arst(!BTN_N),
        .uart_rx(RX), .uart_tx(TX),
        .fw_ld_valid(fw_ld_valid), .fw_ld_addr(fw_ld_addr), .fw_ld_data(fw_ld_data),
        .fw_ready(fw_ready),
        .led_link(led_link), .led_activity(led_activity), .led_error(led_error),
        .led_heartbeat(led_heartbeat),
        /* verilator lint_off PINCONNECTEMPTY */
        .led_single()   // seven LEDs here: one each
        /* verilator lint_on PINCONNECTEMPTY */
    );
    assign LEDG_N = !led_link;
    assign LEDR_N = !(led_error || fw_bad);
    assign LED1   = led_activity;
    assign LED5   = led_heartbeat;
    assign {LED2, LED3, LED4} = 3'b000;
endmodule

`default_nettype wire
