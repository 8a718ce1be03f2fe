// sim_util.cpp: see sim_util.h.
#include "sim_util.h"

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>


void sim_fail(const char *prog, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

void sim_bad_option(const char *prog, const char *opt, void (*usage)(FILE *)) {
    fprintf(stderr, "%s: unknown or incomplete option '%s'\n", prog, opt);
    usage(stderr);
    exit(1);
}

void sim_no_arguments(const char *prog, int argc, char **argv) {
    if (optind < argc)
        sim_fail(prog, "unexpected argument '%s' (see --help)", argv[optind]);
}

uint64_t sim_parse_number(const char *prog, const char *opt, const char *text, uint64_t lo, uint64_t hi) {
    char *end = nullptr;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || end == text || *end || text[0] == '-' || v < lo || v > hi)
        sim_fail(prog, "%s needs a number in %llu..%llu, not '%s'", opt, (unsigned long long)lo,
                 (unsigned long long)hi, text);
    return v;
}

std::string sim_find_firmware(const char *prog, const std::string &given, const char *name) {
    if (!given.empty())
        return given;
    const char *env = getenv(SIM_FW_ENV);
    if (env && *env)
        return env;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        sim_fail(prog, "cannot find the executable's directory; give --fw or set %s", SIM_FW_ENV);
    exe[n] = '\0';
    std::string dir(exe);
    dir.erase(dir.rfind('/'));
    return dir + SIM_FW_DIR + name;
}

void sim_require_firmware(const char *prog, const std::string &path, const char *name) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || access(path.c_str(), R_OK) != 0)
        sim_fail(prog,
                 "firmware image %s not found or unreadable (give --fw or set %s; "
                 "in the tree: make build/share/qpnic/%s)",
                 path.c_str(), SIM_FW_ENV, name);
}
