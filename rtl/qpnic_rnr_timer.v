// qpnic_rnr_timer: the receiver-not-ready timer of every QP at once.
//
// The completer pushes a QP here when it rewinds it after an RNR NAK
// (docs/internals.md "Receiver not ready"); RNR_TIMER_CYCLES later the QP
// is due, and the completer wakes it (qpnic_qp_table RNR_WAKE). Every QP
// waits the same time, so deadlines come in the order the QPs went in: one
// FIFO of (deadline, QP) does, and only its head is ever compared with the
// clock. A QP is here at most once (it waits, with rnr_wait set, until its
// wake, and only a SEND sent again can rewind it again), so a FIFO of
// 2^QW >= NUM_QP entries never overflows.
//
// Parameters
//   QW          bits of a QP number
//   CYCLES      the wait (`QPNIC_RNR_TIMER_CYCLES), below 2^23
// Ports
//   in_valid, in_qpn     a QP starts its wait this cycle
//   due_valid, due_qpn   the head's wait is over; due_ready takes it
//   idle                 no QP waits
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_rnr_timer #(
    parameter QW     = 8,
    parameter CYCLES = `QPNIC_RNR_TIMER_CYCLES
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          in_valid,
    input  wire [QW-1:0] in_qpn,
    output wire          due_valid,
    input  wire          due_ready,
    output wire [QW-1:0] due_qpn,
    output wire          idle
);
    localparam [23:0] WAIT = CYCLES;

    // a free-running clock of 24 bits: a deadline is at most 2^23 ahead, so
    // the sign of (now - deadline) says whether it has passed
    reg  [23:0] now;
    always @(posedge clk) begin
        if (rst) now <= 24'd0;
        else     now <= now + 24'd1;
    end

    wire        head_valid;
    wire [23:0] head_at;
    // only the sign of the difference is used
    /* verilator lint_off UNUSEDSIGNAL */
    wire [23:0] late = now - head_at;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [QW:0] count;
    wire        in_ready;
    qpnic_fifo #(.WIDTH(24 + QW), .LOG_DEPTH(QW), .STYLE("block")) u_q (
        .clk(clk), .rst(rst),
        .in_valid(in_valid), .in_ready(in_ready), .in_data({now + WAIT, in_qpn}),
        .out_valid(head_valid), .out_ready(due_ready && due_valid),
        .out_data({head_at, due_qpn}), .count(count));

    // due is a register: the head's deadline comes out of the FIFO's block
    // RAM (5.8 ns clock-to-out on the ECP5) and its comparison is a carry
    // chain, and the completer's outstanding-FIFO pop hangs off due_valid
    // (run 33's worst path). A QP is due a cycle after its deadline; the
    // flag drops as the head is taken and is set again for the next head.
    reg due;
    always @(posedge clk) begin
        if (rst) due <= 1'b0;
        else     due <= head_valid && !late[23] && !(due && due_ready);
    end
    assign due_valid = due;
    assign idle      = (count == 0);

    // in_ready is high whenever in_valid is (see above)
    wire unused = &{1'b0, in_ready};
endmodule

`default_nettype wire
