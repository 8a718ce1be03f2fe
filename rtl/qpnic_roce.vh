// qpnic_roce.vh: what qpnic_roce_tx and qpnic_roce_rx share (included
// inside each module, as functions): the ICRC's CRC-32 (IEEE 802.3,
// zlib's: reflected polynomial 0xEDB88320, one byte at a time, as
// qpnic_link_crc computes the board link's), the byte swap between the
// port's header words (first byte in bits 31:24) and lane order (first
// byte in bits 7:0), and what an opcode of the port means for a frame.

// the register after one byte
function automatic [31:0] crc_byte(input [31:0] c, input [7:0] b);
    integer i;
    begin
        crc_byte = c ^ {24'd0, b};
        for (i = 0; i < 8; i = i + 1)
            crc_byte = crc_byte[0] ? (crc_byte >> 1) ^ 32'hEDB88320 : crc_byte >> 1;
    end
endfunction

// the register after the bytes of a lane-order word whose lane is enabled
function automatic [31:0] crc_word(input [31:0] c, input [31:0] w, input [3:0] en);
    integer l;
    begin
        crc_word = c;
        for (l = 0; l < 4; l = l + 1)
            if (en[l]) crc_word = crc_byte(crc_word, w[8*l +: 8]);
    end
endfunction

// The register after n bytes of all ones from its start value; after the
// pseudo-LRH's 8 is where every frame's ICRC starts.
function automatic [31:0] crc_ones(input integer n);
    integer i;
    begin
        crc_ones = 32'hFFFFFFFF;
        for (i = 0; i < n; i = i + 1) crc_ones = crc_byte(crc_ones, 8'hFF);
    end
endfunction

// bytes a beat holds (its keep's set lanes; keep runs from lane 0)
function automatic [2:0] keep_bytes(input [3:0] k);
    keep_bytes = {2'd0, k[0]} + {2'd0, k[1]} + {2'd0, k[2]} + {2'd0, k[3]};
endfunction

function automatic [31:0] bswap(input [31:0] w);
    bswap = {w[7:0], w[15:8], w[23:16], w[31:24]};
endfunction

// the extension header after the BTH, in bytes, by opcode (enum ib_opcode):
// a RETH (16), an AETH or IETH (4), none
function automatic [4:0] ext_bytes_of(input [7:0] op);
    ext_bytes_of = (op == `QPNIC_IB_OPCODE_WRITE_ONLY || op == `QPNIC_IB_OPCODE_WRITE_FIRST ||
                    op == `QPNIC_IB_OPCODE_READ_REQUEST) ? 5'd16 :
                   (op == `QPNIC_IB_OPCODE_READ_RESPONSE_ONLY || op == `QPNIC_IB_OPCODE_READ_RESPONSE_FIRST ||
                    op == `QPNIC_IB_OPCODE_READ_RESPONSE_LAST || op == `QPNIC_IB_OPCODE_ACK ||
                    op == `QPNIC_IB_OPCODE_SEND_ONLY_INV || op == `QPNIC_IB_OPCODE_SEND_LAST_INV) ? 5'd4 : 5'd0;
endfunction

// a response (to the completer's lane), and a request (to the responder's)
function automatic is_response(input [7:0] op);
    is_response = (op == `QPNIC_IB_OPCODE_READ_RESPONSE_ONLY) || (op == `QPNIC_IB_OPCODE_READ_RESPONSE_FIRST) ||
                  (op == `QPNIC_IB_OPCODE_READ_RESPONSE_MIDDLE) || (op == `QPNIC_IB_OPCODE_READ_RESPONSE_LAST) ||
                  (op == `QPNIC_IB_OPCODE_ACK);
endfunction
function automatic is_request(input [7:0] op);
    is_request = (op == `QPNIC_IB_OPCODE_SEND_ONLY) || (op == `QPNIC_IB_OPCODE_SEND_FIRST) ||
                 (op == `QPNIC_IB_OPCODE_SEND_MIDDLE) || (op == `QPNIC_IB_OPCODE_SEND_LAST) ||
                 (op == `QPNIC_IB_OPCODE_WRITE_ONLY) || (op == `QPNIC_IB_OPCODE_WRITE_FIRST) ||
                 (op == `QPNIC_IB_OPCODE_WRITE_MIDDLE) || (op == `QPNIC_IB_OPCODE_WRITE_LAST) ||
                 (op == `QPNIC_IB_OPCODE_READ_REQUEST) || (op == `QPNIC_IB_OPCODE_SEND_ONLY_INV) ||
                 (op == `QPNIC_IB_OPCODE_SEND_LAST_INV);
endfunction
