// wire.cpp: the simulator's end of the NIC's frame port (wire.h).
#include "wire.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {
constexpr size_t MAX_FRAME = 65536;            // a datagram's most; frames are ~4.2 KB
constexpr int RCVBUF_BYTES = 8 << 20;          // bursts of frames wait here, not lost
constexpr int POLL_MS = 100;                   // how soon the receiving thread sees stop_
uint32_t frame_ip_dst(const std::vector<uint8_t> &f) {
    const unsigned at = QPNIC_ROCE_IP_DST_OFF;   // 4 bytes, big-endian
    if (f.size() < at + QPNIC_ROCE_IP_DST_BYTES)
        return 0;
    return (uint32_t)f[at] << 24 | (uint32_t)f[at + 1] << 16 | (uint32_t)f[at + 2] << 8 | f[at + 3];
}

sockaddr_in loopback_port(unsigned port) {
    sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    return a;
}
} // namespace

WireLoop::~WireLoop() {
    leave_network();
    if (sock_ >= 0)
        close(sock_);
}

void WireLoop::leave_network() {
    if (rx_thread_.joinable()) {
        stop_.store(true);
        rx_thread_.join();
    }
}

bool WireLoop::open_capture(const char *path, std::string *err) {
    return path == nullptr || pcap_.open(path, err);
}

void WireLoop::set_impairment(const WireImpairment &imp, uint64_t seed) {
    imp_ = imp;
    rng_ = seed ? seed : 1;
}

uint32_t WireLoop::ip() const { return node_ ? QPNIC_SIM_NET | node_ : standalone_ip_; }
uint64_t WireLoop::mac() const { return QPNIC_NODE_MAC_PREFIX | ip(); }

bool WireLoop::join_network(unsigned base_port, unsigned node, std::function<void()> wake,
                            std::string *err) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *err = std::string("cannot open a UDP socket: ") + strerror(errno);
        return false;
    }
    int rcvbuf = RCVBUF_BYTES;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);   // (a smaller one still works)
    unsigned first = node ? node : 1, last = node ? node : WIRE_NET_NODES;
    for (unsigned n = first; n <= last; n++) {
        if (base_port + n > 65535)
            break;
        sockaddr_in a = loopback_port(base_port + n);
        if (bind(fd, (const sockaddr *)&a, sizeof a) == 0) {
            sock_ = fd;
            base_ = base_port;
            node_ = n;
            wake_ = std::move(wake);
            rx_thread_ = std::thread(&WireLoop::receive_loop, this);
            return true;
        }
        if (errno != EADDRINUSE) {
            *err = "cannot bind UDP port " + std::to_string(base_port + n) + " of 127.0.0.1: " + strerror(errno);
            close(fd);
            return false;
        }
    }
    *err = node ? "UDP port " + std::to_string(base_port + node) + " of 127.0.0.1 is taken: node " +
                      std::to_string(node) + " is on the network already"
                : "every UDP port " + std::to_string(base_port + 1) + ".." +
                      std::to_string(base_port + WIRE_NET_NODES) + " of 127.0.0.1 is taken";
    close(fd);
    return false;
}

// The receiving thread: each datagram is a frame for this NIC (the
// receiver checks it); it waits in inbox_ for the core's side.
void WireLoop::receive_loop() {
    std::vector<uint8_t> buf(MAX_FRAME);
    while (!stop_.load()) {
        pollfd p = {sock_, POLLIN, 0};
        if (poll(&p, 1, POLL_MS) <= 0)
            continue;
        ssize_t n = recv(sock_, buf.data(), buf.size(), MSG_DONTWAIT);
        if (n <= 0)
            continue;
        {
            // (counted under the lock: the count never shows a frame the
            // queue does not hold, nor wraps below what it holds)
            std::lock_guard<std::mutex> g(inbox_mu_);
            inbox_.emplace_back(buf.begin(), buf.begin() + n);
            inbox_n_.fetch_add(1, std::memory_order_release);
        }
        net_received_.fetch_add(1);
        if (wake_)
            wake_();
    }
}

