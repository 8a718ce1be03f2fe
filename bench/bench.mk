# bench/bench.mk: make bench, the measured performance of qpnic (issue 3).
#
#   make bench       run the fixed sweep of qpnic-perf (a few minutes), draw
#                    docs/img/bench-*.png, write docs/performance.md
#   make test-bench  a quick smoke test of qpnic-perf (tests/bench/)
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
