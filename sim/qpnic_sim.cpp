// qpnic_sim.cpp: main of qpnic-sim, the co-simulation carrier of qpnic_core.
//
// For: the command line, finding the firmware image, creating the shared file
// (sim/shm_proto.h), signals, and the exit status. The cycle loop is in
// harness.cpp, the file in shm.cpp. Not for: anything the host driver does.
//
//   qpnic-sim --board NAME ...  runs the board-level simulator qpnic-sim-NAME
//   qpnic-sim --shm PATH [--mem-mb N] [--fw HEX] [--wave FILE.fst]
//             [--dma-latency N] [--dma-reorder SEED] [--doorbell-delay N] [--max-cycles N]
//             [--net-port BASE] [--node N] [--wire] [--pcap FILE] [--wire-dup PPM]
//             [--wire-drop PPM] [--wire-reorder PPM] [--wire-corrupt PPM] [--wire-seed N]
//             [--unlink-on-exit] [--quiet]
//
// Exit status 0 when it stopped as asked (shutdown, signal, the host process
// gone, --max-cycles); 1 on any error, with a line on stderr (a --pcap file
// that could not take every frame among them: said in its summary line).
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <getopt.h>
#include <signal.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "shm.h"
#include "sim_util.h"

namespace {

constexpr uint64_t DEFAULT_MEM_MB = 64;
constexpr uint64_t MAX_MEM_MB = 1u << 16; // 64 GiB: a typo guard, not a real limit
constexpr unsigned DEFAULT_NET_PORT = 47900;   // node n listens on UDP 47900 + n

struct Options {
    const char *shm_path = nullptr;
    uint64_t mem_mb = DEFAULT_MEM_MB;
    std::string fw_path;
    const char *wave_path = nullptr;
    uint32_t dma_latency = 2;
    uint64_t dma_reorder = 0;
    uint32_t doorbell_delay = 0;
    uint64_t max_cycles = 0;
    bool wire = false;
    unsigned net_port = DEFAULT_NET_PORT;
    unsigned node = 0;
    const char *pcap_path = nullptr;
    WireImpairment imp;
    uint64_t wire_seed = 0;
    bool quiet = false;
    bool unlink_on_exit = false;
};

void usage(FILE *to) {
    fprintf(to,
            "usage: qpnic-sim --shm PATH [options]\n"
            "       qpnic-sim --board NAME [its options]   the board-level simulator of NAME (ulx3s)\n"
            "  --partition hw|fw     hw (default): the hardware partition; fw: the firmware\n"
            "                        partition (docs/partitions.md), qpnic-sim-fw, which has no wire\n"
            "  --shm PATH            shared file to create (must not exist)\n"
            "  --mem-mb N            DMA region size in MiB (default %llu)\n"
            "  --fw HEX              firmware image (default: $%s, else <bin>%s)\n"
            "  --wave FILE.fst       dump an FST waveform of the whole core\n"
            "  --dma-latency N       cycles from a DMA read request to its data (default 2)\n"
            "  --dma-reorder SEED    answer DMA reads of different tags out of order, seeded\n"
            "                        (default: in order)\n"
            "  --doorbell-delay N    cycles each MMIO write costs (default 0)\n"
            "  --max-cycles N        stop after N cycles (default: no limit)\n"
            "  --net-port BASE       join the simulated network: NIC n is 10.0.0.n and takes\n"
            "                        frames on UDP port BASE+n of 127.0.0.1 (default %u;\n"
            "                        0: no network; docs/wire.md, \"Two NICs\")\n"
            "  --node N              be NIC N (1..254) of the network (default: the first free)\n"
            "  --wire                send every packet as a RoCEv2 frame through the wire, this\n"
            "                        NIC's own too (default: those to other NICs; docs/wire.md)\n"
            "  --pcap FILE           write every frame the NIC sends to FILE\n"
            "  --wire-dup PPM        deliver each frame twice with probability PPM/1e6, the\n"
            "                        copy 0..3 frames later\n"
            "  --wire-drop PPM       lose each frame with probability PPM/1e6\n"
            "  --wire-reorder PPM    hold a frame back behind 1..3 later ones, probability PPM/1e6\n"
            "  --wire-corrupt PPM    flip one bit of a frame with probability PPM/1e6\n"
            "                        (--pcap and the impairments imply --wire)\n"
            "  --wire-seed N         seed of the wire's impairment (default: from the clock;\n"
            "                        printed)\n"
            "  --unlink-on-exit      remove PATH on exit (default: the host removes it)\n"
            "  --quiet               no informational messages\n",
            (unsigned long long)DEFAULT_MEM_MB, SIM_FW_ENV, SIM_FW_INSTALLED, DEFAULT_NET_PORT);
}

const char *const PROG = "qpnic-sim";

Options parse_args(int argc, char **argv) {
    enum { SHM = 1, MEM, FW, WAVE, LAT, REORDER, DELAY, MAXC, NETPORT, NODE, WIRE, PCAP, WDUP, WDROP, WREORDER,
           WCORRUPT, WSEED, QUIET, UNLINK, HELP };
    static const struct option longopts[] = {
        {"shm", required_argument, nullptr, SHM},
        {"mem-mb", required_argument, nullptr, MEM},
        {"fw", required_argument, nullptr, FW},
        {"wave", required_argument, nullptr, WAVE},
        {"dma-latency", required_argument, nullptr, LAT},
        {"dma-reorder", required_argument, nullptr, REORDER},
        {"doorbell-delay", required_argument, nullptr, DELAY},
        {"max-cycles", required_argument, nullptr, MAXC},
        {"net-port", required_argument, nullptr, NETPORT},
        {"node", required_argument, nullptr, NODE},
        {"wire", no_argument, nullptr, WIRE},
        {"pcap", required_argument, nullptr, PCAP},
        {"wire-dup", required_argument, nullptr, WDUP},
        {"wire-drop", required_argument, nullptr, WDROP},
        {"wire-reorder", required_argument, nullptr, WREORDER},
        {"wire-corrupt", required_argument, nullptr, WCORRUPT},
        {"wire-seed", required_argument, nullptr, WSEED},
        {"quiet", no_argument, nullptr, QUIET},
        {"unlink-on-exit", no_argument, nullptr, UNLINK},
        {"help", no_argument, nullptr, HELP},
        {nullptr, 0, nullptr, 0},
    };
    Options o;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, nullptr)) != -1) {
        switch (c) {
        case SHM: o.shm_path = optarg; break;
        case MEM: o.mem_mb = sim_parse_number(PROG, "--mem-mb", optarg, 1, MAX_MEM_MB); break;
        case FW: o.fw_path = optarg; break;
        case WAVE: o.wave_path = optarg; break;
        case LAT: o.dma_latency = (uint32_t)sim_parse_number(PROG, "--dma-latency", optarg, 0, 1000000); break;
        case REORDER: o.dma_reorder = sim_parse_number(PROG, "--dma-reorder", optarg, 1, UINT64_MAX); break;
        case DELAY: o.doorbell_delay = (uint32_t)sim_parse_number(PROG, "--doorbell-delay", optarg, 0, UINT32_MAX); break;
        case MAXC: o.max_cycles = sim_parse_number(PROG, "--max-cycles", optarg, 1, UINT64_MAX); break;
        case NETPORT: o.net_port = (unsigned)sim_parse_number(PROG, "--net-port", optarg, 0, 65535 - WIRE_NET_NODES); break;
        case NODE: o.node = (unsigned)sim_parse_number(PROG, "--node", optarg, 1, WIRE_NET_NODES); break;
        case WIRE: o.wire = true; break;
        case PCAP: o.pcap_path = optarg; o.wire = true; break;
        case WDUP: o.imp.dup = (uint32_t)sim_parse_number(PROG, "--wire-dup", optarg, 0, 1000000); o.wire = true; break;
        case WDROP: o.imp.drop = (uint32_t)sim_parse_number(PROG, "--wire-drop", optarg, 0, 1000000); o.wire = true; break;
        case WREORDER: o.imp.reorder = (uint32_t)sim_parse_number(PROG, "--wire-reorder", optarg, 0, 1000000); o.wire = true; break;
        case WCORRUPT: o.imp.corrupt = (uint32_t)sim_parse_number(PROG, "--wire-corrupt", optarg, 0, 1000000); o.wire = true; break;
        case WSEED: o.wire_seed = sim_parse_number(PROG, "--wire-seed", optarg, 1, UINT64_MAX); break;
        case QUIET: o.quiet = true; break;
        case UNLINK: o.unlink_on_exit = true; break;
        case HELP: usage(stdout); exit(0);
        default: sim_bad_option(PROG, argv[optind - 1], usage);
        }
    }
    sim_no_arguments(PROG, argc, argv);
    if (!o.shm_path)
        sim_fail(PROG, "--shm PATH is required (see --help)");
    return o;
}

