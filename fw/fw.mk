# fw/fw.mk: builds the soft core's firmware image and runs its tests.
# Included by the top Makefile (which defines BUILD, FW_HEX, CC, WARN, CSTD,
# PYTHON, PICORV32_V). Not for: the RTL that runs the image (rtl/qpnic_soc.v).
#
#   $(FW_HEX)       the $readmemh image: FW_WORDS lines of one 32-bit
#                   little-endian word each; the build fails when it does not
#                   fit, or when the code holds a mul/div or compressed
#                   instruction PicoRV32 (rv32i) would trap on
#   make test-fw    the policy's and the transport's unit tests (fw/transport.c,
#                   the firmware partition's), on the host, under ASan/UBSan
#                   (FW_TEST_SEED=N repeats a randomized run; default: time)
#   make test-fw-core  the image on PicoRV32 under Icarus, with a behavioural
#                   model of the firmware registers: ARM, CQE -> NOTIFY

# The RAM size is the layout's FW_RAM_WORDS (spec/layout.toml), read from the
# generated firmware header: the linker gets it as __ram_bytes (fw/link.ld),
# bin2hex.py pads the image to it, and the RTL's FW_WORDS defaults to it.
FW_WORDS   := $(shell sed -n 's/^\#define QPNIC_FW_RAM_WORDS \([0-9][0-9]*\)u.*/\1/p' fw/gen/qpnic_fw_hw.h)
ifeq ($(FW_WORDS),)
$(error fw.mk: no QPNIC_FW_RAM_WORDS in fw/gen/qpnic_fw_hw.h (run tools/genlayout.py))
endif
FW_RAM_BYTES := $(shell echo $$(( $(FW_WORDS) * 4 )))
FW_PREFIX  := riscv64-unknown-elf-
FW_CC      := $(FW_PREFIX)gcc
FW_OBJCOPY := $(FW_PREFIX)objcopy
FW_OBJDUMP := $(FW_PREFIX)objdump
FW_ARCH    := -march=rv32i -mabi=ilp32
# -O2 -flto, not -Os: the CQE event -> NOTIFY path is the notification
# latency (ndk_counters.ntf_latency_*). -O2 cut it from 310 to 193 cycles,
# -flto (which inlines the policy, fw/arm_policy.c, into the event loop) by
# another 13; the image is 1152 bytes (docs/performance-analysis.md).
# -fno-tree-loop-distribute-patterns: GCC would otherwise turn zeroing loops
# into memset calls, and there is no libc here.
FW_CFLAGS  := $(FW_ARCH) -O2 -flto -ffreestanding -fno-tree-loop-distribute-patterns \
              -nostdlib -nostartfiles -Wall -Wextra -Werror -Ifw -Ifw/gen
