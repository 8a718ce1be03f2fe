# tests/tests.mk: the test layers (DESIGN.md "Testing, layer by layer").
#
# RTL unit tests: each tests/rtl/tb_<module>.cpp is a Verilator C++ testbench
# whose top is rtl/<module>.v; it prints "PASS <name>" lines or fails with a
# message and a non-zero exit.

RTL_TB_SRCS := $(sort $(wildcard tests/rtl/tb_*.cpp))
RTL_TB_BINS := $(patsubst tests/rtl/tb_%.cpp,$(BUILD)/tests/rtl/tb_%,$(RTL_TB_SRCS))
VERILATOR_TB_FLAGS := --cc --exe --build -j $(JOBS) -O2 -Wall -Wno-fatal \
    $(RTL_INC) --Mdir $(BUILD)/tests/rtl/obj_$* -o ../tb_$* \
    -CFLAGS "-O1 -std=c++17 -I$(CURDIR)/tests/rtl" rtl/lint.vlt

$(BUILD)/tests/rtl/tb_%: tests/rtl/tb_%.cpp tests/rtl/tb_util.h $(RTL_SRCS) rtl/gen/qpnic_layout.vh
	@mkdir -p $(dir $@)
	verilator $(VERILATOR_TB_FLAGS) --top-module $* $(PICORV32_V) $(RTL_SRCS) $(abspath $<) > $(BUILD)/tests/rtl/tb_$*.build.log 2>&1 || { cat $(BUILD)/tests/rtl/tb_$*.build.log; exit 1; }

.PHONY: test-rtl
test-rtl: $(RTL_TB_BINS)
	@set -e; for t in $(RTL_TB_BINS); do echo "== $$t"; $$t; done
