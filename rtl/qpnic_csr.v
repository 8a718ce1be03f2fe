// qpnic_csr: the NIC's control plane. Decodes host MMIO (layout "Host
// registers", the per-QP and per-CQ blocks, the MR staging window and the
// counters) and holds what those registers describe: CQ contexts, the MR
// staging registers and the 64-bit counters. The QP block goes to the QP
// table's host port (qpnic_qp_table, in qpnic_datapath), which owns the QP
// contexts and answers reads a few cycles later; the token table lives in
// qpnic_mr_table: MR_CMD becomes one update on its update port. The CQ
// contexts leave as flat vectors (docs/internals.md); the CQE writer
// changes them only through update strobes.
//
// Parameters
//   NUM_QP   queue pairs (1..MAX_NUM_QP: the QP block holds 256)
//   QW       bits of a QP number on the QP table's host port
//   NUM_CQ   completion queues (1..16: CQ numbers are 4 bits wide)
//   NUM_MR   token table entries (1..2^TOKEN_INDEX_BITS), for CAPS2
//
// Ports
//   clk, rst                  clock, synchronous active-high reset
//   mmio_valid/ready          one host register access; mmio_ready is low
//                             while a write to a CQ's ARM waits for room in the
//                             firmware event FIFO (an arm is never lost), a
//                             write to MR_CMD waits for the token table, a QP
//                             block access waits for the QP table, and while
//                             a QP block read is being answered.
//                             Combinational paths: mmio_valid/we/addr/wdata ->
//                             arm_evt_valid, mr_upd_valid/write and qph_*, and
//                             arm_evt_ready, mr_upd_ready, qph_ready -> mmio_ready.
//   mmio_we, mmio_addr, mmio_wdata   1 write / 0 read, byte offset, data
//   mmio_rvalid, mmio_rdata   read reply: one pulse, the cycle after the read
//                             was accepted, or for a QP block register when
//                             the QP table answers (two or more cycles)
//   fw_ready                  STATUS bit 0 (from qpnic_fw_if FW_READY)
//   nic_idle                  STATUS bit 1: the core is idle apart from MMIO
//   arm_evt_valid/ready/data  ARM event (layout struct event, valid bit 0) for
//                             the firmware event FIFO in qpnic_fw_if
//   qph_valid/ready, qph_we, qph_idx, qph_off, qph_wdata   one access of QP
//                             qph_idx's register qph_off, to the QP table
//   qph_rvalid, qph_rdata     the QP table's answer to a read
//   mr_upd_valid/ready        one MR_CMD for qpnic_mr_table: mr_upd_write 1
//                             (WRITE) or 0 (INVALIDATE) of entry mr_upd_idx
//                             (MR_IDX), with the staging registers as mr_upd_*
//   cnt_fetch_read            WQE fetch DMA reads issued this cycle, SQ and
//                             RQ together (0..2; counter)
//   cnt_wqes_fetched          WQEs fetched this cycle, SQ and RQ (counter)
//   cq_base, cq_log, cq_en    CQ configuration for the CQE writer
//   cq_ovr, cq_pi, cq_ci      CQ state: overrun flag, producer index (written
//                             by the CQE writer through cqw_*), consumer index
//                             (the host's doorbell); indices free-running 16 bit
//   cq_err_valid/idx          newest error CQE mark (struct cq_mark) per CQ
//   cq_sol_valid/idx          newest solicited CQE mark per CQ
//   cqw_done_valid            the CQE writer wrote one CQE to cqw_cqn: PI + 1,
//                             marks updated with the old PI from cqw_err and
//                             cqw_sol, CQES_WRITTEN + 1
//   cqw_ovr_valid             the CQE writer found cqw_cqn full: set overrun
//   cnt_rd_valid/bytes        a DMA read request of that many bytes (counter)
//   cnt_wr_valid/bytes        a DMA write request of that many bytes (counter)
//   cnt_notify                one notification left for the host (counter)
//   cnt_notify_cqn            its CQ (struct notify, field cqn): the
//                             notification latency counters charge it the
//                             cycles since that CQ's newest CQE was written
//   cycles_lo                 low word of the cycle counter (firmware CYCLES)
//
// Choices the layout leaves open:
//   - one _HI latch is shared by all counters: read a counter's _LO, then its
//     _HI, with no other counter _LO read in between;
//   - a CQ CFG write with enable set (re)initialises the CQ: PI, CI, overrun
//     and both marks go to 0, whether or not it was enabled before;
//   - a host write to a register and an update strobe for the same register
//     in the same cycle: the host write wins;
//   - notification latency (NTF_LATENCY_SUM, NTF_LATENCY_MAX): per CQ the
//     low 32 bits of CYCLES when its newest CQE was written (cqw_done_valid)
//     are kept; a notification leaving (cnt_notify) adds CYCLES - that stamp
//     to the sum and raises the max. The difference is taken modulo 2^32
//     (right for any latency under 2^32 cycles, 43 s at 100 MHz); the max
//     is 32 bits wide, its _HI reads 0. A notification for a CQ that never
//     had a CQE since reset counts the cycles since reset; one for a CQ
//     number >= NUM_CQ counts 0;
//   - accesses to unmapped offsets read 0 and writes to them are ignored, as
//     are writes to read-only registers, MR_CMD with another command, and
//     (in qpnic_mr_table) MR_CMD on an MR_IDX >= NUM_MR.
//
// The packed registers' bit fields (CAPS0, CAPS1, CAPS2, STATUS, QP CFG and REMOTE,
// CQ CFG, STATE and ARM) come from the layout's structs caps0, caps1,
// status, qp_cfg, qp_remote, cq_cfg, cq_state and cq_arm.
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_csr #(
    parameter NUM_QP = 8,
    parameter NUM_CQ = 8,
    parameter NUM_MR = 16,
    parameter QW     = 8
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   mmio_valid,
    output wire                   mmio_ready,
    input  wire                   mmio_we,
    input  wire [15:0]            mmio_addr,
    input  wire [31:0]            mmio_wdata,
    output reg                    mmio_rvalid,
    output reg  [31:0]            mmio_rdata,

    input  wire                   fw_ready,
    input  wire                   nic_idle,

    output wire                   arm_evt_valid,
    input  wire                   arm_evt_ready,
    output wire [31:0]            arm_evt_data,

    output wire                   qph_valid,
    input  wire                   qph_ready,
    output wire                   qph_we,
    output wire [QW-1:0]          qph_idx,
    output wire [`QPNIC_QP_OFFSET_BITS-1:0] qph_off,
    output wire [31:0]            qph_wdata,
    input  wire                   qph_rvalid,
    input  wire [31:0]            qph_rdata,

    output wire                   mr_upd_valid,
    input  wire                   mr_upd_ready,
    output wire [`QPNIC_TOKEN_INDEX_BITS-1:0] mr_upd_idx,
    output wire                   mr_upd_write,
    output wire [63:0]            mr_upd_va,
    output wire [31:0]            mr_upd_len,
    output wire [63:0]            mr_upd_dma,
    output wire [31:0]            mr_upd_lkey,
    output wire [31:0]            mr_upd_rkey,
    output wire [2:0]             mr_upd_access,

    input  wire [1:0]             cnt_fetch_read,
    input  wire [4:0]             cnt_wqes_fetched,

    output reg  [NUM_CQ*64-1:0]   cq_base,
    output reg  [NUM_CQ*5-1:0]    cq_log,
    output reg  [NUM_CQ-1:0]      cq_en,
    output reg  [NUM_CQ-1:0]      cq_ovr,
    output reg  [NUM_CQ*16-1:0]   cq_pi,
    output reg  [NUM_CQ*16-1:0]   cq_ci,
    output reg  [NUM_CQ-1:0]      cq_err_valid,
    output reg  [NUM_CQ*16-1:0]   cq_err_idx,
    output reg  [NUM_CQ-1:0]      cq_sol_valid,
    output reg  [NUM_CQ*16-1:0]   cq_sol_idx,

    input  wire                   cqw_done_valid,
    input  wire                   cqw_ovr_valid,
    input  wire [3:0]             cqw_cqn,
    input  wire                   cqw_err,
    input  wire                   cqw_sol,

    input  wire                   cnt_rd_valid,
    input  wire [15:0]            cnt_rd_bytes,
    input  wire                   cnt_wr_valid,
    input  wire [15:0]            cnt_wr_bytes,
    input  wire                   cnt_notify,
    input  wire [7:0]             cnt_notify_cqn,

    output wire [31:0]            cycles_lo
);
    // ---- CAPS values: the parameters and the layout constants, each cut to
    // its field's width (layout structs caps0, caps1) ------------------------
    localparam integer MAX_SGE_V = `QPNIC_MAX_SGE;
    localparam integer LOG_QP_V  = `QPNIC_LOG_MAX_QP_DEPTH;
    localparam integer LOG_CQ_V  = `QPNIC_LOG_MAX_CQ_DEPTH;
    localparam integer BURST_V   = `QPNIC_FETCH_BURST_WQES;
    localparam [`QPNIC_CAPS0_NUM_QP_WIDTH-1:0]  CAPS_NUM_QP  = NUM_QP[`QPNIC_CAPS0_NUM_QP_WIDTH-1:0];
    localparam [`QPNIC_CAPS0_NUM_CQ_WIDTH-1:0]  CAPS_NUM_CQ  = NUM_CQ[`QPNIC_CAPS0_NUM_CQ_WIDTH-1:0];
    localparam [`QPNIC_CAPS2_NUM_MR_WIDTH-1:0]  CAPS_NUM_MR  = NUM_MR[`QPNIC_CAPS2_NUM_MR_WIDTH-1:0];
    localparam [`QPNIC_CAPS1_MAX_SGE_WIDTH-1:0] CAPS_MAX_SGE = MAX_SGE_V[`QPNIC_CAPS1_MAX_SGE_WIDTH-1:0];
    localparam [`QPNIC_CAPS1_LOG_MAX_QP_DEPTH_WIDTH-1:0] CAPS_LOG_QP =
        LOG_QP_V[`QPNIC_CAPS1_LOG_MAX_QP_DEPTH_WIDTH-1:0];
    localparam [`QPNIC_CAPS1_LOG_MAX_CQ_DEPTH_WIDTH-1:0] CAPS_LOG_CQ =
        LOG_CQ_V[`QPNIC_CAPS1_LOG_MAX_CQ_DEPTH_WIDTH-1:0];
    localparam [`QPNIC_CAPS1_FETCH_BURST_WQES_WIDTH-1:0] CAPS_BURST =
        BURST_V[`QPNIC_CAPS1_FETCH_BURST_WQES_WIDTH-1:0];

    // ---- decode ------------------------------------------------------------
    localparam integer QP_LO = {16'd0, `QPNIC_QP_BASE};
    localparam integer QP_HI = QP_LO + NUM_QP * `QPNIC_QP_STRIDE;
    localparam integer CQ_LO = {16'd0, `QPNIC_CQ_BASE};
    localparam integer CQ_HI = CQ_LO + NUM_CQ * `QPNIC_CQ_STRIDE;
    localparam QOB = `QPNIC_QP_OFFSET_BITS;
    localparam COB = `QPNIC_CQ_OFFSET_BITS;

    wire [31:0] addr32 = {16'd0, mmio_addr};
    wire        qp_hit = addr32 >= QP_LO && addr32 < QP_HI;
    wire        cq_hit = addr32 >= CQ_LO && addr32 < CQ_HI;
    wire [QOB+7:0] qp_rel = mmio_addr[QOB+7:0] - QP_LO[QOB+7:0];
    wire [COB+7:0] cq_rel = mmio_addr[COB+7:0] - CQ_LO[COB+7:0];
    // Block numbers; only meaningful when qp_hit / cq_hit.
    wire [7:0]     qp_n   = qp_rel[QOB+7:QOB];
    wire [7:0]     cq_n   = cq_rel[COB+7:COB];
    wire [QOB-1:0] qp_off = qp_rel[QOB-1:0];
    wire [COB-1:0] cq_off = cq_rel[COB-1:0];

    // The addressed CQ's flag bits (a plain bit select would need an index
    // exactly log2(NUM_CQ) wide).
    reg cq_en_sel, cq_ovr_sel;
    integer j;
    always @* begin
        cq_en_sel  = 1'b0;
        cq_ovr_sel = 1'b0;
        for (j = 0; j < NUM_CQ; j = j + 1) begin
            if (cq_n == j[7:0]) begin
                cq_en_sel  = cq_en[j];
                cq_ovr_sel = cq_ovr[j];
            end
        end
    end

    wire is_arm   = cq_hit && cq_off == `QPNIC_CQREG_ARM;
    assign arm_evt_valid = mmio_valid && mmio_we && is_arm;
    // MR_CMD: WRITE or INVALIDATE go to the token table; others are ignored
    wire is_mr_cmd = !qp_hit && !cq_hit && mmio_addr == `QPNIC_REG_MR_CMD &&
                     (mmio_wdata[1:0] == `QPNIC_MR_CMD_WRITE ||
                      mmio_wdata[1:0] == `QPNIC_MR_CMD_INVALIDATE);
    assign mr_upd_valid  = mmio_valid && mmio_we && is_mr_cmd;
    assign mr_upd_write  = (mmio_wdata[1:0] == `QPNIC_MR_CMD_WRITE);

    // QP block: the QP table's host port. A read is answered by the table
    // (qph_rvalid); until then no other access is taken.
    reg qp_rd_pending;
    assign qph_valid  = mmio_valid && qp_hit && !qp_rd_pending;
    assign qph_we     = mmio_we;
    assign qph_idx    = qp_n[QW-1:0];
    assign qph_off    = qp_off;
    assign qph_wdata  = mmio_wdata;
    assign mmio_ready = !qp_rd_pending &&
                        (qp_hit ? qph_ready :
                         !mmio_we || (is_arm ? arm_evt_ready : is_mr_cmd ? mr_upd_ready : 1'b1));

    // ARM event word: struct event with valid 0 (qpnic_fw_if sets it on pop).
    reg [31:0] arm_word;
    always @* begin
        arm_word = 32'd0;
        arm_word[`QPNIC_EVENT_CQN]     = cq_n[`QPNIC_EVENT_CQN_WIDTH-1:0];
        arm_word[`QPNIC_EVENT_TYPE]    = `QPNIC_EVT_TYPE_ARM;
        arm_word[`QPNIC_EVENT_TRIGGER] = mmio_wdata[`QPNIC_CQ_ARM_TRIGGER];
        // where the CQ stands as the arm arrives: the firmware judges the
        // arm as of this moment (docs/internals.md)
        arm_word[`QPNIC_EVENT_INDEX]   = cq_pi[cq_n*16 +: 16];
    end
    assign arm_evt_data = arm_word;

    wire acc = mmio_valid && mmio_ready;
    wire wr  = acc && mmio_we;
    wire rd  = acc && !mmio_we;

    // ---- MR staging --------------------------------------------------------
    reg [`QPNIC_TOKEN_INDEX_BITS-1:0] mr_idx;
    reg [63:0] st_va;
    reg [31:0] st_len;
    reg [63:0] st_dma;
    reg [31:0] st_lkey;
    reg [31:0] st_rkey;
    reg [2:0]  st_access;

    // ---- counters ----------------------------------------------------------
    reg [63:0] cnt_doorbells;
    reg [63:0] cnt_wqes;
    reg [63:0] cnt_fetch_reads;
    reg [63:0] cnt_rd_total;
    reg [63:0] cnt_wr_total;
    reg [63:0] cnt_cqes;
    reg [63:0] cnt_ntf;
    reg [63:0] cnt_cycles;
    reg [63:0] cnt_lat_sum;
    reg [31:0] cnt_lat_max;
    reg [31:0] hi_latch;
    reg [31:0] scratch;

    assign cycles_lo = cnt_cycles[31:0];

    // ---- read mux ----------------------------------------------------------
    reg [31:0] rd_word;
    reg        rd_latch;      // this read is a counter _LO: latch rd_hi
    reg [31:0] rd_hi;

    always @* begin
        rd_word  = 32'd0;
        rd_latch = 1'b0;
        rd_hi    = 32'd0;
        if (cq_hit) begin
            case (cq_off)
            `QPNIC_CQREG_BASE_LO: rd_word = cq_base[cq_n*64 +: 32];
            `QPNIC_CQREG_BASE_HI: rd_word = cq_base[cq_n*64+32 +: 32];
            `QPNIC_CQREG_CFG: begin
                rd_word[`QPNIC_CQ_CFG_LOG_DEPTH] = cq_log[cq_n*5 +: 5];
                rd_word[`QPNIC_CQ_CFG_ENABLE]    = cq_en_sel;
            end
            `QPNIC_CQREG_CI:      rd_word[15:0] = cq_ci[cq_n*16 +: 16];
            `QPNIC_CQREG_PI:      rd_word[15:0] = cq_pi[cq_n*16 +: 16];
            `QPNIC_CQREG_STATE: begin
                rd_word[`QPNIC_CQ_STATE_ENABLED] = cq_en_sel;
                rd_word[`QPNIC_CQ_STATE_OVERRUN] = cq_ovr_sel;
            end
            default: ;
            endcase
        end else begin
            case (mmio_addr)
            `QPNIC_REG_ID:      rd_word = `QPNIC_ID_VALUE;
            `QPNIC_REG_VERSION: rd_word = `QPNIC_VERSION_VALUE;
            `QPNIC_REG_CAPS0: begin
                rd_word[`QPNIC_CAPS0_NUM_QP]  = CAPS_NUM_QP;
                rd_word[`QPNIC_CAPS0_NUM_CQ]  = CAPS_NUM_CQ;
            end
            `QPNIC_REG_CAPS2:
                rd_word[`QPNIC_CAPS2_NUM_MR]  = CAPS_NUM_MR;
            `QPNIC_REG_CAPS1: begin
                rd_word[`QPNIC_CAPS1_LOG_MAX_QP_DEPTH] = CAPS_LOG_QP;
                rd_word[`QPNIC_CAPS1_LOG_MAX_CQ_DEPTH] = CAPS_LOG_CQ;
                rd_word[`QPNIC_CAPS1_FETCH_BURST_WQES] = CAPS_BURST;
                rd_word[`QPNIC_CAPS1_MAX_SGE]          = CAPS_MAX_SGE;
            end
            `QPNIC_REG_STATUS: begin
                rd_word[`QPNIC_STATUS_FW_READY] = fw_ready;
                rd_word[`QPNIC_STATUS_IDLE]     = nic_idle;
            end
            `QPNIC_REG_SCRATCH: rd_word = scratch;
            `QPNIC_REG_CNT_DOORBELLS_LO:       begin rd_word = cnt_doorbells[31:0];   rd_latch = 1'b1; rd_hi = cnt_doorbells[63:32];   end
            `QPNIC_REG_CNT_WQES_FETCHED_LO:    begin rd_word = cnt_wqes[31:0];        rd_latch = 1'b1; rd_hi = cnt_wqes[63:32];        end
            `QPNIC_REG_CNT_WQE_FETCH_READS_LO: begin rd_word = cnt_fetch_reads[31:0]; rd_latch = 1'b1; rd_hi = cnt_fetch_reads[63:32]; end
            `QPNIC_REG_CNT_DMA_READ_BYTES_LO:  begin rd_word = cnt_rd_total[31:0];    rd_latch = 1'b1; rd_hi = cnt_rd_total[63:32];    end
            `QPNIC_REG_CNT_DMA_WRITE_BYTES_LO: begin rd_word = cnt_wr_total[31:0];    rd_latch = 1'b1; rd_hi = cnt_wr_total[63:32];    end
            `QPNIC_REG_CNT_CQES_WRITTEN_LO:    begin rd_word = cnt_cqes[31:0];        rd_latch = 1'b1; rd_hi = cnt_cqes[63:32];        end
            `QPNIC_REG_CNT_NOTIFICATIONS_LO:   begin rd_word = cnt_ntf[31:0];         rd_latch = 1'b1; rd_hi = cnt_ntf[63:32];         end
            `QPNIC_REG_CNT_CYCLES_LO:          begin rd_word = cnt_cycles[31:0];      rd_latch = 1'b1; rd_hi = cnt_cycles[63:32];      end
            `QPNIC_REG_CNT_NTF_LATENCY_SUM_LO: begin rd_word = cnt_lat_sum[31:0];     rd_latch = 1'b1; rd_hi = cnt_lat_sum[63:32];     end
            `QPNIC_REG_CNT_NTF_LATENCY_MAX_LO: begin rd_word = cnt_lat_max;           rd_latch = 1'b1;                                 end
            `QPNIC_REG_CNT_DOORBELLS_HI, `QPNIC_REG_CNT_WQES_FETCHED_HI,
            `QPNIC_REG_CNT_WQE_FETCH_READS_HI, `QPNIC_REG_CNT_DMA_READ_BYTES_HI,
            `QPNIC_REG_CNT_DMA_WRITE_BYTES_HI, `QPNIC_REG_CNT_CQES_WRITTEN_HI,
            `QPNIC_REG_CNT_NOTIFICATIONS_HI, `QPNIC_REG_CNT_CYCLES_HI,
            `QPNIC_REG_CNT_NTF_LATENCY_SUM_HI, `QPNIC_REG_CNT_NTF_LATENCY_MAX_HI:
                rd_word = hi_latch;
            `QPNIC_REG_MR_IDX:    rd_word[`QPNIC_TOKEN_INDEX_BITS-1:0] = mr_idx;
            `QPNIC_REG_MR_VA_LO:  rd_word = st_va[31:0];
            `QPNIC_REG_MR_VA_HI:  rd_word = st_va[63:32];
            `QPNIC_REG_MR_LEN:    rd_word = st_len;
            `QPNIC_REG_MR_DMA_LO: rd_word = st_dma[31:0];
            `QPNIC_REG_MR_DMA_HI: rd_word = st_dma[63:32];
            `QPNIC_REG_MR_LKEY:   rd_word = st_lkey;
            `QPNIC_REG_MR_RKEY:   rd_word = st_rkey;
            `QPNIC_REG_MR_ACCESS: rd_word[2:0] = st_access;
            default: ;
            endcase
        end
    end

    // A read of the csr's own registers is answered the next cycle; one of
    // the QP block when the QP table answers (one read at a time).
    always @(posedge clk) begin
        if (rst) begin
            mmio_rvalid   <= 1'b0;
            mmio_rdata    <= 32'd0;
            hi_latch      <= 32'd0;
            qp_rd_pending <= 1'b0;
        end else begin
            mmio_rvalid <= (rd && !qp_hit) || qph_rvalid;
            if (rd && !qp_hit) begin
                mmio_rdata <= rd_word;
                if (rd_latch) hi_latch <= rd_hi;
            end
            if (qph_rvalid) mmio_rdata <= qph_rdata;
            if (rd && qp_hit) qp_rd_pending <= 1'b1;
            else if (qph_rvalid) qp_rd_pending <= 1'b0;
        end
    end

    // ---- host writes: decoded strobes -------------------------------------
    wire qp_wr = wr && qp_hit;
    wire cq_wr = wr && cq_hit;
    wire hw_wr = wr && !qp_hit && !cq_hit;

    wire [15:0] wdata16 = mmio_wdata[15:0];
    wire        doorbell = qp_wr && (qp_off == `QPNIC_QPREG_SQ_PI ||
                                     qp_off == `QPNIC_QPREG_RQ_PI);

    integer i;
    // ---- CQ contexts -------------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            cq_base      <= 0;
            cq_log       <= 0;
            cq_en        <= 0;
            cq_ovr       <= 0;
            cq_pi        <= 0;
            cq_ci        <= 0;
            cq_err_valid <= 0;
            cq_err_idx   <= 0;
            cq_sol_valid <= 0;
            cq_sol_idx   <= 0;
        end else begin
            for (i = 0; i < NUM_CQ; i = i + 1) begin
                if (cqw_done_valid && cqw_cqn == i[3:0]) begin
                    cq_pi[i*16 +: 16] <= cq_pi[i*16 +: 16] + 16'd1;
                    if (cqw_err) begin
                        cq_err_valid[i]      <= 1'b1;
                        cq_err_idx[i*16 +: 16] <= cq_pi[i*16 +: 16];
                    end
                    if (cqw_sol) begin
                        cq_sol_valid[i]      <= 1'b1;
                        cq_sol_idx[i*16 +: 16] <= cq_pi[i*16 +: 16];
                    end
                end
                if (cqw_ovr_valid && cqw_cqn == i[3:0])
                    cq_ovr[i] <= 1'b1;

                if (cq_wr && cq_n == i[7:0]) begin
                    case (cq_off)
                    `QPNIC_CQREG_BASE_LO: cq_base[i*64 +: 32]    <= mmio_wdata;
                    `QPNIC_CQREG_BASE_HI: cq_base[i*64+32 +: 32] <= mmio_wdata;
                    `QPNIC_CQREG_CFG: begin
                        cq_log[i*5 +: 5] <= mmio_wdata[`QPNIC_CQ_CFG_LOG_DEPTH];
                        cq_en[i]         <= mmio_wdata[`QPNIC_CQ_CFG_ENABLE];
                        if (mmio_wdata[`QPNIC_CQ_CFG_ENABLE]) begin
                            cq_pi[i*16 +: 16]      <= 16'd0;
                            cq_ci[i*16 +: 16]      <= 16'd0;
                            cq_ovr[i]              <= 1'b0;
                            cq_err_valid[i]        <= 1'b0;
                            cq_err_idx[i*16 +: 16] <= 16'd0;
                            cq_sol_valid[i]        <= 1'b0;
                            cq_sol_idx[i*16 +: 16] <= 16'd0;
                        end
                    end
                    `QPNIC_CQREG_CI: cq_ci[i*16 +: 16] <= wdata16;
                    default: ;
                    endcase
                end
            end
        end
    end

    // ---- host registers, MR staging -------------------------------------------
    assign mr_upd_idx    = mr_idx;
    assign mr_upd_va     = st_va;
    assign mr_upd_len    = st_len;
    assign mr_upd_dma    = st_dma;
    assign mr_upd_lkey   = st_lkey;
    assign mr_upd_rkey   = st_rkey;
    assign mr_upd_access = st_access;

    always @(posedge clk) begin
        if (rst) begin
            scratch   <= 32'd0;
            mr_idx    <= 0;
            st_va     <= 64'd0;
            st_len    <= 32'd0;
            st_dma    <= 64'd0;
            st_lkey   <= 32'd0;
            st_rkey   <= 32'd0;
            st_access <= 3'd0;
        end else if (hw_wr) begin
            case (mmio_addr)
            `QPNIC_REG_SCRATCH:   scratch        <= mmio_wdata;
            `QPNIC_REG_MR_IDX:    mr_idx         <= mmio_wdata[`QPNIC_TOKEN_INDEX_BITS-1:0];
            `QPNIC_REG_MR_VA_LO:  st_va[31:0]    <= mmio_wdata;
            `QPNIC_REG_MR_VA_HI:  st_va[63:32]   <= mmio_wdata;
            `QPNIC_REG_MR_LEN:    st_len         <= mmio_wdata;
            `QPNIC_REG_MR_DMA_LO: st_dma[31:0]   <= mmio_wdata;
            `QPNIC_REG_MR_DMA_HI: st_dma[63:32]  <= mmio_wdata;
            `QPNIC_REG_MR_LKEY:   st_lkey        <= mmio_wdata;
            `QPNIC_REG_MR_RKEY:   st_rkey        <= mmio_wdata;
            `QPNIC_REG_MR_ACCESS: st_access      <= mmio_wdata[2:0];
            default: ;
            endcase
        end
    end

    // ---- counters -----------------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            cnt_doorbells   <= 64'd0;
            cnt_wqes        <= 64'd0;
            cnt_fetch_reads <= 64'd0;
            cnt_rd_total    <= 64'd0;
            cnt_wr_total    <= 64'd0;
            cnt_cqes        <= 64'd0;
            cnt_ntf         <= 64'd0;
            cnt_cycles      <= 64'd0;
        end else begin
            cnt_cycles <= cnt_cycles + 64'd1;
            if (doorbell)       cnt_doorbells   <= cnt_doorbells + 64'd1;
            cnt_fetch_reads <= cnt_fetch_reads + {62'd0, cnt_fetch_read};
            cnt_wqes        <= cnt_wqes + {59'd0, cnt_wqes_fetched};
            if (cnt_rd_valid)   cnt_rd_total    <= cnt_rd_total + {48'd0, cnt_rd_bytes};
            if (cnt_wr_valid)   cnt_wr_total    <= cnt_wr_total + {48'd0, cnt_wr_bytes};
            if (cqw_done_valid) cnt_cqes        <= cnt_cqes + 64'd1;
            if (cnt_notify)     cnt_ntf         <= cnt_ntf + 64'd1;
        end
    end

    // ---- notification latency ------------------------------------------------
    // Per CQ, the cycle its newest CQE was written; a notification leaving
    // for that CQ is charged the cycles since (see the choices above).
    reg  [31:0] cqe_stamp [0:NUM_CQ-1];
    reg  [31:0] ntf_stamp;   // the notified CQ's stamp
    always @* begin
        ntf_stamp = cnt_cycles[31:0];  // no such CQ: latency 0
        for (j = 0; j < NUM_CQ; j = j + 1)
            if (cnt_notify_cqn == j[7:0]) ntf_stamp = cqe_stamp[j];
    end
    wire [31:0] ntf_latency = cnt_cycles[31:0] - ntf_stamp;

    always @(posedge clk) begin
        for (i = 0; i < NUM_CQ; i = i + 1)
            if (rst)
                cqe_stamp[i] <= 32'd0;
            else if (cqw_done_valid && cqw_cqn == i[3:0])
                cqe_stamp[i] <= cnt_cycles[31:0];
    end

    always @(posedge clk) begin
        if (rst) begin
            cnt_lat_sum <= 64'd0;
            cnt_lat_max <= 32'd0;
        end else begin
            if (cnt_notify) begin
                cnt_lat_sum <= cnt_lat_sum + {32'd0, ntf_latency};
                if (ntf_latency > cnt_lat_max) cnt_lat_max <= ntf_latency;
            end
        end
    end
endmodule

`default_nettype wire
