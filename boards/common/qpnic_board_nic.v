// qpnic_board_nic: what every board top holds, whatever its clock: the
// reset synchronizer, the NIC behind its serial link (qpnic_serial_nic) and
// the LED status (qpnic_board_status). A board top adds its clock (the
// ECP5 boards' PLL, qpnic_ecp5_board; the iCEBreaker's oscillator itself)
// and wires the LEDs it has (docs/boards.md).
//
// Parameters
//   CLK_HZ          clk's frequency
//   BAUD            the serial line's rate; CLK_HZ / BAUD clocks a bit (>= 4)
//   NUM_QP, NUM_CQ, NUM_MR, NUM_PT, PARTITION, FW_WORDS, FW_HEX,
//   ICE40, FW_LOAD
//                   qpnic_serial_nic's (the core's)
//
// Ports
//   clk         the one clock
//   arst        hold the NIC in reset (a PLL not locked, a reset button);
//               asynchronous
//   uart_rx     serial from the host (the USB bridge's TXD), idle high
//   uart_tx     serial to the host (the bridge's RXD), idle high
//   fw_ld_*     FW_LOAD 1: the firmware image for the soft core's RAM, a
//               word a cycle (qpnic_spi_boot); 0 otherwise
//   fw_ready    the image is in place (1 where it is the RAM's initial
//               contents): the NIC is held in reset until it is
//   led_*       qpnic_board_status's outputs, high is lit
`default_nettype none
`include "qpnic_layout.vh"
module qpnic_board_nic #(
    parameter CLK_HZ = 48000000,
    parameter BAUD = 3000000,
    parameter NUM_QP = 8,
    parameter NUM_CQ = 8,
    parameter NUM_MR = 16,
    parameter NUM_PT = 1024,
    parameter PARTITION = 0,
    parameter FW_WORDS = `QPNIC_FW_RAM_WORDS,
    parameter FW_HEX = "qpnic-fw.hex",
    parameter ICE40 = 0,
    parameter FW_LOAD = 0
) (
    input  wire clk,
    input  wire arst,
    input  wire uart_rx,
    output wire uart_tx,
    input  wire        fw_ld_valid,
    input  wire [15:0] fw_ld_addr,
    input  wire [31:0] fw_ld_data,
    input  wire        fw_ready,
    output wire led_link,
    output wire led_activity,
    output wire led_error,
    output wire led_heartbeat,
    output wire led_single
);
    wire rst;
    qpnic_reset_sync reset_sync (.clk(clk), .arst(arst), .rst(rst));
    wire link_up, activity;
    // public: the board-level simulator counts the NIC's dropped frames
    // from it (sim/board_*.h); nothing for synthesis
    wire error /* verilator public_flat_rd */;
    qpnic_serial_nic #(
        .CLK_HZ(CLK_HZ), .BAUD(BAUD),
        .NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .NUM_PT(NUM_PT),
        .PARTITION(PARTITION), .FW_WORDS(FW_WORDS), .FW_HEX(FW_HEX),
        .ICE40(ICE40), .FW_LOAD(FW_LOAD)
    ) nic (
        .clk(clk), .rst(rst || !fw_ready),
        .fw_ld_valid(fw_ld_valid), .fw_ld_addr(fw_ld_addr), .fw_ld_data(fw_ld_data),
        .uart_rx(uart_rx), .uart_tx(uart_tx),
        .link_up(link_up), .activity(activity), .error(error)
    );
    qpnic_board_status #(.CLK_HZ(CLK_HZ)) status (
        .clk(clk), .rst(rst),
        .link_up(link_up), .activity(activity), .error(error),
        .led_link(led_link), .led_activity(led_activity), .led_error(led_error),
        .led_heartbeat(led_heartbeat), .led_single(led_single)
    );
endmodule

`default_nettype wire
