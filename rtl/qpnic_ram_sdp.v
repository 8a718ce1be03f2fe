// qpnic_ram_sdp: a simple dual-port RAM (one write port, one read port, one
// clock) written the way Yosys infers block RAM from it: DP16KD / PDPW16KD on
// ECP5, SB_RAM40_4K on iCE40, and a plain array under Verilator. Every
// context table of the NIC (QP, CQ, token) is built from it, so that where a
// table's state lives is decided in one place.
//
// The read is registered: an address presented with rd_en in cycle t gives
// its word on rd_data in cycle t+1, and rd_data holds until the next rd_en.
// A read and a write of the same address in the same cycle read the old word
// (the owner of a table forwards its own writes where it needs the new one).
// Every word starts at zero (the initial block becomes the block RAM's
// initial contents). With CLEAR set, after rst the RAM clears itself, one
// word a cycle (2^AW cycles), while busy is high; an owner takes no request
// meanwhile, and the write port is ignored. A RAM whose words are only ever
// read after being written (CLEAR 0) is never busy.
//
// Parameters
//   WIDTH   bits of one word
//   AW      address bits: the RAM holds 2^AW words
//   CLEAR   1: clear every word after rst (a table that must start empty)
// Ports
//   clk, rst                   clock, synchronous active-high reset
//   busy                       clearing after reset
//   wr_en, wr_addr, wr_data    write wr_data at wr_addr at the clock edge
//   rd_en, rd_addr, rd_data    read (see above)
`default_nettype none

module qpnic_ram_sdp #(
    parameter WIDTH = 32,
    parameter AW    = 4,
    parameter CLEAR = 1
) (
    input  wire             clk,
    input  wire             rst,
    output reg              busy,
    input  wire             wr_en,
    input  wire [AW-1:0]    wr_addr,
    input  wire [WIDTH-1:0] wr_data,
    input  wire             rd_en,
    input  wire [AW-1:0]    rd_addr,
    output reg  [WIDTH-1:0] rd_data
);
    localparam DEPTH = 1 << AW;
    reg [WIDTH-1:0] mem [0:DEPTH-1];

    integer k;
    initial begin
        for (k = 0; k < DEPTH; k = k + 1) mem[k] = {WIDTH{1'b0}};
        rd_data = {WIDTH{1'b0}};
        busy = 1'b0;
        clr_addr = {AW{1'b0}};
    end

    reg [AW-1:0] clr_addr;
    always @(posedge clk) begin
        if (rst) begin
            busy     <= (CLEAR != 0);
            clr_addr <= {AW{1'b0}};
        end else if (busy) begin
            mem[clr_addr] <= {WIDTH{1'b0}};
            clr_addr      <= clr_addr + 1'b1;
            if (&clr_addr) busy <= 1'b0;
        end else if (wr_en)
            mem[wr_addr] <= wr_data;
    end

    always @(posedge clk) begin
        if (rd_en) rd_data <= mem[rd_addr];
    end
endmodule

`default_nettype wire
