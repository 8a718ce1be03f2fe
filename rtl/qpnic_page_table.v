// qpnic_page_table: the page table of fast-registered regions, and the
// translation of one DMA request channel through it.
//
// A region registered by a FAST_REG maps pages that need not follow each
// other in host memory. The driver gives it a run of page table entries
// (one per FREG_PAGE_BYTES page, each a page frame number written through
// PT_IDX / PT_PFN) and makes the region's device address a page-table
// address: bit PT_ADDR_BIT set, the run's first entry in bits 12 and up,
// first_byte_offset in bits 0..11. Every check and every address step in
// the engines works on that address as on any other (an offset into the
// region moves it across entries as it moves across pages), and no engine
// issues a request that crosses a FREG_PAGE_BYTES boundary (qpnic_gather,
// qpnic_scatter), so each request lies in one entry's page. Here, where the
// request leaves the core, its address is translated:
//
//   addr[PT_ADDR_BIT] == 1:  { entry[addr[12 +: AW]], addr[11:0] }
//   otherwise:               addr, unchanged
//
// A page-table address takes one register stage: the entry is read from
// block RAM as the request enters it, and the request leaves the cycle
// after, translated. Any other request passes straight through while the
// stage holds nothing (a region registered with ndk_register_mr, the
// rings, the CQEs cost no cycle), and through the register behind a held
// one, so requests leave in the order they came. No bubble while the
// carrier takes a request every cycle. qpnic_core has one instance per
// DMA channel, written together: each channel reads its own copy.
//
// Nothing checks here: a page-table address reaches this point only from a
// region entry whose check passed, inside the region, so its entry lies in
// the region's run. Bits between 12 + AW and PT_ADDR_BIT are ignored.
//
// Parameters
//   NUM_PT   page table entries (CAPS3 pt_entries)
//   TW       bits of a request's tag (the read channel's; the write
//            channel has none and ties in_tag to 0)
// Ports
//   clk, rst                     clock, synchronous active-high reset
//   pt_wr_en, pt_wr_idx, pt_wr_pfn   write an entry (an index >= NUM_PT is
//                                ignored)
//   in_*                         the request from the channel's arbiter
//   out_*                        the request to the carrier, translated;
//                                its tag goes with it unchanged
//   idle                         no request held
`default_nettype none
`include "qpnic_layout.vh"

module qpnic_page_table #(
    parameter NUM_PT = `QPNIC_NUM_PT,
    parameter TW = 1
) (
    input  wire        clk,
    input  wire        rst,

    input  wire                           pt_wr_en,
    input  wire [`QPNIC_CAPS3_PT_ENTRIES_WIDTH-1:0] pt_wr_idx,
    input  wire [`QPNIC_PT_PFN_BITS-1:0]  pt_wr_pfn,

    input  wire        in_valid,
    output wire        in_ready,
    input  wire [63:0] in_addr,
    input  wire [15:0] in_len,
    input  wire [TW-1:0] in_tag,

    output wire        out_valid,
    input  wire        out_ready,
    output wire [63:0] out_addr,
    output wire [15:0] out_len,
    output wire [TW-1:0] out_tag,

    output wire        idle
);
    localparam AW  = (NUM_PT > 1) ? $clog2(NUM_PT) : 1;
    localparam PFN = `QPNIC_PT_PFN_BITS;
    localparam PS  = `QPNIC_FREG_PAGE_SHIFT;   // the byte in a page: addr[PS-1:0]
    localparam IW  = `QPNIC_CAPS3_PT_ENTRIES_WIDTH;
    localparam [IW:0] NUM_PT_V = NUM_PT[IW:0];

    wire          in_fire = in_valid && in_ready;
    wire          in_pt   = in_addr[`QPNIC_PT_ADDR_BIT];
    reg           held;
    // a request the register takes: any while one is held (behind it), a
    // page-table address when none is
    wire          take    = in_fire && (held || in_pt);
    wire [PFN-1:0] pfn;
    wire          ram_busy;   // never, with CLEAR 0; idle follows it all the same

    // CLEAR 0: an entry is read only through a region whose run the driver
    // wrote before posting its FAST_REG. The RAM reads at the incoming
    // address whenever the register may load (not held, or the held one
    // leaves): a request that is taken finds its entry, and the enable
    // does not wait for the arbiter's grant or the address's PT bit (run
    // 29's worst path ended at this enable). While a request is held and
    // stalled the RAM keeps its output.
    qpnic_ram_sdp #(.WIDTH(PFN), .AW(AW), .CLEAR(0)) entries (
        .clk(clk), .rst(rst), .busy(ram_busy),
        .wr_en(pt_wr_en && ({1'b0, pt_wr_idx} < NUM_PT_V)),
        .wr_addr(pt_wr_idx[AW-1:0]), .wr_data(pt_wr_pfn),
        .rd_en(!held || out_ready), .rd_addr(in_addr[PS +: AW]), .rd_data(pfn)
    );

    reg [63:0] h_addr;
    reg [15:0] h_len;
    reg [TW-1:0] h_tag;

    assign in_ready  = held ? out_ready : (in_pt || out_ready);
    assign out_valid = held || (in_valid && !in_pt);
    assign out_len   = held ? h_len : in_len;
    assign out_tag   = held ? h_tag : in_tag;
    assign out_addr  = !held ? in_addr
                     : h_addr[`QPNIC_PT_ADDR_BIT] ? {{(64 - PS - PFN){1'b0}}, pfn, h_addr[PS-1:0]}
                     : h_addr;
    assign idle      = !held && !ram_busy;

    always @(posedge clk) begin
        if (rst)
            held <= 1'b0;
        else if (!held || out_ready)
            held <= take;
        if (take) begin
            h_addr <= in_addr;
            h_len  <= in_len;
            h_tag  <= in_tag;
        end
    end
endmodule

`default_nettype wire
