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
 * Fast registration: a pair also has MODEL_FR_SLOTS MRs created and not
 * registered; a FAST_REG request of the initiator maps one over pages of its
 * own buffer, in any order. Addresses in such a region count from its
 * start: an SGE's or remote range's `off` is the offset in the region, and
 * the model translates each byte through the region's page list.
 *
 * Posts: model_step also says what each post must return (an inline
 * failure produces no completion, D3, and hands the held chain over, D5).
 * Requests are held while DEFER holds them (ndk.h: a chain is handed over
 * by a request without DEFER, an inline failure, or the QP's ERROR), so a
 * step may leave a chain held that a disconnect then cancels.
 *
 * Arms and notifications (RULES.md N1-N7): per CQ, what an arm made with
 * the CQ empty, and one made with the step's completions still in it, must,
 * must not or may bring (see model_arm_*).
 *
 * Disconnect (ndk.h ndk_disconnect): at a step's end, after it settled.
 *
 * Not modelled (diff.c does not generate them): several QP pairs at once, CQ
 * overruns (N8), windows over fast-registered regions.
 */
#ifndef QPNIC_TEST_MODEL_H
#define QPNIC_TEST_MODEL_H

#include <stdint.h>

#include <qpnic/ndk.h>

#define MODEL_BUF     65536u  /* bytes of each side's buffer */
#define MODEL_MAX_MR  10      /* regions of a pair: 0 and 1 whole buffers, parts, FR slots */
#define MODEL_FR_SLOTS 2      /* MRs of a pair for FAST_REG (the last ones of the table) */
#define MODEL_PAGE    4096u   /* a fast-registered region's page (ndk.h ndk_fast_register) */
#define MODEL_FR_PAGES 17     /* pages a FAST_REG may list (the buffer's 16, one repeated) */
#define MODEL_MAX_SGE 3
#define MODEL_MAX_CQE 256     /* completions one queue may owe in one step */
#define MODEL_MAX_RQ  64      /* receives posted and not yet consumed */
#define MODEL_MAX_MW  2       /* windows of a pair */

/* A region: [off, off + len) of side's buffer, with NDK_MR_FLAG_* rights;
 * or, fast-registered (fr), len bytes from fbo in the pages page[] of side's
 * buffer (page numbers), addressed from 0 (off is 0). */
typedef struct {
    int side;
    uint32_t off, len;
    uint32_t flags;
    int valid;      /* registered and not invalidated */
    int fr;         /* an FR slot: created, registered only by a FAST_REG */
    int reg;        /* FR slot: a FAST_REG of it was accepted at the post */
    uint32_t fbo;
    uint8_t page[MODEL_FR_PAGES];
} model_mr;

/* A window: [off, off + len) of side's buffer with remote rights (NDK_MR_FLAG_*
 * REMOTE_READ / REMOTE_WRITE), while bound and not invalidated. valid says
 * whether the token ndk_mw_remote_token returns now opens it: each bind
 * posted gives a new token at once (binds counts them), which opens the
 * window only once that bind has executed. */
typedef struct {
    int side;
    uint32_t off, len;
    uint32_t flags;
    int valid;
    uint32_t binds;
} model_mw;

/* One SGE of a request: bytes [off, off + len) of region mr's side buffer
 * (off counts from the buffer's start, not the region's), named by mr's
 * local token, or by a token that is no region's when mr < 0. */
typedef struct {
    int mr;
    uint32_t off, len;
} model_sge;

enum model_kind { M_RECV, M_SEND, M_SEND_INV, M_WRITE, M_READ, M_INVAL, M_BIND, M_FREG };

/* What is wrong with a FAST_REG's arguments (ndk.h ndk_fast_register). */
enum model_fr_bad { FR_OK, FR_UNALIGNED, FR_OUTSIDE, FR_LEN0, FR_BEYOND, FR_FBO, FR_RIGHTS };

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
    uint32_t bind_no;            /* BIND: the window's binds posted, this one included */
    uint32_t bflags;             /* BIND, FAST_REG: NDK_OP_FLAG_ALLOW_* rights */
    int fmr;                     /* FAST_REG: the MR (an FR slot) */
    uint32_t fnpages;            /* FAST_REG: page_count given (entries of fpage) */
    uint8_t fpage[MODEL_FR_PAGES]; /* FAST_REG: page numbers in the initiator's buffer */
    uint32_t ffbo, flen;         /* FAST_REG: first_byte_offset, len */
    uint64_t fva;                /* FAST_REG: base_va */
    int fbad;                    /* FAST_REG: enum model_fr_bad, what diff.c spoils */
    uintptr_t ctx;               /* request context */
} model_op;

