/* diff.c: differential testing of the NIC against the reference model
 * (tests/diff/model.h): random workloads run on both, compared step by step.
 *
 *   qpnic-diff [--ops N] [--seed S] [--max-msg BYTES] [--quiet]
 *   (also QPNIC_DIFF_OPS, QPNIC_SEED)
 *
 * A workload is a sequence of pairs; a pair (two connected QPs with their
 * CQs, buffers filled from the seed and up to eight regions with random
 * ranges and rights) lives until a step leaves one of its QPs in ERROR,
 * then it is destroyed and a new one made (after a disconnect, one step
 * later). Each step: one side posts 0-8 receives, the other side 1-8
 * requests (SEND, SendAndInvalidate, WRITE, READ, Invalidate, Bind of a
 * memory window, FastRegister over a page list; sizes 0 to 64 KiB; DEFER
 * chains rung by the step's last request; SILENT_SUCCESS, READ_FENCE,
 * INLINE, SEND_AND_SOLICIT; now and then SGEs and remote ranges out of
 * bounds, of a region without the right, or naming no region; remote
 * ranges and invalidations through windows; FastRegisters the library
 * must refuse). CQs are armed before the posts and after the step settled;
 * now and then a QP is disconnected at the step's end, with a chain held.
 * After each step the NIC is let settle, and then what each post returned,
 * the notifications of each CQ, every completion of the four CQs (status,
 * type, bytes, context, QP, order) and every byte of both buffers the model
 * knows are compared.
 *
 * On the first difference it prints the seed and the step, then shrinks
 * the failing pair's workload (drops steps and requests while the
 * difference stays) and prints the short reproduction, and exits 1. Not for:
 * what the model leaves out (see model.h).
 */
#include "model.h"

#include <qpnic/ndk.h>
#include <qpnic/ndk_sim.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_STEPS 64   /* steps of one pair kept for the shrinker */
#define MAX_RECV 8
#define MAX_REQ 8

typedef struct {
    int from;
    unsigned nrecv, nreq;
    model_op recv[MAX_RECV];
    model_op req[MAX_REQ];
    int8_t arm_empty[4];   /* per CQ (model.h numbering): a trigger armed before the posts, or -1 */
    int8_t arm_held[4];    /* a trigger armed once the step settled, its completions not taken */
    int disc;              /* the side disconnected at the step's end, or -1 */
    int hold;              /* the last request keeps its DEFER: the chain stays held */
} step;

/* What a pair is made of, and what was done on it: enough to run it again. */
typedef struct {
    uint64_t fill;                 /* seed of the buffers' bytes */
    unsigned nmr;
    model_mr mr[MODEL_MAX_MR];     /* as made (all valid but the FR slots, which are last) */
    unsigned nsteps;
    step steps[MAX_STEPS];
} unit;

/* ------------------------------------------------------------------ random */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}
static uint32_t below(uint32_t n) { return n ? (uint32_t)(rnd() % n) : 0; }
static int chance(unsigned pct) { return below(100) < pct; }

static void fill_bytes(uint8_t *b, uint32_t n, uint64_t seed)
{
    uint64_t x = seed | 1;
    for (uint32_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[i] = (uint8_t)x;
    }
}

/* ------------------------------------------------------------- generation */

/* --max-msg: the largest message drawn (0: no limit). The RoCEv2 wire takes
 * packets of up to 4096 bytes until messages are segmented (docs/wire.md). */
static uint32_t max_msg;

static uint32_t msg_size(void)
{
    unsigned c = below(100);
    uint32_t n;
    if (c < 5) n = 0;
    else if (c < 45) n = 1 + below(64);
    else if (c < 85) n = 65 + below(4032);
    else if (c < 97) n = 4097 + below(12288);
    else n = 16385 + below(MODEL_BUF - 16384 + 1);   /* up to 64 KiB (issue 11): a whole buffer */
    return (max_msg && n > max_msg) ? 1 + below(max_msg) : n;
}

/* A range of n bytes for region r, mostly inside it; sometimes not (a
 * tenth): past its end, or the region lacks what the use needs, which the
 * caller decides by picking r. Offsets stay inside the buffer. */
static uint32_t place(const model_mr *r, uint32_t n, int out_of_bounds)
{
    if (out_of_bounds || n > r->len) {
        /* starting inside, reaching past the region (or the whole buffer) */
        uint32_t start = r->off + below(r->len);
        if ((uint64_t)start + n > MODEL_BUF)
            start = n > MODEL_BUF ? 0 : MODEL_BUF - n;
        return start;
    }
    return r->off + below(r->len - n + 1);
}

/* The regions as the generator sees them: the model's before the step,
 * with the FAST_REGs generated so far in it as if they succeeded. */
typedef struct {
    unsigned n;
    model_mr mr[MODEL_MAX_MR];
} regions;

/* Regions of `side`, preferring those with `need` that hold `size` bytes;
 * plain: no FR slot (a window's region). */
static int pick_mr_of(const regions *v, int side, uint32_t need, uint32_t size, int plain)
{
    int cand[MODEL_MAX_MR], n = 0, any[MODEL_MAX_MR], na = 0;
    for (unsigned i = 0; i < v->n; i++)
        if (v->mr[i].side == side && !(plain && v->mr[i].fr)) {
            any[na++] = (int)i;
            if ((v->mr[i].flags & need) == need && v->mr[i].len >= size &&
                (!v->mr[i].fr || v->mr[i].valid))
                cand[n++] = (int)i;
        }
    if (n && !chance(3))
        return cand[below((uint32_t)n)];
    return na ? any[below((uint32_t)na)] : -1;
}

static int pick_mr(const regions *v, int side, uint32_t need, uint32_t size)
{
    return pick_mr_of(v, side, need, size, 0);
}

/* SGEs for a message of `total` bytes in side's memory. */
static void make_sges(const regions *u, int side, uint32_t total, uint32_t need, model_op *op)
{
    op->nsge = total == 0 && chance(30) ? 0 : 1 + below(MODEL_MAX_SGE);
    uint32_t left = total;
    for (uint32_t i = 0; i < op->nsge; i++) {
        uint32_t n = i + 1 == op->nsge ? left : below(left + 1);
        left -= n;
        model_sge *g = &op->sge[i];
        g->len = n;
        g->mr = chance(1) ? -1 : pick_mr(u, side, need, n);
        const model_mr *r = &u->mr[g->mr < 0 ? (side == 0 ? 0 : 1) : g->mr];
        g->off = place(r, n, chance(2));
    }
}

static uintptr_t next_ctx = 1;

/* A window of `side` (as the model has it before the step) that no Bind of
 * this step moved, or -1. */
static int pick_mw(const model *m, int side, unsigned bound)
{
    int c[MODEL_MAX_MW], n = 0;
    for (int w = 0; w < MODEL_MAX_MW; w++)
        if ((side < 0 || m->mw[w].side == side) && !(bound & (1u << w)))
            c[n++] = w;
    return n ? c[below((uint32_t)n)] : -1;
}

