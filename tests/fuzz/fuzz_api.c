/* fuzz_api.c: the API fuzzer (issue 11, fuzzer 1): libFuzzer turns its
 * input into a sequence of libqpnic calls with arguments of every kind
 * (NULL, zero, huge, out of range, a destroyed object, an object of the
 * other adapter, a handle of the wrong kind), run over two fake NICs.
 *
 * For: the library's own checks. Every call must return a named status or
 * its documented "nothing" value; every call given a NULL, destroyed or
 * wrong-kind handle must refuse it (INVALID_PARAMETER) without reading it;
 * nothing may crash, hang, leak or trip ASan/UBSan; and at the end every
 * object must be destroyable and both adapters closable (a reference count
 * left behind would make that DEVICE_BUSY).
 * Not for: the NIC (tests/fuzz/fuzz_rings.c fuzzes the rings against the
 * simulator). Here the "NIC" is tests/host/fake_nic.c with its SQ consumed
 * at once; the harness plays the NIC's other side itself: it writes CQEs
 * with fuzzed statuses for posted requests and pushes fuzzed notification
 * words to the event thread.
 *
 * Input format: a stream of operations, each one opcode byte (taken modulo
 * the number of operations) followed by the argument bytes that operation
 * reads; reading past the end gives zeros. tests/fuzz/api_seeds.py writes
 * the seed programs in this format (its table of opcodes must match OPS
 * below). A failure prints what was called and with what, then aborts, so
 * libFuzzer keeps the input: rerun it with `build/tests/fuzz/fuzz_api FILE`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_nic.h"
#include "regs.h"

/* ---------------------------------------------------------------- input */

static const uint8_t *in_p;
static size_t in_n;

static uint8_t u8(void)
{
    if (!in_n)
        return 0;
    in_n--;
    return *in_p++;
}

static uint32_t u16(void)
{
    uint32_t v = u8();
    return v | (uint32_t)u8() << 8;
}

static uint32_t u32(void)
{
    uint32_t v = u16();
    return v | u16() << 16;
}

/* A length from one byte: the edges more often than chance gives them. */
static uint64_t length(void)
{
    uint8_t b = u8();
    switch (b >> 5) {
    case 0: return 0;
    case 1: return b & 31u;
    case 2: return 1u + (b & 31u) * 64u;
    case 3: return 4096u * (1u + (b & 7u));
    case 4: return 0xFFFFFFFFull;
    case 5: return 0x100000000ull + (b & 31u);
    case 6: return (uint64_t)1 << (b & 63u);
    default: return u32();
    }
}

/* ------------------------------------------------------------ the world */

#define NAD 2     /* adapters */
#define NOBJ 6    /* slots per kind and adapter */
#define NBUF 3    /* caller buffers per adapter */
#define BUF_BYTES 16384u
#define DMA_BYTES (1u << 19)

enum kind { K_PD, K_CQ, K_QP, K_MR, K_MW, K_PP, NKIND };

/* A slot: a live handle, a dead one (destroyed: its old pointer, kept to
 * be passed again), or empty. */
typedef struct {
    void *p;
    int live;
} obj;

typedef struct {
    fake_nic *f;
    ndk_adapter *ad;
    int open;                 /* not yet closed */
    obj o[NKIND][NOBJ];
    uint8_t *buf[NBUF];       /* ndk_alloc_dma memory, or NULL */
    uint32_t cq_pi[NOBJ];     /* CQEs the harness's "NIC" wrote into each CQ */
    uint32_t sq_done[NOBJ];   /* requests of each QP it completed */
    uint32_t rq_done[NOBJ];
} world;

static world W[NAD];
static void *dead_adapter;    /* a closed adapter's old pointer, if any */
static unsigned step;
static int callbacks;

/* -------------------------------------------------------------- checks */

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_api: step %u: ", step);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static int trace; /* QPNIC_FUZZ_TRACE set: print every call and its status */

static ndk_status named(const char *call, ndk_status st)
{
    if (trace)
        fprintf(stderr, "  step %u: %s -> %s\n", step, call, ndk_status_str(st));
    if (strstr(ndk_status_str(st), "unknown"))
        fail("%s returned %d, a status with no name", call, (int)st);
    return st;
}

