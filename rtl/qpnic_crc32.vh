// qpnic_crc32.vh: the ICRC's arithmetic, shared by qpnic_roce_tx and
// qpnic_roce_rx (included inside each module, as functions): CRC-32 (IEEE
// 802.3, zlib's: reflected polynomial 0xEDB88320, one byte at a time, as
// qpnic_link_crc computes the board link's), and the byte swap between the
// port's header words (first byte in bits 31:24) and lane order (first
// byte in bits 7:0).

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

function automatic [31:0] bswap(input [31:0] w);
    bswap = {w[7:0], w[15:8], w[23:16], w[31:24]};
endfunction
