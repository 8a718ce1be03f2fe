// pcap.cpp: the capture file writer of sim/pcap.h (why this format: there).
#include "pcap.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

namespace {

void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void set_err(std::string *err, const std::string &text) {
    if (err)
        *err = text;
}

// Write all of iov[0..n) at the end of fd. writev may write less than asked
// (a signal, a nearly full disk), so go on from where it stopped.
bool write_all(int fd, struct iovec *iov, int n) {
    while (n > 0) {
        ssize_t done = ::writev(fd, iov, n);
        if (done < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        while (n > 0 && (size_t)done >= iov->iov_len) {
            done -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + done;
            iov->iov_len -= (size_t)done;
        }
    }
    return true;
}

}  // namespace

bool PcapWriter::open(const char *path, std::string *err) {
    close();
    int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        set_err(err, std::string("cannot create the capture file ") + path + ": " + std::strerror(errno));
        return false;
    }
    uint8_t h[PCAP_FILE_HEADER_BYTES] = {};
    put32(h + 0, PCAP_MAGIC_NS);
    put16(h + 4, PCAP_VERSION_MAJOR);
    put16(h + 6, PCAP_VERSION_MINOR);
    // h[8..16): thiszone and sigfigs, 0 as every writer leaves them
    put32(h + 16, PCAP_SNAPLEN);
    put32(h + 20, PCAP_LINKTYPE_ETHERNET);
    struct iovec iov = {h, sizeof h};
    if (!write_all(fd, &iov, 1)) {
        set_err(err, std::string("cannot write the capture file ") + path + ": " + std::strerror(errno));
        ::close(fd);
        return false;
    }
    fd_ = fd;
    path_ = path;
    frames_ = 0;
    return true;
}

bool PcapWriter::write(const uint8_t *frame, size_t len, uint64_t time_ns, std::string *err) {
    if (fd_ < 0) {
        set_err(err, "no capture file is open");
        return false;
    }
    // The record header's seconds are 32 bits: enough for 136 years of
    // simulated time, so a larger stamp is a caller's bug, not a wrap.
    if (time_ns / 1000000000u > UINT32_MAX) {
        set_err(err, "frame time " + std::to_string(time_ns) + " ns is past the capture format's 32-bit seconds");
        return false;
    }
    uint32_t kept = len > PCAP_SNAPLEN ? PCAP_SNAPLEN : (uint32_t)len;
    uint8_t h[PCAP_RECORD_HEADER_BYTES];
    put32(h + 0, (uint32_t)(time_ns / 1000000000u));
    put32(h + 4, (uint32_t)(time_ns % 1000000000u));
    put32(h + 8, kept);
    put32(h + 12, len > UINT32_MAX ? UINT32_MAX : (uint32_t)len);
    // Header and frame in one writev: no copy, and nothing left in a buffer
    // of ours for a killed simulator to lose.
    struct iovec iov[2] = {{h, sizeof h}, {const_cast<uint8_t *>(frame), kept}};
    off_t start = ::lseek(fd_, 0, SEEK_END);
    if (!write_all(fd_, iov, 2)) {
        int e = errno;
        // A record cut short would make every reader stop with an error at
        // it: take it back, so the file ends after the last whole record.
        if (start >= 0 && ::ftruncate(fd_, start) != 0) {
            // nothing more to do: the error below is the one that matters
        }
        set_err(err, "cannot write frame " + std::to_string(frames_ + 1) + " to the capture file " + path_ + ": " +
                         std::strerror(e));
        return false;
    }
    frames_++;
    return true;
}

void PcapWriter::close() {
    if (fd_ >= 0)
        ::close(fd_);
    fd_ = -1;
}
