// qpnic_mr_pack: a valid token table entry (layout struct mr_ctx) from its
// fields, in one place for the writers of whole entries: the host's MR_CMD
// WRITE (qpnic_mr_table, from qpnic_csr's staging registers), a FAST_REG
// WQE and a BIND WQE (qpnic_requester, from the WQE's words and, for a
// window, the region's checked device address). Purely combinational.
//
// Ports
//   va, len, dma     the region: its first virtual address, length in bytes,
//                    device address of its first byte
//   lkey, rkey       its two whole tokens
//   access           enum mr_access bits
//   pd               its protection domain
//   window           a memory window: remote checks only
//   entry            the entry, valid set
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_mr_pack (
    input  wire [63:0]                   va,
    input  wire [31:0]                   len,
    input  wire [63:0]                   dma,
    input  wire [31:0]                   lkey,
    input  wire [31:0]                   rkey,
    input  wire [2:0]                    access,
    input  wire [`QPNIC_PD_BITS-1:0]     pd,
    input  wire                          window,
    output reg  [`QPNIC_MR_CTX_BITS-1:0] entry
);
    always @* begin
        entry = {`QPNIC_MR_CTX_BITS{1'b0}};
        entry[`QPNIC_MR_CTX_VA_LO_FLAT]  = va[31:0];
        entry[`QPNIC_MR_CTX_VA_HI_FLAT]  = va[63:32];
        entry[`QPNIC_MR_CTX_LEN_FLAT]    = len;
        entry[`QPNIC_MR_CTX_DMA_LO_FLAT] = dma[31:0];
        entry[`QPNIC_MR_CTX_DMA_HI_FLAT] = dma[63:32];
        entry[`QPNIC_MR_CTX_LKEY_FLAT]   = lkey;
        entry[`QPNIC_MR_CTX_RKEY_FLAT]   = rkey;
        entry[`QPNIC_MR_CTX_ACCESS_FLAT] = access;
        entry[`QPNIC_MR_CTX_VALID_FLAT]  = 1'b1;
        entry[`QPNIC_MR_CTX_PD_FLAT]     = pd;
        entry[`QPNIC_MR_CTX_WINDOW_FLAT] = window;
    end
endmodule

`default_nettype wire
