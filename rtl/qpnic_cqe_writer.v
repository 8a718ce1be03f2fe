// qpnic_cqe_writer: writes one CQE a time into its CQ ring in host memory
// and tells the firmware about it. The CQ's state lives in qpnic_cq_table;
// the writer reads it and changes it through the table's CQE writer port.
//
// For each CQE request {cqn, 128-bit data}, READ the CQ's context, then:
//   - CQ not enabled, already in overrun, or cqn >= NUM_CQ (the table
//     answers such a CQ as disabled): dropped, nothing else happens;
//   - CQ full (PI - CI >= depth), and the host keeps a table of consumer
//     index records (rec_base, CI_REC, not 0) not yet read for this CQE:
//     one 4-byte DMA read of the CQ's record (struct ci_rec at rec_base +
//     cqn * CI_REC_BYTES), a SET_CI op with its CI (the table answers the
//     context with it), and the decision again. So a host that takes CQEs
//     and only writes its record in memory costs a DMA read when the NIC's
//     copy of CI has fallen a whole ring behind, and never a register write;
//   - CQ full, its record read or none kept: OVERRUN op (the table sets the
//     overrun flag), then an OVERRUN event to the firmware (always, N8); the
//     CQE is dropped, nothing written;
//   - otherwise one 16-byte DMA write at base + (PI mod depth) * CQE size,
//     words 0..3 in address order, the phase bit of word 3 set to 1 on the
//     first pass through the ring, 0 on the second, and so on. Once the last
//     data beat is accepted, one WRITTEN op: PI + 1, the CQ's marks and its
//     latency stamp, in one atomic step of the table, which answers with the
//     CQ's armed bit as of that step and the index the CQE went to. Armed:
//     a CQE event carrying that index (the armed bit is set by the ARM
//     doorbell, see qpnic_cq_table). A pulse on cnt_cqe counts the CQE.
// The request is held (cqe_ready low) until all of that is done, so the CQE
// data is read straight from the request and never copied; the context is
// read from the table's answer registers, which hold until the next answer.
// Events wait for room in the event FIFO: none is ever lost.
//
// Why the armed bit comes from the WRITTEN op's answer: an ARM doorbell is
// one atomic op of the same table, which snapshots PI into the ARM event and
// sets the armed bit. The table does one op after the other, so the ARM is
// either before the WRITTEN (the WRITTEN sees armed: this CQE raises an
// event) or after it (its event carries the new PI: the CQE counts as
// already there). Never neither (docs/internals.md). With the CQ state in
// flip-flops, the writer had to wait a cycle for PI to move and another to
// read the armed bit (states S_PI, S_CHK); the atomic op makes that
// unnecessary.
//
// No parameters: which CQ numbers exist is the table's business.
//
// Ports
//   clk, rst                   clock, synchronous active-high reset
//   cqe_valid/ready            CQE request from the datapath; ready pulses
//                              once the CQE is written or dropped
//   cqe_cqn, cqe_data          its CQ and its words (word w at [32w+31:32w];
//                              the phase bit given is ignored)
//   t_valid/ready, t_op        requests to qpnic_cq_table's CQE writer port
//   t_idx, t_err, t_sol, t_arg (c_*): READ, WRITTEN (with the CQE's error
//                              and solicited flags), OVERRUN, SET_CI (CI
//                              t_arg)
//   t_rvalid, t_base, t_log,   the table's answer: the context as the op
//   t_en, t_ovr, t_pi, t_ci,   found it (held until the next answer)
//   t_armed
//   cnt_cqe                    one-cycle pulse: a CQE was written (counter)
//   rec_base                   the record table's device address (0: none)
//   dmar_req_*, dmar_rsp_*     DMA read master (read arbiter index 3): the
//                              records
//   dmaw_req_*, dmaw_dat_*     DMA write master (write arbiter index 2)
//   evt_valid/ready/data       CQE and OVERRUN events (struct event, valid
//                              bit 0) towards the firmware event FIFO
//   idle                       no request waiting or in progress
// Combinational path: cqe_valid, cqe_cqn -> t_valid, t_idx (the READ goes
// out in the cycle the request arrives); cqe_data -> t_err, t_sol.
//
// The host must not rewrite an enabled CQ's BASE or CFG while CQEs go to it
// (the driver does not): the writer uses the context it read for the whole
// CQE.
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_cqe_writer (
    input  wire                  clk,
    input  wire                  rst,

    input  wire                  cqe_valid,
    output wire                  cqe_ready,
    input  wire [`QPNIC_CQN_BITS-1:0] cqe_cqn,
    input  wire [127:0]          cqe_data,

    output wire                  t_valid,
    input  wire                  t_ready,
    output reg  [1:0]            t_op,
    output wire [`QPNIC_CQN_BITS-1:0] t_idx,
    output wire                  t_err,
    output wire                  t_sol,
    output reg  [`QPNIC_CQ_CTX_CI_WIDTH-1:0] t_arg,
    input  wire                  t_rvalid,
    input  wire [63:0]           t_base,
    input  wire [`QPNIC_CQ_CTX_LOG_DEPTH_WIDTH-1:0] t_log,
    input  wire                  t_en,
    input  wire                  t_ovr,
    input  wire [`QPNIC_CQ_CTX_PI_WIDTH-1:0] t_pi,
    input  wire [`QPNIC_CQ_CTX_CI_WIDTH-1:0] t_ci,
    input  wire                  t_armed,

    output reg                   cnt_cqe,

    input  wire [63:0]           rec_base,
    output wire                  dmar_req_valid,
    input  wire                  dmar_req_ready,
    output reg  [63:0]           dmar_req_addr,
    output wire [15:0]           dmar_req_len,
    input  wire                  dmar_rsp_valid,
    output wire                  dmar_rsp_ready,
    input  wire [31:0]           dmar_rsp_data,
    input  wire [3:0]            dmar_rsp_keep,
    input  wire                  dmar_rsp_last,

    output wire                  dmaw_req_valid,
    input  wire                  dmaw_req_ready,
    output wire [63:0]           dmaw_req_addr,
    output wire [15:0]           dmaw_req_len,
    output wire                  dmaw_dat_valid,
    input  wire                  dmaw_dat_ready,
    output reg  [31:0]           dmaw_dat_data,
    output wire [3:0]            dmaw_dat_keep,
    output wire                  dmaw_dat_last,

    output wire                  evt_valid,
    input  wire                  evt_ready,
    output reg  [31:0]           evt_data,

    output wire                  idle
);
    localparam integer CQE_SIZE = `QPNIC_CQE_BYTES;
    localparam [63:0]  CQE_SIZE64 = `QPNIC_CQE_BYTES;
    localparam integer LAST_BEAT_I = `QPNIC_CQE_WORDS - 1;
    localparam [1:0]   LAST_BEAT = LAST_BEAT_I[1:0];
    localparam PW = `QPNIC_CQ_CTX_PI_WIDTH;
    localparam LW = `QPNIC_CQ_CTX_LOG_DEPTH_WIDTH;

    localparam [3:0] S_IDLE    = 4'd0,   // READ the request's CQ context
                     S_CTX     = 4'd1,   // wait for it, decide
                     S_REQ     = 4'd2,   // DMA write request
                     S_DAT     = 4'd3,   // its 4 data beats
                     S_WR      = 4'd4,   // WRITTEN op: PI + 1, marks, stamp
                     S_WR_ANS  = 4'd5,   // its answer: armed?
                     S_EVT     = 4'd6,   // CQE event to the firmware
                     S_OVR     = 4'd7,   // OVERRUN op: set the flag
                     S_OVR_EVT = 4'd8,   // OVERRUN event to the firmware
                     S_DONE    = 4'd9,   // cqe_ready: the request is finished
                     S_REC     = 4'd10,  // DMA read request of the CQ's CI record
                     S_REC_DAT = 4'd11,  // its one data beat
                     S_SET     = 4'd12;  // SET_CI op with it; its answer: S_CTX again

    reg [3:0] state;
    reg [1:0] beat;
    reg       rec_read;   // this CQE's CQ record has been read (read it once)

    // ---- requests to the CQ table -------------------------------------------
    assign t_valid = (state == S_IDLE && cqe_valid) || state == S_WR || state == S_OVR || state == S_SET;
    always @* begin
        case (state)
        S_WR:    t_op = `QPNIC_CQ_WR_OP_WRITTEN;
        S_OVR:   t_op = `QPNIC_CQ_WR_OP_OVERRUN;
        S_SET:   t_op = `QPNIC_CQ_WR_OP_SET_CI;
        default: t_op = `QPNIC_CQ_WR_OP_READ;
        endcase
    end
    assign t_idx = cqe_cqn;

    // ---- the context the table answered --------------------------------------
    // Depth and slot. Indices are free-running 16-bit counts.
    wire [16:0]   depth = 17'd1 << t_log;
    wire [PW-1:0] used  = t_pi - t_ci;
    wire          full  = {1'b0, used} >= depth;
    wire [PW-1:0] slot  = t_pi & (depth[PW-1:0] - 1'b1);
    // The pass through the ring is PI >> log; its low bit is PI[log].
    reg pass_odd;
    integer i;
    always @* begin
        pass_odd = 1'b0;
        for (i = 0; i < PW; i = i + 1)
            if (t_log == i[LW-1:0]) pass_odd = t_pi[i];
    end
    wire phase = !pass_odd;   // 1 on pass 0, 0 on pass 1, ...

    // ---- the request's fields ----------------------------------------------
    // Whole CQE words, of which only the status and solicited fields are
    // looked at here: the other bits are unused on purpose.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] stat_word = cqe_data[32*`QPNIC_CQE_STATUS_WORD +: 32];
    wire [31:0] sol_word  = cqe_data[32*`QPNIC_CQE_SOLICITED_WORD +: 32];
    /* verilator lint_on UNUSEDSIGNAL */
    wire        is_err    = stat_word[`QPNIC_CQE_STATUS] != `QPNIC_CQE_STATUS_SUCCESS;
    wire        is_sol    = sol_word[`QPNIC_CQE_SOLICITED] != 1'b0;

    assign t_err = is_err;
    assign t_sol = is_sol;

    // ---- DMA write ------------------------------------------------------------
    // The slot's address is registered as the context is answered (S_CTX),
    // so that the add's carry chain ends at a flip-flop, not in the write
    // arbiter and the page-table stage behind it (run 29, docs/synthesis.md).
    reg  [63:0] req_addr;
    always @(posedge clk)
        if (state == S_CTX && t_rvalid) req_addr <= t_base + {48'd0, slot} * CQE_SIZE64;
    assign dmaw_req_valid = state == S_REQ;
    assign dmaw_req_addr  = req_addr;
    assign dmaw_req_len   = CQE_SIZE[15:0];
    assign dmaw_dat_valid = state == S_DAT;
    assign dmaw_dat_keep  = 4'hF;
    assign dmaw_dat_last  = beat == LAST_BEAT;

    always @* begin
        dmaw_dat_data = cqe_data[32*beat +: 32];
        if (beat == `QPNIC_CQE_PHASE_WORD)
            dmaw_dat_data[`QPNIC_CQE_PHASE] = phase;
    end

    // ---- the CQ's consumer index record ------------------------------------------
    // Its address is registered with the context's answer, like req_addr.
    localparam [63:0] REC_BYTES = `QPNIC_CI_REC_BYTES;
    wire rec_kept = rec_base != 64'd0;
    always @(posedge clk)
        if (state == S_CTX && t_rvalid) dmar_req_addr <= rec_base + {56'd0, cqe_cqn} * REC_BYTES;
    assign dmar_req_valid = state == S_REC;
    assign dmar_req_len   = REC_BYTES[15:0];
    assign dmar_rsp_ready = state == S_REC_DAT;
    always @(posedge clk)
        if (state == S_REC_DAT && dmar_rsp_valid) t_arg <= dmar_rsp_data[`QPNIC_CI_REC_CI];

    // ---- events -----------------------------------------------------------------
    assign evt_valid = state == S_EVT || state == S_OVR_EVT;
    always @* begin
        evt_data = 32'd0;
        evt_data[`QPNIC_EVENT_CQN] = cqe_cqn;
        if (state == S_OVR_EVT) begin
            evt_data[`QPNIC_EVENT_TYPE] = `QPNIC_EVT_TYPE_OVERRUN;
        end else begin
            evt_data[`QPNIC_EVENT_TYPE]      = `QPNIC_EVT_TYPE_CQE;
            evt_data[`QPNIC_EVENT_ERROR]     = is_err;
            evt_data[`QPNIC_EVENT_SOLICITED] = is_sol;
            // the WRITTEN op's answer: the index the CQE went to
            evt_data[`QPNIC_EVENT_INDEX]     = t_pi;
        end
    end

    assign cqe_ready = state == S_DONE;
    // lint: a record is one whole beat
    wire unused_rsp = &{1'b0, dmar_rsp_keep, dmar_rsp_data};
    assign idle      = state == S_IDLE && !cqe_valid;

    // ---- FSM ----------------------------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            state    <= S_IDLE;
            beat     <= 2'd0;
            cnt_cqe  <= 1'b0;
            rec_read <= 1'b0;
        end else begin
            cnt_cqe <= 1'b0;
            case (state)
            S_IDLE: if (cqe_valid && t_ready) begin
                rec_read <= 1'b0;
                state <= S_CTX;
            end
            S_CTX: if (t_rvalid) begin
                if (!t_en || t_ovr)
                    state <= S_DONE;             // dropped, nothing else
                else if (full && rec_kept && !rec_read)
                    state <= S_REC;              // the host's CI may be newer
                else if (full)
                    state <= S_OVR;              // N8: never silent
                else
                    state <= S_REQ;
            end
            S_REC: if (dmar_req_ready) state <= S_REC_DAT;
            S_REC_DAT: if (dmar_rsp_valid) begin
                rec_read <= 1'b1;
                if (dmar_rsp_last) state <= S_SET;
            end
            S_SET: if (t_ready) state <= S_CTX;
            S_REQ: if (dmaw_req_ready) begin
                beat  <= 2'd0;
                state <= S_DAT;
            end
            S_DAT: if (dmaw_dat_ready) begin
                beat <= beat + 2'd1;
                if (dmaw_dat_last) state <= S_WR;
            end
            S_WR: if (t_ready) begin
                cnt_cqe <= 1'b1;
                state   <= S_WR_ANS;
            end
            S_WR_ANS: if (t_rvalid) state <= t_armed ? S_EVT : S_DONE;
            S_EVT: if (evt_ready) state <= S_DONE;
            S_OVR: if (t_ready) state <= S_OVR_EVT;
            S_OVR_EVT: if (evt_ready) state <= S_DONE;
            S_DONE: state <= S_IDLE;
            default: state <= S_IDLE;
            endcase
        end
    end
endmodule

`default_nettype wire
