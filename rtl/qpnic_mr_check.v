// qpnic_mr_check: the memory-region check every DMA client makes before it
// touches host memory: token, bounds and rights against one MR table entry,
// plus the virtual-to-device address translation. Purely combinational; each
// client (requester, responder) has its own instance.
//
// Parameters
//   NUM_MR      entries in the MR table (flat vectors below hold NUM_MR each)
// Ports
//   token       the token presented: its low TOKEN_INDEX_BITS select the
//               entry; the whole token must equal the entry's lkey (remote=0)
//               or rkey (remote=1)
//   va, len     the range asked for: va .. va+len-1 (len may be 0)
//   remote      1: a peer's request (rkey); 0: a local request (lkey)
//   need        enum mr_access bits that must all be set in the entry
//   mr_*        the MR table from qpnic_csr, flat (entry i at [i*W +: W])
//   ok          1 when the entry exists, is valid, the token matches, the
//               range lies inside [mr_va, mr_va+mr_len) and the rights hold
//   dev_addr    mr_dma + (va - mr_va): the device address of va (meaningful
//               only when ok)
// The bounds use 65-bit sums, so va+len can never wrap past a region's end.
// Callers skip zero-length SGEs before asking (they move nothing).
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_mr_check #(
    parameter NUM_MR = 16
) (
    input  wire [31:0]          token,
    input  wire [63:0]          va,
    input  wire [31:0]          len,
    input  wire                 remote,
    input  wire [2:0]           need,
    input  wire [NUM_MR-1:0]    mr_valid,
    input  wire [NUM_MR*64-1:0] mr_va,
    input  wire [NUM_MR*32-1:0] mr_len,
    input  wire [NUM_MR*64-1:0] mr_dma,
    input  wire [NUM_MR*32-1:0] mr_lkey,
    input  wire [NUM_MR*32-1:0] mr_rkey,
    input  wire [NUM_MR*3-1:0]  mr_access,
    output wire                 ok,
    output wire [63:0]          dev_addr
);
    localparam IDX_BITS = `QPNIC_TOKEN_INDEX_BITS;

    wire [IDX_BITS-1:0] idx_raw  = token[IDX_BITS-1:0];
    wire                idx_in   = ({1'b0, idx_raw} < NUM_MR[IDX_BITS:0]);
    // An out-of-range index reads entry 0; idx_in makes the result a refusal.
    wire [IDX_BITS-1:0] idx      = idx_in ? idx_raw : {IDX_BITS{1'b0}};

    wire        e_valid  = mr_valid[idx*1 +: 1];
    wire [63:0] e_va     = mr_va[idx*64 +: 64];
    wire [31:0] e_len    = mr_len[idx*32 +: 32];
    wire [63:0] e_dma    = mr_dma[idx*64 +: 64];
    wire [31:0] e_key    = remote ? mr_rkey[idx*32 +: 32] : mr_lkey[idx*32 +: 32];
    wire [2:0]  e_access = mr_access[idx*3 +: 3];

    wire [64:0] req_end  = {1'b0, va} + {33'd0, len};
    wire [64:0] mr_end   = {1'b0, e_va} + {33'd0, e_len};
    wire        in_bounds = (va >= e_va) && (req_end <= mr_end);
    wire        rights    = ((e_access & need) == need);

    assign ok       = idx_in && e_valid && (e_key == token) && in_bounds && rights;
    assign dev_addr = e_dma + (va - e_va);
endmodule

`default_nettype wire
