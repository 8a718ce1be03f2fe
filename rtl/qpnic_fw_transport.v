// qpnic_fw_transport: the transport port of the firmware partition
// (qpnic_core PARTITION 1, docs/partitions.md). In that partition the
// requester, the responder and the completer are C in the soft core
// (fw/transport.c); this module is what they stand on: the soft core's
// registers (layout tpregs, at FW_IO_BASE + TP_IO_OFFSET) onto
//   - the WQE fetch engine's WQE stream: one WQE at a time in a 16-word
//     WQE buffer, with its QP, index and epoch (WQE_INFO, WQE, WQE_POP);
//   - a request port of qpnic_qp_table (QP_ARG, QP_CMD, QP_N, CTX): every
//     change of a QP's context is still the table's atomic operation;
//   - its receive flush queue (FLUSH_POP);
//   - a check port of qpnic_mr_table, and one DMA mover behind it: a check
//     that passes opens a window (a device address and a length; TP_WINDOWS
//     of them, a message's segments on both sides), and MOVE copies up to
//     MAX_DMA_BYTES from one window to another, the read's data beats going
//     straight to the write (both are packed from lane 0). The mover reads
//     and writes only inside open windows, so firmware cannot DMA outside a
//     range the token table approved (or, for a ring window, an address
//     the firmware computed from the QP's own SQ ring: the fetch engine's
//     trust). A window stays open until WIN_CLOSE, so a range checked
//     before a host's MR_CMD INVALIDATE is moved through as the hardware
//     partition carries a checked job through, STATUS.mr_fence meanwhile;
//   - a ring read (RING_RD): 64 bytes into the WQE buffer (an RQ WQE);
//   - the CQE writer (CQE_W0..3, CQE_PUSH);
//   - the grant words of MR_CMD GRANT / GRANT_WINDOW (one RAM word per
//     token entry, as the hardware partition's requester keeps them;
//     GRANT_SEL, GRANT0..2) and the token table's fast-register port
//     (FR_*): a FAST_REG's or BIND's entry;
//   - counters (COUNT), the token fence and the core's idle.
// Like the RTL engines it replaces, it holds nothing past one request: the
// contexts stay in the tables.
//
// Bus: one access at a time from qpnic_soc (bus_valid held until
// bus_ready, which pulses for one cycle). A read is answered the cycle
// after it is seen, from a register; a write that starts something
// inside the NIC (QP_CMD, CHK_CMD, GRANT_SEL, FR_CMD) is answered when it is
// done, so the firmware never polls for those. Three answer at once and
// RESULT says when they are done, because they may wait for the firmware
// itself: the CQE writer takes a CQE (CQE_PUSH) only once it can queue its
// event, and over a board's link the host's DMA data (MOVE, RING_RD) comes
// behind its MMIO, of which an ARM doorbell waits for the firmware to pop
// an event. The firmware pops events while it waits.
//
// Ports
//   clk, rst                  clock, synchronous active-high reset
//   bus_*                     the soft core's accesses to this window
//   wqe_*                     WQE word pairs from qpnic_wqe_fetch
//   tq_req_*, tq_rsp_*        a request port of qpnic_qp_table
//   fl_*                      its receive flush queue
//   chk_*, res_*              a check port of qpnic_mr_table
//   rd_req_*, rd_rsp_*        a DMA read master (the mover, the ring read)
//   wr_req_*, wr_dat_*        a DMA write master (the mover)
//   cqe_*                     CQE requests to qpnic_cqe_writer
//   gr_wr_*                   MR_CMD GRANT (qpnic_csr): the grant RAM
//   fr_*                      a token table entry to write (qpnic_mr_table)
//   cnt_ring_read             a ring read was issued (a WQE fetched)
//   cnt_drop, cnt_rnr         COUNT's pulses
//   fence_start, fence_busy   an MR_CMD INVALIDATE is taken; busy while a
//                             window opened (or a check asked) before it
//                             is still open
//   idle                      no WQE in the buffer, no command running, no
//                             flush queued, and the firmware says IDLE
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_fw_transport #(
    parameter QW = 8,
    parameter NUM_MR = 16
) (
    input  wire                 clk,
    input  wire                 rst,

    input  wire                 bus_valid,
    output reg                  bus_ready,
    input  wire [7:0]           bus_addr,
    input  wire [3:0]           bus_wstrb,
    input  wire [31:0]          bus_wdata,
    output reg  [31:0]          bus_rdata,

    // MR_CMD GRANT from the csr
    input  wire                 gr_wr_en,
    input  wire                 gr_wr_window,
    input  wire [`QPNIC_TOKEN_INDEX_BITS-1:0] gr_wr_idx,
    input  wire [`QPNIC_PD_BITS-1:0] gr_wr_pd,
    input  wire [`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0] gr_wr_first,
    input  wire [31-`QPNIC_FREG_PAGE_SHIFT:0] gr_wr_pages,
    // a FAST_REG's or BIND's entry to qpnic_mr_table
    output reg                  fr_valid,
    input  wire                 fr_ready,
    output reg  [`QPNIC_TOKEN_INDEX_BITS-1:0] fr_idx,
    output wire [`QPNIC_MR_CTX_BITS-1:0] fr_entry,

    input  wire                 wqe_valid,
    output wire                 wqe_ready,
    input  wire [63:0]          wqe_data,
    input  wire                 wqe_last,
    input  wire [QW-1:0]        wqe_qpn,
    input  wire [`QPNIC_INDEX_BITS-1:0] wqe_index,
    input  wire                 wqe_epoch,

    output reg                  tq_req_valid,
    input  wire                 tq_req_ready,
    output reg  [3:0]           tq_req_op,
    output reg  [QW-1:0]        tq_req_qpn,
    output wire [31:0]          tq_req_arg,
    input  wire                 tq_rsp_valid,
    input  wire [`QPNIC_QP_CTX_BITS-1:0] tq_rsp_ctx,
    input  wire [`QPNIC_INDEX_BITS-1:0] tq_rsp_n,

    input  wire                 fl_valid,
    output wire                 fl_ready,
    input  wire [QW-1:0]        fl_qpn,

    output reg                  chk_valid,
    output reg  [31:0]          chk_token,
    output reg  [63:0]          chk_va,
    output reg  [31:0]          chk_len,
    output reg                  chk_remote,
    output reg  [2:0]           chk_need,
    output reg                  chk_inval,
    output reg  [`QPNIC_PD_BITS-1:0] chk_pd,
    input  wire                 res_valid,
    input  wire                 res_ok,
    input  wire [63:0]          res_dev,

    output reg                  rd_req_valid,
    input  wire                 rd_req_ready,
    output reg  [63:0]          rd_req_addr,
    output reg  [15:0]          rd_req_len,
    input  wire                 rd_rsp_valid,
    output wire                 rd_rsp_ready,
    input  wire [31:0]          rd_rsp_data,
    input  wire [3:0]           rd_rsp_keep,
    input  wire                 rd_rsp_last,

    output reg                  wr_req_valid,
    input  wire                 wr_req_ready,
    output reg  [63:0]          wr_req_addr,
    output reg  [15:0]          wr_req_len,
    output wire                 wr_dat_valid,
    input  wire                 wr_dat_ready,
    output wire [31:0]          wr_dat_data,
    output wire [3:0]           wr_dat_keep,
    output wire                 wr_dat_last,

    output reg                  cqe_valid,
    input  wire                 cqe_ready,
    output reg  [`QPNIC_CQN_BITS-1:0] cqe_cqn,
    output wire [127:0]         cqe_data,

    output reg                  cnt_ring_read,
    output reg                  cnt_drop,
    output reg                  cnt_rnr,

    input  wire                 fence_start,
    output wire                 fence_busy,
    output wire                 idle
);
    localparam [15:0] MAX_DMA = `QPNIC_MAX_DMA_BYTES;
    localparam [15:0] PAGE    = `QPNIC_FREG_PAGE_BYTES;
    localparam PAGE_BITS      = $clog2(`QPNIC_FREG_PAGE_BYTES);
    // qp_op values the table answers (READ, HOST_READ, FETCH, PSN,
    // RQ_FLUSH, REWIND, RSP_SEQ): qpnic_qp_table's header
    localparam [15:0] ANSWERED = (16'd1 << `QPNIC_QP_OP_READ)     | (16'd1 << `QPNIC_QP_OP_HOST_READ) |
                                 (16'd1 << `QPNIC_QP_OP_FETCH)    | (16'd1 << `QPNIC_QP_OP_PSN) |
                                 (16'd1 << `QPNIC_QP_OP_RQ_FLUSH) | (16'd1 << `QPNIC_QP_OP_REWIND) |
                                 (16'd1 << `QPNIC_QP_OP_RSP_SEQ);

    // ---- the WQE buffer: even and odd words apart, so that a fetched pair
    // is one write of each (each array one write port: block or LUT RAM)
    reg  [31:0] wb_even [0:7];
    reg  [31:0] wb_odd  [0:7];
    reg  [31:0] wb_q;                 // the word a read asked for
    reg  [2:0]  fill_at;              // the pair (fetch) or word/2 (ring) next
    reg         fill_odd;             // ring read: the next beat is odd
    localparam B_EMPTY = 2'd0, B_FILL = 2'd1, B_WQE = 2'd2, B_RING = 2'd3;
    reg  [1:0]  buf_st;
    reg  [QW-1:0] info_qpn;
    reg  [`QPNIC_INDEX_BITS-1:0] info_index;
    reg         info_epoch;

    // ---- commands (C_WIN, C_MVP and C_FRW are the window RAM's steps of a
    // CHK_CMD, a MOVE and an FR_CMD: see "the windows" below)
    localparam C_NONE = 4'd0, C_QP = 4'd1, C_CHK = 4'd2, C_MOVE = 4'd3, C_RING = 4'd4,
               C_GRANT = 4'd5, C_FR = 4'd6, C_WIN = 4'd7, C_MVP = 4'd8, C_FRW = 4'd9;
    reg  [3:0]  cmd;
    reg  [3:0]  step;                 // C_WIN, C_MVP, C_FRW: the step next
    reg         qp_wait_rsp;          // C_QP: the request was taken, its answer is due
    reg         mv_done;              // C_MOVE: the last data beat was written
    reg  [31:0] qp_arg;
    reg  [`QPNIC_QP_CTX_BITS-1:0] ctx;
    reg  [`QPNIC_INDEX_BITS-1:0] qp_n;
    reg  [31:0] cqe_w [0:3];
    localparam NW = `QPNIC_TP_WINDOWS;
    reg  [2:0]  chk_win;
    reg         chk_ok;
    reg         mv_refused;
    reg  [15:0] mv_moved;
    reg  [15:0] mv_ask;               // MOVE: the length asked
    reg  [2:0]  mv_src, mv_dst;       // MOVE: its windows
    reg         fw_idle;

    // ---- the windows: a device address and the bytes left, open until
    // WIN_CLOSE. Their words are in a small RAM, three words a window at
    // {window, WK_*}, read and written a word a cycle by the commands that
    // use them (C_WIN, C_MVP, C_FRW); only the open bits are flip-flops. A
    // closed window's words are never read but by FR_CMD's from_win (the
    // address the check of a BIND's SGE 0 left). The RAM clears itself
    // after rst, and no access is taken meanwhile.
    localparam [1:0] WK_LO = 2'd0, WK_HI = 2'd1, WK_LEFT = 2'd2;
    reg  [NW-1:0] win_open;
    reg         fence_pend;
    wire        wn_busy;
    reg         wn_we;
    reg  [4:0]  wn_waddr;
    reg  [31:0] wn_wdata;
    reg         wn_re;
    reg  [4:0]  wn_raddr;
    wire [31:0] wn_q;
    reg  [31:0] wn_hold;              // a word for a later write: a window's
                                      // high address word; MOVE's source
                                      // bytes left
    qpnic_ram_sdp #(.WIDTH(32), .AW(5), .CLEAR(1), .RDW_OLD(0)) u_windows (
        .clk(clk), .rst(rst), .busy(wn_busy),
        .wr_en(wn_we), .wr_addr(wn_waddr), .wr_data(wn_wdata),
        .rd_en(wn_re), .rd_addr(wn_raddr), .rd_data(wn_q));

    // ---- the grant RAM: one word per token entry {window, pd, first, pages}
    localparam PGW = 32 - `QPNIC_FREG_PAGE_SHIFT;
    localparam PTW = `QPNIC_CAPS3_PT_ENTRIES_WIDTH;
    localparam GW  = 1 + `QPNIC_PD_BITS + PTW + PGW;
    localparam TIB = `QPNIC_TOKEN_INDEX_BITS;
    localparam GAW = (NUM_MR > 1) ? $clog2(NUM_MR) : 1;
    localparam [TIB:0] NUM_MR_V = NUM_MR[TIB:0];
    wire          gr_busy;
    wire [GW-1:0] gr_word;
    reg  [TIB-1:0] gr_sel;
    wire          gr_in = {1'b0, gr_sel} < NUM_MR_V;
    // GRANT_SEL: the RAM reads once it has cleared itself, and not in a
    // cycle the host's GRANT writes the same entry (RDW_OLD 0: such a read
    // would be undefined; it waits a cycle and reads the new word)
    wire          gr_rd = cmd == C_GRANT && !gr_busy && !bus_ready &&
                          !(gr_wr_en && gr_wr_idx == gr_sel);
    qpnic_ram_sdp #(.WIDTH(GW), .AW(GAW), .CLEAR(1), .RDW_OLD(0)) u_grants (
        .clk(clk), .rst(rst), .busy(gr_busy),
        .wr_en(gr_wr_en && ({1'b0, gr_wr_idx} < NUM_MR_V)), .wr_addr(gr_wr_idx[GAW-1:0]),
        .wr_data({gr_wr_window, gr_wr_pd, gr_wr_first, gr_wr_pages}),
        .rd_en(gr_rd), .rd_addr(gr_sel[GAW-1:0]), .rd_data(gr_word));
    wire [GW-1:0] gr_shown = gr_in ? gr_word : {GW{1'b0}};

    // ---- FR_CMD's entry: va, len and lkey are the check's registers
    reg  [63:0] fr_dma;               // (from_win: C_FRW reads window 0's into it)
    reg  [31:0] fr_rkey;
    reg  [31:0] fr_w7;
    reg  [`QPNIC_MR_CTX_WORDS*32-1:0] fr_full;
    always @* begin
        fr_full = {(`QPNIC_MR_CTX_WORDS*32){1'b0}};
        fr_full[`QPNIC_MR_CTX_VA_LO_FLAT]  = chk_va[31:0];
        fr_full[`QPNIC_MR_CTX_VA_HI_FLAT]  = chk_va[63:32];
        fr_full[`QPNIC_MR_CTX_LEN_FLAT]    = chk_len;
        fr_full[`QPNIC_MR_CTX_DMA_LO_FLAT] = fr_dma[31:0];
        fr_full[`QPNIC_MR_CTX_DMA_HI_FLAT] = fr_dma[63:32];
        fr_full[`QPNIC_MR_CTX_LKEY_FLAT]   = chk_token;
        fr_full[`QPNIC_MR_CTX_RKEY_FLAT]   = fr_rkey;
        // word 7 whole: access, valid, pd, window (the firmware's TP_FR_W7)
        fr_full[`QPNIC_MR_CTX_ACCESS_WORD*32 +: 32] = fr_w7;
    end
    assign fr_entry = fr_full[`QPNIC_MR_CTX_BITS-1:0];
    // (the words' bits above the entry's last field: the table stores none)
    wire unused_fr = &{1'b0, fr_full[`QPNIC_MR_CTX_WORDS*32-1:`QPNIC_MR_CTX_BITS]};

    wire is_wr = |bus_wstrb;
    wire [7:0] cmd_qpn = bus_wdata[`QPNIC_TP_QP_CMD_QPN];
    // a new access: valid, not the one answered last cycle (bus_ready falls
    // with the access), and no command running
    // (wb_pick: a read of the WQE buffer is being answered)
    reg  wb_pick;
    // (MOVE and RING_RD run in the background, waiting for the host's DMA:
    // meanwhile only RESULT is read, the firmware popping events between)
    wire bg    = cmd == C_MOVE || cmd == C_RING;
    wire take  = bus_valid && !bus_ready && !wb_pick && !wn_busy &&
                 (cmd == C_NONE || (bg && !is_wr && bus_addr == `QPNIC_TPREG_RESULT));

    // ---- MOVE as asked: refused at once when the length or a window is
    // wrong (a window number past NW reads window 0: refused all the same)
    wire [15:0] ask    = bus_wdata[`QPNIC_TP_MOVE_LEN];
    wire [2:0]  ask_s  = bus_wdata[`QPNIC_TP_MOVE_SRC];
    wire [2:0]  ask_d  = bus_wdata[`QPNIC_TP_MOVE_DST];
    wire        ask_in = {1'b0, ask_s} < NW[3:0] && {1'b0, ask_d} < NW[3:0];
    wire [2:0]  ask_sw = ask_in ? ask_s : 3'd0;
    wire [2:0]  ask_dw = ask_in ? ask_d : 3'd0;
    wire        mv_bad = ask == 16'd0 || ask > MAX_DMA || !ask_in || ask_sw == ask_dw ||
                         !win_open[ask_sw] || !win_open[ask_dw];
    // then C_MVP reads both windows (the addresses into rd_req_addr and
    // wr_req_addr, the source's bytes left into wn_hold, the destination's
    // on wn_q at step MV_DECIDE), refuses a length past either's bytes
    // left, and writes both back moved on by mv_len: what was asked, cut at
    // either window's next page boundary
    localparam [3:0] MV_DECIDE = 4'd6, MV_LAST = 4'd11;
    wire [15:0] pg0    = PAGE - {{(16-PAGE_BITS){1'b0}}, rd_req_addr[PAGE_BITS-1:0]};
    wire [15:0] pg1    = PAGE - {{(16-PAGE_BITS){1'b0}}, wr_req_addr[PAGE_BITS-1:0]};
    wire [15:0] cut0   = mv_ask < pg0 ? mv_ask : pg0;
    wire [15:0] mv_len = cut0 < pg1 ? cut0 : pg1;
    wire        mv_over = {16'd0, mv_ask} > wn_hold || {16'd0, mv_ask} > wn_q;
    wire [63:0] src_next = rd_req_addr + {48'd0, mv_len};
    wire [63:0] dst_next = wr_req_addr + {48'd0, mv_len};

    // a CHK_CMD opens a window: its low address word is written as it opens
    // (the ring's at once, a check's in the cycle of its answer: res_dev
    // holds no longer), the high word and the length by C_WIN after
    wire [2:0]  chk_w_new = bus_wdata[`QPNIC_TP_CHK_WIN];
    wire        ring_open = take && is_wr && bus_addr == `QPNIC_TPREG_CHK_CMD &&
                            {1'b0, chk_w_new} < NW[3:0] && bus_wdata[`QPNIC_TP_CHK_RING];
    wire        chk_open  = cmd == C_CHK && res_valid && res_ok && !chk_inval;

    // the window RAM's ports, from the command and its step
    always @(*) begin
        wn_we    = 1'b0;
        wn_waddr = 5'd0;
        wn_wdata = 32'd0;
        wn_re    = 1'b0;
        wn_raddr = 5'd0;
        if (ring_open) begin
            wn_we = 1'b1;  wn_waddr = {chk_w_new, WK_LO};  wn_wdata = chk_va[31:0];
        end else if (chk_open) begin
            wn_we = 1'b1;  wn_waddr = {chk_win, WK_LO};    wn_wdata = res_dev[31:0];
        end else if (cmd == C_WIN) begin
            wn_we = 1'b1;
            wn_waddr = {chk_win, step[0] ? WK_LEFT : WK_HI};
            wn_wdata = step[0] ? chk_len : wn_hold;
        end else if (cmd == C_MVP) begin
            case (step)
            4'd0: begin wn_re = 1'b1; wn_raddr = {mv_src, WK_LO};   end
            4'd1: begin wn_re = 1'b1; wn_raddr = {mv_src, WK_HI};   end
            4'd2: begin wn_re = 1'b1; wn_raddr = {mv_dst, WK_LO};   end
            4'd3: begin wn_re = 1'b1; wn_raddr = {mv_dst, WK_HI};   end
            4'd4: begin wn_re = 1'b1; wn_raddr = {mv_src, WK_LEFT}; end
            4'd5: begin wn_re = 1'b1; wn_raddr = {mv_dst, WK_LEFT}; end
            // both windows' bytes left less the length (written only if it
            // is not refused; wn_q keeps the destination's, read last)
            MV_DECIDE: begin wn_we = !mv_over; wn_waddr = {mv_dst, WK_LEFT}; wn_wdata = wn_q - {16'd0, mv_len};    end
            4'd7:  begin wn_we = 1'b1; wn_waddr = {mv_src, WK_LEFT}; wn_wdata = wn_hold - {16'd0, mv_len}; end
            4'd8:  begin wn_we = 1'b1; wn_waddr = {mv_src, WK_LO};   wn_wdata = src_next[31:0];  end
            4'd9:  begin wn_we = 1'b1; wn_waddr = {mv_src, WK_HI};   wn_wdata = src_next[63:32]; end
            4'd10: begin wn_we = 1'b1; wn_waddr = {mv_dst, WK_LO};   wn_wdata = dst_next[31:0];  end
            default: begin wn_we = 1'b1; wn_waddr = {mv_dst, WK_HI}; wn_wdata = dst_next[63:32]; end
            endcase
        end else if (cmd == C_FRW) begin
            // window 0's address, the low word then the high
            wn_re    = step == 4'd0 || step == 4'd1;
            wn_raddr = {3'd0, step[0] ? WK_HI : WK_LO};
        end
    end

    // ---- the mover's data: the read's beats are the write's
    assign wr_dat_valid = cmd == C_MOVE && rd_rsp_valid;
    assign wr_dat_data  = rd_rsp_data;
    assign wr_dat_keep  = rd_rsp_keep;
    assign wr_dat_last  = rd_rsp_last;
    assign rd_rsp_ready = cmd == C_RING || (cmd == C_MOVE && wr_dat_ready);

    assign wqe_ready = buf_st == B_EMPTY || buf_st == B_FILL;
    // QP_CMD's argument is QP_ARG's, which no write changes while the
    // command runs (take waits for C_NONE)
    assign tq_req_arg = qp_arg;
    assign fl_ready  = take && !is_wr && bus_addr == `QPNIC_TPREG_FLUSH_POP && fl_valid;
    assign cqe_data  = {cqe_w[3], cqe_w[2], cqe_w[1], cqe_w[0]};

    assign fence_busy = fence_pend && (win_open != {NW{1'b0}} || cmd == C_CHK);
    // (fw_idle falls as work comes in: a fetched WQE, a flush popped; the
    // firmware raises it again once it has done it all, and an IDLE write
    // raises it only while no WQE has come since the firmware looked, so
    // no moment between two of its accesses looks idle)
    assign idle = buf_st == B_EMPTY && cmd == C_NONE && fw_idle && !fl_valid && !cqe_valid;

    // the word a read of the bus asks for
    reg  [31:0] rd_word;
    always @(*) begin
        rd_word = 32'd0;
        case (bus_addr)
        `QPNIC_TPREG_WQE_INFO: begin
            rd_word[`QPNIC_TP_WQE_INDEX] = info_index;
            rd_word[`QPNIC_TP_WQE_QPN]   = {{(8-QW){1'b0}}, info_qpn};
            rd_word[`QPNIC_TP_WQE_EPOCH] = info_epoch;
            rd_word[`QPNIC_TP_WQE_VALID] = buf_st == B_WQE;
        end
        `QPNIC_TPREG_QP_ARG:    rd_word = qp_arg;
        `QPNIC_TPREG_QP_N:      rd_word[`QPNIC_INDEX_BITS-1:0] = qp_n;
        `QPNIC_TPREG_CHK_TOKEN: rd_word = chk_token;
        `QPNIC_TPREG_CHK_VA_LO: rd_word = chk_va[31:0];
        `QPNIC_TPREG_CHK_VA_HI: rd_word = chk_va[63:32];
        `QPNIC_TPREG_CHK_LEN:   rd_word = chk_len;
        `QPNIC_TPREG_RESULT: begin
            rd_word[`QPNIC_TP_RESULT_OK]      = chk_ok;
            rd_word[`QPNIC_TP_RESULT_REFUSED] = mv_refused;
            rd_word[`QPNIC_TP_RESULT_CQE_BUSY] = cqe_valid;
            rd_word[`QPNIC_TP_RESULT_DMA_BUSY] = bg;
            rd_word[`QPNIC_TP_RESULT_MOVED]   = mv_moved;
        end
        `QPNIC_TPREG_FLUSH_POP: begin
            rd_word[`QPNIC_TP_FLUSH_QPN]   = {{(8-QW){1'b0}}, fl_qpn};
            rd_word[`QPNIC_TP_FLUSH_VALID] = fl_valid;
        end
        `QPNIC_TPREG_CQE_W0: rd_word = cqe_w[0];
        `QPNIC_TPREG_CQE_W1: rd_word = cqe_w[1];
        `QPNIC_TPREG_CQE_W2: rd_word = cqe_w[2];
        `QPNIC_TPREG_CQE_W3: rd_word = cqe_w[3];
        `QPNIC_TPREG_GRANT0: begin
            rd_word[`QPNIC_TP_GRANT_FIRST]  = gr_shown[PGW +: PTW];
            rd_word[`QPNIC_TP_GRANT_WINDOW] = gr_shown[GW-1];
        end
        `QPNIC_TPREG_GRANT1: rd_word[`QPNIC_TP_GRANT_PAGES] = gr_shown[PGW-1:0];
        `QPNIC_TPREG_GRANT2: rd_word[`QPNIC_TP_GRANT_PD]    = gr_shown[GW-2 -: `QPNIC_PD_BITS];
        default:
            // CTX: 12 words from 0x80; WQE: 16 words from 0xC0 (wb_q)
            if (bus_addr[7:6] == 2'b10 && bus_addr[5:2] < `QPNIC_QP_CTX_WORDS)
                rd_word = ctx_word(bus_addr[5:2]);
        endcase
    end

    function [31:0] ctx_word(input [3:0] wi);
        reg [`QPNIC_QP_CTX_WORDS*32-1:0] full;
        begin
            full = {{(`QPNIC_QP_CTX_WORDS*32-`QPNIC_QP_CTX_BITS){1'b0}}, ctx};
            ctx_word = full[wi*32 +: 32];
        end
    endfunction

    // WQE buffer reads: registered (a RAM's read), the word picked a cycle
    // after the access is seen
    always @(posedge clk)
        wb_q <= bus_addr[2] ? wb_odd[bus_addr[5:3]] : wb_even[bus_addr[5:3]];

    // WQE buffer writes: a fetched pair, or a ring read's beat
    wire fetch_beat = wqe_valid && wqe_ready;
    wire ring_beat  = cmd == C_RING && rd_rsp_valid;
    always @(posedge clk) begin
        if (fetch_beat) begin
            wb_even[fill_at] <= wqe_data[31:0];
            wb_odd[fill_at]  <= wqe_data[63:32];
        end else if (ring_beat && !fill_odd) begin
            wb_even[fill_at] <= rd_rsp_data;
        end else if (ring_beat) begin
            wb_odd[fill_at]  <= rd_rsp_data;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            bus_ready     <= 1'b0;
            bus_rdata     <= 32'd0;
            wb_pick       <= 1'b0;
            buf_st        <= B_EMPTY;
            fill_at       <= 3'd0;
            fill_odd      <= 1'b0;
            info_qpn      <= {QW{1'b0}};
            info_index    <= {`QPNIC_INDEX_BITS{1'b0}};
            info_epoch    <= 1'b0;
            cmd           <= C_NONE;
            qp_wait_rsp   <= 1'b0;
            mv_done       <= 1'b0;
            qp_arg        <= 32'd0;
            ctx           <= {`QPNIC_QP_CTX_BITS{1'b0}};
            qp_n          <= {`QPNIC_INDEX_BITS{1'b0}};
            cqe_w[0]      <= 32'd0;
            cqe_w[1]      <= 32'd0;
            cqe_w[2]      <= 32'd0;
            cqe_w[3]      <= 32'd0;
            step          <= 4'd0;
            chk_win       <= 3'd0;
            chk_ok        <= 1'b0;
            mv_refused    <= 1'b0;
            mv_moved      <= 16'd0;
            mv_ask        <= 16'd0;
            mv_src        <= 3'd0;
            mv_dst        <= 3'd0;
            fw_idle       <= 1'b0;
            win_open      <= {NW{1'b0}};
            wn_hold       <= 32'd0;
            fence_pend    <= 1'b0;
            tq_req_valid  <= 1'b0;
            tq_req_op     <= 4'd0;
            tq_req_qpn    <= {QW{1'b0}};
            chk_valid     <= 1'b0;
            chk_token     <= 32'd0;
            chk_va        <= 64'd0;
            chk_len       <= 32'd0;
            chk_remote    <= 1'b0;
            chk_need      <= 3'd0;
            chk_inval     <= 1'b0;
            chk_pd        <= {`QPNIC_PD_BITS{1'b0}};
            rd_req_valid  <= 1'b0;
            rd_req_addr   <= 64'd0;
            rd_req_len    <= 16'd0;
            wr_req_valid  <= 1'b0;
            wr_req_addr   <= 64'd0;
            wr_req_len    <= 16'd0;
            cqe_valid     <= 1'b0;
            cqe_cqn       <= {`QPNIC_CQN_BITS{1'b0}};
            cnt_ring_read <= 1'b0;
            cnt_drop      <= 1'b0;
            cnt_rnr       <= 1'b0;
            gr_sel        <= {TIB{1'b0}};
            fr_valid      <= 1'b0;
            fr_idx        <= {TIB{1'b0}};
            fr_dma        <= 64'd0;
            fr_rkey       <= 32'd0;
            fr_w7         <= 32'd0;
        end else begin
            bus_ready     <= 1'b0;
            wb_pick       <= 1'b0;
            chk_valid     <= 1'b0;
            cnt_ring_read <= 1'b0;
            cnt_drop      <= 1'b0;
            cnt_rnr       <= 1'b0;

            // ---- the fence: a window opened (or a check asked) before an
            // INVALIDATE holds it until the windows close
            if (fence_start && (win_open != {NW{1'b0}} || cmd == C_CHK))
                fence_pend <= 1'b1;
            else if (win_open == {NW{1'b0}} && cmd != C_CHK)
                fence_pend <= 1'b0;

            // ---- the fetch engine fills an empty buffer
            if (fetch_beat) begin
                if (buf_st == B_EMPTY) begin
                    info_qpn   <= wqe_qpn;
                    info_index <= wqe_index;
                    info_epoch <= wqe_epoch;
                end
                fill_at <= wqe_last ? 3'd0 : fill_at + 3'd1;
                buf_st  <= wqe_last ? B_WQE : B_FILL;
            end

            // ---- a read answers from a register the cycle after
            if (wb_pick) begin
                bus_rdata <= wb_q;
                bus_ready <= 1'b1;
            end

            if (take && !is_wr) begin
                if (bus_addr[7:6] == 2'b11) begin
                    wb_pick <= 1'b1;                 // the WQE buffer's word
                end else begin
                    bus_rdata <= rd_word;
                    bus_ready <= 1'b1;
                end
            end else if (take) begin
                case (bus_addr)
                `QPNIC_TPREG_WQE_POP: begin
                    if (buf_st != B_FILL)
                        buf_st <= B_EMPTY;
                    bus_ready <= 1'b1;
                end
                `QPNIC_TPREG_QP_ARG: begin
                    qp_arg    <= bus_wdata;
                    bus_ready <= 1'b1;
                end
                `QPNIC_TPREG_QP_CMD: begin
                    tq_req_valid <= 1'b1;
                    tq_req_op    <= bus_wdata[`QPNIC_TP_QP_CMD_OP];
                    tq_req_qpn   <= cmd_qpn[QW-1:0];
                    qp_wait_rsp  <= 1'b0;
                    cmd          <= C_QP;
                end
                `QPNIC_TPREG_CHK_TOKEN: begin chk_token <= bus_wdata;       bus_ready <= 1'b1; end
                `QPNIC_TPREG_CHK_VA_LO: begin chk_va[31:0] <= bus_wdata;    bus_ready <= 1'b1; end
                `QPNIC_TPREG_CHK_VA_HI: begin chk_va[63:32] <= bus_wdata;   bus_ready <= 1'b1; end
                `QPNIC_TPREG_CHK_LEN:   begin chk_len <= bus_wdata;         bus_ready <= 1'b1; end
                `QPNIC_TPREG_CHK_CMD: begin
                    chk_win  <= bus_wdata[`QPNIC_TP_CHK_WIN];
                    if ({1'b0, bus_wdata[`QPNIC_TP_CHK_WIN]} >= NW[3:0]) begin
                        // no such window: nothing checked, nothing opens
                        chk_ok    <= 1'b0;
                        bus_ready <= 1'b1;
                    end else if (bus_wdata[`QPNIC_TP_CHK_RING]) begin
                        // the QP's own ring: opens without a check (its low
                        // word written now: ring_open)
                        win_open[chk_w_new] <= 1'b1;
                        chk_ok    <= 1'b1;
                        wn_hold   <= chk_va[63:32];
                        step      <= 4'd0;
                        cmd       <= C_WIN;
                    end else begin
                        chk_valid  <= 1'b1;
                        chk_need   <= bus_wdata[`QPNIC_TP_CHK_NEED];
                        chk_remote <= bus_wdata[`QPNIC_TP_CHK_REMOTE];
                        chk_inval  <= bus_wdata[`QPNIC_TP_CHK_INVAL];
                        chk_pd     <= bus_wdata[`QPNIC_TP_CHK_PD];
                        cmd        <= C_CHK;
                    end
                end
                `QPNIC_TPREG_MOVE: begin
                    mv_refused <= mv_bad;
                    mv_moved   <= 16'd0;
                    if (mv_bad) begin
                        bus_ready <= 1'b1;
                    end else begin
                        mv_ask <= ask;
                        mv_src <= ask_sw;
                        mv_dst <= ask_dw;
                        step   <= 4'd0;
                        cmd    <= C_MVP;
                    end
                end
                `QPNIC_TPREG_RING_RD: if (buf_st == B_EMPTY || buf_st == B_FILL) begin
                    // only over a WQE the firmware holds (a fetched one it
                    // took, or an earlier ring read): an empty buffer may be
                    // filling with a WQE the firmware has not seen
                    bus_ready <= 1'b1;
                end else begin
                    rd_req_valid  <= 1'b1;
                    rd_req_addr   <= chk_va;
                    rd_req_len    <= `QPNIC_WQE_BYTES;
                    cnt_ring_read <= 1'b1;
                    fill_at       <= 3'd0;
                    fill_odd      <= 1'b0;
                    buf_st        <= B_RING;
                    cmd           <= C_RING;
                    bus_ready     <= 1'b1;
                end
                `QPNIC_TPREG_CQE_PUSH: begin
                    // answered at once: the writer may wait for the firmware
                    // to pop an event (RESULT cqe_busy until it is taken)
                    cqe_valid <= 1'b1;
                    cqe_cqn   <= bus_wdata[`QPNIC_CQN_BITS-1:0];
                    bus_ready <= 1'b1;
                end
                `QPNIC_TPREG_COUNT: begin
                    cnt_drop  <= bus_wdata[0];
                    cnt_rnr   <= bus_wdata[1];
                    bus_ready <= 1'b1;
                end
                `QPNIC_TPREG_IDLE: begin
                    // the firmware looked at the buffer some cycles ago: a
                    // WQE that came since is work it has not seen, so a 1
                    // counts only while the buffer is still empty
                    fw_idle   <= bus_wdata[0] && buf_st == B_EMPTY;
                    bus_ready <= 1'b1;
                end
                `QPNIC_TPREG_WIN_CLOSE: begin
                    win_open  <= {NW{1'b0}};   // (a window's words are read only while open)
                    bus_ready <= 1'b1;
                end
                `QPNIC_TPREG_GRANT_SEL: begin
                    gr_sel <= bus_wdata[TIB-1:0];
                    cmd    <= C_GRANT;
                end
                `QPNIC_TPREG_FR_CMD: begin
                    fr_idx <= bus_wdata[`QPNIC_TP_FR_IDX];
                    if (bus_wdata[`QPNIC_TP_FR_FROM_WIN]) begin
                        step <= 4'd0;
                        cmd  <= C_FRW;         // window 0's address first
                    end else begin
                        fr_valid <= 1'b1;
                        cmd      <= C_FR;
                    end
                end
                `QPNIC_TPREG_FR_DMA_LO: begin fr_dma[31:0]  <= bus_wdata; bus_ready <= 1'b1; end
                `QPNIC_TPREG_FR_DMA_HI: begin fr_dma[63:32] <= bus_wdata; bus_ready <= 1'b1; end
                `QPNIC_TPREG_FR_RKEY:   begin fr_rkey <= bus_wdata;       bus_ready <= 1'b1; end
                `QPNIC_TPREG_FR_W7:     begin fr_w7 <= bus_wdata;         bus_ready <= 1'b1; end
                `QPNIC_TPREG_CQE_W0: begin cqe_w[0] <= bus_wdata; bus_ready <= 1'b1; end
                `QPNIC_TPREG_CQE_W1: begin cqe_w[1] <= bus_wdata; bus_ready <= 1'b1; end
                `QPNIC_TPREG_CQE_W2: begin cqe_w[2] <= bus_wdata; bus_ready <= 1'b1; end
                `QPNIC_TPREG_CQE_W3: begin cqe_w[3] <= bus_wdata; bus_ready <= 1'b1; end
                default:
                    bus_ready <= 1'b1;               // a write to nothing: ignored
                endcase
            end

            // ---- the commands that take time
            case (cmd)
            C_QP:
                if (tq_req_valid && tq_req_ready) begin
                    tq_req_valid <= 1'b0;
                    if (ANSWERED[tq_req_op]) begin
                        qp_wait_rsp <= 1'b1;
                    end else begin
                        cmd       <= C_NONE;
                        bus_ready <= 1'b1;
                    end
                end else if (qp_wait_rsp && tq_rsp_valid) begin
                    ctx         <= tq_rsp_ctx;
                    qp_n        <= tq_rsp_n;
                    qp_wait_rsp <= 1'b0;
                    cmd         <= C_NONE;
                    bus_ready   <= 1'b1;
                end
            C_CHK:
                if (chk_open) begin
                    // opens (its low word written now), the rest by C_WIN
                    chk_ok            <= 1'b1;
                    win_open[chk_win] <= 1'b1;
                    wn_hold           <= res_dev[63:32];
                    step              <= 4'd0;
                    cmd               <= C_WIN;
                end else if (res_valid) begin
                    chk_ok    <= res_ok;
                    cmd       <= C_NONE;
                    bus_ready <= 1'b1;
                end
            C_WIN: begin
                // step 0 the high address word, step 1 the length
                step <= step + 4'd1;
                if (step[0]) begin
                    cmd       <= C_NONE;
                    bus_ready <= 1'b1;
                end
            end
            C_MVP: begin
                // steps 0..5 read (a word arrives the step after), MV_DECIDE
                // refuses or goes on, the rest write (see the RAM's ports)
                step <= step + 4'd1;
                case (step)
                4'd1: rd_req_addr[31:0]  <= wn_q;
                4'd2: rd_req_addr[63:32] <= wn_q;
                4'd3: wr_req_addr[31:0]  <= wn_q;
                4'd4: wr_req_addr[63:32] <= wn_q;
                4'd5: wn_hold            <= wn_q;
                MV_DECIDE:
                    if (mv_over) begin
                        mv_refused <= 1'b1;
                        cmd        <= C_NONE;
                        bus_ready  <= 1'b1;
                    end else begin
                        mv_moved <= mv_len;
                    end
                MV_LAST: begin
                    rd_req_valid <= 1'b1;
                    rd_req_len   <= mv_len;
                    wr_req_valid <= 1'b1;
                    wr_req_len   <= mv_len;
                    mv_done      <= 1'b0;
                    cmd          <= C_MOVE;
                    bus_ready    <= 1'b1;
                end
                default: ;
                endcase
            end
            C_FRW: begin
                step <= step + 4'd1;
                if (step == 4'd1)
                    fr_dma[31:0] <= wn_q;
                if (step == 4'd2) begin
                    fr_dma[63:32] <= wn_q;
                    fr_valid      <= 1'b1;
                    cmd           <= C_FR;
                end
            end
            C_MOVE: begin
                if (rd_req_valid && rd_req_ready)
                    rd_req_valid <= 1'b0;
                if (wr_req_valid && wr_req_ready)
                    wr_req_valid <= 1'b0;
                if (wr_dat_valid && wr_dat_ready && wr_dat_last)
                    mv_done <= 1'b1;
                // done: every beat written, and both requests taken
                if (mv_done && !rd_req_valid && !wr_req_valid)
                    cmd <= C_NONE;   // (answered when it started)
            end
            C_RING: begin
                if (rd_req_valid && rd_req_ready)
                    rd_req_valid <= 1'b0;
                if (ring_beat) begin
                    fill_odd <= !fill_odd;
                    if (fill_odd)
                        fill_at <= fill_at + 3'd1;
                    if (rd_rsp_last)
                        cmd <= C_NONE;   // (answered when it started)
                end
            end
            C_GRANT:
                // the word read (gr_rd) holds until the next GRANT_SEL
                if (gr_rd) begin
                    bus_ready <= 1'b1;
                    cmd       <= C_NONE;
                end
            C_FR:
                if (fr_ready) begin
                    fr_valid  <= 1'b0;
                    cmd       <= C_NONE;
                    bus_ready <= 1'b1;
                end
            default: ;
            endcase

            if (cqe_valid && cqe_ready)
                cqe_valid <= 1'b0;

            // work comes in: not idle until the firmware says so again
            // (last, over an IDLE write of the same cycle)
            if (fetch_beat || fl_ready)
                fw_idle <= 1'b0;
        end
    end

    // the firmware's contract with the WQE buffer
`ifndef SYNTHESIS
    always @(posedge clk) begin
        if (!rst && fetch_beat && cmd == C_RING)
            $error("qpnic_fw_transport: a fetched WQE and a ring read at once");
        if (take && is_wr && bus_addr == `QPNIC_TPREG_RING_RD && (buf_st == B_EMPTY || buf_st == B_FILL))
            $error("qpnic_fw_transport: RING_RD without a WQE in the buffer (firmware)");
    end
`endif
endmodule

`default_nettype wire
