// harness.cpp: clocks qpnic_core and serves its ports from the shared file.
//
// For: the cycle loop of qpnic-sim (see harness.h). One cycle is: drive the
// core's inputs from the harness state, evaluate with clk low (the core's
// outputs then show what it offers this cycle), note which valid/ready
// handshakes fire, raise clk (they complete), and update the harness state.
// Not for: the range check itself (dma_check.cpp) or the file (shm.cpp).
//
// Speed: the loop does no system call and at most one shared-memory load a
// cycle on the common path (mmio_head, and only while the MMIO port is free
// and our cached copy says the ring is empty). Statistics, shutdown and the
// signal flag are looked at every HOUSEKEEPING_CYCLES.
#include "harness.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <signal.h>
#include <unistd.h>

#include "Vqpnic_core.h"
#include "dma_check.h"
#include "qpnic_hw.h" // QPNIC_MAX_DMA_BYTES
#include "verilated.h"
#include "verilated_fst_c.h"

volatile sig_atomic_t g_harness_signal = 0;

namespace {

constexpr uint64_t HOUSEKEEPING_CYCLES = 1024;        // power of two
constexpr uint64_t HOST_CHECK_CYCLES = 1u << 20;      // power of two
constexpr uint32_t IDLE_CYCLES_BEFORE_SLEEP = 64;
constexpr long SLEEP_TIMEOUT_NS = 5 * 1000 * 1000;    // 5 ms
// On a network a frame's wake can fall between our last look and the
// futex wait: it then waits this long at most.
constexpr long NET_SLEEP_TIMEOUT_NS = 1000 * 1000;    // 1 ms
// On a network of simulators, each runs free: a NIC that waits for a
// peer's answer (not idle, no frame sent or taken for WAIT_QUIET_CYCLES;
// work of its own, its loopback's, may go on) would race through its
// RTO_CYCLES while the peer it waits for is off the CPU, and send again on
// a clean network. From then on it steps WAIT_STEP_CYCLES and gives the
// CPU up for up to WAIT_YIELD_NS, or until a frame or MMIO comes: its RTO
// then spans about 0.24 s of wall time, not 0.04 (docs/wire.md, "Two
// simulators"). Counted cycles are unchanged; only wall time stretches.
// Not on an impaired wire: there frames are lost on purpose, each loss
// waits out a timeout, and one would take six times its wall time
// (test_wire took 1m37s with the yield there, 57 s without).
constexpr uint64_t WAIT_QUIET_CYCLES = 4096;
constexpr uint64_t WAIT_STEP_CYCLES = 256;            // power of two
constexpr long WAIT_YIELD_NS = 1000 * 1000;           // 1 ms
constexpr unsigned RESET_CYCLES = 8;
constexpr unsigned MAX_PRINTED_VIOLATIONS = 16;
constexpr unsigned MAX_PRINTED_PROTOCOL_ERRORS = 16;
constexpr uint32_t BAD_READ_VALUE = 0xFFFFFFFFu;      // reply to an unaddressable read
constexpr size_t MAX_OPEN_READS = 16;                 // DMA reads taken and not yet answered

// A DMA read the core asked for and the harness has not finished answering.
struct DmaRead {
    uint64_t addr;        // device address of the next beat
    uint32_t left;        // bytes still to return
    uint32_t tag;         // dmar_req_tag: its beats go back with it
    bool ok;              // passed the checker (else zeros)
    uint64_t ready_cycle; // first cycle its first beat may be shown
};

class Harness {
  public:
    Harness(SimShm *shm, const HarnessConfig &cfg, VerilatedContext *ctx)
        : shm_(shm), hdr_(shm->hdr), cfg_(cfg), core_(new Vqpnic_core(ctx)),
          region_{QPNIC_SHM_DMA_BASE, shm->dma_bytes}, rd_rng_(cfg.dma_reorder_seed) {}