/* A handle the call must refuse: NULL, dead, or the wrong kind. */
static void must_refuse(const char *call, ndk_status st)
{
    if (st != NDK_STATUS_INVALID_PARAMETER)
        fail("%s with a NULL, destroyed or wrong-kind handle returned %s, want INVALID_PARAMETER",
             call, ndk_status_str(st));
}

static void cb(void *ctx, ndk_status s)
{
    (void)ctx;
    (void)named("notification callback", s);
    __atomic_add_fetch(&callbacks, 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------- choosing */

/* A handle of kind k from one byte: bits 0-2 a slot, bits 3-5 what:
 * usually this adapter's slot (live or dead), else NULL, the other
 * adapter's slot, a handle of another kind, a pointer into a buffer.
 * *good says whether the call must accept it as a live handle. */
static void *pick(int a, enum kind k, int *good)
{
    uint8_t b = u8();
    world *w = &W[a];
    int slot = (b & 7) % NOBJ;
    obj *s = &w->o[k][slot];
    *good = 0;
    switch ((b >> 3) & 7) {
    case 0:
        return NULL;
    case 1: /* the other adapter's, live or not: refused by the calls that
             * mix it with this adapter's objects, accepted alone */
        s = &W[a ^ 1].o[k][slot];
        *good = s->live;
        return s->p;
    case 2: { /* another kind's handle */
        obj *x = &w->o[(k + 1 + (b >> 6)) % NKIND][slot];
        return x->live ? x->p : NULL;
    }
    case 3:
        return w->buf[slot % NBUF]; /* memory, not a handle */
    default:
        *good = s->live;
        return s->p;
    }
}

static ndk_adapter *pick_ad(int a, int *good)
{
    uint8_t b = u8();
    *good = 0;
    if ((b & 7) == 0)
        return NULL;
    if ((b & 7) == 1)
        return dead_adapter;
    if ((b & 7) == 2)
        return (ndk_adapter *)(void *)W[a].buf[0];
    *good = W[a].open;
    return W[a].open ? W[a].ad : NULL;
}

/* A slot to put a new handle in (an empty or dead one). */
static obj *free_slot(int a, enum kind k)
{
    for (int i = 0; i < NOBJ; i++)
        if (!W[a].o[k][i].live)
            return &W[a].o[k][i];
    return NULL;
}

static obj *slot_of(int a, enum kind k, const void *p)
{
    for (int i = 0; i < NOBJ; i++)
        if (W[a].o[k][i].live && W[a].o[k][i].p == p)
            return &W[a].o[k][i];
    return NULL;
}

/* An address from a byte and 16 bits of offset: bits 0-2 where (in one
 * of the adapter's buffers, just past its end, in the other adapter's,
 * NULL or anything), bits 3-4 which buffer. */
static uint64_t pick_addr(int a)
{
    uint8_t b = u8();
    uint32_t off = u16();
    uint8_t *buf = W[a].buf[((b >> 3) & 3) % NBUF];
    uint8_t *theirs = W[a ^ 1].buf[((b >> 3) & 3) % NBUF];
    switch (b & 7) {
    case 0: return 0;
    case 1: return theirs ? (uint64_t)(uintptr_t)theirs + off % BUF_BYTES : 0;
    case 2: {
        uint64_t hi = u32();
        return hi << 32 | u32();
    }
    case 3: return buf ? (uint64_t)(uintptr_t)buf + BUF_BYTES - (off & 63u) : 0;
    default: return buf ? (uint64_t)(uintptr_t)buf + off % BUF_BYTES : 0;
    }
}

/* A token from a byte: bit 0 this adapter's (else the other's), bit 1 a
 * window's (else a region's), bits 2-3 the slot, bit 4 the remote token,
 * bits 5-7 whether: 0 zero, 1 junk, else the object's (junk if dead). */
static uint32_t pick_token(int a)
{
    uint8_t b = u8();
    obj *m = &W[(b & 1) ? a : a ^ 1].o[(b & 2) ? K_MW : K_MR][(b >> 2) & 3];
    switch (b >> 5) {
    case 0: return 0;
    case 1: return u32();
    default:
        if (!m->live)
            return u32();
        if (b & 2)
            return ndk_mw_remote_token(m->p);
        return (b & 16) ? ndk_mr_remote_token(m->p) : ndk_mr_local_token(m->p);
    }
}

static uint32_t pick_flags(void)
{
    static const uint32_t known[] = {
        NDK_OP_FLAG_SILENT_SUCCESS, NDK_OP_FLAG_READ_FENCE, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT,
        NDK_OP_FLAG_ALLOW_REMOTE_READ, NDK_OP_FLAG_ALLOW_LOCAL_WRITE, NDK_OP_FLAG_ALLOW_REMOTE_WRITE,
        NDK_OP_FLAG_INLINE, NDK_OP_FLAG_DEFER,
    };
    uint8_t b = u8();
    if (b == 0xFF)
        return u32(); /* unknown bits too */
    uint32_t f = 0;
    for (unsigned i = 0; i < sizeof known / sizeof known[0]; i++)
        if (b & (1u << i))
            f |= known[i];
    return f;
}

#define MAX_SGL 8
static ndk_sge sgl[MAX_SGL];

/* An INLINE request's bytes are read by the library from the caller's
 * pointers (the NIC never sees them): like memcpy's, they must be readable,
 * which is the caller's side of the C contract, not something the library
 * can check. So INLINE SGEs are moved into an open adapter's DMA block,
 * and INLINE is dropped when no adapter is open. */
static uint32_t inline_readable(uint32_t flags, ndk_sge *l, uint32_t nsge)
{
    if (!(flags & NDK_OP_FLAG_INLINE) || !l)
        return flags;
    world *w = W[0].open ? &W[0] : W[1].open ? &W[1] : NULL;
    if (!w)
        return flags & ~(uint32_t)NDK_OP_FLAG_INLINE;
    for (uint32_t i = 0; i < nsge; i++) {
        uint32_t len = l[i].length <= QPNIC_MAX_INLINE_BYTES ? l[i].length : 0;
        l[i].addr = (uint64_t)(uintptr_t)w->f->base.dma + l[i].addr % (DMA_BYTES - QPNIC_MAX_INLINE_BYTES);
        l[i].length = len; /* a longer one is refused before any read, but keep it simple */
    }
    return flags;
}

/* An SGE list: *nsge entries, each in a buffer with a region's token or
 * not; sometimes NULL. */
static const ndk_sge *pick_sgl(int a, uint32_t *nsge)
{
    uint8_t b = u8();
    *nsge = b % (MAX_SGL + 1);
    if ((b >> 4) == 0xF)
        return NULL;
    for (uint32_t i = 0; i < *nsge; i++) {
        sgl[i].addr = pick_addr(a);
        sgl[i].length = (uint32_t)length();
        sgl[i].token = pick_token(a);
    }
    return sgl;
}

/* --------------------------------------------------------- the operations */

static void op_create_pd(int a)
{
    int good;
    ndk_adapter *ad = pick_ad(a, &good);
    ndk_pd *pd = NULL;
    obj *s = free_slot(a, K_PD);
    ndk_status st = named("ndk_create_pd", ndk_create_pd(ad, s ? &pd : NULL));
    if (!good || !s)
        return must_refuse("ndk_create_pd", st);
    if (st == NDK_STATUS_SUCCESS)
        *s = (obj){ pd, 1 };
}

static void op_create_cq(int a)
{
    int good;
    ndk_adapter *ad = pick_ad(a, &good);
    uint32_t depth = (uint32_t)length();
    int with_cb = u8() & 1;
    ndk_cq *cq = NULL;
    obj *s = free_slot(a, K_CQ);
    ndk_status st = named("ndk_create_cq", ndk_create_cq(ad, depth, with_cb ? cb : NULL, NULL,
                                                          s ? &cq : NULL));
    if (!good || !s)
        return must_refuse("ndk_create_cq", st);
    if (st == NDK_STATUS_SUCCESS) {
        *s = (obj){ cq, 1 };
        W[a].cq_pi[s - W[a].o[K_CQ]] = 0;
    }
}

static void op_create_qp(int a)
{
    int gpd, grcq, gscq;
    ndk_pd *pd = pick(a, K_PD, &gpd);
    ndk_cq *rcq = pick(a, K_CQ, &grcq), *scq = pick(a, K_CQ, &gscq);
    ndk_qp_attr attr;
    attr.sq_depth = (uint32_t)length();
    attr.rq_depth = (uint32_t)length();
    attr.max_sge = u8() % 8u;
    attr.max_inline = (uint32_t)length();
    int null_attr = u8() == 0xFF;
    ndk_qp *qp = NULL;
    obj *s = free_slot(a, K_QP);
    ndk_status st = named("ndk_create_qp", ndk_create_qp(pd, rcq, scq, NULL, null_attr ? NULL : &attr,
                                                          s ? &qp : NULL));
    /* objects of the two adapters: only all of one (pd's) */
    int same = gpd && grcq && gscq && ((ndk_pd *)pd)->ad == rcq->ad && rcq->ad == scq->ad;
    if (!same || !s || null_attr)
        return must_refuse("ndk_create_qp", st);
    if (st == NDK_STATUS_SUCCESS) {
        int ia = pd->ad == W[a].ad ? a : a ^ 1;
        obj *t = ia == a ? s : free_slot(ia, K_QP);
        if (!t) { /* no slot on its own adapter's side: destroy it again */
            if (ndk_destroy_qp(qp) != NDK_STATUS_SUCCESS)
                fail("destroying a fresh QP failed");
            return;
        }
        *t = (obj){ qp, 1 };
        W[ia].sq_done[t - W[ia].o[K_QP]] = 0;
        W[ia].rq_done[t - W[ia].o[K_QP]] = 0;
    }
}

static void op_connect(int a)
{
    int g, gr;
    ndk_qp *qp = pick(a, K_QP, &g);
    ndk_qp *peer = pick(u8() & 1 ? a : a ^ 1, K_QP, &gr);
    ndk_qp_addr addr = ndk_qp_address(peer);
    if (!gr) {
        addr.node = u32();
        addr.qp_num = u32();
    }
    if (u8() == 0xFF)
        addr.qp_num ^= 1u << (u8() & 31); /* a near miss */
    ndk_status st = named("ndk_connect", ndk_connect(qp, addr));
    if (!g)
        must_refuse("ndk_connect", st);
}

static void op_destroy(int a)
{
    static const char *const name[NKIND] = { "ndk_destroy_pd", "ndk_destroy_cq", "ndk_destroy_qp",
                                              "ndk_destroy_mr", "ndk_destroy_mw", "ndk_free_prepared" };
    enum kind k = (enum kind)(u8() % NKIND);
    int g;
    void *p = pick(a, k, &g);
    ndk_status st, last = 0;
    switch (k) {
    case K_PD: st = ndk_destroy_pd(p); break;
    case K_CQ: st = ndk_destroy_cq(p); break;
    case K_QP: st = ndk_destroy_qp(p); break;
    case K_MR: st = ndk_destroy_mr(p); break;
    case K_MW: st = ndk_destroy_mw(p); break;
    default: st = ndk_free_prepared(p, u8() & 1 ? &last : NULL); break;
    }
    named(name[k], st);
    if (k == K_PP && g && st == NDK_STATUS_SUCCESS)
        named("ndk_free_prepared's last status", last);
    if (!g)
        return must_refuse(name[k], st);
    if (st == NDK_STATUS_SUCCESS) {
        for (int i = 0; i < NAD; i++) {
            obj *s = slot_of(i, k, p);
            if (s)
                s->live = 0; /* dead: its pointer is kept and passed again */
        }
    } else if (st != NDK_STATUS_DEVICE_BUSY && st != NDK_STATUS_IO_ERROR) {
        fail("%s of a live object returned %s", name[k], ndk_status_str(st));
    }
}

static void op_create_mr_mw(int a)
{
    int g;
    ndk_pd *pd = pick(a, K_PD, &g);
    int mw = u8() & 1;
    enum kind k = mw ? K_MW : K_MR;
    int ia = g && pd->ad != W[a].ad ? a ^ 1 : a;
    obj *s = free_slot(ia, k);
    void *out = NULL;
    ndk_status st = mw ? ndk_create_mw(pd, s ? (ndk_mw **)&out : NULL)
                       : ndk_create_mr(pd, s ? (ndk_mr **)&out : NULL);
    named(mw ? "ndk_create_mw" : "ndk_create_mr", st);
    if (!g || !s)
        return must_refuse(mw ? "ndk_create_mw" : "ndk_create_mr", st);
    if (st == NDK_STATUS_SUCCESS)
        *s = (obj){ out, 1 };
}

static void op_register_mr(int a)
{
    int g;
    ndk_mr *mr = pick(a, K_MR, &g);
    uint64_t addr = pick_addr(a);
    uint64_t len = length();
    uint32_t flags = u8() == 0xFF ? u32() : u8() & 0x1Fu;
    ndk_status st = named("ndk_register_mr", ndk_register_mr(mr, (void *)(uintptr_t)addr, (size_t)len, flags));
    if (!g)
        must_refuse("ndk_register_mr", st);
}

static void op_post(int a)
{
    int g;
    ndk_qp *qp = pick(a, K_QP, &g);
    uint8_t which = u8() % 6;
    uint32_t nsge;
    const ndk_sge *l = pick_sgl(a, &nsge);
    uint64_t raddr = pick_addr(a ^ (u8() & 1));
    uint32_t rtok = pick_token(a ^ (u8() & 1));
    uint32_t flags = pick_flags();
    if (l)
        flags = inline_readable(flags, sgl, nsge);
    void *ctx = (void *)(uintptr_t)(step + 1);
    static const char *const name[] = { "ndk_send", "ndk_send_and_invalidate", "ndk_write",
                                        "ndk_read", "ndk_invalidate", "ndk_receive" };
    ndk_status st;
    switch (which) {
    case 0: st = ndk_send(qp, ctx, l, nsge, flags); break;
    case 1: st = ndk_send_and_invalidate(qp, ctx, l, nsge, flags, rtok); break;
    case 2: st = ndk_write(qp, ctx, l, nsge, raddr, rtok, flags); break;
    case 3: st = ndk_read(qp, ctx, l, nsge, raddr, rtok, flags); break;
    case 4: st = ndk_invalidate(qp, ctx, rtok, flags); break;
    default: st = ndk_receive(qp, ctx, l, nsge); break;
    }
    named(name[which], st);
    if (!g)
        must_refuse(name[which], st);
}

static void op_fast_register(int a)
{
    int gq, gm;
    ndk_qp *qp = pick(a, K_QP, &gq);
    ndk_mr *mr = pick(a, K_MR, &gm);
    uint64_t pages[16];
    uint32_t count = u8() % 17u;
    for (uint32_t i = 0; i < count; i++) {
        /* a page of a buffer (bits 0-1; bit 2 the second page in it; bit 7
         * the other adapter's), or bit 6: any page number */
        uint8_t b = u8();
        world *o = &W[a ^ ((b >> 7) & 1)];
        uint8_t *buf = o->buf[(b & 3) % NBUF];
        uint64_t page = buf && o->open
                            ? (ndk_dma_address(o->ad, buf) + 4095u) / 4096u * 4096u + 4096u * ((b >> 2) & 1u)
                            : 0;
        pages[i] = page;
        if (b & 0x40)
            pages[i] = (uint64_t)u32() << 12;
    }
    uint32_t fbo = u8() == 0xFF ? u32() : u16() & 0xFFFu;
    uint64_t len = length();
    uint64_t va = u32();
    va <<= 16;
    uint32_t flags = pick_flags();
    const uint64_t *list = u8() == 0xFF ? NULL : pages;
    ndk_status st = named("ndk_fast_register",
                          ndk_fast_register(qp, NULL, mr, count, list, fbo, (size_t)len, va, flags));
    if (!gq)
        must_refuse("ndk_fast_register", st);
}

static void op_bind(int a)
{
    int gq, gm, gw;
    ndk_qp *qp = pick(a, K_QP, &gq);
    ndk_mr *mr = pick(a, K_MR, &gm);
    ndk_mw *mw = pick(a, K_MW, &gw);
    uint64_t va = pick_addr(a);
    uint64_t len = length();
    uint32_t flags = pick_flags();
    ndk_status st = named("ndk_bind", ndk_bind(qp, NULL, mr, mw, va, (size_t)len, flags));
    if (!gq || !gm || !gw)
        must_refuse("ndk_bind", st);
}

static void op_prepare(int a)
{
    int g;
    ndk_qp *qp = pick(a, K_QP, &g);
    uint8_t which = u8() % 3;
    uint32_t nsge;
    const ndk_sge *l = pick_sgl(a, &nsge);
    uint64_t raddr = pick_addr(a);
    uint32_t rtok = pick_token(a);
    uint32_t flags = pick_flags();
    if (l)
        flags = inline_readable(flags, sgl, nsge);
    int ia = g && qp->ad != W[a].ad ? a ^ 1 : a;
    obj *s = free_slot(ia, K_PP);
    ndk_prepared *pp = NULL;
    ndk_prepared **out = s ? &pp : NULL;
    ndk_status st = which == 0   ? ndk_prepare_send(qp, l, nsge, flags, out)
                    : which == 1 ? ndk_prepare_write(qp, l, nsge, raddr, rtok, flags, out)
                                 : ndk_prepare_read(qp, l, nsge, raddr, rtok, flags, out);
    named("ndk_prepare_*", st);
    if (!g || !s)
        return must_refuse("ndk_prepare_*", st);
    if (st == NDK_STATUS_SUCCESS)
        *s = (obj){ pp, 1 };
}

static void op_post_prepared(int a)
{
    int g;
    ndk_prepared *pp = pick(a, K_PP, &g);
    ndk_status st = named("ndk_post_prepared", ndk_post_prepared(pp, NULL));
    if (!g)
        must_refuse("ndk_post_prepared", st);
}

static void op_results(int a)
{
    int g;
    ndk_cq *cq = pick(a, K_CQ, &g);
    uint32_t n = u8() % 9u;
    ndk_result_ex ex[8];
    ndk_result r[8];
    int use_ex = u8() & 1;
    int null_out = u8() == 0xFF;
    uint32_t got = use_ex ? ndk_get_cq_results_ex(cq, null_out ? NULL : ex, n)
                          : ndk_get_cq_results(cq, null_out ? NULL : r, n);
    if (got > n)
        fail("ndk_get_cq_results took %u of %u", got, n);
    if ((!g || null_out) && got)
        fail("ndk_get_cq_results gave %u results from a bad handle or into NULL", got);
    for (uint32_t i = 0; i < got; i++)
        named("a result's status", use_ex ? ex[i].status : r[i].status);
}

static void op_arm_wait(int a)
{
    int g;
    ndk_cq *cq = pick(a, K_CQ, &g);
    uint8_t b = u8();
    if (b & 0x80) {
        ndk_status st = named("ndk_wait_cq", ndk_wait_cq(cq, b & 1));
        if (!g)
            must_refuse("ndk_wait_cq", st);
    } else {
        ndk_arm_cq(cq, b % 4u == 3u ? u32() : b % 4u);
    }
}

/* The NIC's side: a CQE for the next request (or receive) of a QP, with a
 * fuzzed status and byte count, written into its CQ as the NIC would; or
 * a notification word of any bits. */
static void op_nic(int a)
{
    uint8_t b = u8();
    world *w = &W[a];
    if (!w->open)
        return;
    if (b & 0x80) {
        fake_notify(w->f, u32());
        return;
    }
    obj *s = &w->o[K_QP][(b & 7) % NOBJ]; /* bits 0-2 the QP, bit 3 its RQ */
    if (!s->live)
        return;
    ndk_qp *qp = s->p;
    int i = (int)(s - w->o[K_QP]);
    int recv = (b >> 3) & 1;
    ndk_cq *cq = recv ? qp->rcq : qp->scq;
    obj *cs = slot_of(a, K_CQ, cq);
    if (!cs)
        return;
    uint32_t *done = recv ? &w->rq_done[i] : &w->sq_done[i];
    uint32_t posted = recv ? qp->rq_pi : qp->sq_pi;
    uint32_t *pi = &w->cq_pi[cs - w->o[K_CQ]];
    if (*done == posted || *pi - cq->ci >= (1u << cq->log_depth))
        return; /* nothing to complete, or the CQ is full */
    uint32_t type = recv ? NDK_OP_TYPE_RECEIVE : NDK_OP_TYPE_SEND;
    uint32_t status = u8() & 15u;
    uint32_t bytes = u16();
    fake_put_cqe(cq, (*pi)++, qp->qpn, (*done)++ & 0xFFFFu, type, status, bytes, 0);
}

static void op_query(int a)
{
    int g;
    uint8_t b = u8();
    switch (b % 6) {
    case 0: {
        ndk_adapter *ad = pick_ad(a, &g);
        ndk_adapter_info info;
        ndk_status st = named("ndk_query_adapter_info", ndk_query_adapter_info(ad, (b & 8) ? NULL : &info));
        if (!g)
            must_refuse("ndk_query_adapter_info", st);
        break;
    }
    case 1: {
        ndk_adapter *ad = pick_ad(a, &g);
        ndk_counters c;
        ndk_status st = named("ndk_query_counters", ndk_query_counters(ad, (b & 8) ? NULL : &c));
        if (!g)
            must_refuse("ndk_query_counters", st);
        break;
    }
    case 2: {
        ndk_qp *qp = pick(a, K_QP, &g);
        uint32_t state;
        ndk_status st = named("ndk_query_qp_state", ndk_query_qp_state(qp, (b & 8) ? NULL : &state));
        if (!g)
            must_refuse("ndk_query_qp_state", st);
        if (!g && (ndk_qp_num(qp) != 0 || ndk_qp_address(qp).node != 0))
            fail("ndk_qp_num/ndk_qp_address of a bad handle are not 0");
        break;
    }
    case 3: {
        ndk_mr *mr = pick(a, K_MR, &g);
        if (!g && (ndk_mr_local_token(mr) || ndk_mr_remote_token(mr)))
            fail("tokens of a bad MR handle are not 0");
        ndk_mw *mw = pick(a, K_MW, &g);
        if (!g && ndk_mw_remote_token(mw))
            fail("the token of a bad MW handle is not 0");
        break;
    }
    case 4: {
        ndk_cq *cq = pick(a, K_CQ, &g);
        if (!g && ndk_cq_depth(cq))
            fail("the depth of a bad CQ handle is not 0");
        break;
    }
    default: {
        ndk_qp *qp = pick(a, K_QP, &g);
        ndk_status st = named("ndk_set_rnr_retry", ndk_set_rnr_retry(qp, u8() % 9u));
        if (!g)
            must_refuse("ndk_set_rnr_retry", st);
        ndk_qp *d = pick(a, K_QP, &g);
        st = named("ndk_disconnect", ndk_disconnect(d));
        if (!g)
            must_refuse("ndk_disconnect", st);
    }
    }
}

/* ndk_alloc_dma / ndk_free_dma / ndk_dma_address with any pointer. */
static void op_memory(int a)
{
    int g;
    ndk_adapter *ad = pick_ad(a, &g);
    uint8_t b = u8();
    world *w = &W[a];
    if (b & 1) {
        uint64_t len = length();
        void *p = ndk_alloc_dma(ad, (size_t)len);
        if (p && (!g || len == 0))
            fail("ndk_alloc_dma gave memory for a bad adapter or length 0");
        if (p && !w->buf[b % NBUF] && g && len >= BUF_BYTES)
            w->buf[b % NBUF] = p; /* becomes a caller buffer */
        else if (p)
            ndk_free_dma(ad, p);
    } else {
        /* any pointer: the caller's buffers, a ring (the QP's SQ), junk;
         * freeing a caller buffer takes it out of the world */
        uint8_t *p = (uint8_t *)(uintptr_t)pick_addr(a);
        obj *q = &w->o[K_QP][b % NOBJ];
        if ((b & 6) == 2 && q->live && w->open)
            p = ((ndk_qp *)q->p)->sq.host;
        (void)ndk_dma_address(ad, p);
        if ((b & 6) == 4) {
            for (int i = 0; i < NBUF; i++)
                if (w->buf[i] == p)
                    w->buf[i] = NULL; /* its regions stay; the library must cope */
            ndk_free_dma(ad, p);
        }
    }
}

/* The device dies: every later call on it is IO_ERROR, destroys still
 * work (ndk.h). */
static void op_kill(int a)
{
    if (u8() == 0xA5 && W[a].open)
        fake_kill(W[a].f);
}

/* ndk_close_adapter: DEVICE_BUSY while objects live (V10); once closed,
 * its old pointer is a dead handle for every later call. */
static void op_close(int a)
{
    int g;
    ndk_adapter *ad = pick_ad(a, &g);
    if (u8() != 0x5A)
        return; /* rare: it ends half the world */
    ndk_status st = named("ndk_close_adapter", ndk_close_adapter(ad));
    if (!g)
        return must_refuse("ndk_close_adapter", st);
    if (st == NDK_STATUS_SUCCESS) {
        W[a].open = 0;
        memset(W[a].buf, 0, sizeof W[a].buf); /* its DMA memory went with it */
        dead_adapter = ad;
    }
}

typedef void (*op_fn)(int a);
static const op_fn OPS[] = {
    op_create_pd, op_create_cq, op_create_qp, op_connect, op_destroy, op_create_mr_mw,
    op_register_mr, op_post, op_fast_register, op_bind, op_prepare, op_post_prepared,
    op_results, op_arm_wait, op_nic, op_query, op_memory, op_kill, op_close,
};
#define NOPS (sizeof OPS / sizeof OPS[0])

/* ------------------------------------------------------------ one input */

static void world_open(void)
{
    memset(W, 0, sizeof W);
    dead_adapter = NULL;
    for (int a = 0; a < NAD; a++) {
        W[a].f = fake_new(DMA_BYTES);
        W[a].f->consume_sq = 1;
        W[a].ad = fake_open(W[a].f);
        W[a].open = 1;
        for (int i = 0; i < NBUF; i++)
            if (!(W[a].buf[i] = ndk_alloc_dma(W[a].ad, BUF_BYTES)))
                fail("allocating caller buffer %d", i);
    }
}

/* Everything must go, in the order V10 asks: the library's reference counts
 * must agree with the objects left. */
static void world_close(void)
{
    static const enum kind order[] = { K_PP, K_MW, K_QP, K_MR, K_CQ, K_PD };
    static const char *const name[NKIND] = { "ndk_destroy_pd", "ndk_destroy_cq", "ndk_destroy_qp",
                                              "ndk_destroy_mr", "ndk_destroy_mw", "ndk_free_prepared" };
    for (int a = 0; a < NAD; a++) {
        for (unsigned j = 0; j < sizeof order / sizeof order[0]; j++) {
            enum kind k = order[j];
            for (int i = 0; i < NOBJ; i++) {
                obj *s = &W[a].o[k][i];
                if (!s->live)
                    continue;
                ndk_status st;
                switch (k) {
                case K_PD: st = ndk_destroy_pd(s->p); break;
                case K_CQ: st = ndk_destroy_cq(s->p); break;
                case K_QP: st = ndk_destroy_qp(s->p); break;
                case K_MR: st = ndk_destroy_mr(s->p); break;
                case K_MW: st = ndk_destroy_mw(s->p); break;
                default: st = ndk_free_prepared(s->p, NULL); break;
                }
                if (st != NDK_STATUS_SUCCESS)
                    fail("teardown: %s returned %s", name[k], ndk_status_str(st));
                s->live = 0;
            }
        }
        if (!W[a].open)
            continue;
        for (int i = 0; i < NBUF; i++)
            ndk_free_dma(W[a].ad, W[a].buf[i]);
        ndk_status st = ndk_close_adapter(W[a].ad);
        if (st != NDK_STATUS_SUCCESS)
            fail("teardown: ndk_close_adapter returned %s with every object destroyed", ndk_status_str(st));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    trace = getenv("QPNIC_FUZZ_TRACE") != NULL;
    in_p = data;
    in_n = size;
    world_open();
    for (step = 0; in_n && step < 256; step++) {
        uint8_t op = u8();
        int a = (op >> 7) & 1;
        OPS[(op & 0x7F) % NOPS](a);
    }
    world_close();
    return 0;
}
