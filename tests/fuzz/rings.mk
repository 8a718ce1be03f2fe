# tests/fuzz/rings.mk: the ring fuzzer (issue 11, fuzzer 2), included by
# tests/fuzz/fuzz.mk. tests/fuzz/fuzz_rings.c says what it checks.
#
#   make fuzz-rings [FUZZ_TIME=300]   fuzz for FUZZ_TIME seconds on a working copy
#                                     of the corpus (build/fuzz/rings), seed printed
#   make test-fuzz-rings              a bounded pass for make test: every committed
#                                     seed, then FUZZ_RINGS_TEST_RUNS mutations
#   make fuzz-rings-corpus            write tests/fuzz/corpus/rings again from the driver
#
# The fuzzer is libFuzzer with ASan and UBSan (clang); the library's sources
# are compiled into it with the same flags, so the harness reaches the rings
# through host/src/internal.h. A crash file reproduces alone:
#   build/tests/fuzz/fuzz_rings CRASHFILE

FUZZ_CC        ?= clang-14
FUZZ_TIME      ?= 300
FUZZ_RINGS_BIN := $(BUILD)/tests/fuzz/fuzz_rings
FUZZ_RINGS_CORPUS := tests/fuzz/corpus/rings
FUZZ_RINGS_WORK   := $(BUILD)/fuzz/rings
FUZZ_RINGS_TEST_RUNS ?= 1500
FUZZ_RINGS_CFLAGS := $(CSTD) $(WARN) -O1 -g -pthread -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -Ihost/include -Ihost/src -Ihost/src/gen -Isim $(FTDI_CFLAGS) \
    -DQPNIC_DEFAULT_SIM='"$(abspath $(SIM_BIN))"'

$(FUZZ_RINGS_BIN): tests/fuzz/fuzz_rings.c $(HOST_SRCS) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_RINGS_CFLAGS) -o $@ tests/fuzz/fuzz_rings.c $(HOST_SRCS) $(FTDI_LIBS)

# The simulator's limits (a settle of the NIC is bounded inside the harness
# in simulated cycles); -timeout catches a harness that stops altogether.
FUZZ_RINGS_OPTS := -timeout=120 -rss_limit_mb=4096 -print_final_stats=1

.PHONY: fuzz-rings test-fuzz-rings fuzz-rings-corpus
fuzz-rings: $(FUZZ_RINGS_BIN) $(SIM_BIN) $(FW_HEX)
	@mkdir -p $(FUZZ_RINGS_WORK)/corpus $(FUZZ_RINGS_WORK)/crashes
	cp -n $(FUZZ_RINGS_CORPUS)/* $(FUZZ_RINGS_WORK)/corpus/
	$(FUZZ_RINGS_BIN) $(FUZZ_RINGS_OPTS) -max_total_time=$(FUZZ_TIME) \
	    -artifact_prefix=$(FUZZ_RINGS_WORK)/crashes/ $(FUZZ_RINGS_WORK)/corpus

# Every committed seed once, then mutations of them, into a scratch corpus
# (the committed one is never written); at most about a minute of wall time.
test-fuzz-rings: $(FUZZ_RINGS_BIN) $(SIM_BIN) $(FW_HEX)
	@rm -rf $(FUZZ_RINGS_WORK)/test && mkdir -p $(FUZZ_RINGS_WORK)/test/corpus
	$(FUZZ_RINGS_BIN) $(FUZZ_RINGS_OPTS) -seed=1 -runs=$(FUZZ_RINGS_TEST_RUNS) -max_total_time=50 \
	    -artifact_prefix=$(FUZZ_RINGS_WORK)/test/ $(FUZZ_RINGS_WORK)/test/corpus $(FUZZ_RINGS_CORPUS) \
	    || { echo "FAIL fuzz_rings"; exit 1; }
	@echo "PASS fuzz_rings"

fuzz-rings-corpus: $(FUZZ_RINGS_BIN) $(SIM_BIN) $(FW_HEX)
	rm -f $(FUZZ_RINGS_CORPUS)/*
	$(FUZZ_RINGS_BIN) --write-corpus $(FUZZ_RINGS_CORPUS)
