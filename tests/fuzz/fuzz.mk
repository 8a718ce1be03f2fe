# tests/fuzz/fuzz.mk: the fuzzers of issue 11 (docs/reliability.md,
# "Fuzzing"), built with clang's libFuzzer and ASan/UBSan (Debian's
# clang-14 and libclang-rt-14-dev, pinned in tools/debian-packages.txt).
#
#   make fuzz [FUZZ_TIME=S]   each fuzzer for S seconds (default 300) on its
#                             working corpus under build/fuzz/<name>, kept
#                             between runs and seeded from the committed seeds
#   make test-fuzz            the short bounded pass that make test runs
#
# A crash, hang (over FUZZ_HANG s for one input) or failed check leaves the
# input as build/fuzz/<name>/crash-* (or timeout-*); rerun it with
# `build/tests/fuzz/fuzz_<name> FILE`. libFuzzer prints its seed
# ("INFO: Seed: N"); -seed=N repeats a run.

FUZZ_CC    ?= clang-14
FUZZ_TIME  ?= 300
FUZZ_HANG  ?= 20
FUZZ_FLAGS := $(CSTD) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -fno-omit-frame-pointer -pthread -Ihost/include -Ihost/src -Isim -Itests/host $(FTDI_CFLAGS) \
    -DQPNIC_DEFAULT_SIM='"$(abspath $(SIM_BIN))"'

# ---- 1. the API, over a fake NIC (tests/fuzz/fuzz_api.c)
FUZZ_API_BIN := $(BUILD)/tests/fuzz/fuzz_api
# the committed seed corpus, written by tests/fuzz/api_seeds.py (make
# fuzz-api-corpus writes it again after a change of the input format)
FUZZ_API_SEEDS := tests/fuzz/corpus/api
# make test's pass: every seed, then new inputs for FUZZ_TEST_TIME seconds
# (about 3,000 here); the log keeps libFuzzer's seed, its counts and any
# failure, the whole output is in $(BUILD)/fuzz/test-api.log
FUZZ_TEST_TIME ?= 20

$(FUZZ_API_BIN): tests/fuzz/fuzz_api.c $(HOST_TEST_SUPPORT) $(HOST_SRCS) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< tests/host/fake_nic.c $(HOST_SRCS) $(FTDI_LIBS)

.PHONY: fuzz-api test-fuzz-api fuzz-api-corpus
fuzz-api-corpus:
	rm -f $(FUZZ_API_SEEDS)/*
	python3 tests/fuzz/api_seeds.py $(FUZZ_API_SEEDS)

fuzz-api: $(FUZZ_API_BIN)
	@mkdir -p $(BUILD)/fuzz/api
	cd $(BUILD)/fuzz/api && $(abspath $(FUZZ_API_BIN)) -max_total_time=$(FUZZ_TIME) -timeout=$(FUZZ_HANG) \
	    -max_len=1024 -print_final_stats=1 . $(abspath $(FUZZ_API_SEEDS))

test-fuzz-api: $(FUZZ_API_BIN)
	@rm -rf $(BUILD)/fuzz/test-api && mkdir -p $(BUILD)/fuzz/test-api
	@set -o pipefail; cd $(BUILD)/fuzz/test-api && \
	    $(abspath $(FUZZ_API_BIN)) -max_total_time=$(FUZZ_TEST_TIME) -timeout=$(FUZZ_HANG) \
	    -max_len=1024 -print_final_stats=1 . $(abspath $(FUZZ_API_SEEDS)) 2>&1 | tee ../test-api.log | \
	    grep -E "INFO: Seed|^#[0-9]+[[:space:]]+(INITED|DONE)|number_of_executed|ERROR|SUMMARY|fuzz_api:|unit written" \
	    || { echo "FAIL fuzz_api"; exit 1; }
	@echo "PASS fuzz_api"

# ---- 2. the rings, against the simulator (tests/fuzz/fuzz_rings.c)
include tests/fuzz/rings.mk

# ---- 3. the board link and the RoCEv2 receive path come with issues 9
# and 10 (neither has landed)

.PHONY: fuzz test-fuzz
fuzz: fuzz-api fuzz-rings
test-fuzz: test-fuzz-api test-fuzz-rings
