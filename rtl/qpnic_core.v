// qpnic_core: the NIC without its carrier (simulator harness or board link).
// The host reaches it through MMIO; it reaches host memory through one DMA
// read channel and one DMA write channel; it tells the host about arms that
// fired through notifications (docs/internals.md "The NIC core's ports").
//
// Inside (docs/internals.md "Inside the core"):
//   qpnic_csr         host registers, MR staging, counters; the QP block
//                     goes to the QP table's host port, the CQ block to the
//                     CQ table's
//   qpnic_cq_table    every CQ's state in block RAM, behind request ports for
//                     the csr (CQ registers), the CQE writer and the firmware
//   qpnic_mr_table    the token (MR) table in block RAM and its check ports
//   qpnic_datapath    the QP table, WQE fetch, requester, responder, completer
//   qpnic_loopback    the datapath's packet port joined to itself, or
//   qpnic_wire        the packet port on RoCEv2 frames (WIRE builds)
//   qpnic_cqe_writer  CQEs into the CQ rings, CQE/OVERRUN events
//   qpnic_fw_if       firmware registers, event and notification FIFOs
//   qpnic_soc         PicoRV32 and its RAM, running the firmware
//   qpnic_dma_rd_arb  read masters 0 WQE fetch, 1 requester, 2 responder,
//                     3 CQE writer (the host's CI records)
//   qpnic_dma_wr_arb  write masters 0 responder, 1 completer, 2 CQE writer
//   qpnic_page_table  one per DMA channel, after its arbiter: page-table
//                     addresses (fast-registered regions) to device addresses
//
// Parameters
//   NUM_QP     queue pairs (1 .. MAX_NUM_QP = 256: the QP register block;
//              QP numbers are QW = 8 bits inside the core)
//   NUM_CQ     completion queues (1 .. MAX_NUM_CQ = 2^CQN_BITS = 256; the
//              firmware keeps state for up to 256)
//   NUM_MR     token (MR) table entries
//   NUM_PT     page table entries (the pages of fast-registered regions)
//   FW_WORDS   the soft core's RAM in 32-bit words (default: the layout's
//              FW_RAM_WORDS, which the firmware is linked for)
//   FW_HEX     firmware image for $readmemh (Verilator: +fw=PATH overrides)
//   WIRE       1: the RoCEv2 wire (qpnic_wire) and its peer table are
//              built: a packet to this NIC loops back inside it, one to
//              another NIC goes on the wire (qpnic_port_lane; the
//              simulator's build); 0: the loopback alone (the boards':
//              they have no network port yet)
//   PARTITION  0: the hardware partition (the requester, the responder and
//              the completer in RTL); 1: the firmware partition
//              (docs/partitions.md): they are the soft core's C
//              (fw/transport.c) behind qpnic_fw_transport, with the
//              firmware image built for it (FW_TP_RAM_WORDS). It has no
//              packet port, so it needs WIRE 0
//   ICE40      1: built for the iCE40, which has no LUT RAM and whose
//              UltraPlus runs the iCEBreaker at 12 MHz: area over clock.
//              The soft core has two register read ports (qpnic_soc
//              REGS_DUALPORT), so that its register file is block RAM; the
//              QP table's word goes from its RAM through the operation
//              unregistered (qpnic_qp_table WORD_REGS 0). Set by the iCE40
//              targets, the iCEBreaker and the firmware partition's
//              simulator; 0 (the ECP5 builds): one read port (LUT RAM),
//              the registers for 50 MHz
//   FW_LOAD    0: the soft core's RAM holds FW_HEX from configuration on;
//              1: it starts empty, in the UltraPlus's SPRAM, and the board
//              loads the image through fw_ld_* (qpnic_soc, qpnic_spi_boot)
//
// Ports
//   clk, rst                          clock, synchronous active-high reset
//   mmio_valid/ready, mmio_we, mmio_addr, mmio_wdata   a register access
//   mmio_rvalid, mmio_rdata           read reply, one pulse, some cycles
//                                     after the read is accepted (1 for most
//                                     registers, 2 or more for the QP and CQ
//                                     blocks, which their tables answer);
//                                     mmio_ready stays low until then
//   dmar_req_*, dmar_rsp_*            DMA read channel, tagged by read
//                                     master: several reads in flight
//   dmaw_req_*, dmaw_dat_*            DMA write channel; the carrier takes
//                                     a write's data beats only after it
//                                     took the write's request (the data
//                                     may be offered first: a page-table
//                                     request waits a cycle in rd_pt/wr_pt)
//   ntf_valid/ready, ntf_data         notifications (struct notify)
//   wire_en                           WIRE builds: every packet goes to
//                                     the wire, this NIC's own included
//                                     (held from before rst ends)
//   cfg_mac, cfg_ip                   this NIC's addresses on the wire
//                                     (peer table entry 0)
//   ftx_*, frx_*                      the wire's RoCEv2 frames out and in
//                                     (first byte in lane 0, keep, last)
//   wire_cnt                          the wire's pulses: {a frame dropped
//                                     for its ICRC, for its header, as not
//                                     addressed here; a frame kept; a
//                                     frame sent}
//   fw_ld_valid, fw_ld_addr, fw_ld_data   FW_LOAD 1: one word of the
//                                     firmware image into the soft core's
//                                     RAM, while rst holds the NIC
//   idle                              nothing in flight: no MMIO, DMA, event
//                                     or notification pending, every engine
//                                     idle, and the firmware's last EVT_POP
//                                     found nothing
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_core #(
    parameter NUM_QP = 8,
    parameter NUM_CQ = 8,
    parameter NUM_MR = 16,
    parameter NUM_PT = `QPNIC_NUM_PT,
    parameter FW_WORDS = `QPNIC_FW_RAM_WORDS,
    parameter FW_HEX = "qpnic-fw.hex",
    parameter WIRE = 0,
    parameter PARTITION = 0,
    parameter ICE40 = 0,
    parameter FW_LOAD = 0
) (
    input  wire        clk,
    input  wire        rst,

    input  wire        mmio_valid,
    output wire        mmio_ready,
    input  wire        mmio_we,
    input  wire [15:0] mmio_addr,
    input  wire [31:0] mmio_wdata,
    output wire        mmio_rvalid,
    output wire [31:0] mmio_rdata,

    output wire        dmar_req_valid,
    input  wire        dmar_req_ready,
    output wire [63:0] dmar_req_addr,
    output wire [15:0] dmar_req_len,
    output wire [`QPNIC_DMA_RD_TAG_BITS-1:0] dmar_req_tag,
    input  wire        dmar_rsp_valid,
    output wire        dmar_rsp_ready,
    input  wire [31:0] dmar_rsp_data,
    input  wire [3:0]  dmar_rsp_keep,
    input  wire        dmar_rsp_last,
    input  wire [`QPNIC_DMA_RD_TAG_BITS-1:0] dmar_rsp_tag,

    output wire        dmaw_req_valid,
    input  wire        dmaw_req_ready,
    output wire [63:0] dmaw_req_addr,
    output wire [15:0] dmaw_req_len,
    output wire        dmaw_dat_valid,
    input  wire        dmaw_dat_ready,
    output wire [31:0] dmaw_dat_data,
    output wire [3:0]  dmaw_dat_keep,
    output wire        dmaw_dat_last,

    output wire        ntf_valid,
    input  wire        ntf_ready,
    output wire [31:0] ntf_data,

    // The RoCEv2 wire, in a WIRE build (docs/wire.md); a build without it
    // ignores these inputs and holds the outputs at 0.
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

    // FW_LOAD builds: the firmware image into the soft core's RAM, while
    // rst is high (qpnic_soc); others ignore them
    input  wire        fw_ld_valid,
    input  wire [15:0] fw_ld_addr,
    input  wire [31:0] fw_ld_data,

    output wire        idle
);
    // bits of a QP number inside the core: enough for MAX_NUM_QP (the
    // carried QP numbers, BTH and CQE, are QPN_BITS wide)
    localparam QW = 8;

    // ---- csr -> the QP table's host port (in the datapath) -----------------
    wire          qph_valid, qph_ready, qph_we, qph_rvalid;
    wire [QW-1:0] qph_idx;
    wire [`QPNIC_QP_OFFSET_BITS-1:0] qph_off;
    wire [31:0]   qph_wdata, qph_rdata;

    // ---- csr -> token table updates, datapath <-> token table checks ---------
    wire         mr_upd_valid, mr_upd_ready, mr_upd_write;
    wire [`QPNIC_TOKEN_INDEX_BITS-1:0] mr_upd_idx;
    wire [63:0]  mr_upd_va, mr_upd_dma;
    wire [31:0]  mr_upd_len, mr_upd_lkey, mr_upd_rkey;
    wire [2:0]   mr_upd_access;
    wire [1:0]   chk_valid, chk_remote, chk_inval, res_valid, res_ok;
    wire [2*`QPNIC_PD_BITS-1:0] chk_pd;
    wire [`QPNIC_PD_BITS-1:0] mr_upd_pd;
    wire             fr_valid, fr_ready;
    wire [`QPNIC_TOKEN_INDEX_BITS-1:0] fr_idx;
    wire [`QPNIC_MR_CTX_BITS-1:0] fr_entry;   // a FAST_REG's entry (qpnic_mr_pack)
    wire [2*32-1:0] chk_token, chk_len;
    wire [2*64-1:0] chk_va, res_dev;
    wire [2*3-1:0]  chk_need;

    // ---- datapath -> csr counters --------------------------------------------
    wire [1:0] cnt_fetch_read;
    wire       cnt_drop;
    wire       cnt_rnr;
    wire [1:0] cnt_dup;
    wire       cnt_retx, cnt_nak;
    wire [12:0] cnt_wire_payload;   // the wire's frames' payload bytes (0 without it)
    wire       mr_fence_busy;   // STATUS.mr_fence
    wire [4:0] cnt_wqes_fetched;

    // ---- datapath -> CQE writer --------------------------------------------
    wire         cqe_valid, cqe_ready;
    wire [`QPNIC_CQN_BITS-1:0] cqe_cqn;
    wire [127:0] cqe_data;

    // ---- the CQ table's clients: csr (host), CQE writer, firmware --------------
    wire         cqt_h_valid, cqt_h_ready, cqt_h_we, cqt_h_rvalid;
    wire [`QPNIC_CQN_BITS-1:0] cqt_h_idx;
    wire [`QPNIC_CQ_OFFSET_BITS-1:0] cqt_h_off;
    wire [31:0]  cqt_h_wdata, cqt_h_rdata;
    wire         cqt_c_valid, cqt_c_ready, cqt_c_err, cqt_c_sol, cqt_c_rvalid;
    wire [1:0]   cqt_c_op;
    wire [`QPNIC_CQN_BITS-1:0] cqt_c_idx;
    wire [63:0]  cqt_c_base;
    wire [`QPNIC_CQ_CTX_LOG_DEPTH_WIDTH-1:0] cqt_c_log;
    wire         cqt_c_en, cqt_c_ovr, cqt_c_armed;
    wire [`QPNIC_CQ_CTX_PI_WIDTH-1:0] cqt_c_pi, cqt_f_pi;
    wire [`QPNIC_CQ_CTX_CI_WIDTH-1:0] cqt_c_ci, cqt_f_ci, cqt_c_arg;
    wire         cqt_f_valid, cqt_f_ready, cqt_f_rvalid;
    wire [1:0]   cqt_f_op;
    wire [`QPNIC_CQN_BITS-1:0] cqt_f_idx;
    wire [31:0]  cqt_f_err, cqt_f_sol;
    wire         lat_valid, cnt_cqe, cqt_idle;
    wire [31:0]  lat_cycles;

    // ---- events, firmware ------------------------------------------------------
    wire        arm_evt_valid, arm_evt_ready;
    wire [31:0] arm_evt_data;
    wire        cqe_evt_valid, cqe_evt_ready;
    wire [31:0] cqe_evt_data;
    wire        fw_ready, fw_waiting, evt_empty, ntf_empty, cnt_notify;
    wire [31:0] cycles_lo;
    wire        io_valid, io_ready;
    wire [7:0]  io_addr;
    wire [3:0]  io_wstrb;
    wire [31:0] io_wdata, io_rdata;
    // The core's trap output: no port of qpnic_core carries it (a trapped
    // firmware shows as a core that never becomes idle); kept for waveforms.
    /* verilator lint_off UNUSEDSIGNAL */
    wire        fw_trap;
    /* verilator lint_on UNUSEDSIGNAL */

    // ---- DMA masters -------------------------------------------------------------
    // read masters 0..2 are the datapath's, 3 the CQE writer's
    wire [3:0]    rd_req_valid, rd_req_ready, rd_rsp_valid, rd_rsp_ready;
    wire [4*64-1:0] rd_req_addr;
    wire [4*16-1:0] rd_req_len;
    wire [31:0]   rd_rsp_data;
    wire [3:0]    rd_rsp_keep;
    wire          rd_rsp_last;

    wire [1:0]    wr_req_valid, wr_req_ready, wr_dat_valid, wr_dat_ready, wr_dat_last;
    wire [2*64-1:0] wr_req_addr;
    wire [2*16-1:0] wr_req_len;
    wire [2*32-1:0] wr_dat_data;
    wire [2*4-1:0]  wr_dat_keep;

    wire [63:0]   ci_rec;
    wire [3:0]    path_mtu;
    wire          cw_req_valid, cw_req_ready, cw_dat_valid, cw_dat_ready, cw_dat_last;
    wire [63:0]   cw_req_addr;
    wire [15:0]   cw_req_len;
    wire [31:0]   cw_dat_data;
    wire [3:0]    cw_dat_keep;

    wire          cnt_rd_valid, cnt_wr_valid;
    wire [15:0]   cnt_rd_bytes, cnt_wr_bytes;

    // ---- the datapath's packet port -------------------------------------------
    wire        txq_valid, txq_ready, txq_last, rxq_valid, rxq_ready, rxq_last;
    wire        txs_valid, txs_ready, txs_last, rxs_valid, rxs_ready, rxs_last;
    wire [31:0] txq_data, rxq_data, txs_data, rxs_data;
    wire [3:0]  txq_keep, rxq_keep, txs_keep, rxs_keep;
    wire        port_idle;   // the wire holds no frame (always, on the loopback)
    wire        wire_on = (WIRE != 0) && wire_en;   // the port is on the wire

    wire unused_wr_tag;   // the write channel has no tags
    wire dp_idle, cqw_idle, rd_arb_idle, wr_arb_idle, rd_pt_idle, wr_pt_idle;

    // ---- csr -> the page tables; arbiters -> page tables -> the ports ---------
    wire         pt_wr_en;
    wire [`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0] pt_wr_idx;
    wire [`QPNIC_PT_PFN_BITS-1:0] pt_wr_pfn;
    // csr -> the requester's grant RAM (MR_CMD GRANT)
    wire         gr_wr_en, gr_wr_window;
    wire [`QPNIC_TOKEN_INDEX_BITS-1:0] gr_wr_idx;
    wire [`QPNIC_PD_BITS-1:0] gr_wr_pd;
    wire [`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0] gr_wr_first;
    wire [31-`QPNIC_FREG_PAGE_SHIFT:0] gr_wr_pages;
    wire         ar_req_valid, ar_req_ready, aw_req_valid, aw_req_ready;
    wire [63:0]  ar_req_addr, aw_req_addr;
    wire [15:0]  ar_req_len, aw_req_len;
    wire [`QPNIC_DMA_RD_TAG_BITS-1:0] ar_req_tag;

    // Idle apart from MMIO (STATUS.idle), and idle as a whole (the port).
    wire engines_idle = dp_idle && cqw_idle && cqt_idle && rd_arb_idle && wr_arb_idle &&
                        rd_pt_idle && wr_pt_idle && evt_empty && fw_waiting && ntf_empty && port_idle;
    assign idle = engines_idle && !mmio_valid && !mmio_rvalid;

    wire [`QPNIC_NUM_PEERS*48-1:0] peer_mac;
    wire [`QPNIC_NUM_PEERS*32-1:0] peer_ip;
    qpnic_csr #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .NUM_PT(NUM_PT),
                .QW(QW), .WIRE(WIRE)) csr (
        .clk(clk), .rst(rst),
        .mmio_valid(mmio_valid), .mmio_ready(mmio_ready), .mmio_we(mmio_we),
        .mmio_addr(mmio_addr), .mmio_wdata(mmio_wdata),
        .mmio_rvalid(mmio_rvalid), .mmio_rdata(mmio_rdata),
        .fw_ready(fw_ready), .nic_idle(engines_idle), .mr_fence(mr_fence_busy),
        .cqt_valid(cqt_h_valid), .cqt_ready(cqt_h_ready), .cqt_we(cqt_h_we),
        .cqt_idx(cqt_h_idx), .cqt_off(cqt_h_off), .cqt_wdata(cqt_h_wdata),
        .cqt_rvalid(cqt_h_rvalid), .cqt_rdata(cqt_h_rdata),
        .qph_valid(qph_valid), .qph_ready(qph_ready), .qph_we(qph_we),
        .qph_idx(qph_idx), .qph_off(qph_off), .qph_wdata(qph_wdata),
        .qph_rvalid(qph_rvalid), .qph_rdata(qph_rdata),
        .mr_upd_valid(mr_upd_valid), .mr_upd_ready(mr_upd_ready),
        .mr_upd_idx(mr_upd_idx), .mr_upd_write(mr_upd_write),
        .mr_upd_va(mr_upd_va), .mr_upd_len(mr_upd_len), .mr_upd_dma(mr_upd_dma),
        .mr_upd_lkey(mr_upd_lkey), .mr_upd_rkey(mr_upd_rkey),
        .mr_upd_access(mr_upd_access), .mr_upd_pd(mr_upd_pd),
        .pt_wr_en(pt_wr_en), .pt_wr_idx(pt_wr_idx), .pt_wr_pfn(pt_wr_pfn),
        .gr_wr_en(gr_wr_en), .gr_wr_window(gr_wr_window), .gr_wr_idx(gr_wr_idx), .gr_wr_pd(gr_wr_pd),
        .gr_wr_first(gr_wr_first), .gr_wr_pages(gr_wr_pages),
        .cnt_fetch_read(cnt_fetch_read), .cnt_wqes_fetched(cnt_wqes_fetched),
        .cnt_cqe(cnt_cqe), .cnt_drop(cnt_drop), .cnt_rnr(cnt_rnr),
        .cnt_wire({wire_cnt[4], wire_cnt[3] || wire_cnt[2], wire_cnt[1:0]}), .cnt_dup(cnt_dup), .cnt_retx(cnt_retx),
        .cnt_nak(cnt_nak), .cnt_wire_payload(cnt_wire_payload),
        .cnt_rd_valid(cnt_rd_valid), .cnt_rd_bytes(cnt_rd_bytes),
        .cnt_wr_valid(cnt_wr_valid), .cnt_wr_bytes(cnt_wr_bytes),
        .cnt_notify(cnt_notify), .lat_valid(lat_valid), .lat_cycles(lat_cycles),
        .cycles_lo(cycles_lo), .ci_rec(ci_rec), .path_mtu(path_mtu),
        .cfg_mac(cfg_mac), .cfg_ip(cfg_ip), .peer_mac(peer_mac), .peer_ip(peer_ip)
    );

    qpnic_cq_table #(.NUM_CQ(NUM_CQ)) cq_table (
        .clk(clk), .rst(rst),
        .h_valid(cqt_h_valid), .h_ready(cqt_h_ready), .h_we(cqt_h_we),
        .h_idx(cqt_h_idx), .h_off(cqt_h_off), .h_wdata(cqt_h_wdata),
        .h_rvalid(cqt_h_rvalid), .h_rdata(cqt_h_rdata),
        .arm_evt_valid(arm_evt_valid), .arm_evt_ready(arm_evt_ready),
        .arm_evt_data(arm_evt_data),
        .c_valid(cqt_c_valid), .c_ready(cqt_c_ready), .c_op(cqt_c_op),
        .c_idx(cqt_c_idx), .c_err(cqt_c_err), .c_sol(cqt_c_sol), .c_arg(cqt_c_arg),
        .c_rvalid(cqt_c_rvalid), .c_base(cqt_c_base), .c_log(cqt_c_log),
        .c_en(cqt_c_en), .c_ovr(cqt_c_ovr), .c_pi(cqt_c_pi), .c_ci(cqt_c_ci),
        .c_armed(cqt_c_armed),
        .f_valid(cqt_f_valid), .f_ready(cqt_f_ready), .f_op(cqt_f_op),
        .f_idx(cqt_f_idx), .f_rvalid(cqt_f_rvalid), .f_pi(cqt_f_pi),
        .f_ci(cqt_f_ci), .f_err(cqt_f_err), .f_sol(cqt_f_sol),
        .ntf_valid(cnt_notify), .ntf_cqn(ntf_data[`QPNIC_NOTIFY_CQN]),
        .cycles(cycles_lo), .lat_valid(lat_valid), .lat_cycles(lat_cycles),
        .idle(cqt_idle)
    );

    qpnic_mr_table #(.NUM_MR(NUM_MR), .PORTS(2)) mr_table (
        .clk(clk), .rst(rst),
        .upd_valid(mr_upd_valid), .upd_ready(mr_upd_ready), .upd_idx(mr_upd_idx),
        .upd_write(mr_upd_write), .upd_va(mr_upd_va), .upd_len(mr_upd_len),
        .upd_dma(mr_upd_dma), .upd_lkey(mr_upd_lkey), .upd_rkey(mr_upd_rkey),
        .upd_access(mr_upd_access), .upd_pd(mr_upd_pd), .chk_pd(chk_pd),
        .fr_valid(fr_valid), .fr_ready(fr_ready), .fr_idx(fr_idx), .fr_entry(fr_entry),
        .chk_valid(chk_valid), .chk_token(chk_token), .chk_va(chk_va),
        .chk_len(chk_len), .chk_remote(chk_remote), .chk_need(chk_need), .chk_inval(chk_inval),
        .res_valid(res_valid), .res_ok(res_ok), .res_dev(res_dev)
    );

    // (with the wire, a response port FIFO of two 1,024-byte halves: a
    // segmented READ response puts headers between its data, and the
    // responder's gather then still keeps two reads in flight)
    qpnic_datapath #(.NUM_QP(NUM_QP), .NUM_CQ(NUM_CQ), .NUM_MR(NUM_MR), .QW(QW), .WIRE(WIRE),
                     .PORT_LOG_DEPTH(WIRE != 0 ? 9 : 8), .PARTITION(PARTITION),
                     .TABLE_REGS(ICE40 == 0)) datapath (
        .clk(clk), .rst(rst),
        .gr_wr_en(gr_wr_en), .gr_wr_window(gr_wr_window), .gr_wr_idx(gr_wr_idx), .gr_wr_pd(gr_wr_pd),
        .gr_wr_first(gr_wr_first), .gr_wr_pages(gr_wr_pages),
        .h_valid(qph_valid), .h_ready(qph_ready), .h_we(qph_we), .h_idx(qph_idx),
        .h_off(qph_off), .h_wdata(qph_wdata), .h_rvalid(qph_rvalid), .h_rdata(qph_rdata),
        .chk_valid(chk_valid), .chk_token(chk_token), .chk_va(chk_va),
        .chk_len(chk_len), .chk_remote(chk_remote), .chk_need(chk_need), .chk_inval(chk_inval), .chk_pd(chk_pd),
        .fr_valid(fr_valid), .fr_ready(fr_ready), .fr_idx(fr_idx), .fr_entry(fr_entry),
        .res_valid(res_valid), .res_ok(res_ok), .res_dev(res_dev),
        .cnt_fetch_read(cnt_fetch_read), .cnt_wqes_fetched(cnt_wqes_fetched), .cnt_drop(cnt_drop),
        .cnt_rnr(cnt_rnr), .cnt_dup(cnt_dup), .cnt_retx(cnt_retx), .cnt_nak(cnt_nak), .rto_en(wire_on),
        .path_mtu(path_mtu),
        .mr_fence_start(mr_upd_valid && mr_upd_ready && !mr_upd_write),
        .mr_fence_busy(mr_fence_busy),
        .cqe_valid(cqe_valid), .cqe_ready(cqe_ready),
        .cqe_cqn(cqe_cqn), .cqe_data(cqe_data),
        .rd_req_valid(rd_req_valid[2:0]), .rd_req_ready(rd_req_ready[2:0]),
        .rd_req_addr(rd_req_addr[3*64-1:0]), .rd_req_len(rd_req_len[3*16-1:0]),
        .rd_rsp_valid(rd_rsp_valid[2:0]), .rd_rsp_ready(rd_rsp_ready[2:0]),
        .rd_rsp_data(rd_rsp_data), .rd_rsp_keep(rd_rsp_keep),
        .rd_rsp_last(rd_rsp_last),
        .wr_req_valid(wr_req_valid), .wr_req_ready(wr_req_ready),
        .wr_req_addr(wr_req_addr), .wr_req_len(wr_req_len),
        .wr_dat_valid(wr_dat_valid), .wr_dat_ready(wr_dat_ready),
        .wr_dat_data(wr_dat_data), .wr_dat_keep(wr_dat_keep),
        .wr_dat_last(wr_dat_last),
        .txq_valid(txq_valid), .txq_ready(txq_ready), .txq_data(txq_data),
        .txq_keep(txq_keep), .txq_last(txq_last),
        .rxq_valid(rxq_valid), .rxq_ready(rxq_ready), .rxq_data(rxq_data),
        .rxq_keep(rxq_keep), .rxq_last(rxq_last),
        .txs_valid(txs_valid), .txs_ready(txs_ready), .txs_data(txs_data),
        .txs_keep(txs_keep), .txs_last(txs_last),
        .rxs_valid(rxs_valid), .rxs_ready(rxs_ready), .rxs_data(rxs_data),
        .rxs_keep(rxs_keep), .rxs_last(rxs_last),
        .tp_valid(io_valid && io_sel), .tp_ready(tp_ready), .tp_addr(io_addr),
        .tp_wstrb(io_wstrb), .tp_wdata(io_wdata), .tp_rdata(tp_rdata),
        .idle(dp_idle)
    );

    // ---- what attaches to the packet port -----------------------------------
    // A build without the wire: the loopback, nothing else. A WIRE build:
    // each lane goes through a qpnic_port_lane, which loops a packet to
    // this NIC (LRH peer 0) back inside it and sends one to another NIC to
    // the wire (every packet, with wire_en); the wire's peer table is the
    // CSR's (docs/wire.md, "Two NICs").
    wire w_idle;
    generate if (WIRE != 0) begin : g_wire
        wire        w_txq_valid, w_txq_ready, w_txq_last, w_txs_valid, w_txs_ready, w_txs_last;
        wire [31:0] w_txq_data, w_txs_data;
        wire [3:0]  w_txq_keep, w_txs_keep;
        wire        w_rxq_valid, w_rxq_ready, w_rxq_last, w_rxs_valid, w_rxs_ready, w_rxs_last;
        wire [31:0] w_rxq_data, w_rxs_data;
        wire [3:0]  w_rxq_keep, w_rxs_keep;
        wire        q_idle, s_idle, wp_idle;
        qpnic_port_lane lane_req (
            .clk(clk), .rst(rst), .force_wire(wire_on),
            .tx_valid(txq_valid), .tx_ready(txq_ready), .tx_data(txq_data), .tx_keep(txq_keep),
            .tx_last(txq_last),
            .w_tx_valid(w_txq_valid), .w_tx_ready(w_txq_ready), .w_tx_data(w_txq_data),
            .w_tx_keep(w_txq_keep), .w_tx_last(w_txq_last),
            .w_rx_valid(w_rxq_valid), .w_rx_ready(w_rxq_ready), .w_rx_data(w_rxq_data),
            .w_rx_keep(w_rxq_keep), .w_rx_last(w_rxq_last),
            .rx_valid(rxq_valid), .rx_ready(rxq_ready), .rx_data(rxq_data), .rx_keep(rxq_keep),
            .rx_last(rxq_last), .idle(q_idle));
        qpnic_port_lane lane_rsp (
            .clk(clk), .rst(rst), .force_wire(wire_on),
            .tx_valid(txs_valid), .tx_ready(txs_ready), .tx_data(txs_data), .tx_keep(txs_keep),
            .tx_last(txs_last),
            .w_tx_valid(w_txs_valid), .w_tx_ready(w_txs_ready), .w_tx_data(w_txs_data),
            .w_tx_keep(w_txs_keep), .w_tx_last(w_txs_last),
            .w_rx_valid(w_rxs_valid), .w_rx_ready(w_rxs_ready), .w_rx_data(w_rxs_data),
            .w_rx_keep(w_rxs_keep), .w_rx_last(w_rxs_last),
            .rx_valid(rxs_valid), .rx_ready(rxs_ready), .rx_data(rxs_data), .rx_keep(rxs_keep),
            .rx_last(rxs_last), .idle(s_idle));
        qpnic_wire wire_port (
            .clk(clk), .rst(rst),
            .cfg_mac(cfg_mac), .cfg_ip(cfg_ip), .peer_mac(peer_mac), .peer_ip(peer_ip),
            .txq_valid(w_txq_valid), .txq_ready(w_txq_ready), .txq_data(w_txq_data),
            .txq_keep(w_txq_keep), .txq_last(w_txq_last),
            .txs_valid(w_txs_valid), .txs_ready(w_txs_ready), .txs_data(w_txs_data),
            .txs_keep(w_txs_keep), .txs_last(w_txs_last),
            .rxq_valid(w_rxq_valid), .rxq_ready(w_rxq_ready), .rxq_data(w_rxq_data),
            .rxq_keep(w_rxq_keep), .rxq_last(w_rxq_last),
            .rxs_valid(w_rxs_valid), .rxs_ready(w_rxs_ready), .rxs_data(w_rxs_data),
            .rxs_keep(w_rxs_keep), .rxs_last(w_rxs_last),
            .ftx_valid(ftx_valid), .ftx_ready(ftx_ready), .ftx_data(ftx_data),
            .ftx_keep(ftx_keep), .ftx_last(ftx_last),
            .frx_valid(frx_valid), .frx_ready(frx_ready), .frx_data(frx_data),
            .frx_keep(frx_keep), .frx_last(frx_last),
            .cnt_tx_frame(wire_cnt[0]), .cnt_rx_frame(wire_cnt[1]), .cnt_drop_addr(wire_cnt[2]),
            .cnt_drop_hdr(wire_cnt[3]), .cnt_drop_icrc(wire_cnt[4]), .cnt_tx_payload(cnt_wire_payload),
            .idle(wp_idle));
        assign w_idle = q_idle && s_idle && wp_idle;
    end else begin : g_no_wire
        qpnic_loopback loopback (
            .txq_valid(txq_valid), .txq_ready(txq_ready), .txq_data(txq_data),
            .txq_keep(txq_keep), .txq_last(txq_last),
            .txs_valid(txs_valid), .txs_ready(txs_ready), .txs_data(txs_data),
            .txs_keep(txs_keep), .txs_last(txs_last),
            .rxq_valid(rxq_valid), .rxq_ready(rxq_ready), .rxq_data(rxq_data),
            .rxq_keep(rxq_keep), .rxq_last(rxq_last),
            .rxs_valid(rxs_valid), .rxs_ready(rxs_ready), .rxs_data(rxs_data),
            .rxs_keep(rxs_keep), .rxs_last(rxs_last));
        assign w_idle    = 1'b1;
        assign frx_ready = 1'b0;
        assign ftx_valid = 1'b0;
        assign ftx_data  = 32'd0;
        assign ftx_keep  = 4'd0;
        assign ftx_last  = 1'b0;
        assign wire_cnt  = 5'd0;
        assign cnt_wire_payload = 13'd0;
        // lint: the wire's inputs, which a build without it does not read
        wire unused_wire = &{1'b0, wire_en, cfg_mac, cfg_ip, peer_mac, peer_ip, ftx_ready,
                             frx_valid, frx_data, frx_keep, frx_last};
    end endgenerate
    assign port_idle = w_idle;

    qpnic_cqe_writer cqe_writer (
        .clk(clk), .rst(rst),
        .cqe_valid(cqe_valid), .cqe_ready(cqe_ready),
        .cqe_cqn(cqe_cqn), .cqe_data(cqe_data),
        .t_valid(cqt_c_valid), .t_ready(cqt_c_ready), .t_op(cqt_c_op),
        .t_idx(cqt_c_idx), .t_err(cqt_c_err), .t_sol(cqt_c_sol), .t_arg(cqt_c_arg),
        .t_rvalid(cqt_c_rvalid), .t_base(cqt_c_base), .t_log(cqt_c_log),
        .t_en(cqt_c_en), .t_ovr(cqt_c_ovr), .t_pi(cqt_c_pi), .t_ci(cqt_c_ci),
        .t_armed(cqt_c_armed),
        .cnt_cqe(cnt_cqe),
        .rec_base(ci_rec),
        .dmar_req_valid(rd_req_valid[3]), .dmar_req_ready(rd_req_ready[3]),
        .dmar_req_addr(rd_req_addr[3*64 +: 64]), .dmar_req_len(rd_req_len[3*16 +: 16]),
        .dmar_rsp_valid(rd_rsp_valid[3]), .dmar_rsp_ready(rd_rsp_ready[3]),
        .dmar_rsp_data(rd_rsp_data), .dmar_rsp_keep(rd_rsp_keep), .dmar_rsp_last(rd_rsp_last),
        .dmaw_req_valid(cw_req_valid), .dmaw_req_ready(cw_req_ready),
        .dmaw_req_addr(cw_req_addr), .dmaw_req_len(cw_req_len),
        .dmaw_dat_valid(cw_dat_valid), .dmaw_dat_ready(cw_dat_ready),
        .dmaw_dat_data(cw_dat_data), .dmaw_dat_keep(cw_dat_keep),
        .dmaw_dat_last(cw_dat_last),
        .evt_valid(cqe_evt_valid), .evt_ready(cqe_evt_ready),
        .evt_data(cqe_evt_data),
        .idle(cqw_idle)
    );

    qpnic_fw_if #(.NUM_CQ(NUM_CQ)) fw_if (
        .clk(clk), .rst(rst),
        .bus_valid(io_valid && !io_sel), .bus_ready(fi_ready), .bus_addr(io_addr),
        .bus_wstrb(io_wstrb), .bus_wdata(io_wdata), .bus_rdata(fi_rdata),
        .arm_evt_valid(arm_evt_valid), .arm_evt_ready(arm_evt_ready),
        .arm_evt_data(arm_evt_data),
        .cqe_evt_valid(cqe_evt_valid), .cqe_evt_ready(cqe_evt_ready),
        .cqe_evt_data(cqe_evt_data),
        .t_valid(cqt_f_valid), .t_ready(cqt_f_ready), .t_op(cqt_f_op),
        .t_idx(cqt_f_idx), .t_rvalid(cqt_f_rvalid), .t_pi(cqt_f_pi),
        .t_ci(cqt_f_ci), .t_err(cqt_f_err), .t_sol(cqt_f_sol),
        .cycles_lo(cycles_lo),
        .fw_ready(fw_ready),
        .ntf_valid(ntf_valid), .ntf_ready(ntf_ready), .ntf_data(ntf_data),
        .cnt_notify(cnt_notify),
        .fw_waiting(fw_waiting), .evt_empty(evt_empty), .ntf_empty(ntf_empty)
    );

    // the soft core's two register windows: qpnic_fw_if's, and the
    // transport port's (answered by the datapath)
    wire        io_sel, fi_ready, tp_ready;
    wire [31:0] fi_rdata, tp_rdata;
    assign io_ready = io_sel ? tp_ready : fi_ready;
    assign io_rdata = io_sel ? tp_rdata : fi_rdata;

    qpnic_soc #(.FW_WORDS(FW_WORDS), .FW_HEX(FW_HEX), .REGS_DUALPORT(ICE40),
                .FW_LOAD(FW_LOAD)) soc (
        .clk(clk), .rst(rst),
        .io_valid(io_valid), .io_ready(io_ready), .io_sel(io_sel), .io_addr(io_addr),
        .io_wstrb(io_wstrb), .io_wdata(io_wdata), .io_rdata(io_rdata),
        .fw_ld_valid(fw_ld_valid), .fw_ld_addr(fw_ld_addr), .fw_ld_data(fw_ld_data),
        .trap(fw_trap)
    );

    qpnic_dma_rd_arb #(.N(4), .TW(`QPNIC_DMA_RD_TAG_BITS)) rd_arb (
        .clk(clk), .rst(rst),
        .s_req_valid(rd_req_valid), .s_req_ready(rd_req_ready),
        .s_req_addr(rd_req_addr), .s_req_len(rd_req_len),
        .s_rsp_valid(rd_rsp_valid), .s_rsp_ready(rd_rsp_ready),
        .s_rsp_data(rd_rsp_data), .s_rsp_keep(rd_rsp_keep),
        .s_rsp_last(rd_rsp_last),
        .m_req_valid(ar_req_valid), .m_req_ready(ar_req_ready),
        .m_req_addr(ar_req_addr), .m_req_len(ar_req_len), .m_req_tag(ar_req_tag),
        .m_rsp_valid(dmar_rsp_valid), .m_rsp_ready(dmar_rsp_ready),
        .m_rsp_data(dmar_rsp_data), .m_rsp_keep(dmar_rsp_keep),
        .m_rsp_last(dmar_rsp_last), .m_rsp_tag(dmar_rsp_tag),
        .cnt_valid(cnt_rd_valid), .cnt_bytes(cnt_rd_bytes),
        .idle(rd_arb_idle)
    );

    // Write master 2 is the CQE writer.
    qpnic_dma_wr_arb #(.N(3)) wr_arb (
        .clk(clk), .rst(rst),
        .s_req_valid({cw_req_valid, wr_req_valid}),
        .s_req_ready({cw_req_ready, wr_req_ready}),
        .s_req_addr({cw_req_addr, wr_req_addr}),
        .s_req_len({cw_req_len, wr_req_len}),
        .s_dat_valid({cw_dat_valid, wr_dat_valid}),
        .s_dat_ready({cw_dat_ready, wr_dat_ready}),
        .s_dat_data({cw_dat_data, wr_dat_data}),
        .s_dat_keep({cw_dat_keep, wr_dat_keep}),
        .s_dat_last({cw_dat_last, wr_dat_last}),
        .m_req_valid(aw_req_valid), .m_req_ready(aw_req_ready),
        .m_req_addr(aw_req_addr), .m_req_len(aw_req_len),
        .m_dat_valid(dmaw_dat_valid), .m_dat_ready(dmaw_dat_ready),
        .m_dat_data(dmaw_dat_data), .m_dat_keep(dmaw_dat_keep),
        .m_dat_last(dmaw_dat_last),
        .cnt_valid(cnt_wr_valid), .cnt_bytes(cnt_wr_bytes),
        .idle(wr_arb_idle)
    );

    // Each channel's requests through its copy of the page table. A write
    // request's data waits for the request (the carrier takes the data
    // only after the request), so delaying the request delays nothing else.
    qpnic_page_table #(.NUM_PT(NUM_PT), .TW(`QPNIC_DMA_RD_TAG_BITS)) rd_pt (
        .clk(clk), .rst(rst),
        .pt_wr_en(pt_wr_en), .pt_wr_idx(pt_wr_idx), .pt_wr_pfn(pt_wr_pfn),
        .in_valid(ar_req_valid), .in_ready(ar_req_ready),
        .in_addr(ar_req_addr), .in_len(ar_req_len), .in_tag(ar_req_tag),
        .out_valid(dmar_req_valid), .out_ready(dmar_req_ready),
        .out_addr(dmar_req_addr), .out_len(dmar_req_len), .out_tag(dmar_req_tag),
        .idle(rd_pt_idle)
    );

    qpnic_page_table #(.NUM_PT(NUM_PT)) wr_pt (
        .clk(clk), .rst(rst),
        .pt_wr_en(pt_wr_en), .pt_wr_idx(pt_wr_idx), .pt_wr_pfn(pt_wr_pfn),
        .in_valid(aw_req_valid), .in_ready(aw_req_ready),
        .in_addr(aw_req_addr), .in_len(aw_req_len), .in_tag(1'b0),
        .out_valid(dmaw_req_valid), .out_ready(dmaw_req_ready),
        .out_addr(dmaw_req_addr), .out_len(dmaw_req_len), .out_tag(unused_wr_tag),
        .idle(wr_pt_idle)
    );
endmodule

`default_nettype wire
