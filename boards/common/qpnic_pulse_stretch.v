// qpnic_pulse_stretch: makes one-cycle pulses visible on an LED
// (docs/boards.md, "LEDs").
//
// A pulse on `pulse` lights `led` for CYCLES clock cycles (a flash); after a
// flash `led` stays dark for at least CYCLES cycles (a gap), so that a
// stream of pulses shows as blinking rather than as a steady light. No pulse
// goes unseen: a pulse during a flash is shown by that flash (it is still
// lit after the pulse), and a pulse during a gap is remembered and starts
// the next flash when the gap ends. One isolated pulse gives exactly one
// flash; pulses every cycle give CYCLES on, CYCLES off.
//
// Parameters
//   CYCLES  length of a flash and of the gap after it, in clock cycles (>= 1)
//
// Ports
//   clk    clock
//   rst    synchronous reset, active high: dark, nothing pending
//   pulse  one-cycle (or longer) events to show
//   led    high while flashing
`default_nettype none

module qpnic_pulse_stretch #(
    parameter CYCLES = 2400000
) (
    input  wire clk,
    input  wire rst,
    input  wire pulse,
    output wire led
);
    localparam CW = $clog2(CYCLES + 1);

    // Named states: dark and idle, flashing, and the dark gap after a flash.
    localparam S_IDLE = 2'd0, S_FLASH = 2'd1, S_GAP = 2'd2;

    reg [1:0]    state;
    reg [CW-1:0] left;      // cycles left in the flash or the gap
    reg          pending;   // a pulse came during the gap

    always @(posedge clk) begin
        if (rst) begin
            state   <= S_IDLE;
            left    <= {CW{1'b0}};
            pending <= 1'b0;
        end else begin
            case (state)
            S_IDLE:
                if (pulse) begin
                    state <= S_FLASH;
                    left  <= CYCLES[CW-1:0] - 1'b1;
                end
            S_FLASH:
                if (left == 0) begin
                    state <= S_GAP;
                    left  <= CYCLES[CW-1:0] - 1'b1;
                end else begin
                    left <= left - 1'b1;
                end
            default: begin  // S_GAP
                if (left == 0) begin
                    state   <= (pending || pulse) ? S_FLASH : S_IDLE;
                    left    <= CYCLES[CW-1:0] - 1'b1;
                    pending <= 1'b0;
                end else begin
                    left    <= left - 1'b1;
                    pending <= pending | pulse;
                end
            end
            endcase
        end
    end

    assign led = (state == S_FLASH);
endmodule

`default_nettype wire
