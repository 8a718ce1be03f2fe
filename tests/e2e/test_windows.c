/* test_windows.c: memory windows end to end (ndk_create_mw, ndk_bind,
 * ndk_mw_remote_token, ndk_destroy_mw), through the requester's BIND, the
 * token table and the responder's checks.
 *
 * Side b binds a window over part of its buffer's region (b.mr) on its own
 * QP; side a's WRITEs and READs name the window's token. What must hold:
 * the window opens its range and nothing beyond it, with its own rights;
 * it is never a local token; each bind gives a new token and the old one
 * dies; an Invalidate or a SendAndInvalidate of its token closes it and a
 * second one fails (C5); a region with a bound window cannot be destroyed
 * (V10); a bind the NIC cannot honour (its region invalidated first)
 * completes ACCESS_VIOLATION and opens nothing; inline failures post
 * nothing and change nothing (D3, D5); Bind takes DEFER (D1).
 *
 * A remote access that fails puts a's QP in ERROR, so each case ends with
 * at most one such failure, or opens a new pair.
 */
#include "e2e.h"

#define CTX(i) ((void *)(uintptr_t)(0x3000u + (i)))
#define RR NDK_OP_FLAG_ALLOW_REMOTE_READ
#define RW NDK_OP_FLAG_ALLOW_REMOTE_WRITE

/* The window's range: WIN_LEN bytes at WIN_OFF of b's buffer. */
#define WIN_OFF 4096u
#define WIN_LEN 256u

static uint64_t b_va(const e2e_pair *p, uint32_t off)
{
    return (uint64_t)(uintptr_t)(p->b.buf + off);
}

/* Bind mw over [WIN_OFF + off, +len) of b's region on b's QP; returns the
 * completion's status (type BIND and context checked). */
static ndk_status bind_b(e2e_pair *p, ndk_mw *mw, uint32_t off, uint32_t len, uint32_t flags)
{
    EXPECT_STATUS(ndk_bind(p->b.qp, CTX(1), p->b.mr, mw, b_va(p, WIN_OFF + off), len, flags),
                  NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p->b.icq, &r, 1, 10000) == 1, "the Bind never completed");
    EXPECT(r.type == NDK_OP_TYPE_BIND && r.request_context == CTX(1),
           "the Bind completed as type 0x%x context %p, expected BIND %p", r.type, r.request_context, CTX(1));
    return r.status;
}

/* A pair whose side b bound a window over [WIN_OFF, +WIN_LEN) of its region
 * with the rights in flags; returns the window's token. */
