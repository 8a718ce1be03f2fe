// synth/floor/qpnic_soc_serv.v: a measuring fixture, not part of the NIC.
// qpnic_soc's ports and RAM with SERV (serv_rf_top: RV32I, one bit a cycle,
// its registers in a block RAM; no CSRs, as PicoRV32 here has no counters
// or interrupts) in place of PicoRV32. `make floor SOFT_CORE=serv` builds
// the iCEBreaker's floor with it (docs/partitions.md, "The UP5K's floor").
// Only its area means anything: the NIC's firmware has never run on it.
//
// SERV's two Wishbone-like buses (instructions, data) take turns at the
// one memory map (it never asks on both at once): the RAM answers the cycle
// after an access is seen, the I/O window when qpnic_core's io_ready says,
// anything else at once with zero.
`default_nettype none
`include "qpnic_layout.vh"

// (the module is qpnic_soc, not qpnic_soc_serv: `make floor` puts it where
// rtl/qpnic_soc.v would be, and the fixture core instantiates it by that name)
/* verilator lint_off DECLFILENAME */
module qpnic_soc #(
    parameter FW_WORDS = `QPNIC_FW_RAM_WORDS,
    parameter FW_HEX = "qpnic-fw.hex",
    // (PicoRV32's choice; SERV's registers are in block RAM either way)
    /* verilator lint_off UNUSEDPARAM */
    parameter REGS_DUALPORT = 0,
    /* verilator lint_on UNUSEDPARAM */
    parameter FW_LOAD = 0
) (
    input  wire        clk,
    input  wire        rst,
    output wire        io_valid,
    input  wire        io_ready,
    output wire        io_sel,
    output wire [7:0]  io_addr,
    output wire [3:0]  io_wstrb,
    output wire [31:0] io_wdata,
    input  wire [31:0] io_rdata,
    input  wire        fw_ld_valid,
    input  wire [15:0] fw_ld_addr,
    input  wire [31:0] fw_ld_data,
    output wire        trap
);
    localparam AW = $clog2(FW_WORDS);
    localparam [31:0] RAM_BYTES = FW_WORDS * 4;
    localparam [31:0] IO_BASE = `QPNIC_FW_IO_BASE;

    wire [31:0] i_adr, d_adr, d_dat, rdt;
    wire        i_cyc, d_cyc, d_we, i_ack, d_ack;
    wire [3:0]  d_sel;
    // the extension (MDU) port, which this core does not use
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] ext_rs1, ext_rs2;
    wire [2:0]  ext_funct3;
    wire        mdu_valid;
    /* verilator lint_on UNUSEDSIGNAL */
    serv_rf_top #(.RESET_PC(32'd0), .WITH_CSR(0)) cpu (
        .clk(clk), .i_rst(rst), .i_timer_irq(1'b0),
        .o_ibus_adr(i_adr), .o_ibus_cyc(i_cyc), .i_ibus_rdt(rdt), .i_ibus_ack(i_ack),
        .o_dbus_adr(d_adr), .o_dbus_dat(d_dat), .o_dbus_sel(d_sel), .o_dbus_we(d_we),
        .o_dbus_cyc(d_cyc), .i_dbus_rdt(rdt), .i_dbus_ack(d_ack),
        .o_ext_rs1(ext_rs1), .o_ext_rs2(ext_rs2), .o_ext_funct3(ext_funct3),
        .i_ext_rd(32'd0), .i_ext_ready(1'b0), .o_mdu_valid(mdu_valid));

    wire        mem_valid = i_cyc || d_cyc;
    wire [31:0] mem_addr  = d_cyc ? d_adr : i_adr;
    wire [3:0]  mem_wstrb = d_cyc && d_we ? d_sel : 4'h0;
    wire        is_ram = mem_addr < RAM_BYTES;
    wire        is_io  = mem_addr[31:9] == IO_BASE[31:9];

    reg         ram_ready, nul_ready;
    reg  [31:0] ram_rdata;
    wire        ack = ram_ready || nul_ready || io_ready;   // answering this cycle
    assign i_ack = ack && !d_cyc;
    assign d_ack = ack && d_cyc;
    assign rdt   = ram_ready ? ram_rdata : io_ready ? io_rdata : 32'd0;
    assign trap  = 1'b0;

    assign io_valid = mem_valid && is_io && !ack;
    assign io_sel   = mem_addr[8];
    assign io_addr  = mem_addr[7:0];
    assign io_wstrb = mem_wstrb;
    assign io_wdata = d_dat;

    // the RAM: one port, the load port's while rst holds the core (FW_LOAD
    // 1: the UP5K's SPRAM, as in rtl/qpnic_soc.v)
    /* verilator lint_off UNUSEDPARAM */
    localparam RAM_STYLE = FW_LOAD != 0 ? "huge" : "auto";
    /* verilator lint_on UNUSEDPARAM */
    (* ram_style = RAM_STYLE *) reg [31:0] ram [0:FW_WORDS-1];
    wire          go     = mem_valid && is_ram && !ack;
    wire          ld     = FW_LOAD != 0 && fw_ld_valid;
    wire [AW-1:0] ram_a  = ld ? fw_ld_addr[AW-1:0] : mem_addr[AW+1:2];
    wire [3:0]    ram_we = ld ? 4'hf : go ? mem_wstrb : 4'h0;
    wire [31:0]   ram_wd = ld ? fw_ld_data : d_dat;
    always @(posedge clk) begin
        if (ram_we[0]) ram[ram_a][7:0]   <= ram_wd[7:0];
        if (ram_we[1]) ram[ram_a][15:8]  <= ram_wd[15:8];
        if (ram_we[2]) ram[ram_a][23:16] <= ram_wd[23:16];
        if (ram_we[3]) ram[ram_a][31:24] <= ram_wd[31:24];
        if (ram_we == 4'h0) ram_rdata <= ram[ram_a];
        ram_ready <= !rst && go;
        nul_ready <= !rst && mem_valid && !ack && !is_ram && !is_io;
    end
    generate
        if (FW_LOAD == 0) begin : image
            initial $readmemh(FW_HEX, ram);
        end
    endgenerate
    // (the load port's address bits above AW; the top address bits of SERV's
    // buses past the decode)
    wire unused = &{1'b0, fw_ld_addr, mem_addr[8:0]};
endmodule
/* verilator lint_on DECLFILENAME */

`default_nettype wire