/* A completion the model expects. */
typedef struct {
    ndk_status status;
    uint32_t type;
    uint32_t bytes;              /* compared only for SUCCESS (V7) */
    uintptr_t ctx;
    int solicited;               /* a receive of a send with SEND_AND_SOLICIT_EVENT (N7) */
} model_cqe;

typedef struct {
    model_cqe e[MODEL_MAX_CQE];
    unsigned n;
} model_cq;

enum { MODEL_RTS, MODEL_ERROR };

/* A CQ's arm as the model knows it. CQs are numbered q = 2 * side + (0 for
 * the receive CQ, 1 for the initiator CQ). */
typedef struct {
    int ever;        /* armed at least once (ndk_wait_cq: INVALID_DEVICE_STATE before) */
    int pending;     /* armed, not yet satisfied */
    uint32_t trig;   /* the pending arm's trigger, merged (N6) */
    int fired_at;    /* completion (of those owed now) that satisfied it, or -1 */
} model_arm;

enum { MODEL_MUST_NOT, MODEL_MUST, MODEL_MAY };

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
    model_op held[2][64];          /* posted, held back by DEFER (not handed over) */
    unsigned nheld[2];
    int disc[2];                   /* disconnected: every post fails INVALID_DEVICE_STATE */
    model_arm arm[4];
} model;

/* A fresh pair: both QPs connected, no receives, buffers as given. */
void model_init(model *m, const uint8_t *buf0, const uint8_t *buf1);
/* Add a region; returns its index. */
int model_add_mr(model *m, int side, uint32_t off, uint32_t len, uint32_t flags);
/* Add an FR slot of side (created, not registered); returns its index. */
int model_add_fr_slot(model *m, int side);
/* One step: receives at side !from, then requests from side `from`.
 * recv_st[i] / req_st[i]: what each post must return. last_rings: the last
 * request rings its chain whatever its DEFER (diff.c drops the flag). */
void model_step(model *m, int from, const model_op *recvs, unsigned nrecv,
                const model_op *reqs, unsigned nreq, int last_rings,
                ndk_status *recv_st, ndk_status *req_st);
/* ndk_disconnect of side's QP, after the NIC settled. */
void model_disconnect(model *m, int side);
/* The buffer offset of byte x of region r's address space. */
uint32_t model_mr_at(const model_mr *r, uint32_t x);

/* Arms. model_arm_empty: an arm made while the CQ holds nothing (all was
 * taken). model_arm_settled: after completions were owed (a step, a
 * disconnect) and the NIC settled: MODEL_MUST (one notification) or
 * MODEL_MUST_NOT; the arm is used up by the first matching completion.
 * model_arm_held: an arm made now, while the CQ still holds what is owed:
 * MUST, MUST_NOT or MAY; model_arm_outcome then says whether it fired. */
void model_arm_empty(model *m, int q, uint32_t trig);
int model_arm_settled(model *m, int q);
int model_arm_held(model *m, int q, uint32_t trig);
void model_arm_outcome(model *m, int q, uint32_t trig, int fired);
model_cq *model_cq_of(model *m, int q);
/* Forget the completions owed so far (after they were compared). */
void model_take(model *m);
/* Whether a send would find a receive: receives posted at side, unconsumed. */
unsigned model_receives(const model *m, int side);

#endif
