// qpnic_rr_pick: round-robin choice among N requesters, for the DMA
// arbiters. Purely combinational.
//
// Parameters
//   N        requesters (>= 1)
//   IW       bits of an index (clog2(N), at least 1)
// Ports
//   valid    which requesters ask now
//   last     the requester served last
//   pick     the lowest asking requester above `last`, else the lowest
//            asking one; `last` when none asks
//   pick_ok  some requester asks
`default_nettype none

module qpnic_rr_pick #(
    parameter N = 2,
    parameter IW = 1
) (
    input  wire [N-1:0]  valid,
    input  wire [IW-1:0] last,
    output reg  [IW-1:0] pick,
    output reg           pick_ok
);
    integer k;
    always @* begin
        pick    = last;
        pick_ok = 1'b0;
        for (k = N - 1; k >= 0; k = k - 1) begin
            if (valid[k]) begin
                pick    = k[IW-1:0];
                pick_ok = 1'b1;
            end
        end
        for (k = N - 1; k >= 0; k = k - 1) begin
            if (valid[k] && k[IW-1:0] > last)
                pick = k[IW-1:0];
        end
    end
endmodule

`default_nettype wire
