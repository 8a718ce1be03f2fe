/* test_wire: the RoCEv2 wire's counters, through the public API
 * (ndk_query_counters), on a NIC whose packet port is on the wire
 * (qpnic-sim --wire, docs/wire.md) and on one that keeps its loopback;
 * and duplicated frames executing once (the expected PSN of each QP).
 *
 * Every request and every response is one frame while messages fit one
 * packet: WRITEs and SENDs are answered by an ACK each, READs by a
 * READ_RESPONSE_ONLY. On the simulator's wire a NIC's frames come back to
 * it, so each frame counts once sent and once received.
 *
 * The cases start their own simulators with or without --wire (through
 * QPNIC_SIM_ARGS, read at each adapter's open), so QPNIC_URI is ignored:
 * a board has no wire yet. */
#include "e2e.h"
#include "qpnic_hw.h"   /* QPNIC_CQE_BYTES: what a completion writes */

enum { WRITES = 8, READS = 4, SENDS = 2 };

/* The traffic every case runs (round: which fill of the buffers): every
 * byte checked, every completion SUCCESS, exactly one each. */
static void traffic(e2e_pair *p, uint32_t round)
{
    ndk_result_ex r;
    for (uint32_t i = 0; i < WRITES; i++) {
        uint32_t off = i * 512;
        e2e_fill(p->a.buf + off, 256, 1000 * round + 10 + i);
        ndk_sge g = e2e_sge(&p->a, off, 256);
        EXPECT_STATUS(ndk_write(p->a.qp, NULL, &g, 1, e2e_remote_addr(&p->b, off),
                                ndk_mr_remote_token(p->b.mr), 0), NDK_STATUS_SUCCESS);
        e2e_expect_one(p->a.icq, NDK_STATUS_SUCCESS, "write %u", i);
        EXPECT(memcmp(p->a.buf + off, p->b.buf + off, 256) == 0, "write %u: data differs", i);
    }
    for (uint32_t i = 0; i < READS; i++) {
        uint32_t off = 8192 + i * 1024;
        e2e_fill(p->b.buf + off, 512, 1000 * round + 30 + i);
        ndk_sge g = e2e_sge(&p->a, off, 512);
        EXPECT_STATUS(ndk_read(p->a.qp, NULL, &g, 1, e2e_remote_addr(&p->b, off),
                               ndk_mr_remote_token(p->b.mr), 0), NDK_STATUS_SUCCESS);
        e2e_expect_one(p->a.icq, NDK_STATUS_SUCCESS, "read %u", i);
        EXPECT(memcmp(p->a.buf + off, p->b.buf + off, 512) == 0, "read %u: data differs", i);
    }
    for (uint32_t i = 0; i < SENDS; i++) {
        uint32_t off = 16384 + i * 256;
        ndk_sge rg = e2e_sge(&p->b, off, 256);
        EXPECT_STATUS(ndk_receive(p->b.qp, NULL, &rg, 1), NDK_STATUS_SUCCESS);
        e2e_fill(p->a.buf + off, 100, 1000 * round + 50 + i);
        ndk_sge g = e2e_sge(&p->a, off, 100);
        EXPECT_STATUS(ndk_send(p->a.qp, NULL, &g, 1, 0), NDK_STATUS_SUCCESS);
        e2e_expect_one(p->a.icq, NDK_STATUS_SUCCESS, "send %u", i);
        r = e2e_expect_one(p->b.rcq, NDK_STATUS_SUCCESS, "receive %u", i);
        EXPECT(r.bytes_transferred == 100, "receive %u: %u bytes", i, r.bytes_transferred);
        EXPECT(memcmp(p->a.buf + off, p->b.buf + off, 100) == 0, "send %u: data differs", i);
    }
}

static void counters(ndk_adapter *ad, ndk_counters *c)
{
    EXPECT_STATUS(ndk_query_counters(ad, c), NDK_STATUS_SUCCESS);
}

static void wire_counts_each_frame_once(void)
{
    setenv("QPNIC_SIM_ARGS", "--wire", 1);
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_counters c0, c1;
    counters(p.ad, &c0);
    traffic(&p, 0);
    counters(p.ad, &c1);
    uint64_t want = 2 * (WRITES + READS + SENDS);   /* a request and its response each */
    EXPECT(c1.frames_sent - c0.frames_sent == want, "%llu frames sent, want %llu",
           (unsigned long long)(c1.frames_sent - c0.frames_sent), (unsigned long long)want);
    EXPECT(c1.frames_received - c0.frames_received == want, "%llu frames received, want %llu",
           (unsigned long long)(c1.frames_received - c0.frames_received), (unsigned long long)want);
    EXPECT(c1.frames_dropped == 0 && c1.icrc_errors == 0, "%llu frames dropped, %llu ICRC errors on a clean wire",
           (unsigned long long)c1.frames_dropped, (unsigned long long)c1.icrc_errors);
    e2e_pair_close(&p);
}

