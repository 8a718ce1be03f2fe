// qpnic_roce_rx: RoCEv2 frames in, port packets out, a frame kept only if
// everything in it checks (docs/wire.md, "Framing"). The inverse of
// qpnic_roce_tx: byte k of the frame arrives in beat k/4, lane k%4.
//
// What a frame must be to be kept (else it is dropped whole and counted
// under one reason: the first of these it fails, in this order):
//   header   EtherType IPv4; a 5-word IPv4 header whose checksum holds,
//            protocol UDP, not a fragment; UDP destination port 4791; UDP
//            length = IPv4 length - 20 and a multiple of 4; BTH version
//            0 and an opcode the NIC knows; the headers' lengths leave a
//            payload of 0 bytes or more; the frame holds all of ip_len
//            (bytes after it, a MAC's padding of a short frame, are
//            ignored); the packet fits the buffer
//   address  Ethernet destination cfg_mac and IPv4 destination cfg_ip;
//            an IPv4 source in the peer table (its index, the lowest
//            that matches, is the packet's LRH peer: entry 0 is this NIC)
//   icrc     the ICRC matches the bytes it covers
// The ICRC comes last, so the frame's words wait in the buffer until it
// has been compared: they are written as they arrive (the LRH first: its
// peer word as the BTH's opcode arrives, its length word once the opcode
// and pad give the payload's length) and
// published to the reader (cp) only once the frame is whole and good;
// a dropped frame's words are forgotten by moving the write pointer back.
//
// The buffer is a block RAM of 2^LOG_DEPTH port words; a packet needs its
// words plus the LRH's two. When it is full the frame waits (in_ready low): the
// published packets before it drain to the responder and the completer
// independently of this frame, so the wait ends. A frame larger than the
// whole buffer could never fit and is dropped as a header error.
//
// Port words: the LRH (peer, payload bytes), the BTH and extension header with
// the first byte in bits 31:24, then the payload in lane order with keep
// on the last beat (the pad removed), as qpnic_responder and
// qpnic_completer read them. out_resp is high for the beats of a response
// (READ_RESPONSE_*, ACK: the completer's) and low for a request's.
//
// Parameters
//   LOG_DEPTH    log2 of the buffer's words (>= 11: a 4096-byte payload
//                and its headers)
// Ports
//   clk, rst                 clock, synchronous active-high reset
//   cfg_mac, cfg_ip          this NIC's addresses
//   peer_ip                  the peer table's IPv4 addresses, entry n at
//                            [32n +: 32] (entry 0 = cfg_ip; 0: unused)
//   in_*                     frames
//   out_*, out_resp          packets
//   frame_ok                 a pulse as a kept frame is published
//   drop_addr/hdr/icrc       a pulse as a frame is dropped, by reason
//   idle                     between frames, the buffer empty
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_roce_rx #(
    parameter LOG_DEPTH = 11
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [47:0] cfg_mac,
    input  wire [31:0] cfg_ip,
    input  wire [`QPNIC_NUM_PEERS*32-1:0] peer_ip,
    input  wire        in_valid,
    output wire        in_ready,
    input  wire [31:0] in_data,
    input  wire [3:0]  in_keep,
    input  wire        in_last,
    output wire        out_valid,
    input  wire        out_ready,
    output wire [31:0] out_data,
    output wire [3:0]  out_keep,
    output wire        out_last,
    output wire        out_resp,
    output reg         frame_ok,
    output reg         drop_addr,
    output reg         drop_hdr,
    output reg         drop_icrc,
    output wire        idle
);
    localparam DEPTH = 1 << LOG_DEPTH;
    // A buffer word: data, keep[3:1] (keep[0] is always set on the port),
    // last, resp.
    localparam BW = 37;

    `include "qpnic_roce.vh"
    localparam [31:0] CRC_START = crc_ones(8);

    // ------------------------------------------------------- the frame
    // bt: the beat of the frame (saturating at 11, the first beat that
    // completes a port word); j: port words completed so far (word j is
    // frame bytes 42 + 4j .. 45 + 4j: lanes 2, 3 of beat 10 + j and lanes
    // 0, 1 of beat 11 + j).
    // (the BTH's offset is 2 past a 4-byte boundary: port words straddle
    // beats by 2 bytes, word 0 completing in beat W0)
    localparam integer HB = `QPNIC_ROCE_HDR_BYTES;          // 42
    localparam integer W0_AT = (HB + 3) / 4;
    localparam [3:0]   W0 = W0_AT[3:0];                     // 11
    reg  [3:0]  bt;
    reg  [15:0] j;
    reg  [15:0] prev_hi;     // lanes 2, 3 of the last beat
    wire [31:0] d = in_data;
    wire [31:0] word = {d[15:0], prev_hi};   // port word j, lane order

    // the header's fields as they arrive
    reg  [47:0] dst_mac;
    reg  [15:0] etype, ip_len, dport, udp_len;
    reg  [15:0] frag;        // flags and fragment offset: MF and the offset must be 0
    reg  [7:0]  vihl, proto, opcode;
    // BTH byte 1: SE and MigReq (bits 7, 6) stay in the BTH word on the
    // port, unread here; padcnt and the version are checked
    /* verilator lint_off UNUSEDSIGNAL */
    reg  [7:0]  flags;
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [31:0] ip_dst, ip_src;
    reg  [19:0] csum;        // IPv4 header: sum of its 16-bit words
    reg  [31:0] crc;
    reg  [31:0] seen;        // frame bytes received
    // the frame's fate so far
    reg         bad_icrc, icrc_seen, writing;

    wire beat = in_valid && in_ready;

    // the opcode's extension header and class
    wire op_req  = is_request(opcode);
    wire op_resp = is_response(opcode);
    wire [4:0] ext = ext_bytes_of(opcode);
    wire [1:0]  pad = flags[5:4];           // BTH padcnt (byte 1 bits 5:4)
    // nw: port words after the LRH (BTH, extension, payload and pad), and
    // the payload's bytes; the ICRC is port word nw
    wire [15:0] nw   = (udp_len - 16'd12) >> 2;
    wire [16:0] plen = {1'b0, udp_len} - 17'd24 - {12'd0, ext} - {15'd0, pad};
    wire [16:0] csum1 = {1'b0, csum[15:0]} + {13'd0, csum[19:16]};
    wire [15:0] csum2 = csum1[15:0] + {15'd0, csum1[16]};
    wire hdr_ok = etype == `QPNIC_ROCE_ETH_TYPE_VALUE && vihl == `QPNIC_ROCE_IP_VIHL_VALUE &&
                  proto == `QPNIC_ROCE_IP_PROTO_VALUE && (frag & 16'h3FFF) == 16'd0 &&
                  csum2 == 16'hFFFF && dport == `QPNIC_ROCE_UDP_DPORT_VALUE &&
                  udp_len == ip_len - 16'd20 && udp_len[1:0] == 2'd0 &&
                  (op_req || op_resp) && flags[3:0] == 4'd0 && !plen[16] &&
                  ip_len >= 16'd20 && {1'b0, nw} + `QPNIC_LRH_WORDS <= DEPTH;
    // the source: the lowest peer table entry with its address
    localparam integer NP = `QPNIC_NUM_PEERS;
    reg         src_ok;
    reg  [`QPNIC_PEER_BITS-1:0] src_peer;
    integer     pn;
    always @* begin
        src_ok   = 1'b0;
        src_peer = {`QPNIC_PEER_BITS{1'b0}};
        for (pn = NP - 1; pn >= 0; pn = pn - 1)
            if (ip_src != 32'd0 && peer_ip[32*pn +: 32] == ip_src) begin
                src_ok   = 1'b1;
                src_peer = pn[`QPNIC_PEER_BITS-1:0];
            end
    end
    wire addr_ok = dst_mac == cfg_mac && ip_dst == cfg_ip && src_ok;

    // the last data word's keep: the pad's lanes are not payload
    wire        last_data  = (j == nw);      // word j - 1 (in pend) is the last
    // (keep[3:1]: lane 0 is always kept)
    wire [2:0]  pad_keep   = (pad == 2'd0) ? 3'b111 : (pad == 2'd1) ? 3'b011 :
                             (pad == 2'd2) ? 3'b001 : 3'b000;
    wire        pend_in_payload = (j > (16'd3 + {13'd0, ext[4:2]}));   // word j - 1 is payload

    // -------------------------------------------------------- the buffer
    reg  [LOG_DEPTH:0] wp, cp, rp;        // write, published, read (wrap bit)
    wire [LOG_DEPTH:0] held = wp - rp;
    wire full = (held == DEPTH[LOG_DEPTH:0]);
    reg  [31:0] pend;                     // port word j - 1, written a beat late
    // a write this beat: the LRH's peer word at beat 10 (the source is in;
    // the opcode, for the lane, arrives in this beat), its length word at
    // beat 11, else port word j - 1 while j <= nw; only while the frame is
    // still being kept (a frame dropped later forgets them all)
    wire at_peer = (bt == W0 - 4'd1);
    wire at_lrh  = (bt == W0) && (j == 16'd0);
    wire wr_now  = writing && (at_peer || (at_lrh ? (addr_ok && hdr_ok) : (j >= 16'd1 && j <= nw)));
    wire [7:0] opcode_now = in_data[8*(HB % 4) +: 8];   // at_peer: BTH byte 0
    assign in_ready = !(wr_now && full);

    // a header word in the port's byte order; BTH word 0's padcnt back to
    // 0 (the port's payloads are byte-exact), word 1's byte 4 (FECN, BECN,
    // reserved: a network may set them) to 0, as the port has no field there
    reg  [31:0] bth_word;
    always @* begin
        bth_word = bswap(pend);
        if (j == 16'd1) bth_word[`QPNIC_BTH_PADCNT] = 2'd0;
        if (j == 16'd2) bth_word[31:24] = 8'd0;
    end
    reg  [BW-1:0] wr_word;
    always @* begin
        if (at_peer) begin
            wr_word = {is_response(opcode_now), 1'b0, 3'b111, 32'd0};
            wr_word[`QPNIC_LRH_PEER] = src_peer;
        end else if (at_lrh)
            wr_word = {op_resp, 1'b0, 3'b111, 15'd0, plen};
        else
            wr_word = {op_resp, last_data,
                       (last_data && pend_in_payload) ? pad_keep : 3'b111,
                       pend_in_payload ? pend : bth_word};
    end

    wire ram_busy;
    wire ram_rd;
    wire [BW-1:0] ram_q;
    qpnic_ram_sdp #(.WIDTH(BW), .AW(LOG_DEPTH), .CLEAR(0), .RDW_OLD(0), .STYLE("block")) u_buf (
        .clk(clk), .rst(rst), .busy(ram_busy),
        .wr_en(beat && wr_now), .wr_addr(wp[LOG_DEPTH-1:0]), .wr_data(wr_word),
        .rd_en(ram_rd), .rd_addr(rp[LOG_DEPTH-1:0]), .rd_data(ram_q));

    // the reader: RAM reads into a 4-entry FIFO, at most 3 held or in flight
    reg        rd_inflight;
    wire [2:0] q_count;
    assign ram_rd = (rp != cp) && ({1'b0, q_count} + {3'd0, rd_inflight} <= 4'd2) && !ram_busy;
    qpnic_fifo #(.WIDTH(BW), .LOG_DEPTH(2)) u_out (
        .clk(clk), .rst(rst),
        // (never full: a read is issued only while at most 2 are held or in flight)
        /* verilator lint_off PINCONNECTEMPTY */
        .in_valid(rd_inflight), .in_ready(),
        /* verilator lint_on PINCONNECTEMPTY */
        .in_data(ram_q),
        .out_valid(out_valid), .out_ready(out_ready),
        .out_data({out_resp, out_last, out_keep[3:1], out_data}),
        .count(q_count));
    assign out_keep[0] = 1'b1;
    assign idle = (bt == 4'd0) && (wp == rp) && !rd_inflight && (q_count == 3'd0);

    // ---------------------------------------------------- frame parsing
    // Frame byte k comes in beat k / 4, lane k % 4. Where each field is
    // comes from the layout (frame roce): a field of n bytes at offset o is
    // taken byte by byte, big-endian, as its beats arrive.
    localparam integer IP_AT = `QPNIC_ROCE_IP_VIHL_OFF;                 // the ICRC starts here
    localparam integer IP_HDR = `QPNIC_ROCE_UDP_SPORT_OFF - IP_AT;      // 20 bytes
    integer fb;
`define TAKE(field, o, n) \
                for (fb = 0; fb < (n); fb = fb + 1) \
                    if ({28'd0, bt} == ((o) + fb) / 4) field[8*((n)-1-fb) +: 8] <= d[8*(((o) + fb) % 4) +: 8];
    // the fields the ICRC covers as all ones (icrc_mask in the layout)
    function automatic icrc_masked(input integer b);
        icrc_masked =
            (b >= `QPNIC_ROCE_IP_TOS_OFF   && b < `QPNIC_ROCE_IP_TOS_OFF   + `QPNIC_ROCE_IP_TOS_BYTES) ||
            (b >= `QPNIC_ROCE_IP_TTL_OFF   && b < `QPNIC_ROCE_IP_TTL_OFF   + `QPNIC_ROCE_IP_TTL_BYTES) ||
            (b >= `QPNIC_ROCE_IP_CSUM_OFF  && b < `QPNIC_ROCE_IP_CSUM_OFF  + `QPNIC_ROCE_IP_CSUM_BYTES) ||
            (b >= `QPNIC_ROCE_UDP_CSUM_OFF && b < `QPNIC_ROCE_UDP_CSUM_OFF + `QPNIC_ROCE_UDP_CSUM_BYTES);
    endfunction
    // half h of this beat (lanes 2h, 2h + 1) as an IPv4 header word, or 0
    function automatic [19:0] ip_word(input integer h);
        integer at;
        begin
            at = 4 * bt + 2 * h;
            ip_word = (at >= IP_AT && at < IP_AT + IP_HDR) ? {4'd0, d[16*h +: 8], d[16*h+8 +: 8]} : 20'd0;
        end
    endfunction

    // the bytes of this beat that the ICRC covers (from the IPv4 header on,
    // up to the ICRC) and its view of them (variant fields as all ones)
    reg [31:0] cview;
    reg [3:0]  cen;
    integer    l, k;
    always @* begin
        cview = d;
        cen   = 4'b0000;
        for (l = 0; l < 4; l = l + 1) begin
            k = 4 * bt + l;              // this lane's byte of the frame
            cen[l] = (k >= IP_AT) && (k < HB);
            if (icrc_masked(k)) cview[8*l +: 8] = 8'hFF;
        end
    end
    always @(posedge clk) begin
        frame_ok  <= 1'b0;
        drop_addr <= 1'b0;
        drop_hdr  <= 1'b0;
        drop_icrc <= 1'b0;
        if (rst) begin
            bt <= 4'd0; j <= 16'd0; prev_hi <= 16'd0; pend <= 32'd0;
            dst_mac <= 48'd0; etype <= 16'd0; ip_len <= 16'd0; frag <= 16'd0;
            dport <= 16'd0; udp_len <= 16'd0; vihl <= 8'd0; proto <= 8'd0;
            opcode <= 8'd0; flags <= 8'd0; ip_dst <= 32'd0; ip_src <= 32'd0; csum <= 20'd0;
            crc <= CRC_START; seen <= 32'd0;
            bad_icrc <= 1'b0; icrc_seen <= 1'b0;
            writing <= 1'b1;
            wp <= 0; cp <= 0; rp <= 0; rd_inflight <= 1'b0;
        end else begin
            rd_inflight <= ram_rd;
            if (ram_rd) rp <= rp + 1'b1;
            if (beat) begin
                prev_hi <= d[31:16];
                seen    <= seen_now;
                if (bt != W0) bt <= bt + 4'd1;
                // the header's fields, byte by byte as their beats come
                `TAKE(dst_mac, `QPNIC_ROCE_ETH_DST_OFF,   `QPNIC_ROCE_ETH_DST_BYTES)
                `TAKE(etype,   `QPNIC_ROCE_ETH_TYPE_OFF,  `QPNIC_ROCE_ETH_TYPE_BYTES)
                `TAKE(vihl,    `QPNIC_ROCE_IP_VIHL_OFF,   `QPNIC_ROCE_IP_VIHL_BYTES)
                `TAKE(ip_len,  `QPNIC_ROCE_IP_LEN_OFF,    `QPNIC_ROCE_IP_LEN_BYTES)
                `TAKE(frag,    `QPNIC_ROCE_IP_FRAG_OFF,   `QPNIC_ROCE_IP_FRAG_BYTES)
                `TAKE(proto,   `QPNIC_ROCE_IP_PROTO_OFF,  `QPNIC_ROCE_IP_PROTO_BYTES)
                `TAKE(ip_dst,  `QPNIC_ROCE_IP_DST_OFF,    `QPNIC_ROCE_IP_DST_BYTES)
                `TAKE(ip_src,  `QPNIC_ROCE_IP_SRC_OFF,    `QPNIC_ROCE_IP_SRC_BYTES)
                `TAKE(dport,   `QPNIC_ROCE_UDP_DPORT_OFF, `QPNIC_ROCE_UDP_DPORT_BYTES)
                `TAKE(udp_len, `QPNIC_ROCE_UDP_LEN_OFF,   `QPNIC_ROCE_UDP_LEN_BYTES)
                `TAKE(opcode,  HB, 1)            // BTH byte 0
                `TAKE(flags,   HB + 1, 1)        // BTH byte 1
                // the IPv4 header's 16-bit words (it starts 2-byte aligned)
                csum <= (bt == 4'd0 ? 20'd0 : csum) + ip_word(0) + ip_word(1);
                // the ICRC: the header's bytes by beat, then port words
                // 0 .. nw - 1 (BTH byte 4, word 1's lane 0, as all ones)
                if (bt < W0)
                    crc <= crc_word(bt == 4'd0 ? CRC_START : crc, cview, cen);
                else if (j < nw)
                    crc <= crc_word(crc, j == 16'd1 ? {word[31:8], 8'hFF} : word, 4'b1111);
                // port words, from beat 11
                if (bt == W0) begin
                    if (j == 16'd0) begin
                        // everything before the BTH's third word is in
                        if (!addr_ok || !hdr_ok) writing <= 1'b0;
                    end
                    if (j <= nw) pend <= word;
                    if (j == nw) begin
                        icrc_seen <= 1'b1;
                        if (word != ~crc) bad_icrc <= 1'b1;
                    end
                    if (j != 16'hFFFF) j <= j + 16'd1;   // (a frame of 256 KiB: dropped anyway)
                end
                if (wr_now) wp <= wp + 1'b1;
                if (in_last) begin
                    // the whole frame is in: keep it or forget it, counted
                    // under the first check it fails (the frame's length
                    // is a header check: it comes before the address)
                    if (writing && addr_ok && hdr_ok && len_ok_now && !bad_icrc_now) begin
                        cp <= wr_now ? wp + 1'b1 : wp;
                        frame_ok <= 1'b1;
                    end else begin
                        wp <= cp;
                        if (bt < W0 || !hdr_ok || !len_ok_now) drop_hdr <= 1'b1;
                        else if (!addr_ok) drop_addr <= 1'b1;
                        else drop_icrc <= 1'b1;
                    end
                    bt <= 4'd0; j <= 16'd0; writing <= 1'b1;
                    bad_icrc <= 1'b0; icrc_seen <= 1'b0;
                    seen <= 32'd0; crc <= CRC_START;
                end
            end
        end
    end
    // the ICRC's verdict including this beat (the frame's last beat may
    // carry the ICRC's last bytes)
    wire icrc_here    = (bt == W0) && (j == nw);
    wire icrc_seen_now = icrc_seen || icrc_here;
    wire bad_icrc_now  = bad_icrc || (icrc_here && word != ~crc);
    wire [31:0] seen_now = seen + {29'd0, keep_bytes(in_keep)};   // with this beat's
    // the frame holds all of ip_len, its ICRC's word among it
    wire len_ok_now = icrc_seen_now && seen_now >= {16'd0, ip_len} + 32'd14;
`ifndef SYNTHESIS
    // the 2-byte straddle above is built in
    initial if (HB % 4 != 2) $fatal(1, "qpnic_roce_rx: HDR_BYTES %0d is not 2 past a 4-byte boundary", HB);
    // the LRH's peer word goes in first (at_peer), then its length word
    initial if (`QPNIC_LRH_WORDS != 2 || `QPNIC_LRH_PEER_WORD != 0 || `QPNIC_LRH_PAYLOAD_BYTES_WORD != 1)
        $fatal(1, "qpnic_roce_rx: the LRH's words are not (peer, payload_bytes)");
    // the peer word's beat holds the BTH's opcode and the source address
    initial if (HB / 4 != W0_AT - 1 || `QPNIC_ROCE_IP_SRC_OFF + `QPNIC_ROCE_IP_SRC_BYTES > 4 * (W0_AT - 1))
        $fatal(1, "qpnic_roce_rx: the peer word's beat does not follow the source address");
`endif
`undef TAKE
endmodule

`default_nettype wire
