/* model.c: the reference model of tests/diff/model.h.
 *
 * Each rule below cites where it comes from: RULES.md IDs, or the contract
 * comment in ndk.h that states it. Where neither says, the InfiniBand rule
 * the contract follows is named.
 */
#include "model.h"

#include <string.h>

void model_init(model *m, const uint8_t *buf0, const uint8_t *buf1)
{
    memset(m, 0, sizeof *m);
    memcpy(m->mem[0], buf0, MODEL_BUF);
    memcpy(m->mem[1], buf1, MODEL_BUF);
    memset(m->known, 1, sizeof m->known);
    m->state[0] = m->state[1] = MODEL_RTS;
    for (int w = 0; w < MODEL_MAX_MW; w++)
        m->mw[w].side = -1;   /* created, bound to nothing: its token opens nothing */
    for (int q = 0; q < 4; q++)
        m->arm[q].fired_at = -1;
}

int model_add_fr_slot(model *m, int side)
{
    model_mr *r = &m->mr[m->nmr];
    memset(r, 0, sizeof *r);
    r->side = side;
    r->fr = 1;   /* ndk_create_mr: no tokens until a FAST_REG registers it */
    return (int)m->nmr++;
}

uint32_t model_mr_at(const model_mr *r, uint32_t x)
{
    if (!r || !r->fr)
        return x;
    uint32_t v = r->fbo + x;   /* ndk.h ndk_fast_register: len bytes from fbo in the first page */
    return r->page[v / MODEL_PAGE] * MODEL_PAGE + v % MODEL_PAGE;
}

/* n bytes from byte x of region r's address space, page by page (a plain
 * region, or none, is the buffer itself). */
static void mem_get(const model *m, int side, const model_mr *r, uint32_t x, uint32_t n,
                    uint8_t *b, uint8_t *k)
{
    while (n) {
        uint32_t at = model_mr_at(r, x);
        uint32_t c = r && r->fr ? MODEL_PAGE - (r->fbo + x) % MODEL_PAGE : n;
        if (c > n) c = n;
        memcpy(b, m->mem[side] + at, c);
        memcpy(k, m->known[side] + at, c);
        b += c; k += c; x += c; n -= c;
    }
}

static void mem_put(model *m, int side, const model_mr *r, uint32_t x, uint32_t n,
                    const uint8_t *b, const uint8_t *k)
{
    while (n) {
        uint32_t at = model_mr_at(r, x);
        uint32_t c = r && r->fr ? MODEL_PAGE - (r->fbo + x) % MODEL_PAGE : n;
        if (c > n) c = n;
        if (b) memcpy(m->mem[side] + at, b, c);
        if (k) memcpy(m->known[side] + at, k, c); else memset(m->known[side] + at, 0, c);
        if (b) b += c;
        if (k) k += c;
        x += c; n -= c;
    }
}

static const model_mr *mr_of(const model *m, int i)
{
    return i >= 0 && (unsigned)i < m->nmr ? &m->mr[i] : NULL;
}

int model_add_mr(model *m, int side, uint32_t off, uint32_t len, uint32_t flags)
{
    model_mr *r = &m->mr[m->nmr];
    r->side = side;
    r->off = off;
    r->len = len;
    r->flags = flags;
    r->valid = 1;
    return (int)m->nmr++;
}

void model_take(model *m)
{
    for (int s = 0; s < 2; s++)
        m->rcq[s].n = m->icq[s].n = 0;
}

unsigned model_receives(const model *m, int side)
{
    return m->rq_n[side];
}

static void owe(model_cq *q, ndk_status st, uint32_t type, uint32_t bytes, uintptr_t ctx)
{
    if (q->n < MODEL_MAX_CQE) {
        model_cqe *e = &q->e[q->n++];
        e->status = st;
        e->type = type;
        e->bytes = st == NDK_STATUS_SUCCESS ? bytes : 0;   /* V7 */
        e->ctx = ctx;
        e->solicited = 0;
    }
}

static uint32_t op_type(int kind)
{
    switch (kind) {
    case M_RECV: return NDK_OP_TYPE_RECEIVE;
    case M_WRITE: return NDK_OP_TYPE_WRITE;
    case M_READ: return NDK_OP_TYPE_READ;
    case M_INVAL: return NDK_OP_TYPE_INVALIDATE;
    case M_BIND: return NDK_OP_TYPE_BIND;
    case M_FREG: return NDK_OP_TYPE_FAST_REGISTER;
    default: return NDK_OP_TYPE_SEND;   /* SEND, SEND_INV */
    }
}

