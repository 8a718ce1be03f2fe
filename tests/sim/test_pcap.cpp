// test_pcap.cpp: unit test of the capture file writer (sim/pcap.h).
//
// For: the bytes of the file, read back and compared field by field with
// libpcap's format (nanosecond magic, version 2.4, LINKTYPE_ETHERNET, each
// record's stamp and lengths), the promise that a killed writer leaves a
// whole file, and the error texts. Not for: whether tshark and scapy agree
// that the file holds good RoCEv2 frames: tests/wire/test_check_roce_pcap.py
// runs them on files this writer made (test_pcap --from-hex, below).
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "pcap.h"
#include "tb_util.h"  // CHECK and PASS, as the unit testbenches have them

static std::string tmp_dir;

static std::string tmp_path(const char *name) { return tmp_dir + "/" + name; }

static std::vector<uint8_t> read_file(const std::string &path) {
    std::vector<uint8_t> bytes;
    FILE *f = std::fopen(path.c_str(), "rb");
    CHECK(f, "cannot read back %s", path.c_str());
    int c;
    while ((c = std::fgetc(f)) != EOF)
        bytes.push_back((uint8_t)c);
    std::fclose(f);
    return bytes;
}

// The bytes at file[at..at+n) must be want[0..n): name the first that is not.
static void expect_bytes(const std::vector<uint8_t> &file, size_t at, const std::vector<uint8_t> &want,
                         const char *what) {
    CHECK(file.size() >= at + want.size(), "%s: the file has %zu bytes, %s needs %zu..%zu", what, file.size(), what,
          at, at + want.size());
    for (size_t i = 0; i < want.size(); i++)
        CHECK(file[at + i] == want[i], "%s: byte %zu of the file is 0x%02x, want 0x%02x", what, at + i, file[at + i],
              want[i]);
}

// Two frames as the wire has them: a 62-byte ACK-sized one and a 100-byte one.
static std::vector<uint8_t> frame_of(size_t len, uint8_t seed) {
    std::vector<uint8_t> f(len);
    for (size_t i = 0; i < len; i++)
        f[i] = (uint8_t)(seed + 7 * i);
    return f;
}

static const uint64_t T1 = 1500;                        // 1.5 us
static const uint64_t T2 = 3ull * 1000000000 + 999999999;  // 3.999999999 s

static void write_two_frames(const std::string &path) {
    PcapWriter w;
    std::string err;
    CHECK(w.open(path.c_str(), &err), "open %s: %s", path.c_str(), err.c_str());
    std::vector<uint8_t> a = frame_of(62, 1), b = frame_of(100, 2);
    CHECK(w.write(a.data(), a.size(), T1, &err), "frame 1: %s", err.c_str());
    CHECK(w.write(b.data(), b.size(), T2, &err), "frame 2: %s", err.c_str());
    CHECK(w.frames() == 2, "frames() says %" PRIu64 " after two", w.frames());
    w.close();
}

static void test_header_and_records() {
    std::string path = tmp_path("two.pcap");
    write_two_frames(path);
    std::vector<uint8_t> f = read_file(path);
    CHECK(f.size() == 24 + 16 + 62 + 16 + 100, "the file has %zu bytes, want 218", f.size());
    expect_bytes(f, 0, {0x4d, 0x3c, 0xb2, 0xa1}, "magic (nanosecond, little-endian)");
    expect_bytes(f, 4, {2, 0, 4, 0}, "version 2.4");
    expect_bytes(f, 8, {0, 0, 0, 0, 0, 0, 0, 0}, "thiszone and sigfigs");
    expect_bytes(f, 16, {0xff, 0xff, 0, 0}, "snaplen 65535");
    expect_bytes(f, 20, {1, 0, 0, 0}, "LINKTYPE_ETHERNET");
    // record 1: 0 s, 1500 ns, 62 of 62 bytes
    expect_bytes(f, 24, {0, 0, 0, 0, 0xdc, 0x05, 0, 0, 62, 0, 0, 0, 62, 0, 0, 0}, "record 1 header");
    expect_bytes(f, 40, frame_of(62, 1), "frame 1");
    // record 2: 3 s, 999999999 ns (0x3b9ac9ff), 100 of 100 bytes
    expect_bytes(f, 102, {3, 0, 0, 0, 0xff, 0xc9, 0x9a, 0x3b, 100, 0, 0, 0, 100, 0, 0, 0}, "record 2 header");
    expect_bytes(f, 118, frame_of(100, 2), "frame 2");
    PASS("pcap_header_and_records");
}

