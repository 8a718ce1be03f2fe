// wire.h: the simulator's end of the NIC's RoCEv2 frame port.
//
// For: taking the frames the core sends (ftx_*), recording each in a pcap
// file when asked, impairing them when asked, delivering each where its
// IPv4 destination says, and handing the frames for this NIC to the core's
// receive side (frx_*) a beat at a time. A frame to this NIC's own address
// comes back to it; one to another simulated NIC goes there as a UDP
// datagram on 127.0.0.1 (join_network: NIC n of the network is 10.0.0.n
// and listens on UDP port base + n; docs/wire.md, "Two NICs"). Not for:
// anything about the frames' contents, which is RTL (rtl/qpnic_roce_tx.v,
// rtl/qpnic_roce_rx.v), nor clocking the core (harness.cpp).
//
// Threads: the receiving thread only fills inbox_ (under inbox_mu_); the
// rest is the harness's thread's.
//
// The queue between the two sides has no bound: the NIC's transmit side is
// never held up by its own receive side, as on a real network, where the
// frames in flight are the network's to hold (or drop).
#ifndef QPNIC_SIM_WIRE_H
#define QPNIC_SIM_WIRE_H

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pcap.h"
#include "qpnic_hw.h"     // QPNIC_NODE_MAC_PREFIX, frame roce's field offsets
#include "shm_proto.h"    // QPNIC_SIM_NET, QPNIC_SIM_LINK_LOCAL

// The nominal clock the capture's timestamps assume: a frame sent in cycle
// c is stamped c * WIRE_NS_PER_CYCLE (50 MHz, the ECP5 builds' clock).
constexpr uint64_t WIRE_NS_PER_CYCLE = 20;

// The simulated network: NIC n (1..254) is QPNIC_SIM_NET | n (10.0.0.n,
// shm_proto.h), its MAC the layout's NODE_MAC_PREFIX | its IPv4 address
// (the host's rule too), and it takes frames on UDP port base + n of
// 127.0.0.1.
constexpr unsigned WIRE_NET_NODES = 254;

// What each frame may suffer on its way, in parts per million.
struct WireImpairment {
    uint32_t drop = 0;     // lost
    uint32_t dup = 0;      // delivered twice, the copy after 0 to 3 later frames
    uint32_t reorder = 0;  // held back until 1 to 3 later frames have gone
    uint32_t corrupt = 0;  // one bit flipped (the receiver's checks drop it)
    bool any() const { return drop || dup || reorder || corrupt; }
};

class WireLoop {
  public:
    ~WireLoop();

    // Record every frame into path (null: no capture). False, with *err
    // set, when the file cannot be created.
    bool open_capture(const char *path, std::string *err);

    // Impairment, from a generator seeded with seed (not 0); a frame held
    // back or a copy goes once its later frames have (or once the wire is
    // otherwise quiet).
    void set_impairment(const WireImpairment &imp, uint64_t seed);

    // Join the network at UDP port base + n for the first n that is free
    // (node = 0), or that n. False, with *err set, when no port could be
    // bound. wake is called (from the receiving thread) when a frame comes.
    bool join_network(unsigned base_port, unsigned node, std::function<void()> wake, std::string *err);
    bool joined() const { return sock_ >= 0; }
    // frames are impaired on purpose (--wire-drop, -dup, -reorder, -corrupt)
    bool impaired() const { return imp_.any(); }
    unsigned node() const { return node_; }
    // Stop the receiving thread (before the wake's target goes away).
    void leave_network();
    // Off the network: this NIC's IPv4 address instead of 10.0.0.n (0: the
    // NIC reaches no other and the host names it by its own means; a NIC
    // that loops its frames to itself needs one, qpnic_sim.cpp)
    void set_standalone_ip(uint32_t ip) { standalone_ip_ = ip; }
    // this NIC's addresses: 10.0.0.n on the network, else the standalone
    // address; the MAC is 02:00 and the IPv4 address
    uint32_t ip() const;
    uint64_t mac() const;

    // One beat the core's transmit side handed over in cycle `cycle`.
    void tx_beat(uint32_t data, unsigned keep, bool last, uint64_t cycle);

    // The beat to show on the receive side this cycle, if any; rx_taken()
    // after the core took it.
    bool rx_beat(uint32_t *data, unsigned *keep, bool *last);
    void rx_taken();

    // No frame half sent, queued, held back, waiting to be duplicated,
    // half delivered, or come from the network and not yet queued.
    bool idle() const {
        return cur_.empty() && queue_.empty() && copies_.empty() &&
               inbox_n_.load(std::memory_order_acquire) == 0;
    }

    uint64_t frames() const { return frames_; }
    uint64_t bytes() const { return bytes_; }
    uint64_t captured() const { return pcap_.frames(); }
    uint64_t duplicated() const { return duplicated_; }
    uint64_t lost() const { return lost_; }
    uint64_t reordered() const { return reordered_; }
    uint64_t corrupted() const { return corrupted_; }
    uint64_t net_sent() const { return net_sent_; }
    uint64_t net_received() const { return net_received_.load(); }
    uint64_t net_unroutable() const { return unroutable_; }
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
    WireImpairment imp_;
    uint64_t lost_ = 0, reordered_ = 0, corrupted_ = 0;
    uint64_t rng_ = 0;
    uint64_t duplicated_ = 0;
    uint64_t next_random();
    bool dice(uint32_t ppm) { return ppm && next_random() % 1000000 < ppm; }
    void sent(std::vector<uint8_t> frame);
    void deliver(std::vector<uint8_t> frame);

    // the network (join_network): the socket, the receiving thread, and
    // the frames it took, which the core's side moves to queue_
    int sock_ = -1;
    unsigned base_ = 0, node_ = 0;
    uint32_t standalone_ip_ = 0;
    std::thread rx_thread_;
    std::atomic<bool> stop_{false};
    std::mutex inbox_mu_;
    std::deque<std::vector<uint8_t>> inbox_;
    std::atomic<uint32_t> inbox_n_{0};
    std::function<void()> wake_;
    uint64_t net_sent_ = 0, unroutable_ = 0;
    std::atomic<uint64_t> net_received_{0};
    void receive_loop();
    PcapWriter pcap_;
    std::string capture_err_;
    uint64_t frames_ = 0, bytes_ = 0;
};

#endif
