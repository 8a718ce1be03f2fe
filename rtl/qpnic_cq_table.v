// qpnic_cq_table: every CQ's state and its one owner. CQ n is one block RAM
// word (layout struct cq_ctx): the ring's base and depth, enable, overrun,
// PI, CI, the newest error and solicited marks, the firmware's armed bit with
// its count of queued ARM events, and the notification latency stamp.
// Nothing outside this module holds CQ state; clients send requests and get
// answers.
//
// Clients (each a request port, valid/ready; those with answers get one
// valid pulse plus data, ANS_LATENCY = 2 cycles after the request is taken):
//   host      (qpnic_csr) one register access of the CQ block, with the
//             registers' meaning (docs/layout.md, blocks.cq):
//               BASE_LO, BASE_HI   the ring's device address
//               CFG       log_depth and enable; a write with enable set
//                         (re)initialises the CQ: PI, CI, overrun and both
//                         marks go to 0, whether or not it was enabled. Any
//                         CFG write (a create or a destroy) clears armed and
//                         puts a RESET event (index = CFG.gen) into arm_evt,
//                         as an ARM does: the firmware forgets the CQ's arm
//                         state after every event queued before it
//               CI        the host's consumer index
//               ARM       with ci_valid (struct cq_arm): CI = its ci first,
//                         when it lies between CI and PI (CI never goes back);
//                         sets armed, arms_queued + 1, and puts the ARM
//                         event (struct event: cqn, type ARM, trigger, index
//                         = PI now) into arm_evt, all in one step; h_ready
//                         stays low while arm_evt still holds the previous
//                         ARM: an arm is never lost, and a full event FIFO
//                         holds up no other op (the firmware, which empties
//                         that FIFO, needs table ops to go on)
//               PI, STATE read only
//             A read is answered on h_rvalid/h_rdata; writes have no answer.
//             Unmapped offsets read 0; writes to them and to PI, STATE are
//             ignored.
//   CQE writer (qpnic_cqe_writer), c_op:
//               READ      answer the context (c_base .. c_armed)
//               WRITTEN   one CQE was written: PI + 1, err/sol marks (per
//                         c_err, c_sol) set to the old PI, ntf_stamp = the
//                         cycle the request was taken; answered with the
//                         context as the op found it: c_pi is the index the
//                         CQE went to, c_armed the armed bit, which the op
//                         does not change, so also the bit after it
//               OVERRUN   set overrun; no answer
//               SET_CI    CI = c_arg (the host's record of it), when it lies
//                         between CI and PI; answered with the context, c_ci
//                         the CI it leaves
//   firmware  (qpnic_fw_if), f_op:
//               READ       answer PI, CI and the marks (struct cq_mark)
//               ARMED_CLR  clear armed, unless arms_queued != 0; no answer
//               ARM_POPPED an ARM event left the event FIFO: arms_queued - 1;
//                          no answer
//   latency   ntf_valid: a notification for CQ ntf_cqn leaves the NIC this
//             cycle. It is queued with the cycle counter and looked up:
//             lat_valid pulses with lat_cycles = that cycle - the CQ's
//             ntf_stamp (modulo 2^32), 0 for a CQ number >= NUM_CQ. A CQ that
//             never had a CQE has stamp 0: the cycles since reset. The
//             lookup sees the CQEs whose WRITTEN was taken before the
//             notification's cycle; one taken in that very cycle counts as
//             after it, so a CQ's latency is at least 1 (never negative).
//
// Every op is atomic: it reads its CQ's word, changes it and writes it back
// before the next op on that CQ sees it. Ops take effect in the order the
// table takes them, one a cycle. Hence the ordering argument of
// docs/internals.md ("The CQ table"): an ARM taken before a WRITTEN of the
// same CQ shows armed to the WRITTEN (the CQE raises an event, queued behind
// the ARM event); one taken after it carries the new PI. Never neither.
//
// Pipeline (one op a cycle, no stalls):
//   A  (cycle t)    arbitration; the op is taken and reads its word (RAM
//                   read port, registered)
//   B  (cycle t+1)  the word (forwarded from the op in B at t when it wrote
//                   the same CQ: the RAM read then returns the old word) is
//                   changed and written back; the answer is registered
//   answer (t+2)
// Arbitration, fixed priority: latency lookups, CQE writer, firmware, host.
// Lookups come first, so each is taken the cycle after its notification and
// no op lands between the two (the latency is exact); they come at most one
// a cycle, and the queue (2 entries) holds them longer only while the table
// clears after reset, when no notification can be sent (every notification
// answers an event, and every event needs a table op). The CQE writer and
// the firmware wait for an answer or at least one cycle between their
// requests, so the host is never shut out for long.
//
// After rst the table clears itself, one CQ a cycle (NUM_CQ cycles): every
// ready is low meanwhile.
//
// Parameters
//   NUM_CQ   completion queues (1 .. 2^CQN_BITS = 256)
// Ports
//   clk, rst                     clock, synchronous active-high reset
//   h_valid/ready                host port: one register access
//   h_we, h_idx, h_off, h_wdata  1 write / 0 read, CQ number, byte offset in
//                                the CQ's block (layout blocks.cq), data
//   h_rvalid, h_rdata            a read's answer (one pulse)
//   arm_evt_valid/ready/data     ARM events towards the firmware event FIFO
//                                (struct event, valid bit 0): a register,
//                                loaded by the ARM's op
//   c_valid/ready, c_op, c_idx   CQE writer port (ops: layout enum cq_wr_op)
//   c_err, c_sol                 WRITTEN: the CQE is an error / solicited
//   c_arg                        SET_CI: the consumer index
//   c_rvalid                     an answer: c_base, c_log, c_en, c_ovr,
//                                c_pi, c_ci, c_armed, the context as the op
//                                found it; they hold until the next answer
//   f_valid/ready, f_op, f_idx   firmware port (ops: layout enum cq_fw_op)
//   f_rvalid, f_pi, f_ci, f_err, f_sol   a READ's answer (marks as struct
//                                cq_mark); hold until the next answer
//   ntf_valid, ntf_cqn           a notification leaves, for that CQ
//   cycles                       low word of the cycle counter (qpnic_csr)
//   lat_valid, lat_cycles        one notification's latency (one pulse)
//   idle                         not clearing, no op, lookup or ARM event
//                                in flight
// A CQ number >= NUM_CQ is taken like any other: it changes nothing, reads
// answer 0 (for the CQE writer: a disabled CQ), an ARM makes no event.
//
// Combinational paths (the arbitration): h_valid, h_we, h_off -> h_ready;
// c_valid -> f_ready, h_ready; f_valid -> h_ready. Everything else leaves
// from registers.
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_cq_table #(
    parameter NUM_CQ = 8
) (
    input  wire                                    clk,
    input  wire                                    rst,

    input  wire                                    h_valid,
    output wire                                    h_ready,
    input  wire                                    h_we,
    input  wire [`QPNIC_CQN_BITS-1:0]              h_idx,
    input  wire [`QPNIC_CQ_OFFSET_BITS-1:0]        h_off,
    input  wire [31:0]                             h_wdata,
    output reg                                     h_rvalid,
    output reg  [31:0]                             h_rdata,

    output reg                                     arm_evt_valid,
    input  wire                                    arm_evt_ready,
    output reg  [31:0]                             arm_evt_data,

    input  wire                                    c_valid,
    output wire                                    c_ready,
    input  wire [1:0]                              c_op,
    input  wire [`QPNIC_CQN_BITS-1:0]              c_idx,
    input  wire                                    c_err,
    input  wire                                    c_sol,
    input  wire [`QPNIC_CQ_CTX_CI_WIDTH-1:0]       c_arg,
    output reg                                     c_rvalid,
    output reg  [63:0]                             c_base,
    output reg  [`QPNIC_CQ_CTX_LOG_DEPTH_WIDTH-1:0] c_log,
    output reg                                     c_en,
    output reg                                     c_ovr,
    output reg  [`QPNIC_CQ_CTX_PI_WIDTH-1:0]       c_pi,
    output reg  [`QPNIC_CQ_CTX_CI_WIDTH-1:0]       c_ci,
    output reg                                     c_armed,

    input  wire                                    f_valid,
    output wire                                    f_ready,
    input  wire [1:0]                              f_op,
    input  wire [`QPNIC_CQN_BITS-1:0]              f_idx,
    output reg                                     f_rvalid,
    output reg  [`QPNIC_CQ_CTX_PI_WIDTH-1:0]       f_pi,
    output reg  [`QPNIC_CQ_CTX_CI_WIDTH-1:0]       f_ci,
    output reg  [31:0]                             f_err,
    output reg  [31:0]                             f_sol,

    input  wire                                    ntf_valid,
    input  wire [`QPNIC_CQN_BITS-1:0]              ntf_cqn,
    input  wire [31:0]                             cycles,
    output reg                                     lat_valid,
    output reg  [31:0]                             lat_cycles,

    output wire                                    idle
);
    localparam CW  = `QPNIC_CQN_BITS;
    localparam OB  = `QPNIC_CQ_OFFSET_BITS;
    localparam EB  = `QPNIC_CQ_CTX_BITS;
    localparam QW  = `QPNIC_CQ_CTX_ARMS_QUEUED_WIDTH;
    localparam PW  = `QPNIC_CQ_CTX_PI_WIDTH;
    localparam CIW = `QPNIC_CQ_CTX_CI_WIDTH;
    // RAM address bits: enough for NUM_CQ words (the RAM rounds up)
    localparam AW  = (NUM_CQ > 1) ? $clog2(NUM_CQ) : 1;

    // The clients, highest priority first.
    localparam [1:0] CL_LAT = 2'd0, CL_CQE = 2'd1, CL_FW = 2'd2, CL_HOST = 2'd3;

    // ---- clearing after reset: the RAM clears itself (qpnic_ram_sdp) -------
    wire          clearing;

    // ---- latency lookups, queued -------------------------------------------
    wire          lq_valid;
    wire [CW+31:0] lq_data;      // {cqn, cycle the notification left}
    // The queue is never full (see the header: lookups are taken the cycle
    // after they arrive, except while clearing, when none can arrive).
    /* verilator lint_off UNUSEDSIGNAL */
    wire          lq_in_ready;
    wire [1:0]    lq_count;
    /* verilator lint_on UNUSEDSIGNAL */
    wire          take_lat;

    qpnic_fifo #(.WIDTH(CW + 32), .LOG_DEPTH(1)) lat_q (
        .clk(clk), .rst(rst),
        .in_valid(ntf_valid), .in_ready(lq_in_ready), .in_data({ntf_cqn, cycles}),
        .out_valid(lq_valid), .out_ready(take_lat), .out_data(lq_data),
        .count(lq_count)
    );

    // ---- stage B: the op taken last cycle -----------------------------------
    reg          b_valid;
    reg [1:0]    b_cl;       // its client
    reg [1:0]    b_op;       // c_op or f_op
    reg          b_we;       // host: a write
    reg [OB-1:0] b_off;      // host: the register
    reg [CW-1:0] b_idx;
    reg          b_in;       // b_idx < NUM_CQ
    reg [31:0]   b_data;     // host: write data; CQE: the cycle taken (SET_CI: the CI); lookup: the cycle the notification left
    reg          b_err, b_sol;

    wire b_host_wr = b_valid && b_cl == CL_HOST && b_we;
    wire b_arm     = b_host_wr && b_off == `QPNIC_CQREG_ARM && b_in;
    wire b_reset   = b_host_wr && b_off == `QPNIC_CQREG_CFG && b_in;
    wire b_evt     = b_arm || b_reset;

    // ---- stage A: arbitration -------------------------------------------------
    // An ARM (or CFG, for its RESET event) is taken only when arm_evt will
    // be free for it in stage B.
    wire arm_busy = arm_evt_valid || b_evt;
    wire h_evt    = h_we && (h_off == `QPNIC_CQREG_ARM || h_off == `QPNIC_CQREG_CFG);
    wire h_can    = h_valid && !(h_evt && arm_busy);

    assign take_lat = !clearing && lq_valid;
    assign c_ready  = !clearing && !lq_valid && c_valid;
    assign f_ready  = !clearing && !lq_valid && !c_valid && f_valid;
    assign h_ready  = !clearing && !lq_valid && !c_valid && !f_valid && h_can;
    wire   take     = take_lat || c_ready || f_ready || h_ready;

    reg [CW-1:0] a_idx;
    always @* begin
        if (take_lat)     a_idx = lq_data[CW+31:32];
        else if (c_ready) a_idx = c_idx;
        else if (f_ready) a_idx = f_idx;
        else              a_idx = h_idx;
    end
    wire a_in = {1'b0, a_idx} < NUM_CQ[CW:0];

    always @(posedge clk) begin
        if (rst) begin
            b_valid <= 1'b0;
            b_cl    <= CL_LAT;
            b_op    <= 2'd0;
            b_we    <= 1'b0;
            b_off   <= {OB{1'b0}};
            b_idx   <= {CW{1'b0}};
            b_in    <= 1'b0;
            b_data  <= 32'd0;
            b_err   <= 1'b0;
            b_sol   <= 1'b0;
        end else begin
            b_valid <= take;
            if (take) begin
                b_cl   <= take_lat ? CL_LAT : c_ready ? CL_CQE : f_ready ? CL_FW : CL_HOST;
                b_op   <= c_ready ? c_op : f_op;
                b_we   <= h_ready && h_we;
                b_off  <= h_off;
                b_idx  <= a_idx;
                b_in   <= a_in;
                b_data <= take_lat ? lq_data[31:0] : h_ready ? h_wdata :
                          c_ready && c_op == `QPNIC_CQ_WR_OP_SET_CI ? {{(32-CIW){1'b0}}, c_arg} : cycles;
                b_err  <= c_err;
                b_sol  <= c_sol;
            end
        end
    end

    // ---- the RAM and forwarding ---------------------------------------------------
    reg           wr_op;      // the op in B changes its word
    reg  [EB-1:0] nxt;        // ... to this
    wire          wr_en   = b_valid && b_in && wr_op;
    wire [AW-1:0] wr_addr = b_idx[AW-1:0];
    wire [EB-1:0] wr_data = nxt;
    wire [EB-1:0] ram_q;

    // CLEAR 2: a small table clears by a bit per word (qpnic_ram_sdp).
    // RDW_OLD 0: a read of the CQ being written in the same cycle is never
    // used as it comes out (below: the op in B forwards past it, a lookup
    // takes the stamp the write replaced), so the RAM needs no register and
    // multiplexer per bit to give the old word.
    qpnic_ram_sdp #(.WIDTH(EB), .AW(AW), .CLEAR(2), .RDW_OLD(0), .STYLE("block")) ram (
        .clk(clk), .rst(rst), .busy(clearing),
        .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data),
        .rd_en(take), .rd_addr(a_idx[AW-1:0]), .rd_data(ram_q));

    // The word the op in B wrote last cycle: the op in B now read the RAM in
    // that same cycle, so its read is of no use if it is the same CQ. A
    // latency lookup is not forwarded to: it is taken the cycle after its
    // notification left, so the op in B was taken in the notification's own
    // cycle, and counts as after it (the latency is at least 1): the lookup
    // takes the stamp that op found (fwd_stamp), the RAM's word before the
    // write.
    localparam SW = `QPNIC_CQ_CTX_NTF_STAMP_WIDTH;
    reg          fwd_valid;
    reg [AW-1:0] fwd_idx;
    reg [EB-1:0] fwd_word;
    reg [SW-1:0] fwd_stamp;
    always @(posedge clk) begin
        if (rst) begin
            fwd_valid <= 1'b0;
            fwd_idx   <= {AW{1'b0}};
            fwd_word  <= {EB{1'b0}};
            fwd_stamp <= {SW{1'b0}};
        end else begin
            fwd_valid <= wr_en;
            fwd_idx   <= wr_addr;
            fwd_word  <= wr_data;
            fwd_stamp <= cur[`QPNIC_CQ_CTX_NTF_STAMP_FLAT];
        end
    end
    wire fwd_same = fwd_valid && fwd_idx == b_idx[AW-1:0];
    wire fwd_hit  = fwd_same && b_cl != CL_LAT;
    wire [EB-1:0] cur  = fwd_hit ? fwd_word : ram_q;
    // a lookup's stamp
    wire [SW-1:0] lat_stamp = fwd_same ? fwd_stamp : ram_q[`QPNIC_CQ_CTX_NTF_STAMP_FLAT];
    // What answers see: a CQ number >= NUM_CQ reads as all zero. No answer
    // shows arms_queued: only the table's own ops use it.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [EB-1:0] view = b_in ? cur : {EB{1'b0}};
    /* verilator lint_on UNUSEDSIGNAL */

    // ---- stage B: the ops ------------------------------------------------------------
    wire [PW-1:0] cur_pi = cur[`QPNIC_CQ_CTX_PI_FLAT];
    wire [QW-1:0] cur_aq = cur[`QPNIC_CQ_CTX_ARMS_QUEUED_FLAT];
    // The CI an ARM carries, or a record SET_CI read, only moves CI forward:
    // it is taken when it lies between the CI held and PI. An ARM's MMIO
    // can reach the table after the CQE writer read a newer record (the
    // host consumed more after it armed), and its older ci made the CQ
    // look fuller than it was: a false overrun, the CQ and its QPs dead
    // (seen once in C1_consumer_serialized_calls_from_three_threads).
    wire [CIW-1:0] cur_ci  = cur[`QPNIC_CQ_CTX_CI_FLAT];
    wire [CIW-1:0] arm_ci  = b_data[`QPNIC_CQ_ARM_CI];
    wire [CIW-1:0] rec_ci  = b_data[CIW-1:0];
    function ci_forward(input [CIW-1:0] ci);
        ci_forward = (ci - cur_ci) <= (cur_pi - cur_ci);
    endfunction
    wire           arm_fwd = ci_forward(arm_ci);
    wire           rec_fwd = ci_forward(rec_ci);

    always @* begin
        nxt   = cur;
        wr_op = 1'b0;
        case (b_cl)
        CL_CQE: case (b_op)
            `QPNIC_CQ_WR_OP_WRITTEN: begin
                wr_op = 1'b1;
                nxt[`QPNIC_CQ_CTX_PI_FLAT]        = cur_pi + 1'b1;
                nxt[`QPNIC_CQ_CTX_NTF_STAMP_FLAT] = b_data;
                if (b_err) begin
                    nxt[`QPNIC_CQ_CTX_ERR_VALID_FLAT] = 1'b1;
                    nxt[`QPNIC_CQ_CTX_ERR_IDX_FLAT]   = cur_pi;
                end
                if (b_sol) begin
                    nxt[`QPNIC_CQ_CTX_SOL_VALID_FLAT] = 1'b1;
                    nxt[`QPNIC_CQ_CTX_SOL_IDX_FLAT]   = cur_pi;
                end
            end
            `QPNIC_CQ_WR_OP_OVERRUN: begin
                wr_op = 1'b1;
                nxt[`QPNIC_CQ_CTX_OVERRUN_FLAT] = 1'b1;
            end
            `QPNIC_CQ_WR_OP_SET_CI: begin
                wr_op = 1'b1;
                if (rec_fwd)
                    nxt[`QPNIC_CQ_CTX_CI_FLAT] = rec_ci;
            end
            default: ;
            endcase
        CL_FW: case (b_op)
            `QPNIC_CQ_FW_OP_ARMED_CLR: begin
                wr_op = 1'b1;
                if (cur_aq == {QW{1'b0}})
                    nxt[`QPNIC_CQ_CTX_ARMED_FLAT] = 1'b0;
            end
            `QPNIC_CQ_FW_OP_ARM_POPPED: begin
                wr_op = 1'b1;
                nxt[`QPNIC_CQ_CTX_ARMS_QUEUED_FLAT] = cur_aq - 1'b1;
            end
            default: ;
            endcase
        CL_HOST: if (b_we) begin
            wr_op = 1'b1;
            case (b_off)
            `QPNIC_CQREG_BASE_LO: nxt[`QPNIC_CQ_CTX_BASE_LO_FLAT] = b_data;
            `QPNIC_CQREG_BASE_HI: nxt[`QPNIC_CQ_CTX_BASE_HI_FLAT] = b_data;
            `QPNIC_CQREG_CFG: begin
                nxt[`QPNIC_CQ_CTX_LOG_DEPTH_FLAT] = b_data[`QPNIC_CQ_CFG_LOG_DEPTH];
                nxt[`QPNIC_CQ_CTX_ENABLE_FLAT]    = b_data[`QPNIC_CQ_CFG_ENABLE];
                nxt[`QPNIC_CQ_CTX_ARMED_FLAT]     = 1'b0;   // the firmware resets too
                if (b_data[`QPNIC_CQ_CFG_ENABLE]) begin
                    nxt[`QPNIC_CQ_CTX_PI_FLAT]        = {PW{1'b0}};
                    nxt[`QPNIC_CQ_CTX_CI_FLAT]        = {CIW{1'b0}};
                    nxt[`QPNIC_CQ_CTX_OVERRUN_FLAT]   = 1'b0;
                    nxt[`QPNIC_CQ_CTX_ERR_VALID_FLAT] = 1'b0;
                    nxt[`QPNIC_CQ_CTX_ERR_IDX_FLAT]   = {PW{1'b0}};
                    nxt[`QPNIC_CQ_CTX_SOL_VALID_FLAT] = 1'b0;
                    nxt[`QPNIC_CQ_CTX_SOL_IDX_FLAT]   = {PW{1'b0}};
                end
            end
            `QPNIC_CQREG_CI: nxt[`QPNIC_CQ_CTX_CI_FLAT] = b_data[CIW-1:0];
            `QPNIC_CQREG_ARM: begin
                if (b_data[`QPNIC_CQ_ARM_CI_VALID] && arm_fwd)
                    nxt[`QPNIC_CQ_CTX_CI_FLAT] = arm_ci;
                nxt[`QPNIC_CQ_CTX_ARMED_FLAT]       = 1'b1;
                nxt[`QPNIC_CQ_CTX_ARMS_QUEUED_FLAT] = cur_aq + 1'b1;
            end
            default: wr_op = 1'b0;
            endcase
        end
        default: ;   // a latency lookup only reads
        endcase
    end

    // A host read: the register's word.
    reg [31:0] h_word;
    always @* begin
        h_word = 32'd0;
        case (b_off)
        `QPNIC_CQREG_BASE_LO: h_word = view[`QPNIC_CQ_CTX_BASE_LO_FLAT];
        `QPNIC_CQREG_BASE_HI: h_word = view[`QPNIC_CQ_CTX_BASE_HI_FLAT];
        `QPNIC_CQREG_CFG: begin
            h_word[`QPNIC_CQ_CFG_LOG_DEPTH] = view[`QPNIC_CQ_CTX_LOG_DEPTH_FLAT];
            h_word[`QPNIC_CQ_CFG_ENABLE]    = view[`QPNIC_CQ_CTX_ENABLE_FLAT];
        end
        `QPNIC_CQREG_CI: h_word[CIW-1:0] = view[`QPNIC_CQ_CTX_CI_FLAT];
        `QPNIC_CQREG_PI: h_word[PW-1:0]  = view[`QPNIC_CQ_CTX_PI_FLAT];
        `QPNIC_CQREG_STATE: begin
            h_word[`QPNIC_CQ_STATE_ENABLED] = view[`QPNIC_CQ_CTX_ENABLE_FLAT];
            h_word[`QPNIC_CQ_STATE_OVERRUN] = view[`QPNIC_CQ_CTX_OVERRUN_FLAT];
        end
        default: ;
        endcase
    end

    // The ARM event: where the CQ stands as the arm is taken; the firmware
    // judges the arm as of this moment (docs/internals.md). The RESET
    // event of a CFG write carries the CQ's new generation.
    reg [31:0] arm_word;
    always @* begin
        arm_word = 32'd0;
        arm_word[`QPNIC_EVENT_CQN] = b_idx;
        if (b_reset) begin
            arm_word[`QPNIC_EVENT_TYPE]  = `QPNIC_EVT_TYPE_RESET;
            arm_word[`QPNIC_EVENT_INDEX] = {{(`QPNIC_EVENT_INDEX_WIDTH-`QPNIC_CQ_CFG_GEN_WIDTH){1'b0}},
                                            b_data[`QPNIC_CQ_CFG_GEN]};
        end else begin
            arm_word[`QPNIC_EVENT_TYPE]    = `QPNIC_EVT_TYPE_ARM;
            arm_word[`QPNIC_EVENT_TRIGGER] = b_data[`QPNIC_CQ_ARM_TRIGGER];
            arm_word[`QPNIC_EVENT_INDEX]   = cur_pi;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            arm_evt_valid <= 1'b0;
            arm_evt_data  <= 32'd0;
        end else begin
            if (arm_evt_valid && arm_evt_ready) arm_evt_valid <= 1'b0;
            if (b_evt) begin   // arm_evt is free: see arm_busy
                arm_evt_valid <= 1'b1;
                arm_evt_data  <= arm_word;
            end
        end
    end

    // The marks as the firmware reads them (struct cq_mark).
    reg [31:0] err_mark, sol_mark;
    always @* begin
        err_mark = 32'd0;
        err_mark[`QPNIC_CQ_MARK_INDEX] = view[`QPNIC_CQ_CTX_ERR_IDX_FLAT];
        err_mark[`QPNIC_CQ_MARK_VALID] = view[`QPNIC_CQ_CTX_ERR_VALID_FLAT];
        sol_mark = 32'd0;
        sol_mark[`QPNIC_CQ_MARK_INDEX] = view[`QPNIC_CQ_CTX_SOL_IDX_FLAT];
        sol_mark[`QPNIC_CQ_MARK_VALID] = view[`QPNIC_CQ_CTX_SOL_VALID_FLAT];
    end

    // ---- answers ---------------------------------------------------------------------
    wire h_ans = b_valid && b_cl == CL_HOST && !b_we;
    wire c_ans = b_valid && b_cl == CL_CQE && b_op != `QPNIC_CQ_WR_OP_OVERRUN;
    wire f_ans = b_valid && b_cl == CL_FW && b_op == `QPNIC_CQ_FW_OP_READ;
    wire l_ans = b_valid && b_cl == CL_LAT;

    always @(posedge clk) begin
        if (rst) begin
            h_rvalid   <= 1'b0;
            h_rdata    <= 32'd0;
            c_rvalid   <= 1'b0;
            c_base     <= 64'd0;
            c_log      <= {`QPNIC_CQ_CTX_LOG_DEPTH_WIDTH{1'b0}};
            c_en       <= 1'b0;
            c_ovr      <= 1'b0;
            c_pi       <= {PW{1'b0}};
            c_ci       <= {CIW{1'b0}};
            c_armed    <= 1'b0;
            f_rvalid   <= 1'b0;
            f_pi       <= {PW{1'b0}};
            f_ci       <= {CIW{1'b0}};
            f_err      <= 32'd0;
            f_sol      <= 32'd0;
            lat_valid  <= 1'b0;
            lat_cycles <= 32'd0;
        end else begin
            h_rvalid  <= h_ans;
            c_rvalid  <= c_ans;
            f_rvalid  <= f_ans;
            lat_valid <= l_ans;
            if (h_ans) h_rdata <= h_word;
            if (c_ans) begin
                c_base  <= {view[`QPNIC_CQ_CTX_BASE_HI_FLAT], view[`QPNIC_CQ_CTX_BASE_LO_FLAT]};
                c_log   <= view[`QPNIC_CQ_CTX_LOG_DEPTH_FLAT];
                c_en    <= view[`QPNIC_CQ_CTX_ENABLE_FLAT];
                c_ovr   <= view[`QPNIC_CQ_CTX_OVERRUN_FLAT];
                c_pi    <= view[`QPNIC_CQ_CTX_PI_FLAT];
                // SET_CI answers with the CI it leaves (the writer decides on it)
                c_ci    <= b_op == `QPNIC_CQ_WR_OP_SET_CI && b_in ? nxt[`QPNIC_CQ_CTX_CI_FLAT] : view[`QPNIC_CQ_CTX_CI_FLAT];
                c_armed <= view[`QPNIC_CQ_CTX_ARMED_FLAT];
            end
            if (f_ans) begin
                f_pi  <= view[`QPNIC_CQ_CTX_PI_FLAT];
                f_ci  <= view[`QPNIC_CQ_CTX_CI_FLAT];
                f_err <= err_mark;
                f_sol <= sol_mark;
            end
            if (l_ans)
                lat_cycles <= b_in ? b_data - lat_stamp : 32'd0;
        end
    end

    assign idle = !clearing && !b_valid && !lq_valid && !arm_evt_valid;
endmodule

`default_nettype wire
