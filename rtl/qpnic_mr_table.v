// qpnic_mr_table: the token (memory region) table and its one owner. Every
// entry (layout struct mr_ctx) lives in block RAM; nothing outside this
// module sees an entry, only the answers to checks.
//
//   updates   the host's MR_CMD (through qpnic_csr): write an entry whole and
//             make it valid, or make it invalid. One update a cycle.
//   fast-registers  the requester's FAST_REG (fr_*): an entry written whole
//             and valid, like an update, in SQ order; after invalidates,
//             before host updates at the write port.
//   invalidates   a check with chk_inval (the requester's Invalidate, the
//             responder's SendAndInvalidate) that finds the entry valid and
//             the token its own clears the entry as well: the write goes out
//             the cycle after the entry was compared (stage A of
//             qpnic_mr_check), before the answer; a check reading the entry
//             from then on finds it invalid, so a second invalidate of the
//             token fails. Invalidates come before host updates at the one
//             write port (the host's waits a cycle); two in one cycle go one
//             after the other.
//   checks    PORTS check ports, one per client (requester, responder), each
//             fully pipelined: a request in cycle t is answered in cycle
//             t + CHECK_LATENCY (= 3), one request a cycle, no back-pressure.
//             A request reads its entry from the RAM (cycle t), then runs
//             through the two stages of qpnic_mr_check (t+1, t+2).
//
// Each check port has its own copy of the RAM (one write port, one read
// port each): every update is written to all copies in the same cycle, so
// the copies never differ. Two simple dual-port RAMs are what block RAM
// offers on ECP5 and iCE40; a shared read port would make the clients wait
// for each other. An update and a check of the same entry in the same cycle:
// the check sees the entry as it was.
//
// After rst the table clears itself (qpnic_ram_sdp, one word a cycle):
// updates wait (upd_ready low) and checks are refused until it is done.
//
// Parameters
//   NUM_MR   entries (1 .. 2^TOKEN_INDEX_BITS)
//   PORTS    check ports (>= 1)
// Ports
//   clk, rst                 clock, synchronous active-high reset
//   upd_valid/ready          one update
//   upd_idx                  the entry (a token's low TOKEN_INDEX_BITS;
//                            an index >= NUM_MR is accepted and ignored)
//   upd_write                1: write the fields below, valid; 0: invalidate
//   upd_va, upd_len, upd_dma, upd_lkey, upd_rkey, upd_access, upd_pd   the entry
//   fr_valid/ready, fr_idx, fr_entry   a FAST_REG: the whole entry (struct
//                            mr_ctx, valid; qpnic_mr_pack) for index fr_idx
//   chk_valid[p]             port p: a check this cycle
//   chk_token, chk_va, chk_len, chk_remote, chk_need, chk_inval, chk_pd
//                            its request, port p (chk_pd: the asking QP's PD)
//                            at [p*W +: W] (see qpnic_mr_check)
//   res_valid[p], res_ok[p], res_dev[p*64 +: 64]   its answer, CHECK_LATENCY
//                            cycles later
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_mr_table #(
    parameter NUM_MR = 16,
    parameter PORTS  = 2
) (
    input  wire                 clk,
    input  wire                 rst,

    input  wire                 upd_valid,
    output wire                 upd_ready,
    input  wire [`QPNIC_TOKEN_INDEX_BITS-1:0] upd_idx,
    input  wire                 upd_write,
    input  wire [63:0]          upd_va,
    input  wire [31:0]          upd_len,
    input  wire [63:0]          upd_dma,
    input  wire [31:0]          upd_lkey,
    input  wire [31:0]          upd_rkey,
    input  wire [2:0]           upd_access,
    input  wire [`QPNIC_PD_BITS-1:0] upd_pd,
    input  wire                 fr_valid,
    output wire                 fr_ready,
    input  wire [`QPNIC_TOKEN_INDEX_BITS-1:0] fr_idx,
    input  wire [`QPNIC_MR_CTX_BITS-1:0] fr_entry,

    input  wire [PORTS-1:0]     chk_valid,
    input  wire [PORTS*32-1:0]  chk_token,
    input  wire [PORTS*64-1:0]  chk_va,
    input  wire [PORTS*32-1:0]  chk_len,
    input  wire [PORTS-1:0]     chk_remote,
    input  wire [PORTS*3-1:0]   chk_need,
    input  wire [PORTS-1:0]     chk_inval,
    input  wire [PORTS*`QPNIC_PD_BITS-1:0] chk_pd,
    output wire [PORTS-1:0]     res_valid,
    output wire [PORTS-1:0]     res_ok,
    output wire [PORTS*64-1:0]  res_dev
);
    localparam IB = `QPNIC_TOKEN_INDEX_BITS;
    localparam EB = `QPNIC_MR_CTX_BITS;
    // RAM address bits: enough for NUM_MR entries (the RAM rounds up)
    localparam AW = (NUM_MR > 1) ? $clog2(NUM_MR) : 1;

    // ---- the one write port: updates, once the RAMs are cleared -----------
    // all copies clear together: copy 0 speaks for them
    /* verilator lint_off UNUSEDSIGNAL */
    wire [PORTS-1:0] ram_busy;
    /* verilator lint_on UNUSEDSIGNAL */
    wire         clearing = ram_busy[0];
    wire         upd_in   = ({1'b0, upd_idx} < NUM_MR[IB:0]);

    // ---- invalidates from the check ports: first at the write port ----------
    wire [PORTS-1:0]    inv_hit;      // port p's check clears its entry now
    wire [PORTS*IB-1:0] inv_hit_idx;
    reg  [PORTS-1:0]    inv_pend;     // ... or waits, after a clash
    reg  [PORTS*IB-1:0] inv_pend_idx;
    wire [PORTS-1:0]    inv_want = inv_hit | inv_pend;
    reg                 inv_wr;
    reg  [IB-1:0]       inv_idx;
    reg  [PORTS-1:0]    inv_take;
    integer q;
    always @* begin
        inv_wr   = 1'b0;
        inv_idx  = {IB{1'b0}};
        inv_take = {PORTS{1'b0}};
        for (q = 0; q < PORTS; q = q + 1)
            if (!inv_wr && inv_want[q]) begin
                inv_wr      = 1'b1;
                inv_take[q] = 1'b1;
                inv_idx     = inv_pend[q] ? inv_pend_idx[q*IB +: IB] : inv_hit_idx[q*IB +: IB];
            end
    end
    integer r;
    always @(posedge clk) begin
        if (rst) begin
            inv_pend     <= {PORTS{1'b0}};
            inv_pend_idx <= {(PORTS*IB){1'b0}};
        end else
            for (r = 0; r < PORTS; r = r + 1) begin
                inv_pend[r] <= inv_want[r] && !inv_take[r];
                if (!inv_pend[r]) inv_pend_idx[r*IB +: IB] <= inv_hit_idx[r*IB +: IB];
            end
    end
    wire inv_in = ({1'b0, inv_idx} < NUM_MR[IB:0]);

    assign fr_ready  = !clearing && !inv_wr;
    wire fr_wr       = fr_valid && fr_ready;
    wire fr_in       = ({1'b0, fr_idx} < NUM_MR[IB:0]);
    assign upd_ready = !clearing && !inv_wr && !fr_valid;
    // an MR_CMD WRITE's entry (qpnic_mr_pack, as the requester packs a
    // FAST_REG's); an invalidated entry keeps nothing: all zero, valid 0
    wire [EB-1:0] upd_entry;
    qpnic_mr_pack u_upd (
        .va(upd_va), .len(upd_len), .dma(upd_dma), .lkey(upd_lkey), .rkey(upd_rkey),
        .access(upd_access), .pd(upd_pd), .window(1'b0), .entry(upd_entry));

    wire          wr_en   = !clearing && (inv_wr ? inv_in : fr_wr ? fr_in : upd_valid && upd_in);
    wire [AW-1:0] wr_addr = inv_wr ? inv_idx[AW-1:0] : fr_wr ? fr_idx[AW-1:0] : upd_idx[AW-1:0];
    // invalid: all zero. Every zero in one condition, so that it can be the
    // synchronous reset of the register the RAM's write goes through
    // (qpnic_ram_sdp) rather than a multiplexer per bit.
    wire          wr_zero = inv_wr || (!fr_wr && !upd_write);
    wire [EB-1:0] wr_data = wr_zero ? {EB{1'b0}} : fr_wr ? fr_entry : upd_entry;

    // ---- check ports -----------------------------------------------------------
    genvar p;
    generate
        for (p = 0; p < PORTS; p = p + 1) begin : port
            wire [31:0]   tok    = chk_token[p*32 +: 32];
            wire [IB-1:0] idx    = tok[IB-1:0];
            wire [EB-1:0] entry;

            // The RAM reads every cycle, whether a check is asked or not:
            // only a valid request's word is used (r_valid beside it), and a
            // read enable from chk_valid made the client's whole decision
            // to ask a path into the block RAM's clock enable (the 85F's
            // worst path in run 17, docs/synthesis.md).
            qpnic_ram_sdp #(.WIDTH(EB), .AW(AW), .STYLE("block")) ram (
                .clk(clk), .rst(rst), .busy(ram_busy[p]),
                .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data),
                .rd_en(1'b1), .rd_addr(idx[AW-1:0]), .rd_data(entry));

            // the request, one cycle behind, beside its entry
            reg        r_valid, r_idx_ok, r_remote, r_inval;
            reg [IB-1:0] a_idx;   // the entry, beside the check's stage A
            reg [31:0] r_token, r_len;
            reg [63:0] r_va;
            reg [2:0]  r_need;
            reg [`QPNIC_PD_BITS-1:0] r_pd;
            always @(posedge clk) begin
                if (rst) begin
                    r_valid  <= 1'b0;
                    r_idx_ok <= 1'b0;
                    r_remote <= 1'b0;
                    r_token  <= 32'd0;
                    r_len    <= 32'd0;
                    r_va     <= 64'd0;
                    r_need   <= 3'd0;
                    r_inval  <= 1'b0;
                    r_pd     <= 0;
                    a_idx    <= {IB{1'b0}};
                end else begin
                    r_inval  <= chk_inval[p];
                    r_pd     <= chk_pd[p*`QPNIC_PD_BITS +: `QPNIC_PD_BITS];
                    a_idx    <= r_token[IB-1:0];
                    r_valid  <= chk_valid[p];
                    // an entry being cleared after reset answers nothing
                    r_idx_ok <= ({1'b0, idx} < NUM_MR[IB:0]) && !clearing;
                    r_remote <= chk_remote[p];
                    r_token  <= tok;
                    r_len    <= chk_len[p*32 +: 32];
                    r_va     <= chk_va[p*64 +: 64];
                    r_need   <= chk_need[p*3 +: 3];
                end
            end

            qpnic_mr_check check (
                .clk(clk), .rst(rst),
                .in_valid(r_valid), .in_idx_ok(r_idx_ok), .token(r_token),
                .va(r_va), .len(r_len), .remote(r_remote), .need(r_need),
                .inval(r_inval), .pd(r_pd), .entry(entry),
                .out_valid(res_valid[p]), .ok(res_ok[p]),
                .dev_addr(res_dev[p*64 +: 64]), .inv_hit(inv_hit[p]));
            assign inv_hit_idx[p*IB +: IB] = a_idx;
        end
    endgenerate
endmodule

`default_nettype wire
