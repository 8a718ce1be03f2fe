// qpnic_fw_if: the firmware's registers (layout "Firmware registers", at
// FW_IO_BASE on the soft core's bus), the event FIFO the firmware pops and
// the notification FIFO it pushes.
//
//   EVT_POP     read: pops one event (struct event, valid = 1); when none
//               waits it returns 0 (valid 0, type NONE) and sets the
//               "firmware waiting" flag, cleared by the next event pushed
//   NOTIFY      write: queues one notification for the host; the bus write
//               stalls while the notification FIFO is full
//   CQ_SEL      rw: the CQ the CQ_* registers describe (0 beyond NUM_CQ)
//   CQ_PI, CQ_CI, CQ_LAST_ERR, CQ_LAST_SOL   ro: that CQ's state (struct
//               cq_mark for the marks)
//   ARMED_CLR   write a cqn: clear its armed bit, which the CQE writer
//               consults before raising a CQE event; ignored while an ARM
//               event of that CQ is still queued. The armed bit is SET by
//               the ARM event itself, as it enters the FIFO, so every CQE
//               written after an arm doorbell raises an event behind the ARM
//               (docs/internals.md, "Firmware and its hardware").
//   FW_READY    write: bit 0 shows in the host STATUS register
//   CYCLES      ro: low word of the cycle counter
//   NUM_CQ      ro: the NUM_CQ parameter
// Any non-zero byte strobe makes a whole-word write; unmapped offsets read 0.
//
// Events come from two sources, ARM (qpnic_csr) and CQE/OVERRUN (the CQE
// writer); when both wait, they take turns (round robin). A source waits
// while the FIFO is full: no event is ever dropped.
//
// Parameters
//   NUM_CQ          completion queues (1..16)
//   EVT_LOG_DEPTH   log2 of the event FIFO depth (>= 4: 16 events)
//   NTF_LOG_DEPTH   log2 of the notification FIFO depth
//
// Ports
//   clk, rst                      clock, synchronous active-high reset
//   bus_valid/ready               one access from the soft core, answered
//                                 in the cycle it is made: ready is high
//                                 with valid (a NOTIFY write: once the
//                                 notification FIFO has room) and the access
//                                 acts on the edge that ends that cycle.
//                                 Combinational path: bus_valid, bus_addr,
//                                 bus_wstrb -> bus_ready, bus_rdata (the
//                                 core's bus outputs are registers).
//   bus_addr, bus_wstrb, bus_wdata   byte offset from FW_IO_BASE, byte
//                                 strobes (0: read), data
//   bus_rdata                     read data, valid while bus_ready is high
//   arm_evt_valid/ready/data      ARM events from qpnic_csr
//   cqe_evt_valid/ready/data      CQE / OVERRUN events from the CQE writer
//                                 (combinational path: either valid -> the
//                                 other's ready, through the turn-taking)
//   cq_pi, cq_ci                  per-CQ indices, flat (from qpnic_csr)
//   cq_err_valid/idx, cq_sol_valid/idx   per-CQ marks, flat (from qpnic_csr)
//   cycles_lo                     low word of the cycle counter
//   cq_armed                      per-CQ armed bits (to the CQE writer)
//   fw_ready                      FW_READY bit 0 (to STATUS)
//   ntf_valid/ready/data          notifications towards the core's ntf port
//   cnt_notify                    pulse: one notification left (counter)
//   fw_waiting, evt_empty, ntf_empty   for the core's idle
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_fw_if #(
    parameter NUM_CQ = 8,
    parameter EVT_LOG_DEPTH = 4,
    parameter NTF_LOG_DEPTH = 3
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire                  bus_valid,
    output wire                  bus_ready,
    input  wire [7:0]            bus_addr,
    input  wire [3:0]            bus_wstrb,
    input  wire [31:0]           bus_wdata,
    output wire [31:0]           bus_rdata,

    input  wire                  arm_evt_valid,
    output wire                  arm_evt_ready,
    input  wire [31:0]           arm_evt_data,
    input  wire                  cqe_evt_valid,
    output wire                  cqe_evt_ready,
    input  wire [31:0]           cqe_evt_data,

    input  wire [NUM_CQ*16-1:0]  cq_pi,
    input  wire [NUM_CQ*16-1:0]  cq_ci,
    input  wire [NUM_CQ-1:0]     cq_err_valid,
    input  wire [NUM_CQ*16-1:0]  cq_err_idx,
    input  wire [NUM_CQ-1:0]     cq_sol_valid,
    input  wire [NUM_CQ*16-1:0]  cq_sol_idx,
    input  wire [31:0]           cycles_lo,

    output reg  [NUM_CQ-1:0]     cq_armed,
    output reg                   fw_ready,

    output wire                  ntf_valid,
    input  wire                  ntf_ready,
    output wire [31:0]           ntf_data,
    output wire                  cnt_notify,

    output reg                   fw_waiting,
    output wire                  evt_empty,
    output wire                  ntf_empty
);
    // ---- event FIFO: two sources take turns ----------------------------------
    reg  last_arm;   // the previous push came from the ARM source
    wire evt_in_ready;
    wire take_arm = arm_evt_valid && (!cqe_evt_valid || !last_arm);
    wire take_cqe = cqe_evt_valid && !take_arm;
    wire evt_push = take_arm || take_cqe;

    assign arm_evt_ready = take_arm && evt_in_ready;
    assign cqe_evt_ready = take_cqe && evt_in_ready;

    wire        evt_out_valid;
    wire [31:0] evt_out_data;
    wire        evt_pop;
    wire [EVT_LOG_DEPTH:0] evt_count;

    qpnic_fifo #(.WIDTH(32), .LOG_DEPTH(EVT_LOG_DEPTH)) evt_fifo (
        .clk(clk), .rst(rst),
        .in_valid(evt_push), .in_ready(evt_in_ready),
        .in_data(take_arm ? arm_evt_data : cqe_evt_data),
        .out_valid(evt_out_valid), .out_ready(evt_pop), .out_data(evt_out_data),
        .count(evt_count)
    );
    assign evt_empty = evt_count == 0;

    // ---- bus decode --------------------------------------------------------
    // Every access is answered at once except a NOTIFY write finding the
    // notification FIFO full, which waits; bus_wr and bus_rd are the
    // accesses that complete (and act) this cycle.
    wire ntf_in_ready;
    wire is_notify = bus_addr == `QPNIC_FWREG_NOTIFY;
    assign bus_ready = bus_valid && (bus_wstrb == 4'd0 || !is_notify || ntf_in_ready);
    wire bus_wr = bus_ready && bus_wstrb != 4'd0;
    wire bus_rd = bus_ready && bus_wstrb == 4'd0;

    assign evt_pop = bus_rd && bus_addr == `QPNIC_FWREG_EVT_POP && evt_out_valid;

    // ---- notification FIFO -------------------------------------------------
    wire ntf_push = bus_wr && is_notify;
    wire [NTF_LOG_DEPTH:0] ntf_count;

    qpnic_fifo #(.WIDTH(32), .LOG_DEPTH(NTF_LOG_DEPTH)) ntf_fifo (
        .clk(clk), .rst(rst),
        .in_valid(ntf_push), .in_ready(ntf_in_ready), .in_data(bus_wdata),
        .out_valid(ntf_valid), .out_ready(ntf_ready), .out_data(ntf_data),
        .count(ntf_count)
    );
    assign ntf_empty  = ntf_count == 0;
    assign cnt_notify = ntf_valid && ntf_ready;

    // ---- the selected CQ ------------------------------------------------------
    reg [7:0]  cq_sel;
    reg [31:0] sel_pi, sel_ci, sel_err, sel_sol;
    integer i;
    always @* begin
        sel_pi  = 32'd0;
        sel_ci  = 32'd0;
        sel_err = 32'd0;
        sel_sol = 32'd0;
        for (i = 0; i < NUM_CQ; i = i + 1) begin
            if (cq_sel == i[7:0]) begin
                sel_pi[15:0] = cq_pi[i*16 +: 16];
                sel_ci[15:0] = cq_ci[i*16 +: 16];
                sel_err[`QPNIC_CQ_MARK_INDEX] = cq_err_idx[i*16 +: 16];
                sel_err[`QPNIC_CQ_MARK_VALID] = cq_err_valid[i];
                sel_sol[`QPNIC_CQ_MARK_INDEX] = cq_sol_idx[i*16 +: 16];
                sel_sol[`QPNIC_CQ_MARK_VALID] = cq_sol_valid[i];
            end
        end
    end

    // ---- read mux -------------------------------------------------------------
    reg [31:0] rd_word;
    assign bus_rdata = rd_word;
    always @* begin
        rd_word = 32'd0;
        case (bus_addr)
        `QPNIC_FWREG_EVT_POP: if (evt_out_valid) begin
            rd_word = evt_out_data;
            rd_word[`QPNIC_EVENT_VALID] = 1'b1;
        end
        `QPNIC_FWREG_CQ_SEL:      rd_word[7:0] = cq_sel;
        `QPNIC_FWREG_CQ_PI:       rd_word = sel_pi;
        `QPNIC_FWREG_CQ_CI:       rd_word = sel_ci;
        `QPNIC_FWREG_CQ_LAST_ERR: rd_word = sel_err;
        `QPNIC_FWREG_CQ_LAST_SOL: rd_word = sel_sol;
        `QPNIC_FWREG_CYCLES:      rd_word = cycles_lo;
        `QPNIC_FWREG_NUM_CQ:      rd_word = NUM_CQ;
        default: ;
        endcase
    end

    // ---- armed bits -------------------------------------------------------------
    // Per CQ, the ARM events pushed but not yet popped: while there is one,
    // the firmware retiring an older arm must not switch the CQE events off.
    localparam QW = EVT_LOG_DEPTH + 1;
    reg  [NUM_CQ*QW-1:0] arms_queued;
    wire       arm_pushed = arm_evt_ready;   // take_arm && evt_in_ready
    wire [3:0] push_cqn   = arm_evt_data[`QPNIC_EVENT_CQN];
    wire       arm_popped = evt_pop && evt_out_data[`QPNIC_EVENT_TYPE] == `QPNIC_EVT_TYPE_ARM;
    wire [3:0] pop_cqn    = evt_out_data[`QPNIC_EVENT_CQN];
    wire       clr_write  = bus_wr && bus_addr == `QPNIC_FWREG_ARMED_CLR;

    always @(posedge clk) begin
        if (rst) begin
            cq_armed    <= {NUM_CQ{1'b0}};
            arms_queued <= {NUM_CQ*QW{1'b0}};
        end else begin
            for (i = 0; i < NUM_CQ; i = i + 1) begin
                if (arm_pushed && push_cqn == i[3:0])
                    cq_armed[i] <= 1'b1;
                else if (clr_write && bus_wdata[7:0] == i[7:0] &&
                         arms_queued[i*QW +: QW] == {QW{1'b0}})
                    cq_armed[i] <= 1'b0;
                arms_queued[i*QW +: QW] <= arms_queued[i*QW +: QW]
                    + {{(QW-1){1'b0}}, arm_pushed && push_cqn == i[3:0]}
                    - {{(QW-1){1'b0}}, arm_popped && pop_cqn == i[3:0]};
            end
        end
    end

    // ---- bus side, registers ---------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            cq_sel     <= 8'd0;
            fw_ready   <= 1'b0;
            fw_waiting <= 1'b0;
            last_arm   <= 1'b0;
        end else begin
            if (bus_wr) begin
                case (bus_addr)
                `QPNIC_FWREG_CQ_SEL:    cq_sel <= bus_wdata[7:0];
                `QPNIC_FWREG_FW_READY:  fw_ready <= bus_wdata[0];
                default: ;
                endcase
            end

            // An EVT_POP that finds nothing means the firmware waits; the
            // next event pushed ends that (a push in the same cycle wins).
            if (bus_rd && bus_addr == `QPNIC_FWREG_EVT_POP && !evt_out_valid)
                fw_waiting <= 1'b1;
            if (evt_push && evt_in_ready) begin
                fw_waiting <= 1'b0;
                last_arm   <= take_arm;
            end
        end
    end
endmodule

`default_nettype wire
