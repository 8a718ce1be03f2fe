// harness.h: the per-cycle carrier of qpnic_core in the simulator.
//
// For: clocking the Verilated core and turning its ports (docs/internals.md,
// "The NIC core's ports") into accesses to the shared file: MMIO ring in,
// DMA against the DMA region (checked), notification ring out; sleeping on a
// futex when the core is idle. Not for: command-line handling or creating the
// file (qpnic_sim.cpp, shm.cpp), nor for any device behaviour (that is RTL).
#ifndef QPNIC_SIM_HARNESS_H
#define QPNIC_SIM_HARNESS_H

#include <cstdint>
#include <csignal>

#include "shm.h"
#include "wire.h"

struct HarnessConfig {
    const char *wave_path = nullptr; // FST file, or null for no trace
    uint32_t dma_latency = 2;        // cycles from a read request to its first beat
    uint64_t dma_reorder_seed = 0;   // 0: DMA reads answered in order; else seeds
                                     // the pick among tags (docs/internals.md)
    uint64_t max_cycles = 0;         // 0: no limit
    WireLoop *wire = nullptr;        // the RoCEv2 wire's other end (frames to
                                     // this NIC and to the network), or null:
                                     // no frame port (the NIC's address 0)
    bool force_wire = false;         // wire_en: every packet through the wire,
                                     // this NIC's own too (qpnic-sim --wire)
};

// Why run() returned.
enum class StopReason { SHUTDOWN, SIGNAL, HOST_GONE, MAX_CYCLES };
const char *stop_reason_str(StopReason r);

// Set by the SIGTERM/SIGINT handler; run() returns soon after.
extern volatile sig_atomic_t g_harness_signal;

struct HarnessStats {
    uint64_t cycles = 0;
    double seconds = 0; // wall time spent in run()
    uint64_t dma_reads = 0;           // DMA reads answered
    uint64_t dma_reads_overtaking = 0;// of them, answered before an older read (--dma-reorder)
    // the wire's counts (qpnic-sim --wire): frames the core sent, frames it
    // kept, frames it dropped: not addressed to it, a bad header, a bad ICRC
    uint64_t wire_sent = 0, wire_kept = 0, wire_drop_addr = 0, wire_drop_hdr = 0, wire_drop_icrc = 0;
};

// Build the model (args: the Verilator plusargs, e.g. "+fw=PATH"), reset it,
// set sim_state = SERVING, and serve until a stop reason, stored in *why.
// On return the trace is closed and sim_state is EXITED.
void harness_run(SimShm *shm, const HarnessConfig &cfg, int argc, const char **argv,
                 StopReason *why, HarnessStats *stats);

#endif
