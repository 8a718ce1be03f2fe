/* qpnic/ndk.h: the public C API of libqpnic, the host driver of the qpnic NIC.
 *
 * For: programs that use the NIC. Names mirror NDKPI (NdkArmCq becomes
 * ndk_arm_cq) so the NDKPI text and this header read side by side; the
 * contract is ../shared/spec/API.md and the rules cited as D1.., C1..,
 * N1.., V1.. are those of ../shared/spec/RULES.md.
 * Not for: the device's formats (those are generated from spec/layout.toml
 * into host/src/gen/qpnic_hw.h and never leak into this header).
 *
 * Conventions:
 * - Every function that can fail returns an ndk_status; NDK_STATUS_SUCCESS
 *   is 0, every failure is a distinct named value, ndk_status_str names it.
 * - The library never prints and never exits. Everything hangs off an
 *   ndk_adapter, except one process-wide table of the live handles.
 * - Handles are checked: a call given NULL, a destroyed object, a closed
 *   adapter, a freed prepared post, or any pointer that is not a live handle
 *   of the kind it takes (an ndk_cq where an ndk_qp is expected) refuses it
 *   with NDK_STATUS_INVALID_PARAMETER and changes nothing; calls that
 *   return a number return 0 and void calls do nothing. The pointer is
 *   looked up, never read through. Objects of two adapters are never mixed
 *   (INVALID_PARAMETER). Destroying an object while another thread is
 *   still inside a call on it stays the caller's error.
 * - Thread safety: the object calls (create/destroy/connect/register) may be
 *   made from any thread. Initiator requests (ndk_send, ndk_write,
 *   ndk_read) on one QP are serialized by the caller, as in NDKPI, and so are
 *   the receives of one QP; a QP's receives and its initiator requests use
 *   separate queues and may come from two threads. Different QPs may be
 *   posted from different threads. ndk_get_cq_results(_ex) and ndk_arm_cq on one CQ are
 *   serialized by the caller (C1). ndk_wait_cq may be called from any thread.
 */
#ifndef QPNIC_NDK_H
#define QPNIC_NDK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define NDK_API __attribute__((visibility("default")))
#else
#define NDK_API
#endif

/* ------------------------------------------------------------------------
 * Status codes
 * ---------------------------------------------------------------------- */

/* An integer type; 0 is success, every failure below is distinct. The
 * numeric values are this project's (API.md leaves them open). */
typedef int32_t ndk_status;

#define NDK_STATUS_SUCCESS                 0
#define NDK_STATUS_INVALID_PARAMETER       1  /* a bad argument, or a malformed request (BAD_WQE) */
#define NDK_STATUS_INSUFFICIENT_RESOURCES  2  /* queue full, out of QPs/CQs/MRs/tokens/DMA memory */
#define NDK_STATUS_INVALID_DEVICE_STATE    3  /* QP not connected or in error; CQ never armed */
#define NDK_STATUS_ACCESS_VIOLATION        4  /* local protection or token check failed */
#define NDK_STATUS_REMOTE_ACCESS_ERROR     5  /* the peer refused the remote token, bounds or rights */
#define NDK_STATUS_INVALID_TOKEN           6  /* a token that is not valid */
#define NDK_STATUS_BUFFER_OVERFLOW         7  /* receive buffer too small; CQ overrun (N8) */
#define NDK_STATUS_CANCELLED               8  /* flushed: its QP was in error */
#define NDK_STATUS_DEVICE_BUSY             9  /* object still referenced (V10); simulator in use */
#define NDK_STATUS_RECEIVER_NOT_READY      10 /* the peer had no receive posted (V8) */
#define NDK_STATUS_INTERNAL_ERROR          11 /* the device misbehaved or faulted */
#define NDK_STATUS_IO_ERROR                12 /* the link to the device failed (simulator died) */
#define NDK_STATUS_TIMEOUT                 13 /* ndk_wait_cq: nothing arrived in time; a request
                                                 * whose peer never answered (retries run out) */
#define NDK_STATUS_REMOTE_OPERATION_ERROR  14 /* the peer failed the request for a reason of its
                                                 own, e.g. its receive failed (CQE status REM_OP) */

/* The name of a status ("NDK_STATUS_TIMEOUT"); "NDK_STATUS_<unknown>" for a
 * value that is none of the above. Never NULL. */
NDK_API const char *ndk_status_str(ndk_status status);

/* ------------------------------------------------------------------------
 * Constants (values as in ndkpi.h)
 * ---------------------------------------------------------------------- */

/* Request flags (the `flags` argument of ndk_send, ndk_write, ndk_read). */
#define NDK_OP_FLAG_SILENT_SUCCESS          0x00000001u /* no completion if it succeeds (see below) */
#define NDK_OP_FLAG_READ_FENCE              0x00000002u
#define NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT  0x00000004u /* N7: the peer's receive is solicited */
#define NDK_OP_FLAG_ALLOW_REMOTE_READ       0x00000008u /* fast_register / bind only */
#define NDK_OP_FLAG_ALLOW_LOCAL_WRITE       0x00000010u /* fast_register / bind only */
#define NDK_OP_FLAG_ALLOW_REMOTE_WRITE      0x00000030u /* fast_register / bind only */
#define NDK_OP_FLAG_INLINE                  0x00000040u /* send / write: messages <= max_inline */
#define NDK_OP_FLAG_DEFER                   0x00000200u /* D1: hold the doorbell (a hint, D2) */

