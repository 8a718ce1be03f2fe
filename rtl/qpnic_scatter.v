// qpnic_scatter: writes a byte stream into a list of device-address segments
// with DMA writes of at most MAX_DMA_BYTES each, none crossing a
// FREG_PAGE_BYTES boundary.
//
// A job names up to MAX_SGE segments (device address, length; zero-length
// segments are skipped) and `total`, the bytes to write (total <= the sum of
// the lengths). The scatter then takes the input stream up to and including
// its `last` beat: the first `total` kept bytes go to the segments in order,
// every byte after them is dropped (a SEND longer than its receive buffers,
// the tail of a rejected payload). A DMA write never crosses a segment end.
// A beat whose kept bytes straddle a segment or write boundary is sent twice,
// each time with keep masked to the bytes of that write; bytes are never
// shifted between lanes, so a write's data carries its own keep pattern.
//
// Parameters
//   MAX_SGE        segments a job can name
//   MAX_DMA_BYTES  largest DMA write issued
// Ports
//   start_valid/start_ready  a job; start_ready is high only while idle
//   start_addr   segment n's device address at [n*64 +: 64]
//   start_len    segment n's length at [n*32 +: 32]
//   start_total  bytes to write (the rest of the stream is dropped)
//   in_*         the stream (valid/ready, 32-bit data, keep, last); the job
//                ends with the beat carrying last, so start a job only for a
//                stream that has at least one beat
//   wr_req_*     DMA write request: addr, len (1..MAX_DMA_BYTES)
//   wr_dat_*     its data: exactly len kept bytes, last on the final beat
//   done         one-cycle pulse: the stream is consumed through last and
//                every write has handed over its last beat
//   idle         no job in progress
// Combinational paths: in_valid/in_keep -> wr_dat_valid/keep and
// wr_dat_ready -> in_ready (data passes straight through in S_DATA).
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_scatter #(
    parameter MAX_SGE       = `QPNIC_MAX_SGE,
    parameter MAX_DMA_BYTES = `QPNIC_MAX_DMA_BYTES
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  start_valid,
    output wire                  start_ready,
    input  wire [MAX_SGE*64-1:0] start_addr,
    input  wire [MAX_SGE*32-1:0] start_len,
    input  wire [31:0]           start_total,
    input  wire                  in_valid,
    output wire                  in_ready,
    input  wire [31:0]           in_data,
    input  wire [3:0]            in_keep,
    input  wire                  in_last,
    output wire                  wr_req_valid,
    input  wire                  wr_req_ready,
    output wire [63:0]           wr_req_addr,
    output wire [15:0]           wr_req_len,
    output wire                  wr_dat_valid,
    input  wire                  wr_dat_ready,
    output wire [31:0]           wr_dat_data,
    output wire [3:0]            wr_dat_keep,
    output wire                  wr_dat_last,
    output reg                   done,
    output wire                  idle
);
    localparam [2:0] S_IDLE  = 3'd0,  // waiting for a job
                     S_NEXT  = 3'd1,  // choose the next write (or finish)
                     S_REQ   = 3'd2,  // DMA write request out
                     S_DATA  = 3'd3,  // stream bytes into the write
                     S_DRAIN = 3'd4,  // all written: drop the rest up to last
                     S_FIRST = 3'd5;  // the job is in: its first write

    // Segment 0 goes straight into cur_addr/cur_rem as the job is taken;
    // only the later segments are kept, and each is loaded from there when
    // the one before is used up.
    localparam LATER = (MAX_SGE > 1) ? MAX_SGE - 1 : 1;
    // a later segment's number: as narrow as LATER allows (see qpnic_gather)
    localparam SIW   = (LATER > 1) ? $clog2(LATER) : 1;

    reg [2:0]            state;
    reg [LATER*64-1:0]   seg_addr;    // segments 1.. (zero if MAX_SGE is 1)
    reg [LATER*32-1:0]   seg_len;
    reg [SIW-1:0]        seg_i;       // the later segment to load next
    reg [63:0]           cur_addr;    // next byte's address in the segment
    reg [31:0]           cur_rem;     // bytes left in that segment
    reg [31:0]           total_rem;   // bytes still to write
    // A write's length: 1..MAX_DMA_BYTES, so CW bits hold it.
    localparam CW = $clog2(MAX_DMA_BYTES + 1);
    reg [CW-1:0]         chunk_len;   // length of the write being issued
    reg [CW-1:0]         chunk_rem;   // bytes still owed to the current write
    reg [3:0]            used;        // lanes of the current beat already written
    reg                  seen_last;   // the stream's last beat was consumed

    // The later segments of a job, as start_* hold them.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [MAX_SGE*64-1:0] start_addr_later = start_addr >> 64;
    wire [MAX_SGE*32-1:0] start_len_later  = start_len >> 32;
    /* verilator lint_on UNUSEDSIGNAL */

    // the later segment seg_i
    wire [63:0] later_addr = seg_addr[seg_i*64 +: 64];
    wire [31:0] later_len  = seg_len[seg_i*32 +: 32];

    // The kept bytes of the current beat not yet written.
    wire [3:0] avail = in_keep & ~used;

    function [2:0] popcount4(input [3:0] m);
        popcount4 = {2'b00, m[0]} + {2'b00, m[1]} + {2'b00, m[2]} + {2'b00, m[3]};
    endfunction

    // The first k set lanes of m, in lane order.
    function [3:0] first_lanes(input [3:0] m, input [2:0] k);
        integer i;
        reg [2:0] c;
        begin
            c = 3'd0;
            first_lanes = 4'd0;
            for (i = 0; i < 4; i = i + 1)
                if (m[i] && c < k) begin
                    first_lanes[i] = 1'b1;
                    c = c + 3'd1;
                end
        end
    endfunction

    wire [2:0]    avail_n   = popcount4(avail);
    wire [CW-1:0] avail_w   = {{(CW - 3){1'b0}}, avail_n};
    wire          beat_fits = (avail_w <= chunk_rem);
    wire [2:0]    take_k    = (chunk_rem < 4) ? chunk_rem[2:0] : 3'd4;
    wire [3:0]    take_mask = beat_fits ? avail : first_lanes(avail, take_k);
    wire [CW-1:0] take_n    = {{(CW - 3){1'b0}}, popcount4(take_mask)};

    // The next write's length: min(bytes left in the segment, bytes left to
    // write, dma_room: MAX_DMA_BYTES and no page boundary crossed). dma_room
    // is below 2^CW, so each 32-bit operand is first saturated to CW bits
    // (all ones from 2^CW - 1 up, which never wins the minimum): the
    // comparisons are CW bits wide, not 32.
    `include "qpnic_dma_room.vh"
    localparam PS = `QPNIC_FREG_PAGE_SHIFT;
    function [CW-1:0] sat(input [31:0] x);
        sat = (x[31:CW] != 0) ? {CW{1'b1}} : x[CW-1:0];
    endfunction
    function [CW-1:0] write_len(input [31:0] seg_rem, input [31:0] total, input [PS-1:0] addr_lo);
        reg [15:0]   room;
        reg [CW-1:0] a, b, lim;
        begin
            room      = dma_room(addr_lo);
            a         = sat(seg_rem);
            b         = sat(total);
            lim       = (a < b) ? a : b;
            // (room < 2^CW: its upper bits are zero)
            write_len = ({{(16 - CW){1'b0}}, lim} < room) ? lim : room[CW-1:0];
        end
    endfunction
    wire [CW-1:0] next_len  = write_len(cur_rem, total_rem, cur_addr[PS-1:0]);
    // The stream's last beat is consumed by now (or in this cycle's beat).
    wire        last_in     = seen_last || (beat_fits && in_last);

    assign start_ready  = (state == S_IDLE);
    assign idle         = (state == S_IDLE);
    assign wr_req_valid = (state == S_REQ);
    assign wr_req_addr  = cur_addr;
    assign wr_req_len   = {{(16 - CW){1'b0}}, chunk_len};

    assign wr_dat_valid = (state == S_DATA) && in_valid;
    assign wr_dat_data  = in_data;
    assign wr_dat_keep  = take_mask;
    assign wr_dat_last  = !beat_fits || (take_n == chunk_rem);
    // A beat is consumed when it fits in the write; a straddling beat stays
    // and its remaining lanes go to the next write (or are drained).
    assign in_ready = ((state == S_DATA) && wr_dat_ready && beat_fits) ||
                      (state == S_DRAIN);

    wire dat_fire = wr_dat_valid && wr_dat_ready;

    always @(posedge clk) begin
        done <= 1'b0;
        if (rst) begin
            state      <= S_IDLE;
            seg_addr   <= 0;
            seg_len    <= 0;
            seg_i      <= {SIW{1'b0}};
            cur_addr   <= 64'd0;
            cur_rem    <= 32'd0;
            total_rem  <= 32'd0;
            chunk_len  <= {CW{1'b0}};
            chunk_rem  <= {CW{1'b0}};
            used       <= 4'd0;
            seen_last  <= 1'b0;
        end else begin
            case (state)
            S_IDLE:
                // the job only goes into registers here: nothing is
                // computed from the start_* inputs (they come from the
                // requester's or responder's own decisions of this cycle).
                // They take the inputs every idle cycle, so only the state
                // hangs off start_valid (see qpnic_gather). Segment 0 is
                // loaded now: S_FIRST chooses the first write from it.
                begin
                    cur_addr   <= start_addr[63:0];
                    cur_rem    <= start_len[31:0];
                    seg_addr   <= start_addr_later[LATER*64-1:0];
                    seg_len    <= start_len_later[LATER*32-1:0];
                    seg_i      <= {SIW{1'b0}};
                    total_rem  <= start_total;
                    used       <= 4'd0;
                    seen_last  <= 1'b0;
                    if (start_valid) state <= S_FIRST;
                end
            // S_FIRST decides as S_NEXT does (segment 0 is in cur_addr and
            // cur_rem already); it has its own name only to show the job's
            // first write in a trace.
            S_FIRST, S_NEXT:
                if (total_rem == 32'd0) begin
                    if (seen_last) begin
                        done  <= 1'b1;
                        state <= S_IDLE;
                    end else
                        state <= S_DRAIN;
                end else if (cur_rem == 32'd0) begin
                    // total_rem <= sum of lengths: a later segment is left
                    cur_addr <= later_addr;
                    cur_rem  <= later_len;
                    seg_i    <= seg_i + 1'b1;
                end else begin
                    chunk_len <= next_len;
                    chunk_rem <= next_len;
                    state     <= S_REQ;
                end
            S_REQ:
                if (wr_req_ready) begin
                    cur_addr  <= cur_addr + {{(64 - CW){1'b0}}, chunk_len};
                    cur_rem   <= cur_rem - {{(32 - CW){1'b0}}, chunk_len};
                    total_rem <= total_rem - {{(32 - CW){1'b0}}, chunk_len};
                    state     <= S_DATA;
                end
            S_DATA:
                if (dat_fire) begin
                    chunk_rem <= chunk_rem - take_n;
                    if (beat_fits) begin
                        used <= 4'd0;
                        if (in_last) seen_last <= 1'b1;
                    end else
                        used <= used | take_mask;
                    // what S_NEXT would decide, decided now
                    if (wr_dat_last) begin
                        if (total_rem == 32'd0) begin
                            if (last_in) begin
                                done  <= 1'b1;
                                state <= S_IDLE;
                            end else
                                state <= S_DRAIN;
                        end else if (cur_rem != 32'd0) begin
                            chunk_len <= next_len;
                            chunk_rem <= next_len;
                            state     <= S_REQ;
                        end else
                            state <= S_NEXT;
                    end
                end
            S_DRAIN:
                if (in_valid) begin
                    used <= 4'd0;
                    if (in_last) begin
                        done  <= 1'b1;
                        state <= S_IDLE;
                    end
                end
            default: state <= S_IDLE;
            endcase
        end
    end
endmodule

`default_nettype wire
