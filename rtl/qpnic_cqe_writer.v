// qpnic_cqe_writer: writes one CQE a time into its CQ ring in host memory
// and tells the firmware about it.
//
// For each CQE request {cqn, 128-bit data}:
//   - CQ not enabled, already in overrun, or cqn >= NUM_CQ: dropped, nothing
//     else happens;
//   - CQ full (PI - CI >= depth): OVERRUN event to the firmware (always, N8),
//     overrun flag set, CQE dropped, nothing written;
//   - otherwise one 16-byte DMA write at base + (PI mod depth) * CQE size,
//     words 0..3 in address order, the phase bit of word 3 set to 1 on the
//     first pass through the ring, 0 on the second, and so on. Once the last
//     data beat is accepted: PI + 1, CQES_WRITTEN + 1 and the CQ's marks
//     (through cqw_* to qpnic_csr, which holds the CQ state), and, if the
//     CQ's armed bit is set once PI has moved, a CQE event carrying the index
//     written (the armed bit is set by the ARM doorbell's event, see
//     qpnic_fw_if).
// The request is held (cqe_ready low) until all of that is done, so the CQE
// data is read straight from the request and never copied. Events wait for
// room in the event FIFO: none is ever lost.
//
// Parameters
//   NUM_CQ      completion queues (1..16)
//
// Ports
//   clk, rst                   clock, synchronous active-high reset
//   cqe_valid/ready            CQE request from the datapath; ready pulses
//                              once the CQE is written or dropped
//   cqe_cqn, cqe_data          its CQ and its words (word w at [32w+31:32w];
//                              the phase bit given is ignored)
//   cq_base, cq_log, cq_en     CQ configuration, flat (from qpnic_csr)
//   cq_ovr, cq_pi, cq_ci       CQ state, flat (from qpnic_csr)
//   cq_armed                   per-CQ armed bits (from qpnic_fw_if)
//   cqw_done_valid             one-cycle pulse: a CQE was written to cqw_cqn,
//                              with cqw_err (status != SUCCESS) and cqw_sol
//                              (solicited bit)
//   cqw_ovr_valid              one-cycle pulse: cqw_cqn overran
//   dmaw_req_*, dmaw_dat_*     DMA write master (write arbiter index 2)
//   evt_valid/ready/data       CQE and OVERRUN events (struct event, valid
//                              bit 0) towards the firmware event FIFO
//   idle                       no request waiting or in progress
//
// The CQ context is read live from qpnic_csr while a request is handled; the
// host must not rewrite an enabled CQ's BASE or CFG (the driver does not).
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_cqe_writer #(
    parameter NUM_CQ = 8
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire                  cqe_valid,
    output wire                  cqe_ready,
    input  wire [3:0]            cqe_cqn,
    input  wire [127:0]          cqe_data,

    input  wire [NUM_CQ*64-1:0]  cq_base,
    input  wire [NUM_CQ*5-1:0]   cq_log,
    input  wire [NUM_CQ-1:0]     cq_en,
    input  wire [NUM_CQ-1:0]     cq_ovr,
    input  wire [NUM_CQ*16-1:0]  cq_pi,
    input  wire [NUM_CQ*16-1:0]  cq_ci,
    input  wire [NUM_CQ-1:0]     cq_armed,

    output reg                   cqw_done_valid,
    output reg                   cqw_ovr_valid,
    output wire [3:0]            cqw_cqn,
    output wire                  cqw_err,
    output wire                  cqw_sol,

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

    localparam [2:0] S_IDLE = 3'd0,   // look at the request's CQ, decide
                     S_REQ  = 3'd1,   // DMA write request
                     S_DAT  = 3'd2,   // its 4 data beats
                     S_EVT  = 3'd3,   // CQE event to the firmware
                     S_OVR  = 3'd4,   // OVERRUN event to the firmware
                     S_DONE = 3'd5,   // cqe_ready: the request is finished
                     S_PI   = 3'd6,   // the csr moves PI on this cycle
                     S_CHK  = 3'd7;   // PI has moved: read the armed bit now
    // Why S_PI/S_CHK: an ARM event snapshots PI as it enters the event FIFO
    // and sets the armed bit in the same cycle. Looking at the armed bit only
    // after PI has moved means that arm either saw the new PI (and counts this
    // CQE as already there) or its armed bit is seen here (and this CQE raises
    // an event): never neither (docs/internals.md).

    reg [2:0] state;
    reg [1:0] beat;
    reg [15:0] evt_index;   // the CQ index the CQE went to, for its event

    // ---- the request's CQ context ------------------------------------------
    reg [63:0] base_sel;
    reg [4:0]  log_sel;
    reg [15:0] pi_sel, ci_sel;
    reg        en_sel, ovr_sel, armed_sel, cqn_ok;
    integer i;
    always @* begin
        base_sel  = 64'd0;
        log_sel   = 5'd0;
        pi_sel    = 16'd0;
        ci_sel    = 16'd0;
        en_sel    = 1'b0;
        ovr_sel   = 1'b0;
        armed_sel = 1'b0;
        cqn_ok    = 1'b0;
        for (i = 0; i < NUM_CQ; i = i + 1) begin
            if (cqe_cqn == i[3:0]) begin
                base_sel  = cq_base[i*64 +: 64];
                log_sel   = cq_log[i*5 +: 5];
                pi_sel    = cq_pi[i*16 +: 16];
                ci_sel    = cq_ci[i*16 +: 16];
                en_sel    = cq_en[i];
                ovr_sel   = cq_ovr[i];
                armed_sel = cq_armed[i];
                cqn_ok    = 1'b1;
            end
        end
    end

    // Depth and slot. Indices are free-running 16-bit counts.
    wire [16:0] depth    = 17'd1 << log_sel;
    wire [15:0] used     = pi_sel - ci_sel;
    wire        full     = {1'b0, used} >= depth;
    wire [15:0] slot     = pi_sel & (depth[15:0] - 16'd1);
    // The pass through the ring is PI >> log; its low bit is PI[log].
    reg pass_odd;
    always @* begin
        pass_odd = 1'b0;
        for (i = 0; i < 16; i = i + 1)
            if (log_sel == i[4:0]) pass_odd = pi_sel[i];
    end
    wire        phase    = !pass_odd;   // 1 on pass 0, 0 on pass 1, ...

    // ---- the request's fields ----------------------------------------------
    // Whole CQE words, of which only the status and solicited fields are
    // looked at here: the other bits are unused on purpose.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] stat_word = cqe_data[32*`QPNIC_CQE_STATUS_WORD +: 32];
    wire [31:0] sol_word  = cqe_data[32*`QPNIC_CQE_SOLICITED_WORD +: 32];
    /* verilator lint_on UNUSEDSIGNAL */
    wire        is_err    = stat_word[`QPNIC_CQE_STATUS] != `QPNIC_CQE_STATUS_SUCCESS;
    wire        is_sol    = sol_word[`QPNIC_CQE_SOLICITED] != 1'b0;

    assign cqw_cqn = cqe_cqn;
    assign cqw_err = is_err;
    assign cqw_sol = is_sol;

    // ---- DMA write ------------------------------------------------------------
    assign dmaw_req_valid = state == S_REQ;
    assign dmaw_req_addr  = base_sel + {48'd0, slot} * CQE_SIZE64;
    assign dmaw_req_len   = CQE_SIZE[15:0];
    assign dmaw_dat_valid = state == S_DAT;
    assign dmaw_dat_keep  = 4'hF;
    assign dmaw_dat_last  = beat == LAST_BEAT;

    always @* begin
        dmaw_dat_data = cqe_data[32*beat +: 32];
        if (beat == `QPNIC_CQE_PHASE_WORD)
            dmaw_dat_data[`QPNIC_CQE_PHASE] = phase;
    end

    // ---- events -----------------------------------------------------------------
    assign evt_valid = state == S_EVT || state == S_OVR;
    always @* begin
        evt_data = 32'd0;
        evt_data[`QPNIC_EVENT_CQN] = cqe_cqn;
        if (state == S_OVR) begin
            evt_data[`QPNIC_EVENT_TYPE] = `QPNIC_EVT_TYPE_OVERRUN;
        end else begin
            evt_data[`QPNIC_EVENT_TYPE]      = `QPNIC_EVT_TYPE_CQE;
            evt_data[`QPNIC_EVENT_ERROR]     = is_err;
            evt_data[`QPNIC_EVENT_SOLICITED] = is_sol;
            evt_data[`QPNIC_EVENT_INDEX]     = evt_index;
        end
    end

    assign cqe_ready = state == S_DONE;
    assign idle      = state == S_IDLE && !cqe_valid;

    // ---- FSM ----------------------------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            state          <= S_IDLE;
            beat           <= 2'd0;
            evt_index      <= 16'd0;
            cqw_done_valid <= 1'b0;
            cqw_ovr_valid  <= 1'b0;
        end else begin
            cqw_done_valid <= 1'b0;
            cqw_ovr_valid  <= 1'b0;
            case (state)
            S_IDLE: if (cqe_valid) begin
                if (!cqn_ok || !en_sel || ovr_sel)
                    state <= S_DONE;             // dropped, nothing else
                else if (full)
                    state <= S_OVR;              // N8: never silent
                else
                    state <= S_REQ;
            end
            S_REQ: if (dmaw_req_ready) begin
                beat  <= 2'd0;
                state <= S_DAT;
            end
            S_DAT: if (dmaw_dat_ready) begin
                beat <= beat + 2'd1;
                if (dmaw_dat_last) begin
                    evt_index      <= pi_sel;     // PI moves on next cycle
                    cqw_done_valid <= 1'b1;
                    state <= S_PI;
                end
            end
            S_PI:  state <= S_CHK;
            S_CHK: state <= armed_sel ? S_EVT : S_DONE;
            S_EVT: if (evt_ready) state <= S_DONE;
            S_OVR: if (evt_ready) begin
                cqw_ovr_valid <= 1'b1;
                state <= S_DONE;
            end
            S_DONE: state <= S_IDLE;
            default: state <= S_IDLE;
            endcase
        end
    end
endmodule

`default_nettype wire