/* Memory-region flags (the `mr_flags` argument of ndk_register_mr), the
 * values of ndkpi.h: ALLOW_REMOTE_WRITE includes ALLOW_LOCAL_WRITE. */
#define NDK_MR_FLAG_ALLOW_LOCAL_WRITE       0x00000001u
#define NDK_MR_FLAG_ALLOW_REMOTE_READ       0x00000002u
#define NDK_MR_FLAG_ALLOW_REMOTE_WRITE      0x00000005u
#define NDK_MR_FLAG_RDMA_READ_SINK          0x00000008u /* accepted and ignored */

/* Arm triggers (ndk_arm_cq), N7. */
#define NDK_CQ_NOTIFY_ERRORS                0u
#define NDK_CQ_NOTIFY_ANY                   1u
#define NDK_CQ_NOTIFY_SOLICITED             2u

/* Completion types (ndk_result_ex.type). */
#define NDK_OP_TYPE_RECEIVE                 0x0001u
#define NDK_OP_TYPE_SEND                    0x0002u
#define NDK_OP_TYPE_FAST_REGISTER           0x0004u
#define NDK_OP_TYPE_BIND                    0x0008u
#define NDK_OP_TYPE_INVALIDATE              0x0010u
#define NDK_OP_TYPE_READ                    0x0020u
#define NDK_OP_TYPE_WRITE                   0x0040u
#define NDK_OP_TYPE_RECEIVE_AND_INVALIDATE  0x8001u

/* ------------------------------------------------------------------------
 * Types
 * ---------------------------------------------------------------------- */

typedef struct ndk_adapter ndk_adapter;
typedef struct ndk_pd ndk_pd;
typedef struct ndk_cq ndk_cq;
typedef struct ndk_qp ndk_qp;
typedef struct ndk_mr ndk_mr;
typedef struct ndk_mw ndk_mw;

/* What the adapter offers (from the NIC's CAPS registers). */
typedef struct {
    uint32_t max_qp;            /* QPs */
    uint32_t max_cq;            /* CQs */
    uint32_t max_qp_depth;      /* deepest SQ or RQ, in requests */
    uint32_t max_cq_depth;      /* deepest CQ, in completions */
    uint32_t max_sge;           /* SGEs a request may carry */
    uint32_t max_mr;            /* memory regions registered at once */
    uint32_t max_inline;        /* inline bytes a request may carry (164 on qpnic) */
    /* qpnic extras */
    uint32_t fetch_burst_wqes;  /* WQEs the NIC fetches in one DMA read at most (D8) */
    uint64_t max_message_bytes; /* largest message (sum of SGE lengths) */
    uint64_t dma_bytes;         /* size of the memory ndk_alloc_dma hands out from */
    uint32_t max_fr_pages;      /* pages all fast-registered regions map together (the
                                 * NIC's page table: 4096 in the simulator's build) */
    uint32_t layout_version;    /* the NIC's register layout (VERSION: major << 8 | minor) */
} ndk_adapter_info;

/* Hardware counters, read from the NIC (DESIGN.md "Measuring"). */
typedef struct {
    uint64_t doorbells;        /* doorbell writes received (SQ_PI and RQ_PI) */
    uint64_t wqes_fetched;     /* WQEs fetched (SQ and RQ) */
    uint64_t wqe_fetch_reads;  /* DMA read transactions that fetched WQEs */
    uint64_t dma_read_bytes;   /* bytes the NIC read from host memory */
    uint64_t dma_write_bytes;  /* bytes the NIC wrote to host memory */
    uint64_t cqes_written;     /* CQEs written */
    uint64_t notifications;    /* notifications sent to the host */
    uint64_t cycles;           /* NIC clock cycles since reset */
    /* Notification latency, in NIC clock cycles: for each notification, the
     * cycles from the newest CQE written to the notified CQ to the
     * notification leaving the NIC (the firmware's arm policy included, the
     * host's event thread not). Mean = ntf_latency_sum / notifications. */
    uint64_t ntf_latency_sum;  /* sum over all notifications */
    uint64_t ntf_latency_max;  /* the largest one */
    /* Request packets refused unexecuted (NAK): their destination QP did
     * not exist, was not connected, or was a destroyed QP whose table
     * index now serves another (the number's generation differs). */
    uint64_t packets_dropped;
    /* Sends refused for want of a posted receive (RNR NAK) and sent again
     * after the RNR timer (ndk_set_rnr_retry). */
    uint64_t rnr_retries;
    /* The RoCEv2 wire (docs/wire.md); all 0 on a NIC whose packets stay in
     * its loopback. Frames sent; frames received and kept; frames received
     * and dropped whole (not addressed to this NIC, or a bad header or
     * length); frames dropped for a bad ICRC. */
    uint64_t frames_sent;
    uint64_t frames_received;
    uint64_t frames_dropped;
    uint64_t icrc_errors;
    /* Duplicates: requests received again (behind their QP's expected PSN:
     * acknowledged again, never executed again; a READ is answered again)
     * and responses dropped as not their request's (answers to such
     * duplicates, or frames a network delivered twice). */
    uint64_t duplicates;
    /* Retransmissions: a QP went back to its oldest request (and sent it
     * and those after it again) because its answer did not come in time;
     * only on a wire that can lose frames. */
    uint64_t retransmits;
    /* NAKs the NIC took for its own requests (RNR NAK, PSN sequence error,
     * remote access or operation error, invalid request). */
    uint64_t naks;
    /* Payload bytes the wire sent in frames, requests' and responses'
     * alike: the bytes the requests moved, plus every byte sent again
     * (0 on a NIC whose packets stay in its loopback). */
    uint64_t wire_payload_bytes;
} ndk_counters;