/* A QP goes to ERROR (any failed completion does that, ndk.h
 * ndk_get_cq_results): its posted receives are flushed, CANCELLED, in
 * posting order (ndk_disconnect's rule for a QP in error, V10). */
static void to_error(model *m, int side)
{
    if (m->state[side] == MODEL_ERROR)
        return;
    m->state[side] = MODEL_ERROR;
    while (m->rq_n[side]) {
        model_op *r = &m->rq[side][m->rq_head[side]];
        owe(&m->rcq[side], NDK_STATUS_CANCELLED, NDK_OP_TYPE_RECEIVE, 0, r->ctx);
        m->rq_head[side] = (m->rq_head[side] + 1) % MODEL_MAX_RQ;
        m->rq_n[side]--;
    }
}

/* The request completes with a failure: its QP goes to ERROR. */
static void fail(model *m, int side, const model_op *op, ndk_status st)
{
    owe(&m->icq[side], st, op_type(op->kind), 0, op->ctx);
    to_error(m, side);
}

/* A local SGE: a valid region's token, the bytes inside the region, the
 * rights the use needs (ndk.h: ACCESS_VIOLATION for "local token, bounds or
 * rights"; a READ's and a receive's SGEs need LOCAL_WRITE). An empty SGE
 * names no memory and is not checked. side: whose memory the request may
 * use; a region elsewhere is no region of it. */
static int sge_ok(const model *m, int side, const model_sge *g, uint32_t need)
{
    if (g->len == 0)
        return 1;
    if (g->mr < 0 || (unsigned)g->mr >= m->nmr)
        return 0;
    const model_mr *r = &m->mr[g->mr];
    return r->valid && r->side == side && (r->flags & need) == need && g->off >= r->off &&
           (uint64_t)g->off + g->len <= (uint64_t)r->off + r->len;
}

static int sges_ok(const model *m, int side, const model_op *op, uint32_t need)
{
    for (uint32_t i = 0; i < op->nsge; i++)
        if (!sge_ok(m, side, &op->sge[i], need))
            return 0;
    return 1;
}

static uint32_t sge_sum(const model_op *op)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < op->nsge; i++)
        n += op->sge[i].len;
    return n;
}

/* The remote side's check of a WRITE or READ: a valid region of the target
 * (REMOTE_ACCESS_ERROR otherwise: ndk.h ndk_destroy_mr and ndk_invalidate,
 * "REMOTE_ACCESS_ERROR at the peer"), the right, the bytes inside it. A
 * zero-length transfer touches no memory and is not checked (InfiniBand:
 * the R_Key of a zero-length RDMA operation is not validated). */
static int remote_ok(const model *m, int target, const model_op *op, uint32_t len, uint32_t right)
{
    if (len == 0)
        return 1;
    if (op->rmw >= 0) {   /* a window: its own range and rights (ndk.h ndk_bind) */
        const model_mw *w = &m->mw[op->rmw];
        return w->valid && w->side == target && (w->flags & right) == right && op->roff >= w->off &&
               (uint64_t)op->roff + len <= (uint64_t)w->off + w->len;
    }
    if (op->rmr < 0 || (unsigned)op->rmr >= m->nmr)
        return 0;
    const model_mr *r = &m->mr[op->rmr];
    return r->valid && r->side == target && (r->flags & right) == right && op->roff >= r->off &&
           (uint64_t)op->roff + len <= (uint64_t)r->off + r->len;
}

/* A message: its bytes and whether each is known, gathered in SGE order. */
typedef struct {
    uint8_t b[MODEL_BUF];
    uint8_t k[MODEL_BUF];
    uint32_t len;
} message;

static void gather(const model *m, int side, const model_op *op, message *msg)
{
    msg->len = 0;
    if (op->flags & NDK_OP_FLAG_INLINE) {   /* copied at the post (ndk.h INLINE) */
        memcpy(msg->b, op->inline_data, op->inline_len);
        memset(msg->k, 1, op->inline_len);
        msg->len = op->inline_len;
        return;
    }
    for (uint32_t i = 0; i < op->nsge; i++) {
        const model_sge *g = &op->sge[i];
        mem_get(m, side, mr_of(m, g->mr), g->off, g->len, msg->b + msg->len, msg->k + msg->len);
        msg->len += g->len;
    }
}