    void open_trace(const char *path); // after ctx->traceEverOn(true)
    void reset();
    StopReason serve();
    void finish();
    uint64_t cycles() const { return cycle_; }
    uint64_t dma_reads() const { return rd_answered_; }
    uint64_t dma_reads_overtaking() const { return rd_overtaking_; }
    const uint64_t *wire_counts() const { return wire_cnt_; }

  private:
    void step();
    void drive_mmio();
    void drive_dma_read();
    void present_mmio_slot();
    void mmio_accepted();
    void mmio_read_reply(uint32_t value);
    void dma_read_begin(uint64_t addr, uint32_t len, uint32_t tag);
    size_t dma_read_pick();
    void dma_read_load_beat();
    void dma_read_beat_taken();
    void dma_write_begin(uint64_t addr, uint32_t len);
    void dma_write_beat(uint32_t data, uint32_t keep, bool last);
    void notification(uint32_t word);
    bool check_dma(uint64_t addr, uint32_t len, bool write);
    void protocol_error(const char *what);
    bool stop_requested(StopReason *why);
    bool host_gone() const;
    bool sleep_until_work(StopReason *why);
    void yield_to_peers();
    void wake_host(qpnic_atomic_u32 *word);

    SimShm *shm_;
    qpnic_shm_hdr *hdr_;
    HarnessConfig cfg_;
    std::unique_ptr<Vqpnic_core> core_;
    std::unique_ptr<VerilatedFstC> trace_;
    DmaRegion region_;
    uint64_t cycle_ = 0;
    uint32_t idle_run_ = 0; // consecutive quiet cycles
    uint64_t quiet_run_ = 0; // consecutive cycles without a frame sent or taken

    // MMIO ring (host -> core)
    uint32_t mmio_head_ = 0;      // last value of hdr->mmio_head we loaded
    uint32_t mmio_tail_ = 0;      // slots taken from the ring
    bool mmio_presenting_ = false;// a slot is on the core's mmio port
    bool mmio_present_write_ = false;
    uint32_t mmio_present_seq_ = 0;
    bool read_outstanding_ = false; // a read was accepted, its rvalid not seen yet
    uint32_t read_seq_ = 0;
    uint32_t doorbell_wait_ = 0;  // cycles left before the next MMIO access

    // DMA read channel: the reads asked for, oldest first; rd_cur_ is the
    // one whose beats are on the port while rd_serving_. Reads of one tag
    // are answered in order; with cfg_.dma_reorder_seed, the next read to
    // answer is the oldest of a tag picked at random among those ready.
    std::deque<DmaRead> rd_open_;
    bool rd_serving_ = false;
    size_t rd_cur_ = 0;
    uint64_t rd_rng_ = 0;
    uint64_t rd_answered_ = 0, rd_overtaking_ = 0;

    // DMA write channel
    bool wr_active_ = false;
    uint64_t wr_addr_ = 0;
    uint32_t wr_left_ = 0;
    bool wr_ok_ = false;

    // notification ring (core -> host)
    uint32_t ntf_head_ = 0;
    uint32_t ntf_tail_ = 0;       // last value of hdr->ntf_tail we loaded

    // the wire (cfg_.wire): its pulses counted, by bit of the core's
    // wire_cnt (sent, kept, dropped: address, header, ICRC)
    uint64_t wire_cnt_[5] = {0, 0, 0, 0, 0};