/* QP attributes, in/out (V6): the caller sets what it wants, a successful
 * ndk_create_qp writes back what was granted. */
typedef struct {
    uint32_t sq_depth;   /* initiator requests outstanding at once */
    uint32_t rq_depth;   /* receives outstanding at once */
    uint32_t max_sge;    /* SGEs a request may carry (sends and receives) */
    uint32_t max_inline; /* inline bytes; the adapter's max_inline is granted */
} ndk_qp_attr;

/* A QP on some NIC: the node address of its adapter plus its QP number.
 * A node address is the NIC's IPv4 address when it has the RoCEv2 wire
 * (ndk_connect), an opaque value of the adapter otherwise. */
typedef struct {
    uint64_t node;   /* the adapter's address (ndk_qp_address) */
    uint32_t qp_num; /* ndk_qp_num */
} ndk_qp_addr;

/* One scatter/gather entry: `addr` is a virtual address inside a registered
 * region (the pointer as an integer), `token` that region's local token. */
typedef struct {
    uint64_t addr;
    uint32_t length;
    uint32_t token;
} ndk_sge;

/* A CQ's notification callback (N1-N8). cq_status: NDK_STATUS_SUCCESS when
 * the arm was satisfied, NDK_STATUS_BUFFER_OVERFLOW after an overrun (N8),
 * NDK_STATUS_INTERNAL_ERROR after a device fault. */
typedef void (*ndk_cq_notification_fn)(void *fn_ctx, ndk_status cq_status);

typedef struct {
    ndk_status status;            /* of the request */
    uint32_t   bytes_transferred; /* valid only when status is SUCCESS; else 0 (V7) */
    void      *qp_context;        /* the QP's context from ndk_create_qp (V3) */
    void      *request_context;   /* the ctx the request was posted with */
} ndk_result;

typedef struct {
    ndk_status status;
    uint32_t   bytes_transferred;
    void      *qp_context;
    void      *request_context;
    uint32_t   type;            /* NDK_OP_TYPE_* */
    uint32_t   qp_num;          /* V3 */
    uint64_t   type_specific;   /* ReceiveAndInvalidate: the invalidated token (C4) */
} ndk_result_ex;

/* ------------------------------------------------------------------------
 * Opening a device
 * ---------------------------------------------------------------------- */

/* Open an adapter.
 *   uri NULL or "sim": start a private simulator (qpnic-sim) and attach to
 *     it; it ends when the adapter closes. The simulator binary is $QPNIC_SIM
 *     if set, else the one this library was built or installed with; extra
 *     simulator arguments come from $QPNIC_SIM_ARGS, split on spaces (for
 *     example "--wave run.fst").
 *   "sim:PATH": attach to a simulator already serving at PATH (its shared
 *     file); DEVICE_BUSY if another live process is attached.
 *   Anything else (tty:, usb) is not supported yet: INVALID_PARAMETER.
 * A private simulator's shared file (/dev/shm/qpnic-<pid>-<n>) is removed as
 * soon as both sides have mapped it, so nothing is left behind. It gets
 * SIGTERM when the thread that opened the adapter ends (Linux's parent-death
 * signal follows the thread): open an adapter from a thread that outlives
 * it. 
 * Fails with IO_ERROR when the simulator does not start or answer in time,
 * INTERNAL_ERROR when the NIC's ID or VERSION is not what this library
 * knows. On success *out is the adapter and its event thread runs (N5). */
NDK_API ndk_status ndk_open_adapter(const char *uri, ndk_adapter **out);

/* Close an adapter: DEVICE_BUSY, and nothing closed, while any PD, CQ, QP or
 * MR of it lives (V10). Otherwise stops the event thread, detaches, stops a
 * private simulator and frees everything (DMA buffers included). Must not be
 * called from a notification callback.
 *
 * A dead device (the link failed, the simulator exited or was killed):
 * from the first access that finds it gone, every call that needs the
 * device returns IO_ERROR (requests, deferred ones too, create_pd/cq/qp/mr,
 * register, connect, disconnect, counters); every armed CQ gets its
 * callback once with INTERNAL_ERROR, and so does every later arm (N1 still
 * holds: one callback per arm); ndk_wait_cq returns IO_ERROR. The destroy
 * calls still succeed and free what they held, so the program can tear down
 * in order and close. */
NDK_API ndk_status ndk_close_adapter(ndk_adapter *ad);

/* Fill *info from the NIC's capability registers. */
NDK_API ndk_status ndk_query_adapter_info(ndk_adapter *ad, ndk_adapter_info *info);

/* Read the NIC's hardware counters (each 64-bit, read low half first). */
NDK_API ndk_status ndk_query_counters(ndk_adapter *ad, ndk_counters *c);

/* ------------------------------------------------------------------------
 * Memory the NIC can reach
 * ---------------------------------------------------------------------- */

/* Allocate len bytes (> 0) of memory the NIC can reach by DMA, 64-byte
 * aligned, zeroed. NULL when none is left or len is 0. The NIC may touch it
 * only once it is registered (ndk_register_mr). */
NDK_API void *ndk_alloc_dma(ndk_adapter *ad, size_t len);

