// qpnic_reset_sync: the board's reset, made safe for the core's synchronous
// reset (docs/boards.md).
//
// A board has reasons to hold the NIC in reset that know nothing of its
// clock: the PLL has not locked yet (its output is not a clock until then),
// or a person is pressing the reset button. `arst` is their OR. This module
// asserts `rst` at once when `arst` rises (an asynchronous set, so it works
// even while the PLL gives no clock edges) and releases it on a clock edge,
// STAGES edges after `arst` fell: the release is synchronous, so every
// flip-flop of the core leaves reset on the same edge, and the first stage
// that samples the falling `arst` has STAGES - 1 more edges to settle if it
// went metastable. A bouncing button restarts the count on each bounce.
//
// `rst` is also high from configuration until the first release (the chain
// starts all ones), so the core is in reset from the first clock.
//
// Parameters
//   STAGES  clock edges from `arst` falling to `rst` falling (>= 2)
//
// Ports
//   clk   the clock `rst` is synchronous to (the PLL's output)
//   arst  reset request, active high, asynchronous to clk
//   rst   reset for the core, active high: rises with arst (no clock
//         needed), falls on the STAGES-th rising edge of clk after arst fell
`default_nettype none

module qpnic_reset_sync #(
    parameter STAGES = 3
) (
    input  wire clk,
    input  wire arst,
    output wire rst
);
    reg [STAGES-1:0] chain = {STAGES{1'b1}};

    always @(posedge clk or posedge arst)
        if (arst)
            chain <= {STAGES{1'b1}};
        else
            chain <= {chain[STAGES-2:0], 1'b0};

    assign rst = chain[STAGES-1];
endmodule

`default_nettype wire
