// board_sim.cpp: main of the board-level co-simulations (qpnic-sim-ulx3s,
// started as `qpnic-sim --board ulx3s`): the board's whole top
// (boards/ulx3s/qpnic_ulx3s.v: PLL, reset synchronizer, LED logic, and
// qpnic_serial_nic's core, link and UART) at the board's clock, with its
// serial pins bridged to a pseudo-terminal at the line's real bit timing.
// The host library reaches it as it reaches a board: ndk_open_adapter
// ("tty:PATH") (docs/link.md, docs/boards.md).
//
// For: the command line, the pseudo-terminal, the two halves of the line
// (bytes from the host become levels on the serial input pin, one bit every
// CLK_HZ/BAUD cycles; levels on the serial output pin become bytes for the
// host, sampled in each bit's middle), seeded impairment of the line's
// bytes, the clock, and what the LEDs show. The board's pins are named in
// BOARD_PINS_H (sim/board_ulx3s.h). The PLL is sim/models/EHXPLLL.v: the
// oscillator pin is driven at the PLL's output clock (one clock: this is a
// cycle-based simulation), and the model checks that the PLL's settings
// make that clock of the board's oscillator and holds LOCK low a while.
// A board whose soft core loads its firmware from the configuration flash
// at boot (BOARD_BOOT_FLASH: the iCEBreaker) gets sim/spi_flash.h on its
// flash pins, holding the firmware's flash image (--fw, default
// BOARD_FW_NAME) at FW_FLASH_OFFSET, so the load and its check are
// simulated: an image the loader refuses is reported, and the NIC stays in
// reset as on the board. Elsewhere the image is the RAM's initial contents
// (+fw for qpnic_soc).
// Not for: the link protocol (the RTL and host/src are its two ends).
//
//   qpnic-sim-ulx3s --pty-link PATH [--fw HEX] [--wave FILE.fst]
//                   [--fault-ppm P --fault-seed N] [--line-log FILE]
//                   [--max-cycles N] [--quiet]
//
// Exit status 0 when stopped by a signal or --max-cycles; 1 on any error.
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <getopt.h>
#include <memory>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <vector>

#include BOARD_PINS_H
#include "qpnic_hw.h"
#include "sim_util.h"
#include "spi_flash.h"
#include "verilated.h"
#include "verilated_fst_c.h"

// the firmware image the board runs when --fw names none
#ifndef BOARD_FW_NAME
#define BOARD_FW_NAME SIM_FW_NAME
#endif

#ifndef BOARD_NAME
#error "BOARD_NAME (the board this simulator is built for) must be defined"
#endif
#ifndef BOARD_CLK_HZ
#error "BOARD_CLK_HZ (the clock the board's PLL makes, which qpnic_serial_nic runs at) must be defined"
#endif
#ifndef BOARD_OSC_HZ
#error "BOARD_OSC_HZ (the board's oscillator, from which its PLL makes BOARD_CLK_HZ) must be defined"
#endif
#ifndef BOARD_PINS_H
#error "BOARD_PINS_H (the header naming the board top's pins, sim/board_<name>.h) must be defined"
#endif
#ifndef BOARD_BAUD
#error "BOARD_BAUD (the line rate) must be defined"
#endif

