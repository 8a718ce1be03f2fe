# host/host.mk: libqpnic (static and shared), its unit tests, and install.
#
#   make $(LIB_A) $(LIB_SO)     the library, with the tree's simulator path compiled in
#   make test-host              unit tests of the driver (ASan + UBSan), tests/host/test_*.c
#   make install PREFIX=DIR     headers, libraries (built again with DIR's simulator path),
#                               pkg-config file, simulator, firmware; DESTDIR is honoured

HOST_SRCS := $(sort $(wildcard host/src/*.c))
HOST_HDRS := $(wildcard host/include/qpnic/*.h host/src/*.h host/src/gen/*.h) sim/shm_proto.h
# libftdi1 (Debian libftdi1-dev) carries the board link's "usb" URIs
# (host/src/link_pipe.c); whatever links libqpnic links it too: HOST_LIBS.
FTDI_CFLAGS := $(shell pkg-config --cflags libftdi1)
FTDI_LIBS := $(shell pkg-config --libs libftdi1)
HOST_LIBS = $(FTDI_LIBS) -pthread
HOST_CFLAGS = $(CSTD) $(WARN) $(OPT) -fPIC -pthread -fvisibility=hidden \
    -Ihost/include -Ihost/src -Isim $(FTDI_CFLAGS)

HOST_OBJ_DIR := $(BUILD)/obj/host
HOST_OBJS := $(patsubst host/src/%.c,$(HOST_OBJ_DIR)/%.o,$(HOST_SRCS))

$(HOST_OBJ_DIR)/%.o: host/src/%.c $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -DQPNIC_DEFAULT_SIM='"$(abspath $(SIM_BIN))"' -c $< -o $@

$(LIB_A): $(HOST_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(LIB_SO): $(HOST_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -pthread -Wl,-soname,libqpnic.so -o $@ $^ $(FTDI_LIBS)

# ---- install: the library again, with the installed simulator's path ----

HOST_INST_DIR := $(BUILD)/install-obj
HOST_INST_OBJS := $(patsubst host/src/%.c,$(HOST_INST_DIR)/%.o,$(HOST_SRCS))
HOST_INST_STAMP := $(HOST_INST_DIR)/prefix.txt

# Rewritten only when PREFIX changes, so the objects rebuild exactly then.
$(HOST_INST_STAMP): host-prefix-check
	@mkdir -p $(dir $@)
	@echo '$(PREFIX)' | cmp -s - $@ || echo '$(PREFIX)' > $@

$(HOST_INST_DIR)/%.o: host/src/%.c $(HOST_HDRS) $(HOST_INST_STAMP)
	$(CC) $(HOST_CFLAGS) -DQPNIC_DEFAULT_SIM='"$(PREFIX)/bin/qpnic-sim"' -c $< -o $@

$(HOST_INST_DIR)/libqpnic.a: $(HOST_INST_OBJS)
	rm -f $@
	ar rcs $@ $^

$(HOST_INST_DIR)/libqpnic.so: $(HOST_INST_OBJS)
	$(CC) -shared -pthread -Wl,-soname,libqpnic.so -o $@ $^ $(FTDI_LIBS)

$(HOST_INST_DIR)/qpnic.pc: $(HOST_INST_STAMP) host/host.mk
	@printf '%s\n' \
	    'prefix=$(PREFIX)' \
	    'exec_prefix=$${prefix}' \
	    'libdir=$${prefix}/lib' \
	    'includedir=$${prefix}/include' \
	    '' \
	    'Name: qpnic' \
	    'Description: host driver of the qpnic open RDMA NIC (NDKPI-style API)' \
	    'Version: 0.1.0' \
	    'Libs: -L$${libdir} -lqpnic' \
	    'Libs.private: -pthread $(FTDI_LIBS)' \
	    'Cflags: -I$${includedir}' > $@

HOST_DEST := $(DESTDIR)$(PREFIX)

install: $(HOST_INST_DIR)/libqpnic.a $(HOST_INST_DIR)/libqpnic.so $(HOST_INST_DIR)/qpnic.pc \
         $(SIM_BIN) $(SIM_FW_BIN) $(BOARD_SIM_BINS) $(FW_HEX) $(FW_TP_HEX) $(FW_TP_FLASH)
	install -d $(HOST_DEST)/include/qpnic $(HOST_DEST)/lib/pkgconfig $(HOST_DEST)/bin \
	    $(HOST_DEST)/share/qpnic
	install -m 644 host/include/qpnic/ndk.h $(HOST_DEST)/include/qpnic/ndk.h
	install -m 644 host/include/qpnic/ndk_sim.h $(HOST_DEST)/include/qpnic/ndk_sim.h
	install -m 644 $(HOST_INST_DIR)/libqpnic.a $(HOST_DEST)/lib/libqpnic.a
	install -m 755 $(HOST_INST_DIR)/libqpnic.so $(HOST_DEST)/lib/libqpnic.so
	install -m 644 $(HOST_INST_DIR)/qpnic.pc $(HOST_DEST)/lib/pkgconfig/qpnic.pc
	install -m 755 $(SIM_BIN) $(HOST_DEST)/bin/qpnic-sim
	install -m 755 $(SIM_FW_BIN) $(HOST_DEST)/bin/
	for b in $(BOARD_SIM_BINS); do install -m 755 $$b $(HOST_DEST)/bin/; done
	install -m 644 $(FW_HEX) $(HOST_DEST)/share/qpnic/qpnic-fw.hex
	install -m 644 $(FW_TP_HEX) $(FW_TP_FLASH) $(HOST_DEST)/share/qpnic/

# ---- unit tests: the sources built again with the sanitizers ----

HOST_TEST_SRCS := $(sort $(wildcard tests/host/test_*.c))
HOST_TEST_BINS := $(patsubst tests/host/%.c,$(BUILD)/tests/host/%,$(HOST_TEST_SRCS))
HOST_TEST_SUPPORT := $(wildcard tests/host/*.h) tests/host/fake_nic.c tests/host/link_nic.c
HOST_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

$(BUILD)/tests/host/test_%: tests/host/test_%.c $(HOST_TEST_SUPPORT) $(HOST_SRCS) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(HOST_SAN) -pthread -Ihost/include -Ihost/src -Isim -Itests/host \
	    $(FTDI_CFLAGS) -DQPNIC_DEFAULT_SIM='"$(abspath $(SIM_BIN))"' $< $(filter %.c,$(HOST_TEST_SUPPORT)) \
	    $(HOST_SRCS) -o $@ $(HOST_LIBS)

.PHONY: test-host host-prefix-check
# test_sim_smoke runs against the real simulator: build it first, so that
# make test never skips it.
test-host: $(HOST_TEST_BINS) $(SIM_BIN) $(FW_HEX)
	@set -e; for t in $(HOST_TEST_BINS); do echo "== $$t"; $$t; done
