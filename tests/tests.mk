# tests/tests.mk: the test layers (DESIGN.md "Testing, layer by layer").
#
# RTL unit tests: each tests/rtl/tb_<module>.cpp is a Verilator C++ testbench
# whose top is rtl/<module>.v or boards/common/<module>.v (the boards' shared
# logic); it prints "PASS <name>" lines or fails with a message and a
# non-zero exit. (The board tops themselves are not unit-tested here: they
# need the ECP5 PLL.)

RTL_TB_SRCS := $(sort $(wildcard tests/rtl/tb_*.cpp))
RTL_TB_BINS := $(patsubst tests/rtl/tb_%.cpp,$(BUILD)/tests/rtl/tb_%,$(RTL_TB_SRCS))
# $(call tb_flags,NAME,C++ FLAGS): Verilator's flags for testbench tb_NAME
tb_flags = --cc --exe --build -j $(JOBS) -O2 -Wall -Wno-fatal \
    $(RTL_INC) --Mdir $(BUILD)/tests/rtl/obj_$(1) -o ../tb_$(1) \
    -CFLAGS "-O1 -std=c++17 $(2) -I$(CURDIR)/tests/rtl -I$(CURDIR)/host/src/gen -I$(CURDIR)/rtl/gen" rtl/lint.vlt
VERILATOR_TB_FLAGS = $(call tb_flags,$*,)