namespace {

#define STRING_OF(x) #x
#define STRING(x) STRING_OF(x)
const char *const PROG = "qpnic-sim-" STRING(BOARD_NAME);
constexpr uint64_t BIT_Q8 = ((uint64_t)BOARD_CLK_HZ * 256 + BOARD_BAUD / 2) / BOARD_BAUD; // a bit, cycles/256
constexpr uint64_t QUIET_CYCLES = 200000; // no byte either way this long: wait on the pty a little
constexpr int QUIET_POLL_MS = 1;

volatile sig_atomic_t g_stop = 0;
extern "C" void on_signal(int) { g_stop = 1; }

struct Options {
    const char *pty_link = nullptr;
    std::string fw_path;
    const char *wave_path = nullptr;
    unsigned fault_ppm = 0;
    unsigned fault_seed = 1;
    const char *line_log = nullptr;
    uint64_t max_cycles = 0;
    bool quiet = false;
};

void usage(FILE *to) {
    fprintf(to,
            "usage: %s --pty-link PATH [options]\n"
            "  --pty-link PATH   make PATH a symbolic link to the board's serial line (a pty)\n"
            "  --fw IMAGE        firmware image (default: $QPNIC_FW, else <bin>/../share/qpnic/%s);\n"
            "                    a board that boots it from its flash (the iCEBreaker) takes the\n"
            "                    flash image (.flash.bin) and finds it in the flash model\n"
            "  --wave FILE.fst   dump an FST waveform of the whole board\n"
            "  --fault-ppm P     impair P in a million of the line's bytes each way (0..100000):\n"
            "                    a bit flipped, the byte lost, or the rest of its frame lost\n"
            "                    (equally likely)\n"
            "  --fault-seed N    seed of the impairment (printed)\n"
            "  --line-log FILE   write every byte on the line to FILE, one a line:\n"
            "                    <cycle> H|N <hex> (H: host to board, N: board to host, as sent,\n"
            "                    before impairment); tools/link_log.py decodes the frames\n"
            "  --max-cycles N    stop after N cycles\n"
            "  --quiet           no informational messages\n",
            PROG, BOARD_FW_NAME);
}

Options parse_args(int argc, char **argv) {
    enum { PTY = 1, FW, WAVE, FPPM, FSEED, LOG, MAXC, QUIET, HELP };
    static const struct option longopts[] = {
        {"pty-link", required_argument, nullptr, PTY},   {"fw", required_argument, nullptr, FW},
        {"wave", required_argument, nullptr, WAVE},       {"fault-ppm", required_argument, nullptr, FPPM},
        {"fault-seed", required_argument, nullptr, FSEED}, {"line-log", required_argument, nullptr, LOG}, {"max-cycles", required_argument, nullptr, MAXC},
        {"quiet", no_argument, nullptr, QUIET},           {"help", no_argument, nullptr, HELP},
        {nullptr, 0, nullptr, 0},
    };
    Options o;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, nullptr)) != -1) {
        switch (c) {
        case PTY: o.pty_link = optarg; break;
        case FW: o.fw_path = optarg; break;
        case WAVE: o.wave_path = optarg; break;
        case FPPM: o.fault_ppm = (unsigned)sim_parse_number(PROG, "--fault-ppm", optarg, 0, 100000); break;
        case FSEED: o.fault_seed = (unsigned)sim_parse_number(PROG, "--fault-seed", optarg, 0, UINT_MAX); break;
        case LOG: o.line_log = optarg; break;
        case MAXC: o.max_cycles = sim_parse_number(PROG, "--max-cycles", optarg, 1, UINT64_MAX); break;
        case QUIET: o.quiet = true; break;
        case HELP: usage(stdout); exit(0);
        default: sim_bad_option(PROG, argv[optind - 1], usage);
        }
    }
    sim_no_arguments(PROG, argc, argv);
    if (!o.pty_link)
        sim_fail(PROG, "--pty-link PATH is required (see --help)");
    return o;
}

// The line's bytes, one way, impaired at a seeded rate: a byte may have a
// bit flipped, be lost, or take the rest of its frame (up to the next flag)
// with it.
struct Impair {
    unsigned ppm = 0;
    unsigned seed = 1;
    bool cutting = false;
    uint64_t flipped = 0, lost = 0, cut = 0;

    // false: the byte is not sent
    bool pass(uint8_t *b) {
        if (cutting) {
            if (*b != QPNIC_LINK_FLAG) {
                lost++;
                return false;
            }
            cutting = false;
            return true;
        }
        if (ppm == 0 || (unsigned)rand_r(&seed) % 1000000 >= ppm)
            return true;
        switch ((unsigned)rand_r(&seed) % 3) {
        case 0: *b ^= (uint8_t)(1u << (rand_r(&seed) % 8)); flipped++; return true;
        case 1: lost++; return false;
        default: cutting = true; cut++; lost++; return false;
        }
    }
};

