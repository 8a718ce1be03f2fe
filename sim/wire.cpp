// wire.cpp: the simulator's end of the NIC's frame port (wire.h).
#include "wire.h"

bool WireLoop::open_capture(const char *path, std::string *err) {
    return path == nullptr || pcap_.open(path, err);
}

void WireLoop::set_impairment(uint32_t drop_ppm, uint32_t dup_ppm, uint64_t seed) {
    drop_ppm_ = drop_ppm;
    dup_ppm_ = dup_ppm;
    rng_ = seed ? seed : 1;
}

// xorshift64: the impairment's dice, the same for a seed on every host
uint64_t WireLoop::next_random() {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
}

// A frame onto the queue; the copies waiting for it count it, and those
// whose turn it was follow it.
void WireLoop::enqueue(std::vector<uint8_t> frame) {
    queue_.push_back(std::move(frame));
    for (auto it = copies_.begin(); it != copies_.end();) {
        if (it->after == 0) {
            queue_.push_back(std::move(it->frame));
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
    if (drop_ppm_ && next_random() % 1000000 < drop_ppm_) {
        lost_++;   // sent (and captured), never delivered
        cur_.clear();
        return;
    }
    if (dup_ppm_ && next_random() % 1000000 < dup_ppm_) {
        copies_.push_back({cur_, (unsigned)(next_random() % 4)});
        duplicated_++;
    }
    enqueue(std::move(cur_));
    cur_.clear();
}

bool WireLoop::rx_beat(uint32_t *data, unsigned *keep, bool *last) {
    // the wire is quiet: the copies still waiting for later frames come now
    if (queue_.empty() && cur_.empty() && !copies_.empty()) {
        queue_.push_back(std::move(copies_.front().frame));
        copies_.pop_front();
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