FW_SRCS    := fw/start.S fw/main.c fw/arm_policy.c
FW_DEPS    := $(wildcard fw/*.c fw/*.h) fw/start.S fw/gen/qpnic_fw_hw.h fw/link.ld fw/bin2hex.py fw/fw.mk
FW_ELF     := $(BUILD)/fw/qpnic-fw.elf
FW_BIN     := $(BUILD)/fw/qpnic-fw.bin
FW_LST     := $(BUILD)/fw/qpnic-fw.lst

$(FW_ELF): $(FW_DEPS)
	@mkdir -p $(dir $@)
	$(FW_CC) $(FW_CFLAGS) -T fw/link.ld -Wl,--defsym=__ram_bytes=$(FW_RAM_BYTES) \
	    -Wl,--gc-sections,--no-warn-rwx-segments -o $@ $(FW_SRCS) -lgcc

# The firmware partition's image (docs/partitions.md): the same event loop
# with the transport (fw/transport.c on the port of fw/tp_port.c), in the
# larger RAM of the layout's FW_TP_RAM_WORDS.
FW_TP_WORDS := $(shell sed -n 's/^\#define QPNIC_FW_TP_RAM_WORDS \([0-9][0-9]*\)u.*/\1/p' fw/gen/qpnic_fw_hw.h)
FW_TP_RAM_BYTES := $(shell echo $$(( $(FW_TP_WORDS) * 4 )))
FW_TP_SRCS := $(FW_SRCS) fw/transport.c fw/tp_port.c
FW_TP_ELF  := $(BUILD)/fw/qpnic-fw-tp.elf
FW_TP_BIN  := $(BUILD)/fw/qpnic-fw-tp.bin
FW_TP_LST  := $(BUILD)/fw/qpnic-fw-tp.lst

$(FW_TP_ELF): $(FW_DEPS)
	@mkdir -p $(dir $@)
	$(FW_CC) $(FW_CFLAGS) -DQPNIC_FW_TRANSPORT -T fw/link.ld -Wl,--defsym=__ram_bytes=$(FW_TP_RAM_BYTES) \
	    -Wl,--gc-sections,--no-warn-rwx-segments -o $@ $(FW_TP_SRCS) -lgcc

# The listing is checked: no M-extension instruction, and every instruction
# 4 bytes long (a compressed one shows as 4 hex digits in objdump's column).
$(BUILD)/fw/%.lst: $(BUILD)/fw/%.elf
	$(FW_OBJDUMP) -d $< > $@
	@if grep -E '^ +[0-9a-f]+:\s+[0-9a-f]{8}\s+(mul|div|rem)' $@; then \
	    echo "fw: the image holds M-extension instructions (above); PicoRV32 here is rv32i"; rm -f $@; exit 1; fi
	@if grep -E '^ +[0-9a-f]+:\s+[0-9a-f]{4}\s' $@; then \
	    echo "fw: the image holds compressed instructions (above)"; rm -f $@; exit 1; fi

$(FW_BIN): $(FW_ELF) $(FW_LST)
	$(FW_OBJCOPY) -O binary $< $@
	@echo "fw: image $$(stat -c %s $@) bytes of $(FW_RAM_BYTES) (RAM $(FW_WORDS) words)"

$(FW_HEX): $(FW_BIN) fw/bin2hex.py
	@mkdir -p $(dir $@)
	$(PYTHON) fw/bin2hex.py $< $(FW_WORDS) $@

$(FW_TP_BIN): $(FW_TP_ELF) $(FW_TP_LST)
	$(FW_OBJCOPY) -O binary $< $@
	@echo "fw: transport image $$(stat -c %s $@) bytes of $(FW_TP_RAM_BYTES) (RAM $(FW_TP_WORDS) words)"

# FW_TP_FLASH: the same image as the flash holds it on the iCEBreaker, whose
# soft core's RAM (SPRAM) has no initial contents: a header (FW_IMAGE_MAGIC,
# VERSION_VALUE), all FW_TP_WORDS words, raw, and a CRC, which
# qpnic_spi_boot checks; `make prog BOARD=icebreaker` writes it at
# FW_FLASH_OFFSET, and the iCEBreaker's board-level simulator boots it.
# (Two targets, one recipe each: bin2hex.py writes the kind its output
# names, the header's numbers from the layout's.)
FW_TP_FLASH := $(BUILD)/share/qpnic/qpnic-fw-tp.flash.bin
$(FW_TP_HEX) $(FW_TP_FLASH): $(FW_TP_BIN) fw/bin2hex.py fw/gen/qpnic_fw_hw.h
	@mkdir -p $(dir $@)
	$(PYTHON) fw/bin2hex.py $< $(FW_TP_WORDS) $@

# Host unit tests of the policy.
FW_TEST_BIN := $(BUILD)/tests/fw/test_arm_policy

$(FW_TEST_BIN): tests/fw/test_arm_policy.c tests/fw/fw_check.h fw/arm_policy.c fw/arm_policy.h fw/gen/qpnic_fw_hw.h
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -Ifw -Ifw/gen -Itests/fw -o $@ tests/fw/test_arm_policy.c fw/arm_policy.c

# Host unit tests of the firmware partition's transport, against a model of
# its port (docs/partitions.md).
FW_TP_TEST_BIN := $(BUILD)/tests/fw/test_transport

$(FW_TP_TEST_BIN): tests/fw/test_transport.c tests/fw/fw_check.h fw/transport.c fw/transport.h fw/gen/qpnic_fw_hw.h
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CSTD) -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -Ifw -Ifw/gen -Itests/fw -o $@ tests/fw/test_transport.c fw/transport.c

# The firmware on PicoRV32 (Icarus Verilog).
FW_CORE_TB := $(BUILD)/tests/fw/tb_fw_on_core.vvp

$(FW_CORE_TB): tests/fw/tb_fw_on_core.v $(PICORV32_V) fw/gen/qpnic_fw_hw.h rtl/gen/qpnic_layout.vh
	@mkdir -p $(dir $@)
	iverilog -g2005 -Wall -Irtl/gen -o $@ -s tb_fw_on_core tests/fw/tb_fw_on_core.v $(PICORV32_V)

.PHONY: fw test-fw test-fw-core
fw: $(FW_HEX) $(FW_TP_HEX)

test-fw: $(FW_TEST_BIN) $(FW_TP_TEST_BIN)
	$(FW_TEST_BIN) $(FW_TEST_SEED)
	$(FW_TP_TEST_BIN) $(FW_TEST_SEED)

# vvp exits 0 whatever happens: the closing line decides.
test-fw-core: $(FW_CORE_TB) $(FW_HEX)
	vvp -n $(FW_CORE_TB) +fw_hex=$(FW_HEX) | tee $(FW_CORE_TB).log
	@grep -Eq '^[0-9]+ passed, 0 failed$$' $(FW_CORE_TB).log || { echo "test-fw-core: FAILED"; exit 1; }
