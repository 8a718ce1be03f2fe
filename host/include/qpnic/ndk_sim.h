/* qpnic/ndk_sim.h: test-only calls of libqpnic that look into the simulator.
 *
 * For: tests and benchmarks that run on the co-simulated NIC (uri NULL,
 * "sim" or "sim:PATH") and want what only the simulator knows. Not for
 * programs: on any other carrier these fail with INVALID_DEVICE_STATE (or
 * return 0), and nothing here is part of the API contract.
 */
#ifndef QPNIC_NDK_SIM_H
#define QPNIC_NDK_SIM_H

#include "qpnic/ndk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DMA accesses the NIC made outside every range the driver entered (its
 * rings, registered regions); *first_addr is the device address of the
 * first one (0 when none). Either pointer may be NULL. A test asserts 0.
 * The simulator's checker, or the board link's (the host serves DMA). */
NDK_API ndk_status ndk_sim_dma_violations(ndk_adapter *ad, uint32_t *count, uint64_t *first_addr);

/* Make every MMIO write cost `cycles` simulated cycles (a cost model for
 * doorbells; 0 = free). On another carrier only 0 (no added cost) succeeds. */
NDK_API ndk_status ndk_sim_set_doorbell_delay(ndk_adapter *ad, uint32_t cycles);

/* Wait until the NIC has nothing in flight: every register write posted
 * before the call has reached it, and its STATUS register says idle (no
 * MMIO, DMA, event or notification pending, every engine idle, the firmware
 * found no event). TIMEOUT after timeout_ms; IO_ERROR if the device died.
 * Polls the register (a test helper, not a V9 wait). */
NDK_API ndk_status ndk_sim_wait_idle(ndk_adapter *ad, int timeout_ms);

/* Cycles the simulator has run so far (0 when not simulated), as it last
 * published them: every 1,024 cycles while it runs and whenever it goes to
 * sleep, so a reading can lag by up to 1,023 cycles. An exact interval is
 * the NIC's own counter (ndk_query_counters, cycles). */
NDK_API uint64_t ndk_sim_cycles(ndk_adapter *ad);

/* Register writes this library has made to the NIC since the adapter was
 * opened (doorbells, arms, configuration): counted by the library itself,
 * so on every carrier, not only the simulator (0 for a dead handle). */
NDK_API uint64_t ndk_sim_mmio_writes(ndk_adapter *ad);

/* The simulator's process id (0 when not simulated): tests kill it to
 * show what a program sees when its device dies. */
NDK_API int ndk_sim_pid(ndk_adapter *ad);

#ifdef __cplusplus
}
#endif

#endif
