// tb_qpnic_core: smoke test of rtl/qpnic_core.v with the real firmware image.
//
// Checks the control plane end to end inside the core: PicoRV32 boots the
// image from RAM, writes FW_READY (host STATUS bit 0), reaches its EVT_POP
// loop so that the core reports idle; a host ARM doorbell on an enabled but
// empty CQ travels csr -> event FIFO -> firmware and back to idle without a
// notification (nothing in the CQ to satisfy it, N3); no DMA is issued while
// no QP is in use.
// Not for: CQE traffic through the datapath (the e2e tests and the simulator
// run that). The image comes from QPNIC_FW_HEX, else
// build/share/qpnic/qpnic-fw.hex (make build/share/qpnic/qpnic-fw.hex).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "Vqpnic_core.h"
#include "verilated.h"
#include "tb_util.h"
#include "qpnic_hw.h"

namespace {

struct Tb {
    std::unique_ptr<Vqpnic_core> m{new Vqpnic_core};
    unsigned ntfs = 0, dma_reqs = 0;
    uint64_t cycles = 0;

    void tick() {
        m->clk = 0;
        m->eval();
        if (m->ntf_valid) ntfs++;
        if (m->dmar_req_valid || m->dmaw_req_valid) dma_reqs++;
        m->clk = 1;
        m->eval();
        cycles++;
    }

    void write(uint32_t addr, uint32_t data) {
        m->mmio_valid = 1;
        m->mmio_we = 1;
        m->mmio_addr = addr;
        m->mmio_wdata = data;
        for (int n = 0;; n++) {
            CHECK(n < 1000, "write 0x%04x not accepted", addr);
            m->clk = 0;
            m->eval();
            bool acc = m->mmio_ready;
            tick();
            if (acc) break;
        }
        m->mmio_valid = 0;
        m->mmio_we = 0;
    }

    uint32_t read(uint32_t addr) {
        m->mmio_valid = 1;
        m->mmio_we = 0;
        m->mmio_addr = addr;
        for (int n = 0;; n++) {
            CHECK(n < 1000, "read 0x%04x not accepted", addr);
            m->clk = 0;
            m->eval();
            bool acc = m->mmio_ready;
            tick();
            if (acc) break;
        }
        m->mmio_valid = 0;
        for (int n = 0; n < 8; n++) {
            m->clk = 0;
            m->eval();
            if (m->mmio_rvalid) {
                uint32_t d = m->mmio_rdata;
                tick();
                return d;
            }
            tick();
        }
        CHECK(false, "read 0x%04x: no reply", addr);
        return 0;
    }

    // Run until the core reports idle; returns the cycles it took.
    uint64_t run_to_idle(uint64_t max) {
        uint64_t start = cycles;
        for (;;) {
            m->clk = 0;
            m->eval();
            if (m->idle) return cycles - start;
            CHECK(cycles - start < max, "core not idle after %llu cycles", (unsigned long long)max);
            tick();
        }
    }
};

}  // namespace

int main(int argc, char **argv) {
    const char *env = std::getenv("QPNIC_FW_HEX");
    std::string hex = env ? env : "build/share/qpnic/qpnic-fw.hex";
    if (FILE *f = std::fopen(hex.c_str(), "r")) {
        std::fclose(f);
    } else {
        std::fprintf(stderr, "FAIL tb_qpnic_core: no firmware image at %s (make %s, or set QPNIC_FW_HEX)\n",
                     hex.c_str(), hex.c_str());
        return 1;
    }
    std::string plusarg = "+fw=" + hex;
    const char *args[] = {argv[0], plusarg.c_str()};
    Verilated::commandArgs(2, args);
    (void)argc;

    Tb t;
    auto *m = t.m.get();
    m->rst = 1;
    m->mmio_valid = 0;
    m->dmar_req_ready = 0;
    m->dmar_rsp_valid = 0;
    m->dmaw_req_ready = 0;
    m->dmaw_dat_ready = 0;
    m->ntf_ready = 1;
    for (int i = 0; i < 5; i++) t.tick();
    m->rst = 0;
    m->clk = 0;
    m->eval();
    CHECK(!m->idle, "idle right after reset, before the firmware polled");

    uint64_t boot = t.run_to_idle(200000);
    uint32_t st = t.read(QPNIC_REG_STATUS);
    CHECK(QPNIC_FIELD_GET(&st, QPNIC_STATUS_FW_READY), "STATUS 0x%x: firmware not ready after boot", st);
    CHECK(QPNIC_FIELD_GET(&st, QPNIC_STATUS_IDLE), "STATUS 0x%x: idle bit clear once booted", st);
    CHECK(t.read(QPNIC_REG_ID) == QPNIC_ID_VALUE, "ID");
    std::printf("firmware booted to idle in %llu cycles\n", (unsigned long long)boot);
    PASS("core_firmware_boots_ready_and_idle");

    t.write(QPNIC_CQREG(0, BASE_LO), 0x10000);
    t.write(QPNIC_CQREG(0, CFG), QPNIC_FIELD(QPNIC_CQ_CFG_ENABLE, 1) | QPNIC_FIELD(QPNIC_CQ_CFG_LOG_DEPTH, 4));
    t.run_to_idle(1000);
    t.write(QPNIC_CQREG(0, ARM), QPNIC_FIELD(QPNIC_CQ_ARM_TRIGGER, QPNIC_CQ_TRIGGER_ANY));
    m->clk = 0;
    m->eval();
    CHECK(!m->idle, "idle with an ARM event just queued");
    uint64_t arm = t.run_to_idle(20000);
    std::printf("ARM handled in %llu cycles\n", (unsigned long long)arm);
    CHECK(t.ntfs == 0, "a notification for an arm on an empty CQ (N3 needs a completion)");
    CHECK(t.dma_reqs == 0, "DMA requests with no QP in use");
    st = t.read(QPNIC_REG_STATUS);
    CHECK(QPNIC_FIELD_GET(&st, QPNIC_STATUS_IDLE), "STATUS 0x%x: idle bit clear after the ARM", st);
    PASS("core_arm_reaches_firmware_and_returns_to_idle");
    m->final();
    return 0;
}