/* The buffer ranges an SGE names: one for a plain region; for a
 * fast-registered one, a piece per page (the bytes inside the region: past
 * it the request fails and touches nothing). Returns how many. */
#define MAX_RANGES (MAX_REQ * MODEL_MAX_SGE * (MODEL_FR_PAGES + 1))
static unsigned sge_ranges(const regions *v, const model_sge *g, uint32_t *lo, uint32_t *hi)
{
    if (!g->len)
        return 0;
    const model_mr *r = g->mr >= 0 ? &v->mr[g->mr] : NULL;
    if (!r || !r->fr) {
        lo[0] = g->off;
        hi[0] = g->off + g->len;
        return 1;
    }
    unsigned n = 0;
    for (uint32_t x = g->off; x < g->off + g->len && x < r->len;) {
        uint32_t c = MODEL_PAGE - (r->fbo + x) % MODEL_PAGE;
        lo[n] = model_mr_at(r, x);
        hi[n] = lo[n] + c;
        n++;
        x += c;
    }
    return n;
}

/* A FAST_REG of one of side's FR slots over pages of its buffer, now and
 * then with arguments the library must refuse (ndk.h ndk_fast_register). */
static void gen_freg(regions *v, int side, model_op *op)
{
    int cand[MODEL_MAX_MR], n = 0, any[MODEL_MAX_MR], na = 0;
    for (unsigned i = 0; i < v->n; i++)
        if (v->mr[i].fr && v->mr[i].side == side) {
            any[na++] = (int)i;
            if (!v->mr[i].reg)
                cand[n++] = (int)i;
        }
    /* a registered slot now and then: INVALID_DEVICE_STATE */
    op->fmr = n && !chance(10) ? cand[below((uint32_t)n)] : any[below((uint32_t)na)];
    op->ffbo = chance(25) ? 0 : below(MODEL_PAGE);
    uint32_t room = 16 * MODEL_PAGE - op->ffbo;
    unsigned c = below(100);
    op->flen = c < 40 ? 1 + below(200) : c < 80 ? 1 + below(3 * MODEL_PAGE) : 1 + below(room);
    uint32_t need = (op->ffbo + op->flen + MODEL_PAGE - 1) / MODEL_PAGE;
    int repeat = chance(10);   /* a page listed twice: the region aliases itself */
    uint8_t perm[16];
    for (unsigned i = 0; i < 16; i++)
        perm[i] = (uint8_t)i;
    for (unsigned i = 15; i > 0; i--) {
        unsigned j = below(i + 1);
        uint8_t t = perm[i]; perm[i] = perm[j]; perm[j] = t;
    }
    op->fnpages = need + (need < MODEL_FR_PAGES && chance(20));   /* entries past those are not read */
    for (unsigned i = 0; i < op->fnpages; i++)
        op->fpage[i] = repeat ? (uint8_t)below(16) : perm[i % 16];
    static const uint32_t rights[] = {
        0, NDK_OP_FLAG_ALLOW_REMOTE_READ, NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
        NDK_OP_FLAG_ALLOW_LOCAL_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ, NDK_OP_FLAG_ALLOW_REMOTE_WRITE,
        NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ,
    };
    op->bflags = rights[below(sizeof rights / sizeof rights[0])];
    op->fva = (rnd() & 0xFFFFFFFFFFull) << 8;   /* any base: addresses are the region's own */
    op->fbad = FR_OK;
    if (chance(10)) {
        op->fbad = 1 + (int)below(FR_RIGHTS);
        switch (op->fbad) {
        case FR_LEN0: op->flen = 0; break;
        case FR_BEYOND: op->fnpages = need - 1; break;
        case FR_FBO: op->ffbo = MODEL_PAGE + below(MODEL_PAGE); break;
        case FR_RIGHTS: op->bflags = 0x20u | (op->bflags & NDK_OP_FLAG_ALLOW_REMOTE_READ); break;
        default: break;   /* FR_UNALIGNED, FR_OUTSIDE: diff.c spoils an entry it reads */
        }
    }
    if (op->fbad == FR_OK && !v->mr[op->fmr].reg) {
        model_mr *r = &v->mr[op->fmr];
        r->reg = r->valid = 1;
        r->off = 0;
        r->len = op->flen;
        r->fbo = op->ffbo;
        memcpy(r->page, op->fpage, sizeof r->page);
        r->flags = (op->bflags & NDK_OP_FLAG_ALLOW_REMOTE_READ ? NDK_MR_FLAG_ALLOW_REMOTE_READ : 0) |
                   (op->bflags & NDK_OP_FLAG_ALLOW_LOCAL_WRITE ? NDK_MR_FLAG_ALLOW_LOCAL_WRITE : 0) |
                   ((op->bflags & NDK_OP_FLAG_ALLOW_REMOTE_WRITE) == NDK_OP_FLAG_ALLOW_REMOTE_WRITE
                        ? NDK_MR_FLAG_ALLOW_REMOTE_WRITE : 0);
    }
}

