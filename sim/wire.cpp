// wire.cpp: the simulator's end of the NIC's frame port (wire.h).
#include "wire.h"

bool WireLoop::open_capture(const char *path, std::string *err) {
    return path == nullptr || pcap_.open(path, err);
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
    queue_.push_back(std::move(cur_));
    cur_.clear();
}

bool WireLoop::rx_beat(uint32_t *data, unsigned *keep, bool *last) const {
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
