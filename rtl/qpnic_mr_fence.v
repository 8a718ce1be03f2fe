// qpnic_mr_fence: when may the host reuse memory it just deregistered?
//
// An MR_CMD INVALIDATE makes a token table entry invalid at once: a token
// check from the next cycle on fails. But a DMA job whose check passed
// before (a gather reading a SEND's source, a scatter writing a WRITE's
// target, a READ's response landing in its sink) goes on. This module says
// when every such job has finished, so that ndk_destroy_mr returns only when
// the NIC makes no further DMA into the region (docs/lifecycle.md).
//
// At the invalidate (start, the cycle qpnic_mr_table takes the update: a
// check in that cycle still sees the old entry) it notes, engine by engine,
// what may hold such a job; each note clears as that engine moves past it.
// The engines are in order, so no job has to be tagged:
//   requester   its front end checks a WQE's SGEs (S_CHECK) and starts its
//               gather (S_OST): rq_hold. A held WQE passes to the gather;
//               then the gather's job ends when the gather is idle
//               (rq_gather_busy low). The gather takes a job while the
//               last one's reads are in flight, so in a stream of jobs it
//               is never idle: while its note is up it is asked to drain
//               (gather_drain: no job while reads are in flight), and idle
//               comes. A READ's sink is checked here too; its DMA is the
//               completer's, below.
//   completer   scatters READ responses into SGEs the requester checked;
//               it retires outstanding entries in order (cp_retire), so it
//               is done with every entry pushed before the invalidate, and
//               every one a held WQE pushes after it, once it has retired
//               that many (the count includes the entry it is on).
//   responder   checks a packet's RETH or its receive's SGEs and moves the
//               packet's data before it takes the next packet's first word:
//               done at its next packet boundary (rs_bound).
// Jobs whose check comes after the invalidate fail it and move nothing.
// A second invalidate while busy notes again on top of what is still noted.
//
// Ports
//   start            an INVALIDATE is taken this cycle
//   rq_hold          the requester's front end holds a WQE in its check or
//                    waiting for the gather
//   rq_gather_busy   the requester's gather has a job
//   ost_push         an outstanding entry is pushed this cycle
//   ost_count        entries in the outstanding FIFO
//   cp_busy          the completer is on an entry (popped, not retired)
//   cp_retire        the completer retires its entry this cycle
//   rs_bound         the responder is between packets (no word taken yet)
//   gather_drain     the requester's gather is to take no job while reads
//                    are in flight, until its note clears
//   busy             a job checked before the last invalidate may still
//                    move data
`default_nettype none

module qpnic_mr_fence #(
    parameter CW = 8   // bits of the outstanding count
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          start,
    input  wire          rq_hold,
    input  wire          rq_gather_busy,
    input  wire          ost_push,
    input  wire [CW-1:0] ost_count,
    input  wire          cp_busy,
    input  wire          cp_retire,
    input  wire          rs_bound,
    output wire          gather_drain,
    output wire          busy
);
    reg          p_front;    // the requester's held WQE predates it
    reg          p_gather;   // the requester's gather job may predate it
    reg          p_resp;     // the responder's packet predates it
    reg [CW:0]   left;       // outstanding entries to retire first

    wire [CW:0] ost_now = {1'b0, ost_count} + {{CW{1'b0}}, cp_busy} + {{CW{1'b0}}, ost_push};

    always @(posedge clk) begin
        if (rst) begin
            p_front  <= 1'b0;
            p_gather <= 1'b0;
            p_resp   <= 1'b0;
            left     <= 0;
        end else if (start) begin
            p_front  <= p_front || rq_hold;
            p_gather <= p_gather || rq_gather_busy || p_front;
            p_resp   <= p_resp || !rs_bound;
            // every entry ahead now (a count that only grows with the FIFO)
            left     <= ost_now - {{CW{1'b0}}, cp_retire};
        end else begin
            if (p_front && !rq_hold) begin
                p_front  <= 1'b0;
                p_gather <= 1'b1;    // its gather may have started
            end else if (p_gather && !p_front && !rq_gather_busy)
                p_gather <= 1'b0;
            if (p_resp && rs_bound) p_resp <= 1'b0;
            // a held WQE's entry joins those ahead; retirements count down
            left <= left + {{CW{1'b0}}, p_front && ost_push}
                         - {{CW{1'b0}}, cp_retire && left != 0};
        end
    end

    assign busy = p_front || p_gather || p_resp || left != 0;
    assign gather_drain = p_gather;
endmodule

`default_nettype wire