static void gen_step(const unit *unused, const model *m, step *s)
{
    (void)unused;
    memset(s, 0, sizeof *s);
    static regions view;
    view.n = m->nmr;
    memcpy(view.mr, m->mr, sizeof view.mr);
    const regions *u = &view;
    s->from = (int)below(2);
    s->disc = -1;
    /* after a disconnect the other side, still connected, initiates once */
    for (int d = 0; d < 2; d++)
        if (m->disc[d])
            s->from = !d;
    int to = !s->from;
    unsigned bound = 0;   /* windows a Bind of this step moved: named no more in it */
    s->nreq = 1 + below(MAX_REQ);
    /* the local targets of this step's READs so far: a later request that
     * gathers from them must wait for them (READ_FENCE), else what it reads
     * depends on timing */
    static uint32_t rd_lo[MAX_RANGES], rd_hi[MAX_RANGES];
    uint32_t lo[MODEL_FR_PAGES + 1], hi[MODEL_FR_PAGES + 1];
    unsigned nrd = 0;
    for (unsigned i = 0; i < s->nreq; i++) {
        model_op *op = &s->req[i];
        op->ctx = next_ctx++;
        op->rmr = op->tmr = op->rmw = op->tmw = -1;
        unsigned c = below(100);
        op->kind = c < 31 ? M_SEND : c < 36 ? M_SEND_INV : c < 58 ? M_WRITE : c < 80 ? M_READ
                 : c < 88 ? M_INVAL : c < 94 ? M_BIND : M_FREG;
        if (chance(10)) op->flags |= NDK_OP_FLAG_SILENT_SUCCESS;
        if (chance(5)) op->flags |= NDK_OP_FLAG_READ_FENCE;
        if (i + 1 < s->nreq && chance(50)) op->flags |= NDK_OP_FLAG_DEFER;
        if (op->kind == M_INVAL) {
            /* one of the initiator's own regions, a window (or no token):
             * the invalidate is ordered with the requests of its own QP */
            if (chance(20))
                op->tmw = pick_mw(m, -1, bound);
            if (op->tmw < 0)
                op->tmr = chance(10) ? -1 : pick_mr(u, s->from, 0, 0);
            op->tremote = (int)below(2);
            continue;
        }
        if (op->kind == M_FREG) {
            gen_freg(&view, s->from, op);
            continue;
        }
        if (op->kind == M_BIND) {
            /* a window over a part of one of the initiator's plain regions
             * (its registered range: the library checks that at the post) */
            op->bmw = (int)below(MODEL_MAX_MW);
            bound |= 1u << op->bmw;
            op->bmr = pick_mr_of(u, s->from, 0, 0, 1);
            const model_mr *r = &u->mr[op->bmr];
            op->nsge = 1;
            op->sge[0].mr = op->bmr;
            op->sge[0].off = r->off + below(r->len);
            op->sge[0].len = 1 + below(r->off + r->len - op->sge[0].off);
            int lw = (r->flags & NDK_MR_FLAG_ALLOW_LOCAL_WRITE) != 0;
            unsigned k = lw ? below(3) : 0;
            op->bflags = k == 0 ? NDK_OP_FLAG_ALLOW_REMOTE_READ : k == 1 ? NDK_OP_FLAG_ALLOW_REMOTE_WRITE
                       : NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE;
            continue;
        }
        if ((op->kind == M_SEND || op->kind == M_SEND_INV) && chance(20))
            op->flags |= NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT;
        if (op->kind == M_SEND_INV) {
            if (chance(20))
                op->tmw = pick_mw(m, to, bound);
            if (op->tmw < 0)
                op->tmr = chance(15) ? -1 : pick_mr(u, to, 0, 0);
        }
        uint32_t len = msg_size();
        if (op->kind != M_READ && chance(12)) {
            op->flags |= NDK_OP_FLAG_INLINE;
            op->inline_len = below(165);
            fill_bytes(op->inline_data, op->inline_len, rnd());
            len = op->inline_len;
        } else {
            make_sges(u, s->from, len, op->kind == M_READ ? NDK_MR_FLAG_ALLOW_LOCAL_WRITE : 0, op);
        }
        if (op->kind == M_WRITE || op->kind == M_READ) {
            uint32_t right = op->kind == M_WRITE ? NDK_MR_FLAG_ALLOW_REMOTE_WRITE : NDK_MR_FLAG_ALLOW_REMOTE_READ;
            if (chance(20))
                op->rmw = pick_mw(m, to, bound);
            if (op->rmw >= 0) {   /* through a window: its range as the model has it */
                model_mr wr = { to, m->mw[op->rmw].off, m->mw[op->rmw].len, 0, 1, 0, 0, 0, { 0 } };
                op->roff = place(&wr, len, chance(5));
            } else {
                op->rmr = chance(1) ? -1 : pick_mr(u, to, right, len);
                const model_mr *r = &u->mr[op->rmr < 0 ? (to == 0 ? 0 : 1) : op->rmr];
                op->roff = place(r, len, chance(2));
            }
        }
        /* a gather from memory an earlier READ of the step fills: fence it */
        if (!(op->flags & NDK_OP_FLAG_INLINE) && op->kind != M_READ)
            for (uint32_t g = 0; g < op->nsge; g++) {
                unsigned nr = sge_ranges(u, &op->sge[g], lo, hi);
                for (unsigned r = 0; r < nr; r++)
                    for (unsigned k = 0; k < nrd; k++)
                        if (lo[r] < rd_hi[k] && hi[r] > rd_lo[k])
                            op->flags |= NDK_OP_FLAG_READ_FENCE;
            }
        if (op->flags & NDK_OP_FLAG_READ_FENCE)
            nrd = 0;
        if (op->kind == M_READ)
            for (uint32_t g = 0; g < op->nsge; g++)
                nrd += sge_ranges(u, &op->sge[g], rd_lo + nrd, rd_hi + nrd);
    }
    /* arms: before the posts (the CQs are empty), and after the step
     * settled (its completions still in the CQ) */
    for (int q = 0; q < 4; q++) {
        s->arm_empty[q] = (int8_t)(chance(30) ? (int)below(3) : -1);
        s->arm_held[q] = (int8_t)(chance(15) ? (int)below(3) : -1);
    }
    /* a disconnect now and then, once per pair; of the initiator, with the
     * step's last requests held back by DEFER at times */
    if (!m->disc[0] && !m->disc[1] && chance(4)) {
        s->disc = (int)below(2);
        if (s->disc == s->from && chance(50)) {
            s->hold = 1;
            s->req[s->nreq - 1].flags |= NDK_OP_FLAG_DEFER;
        }
    }
    /* receives, posted before the requests: mostly one for each send (the
     * odd send meets none: RNR), and none once 32 wait */
    unsigned sends = 0;
    for (unsigned i = 0; i < s->nreq; i++)
        sends += s->req[i].kind == M_SEND || s->req[i].kind == M_SEND_INV;
    unsigned have = model_receives(m, to);
    s->nrecv = chance(90) ? (sends > have ? sends - have : 0) + below(2) : below(MAX_RECV + 1);
    if (have > 32)
        s->nrecv = 0;
    if (s->nrecv > MAX_RECV)
        s->nrecv = MAX_RECV;
    for (unsigned i = 0; i < s->nrecv; i++) {
        model_op *r = &s->recv[i];
        r->kind = M_RECV;
        r->ctx = next_ctx++;
        r->rmr = r->tmr = r->rmw = r->tmw = -1;
        /* mostly room for any send but the largest; a tenth small, a
         * few of up to 64 KiB */
        make_sges(u, to, chance(10) ? msg_size() / 4 : chance(3) ? 32768 + below(32769) : 16384 + below(16384),
                  NDK_MR_FLAG_ALLOW_LOCAL_WRITE, r);
    }
}

static void gen_unit_setup(unit *u)
{
    memset(u, 0, sizeof *u);
    u->fill = rnd();
    static const uint32_t rights[] = {
        0, NDK_MR_FLAG_ALLOW_LOCAL_WRITE, NDK_MR_FLAG_ALLOW_REMOTE_READ,
        NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ,
        NDK_MR_FLAG_ALLOW_REMOTE_WRITE, NDK_MR_FLAG_ALLOW_REMOTE_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ,
    };
    const uint32_t all = NDK_MR_FLAG_ALLOW_REMOTE_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ;
    u->mr[0] = (model_mr){ 0, 0, MODEL_BUF, all, 1, 0, 0, 0, { 0 } };
    u->mr[1] = (model_mr){ 1, 0, MODEL_BUF, all, 1, 0, 0, 0, { 0 } };
    u->nmr = 2 + below(MODEL_MAX_MR - MODEL_FR_SLOTS - 1);
    for (unsigned i = 2; i < u->nmr; i++) {
        uint32_t len = 1 + below(MODEL_BUF / 2);
        u->mr[i] = (model_mr){ (int)below(2), below(MODEL_BUF - len + 1), len,
                               rights[below(sizeof rights / sizeof rights[0])], 1, 0, 0, 0, { 0 } };
    }
    for (int k = 0; k < MODEL_FR_SLOTS; k++)   /* one MR per side for FAST_REG */
        u->mr[u->nmr++] = (model_mr){ k & 1, 0, 0, 0, 0, 1, 0, 0, { 0 } };
}

