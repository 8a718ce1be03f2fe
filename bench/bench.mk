# bench/bench.mk: make bench, the measured performance of qpnic (issue 3).
#
#   make bench       run the fixed sweep of qpnic-perf (a few minutes), draw
#                    docs/img/bench-*.png, write docs/performance.md
#   make test-bench  a quick smoke test of qpnic-perf (tests/bench/)
#   make sim-speed   co-simulation speed of the full build with 8, 64 and 256
#                    QPs, measured together (bench/sim_speed.py); builds three
#                    simulators under $(BUILD)/sim-q<N>/ (a few minutes)
#
# The raw JSON of every run stays in $(BUILD)/bench/. The page and plots are
# committed: they are the project's measured figures, regenerated on demand.

BENCH_RAW := $(BUILD)/bench

# The plotting packages, pinned, into the same venv as the rest.
$(BUILD)/venv/requirements-bench.installed: tools/requirements-bench.txt $(BUILD)/setup.mk
	$(PYTHON) -m pip install -q --disable-pip-version-check -r tools/requirements-bench.txt
	cp tools/requirements-bench.txt $@

.PHONY: bench test-bench
bench: $(PERF_BIN) $(SIM_BIN) $(FW_HEX) $(BUILD)/venv/requirements-bench.installed
	$(PYTHON) bench/run_bench.py --perf $(PERF_BIN) --doc docs/performance.md \
	    --img docs/img --raw $(BENCH_RAW) --repo $(CURDIR)

test-bench: $(PERF_BIN) $(SIM_BIN) $(FW_HEX)
	bash tests/bench/test_perf_smoke.sh $(PERF_BIN)

# The co-simulation's cost per cycle must not grow with the number of QPs:
# the same simulator at 8, 64 and 256 QPs (the full build's other sizes),
# measured in one interleaved run.
SPEED_QPS := 8 64 256
SPEED_SIMS := $(foreach n,$(SPEED_QPS),$(BUILD)/sim-q$(n)/bin/qpnic-sim)
$(BUILD)/sim-q%/bin/qpnic-sim: $(RTL_SRCS) $(PICORV32_V) rtl/lint.vlt rtl/gen/qpnic_layout.vh \
                               $(SIM_CPP) $(SIM_HDR) host/src/gen/qpnic_hw.h sim/sim.mk
	@mkdir -p $(dir $@) $(BUILD)/sim-q$*/obj $(BUILD)/sim-q$*/share/qpnic
	verilator $(subst $(SIM_PARAMS),-GNUM_QP=$* -GNUM_CQ=256 -GNUM_MR=1024 -GNUM_PT=4096,$(SIM_VFLAGS)) \
	    --Mdir $(BUILD)/sim-q$*/obj -o $(abspath $@) \
	    rtl/lint.vlt $(PICORV32_V) $(RTL_SRCS) $(abspath $(SIM_CPP)) \
	    > $(BUILD)/sim-q$*/build.log 2>&1 || { cat $(BUILD)/sim-q$*/build.log; exit 1; }

.PHONY: sim-speed
sim-speed: $(PERF_BIN) $(SPEED_SIMS) $(FW_HEX)
	@for n in $(SPEED_QPS); do cp $(FW_HEX) $(BUILD)/sim-q$$n/share/qpnic/; done
	python3 bench/sim_speed.py --perf $(PERF_BIN) $(foreach n,$(SPEED_QPS),"$(n) QPs=$(BUILD)/sim-q$(n)/bin/qpnic-sim")
