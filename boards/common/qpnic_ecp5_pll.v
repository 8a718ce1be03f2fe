// qpnic_ecp5_pll: the NIC's 48 MHz clock from a board's 25 MHz oscillator,
// on an ECP5 (both boards of boards/ have a 25 MHz oscillator).
//
// 48 MHz is 16 clocks a bit at the ULX3S's 3 Mbaud and 4 at 12 Mbaud, and
// the core closes above it (docs/synthesis.md). 48 / 25 needs a reference
// divider of 25 in the PLL's ordinary mode, which would put the phase
// detector at 1 MHz, below its 3.125 MHz floor; without --highres ecppll
// offers 46.875 MHz. With --highres the feedback runs through CLKOP and the
// output comes from CLKOS:
//
//   build/venv/bin/yowasp-ecppll -i 25 -o 48 --highres -f pll.v
//     reference 25 / CLKI_DIV 5 = 5 MHz at the phase detector;
//     CLKOP = 5 MHz x CLKFB_DIV 2 = 10 MHz, VCO = 10 MHz x CLKOP_DIV 48
//     = 480 MHz; CLKOS = 480 / CLKOS_DIV 10 = 48 MHz exactly.
//
// The parameters and the loop-filter attributes below are what that command
// computed (Project Trellis ecppll 1.4-82-g3afe7b5); only the names are ours.
// The FREQUENCY_PIN_* attributes let nextpnr derive the output's clock
// constraint; the board's LPF also states it (FREQUENCY NET).
//
// Ports
//   clk_25   the board's 25 MHz oscillator
//   clk_48   48 MHz; a clock only while `locked`
//   locked   high once the PLL has locked; asynchronous to both clocks
`default_nettype none

module qpnic_ecp5_pll (
    input  wire clk_25,
    output wire clk_48,
    output wire locked
);
    wire clk_fb;    // CLKOP, 10 MHz: only the feedback

    // The PLL's other outputs are not used; they stay open on purpose.
    /* verilator lint_off PINCONNECTEMPTY */
    (* FREQUENCY_PIN_CLKI = "25" *)
    (* FREQUENCY_PIN_CLKOS = "48" *)
    (* ICP_CURRENT = "12" *) (* LPF_RESISTOR = "8" *) (* MFG_ENABLE_FILTEROPAMP = "1" *)
    (* MFG_GMCREF_SEL = "2" *)
    EHXPLLL #(
        .PLLRST_ENA("DISABLED"),
        .INTFB_WAKE("DISABLED"),
        .STDBY_ENABLE("DISABLED"),
        .DPHASE_SOURCE("DISABLED"),
        .OUTDIVIDER_MUXA("DIVA"),
        .OUTDIVIDER_MUXB("DIVB"),
        .OUTDIVIDER_MUXC("DIVC"),
        .OUTDIVIDER_MUXD("DIVD"),
        .CLKI_DIV(5),
        .CLKFB_DIV(2),
        .FEEDBK_PATH("CLKOP"),
        .CLKOP_ENABLE("ENABLED"),
        .CLKOP_DIV(48),
        .CLKOP_CPHASE(9),
        .CLKOP_FPHASE(0),
        .CLKOS_ENABLE("ENABLED"),
        .CLKOS_DIV(10),
        .CLKOS_CPHASE(0),
        .CLKOS_FPHASE(0)
    ) pll (
        .CLKI(clk_25),
        .CLKFB(clk_fb),
        .CLKOP(clk_fb),
        .CLKOS(clk_48),
        .LOCK(locked),
        .RST(1'b0),
        .STDBY(1'b0),
        .PHASESEL0(1'b0),
        .PHASESEL1(1'b0),
        .PHASEDIR(1'b1),
        .PHASESTEP(1'b1),
        .PHASELOADREG(1'b1),
        .PLLWAKESYNC(1'b0),
        .ENCLKOP(1'b0),
        .ENCLKOS(1'b0),
        .ENCLKOS2(1'b0),
        .ENCLKOS3(1'b0),
        .CLKOS2(),
        .CLKOS3(),
        .INTLOCK(),
        .REFCLK(),
        .CLKINTFB()
    );
    /* verilator lint_on PINCONNECTEMPTY */
endmodule

`default_nettype wire
