// qpnic_fifo: a synchronous first-word-fall-through FIFO with valid/ready on
// both sides, the one queue every other module uses.
//
// Parameters
//   WIDTH      bits of one entry
//   LOG_DEPTH  log2 of the number of entries (depth = 2**LOG_DEPTH)
//   STYLE      where the entries live (Yosys's ram_style):
//              "auto": an asynchronous read of mem[rd_ptr], which Yosys
//              maps to LUT RAM for a few entries. (Mapped to block RAM it
//              costs a register and a multiplexer per bit: an entry
//              written in the cycle it is read must come out at once.)
//              "block": a block RAM with a synchronous read and no
//              bypass: an entry can be read the cycle after its write, so
//              it reaches out_valid two cycles after in_valid, not one.
//              out_data is then the RAM's output (on the ECP5 a DP16KD's
//              long clock-to-out, at the start of the consumer's path).
// Ports
//   in_valid/in_ready/in_data     write side; in_ready is low when full
//   out_valid/out_ready/out_data  read side; out_data is the oldest entry,
//                                 valid whenever out_valid is high
//   count                         entries held (0 .. depth), counted from
//                                 the write: with STYLE "block" an entry
//                                 counts a cycle before out_valid shows it
// No combinational path from in_* to out_* or back: both sides see only
// registered state, so a producer and a consumer never form a loop through it.
// The count is a register of its own (kept equal to the pointers'
// difference), so count, in_ready and out_valid come straight from
// flip-flops: no subtraction at the start of a user's path (a gather's room
// check, for one, goes on through an arbiter).
`default_nettype none

module qpnic_fifo #(
    parameter WIDTH = 32,
    parameter LOG_DEPTH = 4,
    parameter [8*5-1:0] STYLE = "auto"   // five characters: "block"
) (
    input  wire                 clk,
    input  wire                 rst,
    input  wire                 in_valid,
    output wire                 in_ready,
    input  wire [WIDTH-1:0]     in_data,
    output wire                 out_valid,
    input  wire                 out_ready,
    output wire [WIDTH-1:0]     out_data,
    output wire [LOG_DEPTH:0]   count
);
    localparam DEPTH = 1 << LOG_DEPTH;
    localparam BLOCK = (STYLE == "block");

    reg [LOG_DEPTH-1:0] wr_ptr;   // wraps: held tells full from empty
    reg [LOG_DEPTH-1:0] rd_ptr;

    wire do_write = in_valid && in_ready;
    wire do_read  = out_valid && out_ready;

    reg [LOG_DEPTH:0] held;     // entries held (0 .. DEPTH)
    // rd_ptr + 1, kept in a register: in a block RAM the read address is a
    // register of the RAM, so the next read address (rd_ptr or rd_ptr + 1,
    // chosen by out_ready) is at the end of the consumer's path from
    // out_data to out_ready; with rd_next it is a multiplexer between two
    // registers, no adder.
    reg [LOG_DEPTH-1:0] rd_next;
    assign count     = held;
    assign in_ready  = (held != DEPTH[LOG_DEPTH:0]);

    always @(posedge clk) begin
        if (rst) begin
            wr_ptr  <= 0;
            rd_ptr  <= 0;
            rd_next <= 1;
            held    <= 0;
        end else begin
            if (do_write) wr_ptr <= wr_ptr + 1'b1;
            if (do_read) begin
                rd_ptr  <= rd_next;
                rd_next <= rd_next + 1'b1;
            end
            // +1 or -1 (all ones) in one adder, not an incrementer and a
            // decrementer with a multiplexer behind them
            if (do_write != do_read) held <= held + {{LOG_DEPTH{do_read}}, 1'b1};
        end
    end

    generate
        if (BLOCK) begin : g_block
            // The RAM reads every cycle, at the entry that is the oldest
            // next cycle (rd_next if this one is taken), into out_data.
            // A read of the entry being written gives no use (RDW_OLD 0):
            // the entry counts for out_valid (shown) a cycle after its
            // write, when a read of it has its new word, and out_valid
            // never shows an entry the last read did not see written.
            reg                 wrote;     // an entry was written last cycle
            reg [LOG_DEPTH:0]   shown;     // entries out_valid may show
            wire [LOG_DEPTH-1:0] rd_addr = do_read ? rd_next : rd_ptr;
            wire                unused_busy;   // CLEAR 0: never busy
            assign out_valid = (shown != 0);
            qpnic_ram_sdp #(.WIDTH(WIDTH), .AW(LOG_DEPTH), .CLEAR(0), .RDW_OLD(0),
                            .STYLE("block")) ram (
                .clk(clk), .rst(rst), .busy(unused_busy),
                .wr_en(do_write), .wr_addr(wr_ptr), .wr_data(in_data),
                .rd_en(1'b1), .rd_addr(rd_addr), .rd_data(out_data));
            always @(posedge clk) begin
                if (rst) begin
                    wrote <= 1'b0;
                    shown <= 0;
                end else begin
                    wrote <= do_write;
                    if (wrote != do_read) shown <= shown + {{LOG_DEPTH{do_read}}, 1'b1};
                end
            end
        end else begin : g_lut
            reg [WIDTH-1:0] mem [0:DEPTH-1];
            assign out_valid = (held != 0);
            assign out_data  = mem[rd_ptr];
            always @(posedge clk) begin
                if (do_write)
                    mem[wr_ptr] <= in_data;
            end
        end
    endgenerate
endmodule

`default_nettype wire