static uint32_t open_bound(e2e_pair *p, ndk_mw **mw, uint32_t flags)
{
    e2e_pair_open(p, NULL);
    EXPECT_STATUS(ndk_create_mw(p->pd, mw), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(bind_b(p, *mw, 0, WIN_LEN, flags), NDK_STATUS_SUCCESS);
    return ndk_mw_remote_token(*mw);
}

static void close_bound(e2e_pair *p, ndk_mw *mw)
{
    EXPECT_STATUS(ndk_destroy_mw(mw), NDK_STATUS_SUCCESS);
    e2e_pair_close(p);
}

/* a WRITEs len bytes of its buffer to b's address va under token: status. */
static ndk_status a_write(e2e_pair *p, uint64_t va, uint32_t len, uint32_t token)
{
    ndk_sge g = e2e_sge(&p->a, 0, len);
    EXPECT_STATUS(ndk_write(p->a.qp, CTX(2), &g, 1, va, token, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p->a.icq, &r, 1, 10000) == 1, "the WRITE never completed");
    return r.status;
}

/* a READs len bytes from b's address va under token into a's buffer at
 * 16 KiB: status. */
static ndk_status a_read(e2e_pair *p, uint64_t va, uint32_t len, uint32_t token)
{
    ndk_sge g = e2e_sge(&p->a, 16384, len);
    EXPECT_STATUS(ndk_read(p->a.qp, CTX(3), &g, 1, va, token, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p->a.icq, &r, 1, 10000) == 1, "the READ never completed");
    return r.status;
}

static int all_zero(const uint8_t *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* The window's range serves WRITE and READ, translated to b's bytes; its
 * last byte is inside, the byte after it is not. */
static void bind_opens_its_range_for_write_and_read(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_mw *mw;
    EXPECT_STATUS(ndk_create_mw(p.pd, &mw), NDK_STATUS_SUCCESS);
    uint32_t before = ndk_mw_remote_token(mw);
    EXPECT(before != 0, "a new window has token 0");
    EXPECT_STATUS(bind_b(&p, mw, 0, WIN_LEN, RR | RW), NDK_STATUS_SUCCESS);
    uint32_t t = ndk_mw_remote_token(mw);
    EXPECT(t != before && t != ndk_mr_remote_token(p.b.mr), "the bound window's token 0x%x is not new", t);
    memset(p.b.buf, 0, 8192);
    e2e_fill(p.a.buf, 64, 31);
    EXPECT_STATUS(a_write(&p, b_va(&p, WIN_OFF + 16), 64, t), NDK_STATUS_SUCCESS);
    EXPECT(memcmp(p.b.buf + WIN_OFF + 16, p.a.buf, 64) == 0, "the WRITE through the window did not land");
    EXPECT(all_zero(p.b.buf, WIN_OFF + 16) && all_zero(p.b.buf + WIN_OFF + 80, 8192 - WIN_OFF - 80),
           "the WRITE through the window changed bytes outside its target");
    EXPECT_STATUS(a_read(&p, b_va(&p, WIN_OFF + 16), 64, t), NDK_STATUS_SUCCESS);
    EXPECT(memcmp(p.a.buf + 16384, p.a.buf, 64) == 0, "the READ through the window brought other bytes");
    EXPECT_STATUS(a_write(&p, b_va(&p, WIN_OFF + WIN_LEN - 1), 1, t), NDK_STATUS_SUCCESS);
    /* one byte past the end: refused at b's NIC, nothing lands */
    p.a.buf[0] ^= 0xFF;
    ndk_status st = a_write(&p, b_va(&p, WIN_OFF + WIN_LEN - 1), 2, t);
    EXPECT(st == NDK_STATUS_REMOTE_ACCESS_ERROR, "a WRITE one byte past the window completed %s",
           ndk_status_str(st));
    EXPECT(p.b.buf[WIN_OFF + WIN_LEN] == 0, "the refused WRITE landed past the window");
    close_bound(&p, mw);
}

/* Rights are the window's, on every access: a read-only window refuses a
 * WRITE though its region allows remote writes; a byte before the window
 * is refused too (a new pair for each failure). */
static void window_rights_and_start_are_checked(void)
{
    for (int c = 0; c < 2; c++) {
        e2e_pair p;
        ndk_mw *mw;
        uint32_t t = open_bound(&p, &mw, c == 0 ? RR : RR | RW);
        memset(p.b.buf, 0, 8192);
        e2e_fill(p.a.buf, 64, 32);
        uint64_t va = c == 0 ? b_va(&p, WIN_OFF) : b_va(&p, WIN_OFF - 1);
        ndk_status st = a_write(&p, va, 16, t);
        EXPECT(st == NDK_STATUS_REMOTE_ACCESS_ERROR, "%s completed %s, expected REMOTE_ACCESS_ERROR",
               c == 0 ? "a WRITE through a read-only window" : "a WRITE one byte before the window",
               ndk_status_str(st));
        EXPECT(all_zero(p.b.buf, 8192), "a refused WRITE changed b's bytes");
        close_bound(&p, mw);
    }
}

/* A window's token is not a local token: b's SEND gathering through it is
 * refused before any DMA. */
static void window_token_is_never_a_local_token(void)
{
    e2e_pair p;
    ndk_mw *mw;
    uint32_t t = open_bound(&p, &mw, RR | RW);
    ndk_sge r = e2e_sge(&p.a, 0, 256);
    EXPECT_STATUS(ndk_receive(p.a.qp, CTX(4), &r, 1), NDK_STATUS_SUCCESS);
    ndk_sge g = { b_va(&p, WIN_OFF), 64, t };
    EXPECT_STATUS(ndk_send(p.b.qp, CTX(5), &g, 1, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex s;
    EXPECT(e2e_poll(p.b.icq, &s, 1, 10000) == 1, "the SEND never completed");
    EXPECT(s.status == NDK_STATUS_ACCESS_VIOLATION,
           "a SEND gathering through a window's token completed %s, expected ACCESS_VIOLATION",
           ndk_status_str(s.status));
    EXPECT(e2e_settle_and_poll(&p, p.a.rcq, &s, 1) == 0, "the refused SEND reached the receiver");
    close_bound(&p, mw);
}

/* Binding again moves the window and gives a new token: the new range
 * works with the new token, the old token fails. */
static void rebind_moves_the_window_and_kills_the_old_token(void)
{
    e2e_pair p;
    ndk_mw *mw;
    uint32_t t1 = open_bound(&p, &mw, RR | RW);
    EXPECT_STATUS(bind_b(&p, mw, 1024, WIN_LEN, RR | RW), NDK_STATUS_SUCCESS);
    uint32_t t2 = ndk_mw_remote_token(mw);
    EXPECT(t2 != t1, "a second bind kept the token 0x%x", t1);
    memset(p.b.buf, 0, 8192);
    e2e_fill(p.a.buf, 32, 33);
    EXPECT_STATUS(a_write(&p, b_va(&p, WIN_OFF + 1024), 32, t2), NDK_STATUS_SUCCESS);
    EXPECT(memcmp(p.b.buf + WIN_OFF + 1024, p.a.buf, 32) == 0, "the WRITE through the moved window did not land");
    ndk_status st = a_write(&p, b_va(&p, WIN_OFF + 1024), 32, t1);
    EXPECT(st == NDK_STATUS_REMOTE_ACCESS_ERROR, "the window's previous token still works (%s)",
           ndk_status_str(st));
    close_bound(&p, mw);
}

/* Invalidate of the window's token (C5 for windows): SUCCESS, then the
 * window is closed while its region still serves its own token, and a
 * second Invalidate fails INVALID_TOKEN (last: a failed request puts b's
 * QP in ERROR, and a's requests to it would fail for that alone). */
static void invalidate_closes_the_window_not_its_region(void)
{
    e2e_pair p;
    ndk_mw *mw;
    uint32_t t = open_bound(&p, &mw, RR | RW);
    ndk_result_ex r;
    EXPECT_STATUS(ndk_invalidate(p.b.qp, CTX(6), t, 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.b.icq, &r, 1, 10000) == 1, "the Invalidate never completed");
    EXPECT(r.status == NDK_STATUS_SUCCESS && r.type == NDK_OP_TYPE_INVALIDATE,
           "the Invalidate of a window's token completed %s type 0x%x", ndk_status_str(r.status), r.type);
    EXPECT_STATUS(a_write(&p, b_va(&p, WIN_OFF), 16, ndk_mr_remote_token(p.b.mr)), NDK_STATUS_SUCCESS);
    ndk_status st = a_write(&p, b_va(&p, WIN_OFF), 16, t);
    EXPECT(st == NDK_STATUS_REMOTE_ACCESS_ERROR, "a WRITE through an invalidated window completed %s",
           ndk_status_str(st));
    EXPECT_STATUS(ndk_invalidate(p.b.qp, CTX(7), t, 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.b.icq, &r, 1, 10000) == 1, "the second Invalidate never completed");
    EXPECT(r.status == NDK_STATUS_INVALID_TOKEN, "C5: a second Invalidate of a window's token completed %s",
           ndk_status_str(r.status));
    close_bound(&p, mw);
}

/* A SendAndInvalidate naming the window's token: b's receive completes as
 * RECEIVE_AND_INVALIDATE with the token, and the window is closed. */
static void send_and_invalidate_closes_a_window(void)
{
    e2e_pair p;
    ndk_mw *mw;
    uint32_t t = open_bound(&p, &mw, RR | RW);
    ndk_sge r = e2e_sge(&p.b, 0, 256);
    EXPECT_STATUS(ndk_receive(p.b.qp, CTX(8), &r, 1), NDK_STATUS_SUCCESS);
    ndk_sge g = e2e_sge(&p.a, 0, 64);
    EXPECT_STATUS(ndk_send_and_invalidate(p.a.qp, CTX(9), &g, 1, 0, t), NDK_STATUS_SUCCESS);
    ndk_result_ex s;
    EXPECT(e2e_poll(p.a.icq, &s, 1, 10000) == 1 && s.status == NDK_STATUS_SUCCESS,
           "the SendAndInvalidate of a window's token did not complete SUCCESS");
    EXPECT(e2e_poll(p.b.rcq, &s, 1, 10000) == 1, "no receive completion");
    EXPECT(s.status == NDK_STATUS_SUCCESS && s.type == NDK_OP_TYPE_RECEIVE_AND_INVALIDATE &&
               s.type_specific == t,
           "the receive completed %s type 0x%x token 0x%x, expected RECEIVE_AND_INVALIDATE of 0x%x",
           ndk_status_str(s.status), s.type, (unsigned)s.type_specific, t);
    ndk_status st = a_write(&p, b_va(&p, WIN_OFF), 16, t);
    EXPECT(st == NDK_STATUS_REMOTE_ACCESS_ERROR, "a WRITE through the remotely invalidated window completed %s",
           ndk_status_str(st));
    close_bound(&p, mw);
}

/* V10: a region with a bound window cannot be destroyed; after the
 * window's destroy it can, and the window's token is dead. */
static void region_with_a_bound_window_cannot_be_destroyed(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(mr, p.b.buf + 32768, 4096, NDK_MR_FLAG_ALLOW_REMOTE_WRITE),
                  NDK_STATUS_SUCCESS);
    ndk_mw *mw;
    EXPECT_STATUS(ndk_create_mw(p.pd, &mw), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_bind(p.b.qp, CTX(10), mr, mw, b_va(&p, 32768), 512, RW), NDK_STATUS_SUCCESS);
    ndk_result_ex r;
    EXPECT(e2e_poll(p.b.icq, &r, 1, 10000) == 1 && r.status == NDK_STATUS_SUCCESS,
           "the Bind did not complete SUCCESS");
    uint32_t t = ndk_mw_remote_token(mw);
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_DEVICE_BUSY);
    EXPECT_STATUS(a_write(&p, b_va(&p, 32768), 16, t), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_mw(mw), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    ndk_status st = a_write(&p, b_va(&p, 32768), 16, t);
    EXPECT(st == NDK_STATUS_REMOTE_ACCESS_ERROR, "a destroyed window's token still works (%s)",
           ndk_status_str(st));
    e2e_pair_close(&p);
}

/* Inline failures post nothing (D3), hand over a held chain (D5), and
 * change neither the window's token nor what it opens. */
static void bind_inline_failures_change_nothing(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_pd *other;
    EXPECT_STATUS(ndk_create_pd(p.ad, &other), NDK_STATUS_SUCCESS);
    ndk_mw *mw, *foreign;
    EXPECT_STATUS(ndk_create_mw(p.pd, &mw), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_create_mw(other, &foreign), NDK_STATUS_SUCCESS);
    ndk_mr *unreg, *ro;
    EXPECT_STATUS(ndk_create_mr(p.pd, &unreg), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_create_mr(p.pd, &ro), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(ro, p.b.buf + 32768, 4096, NDK_MR_FLAG_ALLOW_REMOTE_READ),
                  NDK_STATUS_SUCCESS);
    uint32_t t = ndk_mw_remote_token(mw);
    uint64_t lo = (uint64_t)(uintptr_t)p.b.buf, end = lo + E2E_BUF_BYTES;
    struct {
        const char *what;
        ndk_mr *mr;
        ndk_mw *mw;
        uint64_t va;
        size_t len;
        uint32_t flags;
        ndk_status want;
    } bad[] = {
        { "length 0", p.b.mr, mw, lo, 0, RR, NDK_STATUS_INVALID_PARAMETER },
        { "a range past the region's end", p.b.mr, mw, end - 8, 16, RR, NDK_STATUS_INVALID_PARAMETER },
        { "a range starting before the region", p.b.mr, mw, lo - 1, 16, RR, NDK_STATUS_INVALID_PARAMETER },
        { "a window of another PD", p.b.mr, foreign, lo, 16, RR, NDK_STATUS_INVALID_PARAMETER },
        { "no MR", NULL, mw, lo, 16, RR, NDK_STATUS_INVALID_PARAMETER },
        { "no MW", p.b.mr, NULL, lo, 16, RR, NDK_STATUS_INVALID_PARAMETER },
        { "an unknown flag", p.b.mr, mw, lo, 16, RR | 0x80u, NDK_STATUS_INVALID_PARAMETER },
        { "REMOTE_WRITE's own bit without LOCAL_WRITE's", p.b.mr, mw, lo, 16, RW & ~NDK_OP_FLAG_ALLOW_LOCAL_WRITE,
          NDK_STATUS_INVALID_PARAMETER },
        { "an unregistered MR", unreg, mw, lo, 16, RR, NDK_STATUS_INVALID_DEVICE_STATE },
        { "REMOTE_WRITE on a region without LOCAL_WRITE", ro, mw, lo + 32768, 16, RW,
          NDK_STATUS_ACCESS_VIOLATION },
    };
    ndk_sge g = e2e_sge(&p.b, 0, 16);
    ndk_sge rr = e2e_sge(&p.a, 0, 256);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* a held SEND first: the failure must hand it over (D5) */
        EXPECT_STATUS(ndk_receive(p.a.qp, NULL, &rr, 1), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_send(p.b.qp, CTX(20 + i), &g, 1, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
        ndk_status st = ndk_bind(p.b.qp, CTX(40), bad[i].mr, bad[i].mw, bad[i].va, bad[i].len, bad[i].flags);
        EXPECT(st == bad[i].want, "a Bind with %s returned %s, expected %s", bad[i].what, ndk_status_str(st),
               ndk_status_str(bad[i].want));
        ndk_result_ex r[2];
        EXPECT(e2e_poll(p.b.icq, r, 1, 10000) == 1 && r[0].request_context == CTX(20 + i),
               "D5: the SEND held before a Bind with %s never completed", bad[i].what);
        EXPECT(e2e_settle_and_poll(&p, p.b.icq, r, 2) == 0, "D3: a Bind with %s completed", bad[i].what);
        EXPECT(e2e_poll(p.a.rcq, r, 1, 10000) == 1, "the held SEND's receive never completed");
        EXPECT(ndk_mw_remote_token(mw) == t, "a Bind with %s changed the window's token", bad[i].what);
    }
    EXPECT_STATUS(ndk_bind(NULL, NULL, p.b.mr, mw, lo, 16, RR), NDK_STATUS_INVALID_PARAMETER);
    /* the window still opens nothing */
    ndk_status st = a_write(&p, lo, 16, t);
    EXPECT(st == NDK_STATUS_REMOTE_ACCESS_ERROR, "a window whose binds all failed inline opened (%s)",
           ndk_status_str(st));
    EXPECT_STATUS(ndk_destroy_mr(ro), NDK_STATUS_SUCCESS);  /* no window was bound to it */
    EXPECT_STATUS(ndk_destroy_mr(unreg), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_mw(foreign), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_mw(mw), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_pd(other), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* The NIC checks the region when the bind runs: a region invalidated
 * earlier in the same SQ makes the bind complete ACCESS_VIOLATION, and the
 * window opens nothing: its entry was never written, so an Invalidate of
 * its token (from a's QP: b's is in ERROR after the failed bind) finds no
 * valid entry, and no byte moved. */
static void bind_of_a_region_invalidated_before_it_fails_at_the_nic(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_mr *mr;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(mr, p.b.buf + 32768, 4096,
                                  NDK_MR_FLAG_ALLOW_REMOTE_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ),
                  NDK_STATUS_SUCCESS);
    ndk_mw *mw;
    EXPECT_STATUS(ndk_create_mw(p.pd, &mw), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_invalidate(p.b.qp, CTX(50), ndk_mr_local_token(mr), NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_bind(p.b.qp, CTX(51), mr, mw, b_va(&p, 32768), 64, RR | RW), NDK_STATUS_SUCCESS);
    ndk_result_ex r[2];
    EXPECT(e2e_poll(p.b.icq, r, 2, 10000) == 2, "the Invalidate and the Bind did not both complete");
    EXPECT(r[0].status == NDK_STATUS_SUCCESS && r[0].request_context == CTX(50),
           "the Invalidate completed %s", ndk_status_str(r[0].status));
    EXPECT(r[1].status == NDK_STATUS_ACCESS_VIOLATION && r[1].type == NDK_OP_TYPE_BIND,
           "a Bind of an invalidated region completed %s type 0x%x, expected ACCESS_VIOLATION BIND",
           ndk_status_str(r[1].status), r[1].type);
    EXPECT_STATUS(ndk_invalidate(p.a.qp, CTX(52), ndk_mw_remote_token(mw), 0), NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, r, 1, 10000) == 1, "the Invalidate of the window's token never completed");
    EXPECT(r[0].status == NDK_STATUS_INVALID_TOKEN,
           "the window of a failed Bind is valid at the NIC: its Invalidate completed %s",
           ndk_status_str(r[0].status));
    EXPECT_STATUS(ndk_destroy_mw(mw), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* D1 for Bind, in the seed's pattern: FastRegister(DEFER), Bind(DEFER) of
 * the region it registers, Send: one doorbell for the three, completions
 * in order, and the window works once they are done. */
static void D1_fast_register_bind_send_chain_one_doorbell(void)
{
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    void *block;
    uint8_t *page = e2e_pages(&p, 1, &block);
    uint64_t list[1] = { ndk_dma_address(p.ad, page) };
    const uint64_t base_va = 0x6100000000ull;
    ndk_mr *mr;
    ndk_mw *mw;
    EXPECT_STATUS(ndk_create_mr(p.pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_create_mw(p.pd, &mw), NDK_STATUS_SUCCESS);
    ndk_sge rr = e2e_sge(&p.a, 0, 256);
    EXPECT_STATUS(ndk_receive(p.a.qp, NULL, &rr, 1), NDK_STATUS_SUCCESS);
    ndk_counters c0, c1;
    EXPECT_STATUS(ndk_query_counters(p.ad, &c0), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_fast_register(p.b.qp, CTX(60), mr, 1, list, 0, 4096, base_va,
                                    NDK_OP_FLAG_ALLOW_REMOTE_WRITE | NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_bind(p.b.qp, CTX(61), mr, mw, base_va + 512, 128, RW | NDK_OP_FLAG_DEFER),
                  NDK_STATUS_SUCCESS);
    ndk_sge g = e2e_sge(&p.b, 0, 16);
    EXPECT_STATUS(ndk_send(p.b.qp, CTX(62), &g, 1, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r[3];
    EXPECT(e2e_poll(p.b.icq, r, 3, 10000) == 3, "the chain of three did not complete");
    EXPECT_STATUS(ndk_query_counters(p.ad, &c1), NDK_STATUS_SUCCESS);
    EXPECT(c1.doorbells - c0.doorbells == 1, "D1: the chain rang %llu doorbells, expected 1",
           (unsigned long long)(c1.doorbells - c0.doorbells));
    static const uint32_t types[3] = { NDK_OP_TYPE_FAST_REGISTER, NDK_OP_TYPE_BIND, NDK_OP_TYPE_SEND };
    for (int i = 0; i < 3; i++)
        EXPECT(r[i].status == NDK_STATUS_SUCCESS && r[i].request_context == CTX(60 + i) && r[i].type == types[i],
               "completion %d: %s context %p type 0x%x", i, ndk_status_str(r[i].status), r[i].request_context,
               r[i].type);
    e2e_fill(p.a.buf + 1024, 32, 34);
    ndk_sge w = e2e_sge(&p.a, 1024, 32);
    EXPECT_STATUS(ndk_write(p.a.qp, CTX(63), &w, 1, base_va + 512 + 8, ndk_mw_remote_token(mw), 0),
                  NDK_STATUS_SUCCESS);
    EXPECT(e2e_poll(p.a.icq, r, 1, 10000) == 1 && r[0].status == NDK_STATUS_SUCCESS,
           "a WRITE through the window on a fast-registered region did not complete SUCCESS");
    EXPECT(memcmp(page + 512 + 8, p.a.buf + 1024, 32) == 0, "the WRITE did not land in the fast-registered page");
    EXPECT_STATUS(ndk_destroy_mw(mw), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    ndk_free_dma(p.ad, block);
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
    static const e2e_case cases[] = {
        { "bind_opens_its_range_for_write_and_read", bind_opens_its_range_for_write_and_read },
        { "window_rights_and_start_are_checked", window_rights_and_start_are_checked },
        { "window_token_is_never_a_local_token", window_token_is_never_a_local_token },
        { "rebind_moves_the_window_and_kills_the_old_token", rebind_moves_the_window_and_kills_the_old_token },
        { "invalidate_closes_the_window_not_its_region", invalidate_closes_the_window_not_its_region },
        { "send_and_invalidate_closes_a_window", send_and_invalidate_closes_a_window },
        { "region_with_a_bound_window_cannot_be_destroyed", region_with_a_bound_window_cannot_be_destroyed },
        { "bind_inline_failures_change_nothing", bind_inline_failures_change_nothing },
        { "bind_of_a_region_invalidated_before_it_fails_at_the_nic",
          bind_of_a_region_invalidated_before_it_fails_at_the_nic },
        { "D1_fast_register_bind_send_chain_one_doorbell", D1_fast_register_bind_send_chain_one_doorbell },
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