/* Scatter msg into the SGEs of op (in memory of side), in SGE order. */
static void scatter(model *m, int side, const model_op *op, const message *msg)
{
    uint32_t at = 0;
    for (uint32_t i = 0; i < op->nsge && at < msg->len; i++) {
        const model_sge *g = &op->sge[i];
        uint32_t n = msg->len - at < g->len ? msg->len - at : g->len;
        mem_put(m, side, mr_of(m, g->mr), g->off, n, msg->b + at, msg->k + at);
        at += n;
    }
}

/* A failed receive's buffers: what the NIC put there is not defined. */
static void forget(model *m, int side, const model_op *op)
{
    for (uint32_t i = 0; i < op->nsge; i++)
        mem_put(m, side, mr_of(m, op->sge[i].mr), op->sge[i].off, op->sge[i].len, NULL, NULL);
}

static message msg_buf;   /* one message at a time; the model is single-threaded */

static void do_send(model *m, int from, const model_op *op)
{
    int to = !from;
    if (!(op->flags & NDK_OP_FLAG_INLINE) && !sges_ok(m, from, op, 0)) {
        fail(m, from, op, NDK_STATUS_ACCESS_VIOLATION);
        return;
    }
    if (m->state[to] != MODEL_RTS) {   /* ndk.h: INVALID_DEVICE_STATE, destination QP not ready */
        fail(m, from, op, NDK_STATUS_INVALID_DEVICE_STATE);
        return;
    }
    if (m->rq_n[to] == 0) {   /* V8: refused, retried, then RECEIVER_NOT_READY */
        fail(m, from, op, NDK_STATUS_RECEIVER_NOT_READY);
        return;
    }
    model_op r = m->rq[to][m->rq_head[to]];
    m->rq_head[to] = (m->rq_head[to] + 1) % MODEL_MAX_RQ;
    m->rq_n[to]--;
    gather(m, from, op, &msg_buf);
    if (!sges_ok(m, to, &r, NDK_MR_FLAG_ALLOW_LOCAL_WRITE)) {
        /* the receive fails at the target; the sender learns of it as a
         * remote operational error; both QPs go to ERROR */
        owe(&m->rcq[to], NDK_STATUS_ACCESS_VIOLATION, NDK_OP_TYPE_RECEIVE, 0, r.ctx);
        to_error(m, to);
        fail(m, from, op, NDK_STATUS_REMOTE_OPERATION_ERROR);
        return;
    }
    if (msg_buf.len > sge_sum(&r)) {   /* ndk.h: BUFFER_OVERFLOW, receive buffer too small */
        forget(m, to, &r);
        owe(&m->rcq[to], NDK_STATUS_BUFFER_OVERFLOW, NDK_OP_TYPE_RECEIVE, 0, r.ctx);
        to_error(m, to);
        fail(m, from, op, NDK_STATUS_REMOTE_OPERATION_ERROR);
        return;
    }
    scatter(m, to, &r, &msg_buf);
    uint32_t rtype = NDK_OP_TYPE_RECEIVE;
    if (op->kind == M_SEND_INV) {
        /* ndk.h ndk_send_and_invalidate: the rkey of a valid region at the
         * receiver, else the receive completes INVALID_TOKEN and the send
         * REMOTE_ACCESS_ERROR (the receive's bytes are then not defined) */
        model_mr *t = op->tmr >= 0 && (unsigned)op->tmr < m->nmr ? &m->mr[op->tmr] : NULL;
        model_mw *w = op->tmw >= 0 ? &m->mw[op->tmw] : NULL;
        int ok = w ? w->valid && w->side == to : t && t->valid && t->side == to;
        if (!ok) {
            forget(m, to, &r);
            owe(&m->rcq[to], NDK_STATUS_INVALID_TOKEN, NDK_OP_TYPE_RECEIVE, 0, r.ctx);
            to_error(m, to);
            fail(m, from, op, NDK_STATUS_REMOTE_ACCESS_ERROR);
            return;
        }
        if (w)
            w->valid = 0;   /* the window closes (ndk.h ndk_bind) */
        else
            t->valid = 0;   /* C3 */
        rtype = NDK_OP_TYPE_RECEIVE_AND_INVALIDATE;   /* C4 */
    }
    owe(&m->rcq[to], NDK_STATUS_SUCCESS, rtype, msg_buf.len, r.ctx);
    if (op->flags & NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT)   /* N7: a solicited receive */
        m->rcq[to].e[m->rcq[to].n - 1].solicited = 1;
    if (!(op->flags & NDK_OP_FLAG_SILENT_SUCCESS))
        owe(&m->icq[from], NDK_STATUS_SUCCESS, NDK_OP_TYPE_SEND, msg_buf.len, op->ctx);
}