// Host to board: bytes become levels on uart_rx, 8N1, at the line's rate.
struct LineIn {
    std::vector<uint8_t> pending;
    size_t at = 0;
    bool busy = false;
    unsigned bit = 0;       // 0 start, 1..8 data, 9 stop
    uint64_t left = 0;      // time left in this bit, cycles/256
    uint16_t frame = 0;     // the ten bits, start first
    int level = 1;
    uint64_t bytes = 0;

    void clock() {
        if (!busy) {
            if (at == pending.size())
                return;
            frame = (uint16_t)(1u << 9 | (unsigned)pending[at++] << 1);
            if (at == pending.size()) {
                pending.clear();
                at = 0;
            }
            busy = true;
            bit = 0;
            left = BIT_Q8;
            bytes++;
        }
        level = frame >> bit & 1;
        if (left > 256) {
            left -= 256;
            return;
        }
        left += BIT_Q8 - 256;
        if (++bit == 10)
            busy = false;
    }
};

// Board to host: levels on uart_tx become bytes, sampled in each bit's middle.
struct LineOut {
    int prev = 1;
    bool busy = false;
    unsigned bit = 0;
    uint64_t left = 0;
    unsigned shift = 0;
    uint64_t bytes = 0, framing_errors = 0;

    // a byte when one is complete, else -1
    int clock(int level) {
        int out = -1;
        if (!busy) {
            if (prev == 1 && level == 0) {
                busy = true;
                bit = 0;
                left = BIT_Q8 / 2;
                shift = 0;
            }
        } else if (left > 256) {
            left -= 256;
        } else {
            left += BIT_Q8 - 256;
            if (bit == 0 && level != 0) {
                busy = false;                  // not a start bit after all
            } else if (bit >= 1 && bit <= 8) {
                shift |= (unsigned)level << (bit - 1);
            } else if (bit == 9) {
                busy = false;
                if (level) {
                    out = (int)shift;
                    bytes++;
                } else {
                    framing_errors++;
                }
            }
            bit++;
        }
        prev = level;
        return out;
    }
};

int open_pty(const char *link_path, std::string *slave_name, int *slave_fd) {
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0)
        sim_fail(PROG, "cannot open a pseudo-terminal: %s", strerror(errno));
    const char *name = ptsname(m);
    if (!name)
        sim_fail(PROG, "ptsname: %s", strerror(errno));
    *slave_name = name;
    // our own descriptor of the slave keeps the line up while no host has it
    // open (else the master reads EIO between two hosts), and sets it raw
    *slave_fd = open(name, O_RDWR | O_NOCTTY);
    if (*slave_fd < 0)
        sim_fail(PROG, "cannot open %s: %s", name, strerror(errno));
    struct termios t;
    if (tcgetattr(*slave_fd, &t) != 0)
        sim_fail(PROG, "tcgetattr %s: %s", name, strerror(errno));
    cfmakeraw(&t);
    if (tcsetattr(*slave_fd, TCSANOW, &t) != 0)
        sim_fail(PROG, "tcsetattr %s: %s", name, strerror(errno));
    if (fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK) != 0)
        sim_fail(PROG, "fcntl: %s", strerror(errno));
    unlink(link_path); // a stale link of an earlier run
    if (symlink(name, link_path) != 0)
        sim_fail(PROG, "cannot link %s to %s: %s", link_path, name, strerror(errno));
    return m;
}

double now_s() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

} // namespace