/* ------------------------------------------------------------ on the NIC */

typedef struct {
    ndk_adapter *ad;
    ndk_pd *pd;
    ndk_cq *rcq[2], *icq[2];
    ndk_qp *qp[2];
    uint8_t *raw[2];               /* the allocations */
    uint8_t *buf[2];               /* in them, the buffers, from a device page boundary */
    ndk_mr *mr[MODEL_MAX_MR];
    uint64_t fr_va[MODEL_MAX_MR];  /* a fast-registered region's first address */
    ndk_mw *mw[MODEL_MAX_MW];
} pair;

static ndk_cq *cq_of(const pair *p, int q)
{
    return q & 1 ? p->icq[q >> 1] : p->rcq[q >> 1];
}

static uint64_t dma_bytes;   /* of the adapter (ndk_adapter_info) */

/* Notifications: one counter per CQ of the live pair, bumped by its
 * callback; N5 is checked on the way (never two callbacks at once). */
static atomic_uint cb_count[4], cb_total;
static atomic_int cb_running, cb_overlap, cb_bad_status;
static unsigned cb_seen[4], cb_seen_total;
static uint64_t ntf_seen;   /* the NIC's notifications counter at the last sync */

static void on_notify(void *ctx, ndk_status st)
{
    if (atomic_exchange(&cb_running, 1))
        atomic_store(&cb_overlap, 1);
    if (st != NDK_STATUS_SUCCESS)
        atomic_store(&cb_bad_status, (int)st);
    atomic_fetch_add(&cb_count[(uintptr_t)ctx], 1);
    atomic_fetch_add(&cb_total, 1);
    atomic_store(&cb_running, 0);
}

static char why[512];   /* the first difference found */
/* what the run covered: requests by kind, completions by status */
static unsigned long by_kind[M_FREG + 1], by_status[16], via_window, via_fr, inline_fail[16];
static unsigned long arms[2][3], ntf_must, ntf_may_fired, ntf_may_not, ntf_must_not, waits, discs, held;

