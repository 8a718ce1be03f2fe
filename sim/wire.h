// wire.h: the simulator's end of the NIC's RoCEv2 frame port.
//
// For: taking the frames the core sends (ftx_*), recording each in a pcap
// file when asked, and handing them to the core's receive side (frx_*) a
// beat at a time. Today the wire goes back to the same NIC (its peer is
// itself: qpnic-sim --wire); a peer simulator on the other end is the next
// step (docs/wire.md). Not for: anything about the frames' contents, which
// is RTL (rtl/qpnic_roce_tx.v, rtl/qpnic_roce_rx.v), nor clocking the core
// (harness.cpp).
//
// The queue between the two sides has no bound: the NIC's transmit side is
// never held up by its own receive side, as on a real network, where the
// frames in flight are the network's to hold (or drop).
#ifndef QPNIC_SIM_WIRE_H
#define QPNIC_SIM_WIRE_H

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "pcap.h"

// The nominal clock the capture's timestamps assume: a frame sent in cycle
// c is stamped c * WIRE_NS_PER_CYCLE (50 MHz, the ECP5 builds' clock).
constexpr uint64_t WIRE_NS_PER_CYCLE = 20;

class WireLoop {
  public:
    // Record every frame into path (null: no capture). False, with *err
    // set, when the file cannot be created.
    bool open_capture(const char *path, std::string *err);

    // Impairment, from a generator seeded with seed (not 0): each frame is
    // lost with probability drop_ppm / 1e6; one that is not is delivered a
    // second time with probability dup_ppm / 1e6, after 0 to 3 later
    // frames (or once the wire is otherwise quiet).
    void set_impairment(uint32_t drop_ppm, uint32_t dup_ppm, uint64_t seed);

    // One beat the core's transmit side handed over in cycle `cycle`.
    void tx_beat(uint32_t data, unsigned keep, bool last, uint64_t cycle);

    // The beat to show on the receive side this cycle, if any; rx_taken()
    // after the core took it.
    bool rx_beat(uint32_t *data, unsigned *keep, bool *last);
    void rx_taken();

    // No frame half sent, queued, waiting to be duplicated or half delivered.
    bool idle() const { return cur_.empty() && queue_.empty() && copies_.empty(); }

    uint64_t frames() const { return frames_; }
    uint64_t bytes() const { return bytes_; }
    uint64_t captured() const { return pcap_.frames(); }
    uint64_t duplicated() const { return duplicated_; }
    uint64_t lost() const { return lost_; }
    // The first capture error, if a write failed ("" otherwise).
    const std::string &capture_error() const { return capture_err_; }

  private:
    std::vector<uint8_t> cur_;                 // the frame being sent
    std::deque<std::vector<uint8_t>> queue_;   // sent, not yet delivered
    size_t rx_at_ = 0;                         // bytes of queue_.front() delivered
    // a copy to deliver once `after` more frames have been queued
    struct Copy {
        std::vector<uint8_t> frame;
        unsigned after;
    };
    std::deque<Copy> copies_;
    uint32_t dup_ppm_ = 0, drop_ppm_ = 0;
    uint64_t lost_ = 0;
    uint64_t rng_ = 0;
    uint64_t duplicated_ = 0;
    uint64_t next_random();
    void enqueue(std::vector<uint8_t> frame);
    PcapWriter pcap_;
    std::string capture_err_;
    uint64_t frames_ = 0, bytes_ = 0;
};

#endif
