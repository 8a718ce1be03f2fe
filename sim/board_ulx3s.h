// board_ulx3s.h: the ULX3S's pins as sim/board_sim.cpp drives and reads
// them (boards/ulx3s/qpnic_ulx3s.v, its names from the board's constraint
// file). A board-level simulator of another board is this header for its
// top, and its lines in sim/sim.mk.
#ifndef QPNIC_SIM_BOARD_ULX3S_H
#define QPNIC_SIM_BOARD_ULX3S_H
#include <cstdint>

#include "Vqpnic_ulx3s.h"
#include "Vqpnic_ulx3s___024root.h"

namespace board {

using Top = Vqpnic_ulx3s;

inline void set_osc(Top &t, int level) { t.clk_25mhz = (uint8_t)level; }
// the FT231X's TXD is the FPGA's input, its RXD the FPGA's output
inline void set_serial_in(Top &t, int level) { t.ftdi_txd = (uint8_t)level; }
inline int serial_out(const Top &t) { return t.ftdi_rxd; }
// btn[0] (PWR) is low when pressed, the others high; none pressed
inline void release_buttons(Top &t) { t.btn = 0x01; }
// led[0] link up, led[1] activity, led[2] error (boards/ulx3s/qpnic_ulx3s.v)
inline bool led_link(const Top &t) { return t.led & 1; }
inline bool led_activity(const Top &t) { return t.led >> 1 & 1; }
inline bool led_error(const Top &t) { return t.led >> 2 & 1; }
// the NIC's own pulse for a dropped frame (qpnic_ecp5_board's `error`,
// public for the simulator): counted exactly, where the LED stretches it
inline bool nic_error(const Top &t) { return t.rootp->qpnic_ulx3s__DOT__board__DOT__nic__DOT__error; }

} // namespace board

#endif