static void do_write(model *m, int from, const model_op *op)
{
    int to = !from;
    if (!(op->flags & NDK_OP_FLAG_INLINE) && !sges_ok(m, from, op, 0)) {
        fail(m, from, op, NDK_STATUS_ACCESS_VIOLATION);
        return;
    }
    if (m->state[to] != MODEL_RTS) {
        fail(m, from, op, NDK_STATUS_INVALID_DEVICE_STATE);
        return;
    }
    gather(m, from, op, &msg_buf);
    if (!remote_ok(m, to, op, msg_buf.len, NDK_MR_FLAG_ALLOW_REMOTE_WRITE)) {
        fail(m, from, op, NDK_STATUS_REMOTE_ACCESS_ERROR);
        return;
    }
    /* through a window: its range of a plain region, the buffer's bytes */
    mem_put(m, to, op->rmw >= 0 ? NULL : mr_of(m, op->rmr), op->roff, msg_buf.len, msg_buf.b, msg_buf.k);
    if (!(op->flags & NDK_OP_FLAG_SILENT_SUCCESS))
        owe(&m->icq[from], NDK_STATUS_SUCCESS, NDK_OP_TYPE_WRITE, msg_buf.len, op->ctx);
}

static void do_read(model *m, int from, const model_op *op)
{
    int to = !from;
    if (!sges_ok(m, from, op, NDK_MR_FLAG_ALLOW_LOCAL_WRITE)) {
        fail(m, from, op, NDK_STATUS_ACCESS_VIOLATION);
        return;
    }
    if (m->state[to] != MODEL_RTS) {
        fail(m, from, op, NDK_STATUS_INVALID_DEVICE_STATE);
        return;
    }
    uint32_t len = sge_sum(op);
    if (!remote_ok(m, to, op, len, NDK_MR_FLAG_ALLOW_REMOTE_READ)) {
        fail(m, from, op, NDK_STATUS_REMOTE_ACCESS_ERROR);
        return;
    }
    mem_get(m, to, op->rmw >= 0 ? NULL : mr_of(m, op->rmr), op->roff, len, msg_buf.b, msg_buf.k);
    msg_buf.len = len;
    scatter(m, from, op, &msg_buf);
    if (!(op->flags & NDK_OP_FLAG_SILENT_SUCCESS))
        owe(&m->icq[from], NDK_STATUS_SUCCESS, NDK_OP_TYPE_READ, len, op->ctx);
}

/* ndk.h ndk_invalidate: either token of a valid region, or a window's
 * remote token; else INVALID_TOKEN (never valid, or invalidated already:
 * C5). A window closes; its region stays, and a region's invalidation
 * leaves its windows open. */
static void do_inval(model *m, int from, const model_op *op)
{
    if (op->tmw >= 0) {
        model_mw *w = &m->mw[op->tmw];
        if (!w->valid) {
            fail(m, from, op, NDK_STATUS_INVALID_TOKEN);
            return;
        }
        w->valid = 0;
        if (!(op->flags & NDK_OP_FLAG_SILENT_SUCCESS))
            owe(&m->icq[from], NDK_STATUS_SUCCESS, NDK_OP_TYPE_INVALIDATE, 0, op->ctx);
        return;
    }
    model_mr *t = op->tmr >= 0 && (unsigned)op->tmr < m->nmr ? &m->mr[op->tmr] : NULL;
    if (!t || !t->valid) {
        fail(m, from, op, NDK_STATUS_INVALID_TOKEN);
        return;
    }
    t->valid = 0;
    if (!(op->flags & NDK_OP_FLAG_SILENT_SUCCESS))
        owe(&m->icq[from], NDK_STATUS_SUCCESS, NDK_OP_TYPE_INVALIDATE, 0, op->ctx);
}

