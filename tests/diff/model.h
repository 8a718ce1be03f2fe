/* model.h: a reference model of the NIC's semantics, for differential tests.
 *
 * Written from ../shared/spec/API.md, RULES.md and the contract comments of
 * host/include/qpnic/ndk.h, not from the RTL: it knows what a request must
 * do, not how the NIC does it (no cycles, no rings, no engines). Given the
 * same workload it says which completions each queue must see, in which
 * order, with which status, type, byte count and context, and what host
 * memory must hold afterwards (a byte a failed request may have written is
 * marked unknown rather than guessed).
 *
 * The world it models is the one tests/diff/diff.c builds on the NIC: one
 * adapter, one PD, two connected QPs a (side 0) and b (side 1), each with a
 * receive CQ and an initiator CQ, each with a DMA buffer of MODEL_BUF bytes
 * and memory regions over parts of it. A workload is a list of steps; in a
 * step one side initiates (side `from`) and the other posts receives, which
 * are posted first (so whether a send finds a receive does not depend on
 * timing), then the initiator's requests in order. After a step the NIC is
 * let settle before its completions and memory are compared, so the model
 * may process a step's requests one after another.
 *
 * Memory windows: a pair has MODEL_MAX_MW windows, bound by BIND requests
 * to parts of the initiator's regions, then named by the other side's
 * WRITE, READ, SendAndInvalidate, or by an Invalidate.
 *
 * Not modelled (diff.c does not generate them): fast registration, arms and
 * notifications, disconnects, several QP pairs.
 */
#ifndef QPNIC_TEST_MODEL_H
#define QPNIC_TEST_MODEL_H

#include <stdint.h>

#include <qpnic/ndk.h>

#define MODEL_BUF     65536u  /* bytes of each side's buffer */
#define MODEL_MAX_MR  8       /* regions of a pair: 0 and 1 whole buffers, the rest parts */
#define MODEL_MAX_SGE 3
#define MODEL_MAX_CQE 256     /* completions one queue may owe in one step */
#define MODEL_MAX_RQ  64      /* receives posted and not yet consumed */
#define MODEL_MAX_MW  2       /* windows of a pair */

/* A region: [off, off + len) of side's buffer, with NDK_MR_FLAG_* rights. */
typedef struct {
    int side;
    uint32_t off, len;
    uint32_t flags;
    int valid;      /* registered and not invalidated */
} model_mr;

/* A window: [off, off + len) of side's buffer with remote rights (NDK_MR_FLAG_*
 * REMOTE_READ / REMOTE_WRITE), while bound and not invalidated. */
typedef struct {
    int side;
    uint32_t off, len;
    uint32_t flags;
    int valid;
} model_mw;

/* One SGE of a request: bytes [off, off + len) of region mr's side buffer
 * (off counts from the buffer's start, not the region's), named by mr's
 * local token, or by a token that is no region's when mr < 0. */
typedef struct {
    int mr;
    uint32_t off, len;
} model_sge;

enum model_kind { M_RECV, M_SEND, M_SEND_INV, M_WRITE, M_READ, M_INVAL, M_BIND };

/* One request (or receive). */
typedef struct {
    int kind;
    uint32_t flags;              /* NDK_OP_FLAG_* (DEFER, SILENT_SUCCESS, READ_FENCE, ...) */
    uint32_t nsge;
    model_sge sge[MODEL_MAX_SGE];
    uint8_t inline_data[164];    /* M_SEND / M_WRITE with NDK_OP_FLAG_INLINE: the bytes */
    uint32_t inline_len;
    int rmr;                     /* WRITE/READ: the remote region (-1: a token of none) */
    int rmw;                     /* WRITE/READ: >= 0, the remote window instead of rmr */
    uint32_t roff;               /* WRITE/READ: remote buffer offset */
    int tmr;                     /* INVAL / SEND_INV: the region whose token is named (-1: none) */
    int tmw;                     /* INVAL / SEND_INV: >= 0, the window's token instead of tmr's */
    int tremote;                 /* INVAL: 1 names the remote token, 0 the local one */
    int bmw, bmr;                /* BIND: the window, the region (sge[0]: the range) */
    uint32_t bflags;             /* BIND: NDK_OP_FLAG_ALLOW_* of the window */
    uintptr_t ctx;               /* request context */
} model_op;

/* A completion the model expects. */
typedef struct {
    ndk_status status;
    uint32_t type;
    uint32_t bytes;              /* compared only for SUCCESS (V7) */
    uintptr_t ctx;
} model_cqe;

typedef struct {
    model_cqe e[MODEL_MAX_CQE];
    unsigned n;
} model_cq;

enum { MODEL_RTS, MODEL_ERROR };

typedef struct {
    uint8_t mem[2][MODEL_BUF];
    uint8_t known[2][MODEL_BUF];   /* 0: a failed request may have written it */
    model_mr mr[MODEL_MAX_MR];
    unsigned nmr;
    model_mw mw[MODEL_MAX_MW];
    int state[2];
    model_op rq[2][MODEL_MAX_RQ];  /* receives posted, not consumed */
    unsigned rq_head[2], rq_n[2];
    model_cq rcq[2], icq[2];       /* owed since the last model_take */
} model;

/* A fresh pair: both QPs connected, no receives, buffers as given. */
void model_init(model *m, const uint8_t *buf0, const uint8_t *buf1);
/* Add a region; returns its index. */
int model_add_mr(model *m, int side, uint32_t off, uint32_t len, uint32_t flags);
/* One step: receives at side !from, then requests from side `from`. */
void model_step(model *m, int from, const model_op *recvs, unsigned nrecv,
                const model_op *reqs, unsigned nreq);
/* Forget the completions owed so far (after they were compared). */
void model_take(model *m);
/* Whether a send would find a receive: receives posted at side, unconsumed. */
unsigned model_receives(const model *m, int side);

#endif
