// qpnic_roce_tx: one port packet in, one RoCEv2 frame out (docs/wire.md,
// "Framing"). The port packet is the datapath's word stream: the LRH's two
// words (the peer it goes to, the payload's length), the BTH, its extension header (RETH, AETH or IETH,
// by opcode) and the payload. The frame is what an Ethernet MAC sends:
// Ethernet II, IPv4, UDP to port 4791 (the layout's frame roce), then the
// BTH, the extension, the payload, its pad to a 4-byte boundary (BTH
// padcnt) and the ICRC.
//
// Byte order. Frame byte k leaves in beat k/4, lane k%4 (bits 8*(k%4)+7 :
// 8*(k%4)): the first byte in the low lane, as on the DMA streams. The
// port's header words are written with the first byte in bits 31:24 (the
// InfiniBand field positions of struct bth), so they are byte-swapped on
// the way out; payload words are in lane order already.
//
// How it runs. The LRH, BTH word 0 and BTH word 1 are read first: the
// destination addresses are the LRH peer's (peer, looked up outside), the
// lengths in the IPv4 and UDP headers need the opcode and the payload
// length, and the UDP source port the destination QP. Then chunks of 1 to 4
// bytes go through a byte packer, one a cycle: the 42-byte header in 11
// chunks (the EtherType's has 2 bytes, the others 4), BTH words 0 and 1
// from their registers, the rest of the packet a beat a cycle (a payload
// beat has as many bytes as its keep says: a gather ends an SGE with a
// partial beat), the pad, the ICRC. The packer keeps the 0 to 3 bytes that
// did not fill a beat for the next chunk; a frame is always 2 bytes past a
// 4-byte boundary (42 + a multiple of 4), so its last beat holds 2.
//
// The ICRC is computed as the chunks are pushed, before they are shifted,
// each chunk with its own view for the CRC: the Ethernet header is not
// covered, and the fields RoCEv2 calls variant (IPv4 TOS, TTL, checksum;
// UDP checksum; the BTH's byte 4) count as all ones.
//
// Parameters: none (the frame's fields are the layout's).
// Ports
//   clk, rst                 clock, synchronous active-high reset
//   cfg_mac, cfg_ip          this NIC's addresses (the frame's source)
//   peer                     the LRH peer of the frame being built, from
//                            its first word to its last beat
//   cfg_peer_mac, cfg_peer_ip  that peer's addresses (the frame's
//                            destination), looked up from peer; read from
//                            the third cycle after the LRH's peer word is
//                            taken (the checksum's) to the header's end
//   in_*                     one port packet at a time; in_keep is all ones
//                            but on the last payload beat
//   out_*                    the frame, a beat a cycle when out_ready
//   frame_sent               a pulse as a frame's last beat is taken
//   frame_payload            a frame's payload bytes, for one cycle as the
//                            frame starts (0 otherwise)
//   idle                     between frames, nothing held
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_roce_tx (
    input  wire        clk,
    input  wire        rst,
    input  wire [47:0] cfg_mac,
    input  wire [31:0] cfg_ip,
    output reg  [`QPNIC_PEER_BITS-1:0] peer,
    input  wire [47:0] cfg_peer_mac,
    input  wire [31:0] cfg_peer_ip,
    input  wire        in_valid,
    output wire        in_ready,
    input  wire [31:0] in_data,
    input  wire [3:0]  in_keep,
    input  wire        in_last,
    output reg         out_valid,
    input  wire        out_ready,
    output reg  [31:0] out_data,
    output reg  [3:0]  out_keep,
    output reg         out_last,
    output wire        frame_sent,
    output wire [12:0] frame_payload,
    output wire        idle
);
    localparam HB = `QPNIC_ROCE_HDR_BYTES;   // 42

    `include "qpnic_roce.vh"
    localparam [31:0] CRC_START = crc_ones(8);

    // ------------------------------------------------------------ state
    localparam [3:0] S_PEER = 4'd0, S_LRH = 4'd9, S_BTH0 = 4'd1, S_BTH1 = 4'd2, S_SUM = 4'd3,
                     S_HDR = 4'd4, S_BODY = 4'd5, S_PAD = 4'd6, S_ICRC = 4'd7, S_TAIL = 4'd8;
    // (the LRH's words in the layout's order: the peer's, then the length's)
`ifndef SYNTHESIS
    initial if (`QPNIC_LRH_PEER_WORD != 0 || `QPNIC_LRH_PAYLOAD_BYTES_WORD != 1)
        $fatal(1, "qpnic_roce_tx: the LRH's words are not (peer, payload_bytes)");
`endif
    reg  [3:0]  state;
    reg  [31:0] plen;        // payload bytes (LRH)
    reg  [31:0] bth0, bth1;  // BTH words 0 (padcnt set here) and 1
    reg  [1:0]  pad;
    reg  [4:0]  ext_bytes;   // the extension header's bytes (0, 4 or 16)
    reg  [2:0]  hdr_left;    // header words still to come after BTH word 1
    reg  [15:0] ip_len;
    reg  [15:0] ip_csum;
    reg  [3:0]  ci;          // S_HDR: the chunk being pushed (0 .. 12)
    reg  [31:0] crc;

    wire [7:0] opcode = in_data[`QPNIC_BTH_OPCODE];
    wire [4:0] ext_of = ext_bytes_of(opcode);
    wire [1:0] pad_of = 2'd0 - plen[1:0];

    // ------------------------------------------------------ the header
    // hdr: the 42 header bytes, byte k at bits 8*(HB-1-k) +: 8 (a field's
    // bytes big-endian, as on the wire); hcrc: the same with the variant
    // fields as all ones, the ICRC's view.
    reg [8*HB-1:0] hdr, hcrc;
    task automatic put(input integer off, input integer n, input [47:0] v, input mask);
        integer b;
        for (b = 0; b < n; b = b + 1) begin
            hdr [8*(HB-1-off-b) +: 8] = v[8*(n-1-b) +: 8];
            hcrc[8*(HB-1-off-b) +: 8] = mask ? 8'hFF : v[8*(n-1-b) +: 8];
        end
    endtask
    always @* begin
        hdr  = {8*HB{1'b0}};
        hcrc = {8*HB{1'b0}};
        put(`QPNIC_ROCE_ETH_DST_OFF,   `QPNIC_ROCE_ETH_DST_BYTES,   cfg_peer_mac, 1'b0);
        put(`QPNIC_ROCE_ETH_SRC_OFF,   `QPNIC_ROCE_ETH_SRC_BYTES,   cfg_mac, 1'b0);
        put(`QPNIC_ROCE_ETH_TYPE_OFF,  `QPNIC_ROCE_ETH_TYPE_BYTES,  {32'd0, `QPNIC_ROCE_ETH_TYPE_VALUE}, 1'b0);
        put(`QPNIC_ROCE_IP_VIHL_OFF,   `QPNIC_ROCE_IP_VIHL_BYTES,   {40'd0, `QPNIC_ROCE_IP_VIHL_VALUE}, 1'b0);
        put(`QPNIC_ROCE_IP_TOS_OFF,    `QPNIC_ROCE_IP_TOS_BYTES,    {40'd0, `QPNIC_ROCE_IP_TOS_VALUE}, 1'b1);
        put(`QPNIC_ROCE_IP_LEN_OFF,    `QPNIC_ROCE_IP_LEN_BYTES,    {32'd0, ip_len}, 1'b0);
        put(`QPNIC_ROCE_IP_ID_OFF,     `QPNIC_ROCE_IP_ID_BYTES,     {32'd0, `QPNIC_ROCE_IP_ID_VALUE}, 1'b0);
        put(`QPNIC_ROCE_IP_FRAG_OFF,   `QPNIC_ROCE_IP_FRAG_BYTES,   {32'd0, `QPNIC_ROCE_IP_FRAG_VALUE}, 1'b0);
        put(`QPNIC_ROCE_IP_TTL_OFF,    `QPNIC_ROCE_IP_TTL_BYTES,    {40'd0, `QPNIC_ROCE_IP_TTL_VALUE}, 1'b1);
        put(`QPNIC_ROCE_IP_PROTO_OFF,  `QPNIC_ROCE_IP_PROTO_BYTES,  {40'd0, `QPNIC_ROCE_IP_PROTO_VALUE}, 1'b0);
        put(`QPNIC_ROCE_IP_CSUM_OFF,   `QPNIC_ROCE_IP_CSUM_BYTES,   {32'd0, ip_csum}, 1'b1);
        put(`QPNIC_ROCE_IP_SRC_OFF,    `QPNIC_ROCE_IP_SRC_BYTES,    {16'd0, cfg_ip}, 1'b0);
        put(`QPNIC_ROCE_IP_DST_OFF,    `QPNIC_ROCE_IP_DST_BYTES,    {16'd0, cfg_peer_ip}, 1'b0);
        put(`QPNIC_ROCE_UDP_SPORT_OFF, `QPNIC_ROCE_UDP_SPORT_BYTES, {32'd0, 2'b11, bth1[13:0]}, 1'b0);
        put(`QPNIC_ROCE_UDP_DPORT_OFF, `QPNIC_ROCE_UDP_DPORT_BYTES, {32'd0, `QPNIC_ROCE_UDP_DPORT_VALUE}, 1'b0);
        put(`QPNIC_ROCE_UDP_LEN_OFF,   `QPNIC_ROCE_UDP_LEN_BYTES,   {32'd0, ip_len - 16'd20}, 1'b0);
        put(`QPNIC_ROCE_UDP_CSUM_OFF,  `QPNIC_ROCE_UDP_CSUM_BYTES,  {32'd0, `QPNIC_ROCE_UDP_CSUM_VALUE}, 1'b1);
    end

    // lane-order word of header bytes a .. a+3 (of hdr or of hcrc)
    function automatic [31:0] lanes_at(input [8*HB-1:0] h, input integer a);
        integer l;
        begin
            lanes_at = 32'd0;
            for (l = 0; l < 4; l = l + 1)
                if (a + l < HB) lanes_at[8*l +: 8] = h[8*(HB-1-a-l) +: 8];
        end
    endfunction
    // The header's chunks: 0..2 bytes 0..11, 3 the EtherType (2 bytes),
    // 4..10 bytes 14..41. Chunk c starts at byte 4c, or 4c - 2 from chunk 4 on.
    reg  [31:0] ch_word, ch_crc;
    reg  [3:0]  ch_crc_en;
    integer c;
    always @* begin
        ch_word   = 32'd0;
        ch_crc    = 32'd0;
        ch_crc_en = 4'b0000;
        for (c = 0; c <= 10; c = c + 1)
            if (ci == c[3:0]) begin
                ch_word   = lanes_at(hdr,  c < 4 ? 4*c : 4*c - 2);
                ch_crc    = lanes_at(hcrc, c < 4 ? 4*c : 4*c - 2);
                ch_crc_en = c < 4 ? 4'b0000 : 4'b1111;   // the ICRC starts at the IPv4 header
            end
        if (ci == 4'd11) begin                           // BTH word 0
            ch_word   = bswap(bth0);
            ch_crc    = ch_word;
            ch_crc_en = 4'b1111;
        end else if (ci == 4'd12) begin                  // BTH word 1: byte 4 of the BTH masked
            ch_word   = bswap(bth1);
            ch_crc    = {ch_word[31:8], 8'hFF};
            ch_crc_en = 4'b1111;
        end
    end

    // --------------------------------------------------------- pushing
    // One chunk a cycle (1 to 4 bytes, lane order) into a byte packer: the
    // bytes left over from the last beat (cbuf, cn of them) and the chunk's
    // make a beat when they are 4 or more; the rest waits for the next
    // chunk. Header chunks are 4 bytes but the EtherType's 2; a payload
    // beat of the port has as many bytes as its keep says (a gather leaves
    // a partial beat where an SGE ends, not only at the end); the pad and
    // the ICRC follow.
    wire can_push = !out_valid || out_ready;
    wire        body_hdr  = (hdr_left != 3'd0);
    // the body's chunk: a header word swapped, or a payload beat's kept
    // lanes (keep runs from lane 0), the others zero
    wire [31:0] body_word = body_hdr ? bswap(in_data)
                                     : in_data & {{8{in_keep[3]}}, {8{in_keep[2]}}, {8{in_keep[1]}}, {8{in_keep[0]}}};
    wire [2:0]  body_n    = body_hdr ? 3'd4 : keep_bytes(in_keep);
    reg  [23:0] cbuf;        // bytes not yet in a beat, lane order
    reg  [1:0]  cn;          // how many (0 .. 3)
    reg  [31:0] pk_word, pk_crc;
    reg  [2:0]  pk_n;
    reg  [3:0]  pk_crc_en;
    reg         pk_go;
    always @* begin
        pk_word   = 32'd0;
        pk_crc    = 32'd0;
        pk_n      = 3'd4;
        pk_crc_en = 4'b0000;
        pk_go     = 1'b0;
        case (state)
        S_HDR: begin
            pk_word   = ch_word;
            pk_crc    = ch_crc;
            pk_crc_en = ch_crc_en;
            pk_n      = (ci == 4'd3) ? 3'd2 : 3'd4;
            pk_go     = can_push;
        end
        S_BODY: begin
            pk_word   = body_word;
            pk_crc    = body_word;
            pk_n      = body_n;
            pk_crc_en = in_keep | {4{body_hdr}};
            pk_go     = in_valid && can_push;
        end
        S_PAD: begin                         // pad zeros: in the ICRC too
            pk_n      = {1'b0, pad};
            pk_crc_en = (pad == 2'd1) ? 4'b0001 : (pad == 2'd2) ? 4'b0011 : 4'b0111;
            pk_go     = can_push;
        end
        S_ICRC: begin                        // least significant byte first
            pk_word   = ~crc;
            pk_go     = can_push;
        end
        default: ;
        endcase
    end
    wire [55:0] comb = ({24'd0, pk_word} << {cn, 3'b000}) | {32'd0, cbuf};
    wire [3:0]  tot  = {2'd0, cn} + {1'b0, pk_n};
    wire        full = (tot >= 4'd4);

    assign in_ready   = (state == S_PEER) || (state == S_LRH) || (state == S_BTH0) || (state == S_BTH1) ||
                        ((state == S_BODY) && can_push);
    assign frame_sent = out_valid && out_ready && out_last;
    // (plen is at most WIRE_MAX_PAYLOAD, 4096: 13 bits; a larger one is
    // stopped below)
    assign frame_payload = (state == S_SUM) ? plen[12:0] : 13'd0;
    assign idle       = (state == S_PEER) && !out_valid;

    // the IPv4 header checksum (RFC 791): the ones' complement of the
    // ones' complement sum of its 16-bit words, checksum field 0
    wire [15:0] len_next = 16'd20 + 16'd8 + 16'd12 + {11'd0, ext_bytes} + plen[15:0] + {14'd0, pad} + 16'd4;
    wire [19:0] sum0 = {4'd0, `QPNIC_ROCE_IP_VIHL_VALUE, `QPNIC_ROCE_IP_TOS_VALUE} + {4'd0, len_next} +
                       {4'd0, `QPNIC_ROCE_IP_ID_VALUE} + {4'd0, `QPNIC_ROCE_IP_FRAG_VALUE} +
                       {4'd0, `QPNIC_ROCE_IP_TTL_VALUE, `QPNIC_ROCE_IP_PROTO_VALUE} +
                       {4'd0, cfg_ip[31:16]} + {4'd0, cfg_ip[15:0]} +
                       {4'd0, cfg_peer_ip[31:16]} + {4'd0, cfg_peer_ip[15:0]};
    wire [16:0] sum1 = {1'b0, sum0[15:0]} + {13'd0, sum0[19:16]};
    wire [15:0] sum2 = sum1[15:0] + {15'd0, sum1[16]};

    always @(posedge clk) begin
        if (rst) begin
            state     <= S_PEER;
            peer      <= {`QPNIC_PEER_BITS{1'b0}};
            out_valid <= 1'b0;
            out_data  <= 32'd0;
            out_keep  <= 4'd0;
            out_last  <= 1'b0;
            plen      <= 32'd0;
            bth0      <= 32'd0;
            bth1      <= 32'd0;
            pad       <= 2'd0;
            ext_bytes <= 5'd0;
            hdr_left  <= 3'd0;
            ip_len    <= 16'd0;
            ip_csum   <= 16'd0;
            ci        <= 4'd0;
            cbuf      <= 24'd0;
            cn        <= 2'd0;
            crc       <= CRC_START;
        end else begin
            if (out_valid && out_ready) out_valid <= 1'b0;
            case (state)
            S_PEER: if (in_valid) begin
                peer  <= in_data[`QPNIC_LRH_PEER];
                state <= S_LRH;
            end
            S_LRH: if (in_valid) begin
                plen  <= in_data[`QPNIC_LRH_PAYLOAD_BYTES];
                state <= S_BTH0;
            end
            S_BTH0: if (in_valid) begin
                bth0 <= in_data;
                bth0[`QPNIC_BTH_PADCNT] <= pad_of;
                pad       <= pad_of;
                ext_bytes <= ext_of;
                hdr_left  <= 3'd1 + ext_of[4:2];   // BTH word 2, then the extension
                state     <= S_BTH1;
            end
            S_BTH1: if (in_valid) begin
                bth1  <= in_data;
                state <= S_SUM;
            end
            S_SUM: begin
                ip_len  <= len_next;
                ip_csum <= ~sum2;
                ci      <= 4'd0;
                crc     <= CRC_START;
                state   <= S_HDR;
            end
            default: ;
            endcase
            // every state that pushes: the packer, the CRC, the next state
            if (pk_go) begin
                if (state != S_ICRC) crc <= crc_word(crc, pk_crc, pk_crc_en);
                if (full) begin
                    out_valid <= 1'b1;
                    out_data  <= comb[31:0];
                    out_keep  <= 4'b1111;
                    out_last  <= (state == S_ICRC) && (tot == 4'd4);
                    cbuf      <= comb[55:32];
                    cn        <= tot[1:0];   // tot - 4
                end else begin
                    cbuf      <= comb[23:0];
                    cn        <= tot[1:0];
                end
                case (state)
                S_HDR: begin
                    ci <= ci + 4'd1;
                    if (ci == 4'd12) state <= S_BODY;
                end
                S_BODY: begin
                    if (body_hdr) hdr_left <= hdr_left - 3'd1;
                    if (in_last)  state <= (pad != 2'd0) ? S_PAD : S_ICRC;
                end
                S_PAD:  state <= S_ICRC;
                S_ICRC: state <= (tot == 4'd4) ? S_PEER : S_TAIL;
                default: ;
                endcase
            end
            if (state == S_TAIL && can_push) begin
                // the last bytes alone (a frame is 42 + a multiple of 4:
                // always 2 here)
                out_valid <= 1'b1;
                out_data  <= {8'd0, cbuf};
                out_keep  <= (cn == 2'd1) ? 4'b0001 : (cn == 2'd2) ? 4'b0011 : 4'b0111;
                out_last  <= 1'b1;
                cbuf      <= 24'd0;
                cn        <= 2'd0;
                state     <= S_PEER;
            end
        end
    end

`ifndef SYNTHESIS
    // The datapath's packets are well formed; a bad one is a bug upstream.
    always @(posedge clk)
        if (!rst && in_valid && in_ready && in_last && state != S_BODY)
            $error("qpnic_roce_tx: a port packet ended inside its BTH");
    // Messages are not yet segmented at a path MTU (docs/wire.md): a
    // packet whose payload exceeds the largest MTU has no frame.
    always @(posedge clk)
        if (!rst && state == S_SUM && plen > `QPNIC_WIRE_MAX_PAYLOAD)
            $fatal(1, "qpnic_roce_tx: a %0d-byte packet: the wire takes packets of up to %0d bytes (the requester and responder refuse larger ones: a bug upstream)",
                   plen, `QPNIC_WIRE_MAX_PAYLOAD);
`endif
endmodule

`default_nettype wire