/* Free memory from ndk_alloc_dma. NULL is ignored; so is a pointer that is
 * not the start of a live allocation. Freeing memory still registered in an
 * MR is the caller's error (the NIC may still reach it). */
NDK_API void ndk_free_dma(ndk_adapter *ad, void *p);

/* The device address of byte p of DMA memory (for page lists); 0 when p is
 * not inside the adapter's DMA memory. */
NDK_API uint64_t ndk_dma_address(ndk_adapter *ad, const void *p);

/* ------------------------------------------------------------------------
 * Objects
 * ---------------------------------------------------------------------- */

/* Create a protection domain. A QP uses only regions of its own PD: the
 * NIC checks the PD on every access, local (ACCESS_VIOLATION) or by a peer
 * (REMOTE_ACCESS_ERROR), and on every Invalidate. PDs are numbered modulo
 * 65,536 at the NIC: of more live PDs than that, two may share a number. */
NDK_API ndk_status ndk_create_pd(ndk_adapter *ad, ndk_pd **out);

/* Destroy a PD: DEVICE_BUSY while a QP or MR uses it (V10). */
NDK_API ndk_status ndk_destroy_pd(ndk_pd *pd);

/* Create a CQ of at least `depth` completions (rounded up to a power of two,
 * at least 2; above max_cq_depth: INVALID_PARAMETER; no CQ left:
 * INSUFFICIENT_RESOURCES). fn (may be NULL) is called with fn_ctx on the
 * library's event thread when an arm is satisfied (N1, N2, N5) or the CQ
 * overruns (N8). A CQ shared by QPs must be sized for all of their requests
 * (V2); on overrun the NIC stops writing to it, the callback gets
 * BUFFER_OVERFLOW, and its QPs refuse later posts (INVALID_DEVICE_STATE). */
NDK_API ndk_status ndk_create_cq(ndk_adapter *ad, uint32_t depth,
                                 ndk_cq_notification_fn fn, void *fn_ctx, ndk_cq **out);

/* The depth ndk_create_cq granted cq (V2): completions it holds at once, at
 * least the depth asked for; 0 for NULL. Size a CQ shared by QPs for all
 * their requests against this figure: beyond it the CQ overruns (N8). */
NDK_API uint32_t ndk_cq_depth(const ndk_cq *cq);

/* Destroy a CQ: DEVICE_BUSY while a QP uses it (V10). Waits for a running
 * callback of this CQ to return, unless called from that callback. A thread
 * blocked in ndk_wait_cq on it returns CANCELLED; the destroy returns after
 * it has left the call. */
NDK_API ndk_status ndk_destroy_cq(ndk_cq *cq);

/* Create a QP in pd with its receive and initiator CQs (may be the same CQ).
 * attr is in/out (V6): sq_depth and rq_depth are rounded up to powers of two
 * (at least 2); a depth above max_qp_depth or a max_sge above the adapter's
 * max_sge fails with INVALID_PARAMETER; on success attr holds what was
 * granted (the rounded depths, max_sge as asked, max_inline the
 * adapter's whole max_inline, a max_inline above it failing INVALID_PARAMETER;
 * max_sge 0 is granted as 0: requests then carry no SGE). receive_cq, initiator_cq
 * NULL or of another adapter: INVALID_PARAMETER. INSUFFICIENT_RESOURCES when
 * no QP is left. The QP starts unconnected:
 * receives may be posted at once (V8), initiator requests after
 * ndk_connect. */
NDK_API ndk_status ndk_create_qp(ndk_pd *pd, ndk_cq *receive_cq, ndk_cq *initiator_cq,
                                 void *qp_context, ndk_qp_attr *attr, ndk_qp **out);

/* Connect qp to the QP at `remote`. Each side connects itself: for a pair
 * A, B call ndk_connect(A, addr(B)) and ndk_connect(B, addr(A)).
 * - remote.node this adapter's (ndk_qp_address(..).node): remote must name
 *   an existing QP of this adapter, reached through the NIC's loopback port
 *   (else INVALID_PARAMETER).
 * - another node: on a NIC with the RoCEv2 wire (every simulated NIC) a
 *   node address is the NIC's IPv4 address (10.0.0.n for NIC n of the
 *   simulator's network), and remote names a QP there: this NIC cannot see
 *   it, so a QP number that is not live there shows later, as requests that
 *   complete in error (REMOTE_OPERATION_ERROR, or TIMEOUT when nothing
 *   answers). A number of generation 0 (no driver hands one out), a node
 *   of 0 or above 32 bits, or a NIC without the wire or on no network
 *   (qpnic-sim --net-port 0): INVALID_PARAMETER. A
 *   NIC names at most NUM_PEERS - 1 (3) other nodes at once, by the QPs
 *   connected to them: a fourth gives INSUFFICIENT_RESOURCES until a QP
 *   to one of the three is destroyed (docs/wire.md, "Two NICs").
 * A QP connects once: connecting a QP that is connected, disconnected or
 * in error fails with INVALID_DEVICE_STATE. */
NDK_API ndk_status ndk_connect(ndk_qp *qp, ndk_qp_addr remote);

