// qpnic_ecp5_board: everything of a board top that is the same on each of
// our ECP5 boards (a 25 MHz oscillator, a serial line to the host, a reset
// button, LEDs); each board's top (boards/BOARD/) sets the parameters and
// wires this to its pins (docs/boards.md).
//
//   clk_25 -> qpnic_ecp5_pll -> clk, 48 MHz: the one clock inside
//   clk, PLL not locked or reset_btn, uart_rx / uart_tx, led_* <->
//   qpnic_board_nic (reset synchronizer, qpnic_serial_nic: the core and
//   its link, docs/link.md, at BAUD; qpnic_board_status: the LEDs)
//
// `clk` keeps its name through Yosys's flattening (keep): the board's LPF
// constrains it as "board.clk" (FREQUENCY NET), so that a build fails when
// the design misses 48 MHz.
//
// Parameters
//   BAUD            the serial line's rate; CLK_HZ / BAUD clocks a bit
//   NUM_QP, NUM_CQ, NUM_MR, NUM_PT   qpnic_serial_nic's (the core's) sizes
//   FW_HEX          the firmware image ($readmemh), an absolute path from
//                   the flow
//
// Ports
//   clk_25      the board's 25 MHz oscillator
//   reset_btn   high while the reset button is pressed; asynchronous
//   uart_rx     serial from the host (the USB bridge's TXD), idle high
//   uart_tx     serial to the host (the bridge's RXD), idle high
//   led_*       qpnic_board_status's outputs, high is lit
`default_nettype none

module qpnic_ecp5_board #(
    parameter BAUD = 3000000,
    parameter NUM_QP = 8,
    parameter NUM_CQ = 8,
    parameter NUM_MR = 16,
    parameter NUM_PT = 1024,
    parameter FW_HEX = "qpnic-fw.hex"
) (
    input  wire clk_25,
    input  wire reset_btn,
    input  wire uart_rx,
    output wire uart_tx,
    output wire led_link,
    output wire led_activity,
    output wire led_error,
    output wire led_heartbeat,
    output wire led_single
);
    localparam CLK_HZ = 48000000;   // qpnic_ecp5_pll's output

    (* keep *) wire clk;
    wire locked;
    qpnic_ecp5_pll pll (.clk_25(clk_25), .clk_48(clk), .locked(locked));
    qpnic_board_nic #(
        .CLK_HZ(CLK_HZ), .BAUD(BAUD),
        .NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .NUM_PT(NUM_PT),
        .FW_HEX(FW_HEX)
    ) nic (
        .clk(clk), .arst(!locked || reset_btn),
        .uart_rx(uart_rx), .uart_tx(uart_tx),
        // the firmware is the block RAM's initial contents (FW_LOAD 0)
        .fw_ld_valid(1'b0), .fw_ld_addr(16'd0), .fw_ld_data(32'd0), .fw_ready(1'b1),
        .led_link(led_link), .led_activity(led_activity), .led_error(led_error),
        .led_heartbeat(led_heartbeat), .led_single(led_single)
    );
endmodule

`default_nettype wire
