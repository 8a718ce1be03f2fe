# sim/sim.mk: qpnic-sim, the Verilator co-simulation carrier of qpnic_core
# (docs/internals.md, "The simulator"), and the tests of the harness itself.
#
#   make build/bin/qpnic-sim   the simulator (needs the firmware only to run)
#   make test-sim              build and run the harness tests
#
# The harness sources (sim/*.cpp) are compiled by Verilator's own make with
# the generated model; sim-warnings re-checks them alone with $(WARN), since
# the generated code is not ours to hold to -Werror.

SIM_MDIR   ?= $(BUILD)/sim/obj
SIM_CPP    := sim/dma_check.cpp sim/harness.cpp sim/pcap.cpp sim/qpnic_sim.cpp sim/shm.cpp sim/sim_util.cpp sim/wire.cpp
SIM_HDR    := $(sort $(wildcard sim/*.h))
SIM_CXXFLAGS := -std=c++17 -I$(CURDIR)/sim -I$(CURDIR)/host/src/gen
# The simulator is the full build: every QP, CQ and token a build can have
# (spec/layout.toml MAX_NUM_QP, MAX_NUM_CQ, 2^TOKEN_INDEX_BITS) and a page table
# of 4096 entries (16 MiB of fast-registered pages); the RTL modules' defaults
# (8 QPs, 8 CQs, 16 tokens, 256 page table entries) are the unit testbenches'
# build.
SIM_PARAMS ?= -GNUM_QP=256 -GNUM_CQ=256 -GNUM_MR=1024 -GNUM_PT=4096
# The model's C++ is compiled by clang at -O2 (SIM_CXX, SIM_OPT). Verilator's
# own makefile appends OPT_FAST (-Os by default) after CXXFLAGS, so -CFLAGS
# "-O2" alone left the model at -Os; clang beat g++ on the same model by
# about 11% in simulated cycles/s (docs/performance-analysis.md, "Compiler").
SIM_CXX    ?= clang++-14
SIM_OPT    := -O2
# WIRE=1: the RoCEv2 wire is built beside the loopback (qpnic-sim --wire
# picks it; docs/wire.md); the boards' build has no wire.
SIM_VFLAGS := --cc --exe --build -O3 --x-assign fast --x-initial fast --noassert $(SIM_PARAMS) -GWIRE=1 \
    --trace-fst -j $(JOBS) --top-module qpnic_core $(RTL_INC) \
    -MAKEFLAGS "CXX=$(SIM_CXX) LINK=$(SIM_CXX) OPT_FAST=$(SIM_OPT) OPT_GLOBAL=$(SIM_OPT)" \
    -CFLAGS "$(SIM_OPT) $(SIM_CXXFLAGS)"
VERILATOR_ROOT_INC := $(shell verilator --getenv VERILATOR_ROOT 2>/dev/null)/include

# Depends on the RTL and the harness, not on $(FW_HEX): the firmware is read
# at run time (+fw=PATH), so a firmware change needs no simulator rebuild.
$(SIM_BIN): $(RTL_SRCS) $(PICORV32_V) rtl/lint.vlt rtl/gen/qpnic_layout.vh \
            $(SIM_CPP) $(SIM_HDR) host/src/gen/qpnic_hw.h sim/sim.mk
	@mkdir -p $(dir $@) $(SIM_MDIR)
	verilator $(SIM_VFLAGS) --Mdir $(SIM_MDIR) -o $(abspath $@) \
	    rtl/lint.vlt $(PICORV32_V) $(RTL_SRCS) $(abspath $(SIM_CPP)) \
	    > $(SIM_MDIR)/build.log 2>&1 || { cat $(SIM_MDIR)/build.log; exit 1; }

# The firmware partition's simulator (docs/partitions.md): the same core
# with PARTITION=1 (the requester, responder and completer in the soft
# core's C), no wire, and the soft core's RAM and image of that partition;
# `qpnic-sim --partition fw` starts it. It is built for the iCE40 (ICE40:
# the soft core's two register read ports, the QP table without its word
# registers), as on the iCEBreaker, so that its cycle counts are those of
# the board's core.
SIM_FW_BIN  := $(BUILD)/bin/qpnic-sim-fw
SIM_FW_MDIR := $(BUILD)/sim/obj_fw
SIM_FW_VFLAGS = --cc --exe --build -O3 --x-assign fast --x-initial fast --noassert $(SIM_PARAMS) -GWIRE=0 \
    -GPARTITION=1 -GICE40=1 -GFW_WORDS=$(FW_TP_WORDS) \
    --trace-fst -j $(JOBS) --top-module qpnic_core $(RTL_INC) \
    -MAKEFLAGS "CXX=$(SIM_CXX) LINK=$(SIM_CXX) OPT_FAST=$(SIM_OPT) OPT_GLOBAL=$(SIM_OPT)" \
    -CFLAGS "$(SIM_OPT) $(SIM_CXXFLAGS) -DQPNIC_SIM_PARTITION_FW"

$(SIM_FW_BIN): $(RTL_SRCS) $(PICORV32_V) rtl/lint.vlt rtl/gen/qpnic_layout.vh \
            $(SIM_CPP) $(SIM_HDR) host/src/gen/qpnic_hw.h sim/sim.mk
	@mkdir -p $(dir $@) $(SIM_FW_MDIR)
	verilator $(SIM_FW_VFLAGS) --Mdir $(SIM_FW_MDIR) -o $(abspath $@) \
	    rtl/lint.vlt $(PICORV32_V) $(RTL_SRCS) $(abspath $(SIM_CPP)) \
	    > $(SIM_FW_MDIR)/build.log 2>&1 || { cat $(SIM_FW_MDIR)/build.log; exit 1; }

# Board-level co-simulation (docs/boards.md): qpnic-sim-<board> runs the
# board's whole top (boards/<board>/, its PLL the model sim/models/EHXPLLL.v,
# its oscillator pin clocked at the PLL's output) with its serial pins on a
# pseudo-terminal (sim/board_sim.cpp, the pins named in sim/board_<board>.h);
# `qpnic-sim --board <board>` starts it. A board's parameters are those its
# bitstream is built with: the ULX3S carries the full build at 48 MHz (its
# PLL's, of the 25 MHz oscillator), its FT231X at 3 Mbaud (BAUD must be the
# top's: boards/ulx3s/qpnic_ulx3s.v).
SIM_BOARDS := ulx3s icebreaker
BOARD_SIM_CPP := sim/board_sim.cpp sim/sim_util.cpp
BOARD_ulx3s_TOP    := qpnic_ulx3s
BOARD_ulx3s_OSC_HZ := 25000000
BOARD_ulx3s_CLK_HZ := 48000000
BOARD_ulx3s_BAUD   := 3000000
BOARD_ulx3s_PARAMS := $(SIM_PARAMS)
# The iCEBreaker: the firmware partition (docs/partitions.md) at the sizes of
# its bitstream (synth/targets.toml up5k-fw), its 12 MHz oscillator the
# clock (no PLL), the FT2232H at 3 Mbaud (BAUD: boards/icebreaker/
# qpnic_icebreaker.v); its default firmware the partition's image.
BOARD_icebreaker_TOP    := qpnic_icebreaker
BOARD_icebreaker_OSC_HZ := 12000000
BOARD_icebreaker_CLK_HZ := 12000000
BOARD_icebreaker_BAUD   := 3000000
BOARD_icebreaker_PARAMS := -GNUM_QP=8 -GNUM_CQ=8 -GNUM_MR=16 -GNUM_PT=256
BOARD_icebreaker_DEFS   := -DQPNIC_SIM_PARTITION_FW
BOARD_SIM_BINS := $(foreach b,$(SIM_BOARDS),$(BUILD)/bin/qpnic-sim-$(b))
board_defs = -DBOARD_NAME=$(1) -DBOARD_OSC_HZ=$(BOARD_$(1)_OSC_HZ) -DBOARD_CLK_HZ=$(BOARD_$(1)_CLK_HZ) \
    -DBOARD_BAUD=$(BOARD_$(1)_BAUD) -DBOARD_PINS_H='\"board_$(1).h\"' $(BOARD_$(1)_DEFS)
# the board's Verilog: the shared board logic, the board's top, the PLL model
board_vsrcs = $(sort $(wildcard boards/common/*.v)) $(wildcard boards/$(1)/*.v) sim/models/EHXPLLL.v

$(BUILD)/bin/qpnic-sim-%: $(RTL_SRCS) $(PICORV32_V) rtl/lint.vlt rtl/gen/qpnic_layout.vh \
            $(BOARD_SIM_CPP) sim/sim_util.h sim/spi_flash.h $(wildcard sim/board_*.h) host/src/gen/qpnic_hw.h sim/sim.mk \
            $(wildcard boards/*/*.v) sim/models/EHXPLLL.v
	@mkdir -p $(dir $@) $(BUILD)/sim/obj_$*
	verilator --cc --exe --build -O3 --x-assign fast --x-initial fast --noassert $(BOARD_$*_PARAMS) \
	    +define+QPNIC_SIM_OSC_HZ=$(BOARD_$*_OSC_HZ) +define+QPNIC_SIM_CLK_HZ=$(BOARD_$*_CLK_HZ) \
	    --trace-fst -j $(JOBS) --top-module $(BOARD_$*_TOP) $(RTL_INC) \
	    -MAKEFLAGS "CXX=$(SIM_CXX) LINK=$(SIM_CXX) OPT_FAST=$(SIM_OPT) OPT_GLOBAL=$(SIM_OPT)" \
	    -CFLAGS "$(SIM_OPT) $(SIM_CXXFLAGS) $(call board_defs,$*)" --Mdir $(BUILD)/sim/obj_$* -o $(abspath $@) \
	    rtl/lint.vlt $(PICORV32_V) $(RTL_SRCS) $(call board_vsrcs,$*) $(abspath $(BOARD_SIM_CPP)) \
	    > $(BUILD)/sim/obj_$*/build.log 2>&1 || { cat $(BUILD)/sim/obj_$*/build.log; exit 1; }

# The harness sources alone under $(WARN), against the models' headers.
.PHONY: sim-warnings
sim-warnings: $(SIM_BIN) $(BOARD_SIM_BINS)
	@for f in $(SIM_CPP); do \
	    $(CXX) -fsyntax-only $(WARN) $(SIM_CXXFLAGS) -isystem $(SIM_MDIR) -isystem $(VERILATOR_ROOT_INC) $$f || exit 1; \
	done
	@for b in $(SIM_BOARDS); do \
	    $(CXX) -fsyntax-only $(WARN) $(SIM_CXXFLAGS) -DBOARD_NAME=$$b -DBOARD_OSC_HZ=1 -DBOARD_CLK_HZ=1 -DBOARD_BAUD=1 \
	        -DBOARD_PINS_H="\"board_$$b.h\"" -Isim \
	        -isystem $(BUILD)/sim/obj_$$b -isystem $(VERILATOR_ROOT_INC) -isystem $(VERILATOR_ROOT_INC)/vltstd sim/board_sim.cpp || exit 1; \
	done
	@echo "PASS sim-warnings"

$(BUILD)/tests/sim/test_dma_check: tests/sim/test_dma_check.cpp sim/dma_check.cpp sim/dma_check.h sim/shm_proto.h
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 $(WARN) $(OPT) -Isim -o $@ tests/sim/test_dma_check.cpp sim/dma_check.cpp

$(BUILD)/tests/sim/test_shm_proto: tests/sim/test_shm_proto.c sim/shm_proto.h host/src/gen/qpnic_hw.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -Isim -Ihost/src/gen -o $@ $<

.PHONY: test-sim
test-sim: sim-warnings $(BUILD)/tests/sim/test_dma_check $(BUILD)/tests/sim/test_shm_proto $(SIM_BIN) $(FW_HEX)
	$(BUILD)/tests/sim/test_dma_check
	$(BUILD)/tests/sim/test_shm_proto $(SIM_BIN)
