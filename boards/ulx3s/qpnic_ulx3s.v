// qpnic_ulx3s: the NIC on a Radiona ULX3S (LFE5U-85F-6BG381C), with its
// host link on the board's FT231X USB serial bridge at 3 Mbaud, the
// FT231X's fastest (docs/boards.md). qpnic_ecp5_board is the NIC with its
// clock, reset and LED logic; this top sets its parameters and wires it to
// the ULX3S's pins:
//   led[0] link up, led[1] activity, led[2] error, led[7] heartbeat,
//   led[6:3] dark; btn[1] (FIRE1) resets the NIC.
//
// Parameters: the core's sizes, here the full build (every QP, CQ and token
// the register map allows), those of `make synth TARGET=ecp5-85f-full`.
// `make bitstream BOARD=ulx3s` sets them from that target of
// synth/targets.toml (boards/boards.toml, sizes_from), so these defaults
// serve lint and simulation; FW_HEX is the firmware image, an absolute path
// from the flow.
//
// Ports (names as in the board's published constraint file; boards/ulx3s/
// ulx3s.lpf)
//   clk_25mhz   the 25 MHz oscillator
//   ftdi_txd    the FT231X's TXD: the host's bytes to the NIC
//   ftdi_rxd    the FT231X's RXD: the NIC's bytes to the host
//   btn         the buttons, btn[0] (PWR) low when pressed, the others
//               high; only btn[1] is used
//   led         the eight LEDs, high is lit
//   wifi_gpio0  the ESP32's GPIO0, held high so that the ESP32 boots its
//               own firmware and does not restart the board (the ULX3S
//               examples do the same)
`default_nettype none

module qpnic_ulx3s #(
    parameter NUM_QP = 256,
    parameter NUM_CQ = 256,
    parameter NUM_MR = 1024,
    parameter NUM_PT = 4096,
    parameter FW_HEX = "qpnic-fw.hex"
) (
    input  wire       clk_25mhz,
    input  wire       ftdi_txd,
    output wire       ftdi_rxd,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [6:0] btn,      // only btn[1]; all seven are constrained
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [7:0] led,
    output wire       wifi_gpio0
);
    wire led_link, led_activity, led_error, led_heartbeat;
    qpnic_ecp5_board #(
        .BAUD(3000000),
        .NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .NUM_PT(NUM_PT),
        .FW_HEX(FW_HEX)
    ) board (
        .clk_25(clk_25mhz), .reset_btn(btn[1]),
        .uart_rx(ftdi_txd), .uart_tx(ftdi_rxd),
        .led_link(led_link), .led_activity(led_activity), .led_error(led_error),
        .led_heartbeat(led_heartbeat),
        /* verilator lint_off PINCONNECTEMPTY */
        .led_single()   // eight LEDs here: one each
        /* verilator lint_on PINCONNECTEMPTY */
    );

    assign led = {led_heartbeat, 4'b0000, led_error, led_activity, led_link};
    assign wifi_gpio0 = 1'b1;
endmodule

`default_nettype wire
