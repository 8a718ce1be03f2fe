/* test_wire: the RoCEv2 wire's counters, through the public API
 * (ndk_query_counters), on a NIC whose packet port is on the wire
 * (qpnic-sim --wire, docs/wire.md) and on one that keeps its loopback.
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

enum { WRITES = 8, READS = 4, SENDS = 2 };

/* The traffic both cases run: every byte checked, every completion
 * SUCCESS. */
static void traffic(e2e_pair *p)
{
    ndk_result_ex r;
    for (uint32_t i = 0; i < WRITES; i++) {
        uint32_t off = i * 512;
        e2e_fill(p->a.buf + off, 256, 10 + i);
        ndk_sge g = e2e_sge(&p->a, off, 256);
        EXPECT_STATUS(ndk_write(p->a.qp, NULL, &g, 1, e2e_remote_addr(&p->b, off),
                                ndk_mr_remote_token(p->b.mr), 0), NDK_STATUS_SUCCESS);
        e2e_expect_one(p->a.icq, NDK_STATUS_SUCCESS, "write %u", i);
        EXPECT(memcmp(p->a.buf + off, p->b.buf + off, 256) == 0, "write %u: data differs", i);
    }
    for (uint32_t i = 0; i < READS; i++) {
        uint32_t off = 8192 + i * 1024;
        e2e_fill(p->b.buf + off, 512, 30 + i);
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
        e2e_fill(p->a.buf + off, 100, 50 + i);
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
    traffic(&p);
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
    traffic(&p);
    ndk_counters c;
    counters(p.ad, &c);
    EXPECT(c.frames_sent == 0 && c.frames_received == 0 && c.frames_dropped == 0 && c.icrc_errors == 0,
           "the loopback counted frames: %llu sent, %llu received, %llu dropped, %llu ICRC errors",
           (unsigned long long)c.frames_sent, (unsigned long long)c.frames_received,
           (unsigned long long)c.frames_dropped, (unsigned long long)c.icrc_errors);
    EXPECT(c.dma_write_bytes > 0, "no traffic was counted at all");
    e2e_pair_close(&p);
}

int main(int argc, char **argv)
{
    unsetenv("QPNIC_URI");
#define C(f) { #f, f }
    static const e2e_case cases[] = {
        C(wire_counts_each_frame_once),
        C(loopback_sends_no_frames),
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