$(BUILD)/tests/rtl/tb_%: tests/rtl/tb_%.cpp $(wildcard tests/rtl/*.h) $(RTL_SRCS) $(BOARD_LOGIC_SRCS) rtl/gen/qpnic_layout.vh rtl/gen/qpnic_internal.h host/src/gen/qpnic_hw.h
	@mkdir -p $(dir $@)
	verilator $(VERILATOR_TB_FLAGS) $(if $(TB_LIBS_$*),-LDFLAGS "$(TB_LIBS_$*)") --top-module $* $(PICORV32_V) $(RTL_SRCS) $(BOARD_LOGIC_SRCS) $(abspath $<) > $(BUILD)/tests/rtl/tb_$*.build.log 2>&1 || { cat $(BUILD)/tests/rtl/tb_$*.build.log; exit 1; }

# tb_qpnic_wire checks every ICRC against zlib's crc32 (an implementation
# nobody here wrote).
TB_LIBS_qpnic_wire := -lz

# tb_qpnic_spi_boot reads its image from the board simulator's flash model.
$(BUILD)/tests/rtl/tb_qpnic_spi_boot: sim/spi_flash.h

# tb_qpnic_fw_transport drives the transport port's registers (tpregs) by
# the firmware's header.
$(BUILD)/tests/rtl/tb_qpnic_fw_transport: fw/gen/qpnic_fw_hw.h

# tb_qpnic_core runs the real firmware image on the soft core.
$(BUILD)/tests/rtl/tb_qpnic_core: $(FW_HEX)

# A testbench built again on other parameters: $(call tb_variant,NAME,TOP,
# VERILOG SOURCES,VERILATOR -G FLAGS,C++ -D FLAGS) builds tb_NAME from the
# recipe's first prerequisite (the testbench's source), top TOP.
tb_variant = @mkdir -p $(dir $@) && verilator $(call tb_flags,$(1),$(5)) $(4) \
    --top-module $(2) $(3) $(abspath $<) > $@.build.log 2>&1 || { cat $@.build.log; exit 1; }

# The QP table again as the iCE40 builds it (qpnic_core ICE40: WORD_REGS 0,
# the answer a cycle sooner).
RTL_TB_BINS += $(BUILD)/tests/rtl/tb_qpnic_qp_table_ice40
$(BUILD)/tests/rtl/tb_qpnic_qp_table_ice40: tests/rtl/tb_qpnic_qp_table.cpp $(wildcard tests/rtl/*.h) rtl/qpnic_qp_table.v \
            rtl/qpnic_ram_sdp.v rtl/gen/qpnic_layout.vh rtl/gen/qpnic_internal.h host/src/gen/qpnic_hw.h
	$(call tb_variant,qpnic_qp_table_ice40,qpnic_qp_table,rtl/qpnic_qp_table.v rtl/qpnic_ram_sdp.v,-GWORD_REGS=0,-DTB_WORD_REGS=0)

# The UART again at 12 Mbaud (4 cycles a bit at 48 MHz: an FT2232H's rate).
RTL_TB_BINS += $(BUILD)/tests/rtl/tb_qpnic_uart_12m
$(BUILD)/tests/rtl/tb_qpnic_uart_12m: tests/rtl/tb_qpnic_uart.cpp tests/rtl/tb_util.h rtl/qpnic_uart.v
	$(call tb_variant,qpnic_uart_12m,qpnic_uart,rtl/qpnic_uart.v,-GBAUD=12000000,-DTB_BAUD=12000000.0)

.PHONY: test-rtl
test-rtl: $(RTL_TB_BINS)
	@set -e; for t in $(RTL_TB_BINS); do echo "== $$t"; $$t; done

# End-to-end tests: each tests/e2e/test_*.c is a program of cases that run the
# whole NIC (RTL + firmware in qpnic-sim, through libqpnic) and name the rule
# IDs they check. Each prints "PASS <case>" lines and "N passed, M failed".
E2E_SRCS := $(sort $(wildcard tests/e2e/test_*.c))
E2E_BINS := $(patsubst tests/e2e/%.c,$(BUILD)/tests/e2e/%,$(E2E_SRCS))
# host/src/gen: the generated layout, for the few white-box looks a test
# makes beside the public API (a QP number's table index)
E2E_CFLAGS := $(CSTD) $(WARN) $(OPT) -pthread -Ihost/include -Ihost/src/gen

$(BUILD)/tests/e2e/%: tests/e2e/%.c tests/e2e/e2e.c tests/e2e/e2e.h host/src/gen/qpnic_hw.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(E2E_CFLAGS) -o $@ $< tests/e2e/e2e.c $(LIB_A) $(HOST_LIBS)

# The two programs timed to run a fixed wall time (QPNIC_LIFECYCLE_SECONDS,
# QPNIC_N5_SECONDS: a minute each here) run side by side, each with its own
# simulator on one of the two cores (tools/side_by_side.sh), after the rest.
E2E_TIMED := $(BUILD)/tests/e2e/test_lifecycle_random $(BUILD)/tests/e2e/test_notify_stress
.PHONY: test-e2e
test-e2e: $(E2E_BINS) $(SIM_BIN) $(FW_HEX)
	@set -e; for t in $(filter-out $(E2E_TIMED),$(E2E_BINS)); do echo "== $$t"; $$t; done
	@tools/side_by_side.sh $(BUILD)/e2e-logs $(foreach t,$(E2E_TIMED),$(notdir $(t))=$(t))

# Differential testing: tests/diff/diff.c runs random workloads on the NIC
# (through libqpnic and qpnic-sim) and on the reference model of
# tests/diff/model.c, and compares completions and memory after every step.
# make test runs DIFF_OPS operations with a fresh seed (printed); a longer
# run: build/tests/diff/qpnic-diff --ops 1000000 [--seed S].
DIFF_BIN := $(BUILD)/tests/diff/qpnic-diff
DIFF_OPS ?= 10000
$(DIFF_BIN): tests/diff/diff.c tests/diff/model.c tests/diff/model.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(E2E_CFLAGS) -o $@ tests/diff/diff.c tests/diff/model.c $(LIB_A) $(HOST_LIBS)

.PHONY: test-diff
test-diff: $(DIFF_BIN) $(SIM_BIN) $(FW_HEX)
	$(DIFF_BIN) --ops $(DIFF_OPS)

# The firmware partition (docs/partitions.md): every end-to-end program but
# the wire's (that partition has no wire) and a differential run, on
# qpnic-sim --partition fw (the requester, responder and completer in the
# soft core's C). The two timed programs run 20 s each here, not 60.
E2E_FW_BINS := $(filter-out %/test_wire,$(E2E_BINS))
FW_DIFF_OPS ?= 3000
.PHONY: test-partition-fw
test-partition-fw: $(E2E_FW_BINS) $(DIFF_BIN) $(SIM_FW_BIN) $(FW_TP_HEX)
	@set -e; for t in $(filter-out $(E2E_TIMED),$(E2E_FW_BINS)); do echo "== $$t (--partition fw)"; \
	    QPNIC_SIM_ARGS="--partition fw" $$t; done
	@QPNIC_SIM_ARGS="--partition fw" QPNIC_LIFECYCLE_SECONDS=20 QPNIC_N5_SECONDS=20 \
	    tools/side_by_side.sh $(BUILD)/e2e-fw-logs $(foreach t,$(E2E_TIMED),$(notdir $(t))=$(t))
	QPNIC_SIM_ARGS="--partition fw" $(DIFF_BIN) --ops $(FW_DIFF_OPS)

# DMA reads answered out of order (docs/internals.md, "The NIC core's
# ports"): qpnic-sim --dma-reorder answers the reads of different tags in a
# seeded random order and says how many overtook an older one; the
# operations' end-to-end tests and a differential run must pass the same.
# The seed is printed; QPNIC_REORDER_SEED replays one.
.PHONY: test-reorder
test-reorder: $(BUILD)/tests/e2e/test_ops $(DIFF_BIN) $(SIM_BIN) $(FW_HEX)
	@seed=$${QPNIC_REORDER_SEED:-$$(( $$(od -An -N4 -tu4 /dev/urandom) + 1 ))}; \
	    echo "DMA reorder seed $$seed (QPNIC_REORDER_SEED=$$seed replays it)"; \
	    QPNIC_SIM_ARGS="--dma-reorder $$seed --dma-latency 40" $(BUILD)/tests/e2e/test_ops && \
	    QPNIC_SIM_ARGS="--dma-reorder $$seed --dma-latency 40" $(DIFF_BIN) --ops 2000

# The installed library, used from outside the tree the way API.md promises:
# pkg-config, ndk_open_adapter(NULL), nothing else set up.
INSTALL_TEST_PREFIX := $(CURDIR)/$(BUILD)/install-test
.PHONY: test-install
test-install: $(SIM_BIN) $(SIM_FW_BIN) $(BOARD_SIM_BINS) $(FW_HEX) $(FW_TP_HEX) $(FW_TP_FLASH)
	rm -rf $(INSTALL_TEST_PREFIX)
	$(MAKE) --no-print-directory install PREFIX=$(INSTALL_TEST_PREFIX)
	bash tests/install/test_install.sh $(INSTALL_TEST_PREFIX)

# docs/conformance.md against tests/e2e: every rule ID has an end-to-end
# case, every case the page names exists (the rules of its "Not yet covered"
# list are reported, not failed).
.PHONY: test-conformance
test-conformance:
	python3 tools/check_conformance.py

# The RoCEv2 wire's capture tools: the simulator's pcap writer (sim/pcap.h),
# unit-tested byte by byte, and tools/check_roce_pcap.py (scapy and tshark
# on every frame), on good and broken frames written by that same writer.
PCAP_TEST_BIN := $(BUILD)/tests/sim/test_pcap
$(PCAP_TEST_BIN): tests/sim/test_pcap.cpp sim/pcap.cpp sim/pcap.h tests/rtl/tb_util.h
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 $(WARN) $(OPT) -Isim -Itests/rtl -o $@ tests/sim/test_pcap.cpp sim/pcap.cpp

.PHONY: test-wire-tools
test-wire-tools: $(PCAP_TEST_BIN) host/src/gen/qpnic_hw.h
	$(PCAP_TEST_BIN)
	$(PYTHON) tests/wire/test_check_roce_pcap.py $(PCAP_TEST_BIN)

# The RoCEv2 wire (docs/wire.md): the demo with its packet port on the
# wire (qpnic-sim --pcap), its capture read by tshark and scapy and its
# sequence checked (tests/wire/test_demo_capture.py); then end-to-end cases
# over the wire: whole test programs that cover SEND, SEND with invalidate,
# WRITE, READ, inline data and windows, and the operation cases of NAKs and
# receiver-not-ready retries. Messages are not yet segmented at a path MTU,
# so a case that moves more than 4096 bytes in one message runs only on the
# loopback (test-e2e).
WIRE_E2E_PROGRAMS := test_inline test_windows
WIRE_E2E_CASES := test_ops:V3_completion_names_its_qp test_ops:V3_shared_cq_tells_qps_apart \
    test_ops:V7_bytes_only_on_success test_ops:V8_send_without_receive_is_receiver_not_ready \
    test_ops:V8_rnr_retry_sends_the_rest_again_in_order_each_once \
    test_ops:V8_rnr_retries_run_out_then_receiver_not_ready \
    test_verbs:send_and_invalidate_of_a_bad_token_fails_both_sides \
    test_verbs:pd_a_qp_never_uses_a_region_of_another_pd
# Then a differential run over the wire: random workloads of messages up to
# 4096 bytes (at the path MTU of 1024: most of them segmented), against the
# model. (test_wire's own cases, in test-e2e, put
# the wire under loss and duplication, and two NICs under loss,
# duplication, reordering and corruption.) Last, two NICs (docs/wire.md,
# "Two NICs"): the demo's chain from one to the other (make demo-wire), and
# whole test programs with their pair's side b on a second NIC
# (QPNIC_E2E_TWO_NICS): those whose cases keep each side's objects on its
# own adapter.
TWO_NIC_E2E_PROGRAMS := test_inline test_defer
.PHONY: test-wire
test-wire: $(DEMO_BIN) $(SIM_BIN) $(FW_HEX) $(E2E_BINS) $(DIFF_BIN)
	@mkdir -p $(BUILD)/wire
	$(PYTHON) tests/wire/test_demo_capture.py $(DEMO_BIN) $(BUILD)/wire/demo.pcap
	QPNIC_SIM_ARGS=--wire $(DIFF_BIN) --ops 2000 --max-msg 4096
	@set -e; for t in $(WIRE_E2E_PROGRAMS); do echo "== $$t over the wire"; \
	    QPNIC_SIM_ARGS=--wire $(BUILD)/tests/e2e/$$t; done
	@set -e; for c in $(WIRE_E2E_CASES); do echo "== $$c over the wire"; \
	    QPNIC_SIM_ARGS=--wire $(BUILD)/tests/e2e/$${c%%:*} $${c#*:}; done
	$(DEMO_BIN) --two-nics
	@set -e; for t in $(TWO_NIC_E2E_PROGRAMS); do echo "== $$t between two NICs"; \
	    QPNIC_E2E_TWO_NICS=1 $(BUILD)/tests/e2e/$$t; done

# make test: every layer, cheapest first, then the count of cases over all
# layers as the closing line (tools/tally.py).
# qpnic-info on the simulator: it opens, names the layout the library was
# built for, and fails cleanly on a URI with no device behind it.
.PHONY: test-tools
test-tools: $(INFO_BIN) $(SIM_BIN) $(FW_HEX)
	@out=$$($(INFO_BIN)) || { echo "FAIL qpnic_info_sim: exit $$?"; exit 1; }; \
	    echo "$$out" | grep -q "register layout $$(($(shell sed -n 's/.*QPNIC_VERSION_VALUE \([0-9]*\)u.*/\1/p' host/src/gen/qpnic_hw.h) >> 8))\." \
	    || { echo "FAIL qpnic_info_sim: no layout version in:"; echo "$$out"; exit 1; }; echo "PASS qpnic_info_sim"
	@if $(INFO_BIN) tty:/nonexistent/qpnic 2>/dev/null; then echo "FAIL qpnic_info_no_device: exit 0"; exit 1; fi; \
	    echo "PASS qpnic_info_no_device"

# Board level (docs/link.md, "Board-level co-simulation"): the board-level
# simulator over its pseudo-terminal: a Python host, then qpnic-info, the
# demo and the D, V and N end-to-end tests over tty:, then the demo and the
# D tests on an impaired line (tests/board/run_board_tests.sh). The boards
# run side by side (tools/side_by_side.sh): each one's time is mostly its
# simulator on one core, the host waiting on the serial line.
.PHONY: test-board
test-board: $(BOARD_SIM_BINS) $(FW_HEX) $(FW_TP_FLASH) $(INFO_BIN) $(DEMO_BIN) \
            $(BUILD)/tests/e2e/test_defer $(BUILD)/tests/e2e/test_ops $(BUILD)/tests/e2e/test_notify
	@PYTHON=$(PYTHON) tools/side_by_side.sh $(BUILD)/board-logs \
	    $(foreach b,$(SIM_BOARDS),board_$(b)="tests/board/run_board_tests.sh $(BUILD) $(b)")

TEST_LAYERS := check-gen test-conformance lint test-synth-report test-wire-tools test-fw test-fw-core test-rtl test-host test-sim test-e2e test-partition-fw test-wire test-diff test-reorder test-fuzz test-bench test-install test-tools test-board
# `make test` first builds every program the layers run, JOBS at a time
# (test-build: building is safe to run in parallel, the tests are not all:
# some count wall time), then runs the layers one after another, in this
# order, and prints each step's wall time as "TIME <step> <seconds>";
# tools/tally.py sums them up at the end. TEST_BINS is expanded in the
# recipe, after the files included later (fuzz.mk) have set their parts.
TEST_BINS = $(RTL_TB_BINS) $(E2E_BINS) $(HOST_TEST_BINS) $(FW_TEST_BIN) $(FW_TP_TEST_BIN) \
    $(FW_CORE_TB) $(FW_HEX) $(FW_TP_HEX) $(FW_TP_FLASH) $(SIM_BIN) $(SIM_FW_BIN) $(BOARD_SIM_BINS) \
    $(DIFF_BIN) $(DEMO_BIN) $(INFO_BIN) $(PERF_BIN) $(PCAP_TEST_BIN) \
    $(BUILD)/tests/sim/test_dma_check $(BUILD)/tests/sim/test_shm_proto \
    $(FUZZ_API_BIN) $(FUZZ_RINGS_BIN)
.PHONY: test test-build test-layers
test-build:
	@$(MAKE) --no-print-directory -j$(JOBS) $(TEST_BINS)
test-layers: $(TEST_LAYERS)
test:
	@mkdir -p $(BUILD)
	@set -o pipefail; for l in test-build $(TEST_LAYERS); do t0=$$(date +%s); \
	    $(MAKE) --no-print-directory $$l || exit 1; \
	    echo "TIME $$l $$(( $$(date +%s) - t0 ))"; done 2>&1 | tee $(BUILD)/test.log
	@python3 tools/tally.py $(BUILD)/test.log
