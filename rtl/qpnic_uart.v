// qpnic_uart: the board link's serial line, 8N1 (one start bit, eight data
// bits least significant first, one stop bit), both directions at once
// (docs/link.md "Bytes on the line").
//
// A bit lasts CLK_HZ / BAUD clock cycles, which need not be a whole number
// (8.33 at 25 MHz and 3 Mbaud): both halves keep time in 1/256ths of a
// cycle, so bits are cut at the nearest cycle and the error never adds up
// over a byte. The receiver needs at least about 4 cycles a bit (48 MHz at
// 12 Mbaud is exactly 4).
//
// Receive: rx goes through two flip-flops (it is asynchronous to clk); a
// falling edge starts a byte, the start bit is sampled half a bit after
// the edge (at 4 cycles a bit, where the synchronizer's delay is most of
// that, a quarter to half a bit), each data bit and the stop bit one bit
// after the previous sample. A low glitch that has ended by the start bit's
// sample is ignored. A byte whose stop bit is 0 is not
// delivered: rx_err pulses instead (a framing error: a corrupt or cut byte,
// or a break). The receiver is ready for the next start bit right after
// sampling the stop bit. There is no receive buffer: rx_valid is a one-cycle
// pulse and the user takes it then (the link does).
//
// Parameters
//   CLK_HZ, BAUD   clock and line rate (CLK_HZ >= 4 * BAUD; both multiples
//                  of 100)
// Ports
//   clk, rst                 clock, synchronous active-high reset
//   rx                       the line in, idle high
//   rx_valid, rx_data        a byte arrived (one-cycle pulse)
//   rx_err                   a byte was lost to a framing error (pulse)
//   tx_valid, tx_ready, tx_data   a byte to send (valid/ready)
//   tx                       the line out, idle high
`default_nettype none

module qpnic_uart #(
    parameter integer CLK_HZ = 48000000,
    parameter integer BAUD   = 3000000
) (
    input  wire       clk,
    input  wire       rst,
    input  wire       rx,
    output reg        rx_valid,
    output reg  [7:0] rx_data,
    output reg        rx_err,
    input  wire       tx_valid,
    output wire       tx_ready,
    input  wire [7:0] tx_data,
    output reg        tx
);
    // a bit in 1/256ths of a clock cycle (in hundreds of Hz and baud, so
    // that the product fits 32 bits up to an 800 MHz clock)
    localparam integer BIT_I = ((CLK_HZ / 100) * 256 + BAUD / 200) / (BAUD / 100);
    localparam integer TW = $clog2(BIT_I + 1) + 1;
    localparam [TW-1:0] BIT  = BIT_I[TW-1:0];
    localparam [TW-1:0] ONE  = 256;
    // from seeing the start bit's edge (two synchronizing flip-flops and the
    // edge's phase in its cycle, 2.5 cycles on average after it on the line,
    // less the first wait's whole cycle: 1.5) to half a bit after the edge
    localparam [TW-1:0] SEEN = 384;
    localparam [TW-1:0] HALF = BIT_I[TW:1] > SEEN ? BIT_I[TW:1] - SEEN : {TW{1'b0}};

    initial begin
        if (CLK_HZ < 4 * BAUD || CLK_HZ % 100 != 0 || BAUD % 100 != 0 || CLK_HZ > 800000000)
            $fatal(1, "qpnic_uart: CLK_HZ %0d and BAUD %0d: need CLK_HZ >= 4 * BAUD, both multiples of 100", CLK_HZ, BAUD);
    end

    // ---- receive ----------------------------------------------------------
    reg  [1:0]    rx_sync;        // the two synchronizing flip-flops
    wire          rx_in = rx_sync[1];
    reg           rx_busy;
    reg  [3:0]    rx_bit;         // 0 start, 1..8 data, 9 stop
    reg  [TW-1:0] rx_left;        // time to the next sample
    reg  [7:0]    rx_shift;
    wire          rx_due = rx_left < ONE;

    always @(posedge clk) begin
        rx_valid <= 1'b0;
        rx_err <= 1'b0;
        if (rst) begin
            rx_sync <= 2'b11;
            rx_busy <= 1'b0;
            rx_bit <= 4'd0;
            rx_left <= {TW{1'b0}};
            rx_shift <= 8'd0;
            rx_data <= 8'd0;
        end else begin
            rx_sync <= {rx_sync[0], rx};
            if (!rx_busy) begin
                if (!rx_in) begin
                    // the edge: sample the start bit half a bit after it
                    rx_busy <= 1'b1;
                    rx_bit <= 4'd0;
                    rx_left <= HALF;
                end
            end else if (!rx_due) begin
                rx_left <= rx_left - ONE;
            end else begin
                rx_left <= rx_left + BIT - ONE;
                rx_bit <= rx_bit + 4'd1;
                if (rx_bit == 4'd0) begin
                    if (rx_in) rx_busy <= 1'b0;         // a glitch, not a start bit
                end else if (rx_bit == 4'd9) begin
                    rx_busy <= 1'b0;
                    if (rx_in) begin
                        rx_valid <= 1'b1;
                        rx_data <= rx_shift;
                    end else begin
                        rx_err <= 1'b1;
                    end
                end else begin
                    rx_shift <= {rx_in, rx_shift[7:1]};
                end
            end
        end
    end

    // ---- transmit ---------------------------------------------------------
    reg           tx_busy;
    reg  [3:0]    tx_bit;         // bits left to send after the current one
    reg  [TW-1:0] tx_left;        // time left of the current bit
    reg  [8:0]    tx_shift;       // the bits after the current one, stop bit on top
    assign tx_ready = !tx_busy;

    always @(posedge clk) begin
        if (rst) begin
            tx <= 1'b1;
            tx_busy <= 1'b0;
            tx_bit <= 4'd0;
            tx_left <= {TW{1'b0}};
            tx_shift <= 9'h1FF;
        end else if (!tx_busy) begin
            if (tx_valid) begin
                tx <= 1'b0;                              // the start bit
                tx_busy <= 1'b1;
                tx_bit <= 4'd9;
                tx_left <= BIT - ONE;
                tx_shift <= {1'b1, tx_data};
            end
        end else if (tx_left >= ONE) begin
            tx_left <= tx_left - ONE;
        end else begin
            tx_left <= tx_left + BIT - ONE;
            if (tx_bit == 4'd0) begin
                tx_busy <= 1'b0;                         // the stop bit has lasted a bit
            end else begin
                tx <= tx_shift[0];
                tx_shift <= {1'b1, tx_shift[8:1]};
                tx_bit <= tx_bit - 4'd1;
            end
        end
    end
endmodule
