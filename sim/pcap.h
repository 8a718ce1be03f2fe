// pcap.h: a writer of capture files for the NIC's RoCEv2 wire.
//
// For: recording every Ethernet frame the simulated NIC puts on (or takes
// off) its wire into a classic libpcap file, so that tshark, Wireshark,
// scapy and tools/check_roce_pcap.py can read what the RTL really sent.
// Not for: reading captures, capturing from a live interface, or pcapng.
//
// The format, chosen for the readers rather than for the writer:
//   - classic pcap, not pcapng: every reader knows it, and a record is just
//     a 16-byte header and the frame;
//   - the nanosecond magic 0xa1b23c4d: the simulator's time is exact in
//     nanoseconds (cycles times the clock's period), and microseconds would
//     give frames sent a few cycles apart the same stamp;
//   - LINKTYPE_ETHERNET (1): frames without preamble and without FCS;
//   - every field little-endian whatever the host, so the same run gives
//     the same bytes everywhere (readers tell the order from the magic).
//
// Each record reaches the file in one write(2) before write() returns, with
// no buffer of ours in between: a simulator that is killed, or that crashes
// in the RTL's code, leaves a file that ends after its last whole frame.
#ifndef QPNIC_SIM_PCAP_H
#define QPNIC_SIM_PCAP_H

#include <cstddef>
#include <cstdint>
#include <string>

// The file header's fields (libpcap's "savefile" format, version 2.4).
constexpr uint32_t PCAP_MAGIC_NS = 0xa1b23c4du;
constexpr uint16_t PCAP_VERSION_MAJOR = 2;
constexpr uint16_t PCAP_VERSION_MINOR = 4;
constexpr uint32_t PCAP_LINKTYPE_ETHERNET = 1;
// Longer frames are cut to this in the file and keep their length in the
// record's orig_len, as libpcap does; the wire's frames are far shorter.
constexpr uint32_t PCAP_SNAPLEN = 65535;
constexpr size_t PCAP_FILE_HEADER_BYTES = 24;
constexpr size_t PCAP_RECORD_HEADER_BYTES = 16;

class PcapWriter {
public:
    PcapWriter() = default;
    ~PcapWriter() { close(); }
    PcapWriter(const PcapWriter &) = delete;
    PcapWriter &operator=(const PcapWriter &) = delete;

    // Create or truncate path and write the file header. On failure returns
    // false and sets *err (when given) to a sentence naming the path and the
    // reason. A writer already open is closed first.
    bool open(const char *path, std::string *err);

    // Append one frame stamped time_ns (nanoseconds since the run began; the
    // file's clock starts at the epoch, which readers show as 1970). On
    // failure (not open, disk full, ...) returns false and sets *err; the
    // file then still ends after the last record that was written whole.
    bool write(const uint8_t *frame, size_t len, uint64_t time_ns, std::string *err);

    // Close the file; a writer that is not open does nothing.
    void close();

    bool is_open() const { return fd_ >= 0; }
    // Frames written since open().
    uint64_t frames() const { return frames_; }

private:
    int fd_ = -1;
    std::string path_;
    uint64_t frames_ = 0;
};

#endif