/* ndk.h ndk_bind: checked against the region as it is when the NIC runs
 * it (valid, the range inside it, LOCAL_WRITE when the window grants
 * REMOTE_WRITE), else ACCESS_VIOLATION; the window then opens that range
 * with those rights under its new token (the old token is dead from then
 * on; after a failed bind the new one opens nothing). */
static void do_bind(model *m, int from, const model_op *op)
{
    model_mw *w = &m->mw[op->bmw];
    const model_mr *r = &m->mr[op->bmr];
    const model_sge *g = &op->sge[0];
    uint32_t rights = 0;
    if (op->bflags & NDK_OP_FLAG_ALLOW_REMOTE_READ)
        rights |= NDK_MR_FLAG_ALLOW_REMOTE_READ;
    if ((op->bflags & NDK_OP_FLAG_ALLOW_REMOTE_WRITE) == NDK_OP_FLAG_ALLOW_REMOTE_WRITE)
        rights |= NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
    int need_lw = (rights & NDK_MR_FLAG_ALLOW_REMOTE_WRITE) == NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
    if (!r->valid || g->off < r->off || (uint64_t)g->off + g->len > (uint64_t)r->off + r->len ||
        (need_lw && !(r->flags & NDK_MR_FLAG_ALLOW_LOCAL_WRITE))) {
        w->valid = 0;
        fail(m, from, op, NDK_STATUS_ACCESS_VIOLATION);
        return;
    }
    w->side = r->side;
    w->off = g->off;
    w->len = g->len;
    w->flags = rights;
    /* a bind posted after this one gave the window a newer token, which
     * opens nothing until that bind executes */
    w->valid = op->bind_no == w->binds;
    if (!(op->flags & NDK_OP_FLAG_SILENT_SUCCESS))
        owe(&m->icq[from], NDK_STATUS_SUCCESS, NDK_OP_TYPE_BIND, 0, op->ctx);
}

/* ndk.h ndk_fast_register: executed in SQ order, it writes the region's
 * entry: len bytes from fbo in the listed pages, with the rights of its
 * NDK_OP_FLAG_ALLOW_* flags (REMOTE_WRITE 0x30 includes LOCAL_WRITE), and
 * completes as NDK_OP_TYPE_FAST_REGISTER. */
static void do_freg(model *m, int from, const model_op *op)
{
    model_mr *r = &m->mr[op->fmr];
    uint32_t rights = 0;
    if (op->bflags & NDK_OP_FLAG_ALLOW_REMOTE_READ)
        rights |= NDK_MR_FLAG_ALLOW_REMOTE_READ;
    if (op->bflags & NDK_OP_FLAG_ALLOW_LOCAL_WRITE)
        rights |= NDK_MR_FLAG_ALLOW_LOCAL_WRITE;
    if ((op->bflags & NDK_OP_FLAG_ALLOW_REMOTE_WRITE) == NDK_OP_FLAG_ALLOW_REMOTE_WRITE)
        rights |= NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
    r->off = 0;
    r->len = op->flen;
    r->fbo = op->ffbo;
    r->flags = rights;
    memcpy(r->page, op->fpage, sizeof r->page);
    r->valid = 1;
    if (!(op->flags & NDK_OP_FLAG_SILENT_SUCCESS))
        owe(&m->icq[from], NDK_STATUS_SUCCESS, NDK_OP_TYPE_FAST_REGISTER, 0, op->ctx);
}

/* What the post of op on side's QP returns (ndk.h "Requests": inline
 * failures in this order: INVALID_PARAMETER, INVALID_DEVICE_STATE). The
 * library knows the QP is disconnected (its own call); an error the NIC met
 * in this step it learns only from a completion polled, after the step. */
static ndk_status post_status(const model *m, int side, const model_op *op)
{
    if (op->kind == M_FREG && op->fbad != FR_OK)
        return NDK_STATUS_INVALID_PARAMETER;   /* ndk.h ndk_fast_register, 0x20 alone: op flags */
    if (m->disc[side])
        return NDK_STATUS_INVALID_DEVICE_STATE;
    if (op->kind == M_FREG && m->mr[op->fmr].reg)
        return NDK_STATUS_INVALID_DEVICE_STATE;   /* ndk.h: an MR already registered */
    return NDK_STATUS_SUCCESS;
}

