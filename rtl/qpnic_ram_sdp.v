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
// undefined on the FPGA, the old word inverted in simulation): block RAM
// leaves a read of the address the other port writes undefined, and the old
// word costs a register and a multiplexer per bit (Yosys writes a cycle
// late and forwards the delayed write).
// Every word starts at zero (the initial block becomes the block RAM's
// initial contents). With CLEAR set, after rst the RAM clears itself while
// busy is high (2^AW cycles: one word a cycle; CLEAR 2, see below, keeps
// the same wait); an owner takes no request meanwhile, and the write port
// is ignored. A RAM whose words are only ever read after being written
// (CLEAR 0) is never busy.
//
// Parameters
//   WIDTH   bits of one word
//   AW      address bits: the RAM holds 2^AW words
//   CLEAR   1: clear every word after rst (a table that must start empty);
//           2: the same, by a bit per word where the table is one LUT
//           RAM deep (cheaper where the write data has no spare input)
//   RDW_OLD 1: a read of the address written in the same cycle gives the
//           old word; 0: its word is never used (see above)
//   LANES   write lanes (>= 1, dividing WIDTH): wr_en bit l writes bits
//           [l*WIDTH/LANES +: WIDTH/LANES] of the word and leaves the others
//           (block RAM's byte enables: on ECP5 a lane of 9 bits maps onto
//           one; the owner then writes a field without reading it first).
//           CLEAR 2 needs LANES 1 (its bit says a whole word was written)
//   ZERO_DATA 1: the owner holds wr_data at zero while busy (from the
//           cycle after rst on: it zeroes its register on rst too), and the
//           clear writes it as it is: no multiplexer forcing zero in front
//           of each data bit (with RDW_OLD 0 and a block RAM there is no
//           register for Yosys to fold that zero into; a zeroed register
//           of the owner's is a synchronous reset, free). Checked in
//           simulation.
//   RD_RST  1: rd_data is zero after rst (until the next rd_en): the block
//           RAM's own output reset (DP16KD RSTB), no LUT
//   RD_INIT 1: rd_data is zero from configuration until the first rd_en;
//           0: it is undefined then (the owner reads before it looks).
//           The iCE40's block RAM has no initial value on its read data,
//           so Yosys builds the zero with a flip-flop and a LUT per bit
//           (WIDTH LUTs); in simulation RD_INIT 0 starts it at all ones,
//           so that an owner that did look would fail its tests
//   STYLE   Yosys's ram_style: "auto" (its choice: LUT RAM for a few
//           words), or "block": a block RAM however few the words (the
//           context tables; on the 25F, LUTs are scarcer than block RAMs,
//           and a LUT RAM word costs LUTs)
// Ports
//   clk, rst                   clock, synchronous active-high reset
//   busy                       clearing after reset
//   wr_en [LANES], wr_addr, wr_data   write wr_data's lanes whose wr_en
//                              bit is set at wr_addr at the clock edge
//   rd_en, rd_addr, rd_data    read (see above)
`default_nettype none

module qpnic_ram_sdp #(
    parameter WIDTH = 32,
    parameter AW    = 4,
    parameter CLEAR = 1,
    parameter RDW_OLD = 1,
    parameter LANES = 1,
    parameter ZERO_DATA = 0,
    parameter RD_RST = 0,
    parameter RD_INIT = 1,
    // STYLE is read only by Yosys, through the ram_style attributes below
    /* verilator lint_off UNUSEDPARAM */
    parameter STYLE = "auto"
    /* verilator lint_on UNUSEDPARAM */
) (
    input  wire             clk,
    input  wire             rst,
    output reg              busy,
    input  wire [LANES-1:0] wr_en,
    input  wire [AW-1:0]    wr_addr,
    input  wire [WIDTH-1:0] wr_data,
    input  wire             rd_en,
    input  wire [AW-1:0]    rd_addr,
    output reg  [WIDTH-1:0] rd_data
);
    localparam DEPTH = 1 << AW;
    localparam LW    = WIDTH / LANES;   // bits of a lane
    // a RAM that never clears is never busy: no logic for it
    wire clearing = (CLEAR != 0) && busy;
    // How the words come to read zero. CLEAR 2 on a table of at most one
    // LUT RAM's words: a bit per word, "written since rst", and a word
    // without it reads as zero; the zero is the read register's synchronous
    // reset, with no multiplexer in front of each write data bit (a LUT RAM
    // has no register on its write for Yosys to fold such a zero into, as
    // it does for the old word of a block RAM). Otherwise zeros are
    // written, one word a cycle. Either way busy lasts the same 2^AW cycles.
    localparam LUTRAM_WORDS = 16;   // words of one ECP5 LUT RAM (TRELLIS_DPR16X4)
    localparam WORD_BITS = (CLEAR == 2) && (DEPTH <= LUTRAM_WORDS);

    reg [AW-1:0]    clr_addr;
    initial begin
`ifdef SYNTHESIS
        if (RD_INIT != 0) rd_data = {WIDTH{1'b0}};
`else
        rd_data = RD_INIT != 0 ? {WIDTH{1'b0}} : {WIDTH{1'b1}};
`endif
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
    wire             clr_wr = clearing && !WORD_BITS;   // a zero word written
    wire [LANES-1:0] we = (rst || (clearing && WORD_BITS)) ? {LANES{1'b0}} :
                          clr_wr ? {LANES{1'b1}} : wr_en;
    wire [AW-1:0]    wa = clr_wr ? clr_addr : wr_addr;
    wire [WIDTH-1:0] wd = (clr_wr && ZERO_DATA == 0) ? {WIDTH{1'b0}} : wr_data;
`ifndef SYNTHESIS
    always @(posedge clk)
        if (ZERO_DATA != 0 && clr_wr && wr_data != {WIDTH{1'b0}})
            $fatal(1, "qpnic_ram_sdp: ZERO_DATA, but wr_data is not zero while clearing");
`endif
    wire             rd_zero;   // the word read has not been written since rst
    generate
        if (WORD_BITS) begin : words
            reg [DEPTH-1:0] written;   // word i written since rst
            initial written = {DEPTH{1'b0}};
            always @(posedge clk) begin
                if (rst)
                    written <= {DEPTH{1'b0}};
                else if (|we)
                    written[wa] <= 1'b1;
            end
            assign rd_zero = !written[rd_addr];
        end else begin : no_words
            assign rd_zero = 1'b0;
        end
    endgenerate

    integer k, l;
    generate
        if (RDW_OLD != 0) begin : old
            (* ram_style = STYLE *) reg [WIDTH-1:0] mem [0:DEPTH-1];
            initial for (k = 0; k < DEPTH; k = k + 1) mem[k] = {WIDTH{1'b0}};
            always @(posedge clk) begin
                for (l = 0; l < LANES; l = l + 1)
                    if (we[l]) mem[wa][l*LW +: LW] <= wd[l*LW +: LW];
                if (RD_RST != 0 && rst) rd_data <= {WIDTH{1'b0}};
                else if (rd_en) rd_data <= rd_zero ? {WIDTH{1'b0}} : mem[rd_addr];
            end
        end else begin : any
            (* no_rw_check, ram_style = STYLE *) reg [WIDTH-1:0] mem [0:DEPTH-1];
            initial for (k = 0; k < DEPTH; k = k + 1) mem[k] = {WIDTH{1'b0}};
            always @(posedge clk) begin
                for (l = 0; l < LANES; l = l + 1)
                    if (we[l]) mem[wa][l*LW +: LW] <= wd[l*LW +: LW];
                if (RD_RST != 0 && rst) rd_data <= {WIDTH{1'b0}};
                else if (rd_en) rd_data <= rd_zero ? {WIDTH{1'b0}} : mem[rd_addr];
`ifndef SYNTHESIS
                // In simulation such a read gives the old word inverted, not
                // the old word, so that an owner that did use it would fail
                // its tests rather than pass by the simulator's kindness.
                if (rd_en && |we && wa == rd_addr) rd_data <= ~mem[rd_addr];
`endif
            end
        end
    endgenerate
endmodule

`default_nettype wire
