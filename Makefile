# qpnic: an open RDMA NIC for open FPGA boards.
#
#   make demo      install what is missing, build, run the demo (README.md)
#   make demo-wire the demo's chain from one simulated NIC to another over RoCEv2
#   make test      install what is missing, build, run every test
#   make wave      run the demo with a waveform dump: build/demo.fst
#   make lint      verilator --lint-only -Wall over the RTL
#   make synth TARGET=NAME   the core through Yosys and nextpnr (synth/synth.mk)
#   make bitstream BOARD=NAME   a board's bitstream; make prog BOARD=NAME
#                  loads it (boards/boards.mk, docs/boards.md)
#   make floor SOFT_CORE=picorv32|serv   the iCEBreaker's soft core, link,
#                  loader and LEDs alone, measured (docs/partitions.md)
#   make install PREFIX=DIR   headers, libraries, pkg-config, simulator, firmware
#
# Everything built goes under build/, laid out like an install prefix
# (build/bin, build/lib, build/share/qpnic), so the simulator finds its
# firmware the same way in the tree and once installed.

BUILD    ?= build
PREFIX   ?= /usr/local
JOBS     ?= 2

.DEFAULT_GOAL := all
SHELL := /bin/bash
.DELETE_ON_ERROR:

# tools/setup.sh installs Debian and PyPI packages and writes build/setup.mk
# (PICORV32_V, PYTHON). Including it makes make run setup first.
$(BUILD)/setup.mk: tools/setup.sh tools/requirements.txt tools/debian-packages.txt
	bash tools/setup.sh $(BUILD)
include $(BUILD)/setup.mk

CC       ?= cc
CXX      ?= c++
CSTD     := -std=c11 -D_GNU_SOURCE
WARN     := -Wall -Wextra -Werror
OPT      ?= -O2 -g

RTL_SRCS := $(sort $(wildcard rtl/*.v))
RTL_INC  := -Irtl -Irtl/gen
LAYOUT_GEN := rtl/gen/qpnic_layout.vh rtl/gen/qpnic_internal.h host/src/gen/qpnic_hw.h fw/gen/qpnic_fw_hw.h docs/layout.md

FW_HEX   := $(BUILD)/share/qpnic/qpnic-fw.hex
FW_TP_HEX := $(BUILD)/share/qpnic/qpnic-fw-tp.hex
SIM_BIN  := $(BUILD)/bin/qpnic-sim
LIB_A    := $(BUILD)/lib/libqpnic.a
LIB_SO   := $(BUILD)/lib/libqpnic.so

include fw/fw.mk
include sim/sim.mk
include host/host.mk
include host/tools/tools.mk
include bench/bench.mk
include synth/synth.mk
include boards/boards.mk
include tests/tests.mk
include tests/fuzz/fuzz.mk

.PHONY: all gen check-gen lint demo demo-wire wave test install clean
all: $(FW_HEX) $(FW_TP_HEX) $(FW_TP_FLASH) $(SIM_BIN) $(SIM_FW_BIN) $(BOARD_SIM_BINS) $(LIB_A) $(LIB_SO) $(DEMO_BIN) $(INFO_BIN)

gen:
	python3 tools/genlayout.py
check-gen:
	python3 tools/genlayout.py --check

# Every build (docs/internals.md "Builds"): the default, the lite and the
# full one (the simulator's, with the RoCEv2 wire), the firmware partition
# and the iCE40's builds (ICE40: other generate branches), since widths
# follow the parameters; then the core inside make synth's top
# (synth/qpnic_synth_top.v), the serial NIC, and make floor's fixture
# core (synth/floor/qpnic_core.v, with PicoRV32); then the
# boards' shared logic alone, and each board's top (boards/boards.mk) with
# the ECP5 primitives as Yosys declares them, and each board-level
# simulator's top with its PLL model (sim/models/). rtl/lint.vlt waives PicoRV32
# (not ours), boards/lint.vlt Yosys's declarations; the few inline waivers
# each say why.
LINT_BUILDS := "" "-GNUM_QP=2 -GNUM_CQ=2 -GNUM_MR=8 -GNUM_PT=1" "$(SIM_PARAMS) -GWIRE=1" "-GPARTITION=1" "-GPARTITION=1 -GICE40=1 -GNUM_QP=2 -GNUM_CQ=2 -GNUM_MR=8 -GNUM_PT=1" "-GICE40=1"
lint:
	@for p in $(LINT_BUILDS); do \
	    echo "verilator --lint-only -Wall $$p ... --top-module qpnic_core"; \
	    verilator --lint-only -Wall $$p $(RTL_INC) rtl/lint.vlt $(PICORV32_V) $(RTL_SRCS) --top-module qpnic_core || exit 1; \
	done
	verilator --lint-only -Wall $(RTL_INC) rtl/lint.vlt $(PICORV32_V) $(RTL_SRCS) synth/qpnic_synth_top.v --top-module qpnic_synth_top
	verilator --lint-only -Wall $(RTL_INC) rtl/lint.vlt $(PICORV32_V) $(RTL_SRCS) --top-module qpnic_serial_nic
	verilator --lint-only -Wall -GICE40=1 -GFW_LOAD=1 $(RTL_INC) rtl/lint.vlt $(PICORV32_V) rtl/qpnic_soc.v \
	    synth/floor/qpnic_core.v --top-module qpnic_core
	@for m in qpnic_board_status qpnic_reset_sync; do \
	    echo "verilator --lint-only -Wall ... boards/common/*.v --top-module $$m"; \
	    verilator --lint-only -Wall $(BOARD_LOGIC_SRCS) --top-module $$m || exit 1; \
	done
	@for b in $(BOARD_TOPS); do \
	    echo "verilator --lint-only -Wall ... boards/$${b%%:*}/*.v --top-module $${b##*:}"; \
	    verilator --lint-only -Wall $(RTL_INC) rtl/lint.vlt boards/lint.vlt $(PICORV32_V) $(RTL_SRCS) \
	        $(BOARD_COMMON_SRCS) $(ECP5_CELLS_BB) boards/$${b%%:*}/*.v --top-module $${b##*:} || exit 1; \
	done
	@for b in $(SIM_BOARDS); do \
	    echo "verilator --lint-only -Wall ... sim/models/EHXPLLL.v boards/$$b/*.v --top-module qpnic_$$b (the board-level simulator's)"; \
	    verilator --lint-only -Wall $(RTL_INC) rtl/lint.vlt $(PICORV32_V) $(RTL_SRCS) \
	        $(BOARD_COMMON_SRCS) sim/models/EHXPLLL.v boards/$$b/*.v --top-module qpnic_$$b || exit 1; \
	done

clean:
	rm -rf $(BUILD)
