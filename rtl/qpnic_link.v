// qpnic_link: the NIC's side of the board link (docs/link.md). It carries
// qpnic_core's ports over a byte stream (the UART's): register accesses in,
// DMA requests, DMA read data and notifications out, as checksummed frames
// delivered exactly once and in order by go-back-N.
//
// Four parts, each a block below:
//   receive   qpnic_link_deframe's bytes: the header into registers, the
//             rest into one of RXF receive slots (block RAM); at the closing
//             flag the frame is checked, its ack taken, and a sequenced
//             frame with the expected seq is kept if a slot was free
//   apply     each kept frame in turn, into the core: a register write, a
//             register read (whose answer goes out as MMIO_RD_REPLY), or
//             the data of the DMA read the core is waiting for; then the
//             frame counts as applied, which is what the NIC acknowledges
//   fill      the core's DMA write and read requests, notifications and
//             the read answers into TXF transmit slots (block RAM), one
//             sequenced frame each, numbered in the order they are filled
//   transmit  RESET_DONE, then slots not yet sent (or sent again after the
//             retransmission timeout, from the oldest unacknowledged one),
//             then an ACK when the host is owed one, through
//             qpnic_link_framer
// A RESET with a new nonce holds the core and all four in reset for
// RESET_CYCLES, then sends RESET_DONE (docs/link.md "Opening: RESET").
//
// Up to RD_OPEN DMA reads are outstanding at once, each DMA_RD_REQ tagged
// with the core's read tag; the host answers them in the order it got
// them (docs/link.md), so a DMA_RD_DATA is taken only if it answers the
// oldest read not yet answered, with that read's tag and length, and its
// beats go into the core with that tag. No more DMA read is taken from the
// hold register (below) while RD_OPEN reads wait for their data to go into
// the core.
//
// The core's DMA read and write requests each land in a hold register
// first, and the ready the core sees is that register's being empty: the
// fillers' choices (a free slot, which filler has the RAM's write port)
// depend on both requests, and without the registers a path ran from the
// core's read arbiter through the fillers into its write arbiter and on to
// the completer (the ULX3S's worst path at 317025f, 46.6 MHz; docs/
// boards.md). A request waits a cycle there.
//
// Parameters
//   RTO_CYCLES     retransmission timeout, clock cycles (below 2^24; a
//                  board sets it for about 20 ms: qpnic_serial_nic)
//   RESET_CYCLES   how long a RESET holds the core in reset
//   RD_OPEN        DMA reads outstanding at most (a power of two; the
//                  core keeps at most 6 open: docs/internals.md)
// Ports
//   clk, rst                             clock, synchronous active-high reset
//   rx_valid, rx_data, rx_err            the line's bytes in (qpnic_uart)
//   tx_valid, tx_ready, tx_data          the line's bytes out
//   core_rst                             the core's reset: rst, or a RESET
//   mmio_*, dmar_*, dmaw_*, ntf_*        the core's ports (qpnic_core's, the
//                                        other way round)
//   link_up                              a RESET has been done since rst
//   activity                             a frame was taken or started (pulse)
//   error                                a frame was dropped as corrupt, or
//                                        broke the protocol (pulse)
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_link #(
    parameter RTO_CYCLES   = 65536,
    parameter RESET_CYCLES = 16,
    parameter RD_OPEN      = 8
) (
    input  wire        clk,
    input  wire        rst,

    input  wire        rx_valid,
    input  wire [7:0]  rx_data,
    input  wire        rx_err,
    output wire        tx_valid,
    input  wire        tx_ready,
    output wire [7:0]  tx_data,

    output reg         core_rst,
    output reg         mmio_valid,
    input  wire        mmio_ready,
    output reg         mmio_we,
    output reg  [15:0] mmio_addr,
    output reg  [31:0] mmio_wdata,
    input  wire        mmio_rvalid,
    input  wire [31:0] mmio_rdata,

    input  wire        dmar_req_valid,
    output wire        dmar_req_ready,
    input  wire [63:0] dmar_req_addr,
    input  wire [15:0] dmar_req_len,
    input  wire [`QPNIC_DMA_RD_TAG_BITS-1:0] dmar_req_tag,
    output wire        dmar_rsp_valid,
    input  wire        dmar_rsp_ready,
    output wire [31:0] dmar_rsp_data,
    output wire [3:0]  dmar_rsp_keep,
    output wire        dmar_rsp_last,
    output wire [`QPNIC_DMA_RD_TAG_BITS-1:0] dmar_rsp_tag,

    input  wire        dmaw_req_valid,
    output wire        dmaw_req_ready,
    input  wire [63:0] dmaw_req_addr,
    input  wire [15:0] dmaw_req_len,
    input  wire        dmaw_dat_valid,
    output wire        dmaw_dat_ready,
    input  wire [31:0] dmaw_dat_data,
    input  wire [3:0]  dmaw_dat_keep,
    input  wire        dmaw_dat_last,

    input  wire        ntf_valid,
    output wire        ntf_ready,
    input  wire [31:0] ntf_data,

    output reg         link_up,
    output reg         activity,
    output reg         error
);
    localparam RXF  = `QPNIC_LINK_NIC_RX_FRAMES;
    localparam TXF  = `QPNIC_LINK_NIC_TX_FRAMES;
    localparam RXB  = $clog2(RXF);          // bits of a receive slot's number
    localparam TXB  = $clog2(TXF);
    localparam MAXD = `QPNIC_LINK_MAX_DATA;
    // A slot's words are counted from the body's first word after the
    // header. Either kind of slot is built around DW, the bits of a word
    // index within the longest payload (MAXD bytes: 128 words, DW 7).
    localparam DW   = $clog2(MAXD / 4);
    // A receive slot is 2^RSW words: the data of the longest DMA_RD_DATA,
    // and no more. The bytes after them (the CRC) are not written, so a
    // slot is half the transmit slot's size and the receive RAM half as
    // many iCE40 blocks (two 256x16 for two slots, not four).
    localparam RSW  = DW;
    // A transmit slot is 2^TSW words in one RAM, and the few words of the
    // longest DMA_WR past them (its two address words and MAXD data bytes:
    // TX_WORDS, 130) in a second, small RAM: four slots of 130 words are
    // just over the 512 words of four iCE40 blocks (512x8), and the next
    // power of two took eight (1024x4); the small RAM takes two (256x16).
    localparam TSW  = DW;
    localparam integer TX_WORDS_I = `QPNIC_LINK_DMA_LEN_WORD - `QPNIC_LINK_HDR_WORDS + MAXD / 4;
    localparam SW   = $clog2(TX_WORDS_I);   // bits of a transmit slot's word index
    localparam XB   = $clog2(TX_WORDS_I - (1 << TSW));   // bits of a word's index past 2^TSW
    localparam IW   = 10;                   // bits of a body's length
    localparam SQ   = `QPNIC_LINK_SEQ_BITS;
    localparam TGW  = `QPNIC_DMA_RD_TAG_BITS;
    localparam RQB  = $clog2(RD_OPEN);      // bits of a read's place in the queue
    // a frame's words (layout structs link_*), counted from the body's first
    // word after the header: a slot holds those words, then the data
    localparam integer HW = `QPNIC_LINK_HDR_WORDS;
    localparam integer HDR_CRC_I    = 4 * HW + 4;   // a body's header and CRC bytes
    localparam integer W_DMA_HI_I   = `QPNIC_LINK_DMA_ADDR_HI_WORD - HW;
    localparam integer W_DMA_LEN_I  = `QPNIC_LINK_DMA_LEN_WORD - HW;   // a DMA_WR's data start here
    localparam integer W_MMIO_DATA_I = `QPNIC_LINK_MMIO_DATA_WORD - HW;
    // bytes after the header of each frame the NIC sends ...
    localparam integer LEN_NTF_I    = 4 * (`QPNIC_LINK_NTF_WORDS - HW);
    localparam integer LEN_REPLY_I  = 4 * (`QPNIC_LINK_MMIO_WORDS - HW);
    localparam integer LEN_DRREQ_I  = 4 * (`QPNIC_LINK_DMA_WORDS - HW);
    localparam integer LEN_DWR_I    = 4 * W_DMA_LEN_I;                  // before the data
    localparam integer LEN_RDONE_I  = 4 * (`QPNIC_LINK_RESET_WORDS - HW);
    // ... and the bodies the host sends, CRC included
    localparam integer BODY_MWR_I   = HDR_CRC_I + 4 * (`QPNIC_LINK_MMIO_WORDS - HW);
    localparam integer BODY_MRD_I   = HDR_CRC_I + 4 * W_MMIO_DATA_I;
    localparam integer BODY_RESET_I = HDR_CRC_I + 4 * (`QPNIC_LINK_RESET_NONCE_WORD + 1 - HW);
    localparam integer NONCE_LAST_I = 4 * `QPNIC_LINK_RESET_NONCE_WORD + 3;  // byte index
    localparam [IW-1:0] HDR_CRC    = HDR_CRC_I[IW-1:0];
    localparam [SW-1:0] W_DMA_HI   = W_DMA_HI_I[SW-1:0];
    localparam [SW-1:0] W_DMA_LEN  = W_DMA_LEN_I[SW-1:0];
    localparam [SW-1:0] W_MMIO_DATA = W_MMIO_DATA_I[SW-1:0];
    localparam [IW-1:0] LEN_NTF    = LEN_NTF_I[IW-1:0];
    localparam [IW-1:0] LEN_REPLY  = LEN_REPLY_I[IW-1:0];
    localparam [IW-1:0] LEN_DRREQ  = LEN_DRREQ_I[IW-1:0];
    localparam [IW-1:0] LEN_DWR    = LEN_DWR_I[IW-1:0];
    localparam [IW-1:0] LEN_RDONE  = LEN_RDONE_I[IW-1:0];
    localparam [IW-1:0] BODY_MWR   = BODY_MWR_I[IW-1:0];
    localparam [IW-1:0] BODY_MRD   = BODY_MRD_I[IW-1:0];
    localparam [IW-1:0] BODY_RESET = BODY_RESET_I[IW-1:0];
    localparam [IW-1:0] NONCE_LAST = NONCE_LAST_I[IW-1:0];
    localparam integer  RX_MAX_I   = HDR_CRC_I + MAXD;
    localparam [IW-1:0] RX_MAX     = RX_MAX_I[IW-1:0];   // the longest body the host sends: header, data, CRC
    localparam [IW-1:0] FOUR = 4;
    localparam [IW-1:0] MAXD_B = MAXD;
    localparam [7:0] T_ACK    = `QPNIC_LINK_TYPE_ACK;
    localparam [7:0] T_MWR    = `QPNIC_LINK_TYPE_MMIO_WR;
    localparam [7:0] T_MRD    = `QPNIC_LINK_TYPE_MMIO_RD;
    localparam [7:0] T_REPLY  = `QPNIC_LINK_TYPE_MMIO_RD_REPLY;
    localparam [7:0] T_DRREQ  = `QPNIC_LINK_TYPE_DMA_RD_REQ;
    localparam [7:0] T_DRDATA = `QPNIC_LINK_TYPE_DMA_RD_DATA;
    localparam [7:0] T_DWR    = `QPNIC_LINK_TYPE_DMA_WR;
    localparam [7:0] T_NTF    = `QPNIC_LINK_TYPE_NTF;
    localparam [7:0] T_RESET  = `QPNIC_LINK_TYPE_RESET;
    localparam [7:0] T_RDONE  = `QPNIC_LINK_TYPE_RESET_DONE;
    // RESET_DONE's word 2 (struct link_reset): this NIC's link limits
    function [31:0] caps_word(input [7:0] rx_frames, input [7:0] tx_frames);
        begin
            caps_word = 32'd0;
            caps_word[`QPNIC_LINK_RESET_RX_FRAMES] = rx_frames;
            caps_word[`QPNIC_LINK_RESET_TX_FRAMES] = tx_frames;
            caps_word[`QPNIC_LINK_RESET_VERSION] = `QPNIC_LINK_VERSION;
        end
    endfunction
    localparam [31:0] CAPS = caps_word(RXF[7:0], TXF[7:0]);

    initial begin
        if ((1 << RXB) != RXF || (1 << TXB) != TXF || (1 << RQB) != RD_OPEN || RD_OPEN < 2)
            $fatal(1, "qpnic_link: LINK_NIC_RX_FRAMES and LINK_NIC_TX_FRAMES must be powers of two");
        if (RTO_CYCLES < 1 || RTO_CYCLES >= (1 << 24) || RESET_CYCLES < 1 || RESET_CYCLES > 31)
            $fatal(1, "qpnic_link: RTO_CYCLES %0d or RESET_CYCLES %0d out of range", RTO_CYCLES, RESET_CYCLES);
        // the first word after the header is the one every type starts with
        // (a DMA address's low word, a register's address, a notification,
        // a nonce), and a register's data follows its address
        if (`QPNIC_LINK_DMA_ADDR_LO_WORD != HW || `QPNIC_LINK_MMIO_ADDR_WORD != HW ||
            `QPNIC_LINK_NTF_WORD_WORD != HW || `QPNIC_LINK_RESET_NONCE_WORD != HW ||
            `QPNIC_LINK_MMIO_DATA_WORD != HW + 1)
            $fatal(1, "qpnic_link: the layout's link_* words are not where the slots expect them");
        if (TX_WORDS_I <= (1 << TSW))
            $fatal(1, "qpnic_link: a transmit slot's %0d words fit 2^%0d: no small RAM is needed", TX_WORDS_I, TSW);
        // a receive slot holds a DMA_RD_DATA's data, a register write's two
        // words; a byte index's bits above the slot's words say "past it"
        if ((MAXD + 3) / 4 > (1 << RSW) || (1 << RSW) < 2 || RSW + 2 > IW - 1)
            $fatal(1, "qpnic_link: a receive slot of 2^%0d words does not fit", RSW);
    end

    // ---- link reset ---------------------------------------------------------
    // lrst holds everything below but the framing in reset: after rst, and
    // for RESET_CYCLES after a RESET with a new nonce
    reg  [4:0]  lr_cnt;
    wire        lrst = rst || lr_cnt != 5'd0;
    reg  [31:0] last_nonce;
    reg         nonce_valid;
    reg         rdone_pending;      // RESET_DONE is owed
    wire        rdone_start;        // RESET_DONE starts out
    wire        tx_ack_sent;        // a frame carrying our ack starts out

    // ---- receive ------------------------------------------------------------
    wire          db_valid, d_done, d_ok;
    wire [IW-1:0] db_idx, d_len;
    wire [7:0]    db_data;
    qpnic_link_deframe #(.MAX_BYTES(RX_MAX), .IW(IW)) u_deframe (
        .clk(clk), .rst(rst), .in_valid(rx_valid), .in_data(rx_data), .in_err(rx_err),
        .byte_valid(db_valid), .byte_idx(db_idx), .byte_data(db_data),
        .done(d_done), .done_ok(d_ok), .done_len(d_len));

    reg  [31:0]    h;                  // the frame's header (struct link_hdr)
    reg  [23:0]    rx_word;            // body bytes after the header: the word's first three
    reg            rx_wr_ok;           // the frame has a free slot to go into
    reg  [RXB:0]   rx_count;           // slots holding kept, unapplied frames
    reg  [RXB-1:0] rx_wp, rx_rp;       // next slot to fill, next to apply
    reg  [SQ-1:0]  rx_expected;        // seq of the next frame to keep
    reg  [SQ-1:0]  rx_applied;         // frames applied: the ack we send
    reg            ack_pending;        // the host is owed an ACK
    // each slot's frame: what it is, tag, length. A slot keeps only the
    // three sequenced types the host sends, so two bits say which
    localparam [1:0] RK_DATA = 2'd0,   // DMA_RD_DATA
                     RK_MWR  = 2'd1,   // MMIO_WR
                     RK_MRD  = 2'd2;   // MMIO_RD
    reg  [1:0]     rs_kind [0:RXF-1];
    reg  [7:0]     rs_tag  [0:RXF-1];
    reg  [IW-1:0]  rs_len  [0:RXF-1];  //   (its bytes after the header, CRC not counted)

    wire [7:0]    h_type = h[`QPNIC_LINK_HDR_TYPE];
    wire [SQ-1:0] h_seq  = h[`QPNIC_LINK_HDR_SEQ];
    wire [SQ-1:0] h_ack  = h[`QPNIC_LINK_HDR_ACK];
    wire [7:0]    h_tag  = h[`QPNIC_LINK_HDR_TAG];
    reg  [31:0]   h_nonce;             // a RESET's nonce: the word after the header

    // the outstanding DMA reads, in the order they were asked: [rq_ap,
    // rq_kp) have their data kept (or going into the core), [rq_kp, rq_wp)
    // wait for it
    reg  [TGW-1:0] rq_tag [0:RD_OPEN-1];
    reg  [IW-1:0]  rq_len [0:RD_OPEN-1];
    reg  [RQB:0]   rq_wp, rq_kp, rq_ap;
    wire [RQB-1:0] rq_k = rq_kp[RQB-1:0];
    wire           rq_full = rq_wp - rq_ap == RD_OPEN[RQB:0];

    // a sound frame: sound bytes of a type the host sends, of its length
    reg snd_len;
    always @* begin
        case (h_type)
        T_ACK:    snd_len = d_len == HDR_CRC;
        T_MWR:    snd_len = d_len == BODY_MWR;
        T_MRD:    snd_len = d_len == BODY_MRD;
        T_RESET:  snd_len = d_len == BODY_RESET;
        T_DRDATA: snd_len = d_len > HDR_CRC;
        default:  snd_len = 1'b0;
        endcase
    end
    wire sound     = d_done && d_ok && snd_len;
    wire sequenced = h_type == T_MWR || h_type == T_MRD || h_type == T_DRDATA;
    // the body's bytes after its header, CRC not counted: a DMA_RD_DATA's
    // data (one subtractor for the check below and rs_len)
    wire [IW-1:0] d_data = d_len - HDR_CRC;
    // a DMA read's data answers the oldest read not yet answered, once
    wire rd_match  = rq_kp != rq_wp && h_tag == {{(8-TGW){1'b0}}, rq_tag[rq_k]}
                     && d_data == rq_len[rq_k];
    wire in_turn   = sound && sequenced && h_seq == rx_expected;
    wire take      = in_turn && rx_wr_ok && (h_type != T_DRDATA || rd_match);
    // in turn but not what was asked for: the host broke the protocol
    wire misfit    = in_turn && h_type == T_DRDATA && !rd_match;

    // receive RAM: slot rx_wp, word (byte index - 4) / 4; the words past the
    // slot (a long DMA_RD_DATA's CRC) are dropped
    wire [IW-1:0] rx_off = db_idx - FOUR;
    wire          rx_we  = db_valid && db_idx >= 4 && rx_off[1:0] == 2'd3 && rx_wr_ok
                           && rx_off[IW-1:RSW+2] == {(IW-RSW-2){1'b0}};
    wire [RXB+RSW-1:0] rx_waddr = {rx_wp, rx_off[RSW+1:2]};
    wire          rr_en;
    wire [RXB+RSW-1:0] rr_addr;
    wire [31:0]   rr_data;
    wire unused_rx_busy, unused_tx_busy, unused_tx_xbusy;   // CLEAR 0: never busy
    qpnic_ram_sdp #(.WIDTH(32), .AW(RXB + RSW), .CLEAR(0), .RDW_OLD(0), .RD_INIT(0), .STYLE("block")) u_rx_ram (
        .clk(clk), .rst(rst), .busy(unused_rx_busy),
        .wr_en(rx_we), .wr_addr(rx_waddr), .wr_data({db_data, rx_word}),
        .rd_en(rr_en), .rd_addr(rr_addr), .rd_data(rr_data));

    always @(posedge clk) begin
        if (rst) begin
            h <= 32'd0;
            rx_word <= 24'd0;
            rx_wr_ok <= 1'b0;
            h_nonce <= 32'd0;
        end else if (db_valid) begin
            if (db_idx < 4) h <= {db_data, h[31:8]};
            else rx_word <= {db_data, rx_word[23:8]};
            if (db_idx == NONCE_LAST) h_nonce <= {db_data, rx_word};
            if (db_idx == {IW{1'b0}}) rx_wr_ok <= rx_count != RXF[RXB:0];
        end
    end

    // ---- apply ----------------------------------------------------------------
    localparam [2:0] A_IDLE = 3'd0,    // waiting for a kept frame
                     A_W0   = 3'd1,    // its word 0 is on rr_data
                     A_W1   = 3'd2,    // MMIO_WR: its word 1 is on rr_data
                     A_MMIO = 3'd3,    // the access is offered to the core
                     A_RD   = 3'd4,    // MMIO_RD: waiting for the core's answer
                     A_REP  = 3'd5,    // the answer waits for a transmit slot
                     A_BEAT = 3'd6,    // DMA data: a beat is offered to the core
                     A_BRD  = 3'd7;    // DMA data: the next word is being read
    reg  [2:0]    a_state;
    reg  [RSW-1:0] a_widx;             // word of the slot on rr_data
    reg  [IW-1:0] a_left;              // DMA data bytes from this beat on
    reg           reply_valid;
    reg  [31:0]   reply_data;
    reg  [7:0]    a_tag;
    wire          reply_taken;
    wire [1:0]    a_kind = rs_kind[rx_rp];
    wire          a_start = a_state == A_IDLE && rx_count != {(RXB+1){1'b0}} && !lrst;
    wire          beat_go = a_state == A_BEAT && dmar_rsp_ready;
    wire          a_release = (a_state == A_MMIO && mmio_ready && mmio_we)
                           || (a_state == A_REP && reply_taken)
                           || (beat_go && dmar_rsp_last);

    assign rr_en   = a_start || (a_state == A_W0 && a_kind == RK_MWR) || (beat_go && !dmar_rsp_last);
    assign rr_addr = {rx_rp, a_start ? {RSW{1'b0}} : a_widx + 1'b1};
    assign dmar_rsp_valid = a_state == A_BEAT;
    assign dmar_rsp_data  = rr_data;
    assign dmar_rsp_last  = a_left <= 4;
    assign dmar_rsp_keep  = a_left >= 4 ? 4'hF : a_left[1:0] == 2'd3 ? 4'h7 : a_left[1:0] == 2'd2 ? 4'h3 : 4'h1;
    assign dmar_rsp_tag   = a_tag[TGW-1:0];   // the kept frame's tag, latched in A_W0

    always @(posedge clk) begin
        if (lrst) begin
            a_state <= A_IDLE;
            a_widx <= {RSW{1'b0}};
            a_left <= {IW{1'b0}};
            mmio_valid <= 1'b0;
            mmio_we <= 1'b0;
            mmio_addr <= 16'd0;
            mmio_wdata <= 32'd0;
            reply_valid <= 1'b0;
            reply_data <= 32'd0;
            a_tag <= 8'd0;
        end else begin
            if (rr_en) a_widx <= a_start ? {RSW{1'b0}} : a_widx + 1'b1;
            case (a_state)
            A_IDLE: if (a_start) a_state <= A_W0;
            A_W0: begin
                mmio_addr <= rr_data[`QPNIC_LINK_MMIO_ADDR];
                a_left <= rs_len[rx_rp];
                a_tag <= rs_tag[rx_rp];
                if (a_kind == RK_MWR) begin
                    a_state <= A_W1;
                end else if (a_kind == RK_MRD) begin
                    mmio_we <= 1'b0;
                    mmio_valid <= 1'b1;
                    a_state <= A_MMIO;
                end else begin
                    a_state <= A_BEAT;
                end
            end
            A_W1: begin
                mmio_wdata <= rr_data;
                mmio_we <= 1'b1;
                mmio_valid <= 1'b1;
                a_state <= A_MMIO;
            end
            A_MMIO: if (mmio_ready) begin
                mmio_valid <= 1'b0;
                a_state <= mmio_we ? A_IDLE : A_RD;
            end
            A_RD: if (mmio_rvalid) begin
                reply_data <= mmio_rdata;
                reply_valid <= 1'b1;
                a_state <= A_REP;
            end
            A_REP: if (reply_taken) begin
                reply_valid <= 1'b0;
                a_state <= A_IDLE;
            end
            A_BEAT: if (dmar_rsp_ready) begin
                a_left <= a_left - FOUR;
                a_state <= dmar_rsp_last ? A_IDLE : A_BRD;
            end
            A_BRD: a_state <= A_BEAT;
            default: a_state <= A_IDLE;
            endcase
        end
    end

    // kept and applied frames, the ack we owe, the receive slots' contents
    integer ri;
    always @(posedge clk) begin
        if (lrst) begin
            rx_count <= {(RXB+1){1'b0}};
            rx_wp <= {RXB{1'b0}};
            rx_rp <= {RXB{1'b0}};
            rx_expected <= {SQ{1'b0}};
            rx_applied <= {SQ{1'b0}};
            ack_pending <= 1'b0;
            for (ri = 0; ri < RXF; ri = ri + 1) begin
                rs_kind[ri] <= RK_DATA;
                rs_tag[ri] <= 8'd0;
                rs_len[ri] <= {IW{1'b0}};
            end
        end else begin
            if (take) begin
                rs_kind[rx_wp] <= h_type == T_MWR ? RK_MWR : h_type == T_MRD ? RK_MRD : RK_DATA;
                rs_tag[rx_wp] <= h_tag;
                rs_len[rx_wp] <= d_data;
                rx_wp <= rx_wp + 1'b1;
                rx_expected <= rx_expected + 1'b1;
            end
            if (a_release) begin
                rx_rp <= rx_rp + 1'b1;
                rx_applied <= rx_applied + 1'b1;
            end
            if (take && !a_release) rx_count <= rx_count + 1'b1;
            if (!take && a_release) rx_count <= rx_count - 1'b1;
            if (tx_ack_sent) ack_pending <= 1'b0;
            // applied frames are owed an ack; a frame out of turn (a
            // duplicate, or one after a gap) is answered with where we are
            if (a_release || (sound && sequenced && !take)) ack_pending <= 1'b1;
        end
    end

    // ---- reset ----------------------------------------------------------------
    always @(posedge clk) begin
        core_rst <= lrst;
        if (rst) begin
            lr_cnt <= 5'd0;
            last_nonce <= 32'd0;
            nonce_valid <= 1'b0;
            rdone_pending <= 1'b0;
            link_up <= 1'b0;
        end else begin
            if (lr_cnt != 5'd0) lr_cnt <= lr_cnt - 5'd1;
            if (lr_cnt == 5'd1) begin
                rdone_pending <= 1'b1;
                link_up <= 1'b1;
            end
            if (rdone_start) rdone_pending <= 1'b0;
            if (sound && h_type == T_RESET) begin
                if (!nonce_valid || h_nonce != last_nonce) begin
                    lr_cnt <= RESET_CYCLES[4:0];
                    last_nonce <= h_nonce;
                    nonce_valid <= 1'b1;
                    rdone_pending <= 1'b0;
                end else if (lr_cnt == 5'd0) begin
                    rdone_pending <= 1'b1;      // RESET_DONE was lost: again
                end
            end
        end
    end

    // ---- fill -----------------------------------------------------------------
    // Frames are numbered in the order they are complete, not begun: a DMA
    // write's request comes before its data, and its data may wait for a DMA
    // read of the core's own (a WRITE's payload on its way through the
    // loopback), so the write fills a slot of its own (the write filler)
    // while reads, notifications and read answers fill others (the small
    // filler), and each gets its seq when it is whole. order[seq] says which
    // slot holds frame seq; a slot is free again once its frame is
    // acknowledged. Only one DMA write is on the core's channel at a time.
    reg  [SQ-1:0]  tx_base;            // oldest unacknowledged frame
    reg  [SQ-1:0]  tx_next;            // next frame to send
    reg  [SQ-1:0]  tx_sent;            // one past the newest frame sent
    reg  [SQ-1:0]  tx_fill;            // the seq the next whole frame gets
    reg  [TXB-1:0] order   [0:TXF-1];  // slot of frame seq, by seq mod TXF
    reg  [TXF-1:0] slot_used;          // held by a frame being filled or unacknowledged
    // each slot's frame: what it is, tag, bytes after the header; of the
    // four sequenced types the NIC sends, two bits say which
    localparam [1:0] TK_NTF   = 2'd0,  // NTF
                     TK_REPLY = 2'd1,  // MMIO_RD_REPLY
                     TK_DRREQ = 2'd2,  // DMA_RD_REQ
                     TK_DWR   = 2'd3;  // DMA_WR
    reg  [1:0]     ts_kind [0:TXF-1];
    reg  [7:0]     ts_tag  [0:TXF-1];
    reg  [IW-1:0]  ts_len  [0:TXF-1];
    reg            fr_slot;            // the frame being sent is a slot's
    reg  [TXB-1:0] fr_slot_no;
    wire           fr_busy;
    wire [SQ-1:0]  ack_adv;            // frames a sound ack from the host covers (transmit)
    wire           ack_new;

    // a free slot no frame is being sent from (a frame sent again may already
    // be acknowledged while it is sent): the lowest
    reg            free_any;
    reg  [TXB-1:0] free_slot;
    integer fi;
    always @* begin
        free_any = 1'b0;
        free_slot = {TXB{1'b0}};
        for (fi = TXF - 1; fi >= 0; fi = fi - 1)
            if (!slot_used[fi] && !(fr_busy && fr_slot && fr_slot_no == fi[TXB-1:0])) begin
                free_any = 1'b1;
                free_slot = fi[TXB-1:0];
            end
    end

    // -- the small filler: DMA read requests, notifications, read answers
    localparam [1:0] S_IDLE = 2'd0,    // choosing what to fill next
                     S_HI   = 2'd1,    // DMA read request: its address's high word
                     S_LEN  = 2'd2,    // DMA read request: its length
                     S_REP  = 2'd3;    // read answer: its data
    reg  [1:0]     s_state;
    reg  [TXB-1:0] s_slot;
    wire           s_pick = s_state == S_IDLE && !lrst && free_any;
    // the core's requests, held (see the top): taken whenever the holder is
    // empty, and held until their frame's words are written (a read's until
    // S_LEN, a write's until W_HI), so the fillers write them from here
    reg            rh_valid, wh_valid;
    reg  [63:0]    rh_addr, wh_addr;
    reg  [IW-1:0]  rh_len, wh_len;     // clamped to MAXD as they are taken
    reg  [TGW-1:0] rh_tag;
    wire           pick_r = s_pick && rh_valid && !rq_full;
    wire           pick_n = s_pick && !pick_r && ntf_valid;
    wire           pick_p = s_pick && !pick_r && !ntf_valid && reply_valid;
    wire           s_we   = pick_r || pick_n || pick_p || s_state != S_IDLE;
    wire           s_commit = pick_n || s_state == S_LEN || s_state == S_REP;
    assign dmar_req_ready = !rh_valid;
    assign ntf_ready      = pick_n;
    assign reply_taken    = pick_p;

    // -- the write filler: DMA writes
    localparam [1:0] W_IDLE = 2'd0,    // waiting for a DMA write request
                     W_HI   = 2'd1,    // its address's high word
                     W_DATA = 2'd2,    // its bytes
                     W_LAST = 2'd3;    // the last word padded out and written, then whole
    reg  [1:0]     w_state;
    reg  [TXB-1:0] w_slot;
    reg  [SW-1:0]  w_widx;             // next word of the slot to write
    reg  [IW-1:0]  w_left;             // bytes the request still has
    reg  [IW-1:0]  w_bytes;            // bytes in the slot after the header so far
    reg  [31:0]    w_beat;             // the beat being unpacked
    reg  [3:0]     w_keep;             //   its bytes not yet unpacked
    reg            w_beat_last;
    reg  [23:0]    w_asm;              //   bytes of the next word so far
    reg  [1:0]     w_apos;             //   how many
    // the write filler takes a slot when the small filler does not use the
    // RAM's write port this cycle
    wire           w_pick  = w_state == W_IDLE && !lrst && free_any && !s_we && wh_valid;
    // the lowest byte of the beat not yet unpacked
    wire [1:0]     w_lane = w_keep[0] ? 2'd0 : w_keep[1] ? 2'd1 : w_keep[2] ? 2'd2 : 2'd3;
    wire [7:0]     w_byte = w_beat[8*w_lane +: 8];
    // a byte is unpacked unless the small filler has the RAM's write port
    // this cycle and the byte would complete a word
    wire           w_step = w_state == W_DATA && w_keep != 4'd0 && !(s_we && w_apos == 2'd3);
    wire           w_take = w_step && w_left != {IW{1'b0}};
    // after the last byte, bytes of padding (never sent: the frame's length
    // ends before them) complete the last word, so that every word goes
    // out of w_asm the same way, with no shifter for a short last word
    wire           w_pad = w_state == W_LAST && w_apos != 2'd0 && !s_we;
    wire           w_commit = w_state == W_LAST && w_apos == 2'd0 && !s_commit;
    assign dmaw_req_ready = !wh_valid;
    assign dmaw_dat_ready = w_state == W_DATA && w_keep == 4'd0 && !w_beat_last;

    // the TX RAM's one write port: the small filler first
    reg              tw_en;
    reg  [TXB-1:0]   tw_slot;
    reg  [SW-1:0]    tw_idx;
    reg  [31:0]      tw_data;
    always @* begin
        tw_en = 1'b1;
        tw_slot = s_slot;
        tw_idx = {SW{1'b0}};
        tw_data = 32'd0;
        if (pick_r) begin
            tw_slot = free_slot; tw_data = rh_addr[31:0];
        end else if (pick_n) begin
            tw_slot = free_slot; tw_data = ntf_data;
        end else if (pick_p) begin
            tw_slot = free_slot; tw_data = {16'd0, mmio_addr};
        end else if (s_state == S_HI) begin
            tw_idx = W_DMA_HI; tw_data = rh_addr[63:32];
        end else if (s_state == S_LEN) begin
            tw_idx = W_DMA_LEN; tw_data = {{(32-IW){1'b0}}, rh_len};
        end else if (s_state == S_REP) begin
            tw_idx = W_MMIO_DATA; tw_data = reply_data;
        end else if (w_pick) begin
            tw_slot = free_slot; tw_data = wh_addr[31:0];
        end else if (w_state == W_HI) begin
            tw_slot = w_slot; tw_idx = W_DMA_HI; tw_data = wh_addr[63:32];
        end else if ((w_take || w_pad) && w_apos == 2'd3) begin
            tw_slot = w_slot; tw_idx = w_widx; tw_data = {w_byte, w_asm};
        end else begin
            tw_en = 1'b0;
        end
    end

    // a word below 2^TSW goes to u_tx_ram, one past it to u_tx_xram
    // (above); tr_x says which RAM the word read last is in. The framer
    // and the apply engine look at a RAM's rd_data only after reading it
    // (RD_INIT 0: no zero before the first read, WIDTH LUTs on the iCE40)
    wire [TXB-1:0]    tr_slot;
    wire [SW-1:0]     tr_idx;
    wire              tr_en;
    reg               tr_x;
    wire [31:0]       tr_data_m, tr_data_x;
    wire [31:0]       tr_data = tr_x ? tr_data_x : tr_data_m;
    wire              tw_x = tw_idx[SW-1:TSW] != {(SW-TSW){1'b0}};
    qpnic_ram_sdp #(.WIDTH(32), .AW(TXB + TSW), .CLEAR(0), .RDW_OLD(0), .RD_INIT(0), .STYLE("block")) u_tx_ram (
        .clk(clk), .rst(rst), .busy(unused_tx_busy),
        .wr_en(tw_en && !tw_x), .wr_addr({tw_slot, tw_idx[TSW-1:0]}), .wr_data(tw_data),
        .rd_en(tr_en), .rd_addr({tr_slot, tr_idx[TSW-1:0]}), .rd_data(tr_data_m));
    qpnic_ram_sdp #(.WIDTH(32), .AW(TXB + XB), .CLEAR(0), .RDW_OLD(0), .RD_INIT(0), .STYLE("block")) u_tx_xram (
        .clk(clk), .rst(rst), .busy(unused_tx_xbusy),
        .wr_en(tw_en && tw_x), .wr_addr({tw_slot, tw_idx[XB-1:0]}), .wr_data(tw_data),
        .rd_en(tr_en), .rd_addr({tr_slot, tr_idx[XB-1:0]}), .rd_data(tr_data_x));
    always @(posedge clk)
        if (rst) tr_x <= 1'b0;
        else if (tr_en) tr_x <= tr_idx[SW-1:TSW] != {(SW-TSW){1'b0}};

    // a frame is whole: it gets seq tx_fill (the small filler's first)
    wire           commit   = s_commit || w_commit;
    wire [TXB-1:0] c_slot   = s_commit ? (pick_n ? free_slot : s_slot) : w_slot;
    wire [1:0]     c_kind   = pick_n ? TK_NTF : s_state == S_REP ? TK_REPLY : s_state == S_LEN ? TK_DRREQ : TK_DWR;
    wire [7:0]     c_tag    = s_state == S_REP ? a_tag : s_state == S_LEN ? {{(8-TGW){1'b0}}, rh_tag} : 8'd0;
    wire [IW-1:0]  c_len    = pick_n ? LEN_NTF : s_state == S_REP ? LEN_REPLY : s_state == S_LEN ? LEN_DRREQ
                            : w_bytes;

    always @(posedge clk) begin
        if (lrst) begin
            rh_valid <= 1'b0;
            wh_valid <= 1'b0;
            rh_addr <= 64'd0;
            wh_addr <= 64'd0;
            rh_len <= {IW{1'b0}};
            wh_len <= {IW{1'b0}};
            rh_tag <= {TGW{1'b0}};
        end else begin
            // never more than a slot holds, whatever len says
            if (dmar_req_valid && !rh_valid) begin
                rh_valid <= 1'b1;
                rh_addr <= dmar_req_addr;
                rh_len <= dmar_req_len > MAXD ? MAXD_B : dmar_req_len[IW-1:0];
                rh_tag <= dmar_req_tag;
            end else if (s_state == S_LEN) begin
                rh_valid <= 1'b0;
            end
            if (dmaw_req_valid && !wh_valid) begin
                wh_valid <= 1'b1;
                wh_addr <= dmaw_req_addr;
                wh_len <= dmaw_req_len > MAXD ? MAXD_B : dmaw_req_len[IW-1:0];
            end else if (w_state == W_HI && !s_we) begin
                wh_valid <= 1'b0;
            end
        end
    end

    integer ti;
    always @(posedge clk) begin
        if (lrst) begin
            s_state <= S_IDLE;
            s_slot <= {TXB{1'b0}};
            w_state <= W_IDLE;
            w_slot <= {TXB{1'b0}};
            w_widx <= {SW{1'b0}};
            w_left <= {IW{1'b0}};
            w_bytes <= {IW{1'b0}};
            w_beat <= 32'd0;
            w_keep <= 4'd0;
            w_beat_last <= 1'b0;
            w_asm <= 24'd0;
            w_apos <= 2'd0;
            rq_wp <= {(RQB+1){1'b0}};
            rq_kp <= {(RQB+1){1'b0}};
            rq_ap <= {(RQB+1){1'b0}};
            for (ti = 0; ti < RD_OPEN; ti = ti + 1) begin
                rq_tag[ti] <= {TGW{1'b0}};
                rq_len[ti] <= {IW{1'b0}};
            end
            tx_fill <= {SQ{1'b0}};
            slot_used <= {TXF{1'b0}};
            for (ti = 0; ti < TXF; ti = ti + 1) begin
                order[ti] <= {TXB{1'b0}};
                ts_kind[ti] <= TK_NTF;
                ts_tag[ti] <= 8'd0;
                ts_len[ti] <= {IW{1'b0}};
            end
        end else begin
            if (take && h_type == T_DRDATA) rq_kp <= rq_kp + 1'b1;
            if (beat_go && dmar_rsp_last) rq_ap <= rq_ap + 1'b1;

            // slots: taken by a pick, free again when their frame is acknowledged
            for (ti = 0; ti < TXF; ti = ti + 1)
                if (ack_new && ti[SQ-1:0] < ack_adv)
                    slot_used[order[tx_base[TXB-1:0] + ti[TXB-1:0]]] <= 1'b0;
            if (pick_r || pick_n || pick_p || w_pick) slot_used[free_slot] <= 1'b1;

            // the small filler
            case (s_state)
            S_IDLE: begin
                if (pick_r) begin
                    s_slot <= free_slot;
                    rq_tag[rq_wp[RQB-1:0]] <= rh_tag;
                    rq_len[rq_wp[RQB-1:0]] <= rh_len;
                    rq_wp <= rq_wp + 1'b1;
                    s_state <= S_HI;
                end
                if (pick_p) begin
                    s_slot <= free_slot;
                    s_state <= S_REP;
                end
            end
            S_HI: s_state <= S_LEN;
            default: s_state <= S_IDLE;    // S_LEN, S_REP: whole
            endcase

            // the write filler
            case (w_state)
            W_IDLE: if (w_pick) begin
                w_slot <= free_slot;
                w_widx <= W_DMA_LEN;          // after its address's two words
                w_left <= wh_len;
                w_bytes <= LEN_DWR;           // the address's words
                w_state <= W_HI;
            end
            W_HI: if (!s_we) w_state <= W_DATA;
            W_DATA: begin
                if (dmaw_dat_valid && dmaw_dat_ready) begin
                    w_beat <= dmaw_dat_data;
                    w_keep <= dmaw_dat_keep;
                    w_beat_last <= dmaw_dat_last;
                end else if (w_step) begin
                    w_keep[w_lane] <= 1'b0;
                    if (w_take) begin
                        // the byte goes to the slot (bytes past len are dropped)
                        w_asm <= {w_byte, w_asm[23:8]};
                        w_apos <= w_apos + 2'd1;
                        w_left <= w_left - 1'b1;
                        w_bytes <= w_bytes + 1'b1;
                        if (w_apos == 2'd3) w_widx <= w_widx + 1'b1;
                    end
                end else if (w_keep == 4'd0 && w_beat_last) begin
                    w_state <= W_LAST;
                end
            end
            default: begin                   // W_LAST
                if (w_pad) begin
                    w_asm <= {w_byte, w_asm[23:8]};
                    w_apos <= w_apos + 2'd1;
                end
                if (w_commit) begin
                    w_beat_last <= 1'b0;
                    w_state <= W_IDLE;
                end
            end
            endcase

            if (commit) begin
                order[tx_fill[TXB-1:0]] <= c_slot;
                ts_kind[c_slot] <= c_kind;
                ts_tag[c_slot]  <= c_tag;
                ts_len[c_slot]  <= c_len;
                tx_fill <= tx_fill + 1'b1;
            end
        end
    end

    // ---- transmit -------------------------------------------------------------
    // a frame starts in the cycle it is chosen: its header and length go
    // straight into the framer, which copies them (no register of ours)
    wire           fr_start;
    reg  [31:0]    fr_hdr;
    reg  [IW-1:0]  fr_nbytes;
    wire           fr_rd;
    wire [IW-3:0]  fr_widx;
    // RESET_DONE's words, which are no slot's: its nonce, then CAPS. Which
    // one was asked for is all that is kept: last_nonce changes only at a
    // RESET with a new nonce, whose lrst cuts the frame being sent.
    reg            fr_reg_caps;
    wire [31:0]    fr_reg_word = fr_reg_caps ? CAPS : last_nonce;
    // cycles the oldest unacknowledged frame has waited, in as many bits as
    // RTO_CYCLES needs (18 for a board's 20 ms at 12 MHz)
    localparam RTW = $clog2(RTO_CYCLES + 1);
    reg  [RTW-1:0] rto;
    qpnic_link_framer #(.IW(IW)) u_framer (
        .clk(clk), .rst(rst), .start(fr_start), .hdr(fr_hdr), .nbytes(fr_nbytes),
        .word_rd(fr_rd), .word_idx(fr_widx), .word_data(fr_slot ? tr_data : fr_reg_word),
        .cut(lrst && !rst), .busy(fr_busy),
        .out_valid(tx_valid), .out_ready(tx_ready), .out_data(tx_data));
    assign tr_en   = fr_rd && fr_slot;
    assign tr_slot = fr_slot_no;
    assign tr_idx  = fr_widx[SW-1:0];

    wire           fr_free   = !fr_busy && !lrst;
    assign         rdone_start = fr_free && rdone_pending;
    wire           slot_start  = fr_free && !rdone_pending && tx_next != tx_fill;
    wire           ack_start   = fr_free && !rdone_pending && tx_next == tx_fill && ack_pending && link_up;
    assign         tx_ack_sent = slot_start || ack_start;
    assign         fr_start    = rdone_start || tx_ack_sent;
    wire [TXB-1:0] nslot = order[tx_next[TXB-1:0]];
    wire [1:0]     n_kind = ts_kind[nslot];
    wire [7:0]     n_type = n_kind == TK_NTF ? T_NTF : n_kind == TK_REPLY ? T_REPLY
                          : n_kind == TK_DRREQ ? T_DRREQ : T_DWR;
    always @* begin
        if (rdone_start) begin
            fr_hdr = {24'd0, T_RDONE};
            fr_nbytes = LEN_RDONE;
        end else if (slot_start) begin
            fr_hdr = {ts_tag[nslot], rx_applied, tx_next, n_type};
            fr_nbytes = ts_len[nslot];
        end else begin                      // an ACK
            fr_hdr = {8'd0, rx_applied, 8'd0, T_ACK};
            fr_nbytes = {IW{1'b0}};
        end
    end
    // an ack from the host: frames up to it, which must have been sent, are done
    assign ack_adv = h_ack - tx_base;
    assign ack_new = sound && h_type != T_RESET && ack_adv != {SQ{1'b0}}
                     && ack_adv <= tx_sent - tx_base;

    always @(posedge clk) begin
        if (fr_rd) begin
            fr_reg_caps <= fr_widx != {(IW-2){1'b0}};
        end
        if (lrst) begin
            fr_slot <= 1'b0;
            fr_slot_no <= {TXB{1'b0}};
            tx_base <= {SQ{1'b0}};
            tx_next <= {SQ{1'b0}};
            tx_sent <= {SQ{1'b0}};
            rto <= {RTW{1'b0}};
            if (rst) fr_reg_caps <= 1'b0;
        end else begin
            if (fr_start) fr_slot <= slot_start;
            if (slot_start) fr_slot_no <= nslot;
            // tx_next: one on for a frame started; past what an ack covers;
            // back to the oldest unacknowledged frame when its time is up
            if (ack_new) begin
                tx_base <= h_ack;
                rto <= {RTW{1'b0}};
                if (h_ack - tx_base > tx_next + {{(SQ-1){1'b0}}, slot_start} - tx_base)
                    tx_next <= h_ack;
                else if (slot_start)
                    tx_next <= tx_next + 1'b1;
            end else if (tx_base != tx_sent && rto == RTO_CYCLES[RTW-1:0]) begin
                tx_next <= tx_base;
                rto <= {RTW{1'b0}};
            end else begin
                if (slot_start) tx_next <= tx_next + 1'b1;
                rto <= tx_base != tx_sent ? rto + 1'b1 : {RTW{1'b0}};
            end
            if (slot_start && tx_next == tx_sent) tx_sent <= tx_sent + 1'b1;
        end
    end

    always @(posedge clk) begin
        activity <= !rst && ((sound && (take || !sequenced)) || fr_start);
        error <= !rst && d_done && (!sound || misfit);
    end

    // lint: a request's length above MAXD only matters in the clamps above
    wire unused = &{1'b0, dmaw_req_len[15:IW], dmar_req_len[15:IW], unused_rx_busy, unused_tx_busy,
                    unused_tx_xbusy};
endmodule
