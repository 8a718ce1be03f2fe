// spi_flash.h: a model of a board's SPI configuration flash, as much of it as
// qpnic_spi_boot uses, for the board-level simulator (sim/board_sim.cpp,
// the iCEBreaker) and the loader's testbench (tests/rtl/tb_qpnic_spi_boot.cpp).
//
// SPI mode 0: it takes MOSI as SCK rises and sets MISO after SCK falls; with
// chip select high MISO floats (read as 1, a pull-up). It knows two
// commands: 0xAB "release from power-down" and 0x03 "read" (a 24-bit
// address, then bytes from it on, MSB first, for as long as SCK runs). Like
// a flash the iCE40 has put to sleep after configuring itself, it starts in
// deep power-down: until a 0xAB's chip select has risen and tRES1 (3 us)
// has passed, it ignores every command and MISO stays high, so a loader
// that skips the wake-up, or does not wait, reads 0xFF. What it ignored is
// counted, for a test to fail on.
#ifndef QPNIC_SIM_SPI_FLASH_H
#define QPNIC_SIM_SPI_FLASH_H
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

class SpiFlash {
public:
    static constexpr uint32_t BYTES = 16u << 20; // 128 Mbit, the iCEBreaker's
    static constexpr uint8_t CMD_WAKE = 0xAB, CMD_READ = 0x03;

    // clk_hz: the clock the caller counts cycles in (for tRES1)
    explicit SpiFlash(uint64_t clk_hz) : mem_(BYTES, 0xFF), wake_cycles_(clk_hz * 3 / 1000000 + 1) {}

    // Writes a file's bytes at offset, as `make prog` writes the firmware's
    // flash image (fw/bin2hex.py). False, with *err set, if the file cannot
    // be read, is empty or does not fit.
    bool load_bin(const std::string &path, uint32_t offset, std::string *err) {
        FILE *f = fopen(path.c_str(), "rb");
        if (!f) {
            *err = "cannot read " + path;
            return false;
        }
        uint32_t at = offset;
        int c;
        while ((c = fgetc(f)) != EOF && at < BYTES)
            mem_[at++] = (uint8_t)c;
        bool fits = c == EOF;
        fclose(f);
        image_bytes_ = at - offset;
        if (!fits || image_bytes_ == 0) {
            *err = (fits ? "empty image " : "oversized image ") + path;
            return false;
        }
        return true;
    }

    uint8_t byte_at(uint32_t a) const { return mem_[a % BYTES]; }
    void poke(uint32_t a, uint8_t v) { mem_[a % BYTES] = v; }

    // One clock cycle: the pins as they are after the cycle's rising edge.
    // Returns the MISO level to drive until the next one.
    int clock(uint64_t cycle, int cs_n, int sck, int mosi) {
        if (cs_n) {
            if (!prev_cs_n_)
                end_command(cycle);
            mode_ = IDLE;
        } else if (prev_cs_n_) {
            // chip select falls: a command starts
            mode_ = CMD;
            bits_ = 0;
            shift_ = 0;
            if (asleep_ || cycle < ready_at_)
                early_ = true;   // judged once the command byte is in
        } else if (sck && !prev_sck_) {
            take_bit(mosi & 1);
        } else if (!sck && prev_sck_ && mode_ == DATA) {
            miso_ = (mem_[addr_ % BYTES] >> (7 - out_bit_)) & 1;
            if (++out_bit_ == 8) {
                out_bit_ = 0;
                addr_++;
                bytes_read_++;
            }
        }
        prev_cs_n_ = cs_n;
        prev_sck_ = sck;
        return cs_n ? 1 : miso_;
    }

    uint64_t bytes_read() const { return bytes_read_; }     // data bytes whose last bit is out
    uint64_t reads() const { return reads_; }               // 0x03 commands served
    uint64_t ignored() const { return ignored_; }           // commands ignored: asleep, waking, unknown
    uint64_t wakes() const { return wakes_; }               // 0xAB commands taken
    uint32_t last_read_addr() const { return read_addr_; }  // the last 0x03's address
    uint32_t image_bytes() const { return image_bytes_; }

private:
    enum Mode { IDLE, CMD, ADDR, DATA, SKIP };

    void take_bit(int b) {
        shift_ = (shift_ << 1) | (uint32_t)b;
        bits_++;
        if (mode_ == CMD && bits_ == 8) {
            cmd_ = (uint8_t)shift_;
            if (cmd_ == CMD_WAKE) {
                mode_ = SKIP;                  // takes effect as chip select rises
            } else if (early_ || cmd_ != CMD_READ) {
                ignored_++;
                mode_ = SKIP;
            } else {
                mode_ = ADDR;
                bits_ = 0;
                shift_ = 0;
            }
        } else if (mode_ == ADDR && bits_ == 24) {
            addr_ = read_addr_ = shift_ & 0xFFFFFF;
            out_bit_ = 0;
            reads_++;
            mode_ = DATA;
        }
    }

    void end_command(uint64_t cycle) {
        if ((mode_ == SKIP || mode_ == CMD) && bits_ == 8 && cmd_ == CMD_WAKE) {
            if (asleep_)
                ready_at_ = cycle + wake_cycles_;
            asleep_ = false;
            wakes_++;
        }
        early_ = false;
        miso_ = 1;
    }

    std::vector<uint8_t> mem_;
    uint64_t wake_cycles_;
    bool asleep_ = true;
    uint64_t ready_at_ = 0;
    bool early_ = false;
    Mode mode_ = IDLE;
    int prev_cs_n_ = 1, prev_sck_ = 0;
    uint32_t shift_ = 0;
    int bits_ = 0;
    uint8_t cmd_ = 0;
    uint32_t addr_ = 0, read_addr_ = 0;
    int out_bit_ = 0;
    int miso_ = 1;
    uint64_t bytes_read_ = 0, reads_ = 0, ignored_ = 0, wakes_ = 0;
    uint32_t image_bytes_ = 0;
};

#endif
