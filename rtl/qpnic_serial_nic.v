// qpnic_serial_nic: the NIC as a board holds it: qpnic_core reached over a
// serial line, through the board link (docs/link.md): qpnic_uart on the
// pins, qpnic_link between the line and the core's ports. A board's top
// level adds its clock, its reset and its LEDs (boards/).
//
// Parameters
//   CLK_HZ, BAUD        clock and line rate (qpnic_uart: CLK_HZ >= 4 * BAUD)
//   RTO_CYCLES          the link's retransmission timeout (default 20 ms)
//   NUM_QP, NUM_CQ, NUM_MR, NUM_PT, FW_WORDS, FW_HEX, PARTITION,
//   ICE40, FW_LOAD   qpnic_core's
// Ports
//   clk, rst            clock, synchronous active-high reset
//   uart_rx             from the USB bridge's TXD, idle high, asynchronous
//   uart_tx             to the USB bridge's RXD, idle high
//   link_up             the host has reset the link since rst
//   activity            a frame was taken or sent (one-cycle pulse)
//   error               a frame was dropped as corrupt (one-cycle pulse)
//   fw_ld_*             FW_LOAD 1: the firmware image, while rst is high
//                       (qpnic_core's)
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_serial_nic #(
    parameter CLK_HZ = 48000000,
    parameter BAUD = 3000000,
    parameter RTO_CYCLES = CLK_HZ / 50,
    parameter NUM_QP = 8,
    parameter NUM_CQ = 8,
    parameter NUM_MR = 16,
    parameter NUM_PT = `QPNIC_NUM_PT,
    parameter FW_WORDS = `QPNIC_FW_RAM_WORDS,
    parameter FW_HEX = "qpnic-fw.hex",
    parameter PARTITION = 0,
    parameter ICE40 = 0,
    parameter FW_LOAD = 0
) (
    input  wire clk,
    input  wire rst,
    input  wire uart_rx,
    output wire uart_tx,
    output wire link_up,
    output wire activity,
    output wire error,
    input  wire        fw_ld_valid,
    input  wire [15:0] fw_ld_addr,
    input  wire [31:0] fw_ld_data
);
    wire        rx_valid, rx_err, tx_valid, tx_ready;
    wire [7:0]  rx_data, tx_data;
    qpnic_uart #(.CLK_HZ(CLK_HZ), .BAUD(BAUD)) u_uart (
        .clk(clk), .rst(rst), .rx(uart_rx),
        .rx_valid(rx_valid), .rx_data(rx_data), .rx_err(rx_err),
        .tx_valid(tx_valid), .tx_ready(tx_ready), .tx_data(tx_data), .tx(uart_tx));

    wire        core_rst;
    wire        mmio_valid, mmio_ready, mmio_we, mmio_rvalid;
    wire [15:0] mmio_addr;
    wire [31:0] mmio_wdata, mmio_rdata;
    wire        dmar_req_valid, dmar_req_ready, dmar_rsp_valid, dmar_rsp_ready, dmar_rsp_last;
    wire [63:0] dmar_req_addr;
    wire [15:0] dmar_req_len;
    wire [`QPNIC_DMA_RD_TAG_BITS-1:0] dmar_req_tag, dmar_rsp_tag;
    wire [31:0] dmar_rsp_data;
    wire [3:0]  dmar_rsp_keep;
    wire        dmaw_req_valid, dmaw_req_ready, dmaw_dat_valid, dmaw_dat_ready, dmaw_dat_last;
    wire [63:0] dmaw_req_addr;
    wire [15:0] dmaw_req_len;
    wire [31:0] dmaw_dat_data;
    wire [3:0]  dmaw_dat_keep;
    wire        ntf_valid, ntf_ready;
    wire [31:0] ntf_data;

    qpnic_link #(.RTO_CYCLES(RTO_CYCLES)) u_link (
        .clk(clk), .rst(rst),
        .rx_valid(rx_valid), .rx_data(rx_data), .rx_err(rx_err),
        .tx_valid(tx_valid), .tx_ready(tx_ready), .tx_data(tx_data),
        .core_rst(core_rst),
        .mmio_valid(mmio_valid), .mmio_ready(mmio_ready), .mmio_we(mmio_we),
        .mmio_addr(mmio_addr), .mmio_wdata(mmio_wdata),
        .mmio_rvalid(mmio_rvalid), .mmio_rdata(mmio_rdata),
        .dmar_req_valid(dmar_req_valid), .dmar_req_ready(dmar_req_ready),
        .dmar_req_addr(dmar_req_addr), .dmar_req_len(dmar_req_len), .dmar_req_tag(dmar_req_tag),
        .dmar_rsp_valid(dmar_rsp_valid), .dmar_rsp_ready(dmar_rsp_ready),
        .dmar_rsp_data(dmar_rsp_data), .dmar_rsp_keep(dmar_rsp_keep), .dmar_rsp_last(dmar_rsp_last),
        .dmar_rsp_tag(dmar_rsp_tag),
        .dmaw_req_valid(dmaw_req_valid), .dmaw_req_ready(dmaw_req_ready),
        .dmaw_req_addr(dmaw_req_addr), .dmaw_req_len(dmaw_req_len),
        .dmaw_dat_valid(dmaw_dat_valid), .dmaw_dat_ready(dmaw_dat_ready),
        .dmaw_dat_data(dmaw_dat_data), .dmaw_dat_keep(dmaw_dat_keep), .dmaw_dat_last(dmaw_dat_last),
        .ntf_valid(ntf_valid), .ntf_ready(ntf_ready), .ntf_data(ntf_data),
        .link_up(link_up), .activity(activity), .error(error));

    wire core_idle;
    wire        wire_ftx_valid, wire_ftx_last, wire_frx_ready;
    wire [31:0] wire_ftx_data;
    wire [3:0]  wire_ftx_keep;
    wire [4:0]  wire_cnt;
    qpnic_core #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .NUM_PT(NUM_PT),
                 .FW_WORDS(FW_WORDS), .FW_HEX(FW_HEX), .PARTITION(PARTITION),
                 .ICE40(ICE40), .FW_LOAD(FW_LOAD)) u_core (
        .clk(clk), .rst(core_rst),
        .mmio_valid(mmio_valid), .mmio_ready(mmio_ready), .mmio_we(mmio_we),
        .mmio_addr(mmio_addr), .mmio_wdata(mmio_wdata),
        .mmio_rvalid(mmio_rvalid), .mmio_rdata(mmio_rdata),
        .dmar_req_valid(dmar_req_valid), .dmar_req_ready(dmar_req_ready),
        .dmar_req_addr(dmar_req_addr), .dmar_req_len(dmar_req_len), .dmar_req_tag(dmar_req_tag),
        .dmar_rsp_valid(dmar_rsp_valid), .dmar_rsp_ready(dmar_rsp_ready),
        .dmar_rsp_data(dmar_rsp_data), .dmar_rsp_keep(dmar_rsp_keep), .dmar_rsp_last(dmar_rsp_last),
        .dmar_rsp_tag(dmar_rsp_tag),
        .dmaw_req_valid(dmaw_req_valid), .dmaw_req_ready(dmaw_req_ready),
        .dmaw_req_addr(dmaw_req_addr), .dmaw_req_len(dmaw_req_len),
        .dmaw_dat_valid(dmaw_dat_valid), .dmaw_dat_ready(dmaw_dat_ready),
        .dmaw_dat_data(dmaw_dat_data), .dmaw_dat_keep(dmaw_dat_keep), .dmaw_dat_last(dmaw_dat_last),
        .ntf_valid(ntf_valid), .ntf_ready(ntf_ready), .ntf_data(ntf_data),
        // no network port on a board yet: the wire is not built (WIRE 0)
        .wire_en(1'b0), .cfg_mac(48'd0), .cfg_ip(32'd0),
        .ftx_valid(wire_ftx_valid), .ftx_ready(1'b0), .ftx_data(wire_ftx_data), .ftx_keep(wire_ftx_keep),
        .ftx_last(wire_ftx_last), .frx_valid(1'b0), .frx_ready(wire_frx_ready), .frx_data(32'd0),
        .frx_keep(4'd0), .frx_last(1'b0), .wire_cnt(wire_cnt),
        .fw_ld_valid(fw_ld_valid), .fw_ld_addr(fw_ld_addr), .fw_ld_data(fw_ld_data),
        .idle(core_idle));

    // lint: nothing on a board waits for the core to be idle (the simulator
    // does), and the wire's outputs are 0 in a build without it
    wire unused = &{1'b0, core_idle, wire_ftx_valid, wire_ftx_data, wire_ftx_keep, wire_ftx_last,
                    wire_frx_ready, wire_cnt};
endmodule
