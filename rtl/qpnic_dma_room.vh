// qpnic_dma_room.vh: included inside the body of a module with a parameter
// MAX_DMA_BYTES (qpnic_gather, qpnic_scatter). No DMA request into memory an
// SGE or a region names crosses a FREG_PAGE_BYTES boundary, so that a
// page-table address stays in one entry's page (qpnic_page_table); the
// gathers and scatters cut their requests with this.
//
// dma_room(addr_lo): the most bytes one request starting at an address
// whose low FREG_PAGE_SHIFT bits are addr_lo may carry: MAX_DMA_BYTES, or
// the bytes left to the end of its page if fewer.
function [15:0] dma_room(input [`QPNIC_FREG_PAGE_SHIFT-1:0] addr_lo);
    reg [`QPNIC_FREG_PAGE_SHIFT:0] page_left;
    begin
        page_left = `QPNIC_FREG_PAGE_BYTES - {1'b0, addr_lo};
        dma_room  = ({{(15 - `QPNIC_FREG_PAGE_SHIFT){1'b0}}, page_left} < MAX_DMA_BYTES[15:0])
                  ? {{(15 - `QPNIC_FREG_PAGE_SHIFT){1'b0}}, page_left} : MAX_DMA_BYTES[15:0];
    end
endfunction
