// qpnic_board_status: what a board's LEDs show about its NIC
// (docs/boards.md, "LEDs"). Both board tops use it; each wires the outputs
// to the LEDs it has.
//
// Inputs are qpnic_serial_nic's status outputs: `link_up` (a level) and
// `activity`, `error` (one-cycle pulses). Outputs, each registered:
//   led_link       link_up as it is
//   led_activity   a flash of ACT_MS per frame (qpnic_pulse_stretch: steady
//                  traffic blinks at 1000 / (2 ACT_MS) Hz)
//   led_error      a flash of ERR_MS per dropped frame, longer than an
//                  activity flash because errors are rare and worth seeing
//   led_heartbeat  blinks with a period between 1 and 2 s while the clock
//                  runs, reset or not: the board is configured and the PLL
//                  gives a clock
//   led_single     for a board with one LED, all of it at once, by priority:
//                  during an error flash, fast blinking (8 times the
//                  heartbeat's rate); else, link up: lit, dark for each
//                  activity flash; else the heartbeat
//
// Parameters
//   CLK_HZ  clk's frequency, Hz (for the durations)
//   ACT_MS  activity flash (and gap) length, ms
//   ERR_MS  error flash (and gap) length, ms
//
// Ports
//   clk, rst   clock; synchronous reset, active high (stretchers dark)
//   link_up, activity, error   from qpnic_serial_nic
//   led_*      active high; a board with active-low LEDs inverts them
`default_nettype none

module qpnic_board_status #(
    parameter CLK_HZ = 48000000,
    parameter ACT_MS = 50,
    parameter ERR_MS = 500
) (
    input  wire clk,
    input  wire rst,
    input  wire link_up,
    input  wire activity,
    input  wire error,
    output reg  led_link,
    output reg  led_activity,
    output reg  led_error,
    output reg  led_heartbeat,
    output reg  led_single
);
    // The heartbeat counter's top bit toggles every 2^(HB_W-1) cycles: a
    // period of 2^HB_W / CLK_HZ seconds, between 1 and 2.
    localparam HB_W = $clog2(CLK_HZ);

    reg [HB_W-1:0] beat = {HB_W{1'b0}};
    always @(posedge clk)
        beat <= beat + 1'b1;

    wire act_flash, err_flash;
    qpnic_pulse_stretch #(.CYCLES(CLK_HZ / 1000 * ACT_MS)) act_stretch (
        .clk(clk), .rst(rst), .pulse(activity), .led(act_flash));
    qpnic_pulse_stretch #(.CYCLES(CLK_HZ / 1000 * ERR_MS)) err_stretch (
        .clk(clk), .rst(rst), .pulse(error), .led(err_flash));

    always @(posedge clk) begin
        led_link      <= link_up;
        led_activity  <= act_flash;
        led_error     <= err_flash;
        led_heartbeat <= beat[HB_W-1];
        led_single    <= err_flash ? beat[HB_W-4] :
                         link_up   ? !act_flash   : beat[HB_W-1];
    end
endmodule

`default_nettype wire
