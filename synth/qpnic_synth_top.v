// qpnic_synth_top: a thin top around qpnic_core for `make synth` only
// (synth/synth.mk, docs/synthesis.md). Not a board top: a board's top, with
// its link to the host, belongs in boards/.
//
// Why it is built so. qpnic_core has about 90 input and 270 output bits
// (64-bit DMA addresses, 32-bit data on four channels). Placed on pins as
// they are, they would need more I/O than the packages have, and a top that
// tied the inputs to constants or left outputs open would let Yosys delete
// most of the NIC. So the core sees real, unknown inputs and every output
// bit reaches a pin, through three pins:
//   - the inputs: one pin, `din`, feeds a shift register as long as all
//     core inputs together (reset included); each core input is one bit of
//     it. Nothing is constant, so nothing folds away.
//   - the outputs: every core output is registered once (out_q), and each
//     registered bit is the synchronous reset of one stage of a shift
//     register (sig) whose last bit is the pin `dout`: a stage passes the
//     bit before it on, or 0 while its output bit is 1. Every output bit
//     can change `dout`, so none of the logic behind it is dead.
//   - the clock: `clk`, the only pin with a timing constraint.
// Every wrapper path is one flip-flop to the next with no logic between
// (a reset input is a flip-flop's own), and the core's inputs come straight
// from flip-flops and its outputs go straight into flip-flops, so the
// wrapper adds no logic level in front of or behind the core: the critical
// path nextpnr reports is the core's. The price is about 90 + 2 x 270
// flip-flops and no LUT, counted in the figures (docs/synthesis.md). (An
// earlier wrapper folded the outputs into a signature through 270 XORs,
// 270 LUTs that were not the core's.)
//
// Parameters: those of qpnic_core, passed through (the flow sets them per
// target from synth/targets.toml; FW_HEX is always an absolute path there).
//
// Ports
//   clk    the core clock (constrained per target: LPF FREQUENCY or --freq)
//   din    serial input, shifted into the core's inputs, one bit a cycle
//   dout   serial output, the last bit of the output signature
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_synth_top #(
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
    input  wire din,
    output wire dout
);
    // ---- the core's inputs, from one shift register -------------------------
    // Width of every input of qpnic_core together, rst first.
    localparam TGW  = `QPNIC_DMA_RD_TAG_BITS;
    localparam IN_W = 1 + (1 + 1 + 16 + 32) + (1 + 1 + 32 + 4 + 1 + TGW) + (1 + 1) + 1;

    reg  [IN_W-1:0] in_sr;
    always @(posedge clk)
        in_sr <= {in_sr[IN_W-2:0], din};

    wire        rst;
    wire        mmio_valid, mmio_we;
    wire [15:0] mmio_addr;
    wire [31:0] mmio_wdata;
    wire        dmar_req_ready, dmar_rsp_valid, dmar_rsp_last;
    wire [31:0] dmar_rsp_data;
    wire [3:0]  dmar_rsp_keep;
    wire [TGW-1:0] dmar_rsp_tag;
    wire        dmaw_req_ready, dmaw_dat_ready, ntf_ready;
    assign {rst,
            mmio_valid, mmio_we, mmio_addr, mmio_wdata,
            dmar_req_ready, dmar_rsp_valid, dmar_rsp_data, dmar_rsp_keep, dmar_rsp_last, dmar_rsp_tag,
            dmaw_req_ready, dmaw_dat_ready,
            ntf_ready} = in_sr;

    // FW_LOAD: the soft core's RAM has no initial image, and a RAM never
    // written would be synthesized away; its load port gets a shift register
    // of its own (none without FW_LOAD: constants cost nothing)
    wire ld_on = FW_LOAD != 0;
    reg  [48:0] ld_sr;
    always @(posedge clk)
        ld_sr <= {ld_sr[47:0], in_sr[IN_W-1]};

    // ---- the core -----------------------------------------------------------
    wire        mmio_ready, mmio_rvalid;
    wire [31:0] mmio_rdata;
    wire        dmar_req_valid, dmar_rsp_ready;
    wire [63:0] dmar_req_addr;
    wire [15:0] dmar_req_len;
    wire [TGW-1:0] dmar_req_tag;
    wire        dmaw_req_valid, dmaw_dat_valid, dmaw_dat_last;
    wire [63:0] dmaw_req_addr;
    wire [15:0] dmaw_req_len;
    wire [31:0] dmaw_dat_data;
    wire [3:0]  dmaw_dat_keep;
    wire        ntf_valid;
    wire [31:0] ntf_data;
    wire        idle;
    wire        wire_ftx_valid, wire_ftx_last, wire_frx_ready;
    wire [31:0] wire_ftx_data;
    wire [3:0]  wire_ftx_keep;
    wire [4:0]  wire_cnt;

    qpnic_core #(
        .NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .NUM_PT(NUM_PT),
        .FW_WORDS(FW_WORDS), .FW_HEX(FW_HEX), .PARTITION(PARTITION),
        .ICE40(ICE40), .FW_LOAD(FW_LOAD)
    ) core (
        .clk(clk), .rst(rst),
        .mmio_valid(mmio_valid), .mmio_ready(mmio_ready), .mmio_we(mmio_we),
        .mmio_addr(mmio_addr), .mmio_wdata(mmio_wdata),
        .mmio_rvalid(mmio_rvalid), .mmio_rdata(mmio_rdata),
        .dmar_req_valid(dmar_req_valid), .dmar_req_ready(dmar_req_ready),
        .dmar_req_addr(dmar_req_addr), .dmar_req_len(dmar_req_len), .dmar_req_tag(dmar_req_tag),
        .dmar_rsp_valid(dmar_rsp_valid), .dmar_rsp_ready(dmar_rsp_ready),
        .dmar_rsp_data(dmar_rsp_data), .dmar_rsp_keep(dmar_rsp_keep),
        .dmar_rsp_last(dmar_rsp_last), .dmar_rsp_tag(dmar_rsp_tag),
        .dmaw_req_valid(dmaw_req_valid), .dmaw_req_ready(dmaw_req_ready),
        .dmaw_req_addr(dmaw_req_addr), .dmaw_req_len(dmaw_req_len),
        .dmaw_dat_valid(dmaw_dat_valid), .dmaw_dat_ready(dmaw_dat_ready),
        .dmaw_dat_data(dmaw_dat_data), .dmaw_dat_keep(dmaw_dat_keep),
        .dmaw_dat_last(dmaw_dat_last),
        .ntf_valid(ntf_valid), .ntf_ready(ntf_ready), .ntf_data(ntf_data),
        // the wire is not built (WIRE 0): constant inputs cost nothing
        .wire_en(1'b0), .cfg_mac(48'd0), .cfg_ip(32'd0),
        .ftx_valid(wire_ftx_valid), .ftx_ready(1'b0), .ftx_data(wire_ftx_data), .ftx_keep(wire_ftx_keep),
        .ftx_last(wire_ftx_last), .frx_valid(1'b0), .frx_ready(wire_frx_ready), .frx_data(32'd0),
        .frx_keep(4'd0), .frx_last(1'b0), .wire_cnt(wire_cnt),
        .fw_ld_valid(ld_on && ld_sr[48]), .fw_ld_addr(ld_on ? ld_sr[47:32] : 16'd0),
        .fw_ld_data(ld_on ? ld_sr[31:0] : 32'd0),
        .idle(idle)
    );
    // lint: a build without the wire holds its outputs at 0
    wire unused_wire = &{1'b0, wire_ftx_valid, wire_ftx_data, wire_ftx_keep, wire_ftx_last,
                         wire_frx_ready, wire_cnt};

    // ---- the core's outputs, registered, folded into one signature ----------
    // Width of every output of qpnic_core together.
    localparam OUT_W = 2 + 32 + (1 + 64 + 16 + TGW + 1) + (1 + 64 + 16) + (1 + 32 + 4 + 1) + (1 + 32) + 1;

    wire [OUT_W-1:0] out_all = {
        mmio_ready, mmio_rvalid, mmio_rdata,
        dmar_req_valid, dmar_req_addr, dmar_req_len, dmar_req_tag, dmar_rsp_ready,
        dmaw_req_valid, dmaw_req_addr, dmaw_req_len,
        dmaw_dat_valid, dmaw_dat_data, dmaw_dat_keep, dmaw_dat_last,
        ntf_valid, ntf_data,
        idle};

    // Each output bit, registered (out_q), is the synchronous reset of its
    // own stage of a shift register that the input shift register's last
    // bit feeds: a stage passes its neighbour's bit on, or 0 while its
    // output bit is 1. A flip-flop's reset input needs no LUT (ECP5: the
    // slice's LSR; iCE40: SB_DFFSR), so the wrapper adds no LUT to the
    // figures, and every output bit can still change dout.
    reg [OUT_W-1:0] out_q;
    reg [OUT_W-1:0] sig;
    integer i;
    always @(posedge clk) begin
        out_q <= out_all;
        for (i = 0; i < OUT_W; i = i + 1)
            if (out_q[i])
                sig[i] <= 1'b0;
            else
                sig[i] <= (i == 0) ? in_sr[IN_W-1] : sig[i-1];
    end

    assign dout = sig[OUT_W-1];
endmodule

`default_nettype wire
