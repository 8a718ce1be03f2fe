// qpnic_wire: the datapath's two packet lanes onto one RoCEv2 frame port
// and back (docs/wire.md). qpnic_loopback is the other thing that can sit
// on the lanes; this one makes them a network port.
//
//   requests out  (txq) --\                                    /--> requests in  (rxq)
//                          merge -> qpnic_roce_tx -> frame_tx   |
//   responses out (txs) --/            frame_rx -> qpnic_roce_rx split
//                                                              \--> responses in (rxs)
//
// The merge takes whole packets, alternating between the lanes when both
// have one. The split goes by the packet's opcode (qpnic_roce_rx's
// out_resp): responses to the completer, requests to the responder.
//
// Parameters
//   RX_LOG_DEPTH   log2 of the receive buffer's words (qpnic_roce_rx)
// Ports
//   clk, rst                 clock, synchronous active-high reset
//   cfg_mac, cfg_ip          this NIC's MAC and IPv4 address
//   peer_mac, peer_ip        the peer table (qpnic_csr): entry n at
//                            [48n +: 48], [32n +: 32]; a frame goes to its
//                            packet's LRH peer, and one received carries the
//                            entry of its source (docs/wire.md, "Two NICs")
//   txq_*, txs_*             packets from the datapath: requests (from the
//                            requester's port FIFO), responses (from the
//                            responder's)
//   rxq_*, rxs_*             packets to the datapath: requests (to the
//                            responder), responses (to the completer)
//   ftx_*, frx_*             frames out and in (lane 0 first, keep, last)
//   cnt_*                    pulses: a frame sent, a frame received and
//                            kept, a frame dropped (not addressed here, a
//                            bad header or length, a bad ICRC); and
//                            cnt_tx_payload, a frame's payload bytes as it
//                            starts
//   idle                     no packet or frame inside, none half taken
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_wire #(
    parameter RX_LOG_DEPTH = 11
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [47:0] cfg_mac,
    input  wire [31:0] cfg_ip,
    input  wire [`QPNIC_NUM_PEERS*48-1:0] peer_mac,
    input  wire [`QPNIC_NUM_PEERS*32-1:0] peer_ip,
    input  wire        txq_valid,
    output wire        txq_ready,
    input  wire [31:0] txq_data,
    input  wire [3:0]  txq_keep,
    input  wire        txq_last,
    input  wire        txs_valid,
    output wire        txs_ready,
    input  wire [31:0] txs_data,
    input  wire [3:0]  txs_keep,
    input  wire        txs_last,
    output wire        rxq_valid,
    input  wire        rxq_ready,
    output wire [31:0] rxq_data,
    output wire [3:0]  rxq_keep,
    output wire        rxq_last,
    output wire        rxs_valid,
    input  wire        rxs_ready,
    output wire [31:0] rxs_data,
    output wire [3:0]  rxs_keep,
    output wire        rxs_last,
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
    output wire        cnt_tx_frame,
    output wire        cnt_rx_frame,
    output wire        cnt_drop_addr,
    output wire        cnt_drop_hdr,
    output wire        cnt_drop_icrc,
    output wire [12:0] cnt_tx_payload,
    output wire        idle
);
    // ---------------------------------------------------------- merge
    // busy: a packet is passing, from lane sel (0 requests, 1 responses);
    // between packets the lane that did not go last goes first.
    reg  busy, sel, last_sel;
    wire pick = busy ? sel : (last_sel ? !txq_valid : txs_valid);
    wire        m_valid = pick ? txs_valid : txq_valid;
    wire        m_ready;
    assign txq_ready = !pick && m_ready;
    assign txs_ready =  pick && m_ready;
    always @(posedge clk) begin
        if (rst) begin
            busy     <= 1'b0;
            sel      <= 1'b0;
            last_sel <= 1'b1;
        end else if (m_valid && m_ready) begin
            busy     <= !(pick ? txs_last : txq_last);
            sel      <= pick;
            last_sel <= pick;
        end
    end

    wire tx_idle, rx_idle;
    assign idle = tx_idle && rx_idle && !busy;

    // The frame's destination: its peer's entry, registered (the framer
    // reads it from the cycle after the LRH's peer word on, two cycles
    // before the header's checksum needs it), so that the header's byte
    // multiplexers see flip-flops, not the table's multiplexer.
    wire [`QPNIC_PEER_BITS-1:0] tx_peer;
    reg  [47:0] dst_mac;
    reg  [31:0] dst_ip;
    always @(posedge clk) begin
        dst_mac <= peer_mac[48*tx_peer +: 48];
        dst_ip  <= peer_ip[32*tx_peer +: 32];
    end
    qpnic_roce_tx u_tx (
        .clk(clk), .rst(rst),
        .cfg_mac(cfg_mac), .cfg_ip(cfg_ip), .peer(tx_peer),
        .cfg_peer_mac(dst_mac), .cfg_peer_ip(dst_ip),
        .in_valid(m_valid), .in_ready(m_ready),
        .in_data(pick ? txs_data : txq_data), .in_keep(pick ? txs_keep : txq_keep),
        .in_last(pick ? txs_last : txq_last),
        .out_valid(ftx_valid), .out_ready(ftx_ready), .out_data(ftx_data),
        .out_keep(ftx_keep), .out_last(ftx_last), .frame_sent(cnt_tx_frame),
        .frame_payload(cnt_tx_payload), .idle(tx_idle));

    // ---------------------------------------------------------- split
    wire        r_valid, r_resp;
    wire [31:0] r_data;
    wire [3:0]  r_keep;
    wire        r_last;
    qpnic_roce_rx #(.LOG_DEPTH(RX_LOG_DEPTH)) u_rx (
        .clk(clk), .rst(rst), .cfg_mac(cfg_mac), .cfg_ip(cfg_ip), .peer_ip(peer_ip),
        .in_valid(frx_valid), .in_ready(frx_ready), .in_data(frx_data),
        .in_keep(frx_keep), .in_last(frx_last),
        .out_valid(r_valid), .out_ready(r_resp ? rxs_ready : rxq_ready),
        .out_data(r_data), .out_keep(r_keep), .out_last(r_last), .out_resp(r_resp),
        .frame_ok(cnt_rx_frame), .drop_addr(cnt_drop_addr), .drop_hdr(cnt_drop_hdr),
        .drop_icrc(cnt_drop_icrc), .idle(rx_idle));
    assign rxq_valid = r_valid && !r_resp;
    assign rxs_valid = r_valid &&  r_resp;
    assign rxq_data  = r_data;
    assign rxs_data  = r_data;
    assign rxq_keep  = r_keep;
    assign rxs_keep  = r_keep;
    assign rxq_last  = r_last;
    assign rxs_last  = r_last;
endmodule

`default_nettype wire