/* Receiver not ready (V8), Linux rxe's rule: a send that finds no receive
 * posted at the peer is refused there (RNR NAK: nothing written, no receive
 * completion) and sent again once the NIC's RNR timer has run
 * (RNR_TIMER_CYCLES in docs/layout.md), together with every request of its QP posted after it, which
 * the peer refused too: each executes once, in order. A send is sent again
 * at most `retries` times (counted afresh after every completed request);
 * then it completes RECEIVER_NOT_READY and its QP goes to ERROR (later
 * requests complete CANCELLED). NDK_RNR_RETRY_FOREVER retries without end.
 * FAST_REGISTER, INVALIDATE and BIND requests wait at the NIC until every
 * earlier send, write and read (of any QP) is acknowledged, so they take
 * effect after the send that is retried, never before it, and never after
 * a request of their QP that failed (they complete CANCELLED then).
 * ndk_counters.rnr_retries counts the retries. A new QP retries
 * NDK_RNR_RETRY_DEFAULT times; ndk_set_rnr_retry changes that before
 * ndk_connect: retries above 7 fail with INVALID_PARAMETER, a QP connected
 * (or disconnected, in error) with INVALID_DEVICE_STATE. */
#define NDK_RNR_RETRY_DEFAULT 3
#define NDK_RNR_RETRY_FOREVER 7
NDK_API ndk_status ndk_set_rnr_retry(ndk_qp *qp, uint32_t retries);

/* Disconnect: the QP goes to ERROR (see the state machine below): every
 * request it still holds, a chain DEFER holds back included, and every
 * posted receive complete CANCELLED in posting order; later posts fail with
 * INVALID_DEVICE_STATE (V10: disconnect before destroy). Requests already
 * executed complete with their own status, before the flushed ones. */
NDK_API ndk_status ndk_disconnect(ndk_qp *qp);

/* Destroy a QP. It goes to ERROR first, so every request it holds (a chain
 * DEFER still holds included) and every posted receive completes CANCELLED,
 * in posting order, on its CQs; the call then waits until the NIC has
 * completed or flushed all of them (no DMA for the QP is left when it
 * returns) and resets the QP (the NIC forgets it). Those completions, and
 * any other of the QP still in a CQ, are reported as before the destroy:
 * with the QP's context, the requests' contexts and the QP's number (the
 * library keeps the contexts until they are taken or the CQ is destroyed). DEVICE_BUSY, nothing destroyed, if the NIC does not let
 * go within 10 s. */
NDK_API ndk_status ndk_destroy_qp(ndk_qp *qp);

/* The QP state machine (the NIC's, layout enum qp_state; the driver
 * mirrors it):
 *
 *   ndk_create_qp -> RESET --ndk_connect--> CONNECTED --+--> ERROR
 *                      |                                |
 *                      +--------------------------------+ ndk_disconnect,
 *                        ndk_destroy_qp (flush first)      ndk_destroy_qp,
 *                                                          an error completion
 *                                                          on either side
 * RESET: receives may be posted (V8), initiator requests fail
 * INVALID_DEVICE_STATE. CONNECTED: everything may be posted. ERROR: every
 * request not yet executed and every posted receive completes CANCELLED,
 * in posting order, before any later completion of the QP; later posts fail
 * with INVALID_DEVICE_STATE. A QP does not leave ERROR: destroy it. The NIC
 * refuses any other change (ERROR to CONNECTED, say). */
#define NDK_QP_STATE_RESET     0u
#define NDK_QP_STATE_CONNECTED 1u
#define NDK_QP_STATE_ERROR     2u

/* The QP's state as the NIC holds it now (NDK_QP_STATE_*), read from the
 * NIC: an error the NIC met shows here before its completion is polled.
 * IO_ERROR if the device died. */
NDK_API ndk_status ndk_query_qp_state(ndk_qp *qp, uint32_t *state);

/* The QP's number and address (node + number). A QP number is the NIC's
 * table index plus a generation that changes each time the index is handed
 * out again: a number stays unique to one QP for 65,536 re-creations of its
 * index, so a peer still holding a destroyed QP's number reaches nothing
 * (its packets are refused and counted in packets_dropped) and no
 * completion of the destroyed QP is ever reported as the new one's. */
NDK_API uint32_t ndk_qp_num(const ndk_qp *qp);
NDK_API ndk_qp_addr ndk_qp_address(const ndk_qp *qp);

/* Create an MR in pd, not yet registered (no tokens). */
NDK_API ndk_status ndk_create_mr(ndk_pd *pd, ndk_mr **out);

/* Register [addr, addr+len) with the rights in mr_flags (NDK_MR_FLAG_*).
 * The range must lie inside one ndk_alloc_dma allocation and len be 1..
 * 0xFFFFFFFF, else INVALID_PARAMETER; unknown flag bits: INVALID_PARAMETER;
 * an MR already registered: INVALID_DEVICE_STATE; no MR table entry left:
 * INSUFFICIENT_RESOURCES. On success the MR has a local and a remote token
 * (different values), and the SGE addresses that name it are the virtual
 * addresses of the range (the pointer as an integer).
 * The accepted rights, as ibv_reg_mr has them: any of LOCAL_WRITE and
 * REMOTE_READ, and REMOTE_WRITE (0x5, which includes LOCAL_WRITE) with or
 * without REMOTE_READ. The remote-write bit 0x4 without LOCAL_WRITE 0x1 is
 * INVALID_PARAMETER. RDMA_READ_SINK is accepted and ignored. */
NDK_API ndk_status ndk_register_mr(ndk_mr *mr, void *addr, size_t len, uint32_t mr_flags);

/* The tokens of a registered MR; 0 while it is not registered. */
NDK_API uint32_t ndk_mr_local_token(const ndk_mr *mr);
NDK_API uint32_t ndk_mr_remote_token(const ndk_mr *mr);