extern "C" void on_stop_signal(int) { g_harness_signal = 1; }

void install_signals() {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; // no SA_RESTART: a futex wait returns at once
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
}

} // namespace

// qpnic-sim --board NAME ARGS...: the board-level simulator of NAME, built
// beside this one as qpnic-sim-NAME (sim/board_sim.cpp), with ARGS.
[[noreturn]] void exec_sibling(const char *name, char **args) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        sim_fail(PROG, "cannot find the executable's directory");
    exe[n] = '\0';
    std::string path(exe);
    path.erase(path.rfind('/') + 1);
    path += std::string("qpnic-sim-") + name;
    if (access(path.c_str(), X_OK) != 0)
        sim_fail(PROG, "no simulator for '%s' (%s: %s; boards: ulx3s; partitions: hw, fw)", name,
                 path.c_str(), strerror(errno));
    args[0] = const_cast<char *>(path.c_str());
    execv(path.c_str(), args);
    sim_fail(PROG, "cannot run %s: %s", path.c_str(), strerror(errno));
}

[[noreturn]] void exec_board(const char *name, char **args) {
    if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(name) ||
        strcmp(name, "fw") == 0)
        sim_fail(PROG, "--board needs a board's name, not '%s'", name);
    exec_sibling(name, args);
}

// qpnic-sim ... --partition fw ...: the firmware partition's simulator,
// qpnic-sim-fw, with the other arguments; --partition hw is this one.
// Anywhere on the line, since the host library appends $QPNIC_SIM_ARGS to
// its own arguments.
void take_partition(int &argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--partition") != 0)
            continue;
        if (i + 1 >= argc || (strcmp(argv[i + 1], "hw") != 0 && strcmp(argv[i + 1], "fw") != 0))
            sim_fail(PROG, "--partition needs hw or fw");
        bool fw = strcmp(argv[i + 1], "fw") == 0;
        for (int j = i; j + 2 <= argc; j++)
            argv[j] = argv[j + 2];
        argc -= 2;
#ifdef QPNIC_SIM_PARTITION_FW
        if (!fw)
            sim_fail(PROG, "this is the firmware partition's simulator: run qpnic-sim for hw");
#else
        if (fw)
            exec_sibling("fw", argv);
#endif
        i--;
    }
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--board") == 0) {
        if (argc < 3)
            sim_fail(PROG, "--board needs a board's name (see --help)");
        exec_board(argv[2], argv + 2);
    }
    take_partition(argc, argv);
    Options o = parse_args(argc, argv);