int main(int argc, char **argv) {
    Options o = parse_args(argc, argv);
    o.fw_path = sim_find_firmware(PROG, o.fw_path, BOARD_FW_NAME);
    sim_require_firmware(PROG, o.fw_path, BOARD_FW_NAME);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);

    std::string slave;
    int slave_fd = -1;
    int master = open_pty(o.pty_link, &slave, &slave_fd);

    auto ctx = std::make_unique<VerilatedContext>();
    std::string plusarg = "+fw=" + o.fw_path; // read by qpnic_soc with $value$plusargs
    const char *model_argv[] = {argv[0], plusarg.c_str()};
    ctx->commandArgs(2, model_argv);
    auto nic = std::make_unique<board::Top>(ctx.get());
    std::unique_ptr<VerilatedFstC> trace;
    if (o.wave_path) {
        ctx->traceEverOn(true);
        trace.reset(new VerilatedFstC);
        nic->trace(trace.get(), 99);
        trace->open(o.wave_path);
    }
    if (!o.quiet) {
        if (BOARD_CLK_HZ != BOARD_OSC_HZ)
            fprintf(stderr, "%s: the board's serial line is %s (%s), %u baud at %u Hz (the PLL's, of a %u Hz "
                    "oscillator); firmware %s\n", PROG, o.pty_link, slave.c_str(), (unsigned)BOARD_BAUD,
                    (unsigned)BOARD_CLK_HZ, (unsigned)BOARD_OSC_HZ, o.fw_path.c_str());
        else
            fprintf(stderr, "%s: the board's serial line is %s (%s), %u baud at %u Hz (its oscillator); "
                    "firmware %s\n", PROG, o.pty_link, slave.c_str(), (unsigned)BOARD_BAUD,
                    (unsigned)BOARD_CLK_HZ, o.fw_path.c_str());
        if (o.fault_ppm)
            fprintf(stderr, "%s: impairing %u in a million of the line's bytes each way, seed %u\n", PROG,
                    o.fault_ppm, o.fault_seed);
    }

    FILE *line_log = nullptr;
    if (o.line_log && !(line_log = fopen(o.line_log, "w")))
        sim_fail(PROG, "cannot write %s: %s", o.line_log, strerror(errno));
    Impair to_board{o.fault_ppm, o.fault_seed};
    Impair to_host{o.fault_ppm, o.fault_seed * 2654435761u + 1};
    LineIn in;
    LineOut out;
    std::vector<uint8_t> outbuf;
    uint64_t cycle = 0, quiet = 0, errors = 0;
    uint64_t act_flashes = 0, err_flashes = 0; // LED flashes (rising edges)
    bool was_up = false, was_act = false, was_err = false;
    double t0 = now_s();
#ifdef BOARD_BOOT_FLASH
    SpiFlash flash{BOARD_CLK_HZ};
    {
        std::string err;
        if (!flash.load_bin(o.fw_path, QPNIC_FW_FLASH_OFFSET, &err))
            sim_fail(PROG, "the flash model: %s", err.c_str());
    }
    bool boot_over = false;   // the loader's read has ended
    board::set_flash_miso(*nic, 1);
