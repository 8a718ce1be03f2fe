// qpnic_ram_clear: what empties a context table after reset. Block RAM has
// no reset, so a table that must be all zero after rst writes zero into
// each of its WORDS words, one a cycle, through its own write port, and
// takes no request meanwhile (qpnic_mr_table, qpnic_cq_table).
//
// clearing is high from rst until the cycle idx has reached WORDS - 1, so
// the table writes word idx in every cycle clearing is high: WORDS cycles.
//
// Parameters
//   WORDS   words to clear (>= 1)
//   AW      bits of idx (enough for WORDS - 1)
// Ports
//   clk, rst    clock, synchronous active-high reset
//   clearing    the table is clearing: write zero at idx, take no request
//   idx         the word to clear this cycle
`default_nettype none

module qpnic_ram_clear #(
    parameter WORDS = 16,
    parameter AW    = 4
) (
    input  wire          clk,
    input  wire          rst,
    output reg           clearing,
    output reg  [AW-1:0] idx
);
    localparam integer  LAST_I   = WORDS - 1;
    localparam [AW-1:0] LAST_IDX = LAST_I[AW-1:0];

    always @(posedge clk) begin
        if (rst) begin
            clearing <= 1'b1;
            idx      <= {AW{1'b0}};
        end else if (clearing) begin
            idx <= idx + 1'b1;
            if (idx == LAST_IDX) clearing <= 1'b0;
        end
    end
endmodule

`default_nettype wire