/* A bind that never executes (cancelled or flushed): the window's newest
 * token, if this bind gave it, opens nothing; the older one stays valid at
 * the NIC, but no later request names it (ndk.h ndk_mw_remote_token: the
 * new token from the moment ndk_bind succeeds). */
static void bind_cancelled(model *m, const model_op *op)
{
    if (op->kind == M_BIND && op->bind_no == m->mw[op->bmw].binds)
        m->mw[op->bmw].valid = 0;
}

static void execute(model *m, int from, const model_op *op)
{
    if (m->state[from] != MODEL_RTS) {   /* flushed: CANCELLED, in SQ order */
        owe(&m->icq[from], NDK_STATUS_CANCELLED, op_type(op->kind), 0, op->ctx);
        bind_cancelled(m, op);
        return;
    }
    switch (op->kind) {
    case M_SEND:
    case M_SEND_INV: do_send(m, from, op); break;
    case M_WRITE: do_write(m, from, op); break;
    case M_READ: do_read(m, from, op); break;
    case M_INVAL: do_inval(m, from, op); break;
    case M_BIND: do_bind(m, from, op); break;
    case M_FREG: do_freg(m, from, op); break;
    default: break;
    }
}

/* The held chain is handed over (D2: DEFER is a hint, the requests run in SQ
 * order as if never held). */
static void ring(model *m, int side)
{
    for (unsigned i = 0; i < m->nheld[side]; i++)
        execute(m, side, &m->held[side][i]);
    m->nheld[side] = 0;
}

/* A token is the value the call was given: diff.c names a region by the
 * token its getter returns at the post (ndk.h ndk_mr_local_token: 0 before
 * the region is registered). An FR slot not yet fast-registered when the
 * op is posted is named by a token of no region, whatever happens to the
 * slot afterwards. */
static void freeze_tokens(const model *m, model_op *op)
{
    for (uint32_t i = 0; i < op->nsge; i++) {
        int r = op->sge[i].mr;
        if (r >= 0 && m->mr[r].fr && !m->mr[r].reg)
            op->sge[i].mr = -1;
    }
    if (op->rmr >= 0 && m->mr[op->rmr].fr && !m->mr[op->rmr].reg)
        op->rmr = -1;
    if (op->tmr >= 0 && m->mr[op->tmr].fr && !m->mr[op->tmr].reg)
        op->tmr = -1;
}

void model_step(model *m, int from, const model_op *recvs, unsigned nrecv,
                const model_op *reqs, unsigned nreq, int last_rings,
                ndk_status *recv_st, ndk_status *req_st)
{
    int to = !from;
    for (unsigned i = 0; i < nrecv; i++) {
        recv_st[i] = m->disc[to] ? NDK_STATUS_INVALID_DEVICE_STATE : NDK_STATUS_SUCCESS;
        if (recv_st[i] != NDK_STATUS_SUCCESS)
            continue;   /* D3: no completion */
        if (m->state[to] != MODEL_RTS) {   /* posted in ERROR: flushed (ndk.h QP state machine) */
            owe(&m->rcq[to], NDK_STATUS_CANCELLED, NDK_OP_TYPE_RECEIVE, 0, recvs[i].ctx);
            continue;
        }
        if (m->rq_n[to] == MODEL_MAX_RQ)
            continue;   /* diff.c posts none then */
        model_op *r = &m->rq[to][(m->rq_head[to] + m->rq_n[to]) % MODEL_MAX_RQ];
        *r = recvs[i];
        freeze_tokens(m, r);
        m->rq_n[to]++;
    }
    for (unsigned i = 0; i < nreq; i++) {
        const model_op *op = &reqs[i];
        req_st[i] = post_status(m, from, op);
        if (req_st[i] != NDK_STATUS_SUCCESS) {
            ring(m, from);   /* D5: the held chain is handed over; D3: none for this one */
            continue;
        }
        if (op->kind == M_FREG)
            m->mr[op->fmr].reg = 1;   /* ndk.h: the entry is taken when the call is made */
        m->held[from][m->nheld[from]] = *op;
        if (op->kind == M_BIND)   /* its token is the window's from here */
            m->held[from][m->nheld[from]].bind_no = ++m->mw[op->bmw].binds;
        if (op->kind != M_FREG && op->kind != M_BIND)
            freeze_tokens(m, &m->held[from][m->nheld[from]]);
        m->nheld[from]++;
        if (!(op->flags & NDK_OP_FLAG_DEFER) || (last_rings && i + 1 == nreq))
            ring(m, from);   /* D8: a request without DEFER rings the chain */
    }
}

