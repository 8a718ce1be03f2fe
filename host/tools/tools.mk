# host/tools/tools.mk: the command-line programs built on libqpnic.
DEMO_BIN := $(BUILD)/bin/qpnic-demo
PERF_BIN := $(BUILD)/bin/qpnic-perf

$(DEMO_BIN): host/tools/qpnic-demo.c host/include/qpnic/ndk.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -pthread -Ihost/include -o $@ $< $(LIB_A) $(HOST_LIBS)

# qpnic-info: an adapter's identity, limits and counters, on any backend.
INFO_BIN := $(BUILD)/bin/qpnic-info
$(INFO_BIN): host/tools/qpnic-info.c host/include/qpnic/ndk.h host/include/qpnic/ndk_sim.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -pthread -Ihost/include -o $@ $< $(LIB_A) $(HOST_LIBS)

# qpnic-perf: the benchmark (issue 3; bench/bench.mk runs its sweep).
$(PERF_BIN): host/tools/qpnic-perf.c host/include/qpnic/ndk.h host/include/qpnic/ndk_sim.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -pthread -Ihost/include -o $@ $< $(LIB_A) $(HOST_LIBS)

# make demo: the walking skeleton end to end (README.md).
demo: $(DEMO_BIN) $(SIM_BIN) $(FW_HEX)
	$(DEMO_BIN)

# make demo-wire: the same chain from one NIC to another across the RoCEv2
# wire: two private simulators, their frames UDP datagrams on 127.0.0.1
# (docs/wire.md, "Two NICs").
demo-wire: $(DEMO_BIN) $(SIM_BIN) $(FW_HEX)
	$(DEMO_BIN) --two-nics

# make wave: the same run with a waveform of the whole NIC for GTKWave.
WAVE_FILE ?= $(BUILD)/demo.fst
wave: $(DEMO_BIN) $(SIM_BIN) $(FW_HEX)
	QPNIC_SIM_ARGS="--wave $(abspath $(WAVE_FILE))" $(DEMO_BIN)
	@echo "waveform: $(WAVE_FILE)  (open with: gtkwave $(WAVE_FILE) docs/demo.gtkw)"
	@command -v gtkwave >/dev/null || echo "gtkwave is not installed: sudo apt-get install gtkwave (Debian 12: 3.3.118)"