#ifdef QPNIC_SIM_PARTITION_FW
    if (o.wire)
        sim_fail(PROG, "the firmware partition has no wire (docs/partitions.md): no --wire, --pcap or impairment");
#endif
    o.fw_path = sim_find_firmware(PROG, o.fw_path);
    sim_require_firmware(PROG, o.fw_path);
    install_signals();

    WireLoop wire;
    std::string wire_err;
    if (!wire.open_capture(o.pcap_path, &wire_err))
        sim_fail(PROG, "%s", wire_err.c_str());

    SimShm shm;
    char err[512];
    if (shm_create(o.shm_path, o.mem_mb << 20, &shm, err, sizeof err) != 0)
        sim_fail(PROG, "%s", err);
    shm.hdr->doorbell_delay.store(o.doorbell_delay, std::memory_order_relaxed);
    // Off the network a NIC that sends its own packets as frames still
    // needs an address: a link-local one from the process id (so that two
    // such simulators do not share a node address); otherwise none.
    wire.set_standalone_ip(o.wire ? QPNIC_SIM_LINK_LOCAL | ((uint32_t)getpid() & ~QPNIC_SIM_LINK_LOCAL_MASK) : 0);
    if (o.net_port) {
        qpnic_shm_hdr *hdr = shm.hdr;
        // a frame from the network wakes the cycle loop where it sleeps
        if (!wire.join_network(o.net_port, o.node, [hdr] { shm_futex_wake(&hdr->mmio_head); }, &wire_err)) {
            if (o.node)
                sim_fail(PROG, "%s", wire_err.c_str());
            fprintf(stderr, "qpnic-sim: %s; this NIC reaches no other\n", wire_err.c_str());
        } else if (!o.quiet) {
            fprintf(stderr, "qpnic-sim: NIC %u of the network: 10.0.0.%u, UDP port %u\n", wire.node(), wire.node(),
                    o.net_port + wire.node());
        }
    }

    if (o.imp.any()) {
        if (!o.wire_seed)
            o.wire_seed = (uint64_t)time(nullptr) ^ ((uint64_t)getpid() << 32);
        // each NIC of the network its own dice from one seed: two NICs
        // started alike do not lose the same frames of their streams
        wire.set_impairment(o.imp, o.wire_seed + 0x9E3779B97F4A7C15ull * wire.node());
        // said even with --quiet: a run must be repeatable
        fprintf(stderr, "qpnic-sim: --wire-drop %u --wire-dup %u --wire-reorder %u --wire-corrupt %u --wire-seed %llu"
                " (NIC %u)\n", o.imp.drop, o.imp.dup, o.imp.reorder, o.imp.corrupt,
                (unsigned long long)o.wire_seed, wire.node());
    }

    HarnessConfig cfg;
    cfg.wave_path = o.wave_path;
    cfg.dma_latency = o.dma_latency;
    cfg.dma_reorder_seed = o.dma_reorder;
    cfg.max_cycles = o.max_cycles;
    cfg.wire = &wire;
    cfg.force_wire = o.wire;
    std::string plusarg = "+fw=" + o.fw_path; // read by qpnic_soc with $value$plusargs
    const char *model_argv[] = {argv[0], plusarg.c_str()};
    if (!o.quiet)
        fprintf(stderr, "qpnic-sim: serving %s (%llu MiB DMA region, firmware %s)\n",
                o.shm_path, (unsigned long long)o.mem_mb, o.fw_path.c_str());

    StopReason why;
    HarnessStats stats;
    harness_run(&shm, cfg, 2, model_argv, &why, &stats);

    wire.leave_network();   // the receiving thread wakes the shared file's futex
    shm_close(&shm);
    if (o.unlink_on_exit)
        unlink(o.shm_path);
    if (!o.quiet)
        fprintf(stderr, "qpnic-sim: stopped (%s) after %llu cycles in %.2f s\n", stop_reason_str(why),
                (unsigned long long)stats.cycles, stats.seconds);
    // asked for explicitly, so said even with --quiet: what the reordering did
    if (o.dma_reorder)
        fprintf(stderr, "qpnic-sim: --dma-reorder %llu: %llu of %llu DMA reads answered before an older one\n",
                (unsigned long long)o.dma_reorder, (unsigned long long)stats.dma_reads_overtaking,
                (unsigned long long)stats.dma_reads);
    // asked for explicitly: what went over the wire
    if (o.wire || (!o.quiet && wire.frames())) {
        fprintf(stderr,
                "qpnic-sim: wire: %llu frames sent (%llu bytes), %llu kept; dropped: %llu not addressed "
                "here, %llu bad header, %llu bad ICRC\n",
                (unsigned long long)stats.wire_sent, (unsigned long long)wire.bytes(),
                (unsigned long long)stats.wire_kept, (unsigned long long)stats.wire_drop_addr,
                (unsigned long long)stats.wire_drop_hdr, (unsigned long long)stats.wire_drop_icrc);
        if (wire.net_sent() || wire.net_received() || wire.net_unroutable())
            fprintf(stderr, "qpnic-sim: network: %llu frames sent to other NICs, %llu received from them, %llu "
                    "to no NIC\n", (unsigned long long)wire.net_sent(), (unsigned long long)wire.net_received(),
                    (unsigned long long)wire.net_unroutable());
        if (o.imp.any())
            fprintf(stderr, "qpnic-sim: impairment: %llu frames lost, %llu delivered twice, %llu reordered, %llu "
                    "corrupted (seed %llu)\n", (unsigned long long)wire.lost(), (unsigned long long)wire.duplicated(),
                    (unsigned long long)wire.reordered(), (unsigned long long)wire.corrupted(),
                    (unsigned long long)o.wire_seed);
        if (o.pcap_path)
            fprintf(stderr, "qpnic-sim: --pcap %s: %llu frames written%s%s\n", o.pcap_path,
                    (unsigned long long)wire.captured(), wire.capture_error().empty() ? "" : "; ",
                    wire.capture_error().c_str());
    }
    // a capture that lacks frames is an error: the file alone cannot say
    // so (it ends after its last whole record, and reads as a shorter run)
    return wire.capture_error().empty() ? 0 : 1;
}