/* A memory window in pd: a token table entry of its own, opening nothing
 * until ndk_bind gives it a range of a region. INSUFFICIENT_RESOURCES when
 * the table is full (windows and regions share its max_mr entries). */
NDK_API ndk_status ndk_create_mw(ndk_pd *pd, ndk_mw **out);

/* The window's remote token, for a peer's READ, WRITE or
 * ndk_send_and_invalidate. Each ndk_bind gives a new one (returned from
 * the moment ndk_bind succeeds); the previous one fails at the NIC once the
 * bind has executed. Never 0 for a window. */
NDK_API uint32_t ndk_mw_remote_token(const ndk_mw *mw);

/* Destroy a window: a Bind of it still in an SQ is handed over if DEFER
 * holds it and executed (or flushed) first, since it would write the
 * window's entry again; then its token becomes invalid at the NIC at once
 * and the call waits for the NIC's fence as ndk_destroy_mr does; the
 * region it was bound to may be destroyed from then on. DEVICE_BUSY if
 * either wait takes more than 10 s. */
NDK_API ndk_status ndk_destroy_mw(ndk_mw *mw);

/* Destroy an MR: DEVICE_BUSY while a memory window is bound to it (destroy
 * the windows first: V10; a window stays bound to the last region it was
 * bound to, invalidated or not, until it is bound elsewhere or destroyed).
 * A FastRegister of it still in an SQ is handed over if DEFER holds it and
 * executed (or flushed) first, since it would write the entry again.
 * Then its tokens become invalid at the NIC at once (every later
 * access with them fails: ACCESS_VIOLATION locally, REMOTE_ACCESS_ERROR at
 * the peer), then the call waits for the NIC's fence: a transfer whose
 * check passed before (a WRITE landing in the region, a SEND read from it)
 * finishes first, and completes as it would have. When the call returns the
 * NIC no longer touches the region. DEVICE_BUSY if a wait takes more than
 * 10 s (after the fence's: the tokens stay invalid; the region stays
 * reserved). */
NDK_API ndk_status ndk_destroy_mr(ndk_mr *mr);

/* ------------------------------------------------------------------------
 * Requests
 *
 * Each returns SUCCESS (the request will complete exactly once, D4) or a
 * failure, and then produces no completion (D3). Inline failures, checked in
 * this order: INVALID_PARAMETER (qp NULL; sgl NULL with nsge > 0; nsge above
 * the QP's granted max_sge; a flag the request does not take; SGE lengths
 * summing above max_message_bytes; INLINE above max_inline);
 * INVALID_DEVICE_STATE (initiator requests: QP not connected; any request:
 * QP in error, disconnected, or one of its CQs overran);
 * INSUFFICIENT_RESOURCES (the queue is full: its slots free as their
 * completions are retrieved).
 *
 * READ_FENCE: the request starts at the NIC only once no READ is
 * outstanding there (of any QP of the adapter: a conservative fence), so it
 * sees in its buffers what the earlier READs brought.
 *
 * SILENT_SUCCESS: a request that succeeds produces no completion; one that
 * fails completes as ever (and, like any failure, puts the QP in ERROR, so
 * the requests after it complete CANCELLED). Its SQ slot is retired all the
 * same: by the next completion of the QP taken from the CQ (completions
 * are in SQ order), or, when the SQ looks full, by the library asking the
 * NIC how many requests it has completed (register SQ_CI) and retiring the
 * silent ones among them. A destroyed QP's silent successes are simply
 * never reported.
 *
 * Deferral (D1-D8): a request with NDK_OP_FLAG_DEFER is written to the SQ but
 * its doorbell is held; the next request without DEFER rings once for the
 * whole chain (D8). DEFER is a hint (D2): a held chain is also handed over
 * when the SQ fills up, and before an initiator call on the QP returns any
 * inline failure (D5), so no chain is ever stranded. There is no other
 * bound. Receives never take DEFER and never ring the SQ.
 * ---------------------------------------------------------------------- */

/* Post a receive (V8: may be posted before connecting). Takes no flags and
 * is always handed over at once. */
NDK_API ndk_status ndk_receive(ndk_qp *qp, void *ctx, const ndk_sge *sgl, uint32_t nsge);

/* Send the gathered SGEs to the peer's next receive. flags: SILENT_SUCCESS,
 * READ_FENCE, SEND_AND_SOLICIT_EVENT, INLINE, DEFER.
 * INLINE (also for ndk_send_and_invalidate and ndk_write, and their
 * prepared forms): the SGEs' bytes, at most max_inline (164) in all, are
 * copied into the SQ by the call itself, so the buffers may be reused as
 * soon as it returns and need not be registered (their tokens are not
 * looked at; their addresses are this process's pointers). The request
 * takes one SQ slot for up to 44 bytes and one more for each further 60
 * (three at most); the NIC reads the bytes from the SQ. Above max_inline:
 * INVALID_PARAMETER.
 * Receiver not ready (V8): a send that finds no receive posted at the peer
 * writes nothing there and is sent again after the RNR timer, up to the
 * QP's RNR retries; then it completes RECEIVER_NOT_READY and its QP goes
 * to ERROR (ndk_set_rnr_retry). Post receives first. */
NDK_API ndk_status ndk_send(ndk_qp *qp, void *ctx, const ndk_sge *sgl, uint32_t nsge,
                            uint32_t flags);

