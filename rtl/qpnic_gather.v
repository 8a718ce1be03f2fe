// qpnic_gather: reads a list of device-address segments with DMA reads of at
// most MAX_DMA_BYTES each, none crossing a FREG_PAGE_BYTES boundary, and
// hands the data on as one stream.
//
// A job names up to MAX_SGE segments (zero-length ones are skipped) whose
// lengths sum to at least one byte. Up to OPEN reads are in flight at once,
// of one job or of the next: the next read is asked for while the data of
// the earlier ones comes, so a carrier's round trip (the board link's,
// docs/link.md) is not paid once per read. The carrier answers them in order (one read
// master, one tag: qpnic_dma_rd_arb). Each read's response goes straight
// to the output, so the stream's beats are packed from lane 0 within a
// read and a read's final beat may be partial (keep says which bytes
// count). The deadlock rule of docs/internals.md: a read is issued only
// when the sink (SINK_WORDS deep, sink_count words in it now) can take its
// whole response on top of the reads still in flight; the sink must not be
// filled by anyone else while a job runs.
//
// Parameters
//   MAX_SGE        segments a job can name
//   MAX_DMA_BYTES  largest DMA read issued
//   SINK_WORDS     the sink's depth in words (at least one whole read; two
//                  or more for reads to overlap)
//   OPEN           reads in flight at most (1..3)
// Ports
//   start_valid/start_ready  a job; start_ready is high once every read of
//                the last job has been asked for (their data may still come)
//   start_addr   segment n's device address at [n*64 +: 64]
//   start_len    segment n's length at [n*32 +: 32]
//   start_one    the job runs one read ahead, as if OPEN were 1 and the sink
//                half as deep: one read in flight (its first waits for the
//                earlier job's to end), and none while the sink holds more
//                than half its depth minus the read (qpnic_requester: a
//                SEND's, so that the receive WQE read its delivery needs is
//                not queued behind more of its payload than one read:
//                docs/link.md)
//   drain        take no job while reads are in flight, so that idle comes
//                (qpnic_mr_fence: a job that may read a region just
//                invalidated must be seen to end; a stream of jobs each
//                taken while the last one's reads are open never shows idle)
//   sink_count   words in the sink now (a FIFO's count)
//   rd_req_*     DMA read request (addr, len 1..MAX_DMA_BYTES)
//   rd_rsp_*     its response (valid/ready, data, keep, last)
//   out_*        the gathered stream; out_last marks the job's final beat
//   idle         no job in progress and no read in flight
// Combinational paths: rd_rsp_* -> out_* and out_ready -> rd_rsp_ready.
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_gather #(
    parameter MAX_SGE       = `QPNIC_MAX_SGE,
    parameter MAX_DMA_BYTES = `QPNIC_MAX_DMA_BYTES,
    parameter SINK_WORDS    = 128,
    parameter OPEN          = 2
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  start_valid,
    output wire                  start_ready,
    input  wire                  start_one,
    input  wire                  drain,
    input  wire [MAX_SGE*64-1:0] start_addr,
    input  wire [MAX_SGE*32-1:0] start_len,
    input  wire [15:0]           sink_count,
    output wire                  rd_req_valid,
    input  wire                  rd_req_ready,
    output wire [63:0]           rd_req_addr,
    output wire [15:0]           rd_req_len,
    input  wire                  rd_rsp_valid,
    output wire                  rd_rsp_ready,
    input  wire [31:0]           rd_rsp_data,
    input  wire [3:0]            rd_rsp_keep,
    input  wire                  rd_rsp_last,
    output wire                  out_valid,
    input  wire                  out_ready,
    output wire [31:0]           out_data,
    output wire [3:0]            out_keep,
    output wire                  out_last,
    output wire                  idle
);
    localparam [1:0] S_IDLE = 2'd0,  // waiting for a job (reads may be in flight)
                     S_NEXT = 2'd1,  // choose the next read
                     S_REQ  = 2'd2;  // read request out (once the sink has room)

    reg [1:0]            state;
    // Segment 0 goes straight into cur_addr/cur_rem as the job is taken;
    // only the later segments (1..) are kept, later segment j (segment
    // j + 1) at [j*64 +: 64] and [j*32 +: 32].
    localparam LATER = (MAX_SGE > 1) ? MAX_SGE - 1 : 1;
    reg [LATER*64-1:0]   seg_addr;    // (zero if MAX_SGE is 1)
    reg [LATER*32-1:0]   seg_len;
    // A segment's number: as narrow as MAX_SGE allows, so that selecting its
    // address and length is a multiplexer, not a shifter (an 8-bit number
    // made Yosys build one over all three segments).
    localparam SIW = (MAX_SGE > 1) ? $clog2(MAX_SGE) : 1;
    localparam [SIW-1:0] LAST_SEG = MAX_SGE - 1;
    reg [SIW-1:0]        seg_i;       // the segment in cur_addr/cur_rem
    reg [63:0]           cur_addr;
    reg [31:0]           cur_rem;
    // A read's length: 1..MAX_DMA_BYTES, so CW bits hold it.
    localparam CW = $clog2(MAX_DMA_BYTES + 1);
    reg [CW-1:0]         chunk_len;
    reg                  final_chunk;  // the read being asked for ends the job

    // The later segments of a job, as start_* hold them.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [MAX_SGE*64-1:0] start_addr_later = start_addr >> 64;
    wire [MAX_SGE*32-1:0] start_len_later  = start_len >> 32;
    /* verilator lint_on UNUSEDSIGNAL */

    // later_zero: every segment after seg_i is empty
    reg later_zero;
    integer k;
    always @* begin
        later_zero = 1'b1;
        for (k = 1; k < MAX_SGE; k = k + 1)
            if (k > seg_i && seg_len[(k-1)*32 +: 32] != 32'd0) later_zero = 1'b0;
    end

    // The next read: min(bytes left in the segment, dma_room: MAX_DMA_BYTES
    // and no page boundary crossed). It is a register, nl, computed a cycle
    // ahead from cur_addr and cur_rem, so that the room, the minimum and the
    // sink's room check (count_max, lim, fits) are not one path (run 30's
    // worst, docs/synthesis.md). nl_ok: nl is for cur_addr and cur_rem as
    // they are (not in the cycle after a job, a segment or a grant moved
    // them). The room is below 2^CW, so rem is first saturated to CW bits
    // (all ones from 2^CW - 1 up, which never wins the minimum): the
    // comparison is CW bits wide, not 32.
    `include "qpnic_dma_room.vh"
    function [CW-1:0] next_len_of(input [`QPNIC_FREG_PAGE_SHIFT-1:0] addr_lo, input [31:0] rem);
        reg [15:0]   room;
        reg [CW-1:0] r;
        begin
            room        = dma_room(addr_lo);
            r           = (rem[31:CW] != 0) ? {CW{1'b1}} : rem[CW-1:0];
            next_len_of = ({{(16 - CW){1'b0}}, r} < room) ? r : room[CW-1:0];
        end
    endfunction
    reg [CW-1:0] nl;
    reg        nl_ok;
    // S_NEXT loads the next segment (seg_i + 1, later segment seg_i)
    wire       next_seg = state == S_NEXT && nl_ok && cur_rem == 32'd0 && seg_i != LAST_SEG;

    // The sink's room, in three registers so that each step is one adder or
    // one comparison (the room check once made the core's longest path,
    // docs/synthesis.md, runs 15 and 30):
    //   count_max  SINK_WORDS minus the words of the read being asked for,
    //              set with chunk_len
    //   lim        count_max minus fly, the words of the reads in flight
    //              not yet in the sink: the most words the sink may hold
    //              for the read to fit
    //   fits       sink_count <= lim, and fewer than OPEN reads in flight:
    //              rd_req_valid leaves this flip-flop (the read arbiter's
    //              pick, and from it every other master's ready, hangs off
    //              it)
    // Each lags its inputs by a cycle, and that errs on the safe side: a
    // beat moves a word from fly into the sink (sink_count counts it a
    // cycle before lim stops counting it), the sink only drains otherwise,
    // and reads in flight only end. Only this gather's own grant adds to
    // fly, and a grant leaves S_REQ; S_REQ is entered with a new count_max,
    // so fits stays low in its first cycle (settle), until lim is for it.
    // lim lies in -(MAXW + SINK_WORDS) .. SINK_WORDS: KW + 2 bits, signed.
    localparam MAXW = (MAX_DMA_BYTES + 3) / 4;
    localparam KW   = $clog2(((SINK_WORDS > MAXW) ? SINK_WORDS : MAXW) + 1);
    localparam [31:0] SINK_W32 = SINK_WORDS;
    localparam OW   = $clog2(OPEN + 1);
    localparam [OW-1:0] OPEN_V = OPEN;
    // (the two functions compute in 32 bits and keep the bits that count)
    /* verilator lint_off UNUSEDSIGNAL */
    function [KW:0] words_of(input [CW-1:0] bytes);
        reg [31:0] words;
        begin
            words    = ({{(32 - CW){1'b0}}, bytes} + 32'd3) >> 2;
            words_of = words[KW:0];
        end
    endfunction
    function [KW+1:0] count_max_of(input [CW-1:0] bytes, input half);
        reg [31:0] cm;
        begin
            cm           = (half ? SINK_W32 / 2 : SINK_W32) - {{(31 - KW){1'b0}}, words_of(bytes)};
            count_max_of = cm[KW+1:0];
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    reg [KW+1:0] count_max;
    reg [KW+1:0] lim;
    reg [KW:0]   fly;        // words asked for and not yet passed on (<= SINK_WORDS)
    reg [OW-1:0] open_n;     // reads asked for whose last beat has not passed
    reg          settle;     // S_REQ's first cycle: lim is not yet for count_max
    reg          fits;
    reg          one;        // the job's start_one
    reg [OPEN-1:0] fin_q;    // fin_q[i]: the i-th oldest read in flight ends its job

    wire grant = rd_req_valid && rd_req_ready;
    wire beat  = rd_rsp_valid && rd_rsp_ready;
    wire ended = beat && rd_rsp_last;

    assign start_ready  = (state == S_IDLE) && !(drain && open_n != {OW{1'b0}});
    assign idle         = (state == S_IDLE) && open_n == {OW{1'b0}};
    assign rd_req_valid = (state == S_REQ) && fits;
    assign rd_req_addr  = cur_addr;
    assign rd_req_len   = {{(16 - CW){1'b0}}, chunk_len};

    // Beats pass while reads are in flight; a job's final beat is the last
    // one of its last read.
    assign out_valid    = (open_n != {OW{1'b0}}) && rd_rsp_valid;
    assign out_data     = rd_rsp_data;
    assign out_keep     = rd_rsp_keep;
    assign out_last     = rd_rsp_last && fin_q[0];
    assign rd_rsp_ready = (open_n != {OW{1'b0}}) && out_ready;

    // The oldest read's flag leaves as it ends; a granted read's goes in
    // behind the others (the bits from open_n up stay 0).
    reg [OPEN-1:0] fin_next;
    reg [OW-1:0]   fin_pos;
    integer f;
    always @* begin
        fin_next = ended ? fin_q >> 1 : fin_q;
        fin_pos  = ended ? open_n - 1'b1 : open_n;
        for (f = 0; f < OPEN; f = f + 1)
            if (grant && fin_pos == f[OW-1:0]) fin_next[f] = final_chunk;
    end

    initial begin
        if (OPEN < 1 || OPEN > 3)
            $fatal(1, "qpnic_gather: OPEN %0d out of 1..3", OPEN);
        // a start_one job has half the sink: it must still hold one read
        if (SINK_WORDS / 2 < MAXW)
            $fatal(1, "qpnic_gather: SINK_WORDS %0d is below two reads of %0d words", SINK_WORDS, MAXW);
    end

    always @(posedge clk) begin
        if (rst) begin
            state       <= S_IDLE;
            seg_addr    <= 0;
            seg_len     <= 0;
            seg_i       <= {SIW{1'b0}};
            cur_addr    <= 64'd0;
            cur_rem     <= 32'd0;
            chunk_len   <= {CW{1'b0}};
            count_max   <= {(KW + 2){1'b0}};
            lim         <= {(KW + 2){1'b0}};
            fly         <= {(KW + 1){1'b0}};
            open_n      <= {OW{1'b0}};
            settle      <= 1'b0;
            fits        <= 1'b0;
            one         <= 1'b0;
            final_chunk <= 1'b0;
            fin_q       <= {OPEN{1'b0}};
            nl          <= {CW{1'b0}};
            nl_ok       <= 1'b0;
        end else begin
            nl    <= next_len_of(cur_addr[`QPNIC_FREG_PAGE_SHIFT-1:0], cur_rem);
            nl_ok <= !(state == S_IDLE || next_seg || grant);
            lim   <= count_max - {1'b0, fly};
            fly   <= fly + (grant ? words_of(chunk_len) : {(KW + 1){1'b0}}) - {{KW{1'b0}}, beat};
            if (grant && !ended) open_n <= open_n + 1'b1;
            if (ended && !grant) open_n <= open_n - 1'b1;
            fin_q <= fin_next;
            fits <= 1'b0;   // unless S_REQ sets it below
            case (state)
            S_IDLE: begin
                // The job is latched whole and nothing is computed from the
                // client's inputs: its first read is chosen in S_NEXT from
                // these registers (a job's first read straight from them
                // made the 85F's worst path, runs 18 and 19). They take the
                // inputs every idle cycle, so only the state hangs off
                // start_valid (the registers' enable from it made run 23's).
                // The last job's reads may still be in flight: the next
                // job's first read goes out behind them.
                cur_addr    <= start_addr[63:0];
                cur_rem     <= start_len[31:0];
                seg_addr    <= start_addr_later[LATER*64-1:0];
                seg_len     <= start_len_later[LATER*32-1:0];
                seg_i       <= {SIW{1'b0}};
                one         <= start_one;
                if (start_valid && start_ready) state <= S_NEXT;
            end
            S_NEXT:
                if (!nl_ok) begin
                    // nl is computed for the segment just loaded, or for
                    // where the last grant left cur_addr
                end else if (cur_rem == 32'd0) begin
                    if (seg_i == LAST_SEG)
                        state <= S_IDLE;  // an empty job: nothing to send
                    else begin            // next_seg
                        cur_addr <= seg_addr[seg_i*64 +: 64];
                        cur_rem  <= seg_len[seg_i*32 +: 32];
                        seg_i    <= seg_i + 1'b1;
                    end
                end else begin
                    chunk_len   <= nl;
                    count_max   <= count_max_of(nl, one);
                    final_chunk <= ({{(32 - CW){1'b0}}, nl} == cur_rem) && later_zero;
                    settle      <= 1'b1;
                    state       <= S_REQ;
                end
            S_REQ:
                if (grant) begin
                    cur_addr <= cur_addr + {{(64 - CW){1'b0}}, chunk_len};
                    cur_rem  <= cur_rem - {{(32 - CW){1'b0}}, chunk_len};
                    // the job's next read (or the next job's first) while
                    // this one's data comes
                    state <= final_chunk ? S_IDLE : S_NEXT;
                end else if (settle) begin
                    settle <= 1'b0;
                end else begin
                    // once high, high until the grant (a valid is not taken
                    // back): the room only grows while this gather waits
                    fits <= fits || !lim[KW+1] && (sink_count >> (KW + 1)) == 0 &&
                            {1'b0, sink_count[KW:0]} <= lim &&
                            open_n < (one ? {{(OW-1){1'b0}}, 1'b1} : OPEN_V);
                end
            default: state <= S_IDLE;
            endcase
        end
    end
endmodule

`default_nettype wire
