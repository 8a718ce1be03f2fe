// qpnic_mr_check: the memory-region check every DMA client makes before it
// touches host memory: token, bounds and rights against one token table
// entry, plus the virtual-to-device address translation. It is the pipeline
// behind one check port of qpnic_mr_table, which reads the entry out of its
// RAM the cycle before; split in two register stages so that no 64-bit
// compare and add follow each other in one cycle:
//
//   stage A  key, rights, valid; the offset va - entry va (its borrow:
//            va < entry va) and the room entry len - len
//   stage B  offset <= room; device address = entry dma + offset
//
// A request whose in_valid is high in cycle t has its answer on out_* in
// cycle t+2 (out_valid high for one cycle). One request a cycle.
//
// Ports
//   clk, rst     clock, synchronous active-high reset (clears out_valid)
//   in_valid     a request this cycle
//   in_idx_ok    the token's index is inside the table (else: refused)
//   token        the token presented: the whole of it must equal the entry's
//                lkey (remote = 0) or rkey (remote = 1)
//   va, len      the range asked for: va .. va+len-1
//   remote       1: a peer's request (rkey); 0: a local request (lkey)
//   need         enum mr_access bits that must all be set in the entry
//   pd           the asking QP's protection domain: the entry's must be it,
//                for every check and invalidate
//   inval        an invalidate: ok when the entry is valid and the token is
//                its rkey (remote) or either of its tokens (local; a
//                window's only token is its rkey); range and
//                rights are not looked at. inv_hit says so a cycle early
//                (stage A), for qpnic_mr_table to clear the entry
//   entry        the entry (layout struct mr_ctx, QPNIC_MR_CTX_BITS wide)
//   out_valid    the answer to the request of two cycles before
//   ok           the entry is valid, the token matches, the range lies inside
//                [entry va, entry va + entry len) and the rights hold; a
//                window's entry (mr_ctx window) answers remote checks only
//   dev_addr     entry dma + (va - entry va): meaningful only when ok
// The bounds are exact, so va+len can never wrap past a region's end: with
// va >= entry va, va+len <= entry va + entry len is offset + len <= entry
// len, that is offset <= room (entry len - len, one bit wider: its
// borrow says len > entry len); the offset's high half must then be zero.
// Callers ignore the answer for a zero-length range (it moves nothing).
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_mr_check (
    input  wire                          clk,
    input  wire                          rst,
    input  wire                          in_valid,
    input  wire                          in_idx_ok,
    input  wire [31:0]                   token,
    input  wire [63:0]                   va,
    input  wire [31:0]                   len,
    input  wire                          remote,
    input  wire [2:0]                    need,
    input  wire                          inval,
    input  wire [`QPNIC_PD_BITS-1:0]     pd,
    input  wire [`QPNIC_MR_CTX_BITS-1:0] entry,
    output reg                           out_valid,
    output reg                           ok,
    output reg  [63:0]                   dev_addr,
    output wire                          inv_hit
);
    wire [63:0] e_va     = {entry[`QPNIC_MR_CTX_VA_HI_FLAT], entry[`QPNIC_MR_CTX_VA_LO_FLAT]};
    wire [`QPNIC_MR_CTX_LEN_WIDTH-1:0] e_len = entry[`QPNIC_MR_CTX_LEN_FLAT];
    wire [63:0] e_dma    = {entry[`QPNIC_MR_CTX_DMA_HI_FLAT], entry[`QPNIC_MR_CTX_DMA_LO_FLAT]};
    wire [31:0] e_rkey   = entry[`QPNIC_MR_CTX_RKEY_FLAT];
    wire [31:0] e_lkey   = entry[`QPNIC_MR_CTX_LKEY_FLAT];
    wire [2:0]  e_access = entry[`QPNIC_MR_CTX_ACCESS_FLAT];
    wire        e_valid  = entry[`QPNIC_MR_CTX_VALID_FLAT];
    wire        e_pd_ok  = (entry[`QPNIC_MR_CTX_PD_FLAT] == pd);
    wire        e_window = entry[`QPNIC_MR_CTX_WINDOW_FLAT];

    // the two token compares serve both the check and the invalidate
    wire        rkey_hit = (e_rkey == token);
    wire        lkey_hit = (e_lkey == token);
    // va - entry va with its borrow (va < entry va), one carry chain for
    // both the bound and the offset; entry len - len likewise
    localparam LW = `QPNIC_MR_CTX_LEN_WIDTH;
    wire [64:0] off_b    = {1'b0, va} - {1'b0, e_va};
    wire [LW:0] room_b   = {1'b0, e_len} - {1'b0, len};

    // ---- stage A -------------------------------------------------------------
    reg        a_valid, a_ok;
    reg        a_inval, a_inv_ok;
    reg [63:0] a_off, a_dma;
    reg [LW:0] a_room;   // borrow, entry len - len
    always @(posedge clk) begin
        if (rst) begin
            a_valid   <= 1'b0;
            a_ok      <= 1'b0;
            a_inval   <= 1'b0;
            a_inv_ok  <= 1'b0;
            a_off     <= 64'd0;
            a_room    <= {(LW+1){1'b0}};
            a_dma     <= 64'd0;
        end else begin
            a_valid   <= in_valid;
            a_inval   <= inval;
            a_inv_ok  <= in_idx_ok && e_valid && e_pd_ok &&
                         (rkey_hit || (!remote && !e_window && lkey_hit));
            a_ok      <= in_idx_ok && e_valid && e_pd_ok && (remote ? rkey_hit : lkey_hit) &&
                         (remote || !e_window) && ((e_access & need) == need) && !off_b[64];
            a_off     <= off_b[63:0];
            a_room    <= room_b;
            a_dma     <= e_dma;
        end
    end

    // ---- stage B -------------------------------------------------------------
    always @(posedge clk) begin
        if (rst) begin
            out_valid <= 1'b0;
            ok        <= 1'b0;
            dev_addr  <= 64'd0;
        end else begin
            out_valid <= a_valid;
            ok        <= a_inval ? a_inv_ok :
                         a_ok && !a_room[LW] && (a_off[63:LW] == 0) && (a_off[LW-1:0] <= a_room[LW-1:0]);
            dev_addr  <= a_dma + a_off;
        end
    end
    assign inv_hit = a_valid && a_inval && a_inv_ok;
endmodule

`default_nettype wire
