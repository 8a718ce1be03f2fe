// board_icebreaker.h: the iCEBreaker's pins as sim/board_sim.cpp drives and
// reads them (boards/icebreaker/qpnic_icebreaker.v, its names from the
// board's constraint file). Its NIC is the firmware partition
// (docs/partitions.md).
#ifndef QPNIC_SIM_BOARD_ICEBREAKER_H
#define QPNIC_SIM_BOARD_ICEBREAKER_H
#include <cstdint>

#include "Vqpnic_icebreaker.h"
#include "Vqpnic_icebreaker___024root.h"

namespace board {

using Top = Vqpnic_icebreaker;

// the 12 MHz oscillator is the NIC's clock (no PLL)
inline void set_osc(Top &t, int level) { t.CLK = (uint8_t)level; }
// the FT2232H channel B's TXD is the FPGA's input RX, its RXD the output TX
inline void set_serial_in(Top &t, int level) { t.RX = (uint8_t)level; }
inline int serial_out(const Top &t) { return t.TX; }
// BTN_N is low when pressed; not pressed
inline void release_buttons(Top &t) { t.BTN_N = 1; }
// LEDG_N link up, LEDR_N error (low is lit), LED1 activity (high is lit)
inline bool led_link(const Top &t) { return !t.LEDG_N; }
inline bool led_activity(const Top &t) { return t.LED1; }
inline bool led_error(const Top &t) { return !t.LEDR_N; }
// The configuration flash, where the firmware waits (qpnic_icebreaker's
// FW_LOAD: qpnic_spi_boot copies it into the SPRAM at boot): the simulator
// runs sim/spi_flash.h on these pins, with the firmware's flash image
// (BOARD_FW_NAME, fw/bin2hex.py's: header, RAM words, CRC) at
// FW_FLASH_OFFSET.
#define BOARD_BOOT_FLASH 1
#define BOARD_FW_NAME "qpnic-fw-tp.flash.bin"
inline int flash_cs_n(const Top &t) { return t.FLASH_SSB; }
inline int flash_sck(const Top &t) { return t.FLASH_SCK; }
inline int flash_mosi(const Top &t) { return t.FLASH_IO0; }
inline void set_flash_miso(Top &t, int level) { t.FLASH_IO1 = (uint8_t)level; }
// the NIC's own pulse for a dropped frame (qpnic_icebreaker's `error`,
// public for the simulator): counted exactly, where the LED stretches it
inline bool nic_error(const Top &t) { return t.rootp->qpnic_icebreaker__DOT__nic__DOT__error; }

} // namespace board

#endif
