// qpnic_soc: the soft core. PicoRV32 (rv32i, no counters, no compressed ISA,
// no IRQ, one or two register read ports) with FW_WORDS 32-bit words of RAM at
// address 0, loaded from a hex image, and the firmware register window at
// FW_IO_BASE forwarded to qpnic_fw_if.
//
// Memory map of the core's native bus:
//   0 .. FW_WORDS*4-1     RAM: reads and byte-strobed writes, answered in
//                         the cycle they are made (the RAM acts on the
//                         core's look-ahead announcement, one cycle early)
//   FW_IO_BASE + 0..511   firmware registers (io_*): 0..255 qpnic_fw_if's,
//                         256..511 (TP_IO_OFFSET) the transport port's
//                         (io_sel; the firmware partition's), answered when
//                         the window's owner raises io_ready
//                         raises io_ready (at once, but a NOTIFY write may wait)
//   anything else         writes are ignored and reads return 0, answered in
//                         one cycle (a stray firmware access never hangs the
//                         bus; the core does not catch illegal
//                         instructions, so a wild jump runs on)
// The firmware builds with -march=rv32i -mabi=ilp32, its entry at 0 and its
// stack at the top of RAM.
//
// The image: under Verilator the plusarg +fw=PATH names it, else FW_HEX;
// under any other tool FW_HEX. With FW_LOAD 1 the RAM has no initial
// contents: the image comes through the load port (fw_ld_*) while rst
// holds the core (qpnic_spi_boot, from a board's flash).
//
// Parameters
//   FW_WORDS   RAM size in 32-bit words (a power of two; default: the
//              layout's FW_RAM_WORDS, which the firmware is linked for)
//   FW_HEX     default firmware image for $readmemh
//   REGS_DUALPORT  PicoRV32's ENABLE_REGS_DUALPORT: 0, one register read
//              port (the ECP5's LUT RAM: half as many); 1, two. On iCE40,
//              which has no LUT RAM, only two registered read ports let
//              Yosys put the register file in block RAM: with one it is
//              992 flip-flops and a 32-way multiplexer per bit (Yosys 0.23,
//              synth_ice40, PicoRV32 alone: 2,313 SB_LUT4 and 1,424
//              flip-flops with one port, 1,528, 454 and 4 RAM blocks with
//              two). Two ports also save a cycle on every instruction with
//              two source registers
//   FW_LOAD    0: the RAM's initial contents are the image (block RAM);
//              1: the RAM starts empty and fw_ld_* write it, one word a
//              cycle, while rst is high. For the UltraPlus's SPRAM, which
//              has no initial contents: its RAM is ram_style "huge", and
//              leaves its read data alone in a cycle that writes (the
//              SPRAM's one read-during-write behaviour; the core never
//              reads what a store's cycle read)
//
// Ports
//   clk, rst                          clock, synchronous active-high reset
//   io_valid/ready                    one access to the firmware registers
//   io_sel                            0: qpnic_fw_if's window, 1: the
//                                     transport port's
//   io_addr, io_wstrb, io_wdata       byte offset in the window, byte
//                                     strobes (0: read), data
//   io_rdata                          read data, valid while io_ready is high
//   fw_ld_valid, fw_ld_addr, fw_ld_data   FW_LOAD 1: write word fw_ld_addr
//                                     of the RAM (0 with FW_LOAD 0)
//   trap                              the core stopped on an ECALL or
//                                     EBREAK (illegal instructions and
//                                     misaligned accesses are not caught)
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_soc #(
    parameter FW_WORDS = `QPNIC_FW_RAM_WORDS,
    parameter FW_HEX = "qpnic-fw.hex",
    parameter REGS_DUALPORT = 0,
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

    // ---- the core ---------------------------------------------------------
    wire        mem_valid;
    wire        mem_ready;
    wire [31:0] mem_addr;
    wire [31:0] mem_wdata;
    wire [3:0]  mem_wstrb;
    wire [31:0] mem_rdata;

    // The look-ahead interface: the next access, one cycle before mem_valid.
    wire        la_read, la_write;
    wire [31:0] la_addr, la_wdata;
    wire [3:0]  la_wstrb;

    // Outputs of PicoRV32 this system does not use (PCPI, IRQ, trace):
    // connected so that no pin is left open, unused on purpose.
    /* verilator lint_off UNUSEDSIGNAL */
    wire        mem_instr;
    wire        pcpi_valid;
    wire [31:0] pcpi_insn, pcpi_rs1, pcpi_rs2;
    wire [31:0] eoi;
    wire        trace_valid;
    wire [35:0] trace_data;
    /* verilator lint_on UNUSEDSIGNAL */

    picorv32 #(
        .ENABLE_COUNTERS(1'b0),
        .ENABLE_COUNTERS64(1'b0),
        .ENABLE_REGS_16_31(1'b1),
        // One register read port (REGS_DUALPORT 0): an instruction with two
        // source registers (branches, stores, register-register ALU ops)
        // takes a cycle more, and the register file is half as many LUT
        // RAMs (16 TRELLIS_DPR16X4 on the ECP5, not 32). Two on iCE40.
        .ENABLE_REGS_DUALPORT(REGS_DUALPORT != 0),
        // The barrel shifter costs ~157 iCE40 cells (~200 LUTs on the ECP5)
        // and cuts the notification latency from ~280 to ~220 cycles
        // (docs/performance-analysis.md).
        .BARREL_SHIFTER(1'b1),
        .COMPRESSED_ISA(1'b0),
        .ENABLE_MUL(1'b0),
        .ENABLE_DIV(1'b0),
        .ENABLE_IRQ(1'b0),
        // No trap on a misaligned access or an illegal instruction: nothing
        // reads trap (qpnic_core leaves it unconnected), and a firmware that
        // ran wild would not come back either way. Without the checks the
        // whole core took ~300 LUTs fewer in Yosys on the ECP5-25F
        // (docs/performance-analysis.md).
        .CATCH_MISALIGN(1'b0),
        .CATCH_ILLINSN(1'b0),
        .PROGADDR_RESET(32'h0000_0000),
        .STACKADDR(RAM_BYTES)
    ) cpu (
        .clk(clk),
        .resetn(!rst),
        .trap(trap),
        .mem_valid(mem_valid),
        .mem_instr(mem_instr),
        .mem_ready(mem_ready),
        .mem_addr(mem_addr),
        .mem_wdata(mem_wdata),
        .mem_wstrb(mem_wstrb),
        .mem_rdata(mem_rdata),
        .mem_la_read(la_read),
        .mem_la_write(la_write),
        .mem_la_addr(la_addr),
        .mem_la_wdata(la_wdata),
        .mem_la_wstrb(la_wstrb),
        .pcpi_valid(pcpi_valid),
        .pcpi_insn(pcpi_insn),
        .pcpi_rs1(pcpi_rs1),
        .pcpi_rs2(pcpi_rs2),
        .pcpi_wr(1'b0),
        .pcpi_rd(32'd0),
        .pcpi_wait(1'b0),
        .pcpi_ready(1'b0),
        .irq(32'd0),
        .eoi(eoi),
        .trace_valid(trace_valid),
        .trace_data(trace_data)
    );

    // ---- decode ------------------------------------------------------------
    wire is_ram = mem_addr < RAM_BYTES;
    wire is_io  = mem_addr[31:9] == IO_BASE[31:9];

    reg  ram_ready;
    reg  nul_ready;
    reg  [31:0] ram_rdata;
    wire busy = ram_ready || nul_ready || io_ready;   // answering this cycle

    assign io_valid = mem_valid && is_io;
    assign io_sel   = mem_addr[8];
    assign io_addr  = mem_addr[7:0];
    assign io_wstrb = mem_wstrb;
    assign io_wdata = mem_wdata;

    assign mem_ready = ram_ready || nul_ready || io_ready;
    assign mem_rdata = ram_ready ? ram_rdata : io_ready ? io_rdata : 32'd0;

    // ---- RAM ----------------------------------------------------------------
    // PicoRV32 announces every access one cycle early on its look-ahead
    // outputs (mem_la_read / mem_la_write, with mem_la_addr, _wdata, _wstrb).
    // The RAM acts on that announcement, so the word is there in the cycle
    // mem_valid rises and ram_ready answers the access in that same cycle: a
    // RAM access, instruction fetches included, costs one cycle instead of
    // two. (The price: mem_la_addr is combinational inside the core, so its
    // path now ends at the RAM's address pins; see docs/performance-analysis.md.)
    wire          la_is_ram = la_addr < RAM_BYTES;
    wire [AW-1:0] la_word   = la_addr[AW+1:2];
    wire          la_wr     = la_write && la_is_ram;

    // One port, taken by the load port (FW_LOAD 1, while rst holds the core)
    // or by the core's look-ahead, so that with FW_LOAD 1 the RAM is the
    // UltraPlus's single-port SPRAM. That RAM leaves its read data alone in
    // a cycle that writes; the block RAM of FW_LOAD 0 reads every cycle, as
    // it always did.
    // (RAM_STYLE is read only by Yosys, through the attribute, as
    // qpnic_ram_sdp's STYLE)
    /* verilator lint_off UNUSEDPARAM */
    localparam RAM_STYLE = FW_LOAD != 0 ? "huge" : "auto";
    /* verilator lint_on UNUSEDPARAM */
    (* ram_style = RAM_STYLE *) reg [31:0] ram [0:FW_WORDS-1];
    wire          ld = FW_LOAD != 0 && fw_ld_valid;
    wire [AW-1:0] ram_a  = ld ? fw_ld_addr[AW-1:0] : la_word;
    wire [3:0]    ram_we = ld ? 4'hf : la_wr ? la_wstrb : 4'h0;
    wire [31:0]   ram_wd = ld ? fw_ld_data : la_wdata;
    always @(posedge clk) begin
        if (ram_we[0]) ram[ram_a][7:0]   <= ram_wd[7:0];
        if (ram_we[1]) ram[ram_a][15:8]  <= ram_wd[15:8];
        if (ram_we[2]) ram[ram_a][23:16] <= ram_wd[23:16];
        if (ram_we[3]) ram[ram_a][31:24] <= ram_wd[31:24];
        if (FW_LOAD == 0 || ram_we == 4'h0) ram_rdata <= ram[ram_a];
    end

    // The image: the RAM's initial contents with FW_LOAD 0; with FW_LOAD 1
    // it has none (SPRAM), and the load port writes it.
    generate
        if (FW_LOAD == 0) begin : image
`ifdef VERILATOR
            reg [8*1024-1:0] fw_path;
            initial begin
                // A string literal zero-extends into the wider register:
                // leading zero bytes are no characters, which is what is
                // wanted here.
                /* verilator lint_off WIDTH */
                if (!$value$plusargs("fw=%s", fw_path))
                    fw_path = FW_HEX;
                /* verilator lint_on WIDTH */
                $readmemh(fw_path, ram);
            end
`else
            initial $readmemh(FW_HEX, ram);
`endif
            // (no load port: the image is the RAM's initial contents)
            wire unused_ld = &{1'b0, fw_ld_valid, fw_ld_addr, fw_ld_data};
        end else if (AW < 16) begin : loaded
            // (FW_WORDS <= 2^16: the load port's address bits above AW are 0)
            wire unused_ld = &{1'b0, fw_ld_addr[15:AW]};
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            ram_ready <= 1'b0;
            nul_ready <= 1'b0;
        end else begin
            ram_ready <= (la_read || la_write) && la_is_ram;
            nul_ready <= mem_valid && !busy && !is_ram && !is_io;
        end
    end
endmodule

`default_nettype wire
