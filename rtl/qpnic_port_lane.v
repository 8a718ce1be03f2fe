// qpnic_port_lane: one lane of the packet port (requests, or responses) in
// a build with the RoCEv2 wire (docs/wire.md, "Two NICs"). Each packet the
// datapath sends goes where its LRH peer says: peer 0 is this NIC, and the
// packet loops back inside the lane, as qpnic_loopback does; any other
// peer is another NIC, and the packet goes to the wire. force_wire
// (the core's wire_en) sends every packet to the wire, this NIC's own
// included: the wire then loops them back as frames (qpnic-sim --wire).
// What comes back to the datapath is the looped packets and the wire's,
// whole packets, alternating when both have one.
//
//   tx (datapath) --peer 0--> loop ---------------------\
//                 \--peer n--> w_tx (wire)               merge --> rx (datapath)
//                              w_rx (wire) -------------/
//
// The route is taken from a packet's first beat (LRH word 0, the peer) and
// held to its last. The loop has no storage: a looped beat passes in the
// cycle it is offered, when the merge has picked the loop.
//
// Ports
//   clk, rst           clock, synchronous active-high reset
//   force_wire         every packet to the wire (held between packets)
//   tx_*               packets from the datapath (a port FIFO)
//   w_tx_*             packets to the wire (qpnic_wire's txq or txs)
//   w_rx_*             packets from the wire (its rxq or rxs)
//   rx_*               packets to the datapath (the responder or completer)
//   idle               no packet half through the route or the merge
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_port_lane (
    input  wire        clk,
    input  wire        rst,
    input  wire        force_wire,
    input  wire        tx_valid,
    output wire        tx_ready,
    input  wire [31:0] tx_data,
    input  wire [3:0]  tx_keep,
    input  wire        tx_last,
    output wire        w_tx_valid,
    input  wire        w_tx_ready,
    output wire [31:0] w_tx_data,
    output wire [3:0]  w_tx_keep,
    output wire        w_tx_last,
    input  wire        w_rx_valid,
    output wire        w_rx_ready,
    input  wire [31:0] w_rx_data,
    input  wire [3:0]  w_rx_keep,
    input  wire        w_rx_last,
    output wire        rx_valid,
    input  wire        rx_ready,
    output wire [31:0] rx_data,
    output wire [3:0]  rx_keep,
    output wire        rx_last,
    output wire        idle
);
    // ---------------------------------------------------------- route
    // t_mid: a packet is passing, to the wire if t_wire
    reg  t_mid, t_wire;
    wire to_wire = t_mid ? t_wire : (force_wire || tx_data[`QPNIC_LRH_PEER] != 0);
    wire l_valid = tx_valid && !to_wire;     // the loop's beat, to the merge
    wire l_ready;
    assign w_tx_valid = tx_valid && to_wire;
    assign w_tx_data  = tx_data;
    assign w_tx_keep  = tx_keep;
    assign w_tx_last  = tx_last;
    assign tx_ready   = to_wire ? w_tx_ready : l_ready;
    always @(posedge clk) begin
        if (rst) begin
            t_mid  <= 1'b0;
            t_wire <= 1'b0;
        end else if (tx_valid && tx_ready) begin
            t_mid  <= !tx_last;
            t_wire <= to_wire;
        end
    end

    // ---------------------------------------------------------- merge
    // m_mid: a packet is passing, from the wire if m_sel (else the loop);
    // between packets the side that did not go last goes first
    reg  m_mid, m_sel, m_last_sel;
    wire pick = m_mid ? m_sel : (m_last_sel ? !l_valid : w_rx_valid);
    assign rx_valid   = pick ? w_rx_valid : l_valid;
    assign rx_data    = pick ? w_rx_data  : tx_data;
    assign rx_keep    = pick ? w_rx_keep  : tx_keep;
    assign rx_last    = pick ? w_rx_last  : tx_last;
    assign w_rx_ready = pick && rx_ready;
    assign l_ready    = !pick && rx_ready;
    always @(posedge clk) begin
        if (rst) begin
            m_mid      <= 1'b0;
            m_sel      <= 1'b0;
            m_last_sel <= 1'b1;
        end else if (rx_valid && rx_ready) begin
            m_mid      <= !rx_last;
            m_sel      <= pick;
            m_last_sel <= pick;
        end
    end

    assign idle = !t_mid && !m_mid;
endmodule

`default_nettype wire
