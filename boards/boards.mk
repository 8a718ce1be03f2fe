# boards/boards.mk: the boards (docs/boards.md).
#
# BOARD_COMMON_SRCS is the logic both board tops share (boards/common/); the
# Makefile lints it, tests/tests.mk tests it (tests/rtl).

BOARD_COMMON_SRCS := $(sort $(wildcard boards/common/*.v))
# The same but the PLL, which only Yosys and nextpnr know (EHXPLLL): what
# Verilator can lint alone and simulate.
BOARD_LOGIC_SRCS  := $(filter-out %/qpnic_ecp5_pll.v,$(BOARD_COMMON_SRCS))
