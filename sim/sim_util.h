// sim_util.h: what the simulators' command lines share (qpnic-sim and the
// board-level qpnic-sim-<board>).
//
// For: failing with a message, parsing a number option, finding and checking
// the firmware image. Not for: anything a simulator does per cycle.
#ifndef QPNIC_SIM_UTIL_H
#define QPNIC_SIM_UTIL_H

#include <cstdint>
#include <cstdio>
#include <string>

// Print "prog: message" on stderr and exit 1.
[[noreturn]] __attribute__((format(printf, 2, 3))) void sim_fail(const char *prog, const char *fmt, ...);

// An unknown option: say so, print the usage on stderr, exit 1.
[[noreturn]] void sim_bad_option(const char *prog, const char *opt, void (*usage)(FILE *));

// Exit 1 if getopt left arguments over (argv[optind] on).
void sim_no_arguments(const char *prog, int argc, char **argv);

// The number in text, in lo..hi, or exit 1 naming the option.
uint64_t sim_parse_number(const char *prog, const char *opt, const char *text, uint64_t lo, uint64_t hi);

// The firmware image a simulator runs when none is named: $QPNIC_FW, else
// SIM_FW_INSTALLED beside its bin/. The firmware partition's simulators
// (qpnic-sim-fw, qpnic-sim-icebreaker; sim/sim.mk) run that partition's.
#define SIM_FW_ENV "QPNIC_FW"
#ifdef QPNIC_SIM_PARTITION_FW
#define SIM_FW_NAME "qpnic-fw-tp.hex"
#else
#define SIM_FW_NAME "qpnic-fw.hex"
#endif
#define SIM_FW_DIR "/../share/qpnic/"   // beside the executable's bin/
#define SIM_FW_INSTALLED SIM_FW_DIR SIM_FW_NAME

// --fw's path if given, else $QPNIC_FW, else the image named name (a file
// of share/qpnic/, SIM_FW_NAME unless a board boots another: its flash
// image) beside the executable's bin/.
std::string sim_find_firmware(const char *prog, const std::string &given, const char *name = SIM_FW_NAME);

// Exit 1 with a hint (how to build name) unless path is a readable file.
void sim_require_firmware(const char *prog, const std::string &path, const char *name = SIM_FW_NAME);

#endif