static int differ(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int differ(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return 1;
}

#define TRY(call)                                                                       \
    do {                                                                                \
        ndk_status st_ = (call);                                                        \
        if (st_ != NDK_STATUS_SUCCESS)                                                  \
            return differ("%s: %s", #call, ndk_status_str(st_));                        \
    } while (0)

static int pair_open(pair *p, const unit *u, model *m)
{
    TRY(ndk_create_pd(p->ad, &p->pd));
    for (int s = 0; s < 2; s++) {
        TRY(ndk_create_cq(p->ad, 256, on_notify, (void *)(uintptr_t)(2 * s), &p->rcq[s]));
        TRY(ndk_create_cq(p->ad, 256, on_notify, (void *)(uintptr_t)(2 * s + 1), &p->icq[s]));
        ndk_qp_attr a = { 64, 64, MODEL_MAX_SGE, 0 };
        TRY(ndk_create_qp(p->pd, p->rcq[s], p->icq[s], NULL, &a, &p->qp[s]));
        /* a page more, so that the buffer starts at a device page (FAST_REG
         * lists its pages) */
        p->raw[s] = ndk_alloc_dma(p->ad, MODEL_BUF + MODEL_PAGE);
        if (!p->raw[s])
            return differ("ndk_alloc_dma gave NULL");
        p->buf[s] = p->raw[s] + (MODEL_PAGE - ndk_dma_address(p->ad, p->raw[s]) % MODEL_PAGE) % MODEL_PAGE;
        fill_bytes(p->buf[s], MODEL_BUF, u->fill + (uint64_t)s);
    }
    TRY(ndk_connect(p->qp[0], ndk_qp_address(p->qp[1])));
    TRY(ndk_connect(p->qp[1], ndk_qp_address(p->qp[0])));
    model_init(m, p->buf[0], p->buf[1]);
    for (unsigned i = 0; i < u->nmr; i++) {
        const model_mr *r = &u->mr[i];
        TRY(ndk_create_mr(p->pd, &p->mr[i]));
        if (r->fr) {
            model_add_fr_slot(m, r->side);
            continue;
        }
        TRY(ndk_register_mr(p->mr[i], p->buf[r->side] + r->off, r->len, r->flags));
        model_add_mr(m, r->side, r->off, r->len, r->flags);
    }
    for (int w = 0; w < MODEL_MAX_MW; w++)
        TRY(ndk_create_mw(p->pd, &p->mw[w]));
    return 0;
}

static void pair_close(pair *p, const unit *u)
{
    for (int s = 0; s < 2; s++)
        if (p->qp[s]) (void)ndk_destroy_qp(p->qp[s]);
    for (int w = 0; w < MODEL_MAX_MW; w++)   /* V10: windows before their regions */
        if (p->mw[w]) (void)ndk_destroy_mw(p->mw[w]);
    for (unsigned i = 0; i < u->nmr; i++)
        if (p->mr[i]) (void)ndk_destroy_mr(p->mr[i]);
    for (int s = 0; s < 2; s++) {
        if (p->rcq[s]) (void)ndk_destroy_cq(p->rcq[s]);
        if (p->icq[s]) (void)ndk_destroy_cq(p->icq[s]);
        if (p->raw[s]) ndk_free_dma(p->ad, p->raw[s]);
    }
    if (p->pd) (void)ndk_destroy_pd(p->pd);
    ndk_adapter *ad = p->ad;
    memset(p, 0, sizeof *p);
    p->ad = ad;
}

static uint32_t bad_token(const pair *p)
{
    return ndk_mr_local_token(p->mr[0]) ^ 0x40000000u;   /* another tag: no region's */
}

/* A region's token; a token of no region for an MR not registered (its
 * token is 0, which the library may refuse at the post). */
static uint32_t token(const pair *p, int mr, int remote)
{
    uint32_t t = mr < 0 ? 0 : remote ? ndk_mr_remote_token(p->mr[mr]) : ndk_mr_local_token(p->mr[mr]);
    return t ? t : bad_token(p);
}

/* The address of byte off of region mr's addresses (of side's buffer when
 * mr names no region). */
static uint64_t addr_of(const pair *p, const unit *u, int mr, int side, uint32_t off)
{
    if (mr >= 0 && u->mr[mr].fr)
        return p->fr_va[mr] + off;
    return (uint64_t)(uintptr_t)(p->buf[mr >= 0 ? u->mr[mr].side : side] + off);
}

static ndk_status post_freg(pair *p, const unit *u, ndk_qp *qp, const model_op *op, uint32_t flags)
{
    int side = u->mr[op->fmr].side;
    uint64_t pages[MODEL_FR_PAGES];
    for (unsigned i = 0; i < op->fnpages; i++)
        pages[i] = ndk_dma_address(p->ad, p->buf[side] + op->fpage[i] * MODEL_PAGE);
    uint32_t used = (op->ffbo + op->flen + MODEL_PAGE - 1) / MODEL_PAGE;   /* entries read */
    uint32_t k = op->ctx % (used ? used : 1);   /* the entry spoiled */
    if (op->fbad == FR_UNALIGNED)
        pages[k] += 64;
    if (op->fbad == FR_OUTSIDE)   /* past the end of the adapter's DMA memory */
        pages[k] = (ndk_dma_address(p->ad, p->buf[side]) + dma_bytes + MODEL_PAGE) & ~(uint64_t)(MODEL_PAGE - 1);
    ndk_status st = ndk_fast_register(qp, (void *)op->ctx, p->mr[op->fmr], op->fnpages, pages, op->ffbo,
                                      op->flen, op->fva, op->bflags | flags);
    if (st == NDK_STATUS_SUCCESS)
        p->fr_va[op->fmr] = op->fva + op->ffbo;
    return st;
}

static ndk_status post(pair *p, int from, const unit *u, const model_op *op, int last)
{
    /* an SGE's address is in the buffer its offset counts in: its region's
     * side, or (a token of no region) the side that posts it */
    ndk_sge g[MODEL_MAX_SGE];
    for (uint32_t i = 0; i < op->nsge; i++) {
        const model_sge *s = &op->sge[i];
        g[i].addr = addr_of(p, u, s->mr, op->kind == M_RECV ? !from : from, s->off);
        g[i].length = s->len;
        g[i].token = token(p, s->mr, 0);
    }
    uint32_t flags = op->flags & ~(last ? NDK_OP_FLAG_DEFER : 0u);
    void *ctx = (void *)op->ctx;
    ndk_qp *qp = p->qp[op->kind == M_RECV ? !from : from];
    int to = !from;
    uint32_t rtok = op->rmw >= 0 ? ndk_mw_remote_token(p->mw[op->rmw]) : token(p, op->rmr, 1);
    uint64_t raddr = op->rmw >= 0 ? (uint64_t)(uintptr_t)(p->buf[to] + op->roff) : addr_of(p, u, op->rmr, to, op->roff);
    uint32_t inv_tok = op->tmw >= 0 ? ndk_mw_remote_token(p->mw[op->tmw]) : token(p, op->tmr, 1);
    if (op->flags & NDK_OP_FLAG_INLINE) {
        ndk_sge ig = { (uint64_t)(uintptr_t)op->inline_data, op->inline_len, 0 };
        if (op->kind == M_SEND)
            return ndk_send(qp, ctx, &ig, 1, flags);
        if (op->kind == M_SEND_INV)
            return ndk_send_and_invalidate(qp, ctx, &ig, 1, flags, inv_tok);
        return ndk_write(qp, ctx, &ig, 1, raddr, rtok, flags);
    }
    switch (op->kind) {
    case M_RECV: return ndk_receive(qp, ctx, g, op->nsge);
    case M_SEND: return ndk_send(qp, ctx, g, op->nsge, flags);
    case M_SEND_INV:
        return ndk_send_and_invalidate(qp, ctx, g, op->nsge, flags, inv_tok);
    case M_WRITE: return ndk_write(qp, ctx, g, op->nsge, raddr, rtok, flags);
    case M_READ: return ndk_read(qp, ctx, g, op->nsge, raddr, rtok, flags);
    case M_INVAL: {
        uint32_t t = op->tmw >= 0 ? ndk_mw_remote_token(p->mw[op->tmw]) : token(p, op->tmr, op->tremote);
        return ndk_invalidate(qp, ctx, t, flags);
    }
    case M_FREG: return post_freg(p, u, qp, op, flags);
    case M_BIND:
        return ndk_bind(qp, ctx, p->mr[op->bmr], p->mw[op->bmw], g[0].addr, g[0].length,
                        op->bflags | flags);
    default: return NDK_STATUS_INVALID_PARAMETER;
    }
}

static const char *kind_name(int k)
{
    static const char *const n[] = { "RECV", "SEND", "SEND_INV", "WRITE", "READ", "INVAL", "BIND", "FREG" };
    return k >= 0 && k <= M_FREG ? n[k] : "?";
}

/* The NIC's completions of one CQ against the model's. */
static int compare_cq(ndk_cq *cq, const model_cq *want, uint32_t qpn, const char *name)
{
    ndk_result_ex got[MODEL_MAX_CQE + 8];
    uint32_t n = 0, k;
    while (n < MODEL_MAX_CQE + 8 && (k = ndk_get_cq_results_ex(cq, got + n, MODEL_MAX_CQE + 8 - n)) > 0)
        n += k;
    for (uint32_t i = 0; i < n || i < want->n; i++) {
        if (i >= n)
            return differ("%s: completion %u missing: want %s type 0x%x ctx %lu", name, i,
                          ndk_status_str(want->e[i].status), want->e[i].type, (unsigned long)want->e[i].ctx);
        if (i >= want->n)
            return differ("%s: completion %u not expected: got %s type 0x%x ctx %lu bytes %u", name, i,
                          ndk_status_str(got[i].status), got[i].type,
                          (unsigned long)(uintptr_t)got[i].request_context, got[i].bytes_transferred);
        const model_cqe *w = &want->e[i];
        const ndk_result_ex *g = &got[i];
        if (g->status != w->status || g->type != w->type || (uintptr_t)g->request_context != w->ctx ||
            (w->status == NDK_STATUS_SUCCESS && g->bytes_transferred != w->bytes) || g->qp_num != qpn)
            return differ("%s: completion %u: got %s type 0x%x ctx %lu bytes %u qp 0x%x; "
                          "want %s type 0x%x ctx %lu bytes %u qp 0x%x", name, i,
                          ndk_status_str(g->status), g->type, (unsigned long)(uintptr_t)g->request_context,
                          g->bytes_transferred, g->qp_num, ndk_status_str(w->status), w->type,
                          (unsigned long)w->ctx, w->bytes, qpn);
    }
    return 0;
}

static const char *const cq_name[4] = { "a's receive CQ", "a's initiator CQ", "b's receive CQ",
                                         "b's initiator CQ" };
static const char *const trig_name[3] = { "ERRORS", "ANY", "SOLICITED" };

/* Let the NIC settle, then wait until the library has run a callback for
 * every notification the NIC counted since the last sync (the event thread
 * may lag the NIC): got[q], the callbacks of each CQ since then. */
static int settle(pair *p, unsigned got[4])
{
    ndk_status st = ndk_sim_wait_idle(p->ad, 30000);
    if (st != NDK_STATUS_SUCCESS)
        return differ("the NIC did not settle: %s", ndk_status_str(st));
    ndk_counters c;
    TRY(ndk_query_counters(p->ad, &c));
    unsigned want = (unsigned)(c.notifications - ntf_seen);
    for (int ms = 0; atomic_load(&cb_total) - cb_seen_total < want && ms < 5000; ms++) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    unsigned total = atomic_load(&cb_total) - cb_seen_total;
    if (total != want)
        return differ("the NIC sent %u notifications, the callbacks ran %u times", want, total);
    ntf_seen = c.notifications;
    cb_seen_total += total;
    for (int q = 0; q < 4; q++) {
        unsigned n = atomic_load(&cb_count[q]);
        got[q] = n - cb_seen[q];
        cb_seen[q] = n;
    }
    if (atomic_load(&cb_overlap))
        return differ("two callbacks ran at once (N5)");
    if (atomic_load(&cb_bad_status))
        return differ("a callback got %s (no overrun, no fault)", ndk_status_str(atomic_load(&cb_bad_status)));
    return 0;
}

/* A new pair: the notifications counted so far went to CQs destroyed since
 * (the library drops those: nobody to tell), so counting starts afresh. */
static int ntf_restart(pair *p)
{
    ndk_status st = ndk_sim_wait_idle(p->ad, 30000);
    if (st != NDK_STATUS_SUCCESS)
        return differ("the NIC did not settle: %s", ndk_status_str(st));
    ndk_counters c;
    TRY(ndk_query_counters(p->ad, &c));
    ntf_seen = c.notifications;
    cb_seen_total = atomic_load(&cb_total);
    for (int q = 0; q < 4; q++)
        cb_seen[q] = atomic_load(&cb_count[q]);
    return 0;
}

/* Each CQ's callbacks since the last settle against the model's must /
 * must not, then ndk_wait_cq (V9) against the arm's state: SUCCESS once the
 * most recent arm was notified, TIMEOUT while it waits, INVALID_DEVICE_STATE
 * before any arm (ndk.h ndk_wait_cq). */
static int check_notified(pair *p, model *m, const unsigned got[4], const int want[4], const char *when)
{
    for (int q = 0; q < 4; q++) {
        if (want[q] == MODEL_MUST && got[q] != 1)
            return differ("%s, %s: %u notifications, want 1 (N2, N1)", when, cq_name[q], got[q]);
        if (want[q] == MODEL_MUST_NOT && got[q] != 0)
            return differ("%s, %s: %u notifications, want none (N1, N7)", when, cq_name[q], got[q]);
        if (want[q] == MODEL_MAY && got[q] > 1)
            return differ("%s, %s: %u notifications for one arm (N1)", when, cq_name[q], got[q]);
        ntf_must += want[q] == MODEL_MUST;
        ntf_must_not += want[q] == MODEL_MUST_NOT && m->arm[q].ever;
        ntf_may_fired += want[q] == MODEL_MAY && got[q] == 1;
        ntf_may_not += want[q] == MODEL_MAY && got[q] == 0;
    }
    for (int q = 0; q < 4; q++) {
        const model_arm *a = &m->arm[q];
        ndk_status w = !a->ever ? NDK_STATUS_INVALID_DEVICE_STATE : a->pending ? NDK_STATUS_TIMEOUT
                                                                                : NDK_STATUS_SUCCESS;
        ndk_status st = ndk_wait_cq(cq_of(p, q), 0);
        waits++;
        if (st != w)
            return differ("%s, %s: ndk_wait_cq gave %s, want %s", when, cq_name[q], ndk_status_str(st),
                          ndk_status_str(w));
    }
    return 0;
}

/* Take every CQ's completions and compare them with what the model owes. */
static int compare_all(pair *p, model *m)
{
    for (int q = 0; q < 4; q++) {
        uint32_t qpn = ndk_qp_num(p->qp[q >> 1]);
        if (compare_cq(cq_of(p, q), model_cq_of(m, q), qpn, cq_name[q]))
            return 1;
        const model_cq *c = model_cq_of(m, q);
        for (unsigned i = 0; i < c->n; i++)
            by_status[(unsigned)c->e[i].status & 15]++;
    }
    model_take(m);
    return 0;
}

static int run_step(pair *p, const unit *u, model *m, const step *s)
{
    unsigned got[4];
    int want[4];
    ndk_status rst[MAX_RECV], qst[MAX_REQ];
    for (int q = 0; q < 4; q++)
        if (s->arm_empty[q] >= 0) {
            model_arm_empty(m, q, (uint32_t)s->arm_empty[q]);
            ndk_arm_cq(cq_of(p, q), (uint32_t)s->arm_empty[q]);
            arms[0][s->arm_empty[q]]++;
        }
    model_step(m, s->from, s->recv, s->nrecv, s->req, s->nreq, !s->hold, rst, qst);
    for (unsigned i = 0; i < s->nrecv; i++) {
        ndk_status st = post(p, s->from, u, &s->recv[i], 1);
        if (st != rst[i])
            return differ("receive ctx %lu at the post: %s, want %s", (unsigned long)s->recv[i].ctx,
                          ndk_status_str(st), ndk_status_str(rst[i]));
        inline_fail[(unsigned)st & 15] += st != NDK_STATUS_SUCCESS;
    }
    for (unsigned i = 0; i < s->nreq; i++) {
        ndk_status st = post(p, s->from, u, &s->req[i], i + 1 == s->nreq && !s->hold);
        if (st != qst[i])
            return differ("%s ctx %lu at the post: %s, want %s", kind_name(s->req[i].kind),
                          (unsigned long)s->req[i].ctx, ndk_status_str(st), ndk_status_str(qst[i]));
        inline_fail[(unsigned)st & 15] += st != NDK_STATUS_SUCCESS;
    }
    if (settle(p, got))
        return 1;
    for (int q = 0; q < 4; q++)
        want[q] = model_arm_settled(m, q);
    if (check_notified(p, m, got, want, "after the step"))
        return 1;
    /* arms made while the step's completions are still in the CQs (N3, N4) */
    int any = 0;
    for (int q = 0; q < 4; q++) {
        want[q] = MODEL_MUST_NOT;
        if (s->arm_held[q] < 0)
            continue;
        want[q] = model_arm_held(m, q, (uint32_t)s->arm_held[q]);
        ndk_arm_cq(cq_of(p, q), (uint32_t)s->arm_held[q]);
        arms[1][s->arm_held[q]]++;
        any = 1;
    }
    if (any) {
        if (settle(p, got))
            return 1;
        for (int q = 0; q < 4; q++)   /* what a MAY came to is what the model goes on from */
            if (s->arm_held[q] >= 0)
                model_arm_outcome(m, q, (uint32_t)s->arm_held[q], got[q] != 0);
        if (check_notified(p, m, got, want, "arms with the step's completions in the CQs"))
            return 1;
    }
    if (compare_all(p, m))
        return 1;
    for (unsigned i = 0; i < s->nreq; i++) {
        by_kind[s->req[i].kind]++;
        via_window += s->req[i].rmw >= 0 || s->req[i].tmw >= 0;
        int fr = (s->req[i].rmr >= 0 && u->mr[s->req[i].rmr].fr) || (s->req[i].tmr >= 0 && u->mr[s->req[i].tmr].fr);
        for (uint32_t g = 0; g < s->req[i].nsge && !(s->req[i].flags & NDK_OP_FLAG_INLINE); g++)
            fr |= s->req[i].sge[g].mr >= 0 && u->mr[s->req[i].sge[g].mr].fr;
        via_fr += fr && s->req[i].kind != M_BIND;
    }
    by_kind[M_RECV] += s->nrecv;
    for (int side = 0; side < 2; side++)
        for (uint32_t b = 0; b < MODEL_BUF; b++)
            if (m->known[side][b] && p->buf[side][b] != m->mem[side][b])
                return differ("%s's buffer byte 0x%x: NIC 0x%02x, model 0x%02x", side ? "b" : "a", b,
                              p->buf[side][b], m->mem[side][b]);
    uint32_t v = 0;
    uint64_t first = 0;
    if (ndk_sim_dma_violations(p->ad, &v, &first) == NDK_STATUS_SUCCESS && v)
        return differ("%u DMA accesses outside registered memory, the first at 0x%" PRIx64, v, first);
    if (s->disc >= 0) {
        /* ndk_disconnect once the step settled: what it flushes does not
         * depend on timing (a held chain, the posted receives) */
        held += m->nheld[s->disc];
        model_disconnect(m, s->disc);
        TRY(ndk_disconnect(p->qp[s->disc]));
        discs++;
        if (settle(p, got))
            return 1;
        for (int q = 0; q < 4; q++)
            want[q] = model_arm_settled(m, q);
        if (check_notified(p, m, got, want, "after the disconnect") || compare_all(p, m))
            return 1;
    }
    return 0;
}

/* Run a unit on a fresh pair: 0, or 1 with `why` set and *at the step. */
static int run_unit(ndk_adapter *ad, const unit *u, unsigned *at)
{
    static model m;
    pair p;
    memset(&p, 0, sizeof p);
    p.ad = ad;
    int bad = pair_open(&p, u, &m) || ntf_restart(&p);
    *at = 0;
    for (unsigned i = 0; !bad && i < u->nsteps; i++) {
        *at = i;
        bad = run_step(&p, u, &m, &u->steps[i]);
        /* The generator ends a pair at the step that leaves a QP in ERROR
         * (a disconnect's one more step aside); a unit the shrinker made
         * that goes on past one is not a workload it could produce, and
         * what follows depends on when the host learns of the error (a
         * receive posted then is refused or flushed): no difference. */
        if (!bad && i + 1 < u->nsteps &&
            ((m.state[0] == MODEL_ERROR && !m.disc[0]) || (m.state[1] == MODEL_ERROR && !m.disc[1])))
            break;
    }
    pair_close(&p, u);
    return bad;
}

/* ---------------------------------------------------------------- shrink */

static void print_op(const char *what, const model_op *op, const unit *u)
{
    printf("    %s %s ctx %lu flags 0x%x", what, kind_name(op->kind), (unsigned long)op->ctx, op->flags);
    if (op->flags & NDK_OP_FLAG_INLINE)
        printf(" inline %u bytes", op->inline_len);
    else
        for (uint32_t i = 0; i < op->nsge; i++)
            printf(" [mr %d%s +0x%x len %u]", op->sge[i].mr,
                   op->sge[i].mr >= 0 ? (u->mr[op->sge[i].mr].side ? " (b)" : " (a)") : "",
                   op->sge[i].off, op->sge[i].len);
    if (op->kind == M_WRITE || op->kind == M_READ) {
        if (op->rmw >= 0)
            printf(" remote window %d +0x%x", op->rmw, op->roff);
        else
            printf(" remote mr %d +0x%x", op->rmr, op->roff);
    }
    if ((op->kind == M_INVAL || op->kind == M_SEND_INV) && op->tmw >= 0)
        printf(" token of window %d", op->tmw);
    else if (op->kind == M_INVAL || op->kind == M_SEND_INV)
        printf(" token of mr %d%s", op->tmr, op->kind == M_INVAL ? (op->tremote ? " (rkey)" : " (lkey)") : "");
    if (op->kind == M_BIND)
        printf(" window %d rights 0x%x", op->bmw, op->bflags);
    if (op->kind == M_FREG) {
        static const char *const bad[] = { "", " (a page unaligned)", " (a page outside DMA memory)",
                                           " (len 0)", " (len beyond the pages)", " (fbo >= 4096)",
                                           " (rights 0x20 alone)" };
        printf(" mr %d rights 0x%x fbo %u len %u base_va 0x%" PRIx64 " pages", op->fmr, op->bflags, op->ffbo,
               op->flen, op->fva);
        for (unsigned i = 0; i < op->fnpages; i++)
            printf("%s%u", i ? "," : " ", op->fpage[i]);
        printf("%s", bad[op->fbad]);
    }
    printf("\n");
}

static void print_unit(const unit *u)
{
    printf("  pair: buffers from 0x%" PRIx64 ", regions:", u->fill);
    for (unsigned i = 0; i < u->nmr; i++)
        if (u->mr[i].fr)
            printf(" %u=%s FR slot", i, u->mr[i].side ? "b" : "a");
        else
            printf(" %u=%s[0x%x,+%u) 0x%x", i, u->mr[i].side ? "b" : "a", u->mr[i].off, u->mr[i].len,
                   u->mr[i].flags);
    printf("\n");
    for (unsigned i = 0; i < u->nsteps; i++) {
        const step *s = &u->steps[i];
        printf("  step %u: %s initiates%s", i, s->from ? "b" : "a", s->hold ? ", its last chain held" : "");
        for (int q = 0; q < 4; q++) {
            if (s->arm_empty[q] >= 0)
                printf("; %s armed %s first", cq_name[q], trig_name[s->arm_empty[q]]);
            if (s->arm_held[q] >= 0)
                printf("; %s armed %s after", cq_name[q], trig_name[s->arm_held[q]]);
        }
        if (s->disc >= 0)
            printf("; then %s disconnects", s->disc ? "b" : "a");
        printf("\n");
        for (unsigned k = 0; k < s->nrecv; k++)
            print_op(s->from ? "a posts" : "b posts", &s->recv[k], u);
        for (unsigned k = 0; k < s->nreq; k++)
            print_op(s->from ? "b posts" : "a posts", &s->req[k], u);
    }
}

/* Drop steps, then receives and requests, while the unit still differs. */
static void shrink(ndk_adapter *ad, unit *u)
{
    static unit t;
    unsigned at, runs = 0;
    const unsigned max_runs = 400;
    for (int progress = 1; progress && runs < max_runs;) {
        progress = 0;
        for (unsigned i = 0; i < u->nsteps && runs < max_runs; i++) {
            t = *u;
            memmove(&t.steps[i], &t.steps[i + 1], (t.nsteps - i - 1) * sizeof(step));
            t.nsteps--;
            runs++;
            if (t.nsteps && run_unit(ad, &t, &at)) {
                *u = t;
                u->nsteps = at + 1;
                progress = 1;
                i--;
            }
        }
        for (unsigned i = 0; i < u->nsteps && runs < max_runs; i++)
            /* the step's arms one by one (0-7), then its disconnect with its
             * held chain (8) */
            for (int k = 0; k < 9 && runs < max_runs; k++) {
                t = *u;
                step *s = &t.steps[i];
                int8_t *arm = k < 4 ? &s->arm_empty[k] : k < 8 ? &s->arm_held[k - 4] : NULL;
                if (arm ? *arm < 0 : s->disc < 0 && !s->hold)
                    continue;
                if (arm) {
                    *arm = -1;
                } else {
                    s->disc = -1;
                    s->hold = 0;
                }
                runs++;
                if (run_unit(ad, &t, &at)) {
                    *u = t;
                    u->nsteps = at + 1;
                    progress = 1;
                }
            }
        for (unsigned i = 0; i < u->nsteps && runs < max_runs; i++)
            for (unsigned k = 0; k < u->steps[i].nrecv + u->steps[i].nreq && runs < max_runs; k++) {
                t = *u;
                step *s = &t.steps[i];
                if (k < s->nrecv) {
                    memmove(&s->recv[k], &s->recv[k + 1], (s->nrecv - k - 1) * sizeof(model_op));
                    s->nrecv--;
                } else {
                    unsigned r = k - s->nrecv;
                    if (s->nreq == 1)
                        continue;
                    memmove(&s->req[r], &s->req[r + 1], (s->nreq - r - 1) * sizeof(model_op));
                    s->nreq--;
                }
                runs++;
                if (run_unit(ad, &t, &at)) {
                    *u = t;
                    u->nsteps = at + 1;
                    progress = 1;
                    k--;
                }
            }
    }
    run_unit(ad, u, &at);   /* its difference, for the report */
    printf("shrunk in %u runs to %u steps; the difference: step %u: %s\n", runs, u->nsteps, at, why);
}

/* ------------------------------------------------------------------ main */

static unsigned long env_ul(const char *name, unsigned long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoul(v, NULL, 0) : dflt;
}

int main(int argc, char **argv)
{
    unsigned long ops = env_ul("QPNIC_DIFF_OPS", 10000);
    uint64_t seed = env_ul("QPNIC_SEED", (unsigned long)time(NULL) ^ ((unsigned long)clock() << 20));
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ops") && i + 1 < argc)
            ops = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else if (!strcmp(argv[i], "--max-msg") && i + 1 < argc)
            max_msg = (uint32_t)strtoul(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s [--ops N] [--seed S] [--max-msg BYTES] [--quiet]\n", argv[0]);
            return 2;
        }
    }
    printf("diff: seed %" PRIu64 " (QPNIC_SEED=%" PRIu64 " repeats it), %lu operations\n", seed, seed, ops);
    fflush(stdout);
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;

    ndk_adapter *ad;
    ndk_status st = ndk_open_adapter(NULL, &ad);
    if (st != NDK_STATUS_SUCCESS) {
        printf("FAIL diff: ndk_open_adapter: %s\n", ndk_status_str(st));
        return 1;
    }
    ndk_adapter_info info;
    if (ndk_query_adapter_info(ad, &info) == NDK_STATUS_SUCCESS)
        dma_bytes = info.dma_bytes;
    static unit u;
    static model m;
    pair p;
    unsigned long done = 0, steps = 0, pairs = 0;
    int bad = 0;
    while (done < ops && !bad) {
        gen_unit_setup(&u);
        memset(&p, 0, sizeof p);
        p.ad = ad;
        pairs++;
        bad = pair_open(&p, &u, &m) || ntf_restart(&p);
        int after = 0;   /* steps since a disconnect: the other side initiates once */
        while (!bad && done < ops && u.nsteps < MAX_STEPS &&
               ((m.state[0] == MODEL_RTS && m.state[1] == MODEL_RTS) ||
                (after++ == 0 && (m.disc[0] || m.disc[1]) && m.state[!m.disc[1]] == MODEL_RTS))) {
            step *s = &u.steps[u.nsteps++];
            gen_step(&u, &m, s);
            bad = run_step(&p, &u, &m, s);
            done += s->nrecv + s->nreq;
            steps++;
        }
        pair_close(&p, &u);
    }
    if (bad) {
        printf("FAIL diff: seed %" PRIu64 ", pair %lu, step %u: %s\n", seed, pairs, u.nsteps - 1, why);
        printf("the pair's workload up to there:\n");
        print_unit(&u);
        shrink(ad, &u);
        printf("reproduction:\n");
        print_unit(&u);
    } else if (!quiet) {
        printf("diff: %lu operations in %lu steps on %lu pairs, NIC and model agree\n", done, steps, pairs);
        printf("diff: requests:");
        for (int k = 0; k <= M_FREG; k++)
            printf(" %s %lu", kind_name(k), by_kind[k]);
        printf(" (%lu through a window, %lu naming a fast-registered region)\ndiff: refused at the post:",
               via_window, via_fr);
        for (unsigned st = 0; st < 16; st++)
            if (inline_fail[st])
                printf(" %s %lu", ndk_status_str((ndk_status)st), inline_fail[st]);
        printf("\ndiff: completions:");
        for (unsigned st = 0; st < 16; st++)
            if (by_status[st])
                printf(" %s %lu", ndk_status_str((ndk_status)st), by_status[st]);
        printf("\ndiff: arms on empty CQs: ERRORS %lu ANY %lu SOLICITED %lu; on CQs holding the step's"
               " completions: ERRORS %lu ANY %lu SOLICITED %lu\n",
               arms[0][0], arms[0][1], arms[0][2], arms[1][0], arms[1][1], arms[1][2]);
        printf("diff: notifications: %lu that must come came, %lu armed CQs that must get none got none,"
               " %lu that may come came, %lu did not; ndk_wait_cq %lu\n",
               ntf_must, ntf_must_not, ntf_may_fired, ntf_may_not, waits);
        printf("diff: disconnects %lu (%lu held requests cancelled)\n", discs, held);
    }
    ndk_close_adapter(ad);
    printf("%s differential_random_workload_matches_the_model\n", bad ? "FAIL" : "PASS");
    return bad;
}
