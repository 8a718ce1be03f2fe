# boards/boards.mk: the boards (docs/boards.md).
#
#   make bitstream BOARD=ulx3s          Radiona ULX3S (LFE5U-85F), the full
#                                       build: build/boards/ulx3s/ulx3s.bit
#   make bitstream BOARD=colorlight-i5  Colorlight i5 (LFE5U-25F), the 25F
#                                       sizes: build/boards/colorlight-i5/
#                                       colorlight-i5.bit
#   make bitstream BOARD=icebreaker     1BitSquared iCEBreaker (iCE40UP5K), the
#                                       firmware partition (docs/partitions.md;
#                                       Debian's yosys, nextpnr-ice40, icepack):
#                                       build/boards/icebreaker/icebreaker.bin
#   make prog BOARD=NAME                loads that bitstream onto the board
#                                       with openFPGALoader: into its flash
#                                       (PROG_MEM=flash, the default) or
#                                       only into the FPGA (PROG_MEM=sram);
#                                       the iCEBreaker's firmware image goes
#                                       into its flash either way, at the
#                                       layout's FW_FLASH_OFFSET
#
# make bitstream is make synth's flow (synth/run_synth.py) on the board's
# top: Yosys synth_ecp5, nextpnr-ecp5 with the board's LPF (its clock
# constraint is the PLL's 48 MHz), ecppack. It prints LUTs, FFs, RAM blocks
# and Fmax and exits nonzero when the design does not fit or misses 48 MHz.
# Each board is one table of boards/boards.toml; SYNTH_CHECK and SYNTH_SEED
# work as for make synth. A run takes most of an hour here (docs/boards.md,
# "Figures"), so make test never runs one. make prog installs openFPGALoader (Debian's,
# pinned in tools/debian-packages.txt) on its first use (boards/prog.sh).
#
# BOARD_COMMON_SRCS is the logic both tops share (boards/common/); the
# Makefile lints it with the tops (BOARD_TOPS, board:module), tests/tests.mk
# tests it (tests/rtl).

BOARD_NAMES       := ulx3s colorlight-i5 icebreaker
PROG_MEM          ?= flash
BOARD_COMMON_SRCS := $(sort $(wildcard boards/common/*.v))
# The same but qpnic_ecp5_*.v, the PLL (EHXPLLL, which only Yosys and
# nextpnr know) and what uses it, and qpnic_board_nic.v (the NIC itself,
# linted with each top): what Verilator can lint alone and simulate.
BOARD_LOGIC_SRCS  := $(filter-out %/qpnic_ecp5_pll.v %/qpnic_ecp5_board.v %/qpnic_board_nic.v,$(BOARD_COMMON_SRCS))
BOARD_TOPS        := ulx3s:qpnic_ulx3s colorlight-i5:qpnic_colorlight_i5 icebreaker:qpnic_icebreaker

# Yosys's black-box declarations of the ECP5 primitives (EHXPLLL), from
# Debian's yosys (tools/debian-packages.txt), for linting the tops.
ECP5_CELLS_BB := /usr/share/yosys/ecp5/cells_bb.v

.PHONY: bitstream prog board-known
board-known:
	@case " $(BOARD_NAMES) " in *" $(BOARD) "*) ;; \
	    *) echo "say which board: make $(MAKECMDGOALS) BOARD=NAME, NAME one of: $(BOARD_NAMES)"; exit 2 ;; esac

bitstream: board-known $(FW_HEX) $(FW_TP_HEX) $(BUILD)/venv/requirements-synth.installed
	$(PYTHON) synth/run_synth.py $(BOARD) --targets boards/boards.toml --repo $(CURDIR) \
	    --out $(BUILD)/boards/$(BOARD) --fw-hex $(FW_HEX) --fw-tp-hex $(FW_TP_HEX) --label bitstream \
	    --venv-bin $(dir $(PYTHON)) --check $(SYNTH_CHECK) --seed $(SYNTH_SEED) \
	    $(PICORV32_V) $(RTL_SRCS) $(BOARD_COMMON_SRCS) $(wildcard boards/$(BOARD)/*.v)

# The UP5K's floor (docs/partitions.md): the iCEBreaker's bitstream flow on
# its top with synth/floor/qpnic_core.v, the soft core behind a mailbox, in
# place of rtl/qpnic_core.v: what the soft core, the link, the loader and the
# LEDs take before any of the NIC's own hardware. SOFT_CORE=serv measures it
# with SERV (synth/floor/qpnic_soc_serv.v; pythondata-cpu-serv, pinned in
# tools/requirements-synth.txt) in place of PicoRV32. Figures only: the
# fixtures run no firmware. Output in BUILD/boards/floor-SOFT_CORE/.
SOFT_CORE ?= picorv32
FLOOR_SRCS = synth/floor/qpnic_core.v $(filter-out rtl/qpnic_core.v rtl/qpnic_soc.v,$(RTL_SRCS)) \
             $(BOARD_COMMON_SRCS) $(wildcard boards/icebreaker/*.v)
.PHONY: floor
floor: $(FW_HEX) $(FW_TP_HEX) $(BUILD)/venv/requirements-synth.installed
	@case "$(SOFT_CORE)" in picorv32|serv) ;; \
	    *) echo "floor: SOFT_CORE is picorv32 or serv, not $(SOFT_CORE)"; exit 2 ;; esac
	set -e; if [ "$(SOFT_CORE)" = serv ]; then \
	    serv=$$($(PYTHON) -c 'import pythondata_cpu_serv as p; print(p.data_location)')/rtl; \
	    cpu="$$(ls $$serv/serv_*.v | grep -v serv_synth_wrapper) synth/floor/qpnic_soc_serv.v"; \
	    verilator --lint-only -Wall $(RTL_INC) rtl/lint.vlt synth/floor/lint.vlt $$cpu \
	        synth/floor/qpnic_core.v --top-module qpnic_core; \
	else cpu="$(PICORV32_V) rtl/qpnic_soc.v"; fi; \
	$(PYTHON) synth/run_synth.py icebreaker-floor --targets boards/boards.toml --repo $(CURDIR) \
	    --out $(BUILD)/boards/floor-$(SOFT_CORE) --fw-hex $(FW_HEX) --fw-tp-hex $(FW_TP_HEX) --label floor \
	    --venv-bin $(dir $(PYTHON)) --check $(SYNTH_CHECK) --seed $(SYNTH_SEED) \
	    $$cpu $(FLOOR_SRCS)

# (an ECP5 bitstream is BOARD.bit, icepack's iCE40 one BOARD.bin; the
# iCEBreaker's firmware goes into its flash beside it: its soft core's RAM,
# SPRAM, has no initial contents)
prog: board-known $(if $(filter icebreaker,$(BOARD)),$(FW_TP_FLASH))
	bash boards/prog.sh $(BOARD) $(BUILD)/boards/$(BOARD)/$(BOARD).$(if $(filter icebreaker,$(BOARD)),bin,bit) $(PROG_MEM) \
	    $(if $(filter icebreaker,$(BOARD)),$(FW_TP_FLASH))
