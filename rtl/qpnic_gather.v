// qpnic_gather: reads a list of device-address segments with DMA reads of at
// most MAX_DMA_BYTES each, none crossing a FREG_PAGE_BYTES boundary, and
// hands the data on as one stream.
//
// A job names up to MAX_SGE segments (zero-length ones are skipped) whose
// lengths sum to at least one byte. Each DMA read's response goes straight
// to the output, so the stream's beats are packed from lane 0 within a read
// and a read's final beat may be partial (keep says which bytes count). The
// deadlock rule of docs/internals.md: a read is issued only when the sink
// (SINK_WORDS deep, sink_count words in it now) can take its whole response;
// the sink must not be filled by anyone else while a job runs.
//
// Parameters
//   MAX_SGE        segments a job can name
//   MAX_DMA_BYTES  largest DMA read issued
//   SINK_WORDS     the sink's depth in words (at least one whole read)
// Ports
//   start_valid/start_ready  a job; start_ready is high only while idle
//   start_addr   segment n's device address at [n*64 +: 64]
//   start_len    segment n's length at [n*32 +: 32]
//   sink_count   words in the sink now (a FIFO's count)
//   rd_req_*     DMA read request (addr, len 1..MAX_DMA_BYTES)
//   rd_rsp_*     its response (valid/ready, data, keep, last)
//   out_*        the gathered stream; out_last marks the job's final beat
//   idle         no job in progress
// Combinational paths: rd_rsp_* -> out_* and out_ready -> rd_rsp_ready.
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_gather #(
    parameter MAX_SGE       = `QPNIC_MAX_SGE,
    parameter MAX_DMA_BYTES = `QPNIC_MAX_DMA_BYTES,
    parameter SINK_WORDS    = 128
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  start_valid,
    output wire                  start_ready,
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
    localparam [1:0] S_IDLE = 2'd0,  // waiting for a job
                     S_NEXT = 2'd1,  // choose the next read
                     S_REQ  = 2'd2,  // read request out (once the sink has room)
                     S_DATA = 2'd3;  // pass the response on

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
    reg                  final_chunk;  // the read in flight ends the job

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
    // sink's room check (count_max, fits) are not one path (run 30's worst,
    // docs/synthesis.md). nl_ok: nl is for cur_addr and cur_rem as they are
    // (not in the cycle after a job, a segment or a grant moved them).
    // The room is below 2^CW, so rem is first saturated to CW bits (all
    // ones from 2^CW - 1 up, which never wins the minimum): the comparison
    // is CW bits wide, not 32.
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
    // count_max, the most words the sink may hold for a read of chunk_len
    // bytes to fit (SINK_WORDS minus the read's words), is a register set
    // with chunk_len: the room check is one comparison of two registers.
    // It lies in -MAXW .. SINK_WORDS (MAXW: the words of the largest read),
    // so KW bits and a sign bit (bit KW) hold it. Negative never fits; the
    // deadlock rule rules that out.
    localparam MAXW = (MAX_DMA_BYTES + 3) / 4;
    localparam KW   = $clog2(((SINK_WORDS > MAXW) ? SINK_WORDS : MAXW) + 1);
    localparam [31:0] SINK_W32 = SINK_WORDS;
    /* verilator lint_off UNUSEDSIGNAL */
    function [KW:0] count_max_of(input [CW-1:0] bytes);
        reg [31:0] words, cm;
        begin
            words        = ({{(32 - CW){1'b0}}, bytes} + 32'd3) >> 2;
            cm           = SINK_W32 - words;
            count_max_of = cm[KW:0];
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    reg [KW:0] count_max;
    // The sink holds at most count_max words (`plus` one more counting the
    // beat going in now): sink_count is compared as is, never incremented.
    function fits_for(input [KW:0] cm, input plus);
        begin
            fits_for = !cm[KW] && (sink_count >> KW) == 0 &&
                       (plus ? (sink_count[KW-1:0] <  cm[KW-1:0])
                             : (sink_count[KW-1:0] <= cm[KW-1:0]));
        end
    endfunction
    // fits: a register, so that rd_req_valid leaves a flip-flop: the read
    // arbiter's pick, and from it every other master's ready, hangs off
    // this valid, and the comparison in front of it made the core's
    // longest path (docs/synthesis.md, run 15). Set as S_REQ is entered
    // (from S_NEXT or S_DATA), for the read chosen then, against the sink
    // as it will be (counting the beat this gather is putting in it now);
    // then re-compared in S_REQ every cycle from the two registers. The
    // sink only drains while we wait (nobody else fills it), so fits, once
    // high, stays high until the grant.
    reg        fits;

    assign start_ready  = (state == S_IDLE);
    assign idle         = (state == S_IDLE);
    assign rd_req_valid = (state == S_REQ) && fits;
    assign rd_req_addr  = cur_addr;
    assign rd_req_len   = {{(16 - CW){1'b0}}, chunk_len};

    assign out_valid    = (state == S_DATA) && rd_rsp_valid;
    assign out_data     = rd_rsp_data;
    assign out_keep     = rd_rsp_keep;
    assign out_last     = rd_rsp_last && final_chunk;
    assign rd_rsp_ready = (state == S_DATA) && out_ready;

    always @(posedge clk) begin
        if (rst) begin
            state       <= S_IDLE;
            seg_addr    <= 0;
            seg_len     <= 0;
            seg_i       <= {SIW{1'b0}};
            cur_addr    <= 64'd0;
            cur_rem     <= 32'd0;
            chunk_len   <= {CW{1'b0}};
            count_max   <= {(KW + 1){1'b0}};
            fits        <= 1'b0;
            final_chunk <= 1'b0;
            nl          <= {CW{1'b0}};
            nl_ok       <= 1'b0;
        end else begin
            fits <= 1'b0;   // unless the state sets it below
            nl    <= next_len_of(cur_addr[`QPNIC_FREG_PAGE_SHIFT-1:0], cur_rem);
            nl_ok <= !(state == S_IDLE || next_seg || (rd_req_valid && rd_req_ready));
            case (state)
            S_IDLE: begin
                // The job is latched whole and nothing is computed from the
                // client's inputs: its first read is chosen in S_NEXT from
                // these registers (a job's first read straight from them
                // made the 85F's worst path, runs 18 and 19). They take the
                // inputs every idle cycle, so only the state hangs off
                // start_valid (the registers' enable from it made run 23's).
                cur_addr   <= start_addr[63:0];
                cur_rem    <= start_len[31:0];
                seg_addr   <= start_addr_later[LATER*64-1:0];
                seg_len    <= start_len_later[LATER*32-1:0];
                seg_i      <= {SIW{1'b0}};
                if (start_valid) state <= S_NEXT;
            end
            S_NEXT:
                if (!nl_ok) begin
                    // nl is computed for the segment just loaded
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
                    count_max   <= count_max_of(nl);
                    fits        <= fits_for(count_max_of(nl), 1'b0);
                    final_chunk <= ({{(32 - CW){1'b0}}, nl} == cur_rem) && later_zero;
                    state       <= S_REQ;
                end
            S_REQ: begin
                fits <= fits_for(count_max, 1'b0);
                if (rd_req_valid && rd_req_ready) begin
                    cur_addr <= cur_addr + {{(64 - CW){1'b0}}, chunk_len};
                    cur_rem  <= cur_rem - {{(32 - CW){1'b0}}, chunk_len};
                    state    <= S_DATA;
                end
            end
            S_DATA:
                if (rd_rsp_valid && rd_rsp_ready && rd_rsp_last) begin
                    if (final_chunk)
                        state <= S_IDLE;
                    else if (cur_rem != 32'd0 && nl_ok) begin  // the segment's next read
                        chunk_len   <= nl;
                        count_max   <= count_max_of(nl);
                        fits        <= fits_for(count_max_of(nl), 1'b1);
                        final_chunk <= ({{(32 - CW){1'b0}}, nl} == cur_rem) && later_zero;
                        state       <= S_REQ;
                    end else
                        state <= S_NEXT;   // (it decides from nl a cycle later)
                end
            default: state <= S_IDLE;
            endcase
        end
    end
endmodule

`default_nettype wire