#endif
    // No reset pin: the PLL model's LOCK holds the board in reset at first,
    // as the real PLL's does (qpnic_ecp5_board).
    board::release_buttons(*nic);
    board::set_serial_in(*nic, 1);

    while (!g_stop && (o.max_cycles == 0 || cycle < o.max_cycles)) {
        // the host's bytes: read when the line in has nothing left to send
        if (!in.busy && in.pending.empty() && (cycle & 63) == 0) {
            uint8_t buf[4096];
            ssize_t n = read(master, buf, sizeof buf);
            if (n > 0) {
                for (ssize_t i = 0; i < n; i++) {
                    if (line_log)
                        fprintf(line_log, "%llu H %02x\n", (unsigned long long)cycle, buf[i]);
                    if (to_board.pass(&buf[i]))
                        in.pending.push_back(buf[i]);
                }
                quiet = 0;
            } else if (n < 0 && errno != EAGAIN && errno != EIO) {
                sim_fail(PROG, "reading the pty: %s", strerror(errno));
            }
        }
        in.clock();
        board::set_serial_in(*nic, in.level);
        board::set_osc(*nic, 0);
        nic->eval();
        if (trace)
            trace->dump(cycle * 2);
        board::set_osc(*nic, 1);
        nic->eval();
        if (trace)
            trace->dump(cycle * 2 + 1);
        cycle++;
#ifdef BOARD_BOOT_FLASH
        board::set_flash_miso(*nic, flash.clock(cycle, board::flash_cs_n(*nic), board::flash_sck(*nic),
                                                board::flash_mosi(*nic)));
        if (!boot_over && flash.reads() > 0 && board::flash_cs_n(*nic)) {
            // the read has ended: the loader has taken the image (done) or
            // refused it (bad: the red LED, lit from that same edge)
            boot_over = true;
            if (flash.ignored())
                sim_fail(PROG, "the flash model ignored %llu commands (sent before it woke)",
                         (unsigned long long)flash.ignored());
            if (board::led_error(*nic))
                fprintf(stderr, "%s: the loader refused the flash image %s after %llu of its %u bytes (its "
                        "header or its CRC: a .flash.bin of this layout, VERSION_VALUE 0x%08x?): the red LED "
                        "is lit and the NIC stays in reset\n", PROG, o.fw_path.c_str(),
                        (unsigned long long)flash.bytes_read(), flash.image_bytes(), (unsigned)QPNIC_VERSION_VALUE);
            else if (!o.quiet)
                fprintf(stderr, "%s: firmware loaded from the flash at 0x%x, %llu bytes checked, by cycle %llu\n",
                        PROG, (unsigned)QPNIC_FW_FLASH_OFFSET, (unsigned long long)flash.bytes_read(),
                        (unsigned long long)cycle);
        }
#endif

        int b = out.clock(board::serial_out(*nic));
        if (b >= 0) {
            uint8_t c = (uint8_t)b;
            if (line_log)
                fprintf(line_log, "%llu N %02x\n", (unsigned long long)cycle, c);
            if (to_host.pass(&c))
                outbuf.push_back(c);
            quiet = 0;
        }
        if (!outbuf.empty() && (b == QPNIC_LINK_FLAG || outbuf.size() >= 64 || quiet > 1000)) {
            ssize_t n = write(master, outbuf.data(), outbuf.size());
            if (n > 0)
                outbuf.erase(outbuf.begin(), outbuf.begin() + n);
            if (line_log)
                fflush(line_log);   // a reader of the log sees every frame that reached the host
            // else the pty is full (no host reading): keep the bytes, try again
        }
        if (board::nic_error(*nic))
            errors++;
        bool up = board::led_link(*nic), act = board::led_activity(*nic), err = board::led_error(*nic);
        if (up != was_up && !o.quiet)
            fprintf(stderr, "%s: link LED %s at cycle %llu\n", PROG, up ? "lit (link up)" : "dark",
                    (unsigned long long)cycle);
        act_flashes += act && !was_act;
        err_flashes += err && !was_err;
        was_up = up;
        was_act = act;
        was_err = err;
        if (!in.busy && in.pending.empty() && outbuf.empty() && ++quiet >= QUIET_CYCLES) {
            struct pollfd p = {master, POLLIN, 0};
            poll(&p, 1, QUIET_POLL_MS);
            quiet = QUIET_CYCLES / 2;
        }
    }
    double secs = now_s() - t0;
    if (trace)
        trace->close();
    if (line_log)
        fclose(line_log);
    nic->final();
    unlink(o.pty_link);
    close(slave_fd);
    close(master);
    if (!o.quiet)
        fprintf(stderr,
                "%s: stopped after %llu cycles in %.2f s; bytes in %llu, out %llu; frames dropped by the NIC %llu; "
                "LED flashes: activity %llu, error %llu; "
                "impaired in: %llu flipped, %llu lost (%llu cuts), out: %llu flipped, %llu lost (%llu cuts)\n",
                PROG, (unsigned long long)cycle, secs, (unsigned long long)in.bytes, (unsigned long long)out.bytes,
                (unsigned long long)errors, (unsigned long long)act_flashes, (unsigned long long)err_flashes,
                (unsigned long long)to_board.flipped, (unsigned long long)to_board.lost,
                (unsigned long long)to_board.cut, (unsigned long long)to_host.flipped,
                (unsigned long long)to_host.lost, (unsigned long long)to_host.cut);
    return 0;
}