// xorshift64: the impairment's dice, the same for a seed on every host
uint64_t WireLoop::next_random() {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
}

// A frame on its way: to this NIC's own queue, or to the NIC its IPv4
// destination names. A frame for no NIC of the network is gone, as on a
// real one (counted).
void WireLoop::deliver(std::vector<uint8_t> frame) {
    uint32_t dst = frame_ip_dst(frame);
    if (sock_ < 0 || dst == ip()) {
        queue_.push_back(std::move(frame));
        return;
    }
    unsigned n = dst & 0xFF;
    if ((dst & 0xFFFFFF00u) != QPNIC_SIM_NET || n == 0 || n > WIRE_NET_NODES) {
        unroutable_++;
        return;
    }
    sockaddr_in a = loopback_port(base_ + n);
    // (a NIC that is not there, or a full socket buffer: the frame is lost,
    // as a network may lose it; the transport sends it again)
    if (sendto(sock_, frame.data(), frame.size(), 0, (const sockaddr *)&a, sizeof a) >= 0)
        net_sent_++;
}

// A frame the core sent, past the impairment: the frames held back that
// waited for it go after it.
void WireLoop::sent(std::vector<uint8_t> frame) {
    deliver(std::move(frame));
    for (auto it = copies_.begin(); it != copies_.end();) {
        if (it->after == 0) {
            deliver(std::move(it->frame));
            it = copies_.erase(it);
        } else {
            it->after--;
            ++it;
        }
    }
}

void WireLoop::tx_beat(uint32_t data, unsigned keep, bool last, uint64_t cycle) {
    // lane 0 first; the keep of a frame's beats is contiguous from lane 0
    for (unsigned l = 0; l < 4; l++)
        if (keep >> l & 1)
            cur_.push_back((uint8_t)(data >> (8 * l)));
    if (!last)
        return;
    frames_++;
    bytes_ += cur_.size();
    if (pcap_.is_open() && capture_err_.empty())
        pcap_.write(cur_.data(), cur_.size(), cycle * WIRE_NS_PER_CYCLE, &capture_err_);
    std::vector<uint8_t> f;
    f.swap(cur_);
    if (dice(imp_.drop)) {
        lost_++;   // sent (and captured), never delivered
        return;
    }
    if (dice(imp_.corrupt)) {
        size_t at = next_random() % f.size();
        f[at] ^= (uint8_t)(1u << (next_random() % 8));
        corrupted_++;
    }
    if (dice(imp_.dup)) {
        copies_.push_back({f, (unsigned)(next_random() % 4)});
        duplicated_++;
    }
    if (dice(imp_.reorder)) {
        copies_.push_back({std::move(f), 1 + (unsigned)(next_random() % 3)});
        reordered_++;
        return;
    }
    sent(std::move(f));
}

bool WireLoop::rx_beat(uint32_t *data, unsigned *keep, bool *last) {
    // the wire is quiet: the frames still waiting for later frames go now
    if (queue_.empty() && cur_.empty() && !copies_.empty()) {
        deliver(std::move(copies_.front().frame));
        copies_.pop_front();
    }
    // frames from the network, in the order they came
    if (queue_.empty() && inbox_n_.load(std::memory_order_acquire) != 0) {
        std::lock_guard<std::mutex> g(inbox_mu_);
        inbox_n_.fetch_sub((uint32_t)inbox_.size(), std::memory_order_release);
        for (auto &f : inbox_)
            queue_.push_back(std::move(f));
        inbox_.clear();
    }
    if (queue_.empty())
        return false;
    const std::vector<uint8_t> &f = queue_.front();
    uint32_t d = 0;
    unsigned k = 0;
    for (unsigned l = 0; l < 4 && rx_at_ + l < f.size(); l++) {
        d |= (uint32_t)f[rx_at_ + l] << (8 * l);
        k |= 1u << l;
    }
    *data = d;
    *keep = k;
    *last = rx_at_ + 4 >= f.size();
    return true;
}

void WireLoop::rx_taken() {
    rx_at_ += 4;
    if (rx_at_ >= queue_.front().size()) {
        queue_.pop_front();
        rx_at_ = 0;
    }
}