/* A send that also invalidates remote_token at the receiver once its receive
 * has completed successfully: the receiver gets a RECEIVE_AND_INVALIDATE
 * completion (type 0x8001 in ndk_get_cq_results_ex, with the token in
 * type_specific; a plain RECEIVE to ndk_get_cq_results, C2-C4), and the
 * token is invalid from then on, whether or not the receiver ever asks
 * (C3). remote_token must be the rkey of a valid region at the receiver;
 * otherwise the receive completes INVALID_TOKEN and this send
 * REMOTE_ACCESS_ERROR. flags: as ndk_send. */
NDK_API ndk_status ndk_send_and_invalidate(ndk_qp *qp, void *ctx, const ndk_sge *sgl, uint32_t nsge,
                                           uint32_t flags, uint32_t remote_token);

/* Invalidate a token of this adapter: either token of a registered region
 * (the whole region becomes unusable through both; a later access fails
 * ACCESS_VIOLATION locally or REMOTE_ACCESS_ERROR at a peer), or a memory
 * window's remote token (the window closes; its region stays). Executed in
 * SQ order, when the NIC reaches it and every earlier send, write and read
 * (of any QP) is acknowledged; completes as NDK_OP_TYPE_INVALIDATE,
 * SUCCESS, or INVALID_TOKEN when the token is not valid (never was, or
 * was invalidated already: C5), which like any failure puts the QP in
 * ERROR. The region stays registered to the library: ndk_destroy_mr still
 * ends it. Takes no SGE. flags: SILENT_SUCCESS, READ_FENCE, DEFER. Only
 * an invalidate of a region whose DMA has finished is fenced the way
 * ndk_destroy_mr is: one made while transfers on the region are in flight
 * lets those finish. */
NDK_API ndk_status ndk_invalidate(ndk_qp *qp, void *ctx, uint32_t token, uint32_t flags);

/* Fast-register mr (created, not registered, in qp's PD) over the pages of
 * page_list (device addresses from ndk_dma_address, pages of 4096 bytes):
 * the region is len bytes from first_byte_offset in the first page, and its
 * SGE/remote addresses start at base_va + first_byte_offset. The NIC writes
 * the region's token table entry in SQ order (requests after it on the QP
 * may use the tokens); it completes as NDK_OP_TYPE_FAST_REGISTER. Rights in
 * flags (NDK_OP_FLAG_ALLOW_*: REMOTE_WRITE is 0x30 and includes
 * LOCAL_WRITE; its bit 0x20 alone is INVALID_PARAMETER), with
 * SILENT_SUCCESS, READ_FENCE, DEFER.
 * The pages may lie anywhere in DMA memory, in any order: the NIC
 * translates every access to the region through its page table, one entry
 * per page the region touches (ceil((first_byte_offset + len) / 4096) of
 * them; page_list entries past those are not read). The entries are taken
 * from the table when the call is made and given back by ndk_destroy_mr.
 * INVALID_PARAMETER: a page not 4096-aligned, outside DMA memory, len 0 or
 * beyond the pages, first_byte_offset >= 4096, an MR of another PD or
 * adapter; INSUFFICIENT_RESOURCES: no run of that many free entries in the
 * table (info.max_fr_pages in all); an MR already registered:
 * INVALID_DEVICE_STATE. An inline failure hands over the held chain first
 * (D5) and produces no completion (D3). */
NDK_API ndk_status ndk_fast_register(ndk_qp *qp, void *ctx, ndk_mr *mr, uint32_t page_count,
                                     const uint64_t *page_list, uint32_t first_byte_offset,
                                     size_t len, uint64_t base_va, uint32_t flags);

/* Bind mw to [va, va+len) of mr (both in qp's PD; va an SGE address of the
 * region) with the remote rights in flags (NDK_OP_FLAG_ALLOW_REMOTE_READ,
 * NDK_OP_FLAG_ALLOW_REMOTE_WRITE; LOCAL_WRITE alone grants nothing), with
 * SILENT_SUCCESS, READ_FENCE, DEFER. The window gets a new remote token
 * (ndk_mw_remote_token) at once; the NIC executes the bind in SQ order:
 * it checks the range against the region as it is then (valid, its lkey,
 * the range inside it, LOCAL_WRITE when the window grants REMOTE_WRITE)
 * and writes the window's own token table entry, translated through the
 * region; completes as NDK_OP_TYPE_BIND, SUCCESS or ACCESS_VIOLATION (the
 * region was invalidated before the bind ran; the QP goes to ERROR, as
 * after any failure). Requests after it on the QP, and a peer's requests
 * once it completed, may use the token. A window admits remote requests
 * only (READ, WRITE, and ndk_send_and_invalidate or ndk_invalidate of its
 * token), never an SGE. The window's entry does not follow its region: an
 * invalidate of the region leaves the window open until the window itself
 * is invalidated, bound again or destroyed. Inline failures (the held
 * chain handed over first, D5; no completion, D3): INVALID_PARAMETER for
 * an MR or MW of another PD or adapter, unknown flags (or REMOTE_WRITE's
 * bit 0x20 without LOCAL_WRITE's 0x10), len 0 or a range
 * not inside the region; INVALID_DEVICE_STATE for an unregistered MR;
 * ACCESS_VIOLATION for REMOTE_WRITE on a region without LOCAL_WRITE. */
NDK_API ndk_status ndk_bind(ndk_qp *qp, void *ctx, ndk_mr *mr, ndk_mw *mw, uint64_t va, size_t len,
                            uint32_t flags);