// A frame longer than the snap length is cut in the file and keeps its
// length in orig_len, which is what readers expect of a cut frame.
static void test_long_frame_is_cut() {
    std::string path = tmp_path("long.pcap");
    PcapWriter w;
    std::string err;
    CHECK(w.open(path.c_str(), &err), "open: %s", err.c_str());
    std::vector<uint8_t> big = frame_of(PCAP_SNAPLEN + 10, 3);
    CHECK(w.write(big.data(), big.size(), 0, &err), "write: %s", err.c_str());
    w.close();
    std::vector<uint8_t> f = read_file(path);
    CHECK(f.size() == 24 + 16 + PCAP_SNAPLEN, "the file has %zu bytes", f.size());
    expect_bytes(f, 32, {0xff, 0xff, 0, 0, 0x09, 0, 1, 0}, "incl_len 65535, orig_len 65545");
    PASS("pcap_long_frame_is_cut");
}

// The promise of sim/pcap.h: no close, no exit handler, the process killed
// right after write() returned, and both records are in the file.
static void test_killed_writer_leaves_whole_file() {
    std::string path = tmp_path("killed.pcap");
    pid_t pid = fork();
    CHECK(pid >= 0, "fork failed");
    if (pid == 0) {
        PcapWriter *w = new PcapWriter;  // never deleted: no destructor runs
        std::string err;
        std::vector<uint8_t> a = frame_of(62, 1), b = frame_of(100, 2);
        if (!w->open(path.c_str(), &err) || !w->write(a.data(), a.size(), T1, &err) ||
            !w->write(b.data(), b.size(), T2, &err))
            _exit(2);
        raise(SIGKILL);
        _exit(3);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid, "waitpid failed");
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the writer was not killed (status 0x%x)", status);
    std::vector<uint8_t> f = read_file(path);
    CHECK(f.size() == 218, "after the kill the file has %zu bytes, want 218", f.size());
    expect_bytes(f, 118, frame_of(100, 2), "frame 2 after the kill");
    PASS("pcap_killed_writer_leaves_whole_file");
}

static void test_errors_say_what_and_why() {
    PcapWriter w;
    std::string err;
    CHECK(!w.open("/nonexistent-qpnic-dir/x.pcap", &err), "opened a file in a directory that does not exist");
    CHECK(err.find("/nonexistent-qpnic-dir/x.pcap") != std::string::npos, "the error names no path: %s", err.c_str());
    CHECK(err.find("No such file or directory") != std::string::npos, "the error gives no reason: %s", err.c_str());
    CHECK(!w.is_open(), "a failed open left the writer open");
    uint8_t byte = 0;
    err.clear();
    CHECK(!w.write(&byte, 1, 0, &err), "a write with no file open succeeded");
    CHECK(!err.empty(), "a write with no file open said nothing");
    CHECK(w.open(tmp_path("late.pcap").c_str(), nullptr), "open without an error string failed");
    CHECK(!w.write(&byte, 1, (uint64_t)UINT32_MAX * 1000000000u + 1000000000u, &err),
          "a stamp past 32-bit seconds was written");
    CHECK(err.find("32-bit seconds") != std::string::npos, "the stamp's error says: %s", err.c_str());
    w.close();
    w.close();  // twice is harmless
    PASS("pcap_errors_say_what_and_why");
}

// --from-hex HEXFILE PATH: write each line of HEXFILE (a frame in hex) to
// PATH as a record, the n-th stamped n microseconds, and run no test. The
// wire checker's test makes its files this way, so that what it checks is
// this writer's output and not only scapy's.
static int write_from_hex(const char *hexfile, const char *path) {
    FILE *in = std::fopen(hexfile, "r");
    CHECK(in, "cannot read %s", hexfile);
    PcapWriter w;
    std::string err;
    CHECK(w.open(path, &err), "%s", err.c_str());
    std::vector<uint8_t> frame;
    char hex[3] = {};
    int c;
    while ((c = std::fgetc(in)) != EOF) {
        if (c == '\n') {
            CHECK(w.write(frame.data(), frame.size(), (w.frames() + 1) * 1000, &err), "%s", err.c_str());
            frame.clear();
        } else if (!hex[0]) {
            hex[0] = (char)c;
        } else {
            hex[1] = (char)c;
            char *end = nullptr;
            frame.push_back((uint8_t)std::strtoul(hex, &end, 16));
            CHECK(*end == 0, "%s: \"%s\" is not a hex byte", hexfile, hex);
            hex[0] = 0;
        }
    }
    std::fclose(in);
    CHECK(frame.empty() && !hex[0], "%s: the last line has no newline or an odd number of digits", hexfile);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && std::strcmp(argv[1], "--from-hex") == 0)
        return write_from_hex(argv[2], argv[3]);
    char dir[] = "/tmp/qpnic-test-pcap-XXXXXX";
    CHECK(mkdtemp(dir), "cannot make a temporary directory");
    tmp_dir = dir;
    test_header_and_records();
    test_long_frame_is_cut();
    test_killed_writer_leaves_whole_file();
    test_errors_say_what_and_why();
    for (const char *n : {"two.pcap", "long.pcap", "killed.pcap", "late.pcap"})
        unlink(tmp_path(n).c_str());
    rmdir(dir);
    return 0;
}
