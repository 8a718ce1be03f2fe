// EHXPLLL: a simulation model of the ECP5 PLL for the board-level
// co-simulation (qpnic-sim --board NAME, sim/board_sim.cpp), with the
// ports and parameters of Yosys's declaration (/usr/share/yosys/ecp5/
// cells_bb.v). It is not a frequency synthesizer: a cycle-based simulator
// has one clock, so the simulator drives the board's oscillator pin at the
// frequency the PLL makes of it, and this model passes that clock through
// to every output. What it does model:
//   - the configuration: the output the board uses (CLKOS, fed back
//     through CLKOP) must be QPNIC_SIM_CLK_HZ when CLKI is
//     QPNIC_SIM_OSC_HZ (both defined by sim/sim.mk), else $fatal: the
//     simulator's clock is the one the board's PLL really makes;
//   - LOCK: low for LOCK_CYCLES cycles after the start, as the real PLL's
//     is while it settles, so the board's reset path (qpnic_reset_sync
//     held by !locked) runs as on the board.
// Not modelled: phase shifts, the dynamic phase ports, standby, RST.
`default_nettype none
`ifndef QPNIC_SIM_OSC_HZ
`define QPNIC_SIM_OSC_HZ 25000000
`endif
`ifndef QPNIC_SIM_CLK_HZ
`define QPNIC_SIM_CLK_HZ 48000000
`endif

// The ports are Yosys's whole list; the model reads CLKI only.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
module EHXPLLL #(
    parameter CLKI_DIV = 1,
    parameter CLKFB_DIV = 1,
    parameter CLKOP_DIV = 8,
    parameter CLKOS_DIV = 8,
    parameter CLKOS2_DIV = 8,
    parameter CLKOS3_DIV = 8,
    parameter CLKOP_ENABLE = "ENABLED",
    parameter CLKOS_ENABLE = "DISABLED",
    parameter CLKOS2_ENABLE = "DISABLED",
    parameter CLKOS3_ENABLE = "DISABLED",
    parameter CLKOP_CPHASE = 0,
    parameter CLKOS_CPHASE = 0,
    parameter CLKOS2_CPHASE = 0,
    parameter CLKOS3_CPHASE = 0,
    parameter CLKOP_FPHASE = 0,
    parameter CLKOS_FPHASE = 0,
    parameter CLKOS2_FPHASE = 0,
    parameter CLKOS3_FPHASE = 0,
    parameter FEEDBK_PATH = "CLKOP",
    parameter CLKOP_TRIM_POL = "RISING",
    parameter CLKOP_TRIM_DELAY = 0,
    parameter CLKOS_TRIM_POL = "RISING",
    parameter CLKOS_TRIM_DELAY = 0,
    parameter OUTDIVIDER_MUXA = "DIVA",
    parameter OUTDIVIDER_MUXB = "DIVB",
    parameter OUTDIVIDER_MUXC = "DIVC",
    parameter OUTDIVIDER_MUXD = "DIVD",
    parameter PLL_LOCK_MODE = 0,
    parameter PLL_LOCK_DELAY = 200,
    parameter STDBY_ENABLE = "DISABLED",
    parameter REFIN_RESET = "DISABLED",
    parameter SYNC_ENABLE = "DISABLED",
    parameter INT_LOCK_STICKY = "ENABLED",
    parameter DPHASE_SOURCE = "DISABLED",
    parameter PLLRST_ENA = "DISABLED",
    parameter INTFB_WAKE = "DISABLED"
) (
    input  wire CLKI, CLKFB,
    input  wire PHASESEL1, PHASESEL0, PHASEDIR, PHASESTEP, PHASELOADREG,
    input  wire STDBY, PLLWAKESYNC,
    input  wire RST, ENCLKOP, ENCLKOS, ENCLKOS2, ENCLKOS3,
    output wire CLKOP, CLKOS, CLKOS2, CLKOS3,
    output wire LOCK, INTLOCK,
    output wire REFCLK, CLKINTFB
);
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */
    localparam LOCK_CYCLES = 64;

    // With the feedback through CLKOP, the phase detector compares
    // CLKI / CLKI_DIV with CLKOP / CLKFB_DIV; the VCO runs at CLKOP x
    // CLKOP_DIV, and CLKOS is the VCO / CLKOS_DIV.
    localparam [63:0] OSC = `QPNIC_SIM_OSC_HZ;
    localparam [63:0] OUT = `QPNIC_SIM_CLK_HZ;
    initial begin
        if (FEEDBK_PATH != "CLKOP" || CLKOS_ENABLE != "ENABLED")
            $fatal(1, "EHXPLLL model: only CLKOS with the feedback through CLKOP is modelled");
        if (OSC * CLKFB_DIV * CLKOP_DIV != OUT * CLKI_DIV * CLKOS_DIV)
            $fatal(1, "EHXPLLL model: CLKOS would be %0d Hz x %0d x %0d / (%0d x %0d), not the simulated %0d Hz",
                   OSC, CLKFB_DIV, CLKOP_DIV, CLKI_DIV, CLKOS_DIV, OUT);
    end

    reg [6:0] settle = 7'd0;
    always @(posedge CLKI)
        if (settle != LOCK_CYCLES[6:0]) settle <= settle + 7'd1;

    assign CLKOP    = CLKI;
    assign CLKOS    = CLKI;
    assign CLKOS2   = CLKI;
    assign CLKOS3   = CLKI;
    assign LOCK     = settle == LOCK_CYCLES[6:0];
    assign INTLOCK  = LOCK;
    assign REFCLK   = CLKI;
    assign CLKINTFB = CLKI;
endmodule

`default_nettype wire