/* ndk.h ndk_disconnect: the QP goes to ERROR; every request it still holds,
 * a chain DEFER holds back included, completes CANCELLED in posting order,
 * and so does every posted receive. Requests already executed (diff.c
 * disconnects after the NIC settled) have completed with their own status. */
void model_disconnect(model *m, int side)
{
    m->disc[side] = 1;
    for (unsigned i = 0; i < m->nheld[side]; i++) {
        owe(&m->icq[side], NDK_STATUS_CANCELLED, op_type(m->held[side][i].kind), 0,
            m->held[side][i].ctx);
        bind_cancelled(m, &m->held[side][i]);
    }
    m->nheld[side] = 0;
    to_error(m, side);   /* in ERROR already: its receives were flushed then */
}

/* ------------------------------------------------------------------ arms */

model_cq *model_cq_of(model *m, int q)
{
    return q & 1 ? &m->icq[q >> 1] : &m->rcq[q >> 1];
}

/* N7: ERRORS fires on an error status, ANY on any completion, SOLICITED
 * on a solicited receive and on any error. */
static int matches(const model_cqe *e, uint32_t trig)
{
    int err = e->status != NDK_STATUS_SUCCESS;
    if (trig == NDK_CQ_NOTIFY_ERRORS)
        return err;
    if (trig == NDK_CQ_NOTIFY_SOLICITED)
        return err || e->solicited;
    return 1;
}

/* N6: the table, first (pending) arm by second. */
static uint32_t merge(uint32_t first, uint32_t second)
{
    if (first == NDK_CQ_NOTIFY_ANY || second == NDK_CQ_NOTIFY_ANY)
        return NDK_CQ_NOTIFY_ANY;
    if (first == NDK_CQ_NOTIFY_ERRORS && second == NDK_CQ_NOTIFY_ERRORS)
        return NDK_CQ_NOTIFY_ERRORS;
    return NDK_CQ_NOTIFY_SOLICITED;
}

void model_arm_empty(model *m, int q, uint32_t trig)
{
    model_arm *a = &m->arm[q];
    /* nothing in the CQ: N3 has nothing to satisfy it with; a pending arm
     * merges (N6) */
    a->trig = a->pending ? merge(a->trig, trig) : trig;
    a->pending = a->ever = 1;
}

int model_arm_settled(model *m, int q)
{
    model_arm *a = &m->arm[q];
    const model_cq *c = model_cq_of(m, q);
    a->fired_at = -1;
    if (!a->pending)
        return MODEL_MUST_NOT;   /* N1: only after an arm; V4 */
    for (unsigned i = 0; i < c->n; i++)
        if (matches(&c->e[i], a->trig)) {   /* N2: the first match clears the arm */
            a->pending = 0;
            a->fired_at = (int)i;
            return MODEL_MUST;
        }
    return MODEL_MUST_NOT;   /* N7: no completion of its type */
}

int model_arm_held(model *m, int q, uint32_t trig)
{
    model_arm *a = &m->arm[q];
    const model_cq *c = model_cq_of(m, q);
    uint32_t t = a->pending ? merge(a->trig, trig) : trig;
    if (a->fired_at < 0) {
        /* every completion held arrived after the last callback (those
         * of earlier callbacks were all taken): N3, satisfied at once if
         * one is of the kind the trigger asks for (ndk.h, ndk_arm_cq: N3
         * read with N7), else not */
        for (unsigned i = 0; i < c->n; i++)
            if (matches(&c->e[i], t))
                return MODEL_MUST;
        return MODEL_MUST_NOT;
    }
    /* the arm of this step fired at completion fired_at: those up to it
     * were in the CQ at that callback (N4: qpnic's choice, docs/
     * conformance.md, "not at once"); those after it may have come before
     * or after the callback (timing), so N3 may or may not apply */
    return (unsigned)a->fired_at + 1 < c->n ? MODEL_MAY : MODEL_MUST_NOT;
}

void model_arm_outcome(model *m, int q, uint32_t trig, int fired)
{
    model_arm *a = &m->arm[q];
    uint32_t t = a->pending ? merge(a->trig, trig) : trig;
    a->ever = 1;
    a->pending = !fired;
    a->trig = t;
}
