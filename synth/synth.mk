# synth/synth.mk: qpnic_core through the real synthesis tools (docs/synthesis.md).
#
#   make synth TARGET=ecp5-85f-full  LFE5U-85F (ULX3S), the full build: must
#                                    fit and close at >= 50 MHz
#   make synth TARGET=ecp5-25f       LFE5U-25F (Colorlight i5): must use
#                                    <= 65% of its LUTs and close at >= 50 MHz
#   make synth TARGET=up5k           iCE40UP5K (iCEBreaker), lite build:
#                                    measured and reported, never fails on fit
#   make test-synth-report           the flow's report parsers on canned
#                                    logs (quick; part of make test)
#
#   SYNTH_CHECK=1   (default) a problem found by Yosys `check -assert` stops
#                   the run; SYNTH_CHECK=0 reports it and goes on
#   SYNTH_SEED=N    nextpnr's placement seed (default 1): the same netlist
#                   places and routes differently under another seed, which
#                   tells a long path from placement luck
#
# Each target's parameters and limits are one table in synth/targets.toml.
# A run writes everything under $(BUILD)/synth/TARGET/: logs, netlist,
# nextpnr report, bitstream, and figures.json (LUTs, FFs, RAM blocks, Fmax,
# per-module breakdown, times). The ECP5 tools (tools/requirements-synth.txt)
# go into $(BUILD)/venv on the first make synth, never on make test; the
# iCE40 tools are Debian's (tools/debian-packages.txt).

SYNTH_CHECK ?= 1
SYNTH_SEED  ?= 1
SYNTH_SRCS  := $(PICORV32_V) $(RTL_SRCS) synth/qpnic_synth_top.v

$(BUILD)/venv/requirements-synth.installed: tools/requirements-synth.txt $(BUILD)/setup.mk
	$(PYTHON) -m pip install -q --disable-pip-version-check -r tools/requirements-synth.txt
	cp tools/requirements-synth.txt $@

.PHONY: synth test-synth-report
synth: $(FW_HEX) $(FW_TP_HEX) $(BUILD)/venv/requirements-synth.installed
	@if [ -z "$(TARGET)" ]; then echo "synth: say which target: make synth TARGET=NAME, NAME one of:"; \
	    sed -n 's/^\[\([^].]*\)\]$$/  \1/p' synth/targets.toml; exit 2; fi
	$(PYTHON) synth/run_synth.py $(TARGET) --targets synth/targets.toml --repo $(CURDIR) \
	    --out $(BUILD)/synth/$(TARGET) --fw-hex $(FW_HEX) --fw-words $(FW_WORDS) \
	    --fw-tp-hex $(FW_TP_HEX) --fw-tp-words $(FW_TP_WORDS) \
	    --venv-bin $(dir $(PYTHON)) --check $(SYNTH_CHECK) --seed $(SYNTH_SEED) $(SYNTH_SRCS)

test-synth-report:
	$(PYTHON) tests/synth/test_synth_report.py
