// qpnic_colorlight_i5: the NIC on a Colorlight i5 (LFE5U-25F-6BG381C) in
// its extension board, with its host link on the extension board's USB
// serial port, the CDC serial of its DAPLink debugger (docs/boards.md).
// qpnic_ecp5_board is the NIC with its clock, reset and LED logic; this top
// sets its parameters and wires it to the i5's pins. The module has one
// LED: fast blinking after an error; else, link up: lit, dark for each
// activity flash; else the heartbeat (qpnic_board_status, led_single).
//
// The serial rate: the DAPLink bridge's sustained rate is not measured, so
// 1 Mbaud, a cautious choice (48 clocks a bit); the host opens its tty at
// the same rate.
//
// Parameters: the core's sizes, here those of `make synth TARGET=ecp5-25f`
// (what fits the 25F with room to spare). `make bitstream
// BOARD=colorlight-i5` sets them from that target of synth/targets.toml
// (boards/boards.toml, sizes_from), so these defaults serve lint and
// simulation; FW_HEX is the firmware image, an absolute path from the flow.
//
// Ports (boards/colorlight-i5/colorlight_i5.lpf)
//   clk25        the 25 MHz oscillator
//   uart_rx      serial from the host (the bridge's TXD)
//   uart_tx      serial to the host (the bridge's RXD)
//   cpu_reset_n  the reset button, low when pressed
//   user_led_n   the module's LED, low is lit
`default_nettype none

module qpnic_colorlight_i5 #(
    parameter NUM_QP = 16,
    parameter NUM_CQ = 16,
    parameter NUM_MR = 64,
    parameter NUM_PT = 1024,
    parameter FW_HEX = "qpnic-fw.hex"
) (
    input  wire clk25,
    input  wire uart_rx,
    output wire uart_tx,
    input  wire cpu_reset_n,
    output wire user_led_n
);
    wire led_single;
    qpnic_ecp5_board #(
        .BAUD(1000000),
        .NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .NUM_PT(NUM_PT),
        .FW_HEX(FW_HEX)
    ) board (
        .clk_25(clk25), .reset_btn(!cpu_reset_n),
        .uart_rx(uart_rx), .uart_tx(uart_tx),
        /* verilator lint_off PINCONNECTEMPTY */
        .led_link(), .led_activity(), .led_error(), .led_heartbeat(),  // one LED here
        /* verilator lint_on PINCONNECTEMPTY */
        .led_single(led_single)
    );

    assign user_led_n = !led_single;
endmodule

`default_nettype wire
