// qpnic_csr: the NIC's control plane. Decodes host MMIO (layout "Host
// registers", the per-QP and per-CQ blocks, the MR staging window and the
// counters) and holds what those registers describe: the MR staging
// registers and the 64-bit counters. The QP block goes to the QP table's
// host port (qpnic_qp_table, in qpnic_datapath), the CQ block to the CQ
// table's (qpnic_cq_table): each access of one becomes one access on its
// table's host port, and the tables hold every QP's and CQ's state. The
// token table lives in qpnic_mr_table: MR_CMD becomes one update on its
// update port. The page table lives in qpnic_page_table (one copy per DMA
// channel): each PT_PFN write becomes one entry write on both copies.
//
// Parameters
//   NUM_QP   queue pairs (1..MAX_NUM_QP: the QP block holds 256), for CAPS0
//            and the QP block's decode
//   NUM_CQ   completion queues (1..MAX_NUM_CQ = 2^CQN_BITS), for CAPS0 and
//            the CQ block's decode
//   NUM_MR   token table entries (1..2^TOKEN_INDEX_BITS), for CAPS2
//   NUM_PT   page table entries, for CAPS3
//   QW       bits of a QP number on the QP table's host port
//   WIRE     1: the peer table (per-peer block) is built, for the RoCEv2
//            wire; 0: the block reads 0 and ignores writes
//
// Ports
//   clk, rst                  clock, synchronous active-high reset
//   mmio_valid/ready          one host register access; mmio_ready is low
//                             while a QP or CQ block access waits for its
//                             table (a CQ ARM while the table's previous ARM
//                             event has not entered the firmware event FIFO:
//                             an arm is never lost), while a write to MR_CMD
//                             waits for the token table, and from a table
//                             read's acceptance to its reply (pending table
//                             read). Combinational paths:
//                             mmio_valid/we/addr/wdata -> qph_*, cqt_* and
//                             mr_upd_valid/write; qph_ready, cqt_ready,
//                             mr_upd_ready -> mmio_ready; qph_rvalid/rdata,
//                             cqt_rvalid/rdata -> mmio_rvalid, mmio_rdata.
//   mmio_we, mmio_addr, mmio_wdata   1 write / 0 read, byte offset, data
//   mmio_rvalid, mmio_rdata   read reply, one pulse: the cycle after the
//                             read was accepted for the csr's own registers,
//                             the cycle its table answers for the QP and CQ
//                             blocks (two cycles after it took the read),
//                             and when the counter RAM has flushed the
//                             counter for a counter's _LO (at most CNT_SLOTS
//                             + 2 cycles after; CYCLES and NTF_LATENCY_MAX
//                             the cycle after). No other access is taken
//                             until then.
//   fw_ready                  STATUS bit 0 (from qpnic_fw_if FW_READY)
//   nic_idle                  STATUS bit 1: the core is idle apart from MMIO
//   mr_fence                  STATUS bit 2: an invalidated region may still be
//                             touched (qpnic_mr_fence)
//   cqt_valid/ready           one CQ block access for qpnic_cq_table's host
//   cqt_we, cqt_idx, cqt_off, cqt_wdata   port: 1 write / 0 read, CQ number,
//                             offset in its block, data
//   cqt_rvalid, cqt_rdata     the table's answer to a read
//   qph_valid/ready, qph_we, qph_idx, qph_off, qph_wdata   one QP block
//                             access for qpnic_qp_table's host port
//   qph_rvalid, qph_rdata     the QP table's answer to a read
//   mr_upd_valid/ready        one MR_CMD for qpnic_mr_table: mr_upd_write 1
//                             (WRITE) or 0 (INVALIDATE) of entry mr_upd_idx
//                             (MR_IDX), with the staging registers as mr_upd_*
//   path_mtu                  PATH_MTU: log2 of the path MTU in bytes (8 .. 12;
//                             a write of another value is ignored)
//   ci_rec                    CI_REC_HI:CI_REC_LO, the host's table of CQ
//                             consumer index records (0: none), for the
//                             CQE writer
//   pt_wr_en, pt_wr_idx, pt_wr_pfn   a PT_PFN write: entry PT_IDX gets the
//                             written page frame number
//   gr_wr_en, gr_wr_idx, gr_wr_pd, gr_wr_first, gr_wr_pages   an MR_CMD GRANT:
//                             token entry MR_IDX may be fast-registered by
//                             PD MR_PD over the page table entries from
//                             MR_DMA's (bits 12 and up) for MR_LEN / 4096
//                             (0: revoked), to the requester's grant RAM;
//                             an MR_CMD GRANT_WINDOW: gr_wr_window, entry
//                             MR_IDX a window of PD MR_PD (BINDs only)
//   cnt_fetch_read            WQE fetch DMA reads issued this cycle, SQ and
//                             RQ together (0..2; counter)
//   cnt_wqes_fetched          WQEs fetched this cycle, SQ and RQ (counter)
//   cnt_cqe                   the CQE writer wrote one CQE (CQES_WRITTEN)
//   cnt_drop                  the responder refused a packet (PKTS_DROPPED)
//   cnt_rnr                   a QP was rewound to send an RNR'd SEND again
//                             (RNR_RETRIES)
//   cnt_wire                  the wire's pulses: bit 0 a frame sent, 1 a
//                             frame kept, 2 a frame dropped, 3 an ICRC error
//                             (FRAMES_SENT, _RECEIVED, _DROPPED, ICRC_ERRORS)
//   cnt_dup                   duplicates seen this cycle (0..2: DUPLICATES)
//   cnt_retx                  a QP went back after a timeout (RETRANSMITS)
//   cnt_nak                   the completer took a NAK (NAKS)
//   cnt_wire_payload          a frame's payload bytes as the wire starts it
//                             (WIRE_PAYLOAD_BYTES)
//   cnt_rd_valid/bytes        a DMA read request of that many bytes (counter)
//   cnt_wr_valid/bytes        a DMA write request of that many bytes (counter)
//   cnt_notify                one notification left for the host (counter)
//   lat_valid, lat_cycles     one notification's latency, from qpnic_cq_table
//                             (cycles since its CQ's newest CQE was written)
//   cycles_lo                 low word of the cycle counter (firmware CYCLES,
//                             the CQ table's stamps)
//   cfg_mac, cfg_ip           this NIC's addresses: peer table entry 0
//   peer_mac, peer_ip         the peer table, entry n at [48n +: 48] and
//                             [32n +: 32] (WIRE builds; entry 0 = cfg_*)
//
// Choices the layout leaves open:
//   - one _HI latch is shared by all counters: read a counter's _LO, then its
//     _HI, with no other counter _LO read in between;
//   - the counters live in a RAM, not in flip-flops (see "counters" below):
//     a _LO read waits for its counter's turn in the RAM, and answers with
//     every event up to the cycle it was accepted in;
//   - the engines' events (cnt_*, lat_*) are registered and counted a cycle
//     after they happen (timing: see "counters" below); a doorbell write is
//     counted in the first cycle it is offered (see db_offer);
//   - notification latency (NTF_LATENCY_SUM, NTF_LATENCY_MAX): each
//     latency the CQ table hands over (lat_valid) is added to the sum and
//     raises the max (the table's choices: see qpnic_cq_table); the max is
//     32 bits wide, its _HI reads 0;
//   - accesses to unmapped offsets read 0 and writes to them are ignored, as
//     are writes to read-only registers, MR_CMD with another command, and
//     (in qpnic_mr_table) MR_CMD on an MR_IDX >= NUM_MR.
//
// The packed registers' bit fields (CAPS0..CAPS3, STATUS) come from
// the layout's structs caps0..caps3 and status; the QP and CQ
// registers' are their tables' business.
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_csr #(
    parameter NUM_QP = 8,
    parameter NUM_CQ = 8,
    parameter NUM_MR = 16,
    parameter NUM_PT = `QPNIC_NUM_PT,
    parameter QW     = 8,
    parameter WIRE   = 0
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   mmio_valid,
    output wire                   mmio_ready,
    input  wire                   mmio_we,
    input  wire [15:0]            mmio_addr,
    input  wire [31:0]            mmio_wdata,
    output wire                   mmio_rvalid,
    output wire [31:0]            mmio_rdata,

    input  wire                   fw_ready,
    input  wire                   nic_idle,
    input  wire                   mr_fence,

    output wire                   cqt_valid,
    input  wire                   cqt_ready,
    output wire                   cqt_we,
    output wire [`QPNIC_CQN_BITS-1:0] cqt_idx,
    output wire [`QPNIC_CQ_OFFSET_BITS-1:0] cqt_off,
    output wire [31:0]            cqt_wdata,
    input  wire                   cqt_rvalid,
    input  wire [31:0]            cqt_rdata,

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
    output wire [`QPNIC_PD_BITS-1:0] mr_upd_pd,

    output reg                    pt_wr_en,
    output reg  [`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0] pt_wr_idx,
    output reg  [`QPNIC_PT_PFN_BITS-1:0] pt_wr_pfn,

    output reg                    gr_wr_en,
    output reg                    gr_wr_window,
    output reg  [`QPNIC_TOKEN_INDEX_BITS-1:0] gr_wr_idx,
    output reg  [`QPNIC_PD_BITS-1:0] gr_wr_pd,
    output reg  [`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0] gr_wr_first,
    output reg  [31-`QPNIC_FREG_PAGE_SHIFT:0] gr_wr_pages,

    input  wire [1:0]             cnt_fetch_read,
    input  wire [4:0]             cnt_wqes_fetched,

    input  wire                   cnt_cqe,
    input  wire                   cnt_drop,
    input  wire                   cnt_rnr,
    input  wire [3:0]             cnt_wire,
    input  wire [1:0]             cnt_dup,
    input  wire                   cnt_retx,
    input  wire                   cnt_nak,
    input  wire [12:0]            cnt_wire_payload,
    input  wire                   cnt_rd_valid,
    input  wire [15:0]            cnt_rd_bytes,
    input  wire                   cnt_wr_valid,
    input  wire [15:0]            cnt_wr_bytes,
    input  wire                   cnt_notify,
    input  wire                   lat_valid,
    input  wire [31:0]            lat_cycles,

    output wire [31:0]            cycles_lo,
    output reg  [63:0]            ci_rec,
    output reg  [3:0]             path_mtu,

    input  wire [47:0]            cfg_mac,
    input  wire [31:0]            cfg_ip,
    output wire [`QPNIC_NUM_PEERS*48-1:0] peer_mac,
    output wire [`QPNIC_NUM_PEERS*32-1:0] peer_ip
);
    // ---- CAPS values: the parameters and the layout constants, each cut to
    // its field's width (layout structs caps0..caps3) ---------------------------
    localparam integer MAX_SGE_V = `QPNIC_MAX_SGE;
    localparam integer LOG_QP_V  = `QPNIC_LOG_MAX_QP_DEPTH;
    localparam integer LOG_CQ_V  = `QPNIC_LOG_MAX_CQ_DEPTH;
    localparam integer BURST_V   = `QPNIC_FETCH_BURST_WQES;
    localparam integer INLINE_V  = `QPNIC_MAX_INLINE_BYTES;
    localparam [`QPNIC_CAPS0_NUM_QP_WIDTH-1:0]  CAPS_NUM_QP  = NUM_QP[`QPNIC_CAPS0_NUM_QP_WIDTH-1:0];
    localparam [`QPNIC_CAPS0_NUM_CQ_WIDTH-1:0]  CAPS_NUM_CQ  = NUM_CQ[`QPNIC_CAPS0_NUM_CQ_WIDTH-1:0];
    localparam [`QPNIC_CAPS2_NUM_MR_WIDTH-1:0]  CAPS_NUM_MR  = NUM_MR[`QPNIC_CAPS2_NUM_MR_WIDTH-1:0];
    localparam [`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0] CAPS_NUM_PT =
        NUM_PT[`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0];
    localparam [`QPNIC_CAPS2_MAX_INLINE_WIDTH-1:0] CAPS_INLINE =
        INLINE_V[`QPNIC_CAPS2_MAX_INLINE_WIDTH-1:0];
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

    // A read that a context table took and has not answered yet: no other
    // access until its reply (at most one read is outstanding anyway). A
    // counter read waiting for the counter RAM holds the accesses the same
    // way (cnt_rd_pending).
    reg  tbl_rd_pending;
    wire rd_pending;

    // The QP block: one access on the QP table's host port.
    assign qph_valid = mmio_valid && qp_hit && !rd_pending;
    assign qph_we    = mmio_we;
    assign qph_idx   = qp_n[QW-1:0];
    assign qph_off   = qp_off;
    assign qph_wdata = mmio_wdata;

    // The CQ block: one access on the CQ table's host port.
    assign cqt_valid = mmio_valid && cq_hit && !rd_pending;
    assign cqt_we    = mmio_we;
    assign cqt_idx   = cq_n[`QPNIC_CQN_BITS-1:0];
    assign cqt_off   = cq_off;
    assign cqt_wdata = mmio_wdata;

    // MR_CMD: WRITE or INVALIDATE go to the token table, GRANT and
    // GRANT_WINDOW to the requester's grants (below); others are ignored
    wire [`QPNIC_MR_CMD_BITS-1:0] mr_cmd_op = mmio_wdata[`QPNIC_MR_CMD_BITS-1:0];
    wire is_mr_cmd = !qp_hit && !cq_hit && mmio_addr == `QPNIC_REG_MR_CMD &&
                     (mr_cmd_op == `QPNIC_MR_CMD_WRITE || mr_cmd_op == `QPNIC_MR_CMD_INVALIDATE);
    assign mr_upd_valid  = mmio_valid && mmio_we && is_mr_cmd;
    assign mr_upd_write  = (mr_cmd_op == `QPNIC_MR_CMD_WRITE);
    wire own_ready = !mmio_we || !is_mr_cmd || mr_upd_ready;
    assign mmio_ready    = !rd_pending &&
                           (qp_hit ? qph_ready : cq_hit ? cqt_ready : own_ready);

    // The accesses the csr answers itself are decoded without the tables'
    // ready (combinational from their arbiters): the csr's own registers
    // are not at the end of the tables' grant paths.
    wire own_acc = mmio_valid && !rd_pending && !qp_hit && !cq_hit && own_ready;
    wire own_rd  = own_acc && !mmio_we;
    wire hw_wr   = own_acc && mmio_we;
    wire tbl_rd  = mmio_valid && !mmio_we && !rd_pending &&
                   ((qp_hit && qph_ready) || (cq_hit && cqt_ready));

    // Read replies: the csr's own registers the cycle after the read, a
    // table's when it answers.
    reg        csr_rvalid;
    reg [31:0] csr_rdata;
    wire       tbl_rvalid = qph_rvalid || cqt_rvalid;
    assign mmio_rvalid = csr_rvalid || tbl_rvalid;
    assign mmio_rdata  = qph_rvalid ? qph_rdata : cqt_rvalid ? cqt_rdata : csr_rdata;

    always @(posedge clk) begin
        if (rst)
            tbl_rd_pending <= 1'b0;
        else if (tbl_rd)
            tbl_rd_pending <= 1'b1;
        else if (tbl_rvalid)
            tbl_rd_pending <= 1'b0;
    end

    // ---- MR staging --------------------------------------------------------
    reg [`QPNIC_TOKEN_INDEX_BITS-1:0] mr_idx;
    reg [63:0] st_va;
    reg [31:0] st_len;
    reg [63:0] st_dma;
    reg [31:0] st_lkey;
    reg [31:0] st_rkey;
    reg [2:0]  st_access;
    reg [`QPNIC_PD_BITS-1:0] st_pd;
    reg [`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0] pt_idx;   // PT_IDX

    // ---- counters (below): CYCLES and NTF_LATENCY_MAX in flip-flops, the
    // others in the counter RAM ---------------------------------------------
    reg        db_counted;      // the doorbell write on offer is counted already
    reg [63:0] cnt_cycles;
    reg [31:0] cnt_lat_max;
    // A counter's slot in the counter RAM: its _LO's distance from the first
    // counter's, in counters (each is a _LO and a _HI).
    // CNT_SLOTS = 2^CNT_AW slots; a _LO at CNT_BASE + 8 * s is slot s.
    localparam integer CNT_AW    = 5;
    localparam [15:0]  CNT_BASE  = `QPNIC_REG_CNT_DOORBELLS_LO;
    localparam [CNT_AW-1:0] SLOT_BASE = CNT_BASE[CNT_AW+2:3];
    // A _LO's slot. Waived: an address's bits below a counter's 8 bytes and
    // above the counter block are not part of its slot.
    /* verilator lint_off UNUSEDSIGNAL */
    function [CNT_AW-1:0] slot_of;
        input [15:0] lo;
        slot_of = lo[CNT_AW+2:3] - SLOT_BASE;
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    localparam [CNT_AW-1:0] S_DOORBELLS   = slot_of(`QPNIC_REG_CNT_DOORBELLS_LO);
    localparam [CNT_AW-1:0] S_WQES        = slot_of(`QPNIC_REG_CNT_WQES_FETCHED_LO);
    localparam [CNT_AW-1:0] S_FETCH_READS = slot_of(`QPNIC_REG_CNT_WQE_FETCH_READS_LO);
    localparam [CNT_AW-1:0] S_RD_BYTES    = slot_of(`QPNIC_REG_CNT_DMA_READ_BYTES_LO);
    localparam [CNT_AW-1:0] S_WR_BYTES    = slot_of(`QPNIC_REG_CNT_DMA_WRITE_BYTES_LO);
    localparam [CNT_AW-1:0] S_CQES        = slot_of(`QPNIC_REG_CNT_CQES_WRITTEN_LO);
    localparam [CNT_AW-1:0] S_NTF         = slot_of(`QPNIC_REG_CNT_NOTIFICATIONS_LO);
    localparam [CNT_AW-1:0] S_LAT_SUM     = slot_of(`QPNIC_REG_CNT_NTF_LATENCY_SUM_LO);
    localparam [CNT_AW-1:0] S_DROPS       = slot_of(`QPNIC_REG_CNT_PKTS_DROPPED_LO);
    localparam [CNT_AW-1:0] S_RNRS        = slot_of(`QPNIC_REG_CNT_RNR_RETRIES_LO);
    localparam [CNT_AW-1:0] S_FR_SENT     = slot_of(`QPNIC_REG_CNT_FRAMES_SENT_LO);
    localparam [CNT_AW-1:0] S_FR_RECV     = slot_of(`QPNIC_REG_CNT_FRAMES_RECEIVED_LO);
    localparam [CNT_AW-1:0] S_FR_DROP     = slot_of(`QPNIC_REG_CNT_FRAMES_DROPPED_LO);
    localparam [CNT_AW-1:0] S_ICRC        = slot_of(`QPNIC_REG_CNT_ICRC_ERRORS_LO);
    localparam [CNT_AW-1:0] S_DUPS        = slot_of(`QPNIC_REG_CNT_DUPLICATES_LO);
    localparam [CNT_AW-1:0] S_RETX        = slot_of(`QPNIC_REG_CNT_RETRANSMITS_LO);
    localparam [CNT_AW-1:0] S_NAKS        = slot_of(`QPNIC_REG_CNT_NAKS_LO);
    localparam [CNT_AW-1:0] S_WIRE_BYTES  = slot_of(`QPNIC_REG_CNT_WIRE_PAYLOAD_BYTES_LO);
    reg        cnt_rd_pending;  // a counter _LO read waits for its flush
    reg [CNT_AW-1:0] cnt_rd_slot;
    wire       cnt_reply;       // its flush: answer with cnt_sum
    wire [63:0] cnt_sum;
    reg [31:0] hi_latch;
    reg [31:0] scratch;
    localparam [31:0] MTU_MAX_LOG = $clog2(`QPNIC_WIRE_MAX_PAYLOAD);

    assign cycles_lo = cnt_cycles[31:0];

    // ---- the wire's peer table (per-peer block; docs/wire.md "Two NICs") ---
    // Entry 0 is this NIC: cfg_mac and cfg_ip, read only. The host writes
    // entries 1 .. NUM_PEERS-1 as it connects QPs to other NICs. A build
    // without the wire has no table: the block reads 0, which tells the
    // host that this NIC reaches no other.
    localparam integer NP = `QPNIC_NUM_PEERS;
    localparam [15:0]  PEER_LO = `QPNIC_PEER_BASE;
    localparam integer PEER_HI_I = {16'd0, `QPNIC_PEER_BASE} + NP * `QPNIC_PEER_STRIDE;
    localparam [15:0]  PEER_HI = PEER_HI_I[15:0];
    localparam integer POB = `QPNIC_PEER_OFFSET_BITS;
    wire        peer_hit = mmio_addr >= PEER_LO && mmio_addr < PEER_HI;
    // (only the entry's number and the offset in it: the rest is peer_hit's)
    wire [POB+`QPNIC_PEER_BITS-1:0] peer_rel = mmio_addr[POB+`QPNIC_PEER_BITS-1:0] -
                                               PEER_LO[POB+`QPNIC_PEER_BITS-1:0];
    wire [`QPNIC_PEER_BITS-1:0] peer_n = peer_rel[POB +: `QPNIC_PEER_BITS];
    wire [POB-1:0] peer_off = peer_rel[POB-1:0];
    reg  [31:0] peer_rd;
    generate if (WIRE != 0) begin : g_peers
        // entries 1 .. NP-1 (entry 0 is this NIC's: cfg_mac, cfg_ip)
        reg [(NP-1)*48-1:0] macs;
        reg [(NP-1)*32-1:0] ips;
        wire [`QPNIC_PEER_BITS-1:0] wn = peer_n - 1'b1;   // (meaningful when peer_n != 0)
        always @(posedge clk) begin
            if (rst) begin
                macs <= {(NP-1)*48{1'b0}};
                ips  <= {(NP-1)*32{1'b0}};
            end else if (hw_wr && peer_hit && peer_n != 0) begin
                case (peer_off)
                `QPNIC_PEERREG_MAC_LO: macs[48*wn +: 32]      <= mmio_wdata;
                `QPNIC_PEERREG_MAC_HI: macs[48*wn + 32 +: 16] <= mmio_wdata[15:0];
                `QPNIC_PEERREG_IP:     ips[32*wn +: 32]       <= mmio_wdata;
                default: ;
                endcase
            end
        end
        assign peer_mac = {macs, cfg_mac};
        assign peer_ip  = {ips, cfg_ip};
        always @* begin
            case (peer_off)
            `QPNIC_PEERREG_MAC_LO: peer_rd = peer_mac[48*peer_n +: 32];
            `QPNIC_PEERREG_MAC_HI: peer_rd = {16'd0, peer_mac[48*peer_n + 32 +: 16]};
            `QPNIC_PEERREG_IP:     peer_rd = peer_ip[32*peer_n +: 32];
            default:               peer_rd = 32'd0;
            endcase
        end
    end else begin : g_no_peers
        assign peer_mac = {NP*48{1'b0}};
        assign peer_ip  = {NP*32{1'b0}};
        always @* peer_rd = 32'd0;
        wire unused_peer = &{1'b0, cfg_mac, cfg_ip, peer_n, peer_off};
    end endgenerate

    // ---- read mux ----------------------------------------------------------
    reg [31:0] rd_word;
    reg        rd_latch;      // this read is a flip-flop counter's _LO: latch rd_hi
    reg [31:0] rd_hi;
    reg        rd_ram;        // this read is a RAM counter's _LO

    always @* begin
        rd_word  = 32'd0;
        rd_latch = 1'b0;
        rd_hi    = 32'd0;
        rd_ram   = 1'b0;
        if (!qp_hit && !cq_hit) begin   // the blocks are answered by their tables
            case (mmio_addr)
            `QPNIC_REG_ID:      rd_word = `QPNIC_ID_VALUE;
            `QPNIC_REG_VERSION: rd_word = `QPNIC_VERSION_VALUE;
            `QPNIC_REG_CAPS0: begin
                rd_word[`QPNIC_CAPS0_NUM_QP]  = CAPS_NUM_QP;
                rd_word[`QPNIC_CAPS0_NUM_CQ]  = CAPS_NUM_CQ;
            end
            `QPNIC_REG_CAPS2: begin
                rd_word[`QPNIC_CAPS2_NUM_MR]     = CAPS_NUM_MR;
                rd_word[`QPNIC_CAPS2_MAX_INLINE] = CAPS_INLINE;
            end
            `QPNIC_REG_CAPS3: rd_word[`QPNIC_CAPS3_PT_ENTRIES] = CAPS_NUM_PT;
            `QPNIC_REG_CAPS1: begin
                rd_word[`QPNIC_CAPS1_LOG_MAX_QP_DEPTH] = CAPS_LOG_QP;
                rd_word[`QPNIC_CAPS1_LOG_MAX_CQ_DEPTH] = CAPS_LOG_CQ;
                rd_word[`QPNIC_CAPS1_FETCH_BURST_WQES] = CAPS_BURST;
                rd_word[`QPNIC_CAPS1_MAX_SGE]          = CAPS_MAX_SGE;
            end
            `QPNIC_REG_STATUS: begin
                rd_word[`QPNIC_STATUS_FW_READY] = fw_ready;
                rd_word[`QPNIC_STATUS_IDLE]     = nic_idle;
                rd_word[`QPNIC_STATUS_MR_FENCE] = mr_fence;
            end
            `QPNIC_REG_SCRATCH: rd_word = scratch;
            `QPNIC_REG_CI_REC_LO: rd_word = ci_rec[31:0];
            `QPNIC_REG_CI_REC_HI: rd_word = ci_rec[63:32];
            `QPNIC_REG_PATH_MTU:  rd_word = {28'd0, path_mtu};
            `QPNIC_REG_CNT_DOORBELLS_LO, `QPNIC_REG_CNT_WQES_FETCHED_LO,
            `QPNIC_REG_CNT_WQE_FETCH_READS_LO, `QPNIC_REG_CNT_DMA_READ_BYTES_LO,
            `QPNIC_REG_CNT_DMA_WRITE_BYTES_LO, `QPNIC_REG_CNT_CQES_WRITTEN_LO,
            `QPNIC_REG_CNT_NOTIFICATIONS_LO, `QPNIC_REG_CNT_NTF_LATENCY_SUM_LO,
            `QPNIC_REG_CNT_PKTS_DROPPED_LO, `QPNIC_REG_CNT_RNR_RETRIES_LO,
            `QPNIC_REG_CNT_FRAMES_SENT_LO, `QPNIC_REG_CNT_FRAMES_RECEIVED_LO,
            `QPNIC_REG_CNT_FRAMES_DROPPED_LO, `QPNIC_REG_CNT_ICRC_ERRORS_LO,
            `QPNIC_REG_CNT_DUPLICATES_LO, `QPNIC_REG_CNT_RETRANSMITS_LO,
            `QPNIC_REG_CNT_NAKS_LO, `QPNIC_REG_CNT_WIRE_PAYLOAD_BYTES_LO:
                rd_ram = 1'b1;     // answered by the counter RAM (below)
            `QPNIC_REG_CNT_CYCLES_LO:          begin rd_word = cnt_cycles[31:0]; rd_latch = 1'b1; rd_hi = cnt_cycles[63:32]; end
            `QPNIC_REG_CNT_NTF_LATENCY_MAX_LO: begin rd_word = cnt_lat_max;      rd_latch = 1'b1;                            end
            `QPNIC_REG_CNT_DOORBELLS_HI, `QPNIC_REG_CNT_WQES_FETCHED_HI,
            `QPNIC_REG_CNT_WQE_FETCH_READS_HI, `QPNIC_REG_CNT_DMA_READ_BYTES_HI,
            `QPNIC_REG_CNT_DMA_WRITE_BYTES_HI, `QPNIC_REG_CNT_CQES_WRITTEN_HI,
            `QPNIC_REG_CNT_NOTIFICATIONS_HI, `QPNIC_REG_CNT_CYCLES_HI,
            `QPNIC_REG_CNT_NTF_LATENCY_SUM_HI, `QPNIC_REG_CNT_NTF_LATENCY_MAX_HI,
            `QPNIC_REG_CNT_PKTS_DROPPED_HI, `QPNIC_REG_CNT_RNR_RETRIES_HI,
            `QPNIC_REG_CNT_FRAMES_SENT_HI, `QPNIC_REG_CNT_FRAMES_RECEIVED_HI,
            `QPNIC_REG_CNT_FRAMES_DROPPED_HI, `QPNIC_REG_CNT_ICRC_ERRORS_HI,
            `QPNIC_REG_CNT_DUPLICATES_HI, `QPNIC_REG_CNT_RETRANSMITS_HI,
            `QPNIC_REG_CNT_NAKS_HI, `QPNIC_REG_CNT_WIRE_PAYLOAD_BYTES_HI:
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
            `QPNIC_REG_MR_PD:     rd_word[`QPNIC_PD_BITS-1:0] = st_pd;
            `QPNIC_REG_PT_IDX:    rd_word[`QPNIC_CAPS3_PT_ENTRIES] = pt_idx;
            default: ;
            endcase
            if (peer_hit) rd_word = peer_rd;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            csr_rvalid <= 1'b0;
            csr_rdata  <= 32'd0;
            hi_latch   <= 32'd0;
        end else begin
            csr_rvalid <= (own_rd && !rd_ram) || cnt_reply;
            if (cnt_reply) begin
                csr_rdata <= cnt_sum[31:0];
                hi_latch  <= cnt_sum[63:32];
            end else if (own_rd) begin
                csr_rdata <= rd_word;
                if (rd_latch) hi_latch <= rd_hi;
            end
        end
    end

    // A RAM counter's _LO: wait for its flush (counters, below).
    assign rd_pending = tbl_rd_pending || cnt_rd_pending;
    always @(posedge clk) begin
        if (rst)
            cnt_rd_pending <= 1'b0;
        else if (own_rd && rd_ram)
            cnt_rd_pending <= 1'b1;
        else if (cnt_reply)
            cnt_rd_pending <= 1'b0;
        if (own_rd && rd_ram) cnt_rd_slot <= slot_of(mmio_addr);
    end

    // ---- host writes: decoded strobes -------------------------------------

    // A doorbell is counted in the first cycle its write is offered, from
    // the host's inputs and registers only: the acceptance (qph_ready) comes
    // out of the QP table's arbiter over every engine, and the 64-bit
    // counter's enable behind it was the 85F's worst path (run 21,
    // docs/synthesis.md). A write offered stays offered until accepted
    // (db_counted keeps it from counting twice meanwhile), and the host's
    // next access, a counter read included, comes after the acceptance: the
    // count it reads is exact.
    wire        db_offer = mmio_valid && mmio_we && !rd_pending && qp_hit &&
                           (qp_off == `QPNIC_QPREG_SQ_PI || qp_off == `QPNIC_QPREG_RQ_PI);
    always @(posedge clk) begin
        if (rst) db_counted <= 1'b0;
        else     db_counted <= db_offer && !qph_ready;
    end

    // ---- host registers, MR staging -------------------------------------------
    assign mr_upd_idx    = mr_idx;
    assign mr_upd_va     = st_va;
    assign mr_upd_len    = st_len;
    assign mr_upd_dma    = st_dma;
    assign mr_upd_lkey   = st_lkey;
    assign mr_upd_rkey   = st_rkey;
    assign mr_upd_access = st_access;
    assign mr_upd_pd     = st_pd;

    always @(posedge clk) begin
        if (rst) begin
            scratch   <= 32'd0;
            ci_rec    <= 64'd0;
            path_mtu  <= `QPNIC_PATH_MTU_RESET_LOG;
            mr_idx    <= 0;
            st_va     <= 64'd0;
            st_len    <= 32'd0;
            st_dma    <= 64'd0;
            st_lkey   <= 32'd0;
            st_rkey   <= 32'd0;
            st_access <= 3'd0;
            st_pd     <= 0;
        end else if (hw_wr) begin
            case (mmio_addr)
            `QPNIC_REG_SCRATCH:   scratch        <= mmio_wdata;
            `QPNIC_REG_CI_REC_LO: ci_rec[31:0]   <= mmio_wdata;
            `QPNIC_REG_CI_REC_HI: ci_rec[63:32]  <= mmio_wdata;
            `QPNIC_REG_PATH_MTU:
                if (mmio_wdata >= `QPNIC_PATH_MTU_MIN_LOG && mmio_wdata <= MTU_MAX_LOG)
                    path_mtu <= mmio_wdata[3:0];
            `QPNIC_REG_MR_IDX:    mr_idx         <= mmio_wdata[`QPNIC_TOKEN_INDEX_BITS-1:0];
            `QPNIC_REG_MR_VA_LO:  st_va[31:0]    <= mmio_wdata;
            `QPNIC_REG_MR_VA_HI:  st_va[63:32]   <= mmio_wdata;
            `QPNIC_REG_MR_LEN:    st_len         <= mmio_wdata;
            `QPNIC_REG_MR_DMA_LO: st_dma[31:0]   <= mmio_wdata;
            `QPNIC_REG_MR_DMA_HI: st_dma[63:32]  <= mmio_wdata;
            `QPNIC_REG_MR_LKEY:   st_lkey        <= mmio_wdata;
            `QPNIC_REG_MR_RKEY:   st_rkey        <= mmio_wdata;
            `QPNIC_REG_MR_ACCESS: st_access      <= mmio_wdata[2:0];
            `QPNIC_REG_MR_PD:     st_pd          <= mmio_wdata[`QPNIC_PD_BITS-1:0];
            default: ;
            endcase
        end
    end

    // ---- page table entries: PT_IDX, and each PT_PFN write one entry write
    // a cycle later (registered: the page tables sit at the DMA ports, far
    // from the MMIO decode) --------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            pt_idx    <= 0;
            pt_wr_en  <= 1'b0;
            pt_wr_idx <= 0;
            pt_wr_pfn <= 0;
        end else begin
            pt_wr_en <= hw_wr && mmio_addr == `QPNIC_REG_PT_PFN;
            if (hw_wr && mmio_addr == `QPNIC_REG_PT_IDX)
                pt_idx <= mmio_wdata[`QPNIC_CAPS3_PT_ENTRIES];
            if (hw_wr && mmio_addr == `QPNIC_REG_PT_PFN) begin
                pt_wr_idx <= pt_idx;
                pt_wr_pfn <= mmio_wdata[`QPNIC_PT_PFN_BITS-1:0];
                pt_idx    <= pt_idx + 1'b1;
            end
        end
    end

    // ---- page table grants: MR_CMD GRANT, from the staging registers, one
    // write of the requester's grant RAM a cycle later (registered, as the
    // page table writes) --------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            gr_wr_en    <= 1'b0;
            gr_wr_window <= 1'b0;
            gr_wr_idx   <= 0;
            gr_wr_pd    <= 0;
            gr_wr_first <= 0;
            gr_wr_pages <= 0;
        end else begin
            gr_wr_en <= hw_wr && mmio_addr == `QPNIC_REG_MR_CMD &&
                        (mr_cmd_op == `QPNIC_MR_CMD_GRANT || mr_cmd_op == `QPNIC_MR_CMD_GRANT_WINDOW);
            gr_wr_window <= mr_cmd_op == `QPNIC_MR_CMD_GRANT_WINDOW;
            gr_wr_idx   <= mr_idx;
            gr_wr_pd    <= st_pd;
            gr_wr_first <= st_dma[`QPNIC_FREG_PAGE_SHIFT +: `QPNIC_CAPS3_PT_ENTRIES_WIDTH];
            gr_wr_pages <= st_len[31:`QPNIC_FREG_PAGE_SHIFT];
        end
    end

    // ---- counters -----------------------------------------------------------
    // The events from the engines are registered first and counted a cycle
    // later: they come out of arbiters and handshakes (combinational paths
    // across the core). A byte count is registered as zero when its request
    // is not there. Doorbells are counted as they are offered (see db_offer
    // above).
    reg [1:0]  ev_fetch_read;
    reg [4:0]  ev_wqes;
    reg        ev_cqe, ev_notify, ev_lat_valid, ev_drop, ev_rnr;
    reg [3:0]  ev_wire;
    reg [1:0]  ev_dup;
    reg        ev_retx, ev_nak;
    reg [12:0] ev_wire_bytes;
    reg [15:0] ev_rd_bytes, ev_wr_bytes;
    reg [31:0] ev_lat_cycles;
    always @(posedge clk) begin
        if (rst) begin
            ev_fetch_read <= 2'd0;
            ev_wqes       <= 5'd0;
            ev_rd_bytes   <= 16'd0;
            ev_wr_bytes   <= 16'd0;
            ev_cqe        <= 1'b0;
            ev_notify     <= 1'b0;
            ev_lat_valid  <= 1'b0;
            ev_drop       <= 1'b0;
            ev_rnr        <= 1'b0;
            ev_wire       <= 4'd0;
            ev_dup        <= 2'd0;
            ev_retx       <= 1'b0;
            ev_nak        <= 1'b0;
            ev_wire_bytes <= 13'd0;
        end else begin
            ev_fetch_read <= cnt_fetch_read;
            ev_wqes       <= cnt_wqes_fetched;
            ev_rd_bytes   <= cnt_rd_valid ? cnt_rd_bytes : 16'd0;
            ev_wr_bytes   <= cnt_wr_valid ? cnt_wr_bytes : 16'd0;
            ev_cqe        <= cnt_cqe;
            ev_notify     <= cnt_notify;
            ev_lat_valid  <= lat_valid;
            ev_drop       <= cnt_drop;
            ev_rnr        <= cnt_rnr;
            ev_wire       <= cnt_wire;
            ev_dup        <= cnt_dup;
            ev_retx       <= cnt_retx;
            ev_nak        <= cnt_nak;
            ev_wire_bytes <= cnt_wire_payload;
        end
        ev_lat_cycles <= lat_cycles;
    end
    wire db_event = db_offer && !db_counted;

    // The counter RAM. Ten 64-bit counters (now eighteen) in flip-flops, each with its own
    // 64-bit adder and a place in the read multiplexer, were about 1,000
    // LUTs; here each counter is a word of one RAM (slot (_LO - CNT_BASE) / 8),
    // and a small accumulator in flip-flops per counter takes the events.
    // One pointer visits the CNT_SLOTS slots round robin, one a cycle, and
    // flushes the slot's accumulator through one 64-bit adder (Corundum's
    // statistics counters work so):
    //   cycle t:   the RAM reads slot fl_slot; the accumulator moves to fl_acc
    //              and restarts from this cycle's events;
    //   cycle t+1: the RAM word plus fl_acc is written back (cnt_sum).
    // A slot comes round every CNT_SLOTS cycles, and after reset the RAM
    // first clears itself for CNT_SLOTS cycles (slot k's first flush comes
    // CNT_SLOTS + k cycles after reset), so an accumulator holds the events
    // of at most 2 * CNT_SLOTS - 1 = 63 cycles: 6 bits more than one cycle's.
    // A _LO read taken in cycle r is answered by its slot's first flush
    // that starts after r (cnt_reply): the count then holds every event up
    // to cycle r, exactly, and the read waits at most CNT_SLOTS + 2 cycles.
    localparam integer ACC_X = CNT_AW + 1;         // log2(2 * CNT_SLOTS)
    localparam integer ACC_W = 32 + ACC_X;          // the widest: the latency sum's
    wire        cnt_busy;            // the RAM clears itself after reset
    reg  [CNT_AW-1:0] fl_slot;            // the slot read this cycle
    reg         fl_valid;            // last cycle read slot fl_wslot: write it
    reg  [CNT_AW-1:0] fl_wslot;
    reg  [ACC_W-1:0] fl_acc;              // its accumulator, as it was then
    reg         fl_hit;              // and a pending _LO read waits for it
    wire [63:0] fl_word;             // the RAM's word of slot fl_wslot

    reg [1+ACC_X-1:0]  acc_db, acc_cqes, acc_ntf, acc_drops, acc_rnrs;
    reg [1+ACC_X-1:0]  acc_fr_sent, acc_fr_recv, acc_fr_drop, acc_icrc;
    reg [2+ACC_X-1:0]  acc_dups;
    reg [1+ACC_X-1:0]  acc_retx, acc_naks;
    reg [13+ACC_X-1:0] acc_wire_bytes;
    reg [5+ACC_X-1:0]  acc_wqes;
    reg [2+ACC_X-1:0]  acc_fetch;
    reg [16+ACC_X-1:0] acc_rd, acc_wr;
    reg [32+ACC_X-1:0] acc_lat;

    // the accumulator of slot fl_slot
    reg [ACC_W-1:0] acc_now;
    always @* begin
        case (fl_slot)
        S_DOORBELLS:   acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_db};
        S_WQES:        acc_now = {{(ACC_W-5-ACC_X){1'b0}},  acc_wqes};
        S_FETCH_READS: acc_now = {{(ACC_W-2-ACC_X){1'b0}},  acc_fetch};
        S_RD_BYTES:    acc_now = {{(ACC_W-16-ACC_X){1'b0}}, acc_rd};
        S_WR_BYTES:    acc_now = {{(ACC_W-16-ACC_X){1'b0}}, acc_wr};
        S_CQES:        acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_cqes};
        S_NTF:         acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_ntf};
        S_LAT_SUM:     acc_now = {{(ACC_W-32-ACC_X){1'b0}}, acc_lat};
        S_DROPS:       acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_drops};
        S_RNRS:        acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_rnrs};
        S_FR_SENT:     acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_fr_sent};
        S_FR_RECV:     acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_fr_recv};
        S_FR_DROP:     acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_fr_drop};
        S_ICRC:        acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_icrc};
        S_DUPS:        acc_now = {{(ACC_W-2-ACC_X){1'b0}},  acc_dups};
        S_RETX:        acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_retx};
        S_NAKS:        acc_now = {{(ACC_W-1-ACC_X){1'b0}},  acc_naks};
        S_WIRE_BYTES:  acc_now = {{(ACC_W-13-ACC_X){1'b0}}, acc_wire_bytes};
        default:       acc_now = {ACC_W{1'b0}};
        endcase
    end

    // Each accumulator adds its events, or restarts from them when flushed.
    wire fl = !cnt_busy;             // a flush starts this cycle
    wire [31:0] ev_lat = ev_lat_valid ? ev_lat_cycles : 32'd0;
    always @(posedge clk) begin
        if (rst) begin
            acc_db <= 0; acc_wqes <= 0; acc_fetch <= 0; acc_rd <= 0; acc_wr <= 0;
            acc_cqes <= 0; acc_ntf <= 0; acc_lat <= 0; acc_drops <= 0; acc_rnrs <= 0;
            acc_fr_sent <= 0; acc_fr_recv <= 0; acc_fr_drop <= 0; acc_icrc <= 0; acc_dups <= 0; acc_retx <= 0;
            acc_naks <= 0; acc_wire_bytes <= 0;
        end else begin
            acc_db    <= (fl && fl_slot == S_DOORBELLS   ? 0 : acc_db)    + {{ACC_X{1'b0}}, db_event};
            acc_wqes  <= (fl && fl_slot == S_WQES        ? 0 : acc_wqes)  + {{ACC_X{1'b0}}, ev_wqes};
            acc_fetch <= (fl && fl_slot == S_FETCH_READS ? 0 : acc_fetch) + {{ACC_X{1'b0}}, ev_fetch_read};
            acc_rd    <= (fl && fl_slot == S_RD_BYTES    ? 0 : acc_rd)    + {{ACC_X{1'b0}}, ev_rd_bytes};
            acc_wr    <= (fl && fl_slot == S_WR_BYTES    ? 0 : acc_wr)    + {{ACC_X{1'b0}}, ev_wr_bytes};
            acc_cqes  <= (fl && fl_slot == S_CQES        ? 0 : acc_cqes)  + {{ACC_X{1'b0}}, ev_cqe};
            acc_ntf   <= (fl && fl_slot == S_NTF         ? 0 : acc_ntf)   + {{ACC_X{1'b0}}, ev_notify};
            acc_lat   <= (fl && fl_slot == S_LAT_SUM     ? 0 : acc_lat)   + {{ACC_X{1'b0}}, ev_lat};
            acc_drops <= (fl && fl_slot == S_DROPS       ? 0 : acc_drops) + {{ACC_X{1'b0}}, ev_drop};
            acc_rnrs  <= (fl && fl_slot == S_RNRS        ? 0 : acc_rnrs)  + {{ACC_X{1'b0}}, ev_rnr};
            acc_fr_sent <= (fl && fl_slot == S_FR_SENT ? 0 : acc_fr_sent) + {{ACC_X{1'b0}}, ev_wire[0]};
            acc_fr_recv <= (fl && fl_slot == S_FR_RECV ? 0 : acc_fr_recv) + {{ACC_X{1'b0}}, ev_wire[1]};
            acc_fr_drop <= (fl && fl_slot == S_FR_DROP ? 0 : acc_fr_drop) + {{ACC_X{1'b0}}, ev_wire[2]};
            acc_icrc    <= (fl && fl_slot == S_ICRC    ? 0 : acc_icrc)    + {{ACC_X{1'b0}}, ev_wire[3]};
            acc_dups    <= (fl && fl_slot == S_DUPS    ? 0 : acc_dups)    + {{ACC_X{1'b0}}, ev_dup};
            acc_retx    <= (fl && fl_slot == S_RETX    ? 0 : acc_retx)    + {{ACC_X{1'b0}}, ev_retx};
            acc_naks    <= (fl && fl_slot == S_NAKS    ? 0 : acc_naks)    + {{ACC_X{1'b0}}, ev_nak};
            acc_wire_bytes <= (fl && fl_slot == S_WIRE_BYTES ? 0 : acc_wire_bytes) + {{ACC_X{1'b0}}, ev_wire_bytes};
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            fl_slot  <= 0;
            fl_valid <= 1'b0;
            fl_hit   <= 1'b0;
        end else begin
            if (fl) fl_slot <= fl_slot + 1'b1;
            fl_valid <= fl;
            fl_hit   <= fl && cnt_rd_pending && fl_slot == cnt_rd_slot;
        end
        fl_wslot <= fl_slot;
        // zero while the RAM clears (a synchronous reset, rst included: the
        // clear writes from the cycle after it): with fl_word, zero from
        // reset until the first flush reads (RD_RST), cnt_sum is then zero,
        // which the clear writes as it is (ZERO_DATA)
        fl_acc   <= (fl && !rst) ? acc_now : {ACC_W{1'b0}};
    end
    assign cnt_sum = fl_word + {{(64-ACC_W){1'b0}}, fl_acc};
    assign cnt_reply = fl_hit;

    // The counters' words; every word is used only after its flush has read
    // it, never in the cycle it is written (RDW_OLD 0). Block RAM: on the
    // 25F LUTs are scarcer than RAM blocks.
    qpnic_ram_sdp #(.WIDTH(64), .AW(CNT_AW), .CLEAR(1), .RDW_OLD(0), .ZERO_DATA(1), .RD_RST(1),
                    .STYLE("block")) u_cnt_ram (
        .clk(clk), .rst(rst), .busy(cnt_busy),
        .wr_en(fl_valid), .wr_addr(fl_wslot), .wr_data(cnt_sum),
        .rd_en(fl), .rd_addr(fl_slot), .rd_data(fl_word)
    );

    always @(posedge clk) begin
        if (rst)
            cnt_cycles <= 64'd0;
        else
            cnt_cycles <= cnt_cycles + 64'd1;
    end

    // ---- notification latency: the sum is a RAM counter, the max a register
    always @(posedge clk) begin
        if (rst)
            cnt_lat_max <= 32'd0;
        else if (ev_lat_valid && ev_lat_cycles > cnt_lat_max)
            cnt_lat_max <= ev_lat_cycles;
    end
endmodule

`default_nettype wire
