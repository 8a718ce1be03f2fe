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
// With RDW_OLD 0 the owner never uses the word of such a read (it is
// undefined on the FPGA, the old word in simulation): block RAM leaves a
// read of the address the other port writes undefined, and the old word
// costs a register and a multiplexer per bit (Yosys writes a cycle late
// and forwards the delayed write).
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
//   RDW_OLD 1: a read of the address written in the same cycle gives the
//           old word; 0: its word is never used (see above)
// Ports
//   clk, rst                   clock, synchronous active-high reset
//   busy                       clearing after reset
//   wr_en, wr_addr, wr_data    write wr_data at wr_addr at the clock edge
//   rd_en, rd_addr, rd_data    read (see above)
`default_nettype none

module qpnic_ram_sdp #(
    parameter WIDTH = 32,
    parameter AW    = 4,
    parameter CLEAR = 1,
    parameter RDW_OLD = 1
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
    // a RAM that never clears is never busy: no logic for it
    wire clearing = (CLEAR != 0) && busy;

    reg [AW-1:0] clr_addr;
    initial begin
        rd_data = {WIDTH{1'b0}};
        busy = 1'b0;
        clr_addr = {AW{1'b0}};
    end
    always @(posedge clk) begin
        if (rst) begin
            busy     <= (CLEAR != 0);
            clr_addr <= {AW{1'b0}};
        end else if (clearing) begin
            clr_addr <= clr_addr + 1'b1;
            if (&clr_addr) busy <= 1'b0;
        end
    end
    wire             we = !rst && (clearing || wr_en);
    wire [AW-1:0]    wa = clearing ? clr_addr : wr_addr;
    wire [WIDTH-1:0] wd = clearing ? {WIDTH{1'b0}} : wr_data;

    integer k;
    generate
        if (RDW_OLD != 0) begin : old
            reg [WIDTH-1:0] mem [0:DEPTH-1];
            initial for (k = 0; k < DEPTH; k = k + 1) mem[k] = {WIDTH{1'b0}};
            always @(posedge clk) begin
                if (we) mem[wa] <= wd;
                if (rd_en) rd_data <= mem[rd_addr];
            end
        end else begin : any
            (* no_rw_check *) reg [WIDTH-1:0] mem [0:DEPTH-1];
            initial for (k = 0; k < DEPTH; k = k + 1) mem[k] = {WIDTH{1'b0}};
            always @(posedge clk) begin
                if (we) mem[wa] <= wd;
                if (rd_en) rd_data <= mem[rd_addr];
            end
        end
    endgenerate
endmodule

`default_nettype wire