    unsigned protocol_errors_ = 0;
};

// ---- MMIO ---------------------------------------------------------------

void Harness::present_mmio_slot() {
    const qpnic_mmio_slot &slot = hdr_->mmio[mmio_tail_ % QPNIC_SHM_MMIO_SLOTS];
    uint32_t op = slot.op, addr = slot.addr, data = slot.data, seq = slot.seq;
    bool known_op = op == QPNIC_MMIO_WRITE || op == QPNIC_MMIO_READ;
    if (!known_op || addr > 0xFFFFu) {
        // A host bug: say so, answer a read so that its reader never hangs.
        fprintf(stderr, "qpnic-sim: cycle %llu: bad MMIO slot %u (op %u, addr 0x%x) skipped\n",
                (unsigned long long)cycle_, mmio_tail_, op, addr);
        mmio_tail_++;
        hdr_->mmio_tail.store(mmio_tail_, std::memory_order_release);
        if (op == QPNIC_MMIO_READ) {
            read_seq_ = seq;
            mmio_read_reply(BAD_READ_VALUE);
        }
        return;
    }
    Vqpnic_core &c = *core_;
    c.mmio_valid = 1;
    c.mmio_we = op == QPNIC_MMIO_WRITE;
    c.mmio_addr = (uint16_t)addr;
    c.mmio_wdata = data;
    mmio_presenting_ = true;
    mmio_present_write_ = op == QPNIC_MMIO_WRITE;
    mmio_present_seq_ = seq;
}

void Harness::drive_mmio() {
    if (mmio_presenting_ || read_outstanding_)
        return;
    if (doorbell_wait_) {
        doorbell_wait_--;
        return;
    }
    if (mmio_head_ == mmio_tail_) {
        mmio_head_ = hdr_->mmio_head.load(std::memory_order_acquire);
        if (mmio_head_ == mmio_tail_)
            return;
    }
    present_mmio_slot();
}

void Harness::mmio_accepted() {
    core_->mmio_valid = 0;
    mmio_presenting_ = false;
    mmio_tail_++;
    hdr_->mmio_tail.store(mmio_tail_, std::memory_order_release);
    if (mmio_present_write_) {
        doorbell_wait_ = hdr_->doorbell_delay.load(std::memory_order_relaxed);
    } else {
        read_outstanding_ = true;
        read_seq_ = mmio_present_seq_;
    }
}

void Harness::mmio_read_reply(uint32_t value) {
    read_outstanding_ = false;
    hdr_->rd_data = value; // plain store, published by the release below
    // No futex wake: the protocol has the host poll rd_seq (it sleeps only
    // on ntf_head), so a wake here would be a system call for nobody.
    hdr_->rd_seq.store(read_seq_, std::memory_order_release);
}

// ---- DMA ------------------------------------------------------------------

void Harness::protocol_error(const char *what) {
    // The core broke the port contract of docs/internals.md: an RTL bug.
    if (++protocol_errors_ <= MAX_PRINTED_PROTOCOL_ERRORS)
        fprintf(stderr, "qpnic-sim: cycle %llu: core port protocol error: %s\n",
                (unsigned long long)cycle_, what);
}

bool Harness::check_dma(uint64_t addr, uint32_t len, bool write) {
    uint32_t perm = write ? QPNIC_RANGE_WRITE : QPNIC_RANGE_READ;
    uint32_t hi = hdr_->ranges_hi.load(std::memory_order_acquire);
    if (dma_access_allowed(hdr_->ranges, hi < QPNIC_SHM_RANGES ? hi : QPNIC_SHM_RANGES, region_, addr,
                           len, perm))
        return true;
    uint32_t n = hdr_->violations.load(std::memory_order_relaxed);
    if (n == 0) {
        hdr_->first_violation_write = write;
        hdr_->first_violation_addr = addr;
        hdr_->first_violation_len = len;
    }
    // release: whoever sees the count also sees the first violation's fields
    hdr_->violations.store(n + 1, std::memory_order_release);
    if (n < MAX_PRINTED_VIOLATIONS)
        fprintf(stderr, "qpnic-sim: cycle %llu: DMA %s of %u bytes at 0x%llx outside the host's ranges: not performed%s\n",
                (unsigned long long)cycle_, write ? "write" : "read", len,
                (unsigned long long)addr,
                n + 1 == MAX_PRINTED_VIOLATIONS ? " (further violations counted, not printed)" : "");
    return false;
}

void Harness::dma_read_begin(uint64_t addr, uint32_t len, uint32_t tag) {
    if (len == 0 || len > QPNIC_MAX_DMA_BYTES) {
        protocol_error("DMA read length outside 1..512 (not answered)");
        return;
    }
    rd_open_.push_back(DmaRead{addr, len, tag, check_dma(addr, len, false),
                               cycle_ + 1 + cfg_.dma_latency});
}

// The read to answer next, or rd_open_.size() when none is ready yet.
size_t Harness::dma_read_pick() {
    if (!cfg_.dma_reorder_seed)
        return rd_open_.front().ready_cycle <= cycle_ ? 0 : rd_open_.size();
    // the oldest read of each tag that is ready; one of them at random
    size_t cand[1u << QPNIC_DMA_RD_TAG_BITS];
    unsigned n = 0;
    uint32_t seen = 0;
    for (size_t i = 0; i < rd_open_.size(); i++) {
        uint32_t bit = 1u << rd_open_[i].tag;
        if (seen & bit)
            continue;
        seen |= bit;
        if (rd_open_[i].ready_cycle <= cycle_)
            cand[n++] = i;
    }
    if (n == 0)
        return rd_open_.size();
    rd_rng_ ^= rd_rng_ << 13; // xorshift64
    rd_rng_ ^= rd_rng_ >> 7;
    rd_rng_ ^= rd_rng_ << 17;
    return cand[rd_rng_ % n];
}

void Harness::dma_read_load_beat() {
    const DmaRead &r = rd_open_[rd_cur_];
    uint32_t n = r.left < 4 ? r.left : 4;
    uint32_t data = 0;
    if (r.ok)
        memcpy(&data, shm_->dma + (r.addr - region_.base), n); // little-endian host
    Vqpnic_core &c = *core_;
    c.dmar_rsp_data = data;
    c.dmar_rsp_keep = (uint8_t)((1u << n) - 1);
    c.dmar_rsp_last = r.left <= 4;
    c.dmar_rsp_tag = (uint8_t)r.tag;
}

void Harness::drive_dma_read() {
    Vqpnic_core &c = *core_;
    if (!rd_serving_ && !rd_open_.empty()) {
        rd_cur_ = dma_read_pick();
        if (rd_cur_ < rd_open_.size()) {
            rd_serving_ = true;
            dma_read_load_beat();
        }
    }
    c.dmar_req_ready = rd_open_.size() < MAX_OPEN_READS;
    c.dmar_rsp_valid = rd_serving_;
}

void Harness::dma_read_beat_taken() {
    DmaRead &r = rd_open_[rd_cur_];
    uint32_t n = r.left < 4 ? r.left : 4;
    r.left -= n;
    r.addr += n;
    if (r.left == 0) {
        rd_answered_++;
        rd_overtaking_ += rd_cur_ != 0;
        rd_open_.erase(rd_open_.begin() + (std::ptrdiff_t)rd_cur_);
        rd_serving_ = false;
    } else {
        dma_read_load_beat();
    }
}

void Harness::dma_write_begin(uint64_t addr, uint32_t len) {
    if (len == 0 || len > QPNIC_MAX_DMA_BYTES)
        protocol_error("DMA write length outside 1..512");
    wr_ok_ = check_dma(addr, len, true);
    wr_addr_ = addr;
    wr_left_ = len;
    wr_active_ = true;
}

void Harness::dma_write_beat(uint32_t data, uint32_t keep, bool last) {
    if (keep == 0xF && wr_left_ >= 4) {
        if (wr_ok_)
            memcpy(shm_->dma + (wr_addr_ - region_.base), &data, 4);
        wr_addr_ += 4;
        wr_left_ -= 4;
    } else {
        for (unsigned lane = 0; lane < 4; lane++) {
            if (!(keep >> lane & 1))
                continue;
            if (wr_left_ == 0) {
                protocol_error("DMA write data beyond the request's length (dropped)");
                break;
            }
            if (wr_ok_)
                shm_->dma[wr_addr_ - region_.base] = (uint8_t)(data >> (8 * lane));
            wr_addr_++;
            wr_left_--;
        }
    }
    if (last) {
        if (wr_left_ != 0)
            protocol_error("DMA write 'last' before the request's length");
        wr_active_ = false;
    }
}

// ---- notifications --------------------------------------------------------

void Harness::wake_host(qpnic_atomic_u32 *word) {
    // seq_cst pairs with the host's "host_sleeping = 1; re-check; futex_wait".
    if (hdr_->host_sleeping.load(std::memory_order_seq_cst))
        shm_futex_wake(word);
}

void Harness::notification(uint32_t word) {
    hdr_->ntf[ntf_head_ % QPNIC_SHM_NTF_SLOTS] = word;
    ntf_head_++;
    hdr_->ntf_head.store(ntf_head_, std::memory_order_seq_cst);
    wake_host(&hdr_->ntf_head);
}

// ---- the cycle ------------------------------------------------------------

void Harness::step() {
    Vqpnic_core &c = *core_;
    drive_mmio();
    drive_dma_read();
    c.dmaw_req_ready = !wr_active_;
    c.dmaw_dat_ready = wr_active_;
    if (ntf_head_ - ntf_tail_ >= QPNIC_SHM_NTF_SLOTS)
        ntf_tail_ = hdr_->ntf_tail.load(std::memory_order_acquire);
    c.ntf_ready = ntf_head_ - ntf_tail_ < QPNIC_SHM_NTF_SLOTS;
    WireLoop *wire = cfg_.wire;
    if (wire) {
        uint32_t d = 0;
        unsigned k = 0;
        bool l = false;
        c.ftx_ready = 1;   // the wire holds what it is given
        c.frx_valid = wire->rx_beat(&d, &k, &l);
        c.frx_data = d;
        c.frx_keep = k;
        c.frx_last = l;
    }

    c.clk = 0;
    c.eval();
    if (trace_)
        trace_->dump(cycle_ * 2);

    // What the core offers this cycle, and which handshakes complete at the edge.
    bool mmio_fire = c.mmio_valid && c.mmio_ready;
    bool rvalid = c.mmio_rvalid;
    uint32_t rdata = c.mmio_rdata;
    bool rd_req_fire = c.dmar_req_valid && c.dmar_req_ready;
    uint64_t rd_req_addr = c.dmar_req_addr;
    uint32_t rd_req_len = c.dmar_req_len;
    uint32_t rd_req_tag = c.dmar_req_tag;
    bool rd_rsp_fire = c.dmar_rsp_valid && c.dmar_rsp_ready;
    bool wr_req_fire = c.dmaw_req_valid && c.dmaw_req_ready;
    uint64_t wr_req_addr = c.dmaw_req_addr;
    uint32_t wr_req_len = c.dmaw_req_len;
    bool wr_dat_fire = c.dmaw_dat_valid && c.dmaw_dat_ready;
    uint32_t wr_data = c.dmaw_dat_data, wr_keep = c.dmaw_dat_keep;
    bool wr_last = c.dmaw_dat_last;
    bool ntf_fire = c.ntf_valid && c.ntf_ready;
    uint32_t ntf_word = c.ntf_data;
    bool ftx_fire = c.ftx_valid && c.ftx_ready, frx_fire = c.frx_valid && c.frx_ready;
    uint32_t ftx_data = c.ftx_data, ftx_keep = c.ftx_keep;
    bool ftx_last = c.ftx_last;
    // pulses, each high for one cycle; none while the wire is off (the
    // loopback's cycles, the common case, skip this)
    if (uint32_t pulses = c.wire_cnt)
        for (unsigned b = 0; b < 5; b++)
            wire_cnt_[b] += pulses >> b & 1;
    bool at_rest = c.idle && !c.mmio_valid && !read_outstanding_ && !doorbell_wait_ &&
                   (!wire || wire->idle()) &&
                   !c.dmar_req_valid && rd_open_.empty() &&
                   !c.dmaw_req_valid && !wr_active_ && !c.ntf_valid &&
                   mmio_head_ == mmio_tail_;

    c.clk = 1;
    c.eval();
    if (trace_)
        trace_->dump(cycle_ * 2 + 1);

    if (mmio_fire)
        mmio_accepted();
    if (rvalid) {
        if (read_outstanding_)
            mmio_read_reply(rdata);
        else
            protocol_error("mmio_rvalid without an outstanding read");
    }
    if (rd_rsp_fire)
        dma_read_beat_taken();
    if (rd_req_fire)
        dma_read_begin(rd_req_addr, rd_req_len, rd_req_tag);
    if (wr_dat_fire)
        dma_write_beat(wr_data, wr_keep, wr_last);
    if (wr_req_fire)
        dma_write_begin(wr_req_addr, wr_req_len);
    if (ntf_fire)
        notification(ntf_word);
    if (ftx_fire)
        wire->tx_beat(ftx_data, ftx_keep, ftx_last, cycle_);
    if (frx_fire)
        wire->rx_taken();

    idle_run_ = at_rest ? idle_run_ + 1 : 0;
    quiet_run_ = (ftx_fire || frx_fire) ? 0 : quiet_run_ + 1;
    cycle_++;
}

// A NIC on a network waiting for a peer (see WAIT_QUIET_CYCLES): give the
// CPU up until a frame or MMIO comes, or WAIT_YIELD_NS pass.
void Harness::yield_to_peers() {
    if (hdr_->mmio_head.load(std::memory_order_seq_cst) == mmio_tail_ && cfg_.wire->idle())
        shm_futex_wait(&hdr_->mmio_head, mmio_tail_, WAIT_YIELD_NS);
    mmio_head_ = hdr_->mmio_head.load(std::memory_order_acquire);
}

void Harness::reset() {
    Vqpnic_core &c = *core_;
    c.rst = 1;
    c.mmio_valid = 0;
    c.mmio_we = 0;
    c.mmio_addr = 0;
    c.mmio_wdata = 0;
    c.dmar_req_ready = 0;
    c.dmar_rsp_valid = 0;
    c.dmar_rsp_data = 0;
    c.dmar_rsp_keep = 0;
    c.dmar_rsp_last = 0;
    c.dmar_rsp_tag = 0;
    c.dmaw_req_ready = 0;
    c.dmaw_dat_ready = 0;
    c.ntf_ready = 0;
    c.wire_en = cfg_.wire && cfg_.force_wire;   // (held from before rst ends)
    // the wire's addresses (wire.h); none without a wire (address 0: the
    // NIC reaches no other)
    c.cfg_mac = cfg_.wire ? cfg_.wire->mac() : 0;
    c.cfg_ip = cfg_.wire ? cfg_.wire->ip() : 0;
    c.ftx_ready = 0;
    c.frx_valid = 0;
    for (unsigned i = 0; i < RESET_CYCLES; i++) {
        c.clk = 0;
        c.eval();
        if (trace_)
            trace_->dump(cycle_ * 2);
        c.clk = 1;
        c.eval();
        if (trace_)
            trace_->dump(cycle_ * 2 + 1);
        cycle_++;
    }
    c.rst = 0;
}

// ---- stopping and sleeping ------------------------------------------------

bool Harness::host_gone() const {
    pid_t pid = (pid_t)hdr_->host_pid.load(std::memory_order_relaxed);
    return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

bool Harness::stop_requested(StopReason *why) {
    if (g_harness_signal) {
        *why = StopReason::SIGNAL;
        return true;
    }
    if (hdr_->shutdown.load(std::memory_order_acquire)) {
        *why = StopReason::SHUTDOWN;
        return true;
    }
    return false;
}

// The core is idle and the ring empty: sleep until the host writes the ring,
// or 5 ms pass. Returns true when the simulator should stop.
bool Harness::sleep_until_work(StopReason *why) {
    hdr_->sim_cycles.store(cycle_, std::memory_order_relaxed);
    if (stop_requested(why))
        return true;
    if (host_gone()) {
        *why = StopReason::HOST_GONE;
        return true;
    }
    hdr_->sim_sleeping.store(1, std::memory_order_seq_cst);
    // Re-check after announcing the sleep: the host writes mmio_head, then
    // reads sim_sleeping (both seq_cst), so one of us sees the other.
    // A frame from the network wakes the same futex (wire.h).
    bool net = cfg_.wire && cfg_.wire->joined();
    if (hdr_->mmio_head.load(std::memory_order_seq_cst) == mmio_tail_ &&
        !hdr_->shutdown.load(std::memory_order_seq_cst) && (!net || cfg_.wire->idle()))
        shm_futex_wait(&hdr_->mmio_head, mmio_tail_, net ? NET_SLEEP_TIMEOUT_NS : SLEEP_TIMEOUT_NS);
    hdr_->sim_sleeping.store(0, std::memory_order_relaxed);
    mmio_head_ = hdr_->mmio_head.load(std::memory_order_acquire);
    return false;
}

StopReason Harness::serve() {
    hdr_->sim_state.store(QPNIC_SIM_SERVING, std::memory_order_release);
    const uint64_t max = cfg_.max_cycles ? cfg_.max_cycles : UINT64_MAX;
    StopReason why;
    for (;;) {
        step();
        if ((cycle_ & (HOUSEKEEPING_CYCLES - 1)) == 0) {
            hdr_->sim_cycles.store(cycle_, std::memory_order_relaxed);
            if (stop_requested(&why))
                return why;
            if ((cycle_ & (HOST_CHECK_CYCLES - 1)) == 0 && host_gone())
                return StopReason::HOST_GONE;
        }
        if (idle_run_ >= IDLE_CYCLES_BEFORE_SLEEP && sleep_until_work(&why))
            return why;
        if (quiet_run_ >= WAIT_QUIET_CYCLES && (cycle_ & (WAIT_STEP_CYCLES - 1)) == 0 && idle_run_ == 0 &&
            cfg_.wire && cfg_.wire->joined() && !cfg_.wire->impaired())
            yield_to_peers();
        if (cycle_ >= max)
            return StopReason::MAX_CYCLES;
    }
}

void Harness::open_trace(const char *path) {
    trace_.reset(new VerilatedFstC);
    core_->trace(trace_.get(), 99);
    trace_->open(path);
}

void Harness::finish() {
    core_->final();
    if (trace_) {
        trace_->close();
        trace_.reset();
    }
    hdr_->sim_cycles.store(cycle_, std::memory_order_relaxed);
    hdr_->sim_state.store(QPNIC_SIM_EXITED, std::memory_order_seq_cst);
    // A host asleep on the notification ring must learn that we are gone.
    shm_futex_wake(&hdr_->ntf_head);
    if (protocol_errors_)
        fprintf(stderr, "qpnic-sim: %u core port protocol errors\n", protocol_errors_);
}

} // namespace

const char *stop_reason_str(StopReason r) {
    switch (r) {
    case StopReason::SHUTDOWN: return "host asked for shutdown";
    case StopReason::SIGNAL: return "signal";
    case StopReason::HOST_GONE: return "host process gone";
    case StopReason::MAX_CYCLES: return "--max-cycles reached";
    }
    return "?";
}

void harness_run(SimShm *shm, const HarnessConfig &cfg, int argc, const char **argv,
                 StopReason *why, HarnessStats *stats) {
    std::unique_ptr<VerilatedContext> ctx(new VerilatedContext);
    ctx->commandArgs(argc, argv);
    if (cfg.wave_path)
        ctx->traceEverOn(true); // before the model exists
    Harness h(shm, cfg, ctx.get());
    if (cfg.wave_path)
        h.open_trace(cfg.wave_path);
    auto t0 = std::chrono::steady_clock::now();
    h.reset();
    *why = h.serve();
    stats->cycles = h.cycles();
    stats->dma_reads = h.dma_reads();
    stats->dma_reads_overtaking = h.dma_reads_overtaking();
    const uint64_t *w = h.wire_counts();
    stats->wire_sent = w[0];
    stats->wire_kept = w[1];
    stats->wire_drop_addr = w[2];
    stats->wire_drop_hdr = w[3];
    stats->wire_drop_icrc = w[4];
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    h.finish();
}