static void loopback_sends_no_frames(void)
{
    setenv("QPNIC_SIM_ARGS", "", 1);
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    traffic(&p, 0);
    ndk_counters c;
    counters(p.ad, &c);
    EXPECT(c.frames_sent == 0 && c.frames_received == 0 && c.frames_dropped == 0 && c.icrc_errors == 0,
           "the loopback counted frames: %llu sent, %llu received, %llu dropped, %llu ICRC errors",
           (unsigned long long)c.frames_sent, (unsigned long long)c.frames_received,
           (unsigned long long)c.frames_dropped, (unsigned long long)c.icrc_errors);
    EXPECT(c.dma_write_bytes > 0, "no traffic was counted at all");
    e2e_pair_close(&p);
}

/* Every frame delivered a second time with probability 1/5, the copy up to
 * 3 frames later (qpnic-sim --wire-dup): requests the responder sees twice
 * are acknowledged again and never executed again (a READ is answered
 * again), and the answers the completer gets twice are dropped. So each
 * request completes exactly once, the data is exact, and the NIC writes
 * exactly the bytes it writes on a clean wire: the payloads once and one
 * CQE per completion. The seed is printed; QPNIC_WIRE_SEED repeats it. */
static void duplicated_frames_execute_once(void)
{
    unsigned seed = e2e_env_uint("QPNIC_WIRE_SEED", 0);
    if (!seed)
        seed = (unsigned)(e2e_now_ms() % 1000000u) + 1;
    printf("duplicated_frames_execute_once: seed %u (QPNIC_WIRE_SEED=%u repeats it)\n", seed, seed);
    char args[96];
    snprintf(args, sizeof args, "--wire-dup 200000 --wire-seed %u", seed);
    setenv("QPNIC_SIM_ARGS", args, 1);
    enum { ROUNDS = 4 };
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    ndk_counters c0, c1;
    counters(p.ad, &c0);
    for (uint32_t round = 1; round <= ROUNDS; round++)
        traffic(&p, round);
    ndk_result_ex r;
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, &r, 1) == 0, "an initiator completion came twice");
    EXPECT(e2e_settle_and_poll(&p, p.b.rcq, &r, 1) == 0, "a receive completion came twice");
    counters(p.ad, &c1);
    uint64_t cqes = c1.cqes_written - c0.cqes_written;
    uint64_t want_cqes = ROUNDS * (WRITES + READS + 2 * SENDS);   /* a SEND completes on both sides */
    EXPECT(cqes == want_cqes, "%llu CQEs written, want %llu", (unsigned long long)cqes,
           (unsigned long long)want_cqes);
    uint64_t wrote = c1.dma_write_bytes - c0.dma_write_bytes;
    uint64_t want = ROUNDS * (WRITES * 256 + READS * 512 + SENDS * 100) + want_cqes * QPNIC_CQE_BYTES;
    EXPECT(wrote == want, "%llu bytes written by DMA, want %llu: a duplicate executed", (unsigned long long)wrote,
           (unsigned long long)want);
    /* Frames: one per request and one per response on a clean wire
     * (clean); each request received twice is answered again (sent -
     * clean of them), and every frame received twice counts once more
     * received. Every such extra is a duplicate: the request at the
     * responder, the extra answer and every copy of a response at the
     * completer. */
    uint64_t clean = 2 * ROUNDS * (WRITES + READS + SENDS);
    uint64_t sent = c1.frames_sent - c0.frames_sent, got = c1.frames_received - c0.frames_received;
    EXPECT(sent >= clean, "%llu frames sent, fewer than the %llu requests and responses",
           (unsigned long long)sent, (unsigned long long)clean);
    EXPECT(got > sent, "%llu frames received for %llu sent: nothing was duplicated (seed %u)",
           (unsigned long long)got, (unsigned long long)sent, seed);
    EXPECT(c1.duplicates - c0.duplicates == got - clean,
           "%llu duplicates counted, want %llu: %llu frames received beyond the %llu of a clean wire",
           (unsigned long long)(c1.duplicates - c0.duplicates), (unsigned long long)(got - clean),
           (unsigned long long)(got - clean), (unsigned long long)clean);
    EXPECT(c1.frames_dropped == 0 && c1.icrc_errors == 0, "frames dropped on a wire that only duplicates");
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
    unsetenv("QPNIC_URI");
#define C(f) { #f, f }
    static const e2e_case cases[] = {
        C(wire_counts_each_frame_once),
        C(loopback_sends_no_frames),
        C(duplicated_frames_execute_once),
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