/* Prepared posts (V1): a request checked and encoded once, then posted many
 * times with the same buffers and descriptor; each ndk_post_prepared costs
 * only the QP's state and room checks and a 64-byte copy into the ring.
 * ndk_prepare_* checks what ndk_send / ndk_write / ndk_read check inline
 * and fails the same way (nothing is posted). ndk_post_prepared behaves as
 * the plain call would (DEFER, D5, completions with ctx). ndk_free_prepared
 * frees it and tells the status of its last post (SUCCESS if never posted).
 * A QP with live prepared posts cannot be destroyed: DEVICE_BUSY (V10). */
typedef struct ndk_prepared ndk_prepared;
NDK_API ndk_status ndk_prepare_send(ndk_qp *qp, const ndk_sge *sgl, uint32_t nsge, uint32_t flags,
                                    ndk_prepared **out);
NDK_API ndk_status ndk_prepare_write(ndk_qp *qp, const ndk_sge *sgl, uint32_t nsge,
                                     uint64_t remote_addr, uint32_t remote_token, uint32_t flags,
                                     ndk_prepared **out);
NDK_API ndk_status ndk_prepare_read(ndk_qp *qp, const ndk_sge *sgl, uint32_t nsge,
                                    uint64_t remote_addr, uint32_t remote_token, uint32_t flags,
                                    ndk_prepared **out);
NDK_API ndk_status ndk_post_prepared(ndk_prepared *pp, void *ctx);
NDK_API ndk_status ndk_free_prepared(ndk_prepared *pp, ndk_status *last_status);

/* RDMA read [remote_addr, +sum of SGE lengths) under remote_token into the
 * SGEs (which need LOCAL_WRITE). flags: SILENT_SUCCESS, READ_FENCE, DEFER. */
NDK_API ndk_status ndk_read(ndk_qp *qp, void *ctx, const ndk_sge *sgl, uint32_t nsge,
                            uint64_t remote_addr, uint32_t remote_token, uint32_t flags);

/* RDMA write the gathered SGEs to remote_addr under remote_token. flags:
 * SILENT_SUCCESS, READ_FENCE, INLINE, DEFER. */
NDK_API ndk_status ndk_write(ndk_qp *qp, void *ctx, const ndk_sge *sgl, uint32_t nsge,
                             uint64_t remote_addr, uint32_t remote_token, uint32_t flags);

/* ------------------------------------------------------------------------
 * Completions and notification
 * ---------------------------------------------------------------------- */

/* Take up to n completions from cq into out[]; returns how many (0: none
 * waiting). Polling, no system call unless a completion was taken (then one
 * register write tells the NIC how far the CQ was read). A completion's
 * status maps the NIC's: SUCCESS; BUFFER_OVERFLOW (receive buffer too small
 * or message too long); ACCESS_VIOLATION (local token, bounds or rights);
 * REMOTE_ACCESS_ERROR; RECEIVER_NOT_READY (V8); CANCELLED (flushed);
 * INVALID_PARAMETER (malformed request); REMOTE_OPERATION_ERROR;
 * INVALID_DEVICE_STATE (destination QP not ready). Any status but SUCCESS
 * puts its QP in error: later posts fail with INVALID_DEVICE_STATE.
 * bytes_transferred is 0 unless SUCCESS (V7). A ReceiveAndInvalidate is
 * returned here as a receive (C2). Calls on one CQ are serialized by the
 * caller (C1); a callback may call this on its own CQ. */
NDK_API uint32_t ndk_get_cq_results(ndk_cq *cq, ndk_result *out, uint32_t n);

/* As ndk_get_cq_results, plus type, qp_num and type_specific (C4: the
 * invalidated token of a RECEIVE_AND_INVALIDATE). */
NDK_API uint32_t ndk_get_cq_results_ex(ndk_cq *cq, ndk_result_ex *out, uint32_t n);

/* Arm cq for one notification (N1) on `trigger` (NDK_CQ_NOTIFY_*, N7).
 * Arming again before it fires merges the two (N6, in the NIC's firmware);
 * arming a CQ that holds a completion newer than the last callback fires at
 * once (N3) when that completion is one the trigger asks for (N7: an ERRORS
 * arm is not satisfied by successes, nor a SOLICITED one by an unsolicited
 * receive); completions already there at the last callback do not count
 * (N4, qpnic's choice). A trigger other than the three is ignored (nothing
 * is armed).
 * C1: serialized with ndk_get_cq_results on the same CQ by the caller. */
NDK_API void ndk_arm_cq(ndk_cq *cq, uint32_t trigger);

/* Block (no spinning, V9) until the notification for the CQ's most recent
 * arm has arrived, or timeout_ms passes (< 0: no limit). Returns at once if
 * it already arrived. Returns the notification's status (SUCCESS,
 * BUFFER_OVERFLOW, INTERNAL_ERROR), TIMEOUT, INVALID_DEVICE_STATE if the CQ
 * was never armed, IO_ERROR if the device died (its INTERNAL_ERROR callback
 * may still be running), CANCELLED if ndk_destroy_cq was called on the CQ
 * meanwhile. With a callback, the callback has returned before ndk_wait_cq
 * returns a notification's status. Because arms merge
 * (N6), a notification satisfies every arm made before the library took it
 * from the NIC. */
NDK_API ndk_status ndk_wait_cq(ndk_cq *cq, int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif
