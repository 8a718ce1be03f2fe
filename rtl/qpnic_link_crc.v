// qpnic_link_crc: one byte's step of the board link's CRC-32 (IEEE 802.3,
// zlib's: reflected polynomial 0xEDB88320), combinational. A frame's CRC
// starts at 0xFFFFFFFF; the sender sends the complement of the register,
// least significant byte first; the receiver runs the same steps over the
// whole body, CRC included, and finds RESIDUE exactly when nothing changed
// (docs/link.md "Frames").
//
// Ports
//   crc_in, data   the register before the byte, and the byte
//   crc_out        the register after it
`default_nettype none

module qpnic_link_crc (
    input  wire [31:0] crc_in,
    input  wire [7:0]  data,
    output reg  [31:0] crc_out
);
    integer i;
    always @* begin
        crc_out = crc_in ^ {24'd0, data};
        for (i = 0; i < 8; i = i + 1)
            crc_out = crc_out[0] ? (crc_out >> 1) ^ 32'hEDB88320 : crc_out >> 1;
    end
endmodule
