// qpnic_fw_if: the firmware's registers (layout "Firmware registers", at
// FW_IO_BASE on the soft core's bus), the event FIFO the firmware pops and
// the notification FIFO it pushes. The CQ registers are answered by
// qpnic_cq_table through its firmware port; nothing here holds CQ state.
//
//   EVT_POP     read: pops one event (struct event, valid = 1); when none
//               waits it returns 0 (valid 0, type NONE) and sets the
//               "firmware waiting" flag, cleared by the next event pushed.
//               Popping an ARM event is also an ARM_POPPED op of the CQ
//               table (that CQ's arms_queued - 1): the read waits until the
//               table takes it
//   NOTIFY      write: queues one notification for the host; the bus write
//               stalls while the notification FIFO is full
//   CQ_SEL      rw: the CQ the CQ_* registers describe (0 beyond NUM_CQ)
//   CQ_PI, CQ_CI, CQ_LAST_ERR, CQ_LAST_SOL   ro: that CQ's state (struct
//               cq_mark for the marks), a READ op of the CQ table: the read
//               waits for its answer
//   ARMED_CLR   write a cqn: an ARMED_CLR op of the CQ table, which clears
//               the CQ's armed bit (consulted by the CQE writer before it
//               raises a CQE event) unless an ARM event of that CQ is still
//               queued. The armed bit is SET by the ARM doorbell's own table
//               op, so every CQE written after an arm doorbell raises an
//               event behind the ARM (docs/internals.md, "Firmware and its
//               hardware"). The write waits until the table takes the op
//   FW_READY    write: bit 0 shows in the host STATUS register
//   CYCLES      ro: low word of the cycle counter
//   NUM_CQ      ro: the NUM_CQ parameter
// Any non-zero byte strobe makes a whole-word write; unmapped offsets read 0.
// The table's firmware port takes its ops in order, so an ARMED_CLR the
// firmware writes after popping an ARM sees that ARM's count gone.
//
// Events come from two sources, ARM (qpnic_cq_table, whose op made the event
// at the moment of the doorbell) and CQE/OVERRUN (the CQE writer). When both
// wait, the older goes first. A CQE event the ARM's armed bit caused can
// only be offered after the ARM event was made, and must not overtake it
// while the ARM waits for room: so the ARM goes first, unless the CQE event
// was already waiting when the ARM event appeared (cqe_first; its WRITTEN
// op then came before the ARM's in the table, and either order is right).
// Without that exception a host arming in a loop, with the FIFO full,
// would take every slot the firmware frees and shut the CQE writer out for
// ever (and with it the engines). An ARM event appears only after a cycle
// without one (the table holds one, and takes the next ARM only when the
// slot is empty), so its rising edge is seen. A source waits while the FIFO
// is full: no event is ever dropped.
//
// Parameters
//   NUM_CQ          completion queues (for the NUM_CQ register)
//   EVT_LOG_DEPTH   log2 of the event FIFO depth (default the layout's
//                   EVT_LOG_DEPTH, which cq_ctx.arms_queued is sized for:
//                   no deeper)
//   NTF_LOG_DEPTH   log2 of the notification FIFO depth
//
// Ports
//   clk, rst                      clock, synchronous active-high reset
//   bus_valid/ready               one access from the soft core; ready is
//                                 high in the cycle it completes and the
//                                 access acts on the edge that ends that
//                                 cycle. Most accesses complete in the cycle
//                                 they are made; a NOTIFY write waits for
//                                 room in the notification FIFO, an access
//                                 that is a CQ table op for the table to
//                                 take it, a CQ_* read for its answer
//                                 (ANS_LATENCY cycles later). The core's bus
//                                 holds valid, address and data until ready.
//                                 Combinational paths: bus_valid, bus_addr,
//                                 bus_wstrb, bus_wdata -> t_valid, t_op,
//                                 t_idx, bus_ready, bus_rdata; t_ready,
//                                 t_rvalid -> bus_ready (the core's bus
//                                 outputs are registers).
//   bus_addr, bus_wstrb, bus_wdata   byte offset from FW_IO_BASE, byte
//                                 strobes (0: read), data
//   bus_rdata                     read data, valid while bus_ready is high
//   arm_evt_valid/ready/data      ARM events from qpnic_cq_table
//   cqe_evt_valid/ready/data      CQE / OVERRUN events from the CQE writer
//                                 (combinational path: arm_evt_valid ->
//                                 cqe_evt_ready)
//   t_valid/ready, t_op, t_idx    requests to qpnic_cq_table's firmware port
//                                 (f_*): READ, ARMED_CLR, ARM_POPPED
//   t_rvalid, t_pi, t_ci, t_err, t_sol   the table's answer to a READ
//   cycles_lo                     low word of the cycle counter
//   fw_ready                      FW_READY bit 0 (to STATUS)
//   ntf_valid/ready/data          notifications towards the core's ntf port
//   cnt_notify                    pulse: one notification left (counter, and
//                                 the CQ table's latency lookup)
//   fw_waiting, evt_empty, ntf_empty   for the core's idle
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_fw_if #(
    parameter NUM_CQ = 8,
    parameter EVT_LOG_DEPTH = `QPNIC_EVT_LOG_DEPTH,
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

    output wire                  t_valid,
    input  wire                  t_ready,
    output reg  [1:0]            t_op,
    output reg  [`QPNIC_CQN_BITS-1:0] t_idx,
    input  wire                  t_rvalid,
    input  wire [`QPNIC_CQ_CTX_PI_WIDTH-1:0] t_pi,
    input  wire [`QPNIC_CQ_CTX_CI_WIDTH-1:0] t_ci,
    input  wire [31:0]           t_err,
    input  wire [31:0]           t_sol,

    input  wire [31:0]           cycles_lo,

    output reg                   fw_ready,

    output wire                  ntf_valid,
    input  wire                  ntf_ready,
    output wire [31:0]           ntf_data,
    output wire                  cnt_notify,

    output reg                   fw_waiting,
    output wire                  evt_empty,
    output wire                  ntf_empty
);
    localparam CW = `QPNIC_CQN_BITS;
    localparam GW = NUM_CQ > 1 ? $clog2(NUM_CQ) : 1;   // bits of a cq_gen index

    // ---- event FIFO: two sources, the older first ------------------------------------
    wire evt_in_ready;
    reg  arm_q;        // an ARM event was offered last cycle
    reg  cqe_first;    // the waiting CQE event predates the waiting ARM event
    always @(posedge clk) begin
        if (rst) begin
            arm_q     <= 1'b0;
            cqe_first <= 1'b0;
        end else begin
            arm_q <= arm_evt_valid;
            if (cqe_evt_valid && cqe_evt_ready)
                cqe_first <= 1'b0;   // a later CQE event is newer than the ARM
            else if (arm_evt_valid && !arm_q && cqe_evt_valid)
                cqe_first <= 1'b1;   // the ARM appears behind a waiting CQE event
        end
    end
    wire take_arm = arm_evt_valid && !(cqe_first && cqe_evt_valid);
    wire take_cqe = cqe_evt_valid && (!arm_evt_valid || cqe_first);
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

    // ---- bus decode ----------------------------------------------------------
    // bus_wr and bus_rd are the accesses that complete (and act) this cycle.
    wire ntf_in_ready;
    wire is_rd     = bus_wstrb == 4'd0;
    wire is_notify = bus_addr == `QPNIC_FWREG_NOTIFY;
    wire is_pop    = bus_addr == `QPNIC_FWREG_EVT_POP;
    wire is_clr    = bus_addr == `QPNIC_FWREG_ARMED_CLR;
    wire is_cq_reg = bus_addr == `QPNIC_FWREG_CQ_PI || bus_addr == `QPNIC_FWREG_CQ_CI ||
                     bus_addr == `QPNIC_FWREG_CQ_LAST_ERR || bus_addr == `QPNIC_FWREG_CQ_LAST_SOL;
    wire pop_arm   = evt_out_valid && evt_out_data[`QPNIC_EVENT_TYPE] == `QPNIC_EVT_TYPE_ARM;

    // A CQ_* read: its READ op was taken, the answer not yet here.
    reg  rd_wait;
    reg [7:0] cq_sel;

    // Table ops: the pop of an ARM event, an ARMED_CLR write, a CQ_* read
    // (issued once; then the access waits for the answer).
    wire op_pop = is_rd && is_pop && pop_arm;
    wire op_clr = !is_rd && is_clr;
    wire op_rd  = is_rd && is_cq_reg && !rd_wait;
    assign t_valid = bus_valid && (op_pop || op_clr || op_rd);
    always @* begin
        if (op_pop) begin
            t_op  = `QPNIC_CQ_FW_OP_ARM_POPPED;
            t_idx = evt_out_data[`QPNIC_EVENT_CQN];
        end else if (op_clr) begin
            t_op  = `QPNIC_CQ_FW_OP_ARMED_CLR;
            t_idx = bus_wdata[CW-1:0];
        end else begin
            t_op  = `QPNIC_CQ_FW_OP_READ;
            t_idx = cq_sel[CW-1:0];
        end
    end

    reg done;   // the access completes this cycle
    always @* begin
        if (is_rd && is_pop)          done = !pop_arm || t_ready;
        else if (is_rd && is_cq_reg)  done = rd_wait && t_rvalid;
        else if (!is_rd && is_clr)    done = t_ready;
        else if (!is_rd && is_notify) done = ntf_in_ready;
        else                          done = 1'b1;
    end
    assign bus_ready = bus_valid && done;
    wire bus_wr = bus_ready && !is_rd;
    wire bus_rd = bus_ready && is_rd;

    assign evt_pop = bus_rd && is_pop && evt_out_valid;

    // ---- notification FIFO -------------------------------------------------
    wire ntf_push = bus_wr && is_notify;
    wire [NTF_LOG_DEPTH:0] ntf_count;

    // Each CQ's generation, as of the last RESET event of it the firmware
    // popped (the event's index carries CFG.gen): the notifications the
    // firmware writes after that pop carry it (struct notify gen), those
    // before it the old one, so the host can drop a notification a
    // destroyed CQ earned once its number serves a new CQ. Added here, not
    // by the firmware: on PicoRV32 the table lookup cost the notification
    // path ~30 cycles. Not cleared by rst: every CQ the host uses is created
    // by a CFG write, which queues its RESET event first.
    // One entry per CQ the build has (NUM_CQ rounded up to a power of two),
    // indexed by the low GW bits of the CQ number: no event names a CQ beyond
    // NUM_CQ, so a NOTIFY of one (the firmware writes none) takes the
    // generation of the CQ its low bits name. At NUM_CQ 16 that is 2 LUT
    // RAMs instead of 256 entries (a block RAM, or 32 LUT RAMs and their
    // read multiplexer).
    reg  [7:0] cq_gen [0:(1<<GW)-1];
    wire       pop_reset = evt_pop && evt_out_data[`QPNIC_EVENT_TYPE] == `QPNIC_EVT_TYPE_RESET;
    // a RESET event's index carries the 8-bit generation in its low bits
    /* verilator lint_off UNUSEDSIGNAL */
    wire [`QPNIC_EVENT_INDEX_WIDTH-1:0] pop_index = evt_out_data[`QPNIC_EVENT_INDEX];
    // the CQ numbers' bits above GW never index the table (see cq_gen)
    wire [CW-1:0] pop_cqn = evt_out_data[`QPNIC_EVENT_CQN];
    wire [CW-1:0] ntf_cqn = bus_wdata[`QPNIC_NOTIFY_CQN];
    /* verilator lint_on UNUSEDSIGNAL */
    always @(posedge clk)
        if (pop_reset)
            cq_gen[pop_cqn[GW-1:0]] <= pop_index[`QPNIC_NOTIFY_GEN_WIDTH-1:0];
    reg [31:0] ntf_word;
    always @* begin
        ntf_word = bus_wdata;
        ntf_word[`QPNIC_NOTIFY_GEN] = cq_gen[ntf_cqn[GW-1:0]];
    end

    // a block RAM (STYLE "block"): a notification leaves from the second
    // cycle after its write. (The event FIFO stays in LUT RAM: an event
    // pops the cycle after its push.)
    qpnic_fifo #(.WIDTH(32), .LOG_DEPTH(NTF_LOG_DEPTH), .STYLE("block")) ntf_fifo (
        .clk(clk), .rst(rst),
        .in_valid(ntf_push), .in_ready(ntf_in_ready), .in_data(ntf_word),
        .out_valid(ntf_valid), .out_ready(ntf_ready), .out_data(ntf_data),
        .count(ntf_count)
    );
    assign ntf_empty  = ntf_count == 0;
    assign cnt_notify = ntf_valid && ntf_ready;

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
        `QPNIC_FWREG_CQ_PI:       rd_word[`QPNIC_CQ_CTX_PI_WIDTH-1:0] = t_pi;
        `QPNIC_FWREG_CQ_CI:       rd_word[`QPNIC_CQ_CTX_CI_WIDTH-1:0] = t_ci;
        `QPNIC_FWREG_CQ_LAST_ERR: rd_word = t_err;
        `QPNIC_FWREG_CQ_LAST_SOL: rd_word = t_sol;
        `QPNIC_FWREG_CYCLES:      rd_word = cycles_lo;
        `QPNIC_FWREG_NUM_CQ:      rd_word = NUM_CQ;
        default: ;
        endcase
    end

    // ---- bus side, registers ---------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            cq_sel     <= 8'd0;
            fw_ready   <= 1'b0;
            fw_waiting <= 1'b0;
            rd_wait    <= 1'b0;
        end else begin
            if (bus_wr) begin
                case (bus_addr)
                `QPNIC_FWREG_CQ_SEL:    cq_sel <= bus_wdata[7:0];
                `QPNIC_FWREG_FW_READY:  fw_ready <= bus_wdata[0];
                default: ;
                endcase
            end
            if (t_valid && t_ready && op_rd) rd_wait <= 1'b1;
            if (t_rvalid) rd_wait <= 1'b0;

            // An EVT_POP that finds nothing means the firmware waits; the
            // next event pushed ends that (a push in the same cycle wins).
            if (bus_rd && is_pop && !evt_out_valid)
                fw_waiting <= 1'b1;
            if (evt_push && evt_in_ready)
                fw_waiting <= 1'b0;
        end
    end
endmodule

`default_nettype wire
