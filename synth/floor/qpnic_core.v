// synth/floor/qpnic_core.v: a measuring fixture, not part of the NIC.
// qpnic_core's ports with nothing of the NIC behind them but the soft core
// (qpnic_soc) and a mailbox of registers on its I/O window: every port of
// the link's side is a register the firmware could read or write, so the
// synthesis tools keep the link, the UART, the loader and the LEDs whole.
// `make floor` builds the iCEBreaker's top with this module in place of
// rtl/qpnic_core.v, to measure what those parts take of the UP5K before any
// of the NIC's own hardware (docs/partitions.md, "The UP5K's floor").
// Only its area means anything: no firmware is written for it and no test
// runs it.
//
// The mailbox, 32-bit words at io_addr[5:2] (either I/O window):
//   read  0  the ports' flags (see rd0 below); 1 mmio_addr; 2 mmio_wdata;
//         3 dmar_rsp_data
//   write 0  bit 0 mmio_ready, 1 mmio_rvalid, 2 dmar_rsp_ready (a pulse each)
//         1  mmio_rdata
//         2, 3, 4  a DMA read request: address low, high, then length and
//            tag (bits 16 and up), which raises dmar_req_valid
//         5, 6, 7  a DMA write request, the same way (no tag)
//         8, 9     a DMA write beat: data, then keep (3:0) and last (4)
//         10       a notification
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_core #(
    // qpnic_core's parameters, so that the board's top instantiates this
    // module unchanged; only the soft core's are used
    /* verilator lint_off UNUSEDPARAM */
    parameter NUM_QP = 8,
    parameter NUM_CQ = 8,
    parameter NUM_MR = 16,
    parameter NUM_PT = 256,
    parameter WIRE = 0,
    parameter PARTITION = 0,
    /* verilator lint_on UNUSEDPARAM */
    parameter FW_WORDS = `QPNIC_FW_RAM_WORDS,
    parameter FW_HEX = "qpnic-fw.hex",
    parameter ICE40 = 0,
    parameter FW_LOAD = 0
) (
    input  wire        clk,
    input  wire        rst,

    input  wire        mmio_valid,
    output reg         mmio_ready,
    input  wire        mmio_we,
    input  wire [15:0] mmio_addr,
    input  wire [31:0] mmio_wdata,
    output reg         mmio_rvalid,
    output reg  [31:0] mmio_rdata,

    output reg         dmar_req_valid,
    input  wire        dmar_req_ready,
    output reg  [63:0] dmar_req_addr,
    output reg  [15:0] dmar_req_len,
    output reg  [`QPNIC_DMA_RD_TAG_BITS-1:0] dmar_req_tag,
    input  wire        dmar_rsp_valid,
    output reg         dmar_rsp_ready,
    input  wire [31:0] dmar_rsp_data,
    input  wire [3:0]  dmar_rsp_keep,
    input  wire        dmar_rsp_last,
    input  wire [`QPNIC_DMA_RD_TAG_BITS-1:0] dmar_rsp_tag,

    output reg         dmaw_req_valid,
    input  wire        dmaw_req_ready,
    output reg  [63:0] dmaw_req_addr,
    output reg  [15:0] dmaw_req_len,
    output reg         dmaw_dat_valid,
    input  wire        dmaw_dat_ready,
    output reg  [31:0] dmaw_dat_data,
    output reg  [3:0]  dmaw_dat_keep,
    output reg         dmaw_dat_last,

    output reg         ntf_valid,
    input  wire        ntf_ready,
    output reg  [31:0] ntf_data,

    // the wire's ports: the boards measured here have none
    input  wire        wire_en,
    input  wire [47:0] cfg_mac,
    input  wire [31:0] cfg_ip,
    output wire        ftx_valid,
    input  wire        ftx_ready,
    output wire [31:0] ftx_data,
    output wire [3:0]  ftx_keep,
    output wire        ftx_last,
    input  wire        frx_valid,
    output wire        frx_ready,
    input  wire [31:0] frx_data,
    input  wire [3:0]  frx_keep,
    input  wire        frx_last,
    output wire [4:0]  wire_cnt,

    input  wire        fw_ld_valid,
    input  wire [15:0] fw_ld_addr,
    input  wire [31:0] fw_ld_data,

    output wire        idle
);
    wire        io_valid, io_sel, trap;
    wire [7:0]  io_addr;
    wire [3:0]  io_wstrb;
    wire [31:0] io_wdata;
    reg         io_ready;
    reg  [31:0] io_rdata;
    qpnic_soc #(.FW_WORDS(FW_WORDS), .FW_HEX(FW_HEX), .REGS_DUALPORT(ICE40),
                .FW_LOAD(FW_LOAD)) soc (
        .clk(clk), .rst(rst),
        .io_valid(io_valid), .io_ready(io_ready), .io_sel(io_sel), .io_addr(io_addr),
        .io_wstrb(io_wstrb), .io_wdata(io_wdata), .io_rdata(io_rdata),
        .fw_ld_valid(fw_ld_valid), .fw_ld_addr(fw_ld_addr), .fw_ld_data(fw_ld_data),
        .trap(trap)
    );

    wire        take = io_valid && !io_ready;
    wire        wr   = take && io_wstrb != 4'd0;
    wire [31:0] rd0  = {{(18-`QPNIC_DMA_RD_TAG_BITS){1'b0}}, trap, io_sel, dmar_rsp_tag,
                        dmar_rsp_valid, dmar_rsp_keep, dmar_rsp_last, dmar_req_valid,
                        dmaw_req_valid, dmaw_dat_valid, ntf_valid, mmio_valid, mmio_we};
    always @(posedge clk) begin
        io_ready       <= take;
        mmio_ready     <= 1'b0;
        mmio_rvalid    <= 1'b0;
        dmar_rsp_ready <= 1'b0;
        if (dmar_req_ready) dmar_req_valid <= 1'b0;
        if (dmaw_req_ready) dmaw_req_valid <= 1'b0;
        if (dmaw_dat_ready) dmaw_dat_valid <= 1'b0;
        if (ntf_ready)      ntf_valid      <= 1'b0;
        case (io_addr[5:2])
        4'd0:    io_rdata <= rd0;
        4'd1:    io_rdata <= {16'd0, mmio_addr};
        4'd2:    io_rdata <= mmio_wdata;
        4'd3:    io_rdata <= dmar_rsp_data;
        default: io_rdata <= 32'd0;
        endcase
        if (wr)
            case (io_addr[5:2])
            4'd0: begin
                mmio_ready     <= io_wdata[0];
                mmio_rvalid    <= io_wdata[1];
                dmar_rsp_ready <= io_wdata[2];
            end
            4'd1: mmio_rdata <= io_wdata;
            4'd2: dmar_req_addr[31:0]  <= io_wdata;
            4'd3: dmar_req_addr[63:32] <= io_wdata;
            4'd4: begin
                dmar_req_len   <= io_wdata[15:0];
                dmar_req_tag   <= io_wdata[16 +: `QPNIC_DMA_RD_TAG_BITS];
                dmar_req_valid <= 1'b1;
            end
            4'd5: dmaw_req_addr[31:0]  <= io_wdata;
            4'd6: dmaw_req_addr[63:32] <= io_wdata;
            4'd7: begin
                dmaw_req_len   <= io_wdata[15:0];
                dmaw_req_valid <= 1'b1;
            end
            4'd8: dmaw_dat_data <= io_wdata;
            4'd9: begin
                dmaw_dat_keep  <= io_wdata[3:0];
                dmaw_dat_last  <= io_wdata[4];
                dmaw_dat_valid <= 1'b1;
            end
            4'd10: begin
                ntf_data  <= io_wdata;
                ntf_valid <= 1'b1;
            end
            default: ;
            endcase
        if (rst) begin
            io_ready       <= 1'b0;
            dmar_req_valid <= 1'b0;
            dmaw_req_valid <= 1'b0;
            dmaw_dat_valid <= 1'b0;
            ntf_valid      <= 1'b0;
        end
    end

    assign ftx_valid = 1'b0;
    assign ftx_data  = 32'd0;
    assign ftx_keep  = 4'd0;
    assign ftx_last  = 1'b0;
    assign frx_ready = 1'b0;
    assign wire_cnt  = 5'd0;
    assign idle      = 1'b1;
    // (the wire's inputs; the byte strobes and the address bits past the
    // mailbox's 16 words: a mailbox word is written whole, in either window)
    wire unused = &{1'b0, wire_en, cfg_mac, cfg_ip, ftx_ready, frx_valid, frx_data,
                    frx_keep, frx_last, io_wstrb, io_addr[7:6], io_addr[1:0]};
endmodule

`default_nettype wire
