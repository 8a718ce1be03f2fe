// qpnic_loopback: the datapath's packet port joined to itself: requests
// out become requests in, responses out become responses in. One NIC's QPs
// talk to each other through it with nothing between them: the build for a
// board with no network port, and the simulator's default. qpnic_wire is
// the other thing that attaches to the port (docs/wire.md).
//
// Ports
//   txq_*, txs_*   from the datapath: requests, responses
//   rxq_*, rxs_*   to the datapath: the same beats, the same cycle
`default_nettype none

module qpnic_loopback (
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
    output wire        rxs_last
);
    assign rxq_valid = txq_valid;
    assign txq_ready = rxq_ready;
    assign rxq_data  = txq_data;
    assign rxq_keep  = txq_keep;
    assign rxq_last  = txq_last;
    assign rxs_valid = txs_valid;
    assign txs_ready = rxs_ready;
    assign rxs_data  = txs_data;
    assign rxs_keep  = txs_keep;
    assign rxs_last  = txs_last;
endmodule

`default_nettype wire
