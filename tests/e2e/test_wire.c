/* test_wire: the RoCEv2 wire's counters, through the public API
 * (ndk_query_counters), on a NIC whose packet port is on the wire
 * (qpnic-sim --wire, docs/wire.md) and on one that keeps its loopback;
 * duplicated frames executing once (the expected PSN of each QP), lost
 * frames sent again after the retransmit timeout, and retries running out.
 *
 * Every request and every response is one frame while messages fit one
 * packet of the path MTU (1024 unless QPNIC_PATH_MTU says otherwise):
 * WRITEs and SENDs are answered by an ACK each, READs by a
 * READ_RESPONSE_ONLY. Longer messages go in segments (docs/wire.md,
 * "Segments"). On the simulator's wire a NIC's frames come back to it, so
 * each frame counts once sent and once received.
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

/* The pair's counters: its NIC's, or both NICs' added up. */
static void pair_counters(e2e_pair *p, ndk_counters *c)
{
    counters(p->ad, c);
    if (p->ad_b == p->ad)
        return;
    ndk_counters b;
    counters(p->ad_b, &b);
    c->cqes_written += b.cqes_written;
    c->dma_write_bytes += b.dma_write_bytes;
    c->frames_sent += b.frames_sent;
    c->frames_received += b.frames_received;
    c->frames_dropped += b.frames_dropped;
    c->icrc_errors += b.icrc_errors;
    c->duplicates += b.duplicates;
    c->retransmits += b.retransmits;
    c->naks += b.naks;
    c->wire_payload_bytes += b.wire_payload_bytes;
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
    /* every payload byte once: the WRITEs' and SENDs' in their requests,
     * the READs' in their responses; no NAK */
    uint64_t bytes = WRITES * 256 + READS * 512 + SENDS * 100;
    EXPECT(c1.wire_payload_bytes - c0.wire_payload_bytes == bytes, "%llu payload bytes on the wire, want %llu",
           (unsigned long long)(c1.wire_payload_bytes - c0.wire_payload_bytes), (unsigned long long)bytes);
    EXPECT(c1.naks == c0.naks, "%llu NAKs on a clean wire", (unsigned long long)(c1.naks - c0.naks));
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
    EXPECT(c.wire_payload_bytes == 0, "the loopback counted %llu payload bytes on the wire",
           (unsigned long long)c.wire_payload_bytes);
    e2e_pair_close(&p);
}

/* The seed of an impaired run: QPNIC_WIRE_SEED, else the clock; printed. */
static unsigned wire_seed(const char *name)
{
    unsigned seed = e2e_env_uint("QPNIC_WIRE_SEED", 0);
    if (!seed)
        seed = (unsigned)(e2e_now_ms() % 1000000u) + 1;
    printf("%s: seed %u (QPNIC_WIRE_SEED=%u repeats it)\n", name, seed, seed);
    return seed;
}

/* ROUNDS of traffic on a wire with these impairment arguments (seeded),
 * then: no completion twice, one CQE per completion, and the DMA bytes
 * written exactly a clean wire's (the payloads once, the CQEs). Leaves the
 * counters before and after in *c0, *c1 and the pair open in *p. */
enum { ROUNDS = 4 };
static void impaired_rounds_on(e2e_pair *p, const e2e_opts *o, uint32_t rounds, const char *impair,
                               unsigned seed, ndk_counters *c0, ndk_counters *c1)
{
    char args[160];
    snprintf(args, sizeof args, "%s --wire-seed %u", impair, seed);
    setenv("QPNIC_SIM_ARGS", args, 1);
    e2e_pair_open(p, o);
    pair_counters(p, c0);
    for (uint32_t round = 1; round <= rounds; round++)
        traffic(p, round);
    ndk_result_ex r;
    EXPECT(e2e_settle_and_poll(p, p->a.icq, &r, 1) == 0, "an initiator completion came twice");
    EXPECT(e2e_settle_and_poll(p, p->b.rcq, &r, 1) == 0, "a receive completion came twice");
    pair_counters(p, c1);
    uint64_t want_cqes = rounds * (WRITES + READS + 2 * SENDS);   /* a SEND completes on both sides */
    uint64_t cqes = c1->cqes_written - c0->cqes_written;
    EXPECT(cqes == want_cqes, "%llu CQEs written, want %llu", (unsigned long long)cqes,
           (unsigned long long)want_cqes);
    uint64_t wrote = c1->dma_write_bytes - c0->dma_write_bytes;
    uint64_t want = rounds * (WRITES * 256 + READS * 512 + SENDS * 100) + want_cqes * QPNIC_CQE_BYTES;
    EXPECT(wrote == want, "%llu bytes written by DMA, want %llu: a request executed twice (seed %u)",
           (unsigned long long)wrote, (unsigned long long)want, seed);
}

static void impaired_rounds(e2e_pair *p, const char *impair, unsigned seed, ndk_counters *c0, ndk_counters *c1)
{
    impaired_rounds_on(p, NULL, ROUNDS, impair, seed, c0, c1);
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
    unsigned seed = wire_seed("duplicated_frames_execute_once");
    e2e_pair p;
    ndk_counters c0, c1;
    impaired_rounds(&p, "--wire-dup 200000", seed, &c0, &c1);
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

/* Frames lost (10%) and delivered twice (2%): a request whose answer does
 * not come in RTO_CYCLES is sent again with every later one of its QP
 * (go-back-N, qpnic-sim --wire-drop); the responder takes the ones it
 * executed already as duplicates. Each request completes once, SUCCESS,
 * and the NIC writes exactly what a clean wire makes it write. */
static void lost_frames_are_sent_again(void)
{
    unsigned seed = wire_seed("lost_frames_are_sent_again");
    e2e_pair p;
    ndk_counters c0, c1;
    impaired_rounds(&p, "--wire-drop 100000 --wire-dup 20000", seed, &c0, &c1);
    EXPECT(c1.retransmits > 0, "no retransmission at 10%% loss (seed %u)", seed);
    EXPECT(c1.frames_dropped == 0 && c1.icrc_errors == 0, "frames dropped by the receiver on a wire that loses them");
    e2e_pair_close(&p);
}

/* Every frame lost: the WRITE is sent RETRY_COUNT + 1 times, then completes
 * NDK_STATUS_TIMEOUT (cqe_status RETRY_EXC) with its QP in error, where a
 * further post is refused. Nothing reached the target. */
static void retries_run_out_and_the_request_times_out(void)
{
    setenv("QPNIC_SIM_ARGS", "--wire-drop 1000000 --wire-seed 1", 1);
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    e2e_fill(p.a.buf, 256, 7);
    ndk_sge g = e2e_sge(&p.a, 0, 256);
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr), 0),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(p.a.icq, NDK_STATUS_TIMEOUT, "a write whose every frame is lost");
    for (uint32_t i = 0; i < 256; i++)
        EXPECT(p.b.buf[i] == 0, "byte %u of the target changed, though no frame arrived", i);
    /* the QP is in error now: a post is refused */
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr), 0),
                  NDK_STATUS_INVALID_DEVICE_STATE);
    ndk_counters c;
    counters(p.ad, &c);
    EXPECT(c.retransmits == QPNIC_RETRY_COUNT, "%llu retransmissions, want RETRY_COUNT %u",
           (unsigned long long)c.retransmits, QPNIC_RETRY_COUNT);
    EXPECT(c.frames_received == 0, "%llu frames received on a wire that loses all", (unsigned long long)c.frames_received);
    e2e_pair_close(&p);
}

/* The soak (issue 10): QPNIC_WIRE_SOAK_S seconds (default 30) of random
 * WRITEs, READs and SENDs between two NICs, on a network that loses 1% of
 * the frames, delivers 1% twice, holds 1% back behind later ones and
 * corrupts 1% (dropped by the receiver's checks). Each round posts a chain of 1 to 8 requests (all but
 * the last DEFERred) of 1 to 4096 bytes in 1 to 3 SGEs of odd lengths (the
 * gather's partial beats), each into its own part of the buffers, then
 * requires every completion once, SUCCESS, in order, every byte exact, and
 * the DMA bytes written exactly the payloads' and the CQEs'. The seed is
 * printed; QPNIC_WIRE_SEED repeats the wire's, QPNIC_SEED the traffic's. */
static uint64_t soak_rng;
static uint32_t soak_below(uint32_t n)
{
    soak_rng = soak_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(soak_rng >> 33) % n;
}

static void soak_one_percent_loss(void)
{
    unsigned seed = wire_seed("soak_one_percent_loss");
    unsigned secs = e2e_env_uint("QPNIC_WIRE_SOAK_S", 30);
    soak_rng = e2e_env_uint("QPNIC_SEED", seed);
    char args[160];
    snprintf(args, sizeof args, "--wire-drop 10000 --wire-dup 10000 --wire-reorder 10000 --wire-corrupt 10000 "
             "--wire-seed %u", seed);
    setenv("QPNIC_SIM_ARGS", args, 1);
    e2e_opts o = { .sq_depth = 16, .rq_depth = 16, .cq_depth = 64, .two_nics = 1 };
    e2e_pair p;
    e2e_pair_open(&p, &o);
    ndk_counters c0, c1;
    pair_counters(&p, &c0);
    uint64_t t0 = e2e_now_ms(), payload = 0, cqes = 0;
    unsigned rounds = 0, ops = 0;
    enum { SLOT = 8192 };   /* each request's own part of the 64 KiB buffers */
    while (e2e_now_ms() - t0 < (uint64_t)secs * 1000) {
        unsigned n = 1 + soak_below(8);
        unsigned kind[8], len[8];
        for (unsigned i = 0; i < n; i++) {
            kind[i] = soak_below(3);   /* 0 WRITE, 1 READ, 2 SEND */
            len[i] = 1 + soak_below(4096);
            uint32_t off = i * SLOT;
            uint8_t *src = kind[i] == 1 ? p.b.buf + off : p.a.buf + off;
            e2e_fill(src, len[i], rounds * 8 + i + 1);
            if (kind[i] == 2) {
                ndk_sge rg = e2e_sge(&p.b, off, 4096);
                EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &rg, 1), NDK_STATUS_SUCCESS);
            }
        }
        for (unsigned i = 0; i < n; i++) {
            uint32_t off = i * SLOT;
            /* 1 to 3 SGEs of odd lengths over [off, off + len) */
            ndk_sge g[3];
            unsigned ns = 1 + soak_below(3), at = 0;
            for (unsigned s = 0; s < ns; s++) {
                unsigned l = s + 1 == ns ? len[i] - at : soak_below(len[i] - at + 1);
                g[s] = e2e_sge(&p.a, off + at, l);   /* a side: the source, or a READ's sink */
                at += l;
            }
            uint32_t fl = i + 1 < n ? NDK_OP_FLAG_DEFER : 0;
            ndk_status st;
            if (kind[i] == 0)
                st = ndk_write(p.a.qp, NULL, g, ns, e2e_remote_addr(&p.b, off), ndk_mr_remote_token(p.b.mr), fl);
            else if (kind[i] == 1)
                st = ndk_read(p.a.qp, NULL, g, ns, e2e_remote_addr(&p.b, off), ndk_mr_remote_token(p.b.mr), fl);
            else
                st = ndk_send(p.a.qp, NULL, g, ns, fl);
            EXPECT_STATUS(st, NDK_STATUS_SUCCESS);
        }
        for (unsigned i = 0; i < n; i++) {
            ndk_result_ex r = e2e_expect_one(p.a.icq, NDK_STATUS_SUCCESS, "round %u request %u (seed %u)",
                                             rounds, i, seed);
            EXPECT(r.bytes_transferred == len[i], "round %u request %u: %u bytes, want %u", rounds, i,
                   r.bytes_transferred, len[i]);
            uint32_t off = i * SLOT;
            EXPECT(memcmp(p.a.buf + off, p.b.buf + off, len[i]) == 0, "round %u request %u (%s, %u bytes): data differs",
                   rounds, i, kind[i] == 0 ? "WRITE" : kind[i] == 1 ? "READ" : "SEND", len[i]);
            if (kind[i] == 2) {
                r = e2e_expect_one(p.b.rcq, NDK_STATUS_SUCCESS, "round %u receive %u", rounds, i);
                EXPECT(r.bytes_transferred == len[i], "round %u receive %u: %u bytes", rounds, i, r.bytes_transferred);
                cqes++;
            }
            payload += len[i];
            cqes++;
        }
        rounds++;
        ops += n;
    }
    ndk_result_ex r;
    EXPECT(e2e_settle_and_poll(&p, p.a.icq, &r, 1) == 0, "an initiator completion came twice");
    EXPECT(e2e_settle_and_poll(&p, p.b.rcq, &r, 1) == 0, "a receive completion came twice");
    pair_counters(&p, &c1);
    uint64_t wrote = c1.dma_write_bytes - c0.dma_write_bytes, want = payload + cqes * QPNIC_CQE_BYTES;
    EXPECT(wrote == want, "%llu bytes written by DMA, want %llu: a packet moved data twice", (unsigned long long)wrote,
           (unsigned long long)want);
    printf("soak_one_percent_loss: %u s, %u rounds, %u requests, %llu payload bytes; %llu frames sent, %llu received, "
           "%llu retransmissions, %llu NAKs, %llu duplicates, %llu damaged frames dropped; %llu payload bytes on the "
           "wire\n", secs, rounds, ops,
           (unsigned long long)payload, (unsigned long long)(c1.frames_sent - c0.frames_sent),
           (unsigned long long)(c1.frames_received - c0.frames_received),
           (unsigned long long)(c1.retransmits - c0.retransmits), (unsigned long long)(c1.naks - c0.naks),
           (unsigned long long)(c1.duplicates - c0.duplicates),
           (unsigned long long)(c1.icrc_errors + c1.frames_dropped - c0.icrc_errors - c0.frames_dropped),
           (unsigned long long)(c1.wire_payload_bytes - c0.wire_payload_bytes));
    EXPECT(c1.retransmits > c0.retransmits, "no retransmission in the soak (seed %u)", seed);
    /* chains: a request lost before later ones of its QP leaves a gap the
     * target NAKs (NAK_PSN_SEQ), and the initiator goes back at once */
    EXPECT(c1.naks > c0.naks, "no sequence NAK in the soak's chains (seed %u)", seed);
    EXPECT(c1.wire_payload_bytes - c0.wire_payload_bytes >= payload,
           "%llu payload bytes on the wire for %llu moved", (unsigned long long)(c1.wire_payload_bytes - c0.wire_payload_bytes),
           (unsigned long long)payload);
    e2e_pair_close(&p);
}

/* ---- two NICs (docs/wire.md, "Two NICs") ---------------------------------
 * Side b of the pair on a second simulated NIC: every request and every
 * response crosses the simulators' network (UDP on 127.0.0.1). */

/* The same operations between two NICs: each frame one NIC sends the other
 * receives, one per request and one per response, and nothing loops back. */
static void two_nics_exchange_every_operation(void)
{
    setenv("QPNIC_SIM_ARGS", "", 1);
    e2e_opts o = {.two_nics = 1};
    e2e_pair p;
    e2e_pair_open(&p, &o);
    ndk_qp_addr a = ndk_qp_address(p.a.qp), b = ndk_qp_address(p.b.qp);
    EXPECT(a.node != b.node, "two NICs with one node address %llu", (unsigned long long)a.node);
    EXPECT(a.node >> 8 == 0x0A0000 && b.node >> 8 == 0x0A0000,
           "node addresses 0x%llx and 0x%llx are not the simulators' 10.0.0.n",
           (unsigned long long)a.node, (unsigned long long)b.node);
    ndk_counters a0, a1, b0, b1;
    counters(p.ad, &a0);
    counters(p.ad_b, &b0);
    traffic(&p, 0);
    counters(p.ad, &a1);
    counters(p.ad_b, &b1);
    uint64_t ops = WRITES + READS + SENDS;
    EXPECT(a1.frames_sent - a0.frames_sent == ops && b1.frames_received - b0.frames_received == ops,
           "requests: a sent %llu frames, b received %llu, want %llu",
           (unsigned long long)(a1.frames_sent - a0.frames_sent),
           (unsigned long long)(b1.frames_received - b0.frames_received), (unsigned long long)ops);
    EXPECT(b1.frames_sent - b0.frames_sent == ops && a1.frames_received - a0.frames_received == ops,
           "responses: b sent %llu frames, a received %llu, want %llu",
           (unsigned long long)(b1.frames_sent - b0.frames_sent),
           (unsigned long long)(a1.frames_received - a0.frames_received), (unsigned long long)ops);
    EXPECT(a1.frames_dropped + b1.frames_dropped + a1.icrc_errors + b1.icrc_errors == 0,
           "frames dropped between two NICs on a clean network");
    e2e_pair_close(&p);
}

/* Segments (docs/wire.md, "Segments"): at a path MTU of 256 bytes, every
 * operation's message goes in packets of 256 bytes between two NICs, each
 * from several SGEs at odd addresses and lengths (so packet ends fall inside
 * beats and SGEs), and arrives exact: a WRITE (FIRST, MIDDLE, LAST, one
 * ACK), a READ (one request; its response FIRST, MIDDLE .., LAST into two
 * SGEs), a SEND into a receive of two SGEs (one CQE with the whole
 * message's bytes), and the largest of a packet exactly (ONLY). The frames
 * each NIC sends are counted: one per packet, and one ACK a message. */
static uint32_t pkts(uint32_t bytes) { return (bytes + 255) / 256; }

static void expect_frames(const ndk_counters *s0, const ndk_counters *s1, uint64_t want, const char *what)
{
    EXPECT(s1->frames_sent - s0->frames_sent == want, "%s: %llu frames sent, want %llu", what,
           (unsigned long long)(s1->frames_sent - s0->frames_sent), (unsigned long long)want);
}

static void two_nics_segment_at_the_path_mtu(void)
{
    setenv("QPNIC_SIM_ARGS", "", 1);
    setenv("QPNIC_PATH_MTU", "256", 1);
    e2e_opts o = {.two_nics = 1};
    e2e_pair p;
    e2e_pair_open(&p, &o);
    unsetenv("QPNIC_PATH_MTU");
    ndk_counters a0, a1, b0, b1;

    /* a WRITE of 1001 bytes from two SGEs to an odd remote address */
    counters(p.ad, &a0);
    counters(p.ad_b, &b0);
    e2e_fill(p.a.buf + 3, 301, 61);
    e2e_fill(p.a.buf + 4099, 700, 62);
    ndk_sge wg[2] = {e2e_sge(&p.a, 3, 301), e2e_sge(&p.a, 4099, 700)};
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, wg, 2, e2e_remote_addr(&p.b, 8193), ndk_mr_remote_token(p.b.mr), 0),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(p.a.icq, NDK_STATUS_SUCCESS, "a segmented write");
    EXPECT(memcmp(p.b.buf + 8193, p.a.buf + 3, 301) == 0 && memcmp(p.b.buf + 8494, p.a.buf + 4099, 700) == 0,
           "the segmented write's data differs");
    counters(p.ad, &a1);
    counters(p.ad_b, &b1);
    expect_frames(&a0, &a1, pkts(1001), "a write of 1001 bytes");
    expect_frames(&b0, &b1, 1, "its acknowledgement");

    /* a READ of 3228 bytes into two SGEs */
    a0 = a1;
    b0 = b1;
    e2e_fill(p.b.buf + 20001, 3228, 63);
    ndk_sge rg[2] = {e2e_sge(&p.a, 16385, 2113), e2e_sge(&p.a, 30001, 1115)};
    EXPECT_STATUS(ndk_read(p.a.qp, NULL, rg, 2, e2e_remote_addr(&p.b, 20001), ndk_mr_remote_token(p.b.mr), 0),
                  NDK_STATUS_SUCCESS);
    ndk_result_ex r = e2e_expect_one(p.a.icq, NDK_STATUS_SUCCESS, "a segmented read");
    EXPECT(r.bytes_transferred == 3228, "the segmented read moved %u bytes", r.bytes_transferred);
    EXPECT(memcmp(p.a.buf + 16385, p.b.buf + 20001, 2113) == 0 &&
           memcmp(p.a.buf + 30001, p.b.buf + 20001 + 2113, 1115) == 0, "the segmented read's data differs");
    counters(p.ad, &a1);
    counters(p.ad_b, &b1);
    expect_frames(&a0, &a1, 1, "a read request");
    expect_frames(&b0, &b1, pkts(3228), "a read response of 3228 bytes");

    /* a SEND of 1000 bytes from three SGEs into a receive of two */
    a0 = a1;
    b0 = b1;
    ndk_sge vg[2] = {e2e_sge(&p.b, 40001, 300), e2e_sge(&p.b, 50003, 900)};
    EXPECT_STATUS(ndk_receive(p.b.qp, NULL, vg, 2), NDK_STATUS_SUCCESS);
    e2e_fill(p.a.buf + 40001, 85, 64);
    e2e_fill(p.a.buf + 41001, 148, 65);
    e2e_fill(p.a.buf + 42001, 767, 66);
    ndk_sge sg[3] = {e2e_sge(&p.a, 40001, 85), e2e_sge(&p.a, 41001, 148), e2e_sge(&p.a, 42001, 767)};
    EXPECT_STATUS(ndk_send(p.a.qp, NULL, sg, 3, 0), NDK_STATUS_SUCCESS);
    e2e_expect_one(p.a.icq, NDK_STATUS_SUCCESS, "a segmented send");
    r = e2e_expect_one(p.b.rcq, NDK_STATUS_SUCCESS, "its receive");
    EXPECT(r.bytes_transferred == 1000, "the segmented send's receive got %u bytes", r.bytes_transferred);
    uint8_t want[1000];
    memcpy(want, p.a.buf + 40001, 85);
    memcpy(want + 85, p.a.buf + 41001, 148);
    memcpy(want + 233, p.a.buf + 42001, 767);
    EXPECT(memcmp(p.b.buf + 40001, want, 300) == 0 && memcmp(p.b.buf + 50003, want + 300, 700) == 0,
           "the segmented send's data differs");
    EXPECT(p.b.buf[50003 + 700] == 0, "the segmented send wrote past its message");
    counters(p.ad, &a1);
    counters(p.ad_b, &b1);
    expect_frames(&a0, &a1, pkts(1000), "a send of 1000 bytes");
    expect_frames(&b0, &b1, 1, "its acknowledgement");

    /* one path MTU exactly: one packet (ONLY) */
    a0 = a1;
    ndk_sge og = e2e_sge(&p.a, 60000, 256);
    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &og, 1, e2e_remote_addr(&p.b, 60000), ndk_mr_remote_token(p.b.mr), 0),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(p.a.icq, NDK_STATUS_SUCCESS, "a write of one MTU");
    counters(p.ad, &a1);
    expect_frames(&a0, &a1, 1, "a write of one MTU");
    EXPECT(a1.retransmits + b1.retransmits + a1.naks + b1.naks == 0, "retransmissions or NAKs on a clean network");
    e2e_pair_close(&p);
}

static ndk_qp *extra_qp(e2e_pair *p)
{
    ndk_qp_attr attr = {.sq_depth = 8, .rq_depth = 8, .max_sge = 1, .max_inline = 0};
    ndk_qp *qp = NULL;
    EXPECT_STATUS(ndk_create_qp(p->pd, p->a.rcq, p->a.icq, NULL, &attr, &qp), NDK_STATUS_SUCCESS);
    return qp;
}

/* A NIC beside a pair's: a private simulator with a PD, one CQ and QPs on
 * it, and (buf_bytes > 0) a registered buffer of DMA memory. */
typedef struct {
    ndk_adapter *ad;
    ndk_pd *pd;
    ndk_cq *cq;
    ndk_qp *qp[2];
    uint8_t *buf;
    ndk_mr *mr;
} bare_nic;

static void bare_nic_open(bare_nic *n, unsigned qps, uint32_t buf_bytes)
{
    memset(n, 0, sizeof *n);
    EXPECT_STATUS(ndk_open_adapter(NULL, &n->ad), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_create_pd(n->ad, &n->pd), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_create_cq(n->ad, 16, NULL, NULL, &n->cq), NDK_STATUS_SUCCESS);
    for (unsigned i = 0; i < qps; i++) {
        ndk_qp_attr attr = {.sq_depth = 8, .rq_depth = 8, .max_sge = 1, .max_inline = 0};
        EXPECT_STATUS(ndk_create_qp(n->pd, n->cq, n->cq, NULL, &attr, &n->qp[i]), NDK_STATUS_SUCCESS);
    }
    if (buf_bytes) {
        n->buf = ndk_alloc_dma(n->ad, buf_bytes);
        EXPECT(n->buf != NULL, "ndk_alloc_dma(%u) on a NIC beside the pair", buf_bytes);
        EXPECT_STATUS(ndk_create_mr(n->pd, &n->mr), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_register_mr(n->mr, n->buf, buf_bytes, NDK_MR_FLAG_ALLOW_LOCAL_WRITE), NDK_STATUS_SUCCESS);
    }
}

static void bare_nic_close(bare_nic *n)
{
    for (unsigned i = 0; i < 2; i++)
        if (n->qp[i])
            EXPECT_STATUS(ndk_destroy_qp(n->qp[i]), NDK_STATUS_SUCCESS);
    if (n->mr)
        EXPECT_STATUS(ndk_destroy_mr(n->mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_cq(n->cq), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_pd(n->pd), NDK_STATUS_SUCCESS);
    if (n->buf)
        ndk_free_dma(n->ad, n->buf);
    EXPECT_STATUS(ndk_close_adapter(n->ad), NDK_STATUS_SUCCESS);
}

/* What ndk_connect refuses on a NIC with the wire, and the peer table's
 * bound: three other nodes at once; a fourth waits for one to go. */
static void two_nics_connect_checks(void)
{
    setenv("QPNIC_SIM_ARGS", "", 1);
    e2e_pair p;
    e2e_pair_open(&p, NULL);
    uint64_t me = ndk_qp_address(p.a.qp).node;
    EXPECT(me >> 8 == 0x0A0000, "node 0x%llx is not 10.0.0.n", (unsigned long long)me);
    uint64_t other = me == 0x0A0000FE ? 0x0A0000FD : 0x0A0000FE;
    ndk_qp *q = extra_qp(&p);
    const uint32_t good = 0x0101;   /* index 1, generation 1 */
    ndk_qp_addr bad[] = {{0, good}, {other, 0x0001} /* generation 0 */, {other, 1u << QPNIC_QPN_BITS},
                         {1ull << 32, good}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        EXPECT_STATUS(ndk_connect(q, bad[i]), NDK_STATUS_INVALID_PARAMETER);
    /* three nodes fill the table (two QPs to one node share its entry) */
    ndk_qp *qs[5];
    for (int i = 0; i < 5; i++)
        qs[i] = extra_qp(&p);
    for (int i = 0; i < 3; i++) {
        ndk_qp_addr r = {0x0A0000F0u + (uint64_t)i, good};
        EXPECT_STATUS(ndk_connect(qs[i], r), NDK_STATUS_SUCCESS);
    }
    ndk_qp_addr again = {0x0A0000F0u, good + 1};
    EXPECT_STATUS(ndk_connect(qs[3], again), NDK_STATUS_SUCCESS);
    ndk_qp_addr fourth = {0x0A0000F3u, good};
    EXPECT_STATUS(ndk_connect(q, fourth), NDK_STATUS_INSUFFICIENT_RESOURCES);
    EXPECT_STATUS(ndk_connect(q, fourth), NDK_STATUS_INSUFFICIENT_RESOURCES);   /* nothing changed */
    /* node .F1 held by one QP: destroying it frees the entry */
    EXPECT_STATUS(ndk_destroy_qp(qs[1]), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_connect(q, fourth), NDK_STATUS_SUCCESS);
    /* .F0 is held by two: one going is not enough */
    EXPECT_STATUS(ndk_destroy_qp(qs[0]), NDK_STATUS_SUCCESS);
    ndk_qp_addr fifth = {0x0A0000F4u, good};
    EXPECT_STATUS(ndk_connect(qs[4], fifth), NDK_STATUS_INSUFFICIENT_RESOURCES);
    EXPECT_STATUS(ndk_destroy_qp(qs[3]), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_connect(qs[4], fifth), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_qp(qs[2]), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_qp(qs[4]), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_qp(q), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* A QP connected to a number that no QP has on the other NIC: that NIC
 * answers NAK_INV_REQ (it knows this NIC: the pair's QPs are connected),
 * the request completes INVALID_DEVICE_STATE, the QP goes to error and its
 * next request is flushed; the other NIC's memory is untouched. A QP
 * connected to a node that is not there at all: TIMEOUT after the retries. */
static void two_nics_wrong_remote_fails_with_a_status(void)
{
    setenv("QPNIC_SIM_ARGS", "", 1);
    e2e_opts o = {.two_nics = 1};
    e2e_pair p;
    e2e_pair_open(&p, &o);
    ndk_qp *q = extra_qp(&p);
    ndk_qp_addr nobody = {ndk_qp_address(p.b.qp).node, 0x4D00 | 200};   /* generation 77, index 200 */
    EXPECT_STATUS(ndk_connect(q, nobody), NDK_STATUS_SUCCESS);
    e2e_fill(p.a.buf, 256, 3);
    ndk_sge g = e2e_sge(&p.a, 0, 256);
    EXPECT_STATUS(ndk_write(q, NULL, &g, 1, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr), 0),
                  NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_write(q, NULL, &g, 1, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr), 0),
                  NDK_STATUS_SUCCESS);
    ndk_counters n0, n1;
    counters(p.ad, &n0);   /* (the NAK may already be in: counted at most once below) */
    e2e_expect_one(p.a.icq, NDK_STATUS_INVALID_DEVICE_STATE, "a write to a QP number nobody has");
    e2e_expect_one(p.a.icq, NDK_STATUS_CANCELLED, "the write after it");
    counters(p.ad, &n1);
    EXPECT(n1.naks >= 1 && n1.naks - n0.naks <= 1, "%llu NAKs counted for one NAK_INV_REQ",
           (unsigned long long)n1.naks);
    for (uint32_t i = 0; i < 256; i++)
        EXPECT(p.b.buf[i] == 0, "byte %u of the other NIC's memory changed", i);
    ndk_qp *q2 = extra_qp(&p);
    uint64_t me = ndk_qp_address(p.a.qp).node, them = ndk_qp_address(p.b.qp).node;
    ndk_qp_addr absent = {0x0A0000FEu == me || 0x0A0000FEu == them ? 0x0A0000FDu : 0x0A0000FEu, 0x0101};
    EXPECT_STATUS(ndk_connect(q2, absent), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_write(q2, NULL, &g, 1, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr), 0),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(p.a.icq, NDK_STATUS_TIMEOUT, "a write to a node that is not there");
    EXPECT_STATUS(ndk_destroy_qp(q), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_qp(q2), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* A pair on two NICs at path MTU 256, with the wire's impairment (qpnic-sim
 * arguments) seeded by the case's seed, which it returns. */
static unsigned two_nics_at_mtu_256(e2e_pair *p, const char *name, const char *impair)
{
    unsigned seed = wire_seed(name);
    char args[200];
    snprintf(args, sizeof args, "%s --wire-seed %u", impair, seed);
    setenv("QPNIC_SIM_ARGS", args, 1);
    setenv("QPNIC_PATH_MTU", "256", 1);
    e2e_opts o = {.two_nics = 1};
    e2e_pair_open(p, &o);
    unsetenv("QPNIC_PATH_MTU");
    return seed;
}

/* The kinds of request the long-message cases move: a WRITE from side a to
 * side b, a READ of side b into side a, a SEND from a to b. */
enum { K_WRITE, K_READ, K_SEND, KINDS };
static const char *const kind_name[KINDS] = {"WRITE", "READ", "SEND"};

/* Post one request of a kind on qp (side a's end of a pair), its remote
 * range side b's buffer from roff (a SEND's receive is the caller's). */
static ndk_status post_kind(e2e_pair *p, unsigned kind, ndk_qp *qp, void *ctx, const ndk_sge *g, uint32_t n,
                            uint32_t roff, uint32_t flags)
{
    uint64_t ra = e2e_remote_addr(&p->b, roff);
    uint32_t rt = ndk_mr_remote_token(p->b.mr);
    return kind == K_WRITE ? ndk_write(qp, ctx, g, n, ra, rt, flags) :
           kind == K_READ  ? ndk_read(qp, ctx, g, n, ra, rt, flags) : ndk_send(qp, ctx, g, n, flags);
}

/* Both NICs wrote by DMA exactly a message's bytes once and its CQEs (a
 * SEND's two, anything else's one) between c0 and c1. */
static void expect_written_once(const ndk_counters *c0, const ndk_counters *c1, unsigned kind, uint32_t len,
                                unsigned seed)
{
    uint64_t cqes = kind == K_SEND ? 2 : 1, wrote = c1->dma_write_bytes - c0->dma_write_bytes;
    EXPECT(wrote == len + cqes * QPNIC_CQE_BYTES, "the %s: %llu bytes written by DMA, want %llu: data "
           "written twice (seed %u)", kind_name[kind], (unsigned long long)wrote,
           (unsigned long long)(len + cqes * QPNIC_CQE_BYTES), seed);
}

/* A long message on a lossy wire is resumed where its target stopped
 * taking it, not sent again whole (docs/wire.md, "A message resumed"):
 * 60,000 bytes at MTU 256 are 235 packets, and at 2% loss a whole copy
 * seldom comes through (0.98^235: 1%), so a READ sent again whole ran out
 * of retries. A READ goes back to its first response packet not taken, a
 * WRITE or SEND to the packet its target's NAK names. Each of the three
 * completes SUCCESS, exact, through two SGEs cut off the packets'
 * boundaries; the NICs write each byte once (DMA writes: the payload and
 * the CQEs); and the wire carries less than a whole copy per go-back. The
 * seed is printed; QPNIC_WIRE_SEED repeats it. */
static void two_nics_resume_long_messages_under_loss(void)
{
    e2e_pair p;
    unsigned seed = two_nics_at_mtu_256(&p, "two_nics_resume_long_messages_under_loss", "--wire-drop 20000");
    enum { LEN = 60000, CUT = 20011 };
    for (unsigned kind = 0; kind < KINDS; kind++) {
        /* the initiator's side in two SGEs at 1 and CUT + 5, the target's
         * whole at 3 */
        uint8_t *a = p.a.buf, *b = p.b.buf + 3;
        memset(p.a.buf, 0, LEN + 8);
        memset(p.b.buf, 0, LEN + 8);
        if (kind == K_READ)
            e2e_fill(b, LEN, 91);
        else {
            e2e_fill(a + 1, CUT, 92 + kind);
            e2e_fill(a + CUT + 5, LEN - CUT, 95 + kind);
        }
        ndk_counters c0, c1;
        pair_counters(&p, &c0);
        ndk_sge g[2] = {e2e_sge(&p.a, 1, CUT), e2e_sge(&p.a, CUT + 5, LEN - CUT)};
        if (kind == K_SEND) {
            ndk_sge rg = e2e_sge(&p.b, 3, LEN);
            EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &rg, 1), NDK_STATUS_SUCCESS);
        }
        EXPECT_STATUS(post_kind(&p, kind, p.a.qp, NULL, g, 2, 3, 0), NDK_STATUS_SUCCESS);
        ndk_result_ex r = e2e_expect_one(p.a.icq, NDK_STATUS_SUCCESS, "a %s of %u bytes at 2%% loss (seed %u)",
                                         kind_name[kind], LEN, seed);
        EXPECT(r.bytes_transferred == LEN || kind == K_WRITE, "the %s completed with %u bytes, want %u",
               kind_name[kind], r.bytes_transferred, LEN);
        if (kind == K_SEND)
            e2e_expect_one(p.b.rcq, NDK_STATUS_SUCCESS, "its receive (seed %u)", seed);
        EXPECT(memcmp(a + 1, b, CUT) == 0 && memcmp(a + CUT + 5, b + CUT, LEN - CUT) == 0,
               "the %s's data differs (seed %u)", kind_name[kind], seed);
        pair_counters(&p, &c1);
        expect_written_once(&c0, &c1, kind, LEN, seed);
        uint64_t retx = c1.retransmits - c0.retransmits, sent = c1.wire_payload_bytes - c0.wire_payload_bytes;
        printf("a %s of %u bytes at MTU 256, 2%% loss: %llu go-backs, %llu payload bytes on the wire "
               "(%.2f copies)\n", kind_name[kind], LEN, (unsigned long long)retx, (unsigned long long)sent,
               (double)sent / LEN);
        if (retx > 0)
            EXPECT(sent < (retx + 1) * LEN, "the %s: %llu payload bytes on the wire for %llu go-backs: each "
                   "sent it again whole (seed %u)", kind_name[kind], (unsigned long long)sent,
                   (unsigned long long)retx, seed);
    }
    e2e_pair_close(&p);
}

/* The longest messages the soak does not send, at the worst impairment the
 * issue asks for: a WRITE, a READ and a SEND of 60,000 bytes each at MTU
 * 256 (235 packets), with 5% of the frames lost, 5% delivered twice, 5%
 * reordered and 5% corrupted. Each completes once, SUCCESS, the data
 * exact, and the two NICs write by DMA exactly what a clean wire makes
 * them write: each payload once and one CQE per completion. (A go-back
 * that gets further restores the QP's retries, so only go-backs that get
 * nowhere, 7 in a row, time a request out.) The seed is printed;
 * QPNIC_WIRE_SEED repeats it. */
static void two_nics_long_messages_at_five_percent_of_each_impairment(void)
{
    e2e_pair p;
    unsigned seed = two_nics_at_mtu_256(&p, "two_nics_long_messages_at_five_percent_of_each_impairment",
                                        "--wire-drop 50000 --wire-dup 50000 --wire-reorder 50000 "
                                        "--wire-corrupt 50000");
    enum { LEN = 60000 };
    for (unsigned kind = 0; kind < KINDS; kind++) {
        uint8_t *src = kind == K_READ ? p.b.buf : p.a.buf, *dst = kind == K_READ ? p.a.buf : p.b.buf;
        e2e_fill(src, LEN, 101 + kind);
        memset(dst, 0, LEN);
        ndk_counters c0, c1;
        pair_counters(&p, &c0);
        ndk_sge g = e2e_sge(&p.a, 0, LEN);
        if (kind == K_SEND) {
            ndk_sge rg = e2e_sge(&p.b, 0, LEN);
            EXPECT_STATUS(ndk_receive(p.b.qp, NULL, &rg, 1), NDK_STATUS_SUCCESS);
        }
        EXPECT_STATUS(post_kind(&p, kind, p.a.qp, NULL, &g, 1, 0, 0), NDK_STATUS_SUCCESS);
        e2e_expect_one(p.a.icq, NDK_STATUS_SUCCESS, "a %s of %u bytes at 5%% of each impairment (seed %u)",
                       kind_name[kind], LEN, seed);
        if (kind == K_SEND)
            e2e_expect_one(p.b.rcq, NDK_STATUS_SUCCESS, "its receive (seed %u)", seed);
        EXPECT(memcmp(src, dst, LEN) == 0, "the %s's data differs (seed %u)", kind_name[kind], seed);
        ndk_result_ex r;
        EXPECT(e2e_settle_and_poll(&p, p.a.icq, &r, 1) == 0, "the %s completed twice", kind_name[kind]);
        pair_counters(&p, &c1);
        expect_written_once(&c0, &c1, kind, LEN, seed);
        printf("a %s of %u bytes at MTU 256, 5%% of each impairment: %llu go-backs, %llu frames sent\n",
               kind_name[kind], LEN, (unsigned long long)(c1.retransmits - c0.retransmits),
               (unsigned long long)(c1.frames_sent - c0.frames_sent));
    }
    e2e_pair_close(&p);
}

/* Several QPs between the same two NICs at once, on a wire that loses,
 * duplicates, reorders and corrupts 5% of the frames each (docs/wire.md,
 * "One QP at a time"): three QP pairs, each round a chain of 1 to 3
 * WRITEs, READs and SENDs of 1 to 3000 bytes on every QP, the chains
 * posted interleaved. Every request completes once, SUCCESS, with its
 * data exact. (When the QPs' packets were outstanding together, the
 * completer, waiting for one QP's lost answer, dropped the others'
 * answers, and they timed out in turn: each QP's first request completed
 * TIMEOUT within a few rounds, found by review.) The seed is printed;
 * QPNIC_WIRE_SEED repeats the wire's. */
static void two_nics_several_qps_under_loss(void)
{
    e2e_pair p;
    unsigned seed = two_nics_at_mtu_256(&p, "two_nics_several_qps_under_loss",
                                        "--wire-drop 50000 --wire-dup 50000 --wire-reorder 50000 "
                                        "--wire-corrupt 50000");
    enum { Q = 3, C = 3, SLOT = 3072, ROUNDS_N = 12 };
    ndk_qp *qa[Q] = {p.a.qp}, *qb[Q] = {p.b.qp};
    for (unsigned j = 1; j < Q; j++) {
        ndk_qp_attr attr = {.sq_depth = 8, .rq_depth = 8, .max_sge = 1, .max_inline = 0};
        EXPECT_STATUS(ndk_create_qp(p.pd, p.a.rcq, p.a.icq, NULL, &attr, &qa[j]), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_create_qp(p.pd_b, p.b.rcq, p.b.icq, NULL, &attr, &qb[j]), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_connect(qa[j], ndk_qp_address(qb[j])), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_connect(qb[j], ndk_qp_address(qa[j])), NDK_STATUS_SUCCESS);
    }
    soak_rng = seed;
    ndk_counters c0, c1;
    pair_counters(&p, &c0);
    for (unsigned round = 0; round < ROUNDS_N; round++) {
        unsigned n[Q], kind[Q][C], len[Q][C], total = 0, sends = 0;
        for (unsigned j = 0; j < Q; j++) {
            n[j] = 1 + soak_below(C);
            for (unsigned i = 0; i < n[j]; i++) {
                kind[j][i] = soak_below(KINDS);
                len[j][i] = 1 + soak_below(SLOT - 72);
                uint32_t off = (j * C + i) * SLOT;
                uint8_t *src = (kind[j][i] == K_READ ? p.b.buf : p.a.buf) + off;
                e2e_fill(src, len[j][i], round * Q * C + j * C + i + 1);
                memset((kind[j][i] == K_READ ? p.a.buf : p.b.buf) + off, 0, SLOT);
                if (kind[j][i] == K_SEND) {
                    ndk_sge rg = e2e_sge(&p.b, off, SLOT);
                    EXPECT_STATUS(ndk_receive(qb[j], NULL, &rg, 1), NDK_STATUS_SUCCESS);
                    sends++;
                }
                total++;
            }
        }
        for (unsigned i = 0; i < C; i++)   /* interleaved: every QP has packets out at once */
            for (unsigned j = 0; j < Q; j++) {
                if (i >= n[j])
                    continue;
                uint32_t off = (j * C + i) * SLOT;
                ndk_sge g = e2e_sge(&p.a, off, len[j][i]);
                void *ctx = (void *)(uintptr_t)(1 + j * C + i);
                uint32_t flags = i + 1 < n[j] ? NDK_OP_FLAG_DEFER : 0;
                EXPECT_STATUS(post_kind(&p, kind[j][i], qa[j], ctx, &g, 1, off, flags), NDK_STATUS_SUCCESS);
            }
        ndk_result_ex r[Q * C];
        uint32_t got = e2e_poll(p.a.icq, r, total, 30000);
        EXPECT(got == total, "round %u: %u of %u requests completed (seed %u)", round, got, total, seed);
        for (uint32_t k = 0; k < got; k++)
            EXPECT(r[k].status == NDK_STATUS_SUCCESS, "round %u: request %u completed %s (seed %u)", round,
                   (unsigned)(uintptr_t)r[k].request_context, ndk_status_str(r[k].status), seed);
        if (sends)
            EXPECT(e2e_poll(p.b.rcq, r, sends, 30000) == sends, "round %u: not every receive completed", round);
        for (unsigned j = 0; j < Q; j++)
            for (unsigned i = 0; i < n[j]; i++) {
                uint32_t off = (j * C + i) * SLOT;
                EXPECT(memcmp(p.a.buf + off, p.b.buf + off, len[j][i]) == 0,
                       "round %u: QP %u's %s %u of %u bytes differs (seed %u)", round, j,
                       kind_name[kind[j][i]], i, len[j][i], seed);
            }
    }
    pair_counters(&p, &c1);
    printf("three QPs at 5%% of each impairment: %u rounds, %llu go-backs, %llu frames sent\n", ROUNDS_N,
           (unsigned long long)(c1.retransmits - c0.retransmits),
           (unsigned long long)(c1.frames_sent - c0.frames_sent));
    for (unsigned j = 1; j < Q; j++) {
        EXPECT_STATUS(ndk_destroy_qp(qa[j]), NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_destroy_qp(qb[j]), NDK_STATUS_SUCCESS);
    }
    e2e_pair_close(&p);
}

/* Half the frames lost: a READ of 8 packets and a WRITE behind it, again
 * and again. Go-backs that get nowhere use up the retries; one that gets
 * further restores them. The QP table and the completer must agree on
 * such a go-back after the retries ran out: the table took it (progress
 * needs none left) while the completer failed the READ TIMEOUT and left
 * the QP waiting for an RNR timer it never started, so the WRITE behind
 * was never flushed and the QP could not be destroyed (found by review).
 * Each request completes once: SUCCESS, or TIMEOUT after which its QP is
 * in error and what follows is CANCELLED; the QP is destroyed in time. */
static void two_nics_half_the_frames_lost(void)
{
    e2e_pair p;
    unsigned seed = two_nics_at_mtu_256(&p, "two_nics_half_the_frames_lost", "--wire-drop 500000");
    e2e_fill(p.b.buf, 2048, 5);
    e2e_fill(p.a.buf + 8192, 64, 6);
    unsigned ok = 0, timeouts = 0;
    for (unsigned it = 0; it < 20; it++) {
        memset(p.a.buf, 0, 2048);
        ndk_sge rg = e2e_sge(&p.a, 0, 2048), wg = e2e_sge(&p.a, 8192, 64);
        EXPECT_STATUS(ndk_read(p.a.qp, (void *)1, &rg, 1, e2e_remote_addr(&p.b, 0), ndk_mr_remote_token(p.b.mr), 0),
                      NDK_STATUS_SUCCESS);
        EXPECT_STATUS(ndk_write(p.a.qp, (void *)2, &wg, 1, e2e_remote_addr(&p.b, 8192),
                                ndk_mr_remote_token(p.b.mr), 0), NDK_STATUS_SUCCESS);
        ndk_result_ex r[2];
        uint32_t got = e2e_poll(p.a.icq, r, 2, 60000);
        EXPECT(got == 2, "iteration %u: %u of 2 requests completed (seed %u)", it, got, seed);
        if (r[0].status == NDK_STATUS_SUCCESS)
            EXPECT(memcmp(p.a.buf, p.b.buf, 2048) == 0, "iteration %u: the READ's data differs (seed %u)", it, seed);
        else {
            EXPECT(r[0].status == NDK_STATUS_TIMEOUT, "iteration %u: the READ completed %s (seed %u)", it,
                   ndk_status_str(r[0].status), seed);
            EXPECT(r[1].status == NDK_STATUS_CANCELLED || r[1].status == NDK_STATUS_TIMEOUT,
                   "iteration %u: the WRITE behind a READ that timed out completed %s (seed %u)", it,
                   ndk_status_str(r[1].status), seed);
        }
        if (r[0].status == NDK_STATUS_SUCCESS && r[1].status == NDK_STATUS_SUCCESS) {
            ok++;
            continue;
        }
        EXPECT(r[1].status == NDK_STATUS_TIMEOUT || r[1].status == NDK_STATUS_CANCELLED,
               "iteration %u: the WRITE completed %s (seed %u)", it, ndk_status_str(r[1].status), seed);
        timeouts++;
        break;
    }
    printf("half the frames lost: %u iterations SUCCESS, %u ended in a TIMEOUT (seed %u)\n", ok, timeouts, seed);
    e2e_pair_close(&p);   /* its destroys must not find the QP busy */
}

/* Between two NICs, frames lost, duplicated, reordered and corrupted at 5%
 * each: every request completes once, SUCCESS, the data exact, and the
 * NICs write exactly the bytes a clean network makes them write; the
 * counters show retransmissions, duplicates and the damaged frames the
 * receivers dropped. */
static void two_nics_under_loss_reorder_and_corruption(void)
{
    unsigned seed = wire_seed("two_nics_under_loss_reorder_and_corruption");
    e2e_opts o = {.two_nics = 1};
    e2e_pair p;
    ndk_counters c0, c1;
    impaired_rounds_on(&p, &o, 8, "--wire-drop 50000 --wire-dup 50000 --wire-reorder 50000 --wire-corrupt 50000",
                       seed, &c0, &c1);
    EXPECT(c1.retransmits > c0.retransmits, "no retransmission at 5%% loss (seed %u)", seed);
    EXPECT(c1.duplicates > c0.duplicates, "no duplicate counted at 5%% duplication (seed %u)", seed);
    EXPECT(c1.icrc_errors + c1.frames_dropped > c0.icrc_errors + c0.frames_dropped,
           "no damaged frame dropped at 5%% corruption (seed %u)", seed);
    printf("two NICs at 5%% loss, duplication, reordering, corruption: %llu frames sent, %llu retransmissions, "
           "%llu duplicates, %llu ICRC errors, %llu other frames dropped\n",
           (unsigned long long)(c1.frames_sent - c0.frames_sent),
           (unsigned long long)(c1.retransmits - c0.retransmits),
           (unsigned long long)(c1.duplicates - c0.duplicates),
           (unsigned long long)(c1.icrc_errors - c0.icrc_errors),
           (unsigned long long)(c1.frames_dropped - c0.frames_dropped));
    e2e_pair_close(&p);
}

/* One NIC with QPs over the wire and QPs looped back inside it at once:
 * the loopback's answers come back sooner than the network's, and the
 * completer takes answers in its entries' order, so a packet of one kind
 * waits until none of the other is outstanding (qpnic_datapath's nets_out).
 * Each round posts a chain of two WRITEs to the other NIC and one of two
 * WRITEs on a loopback pair, in alternating order: all complete, SUCCESS,
 * once, with no retransmission. */
static void two_nics_and_the_loopback_at_once(void)
{
    setenv("QPNIC_SIM_ARGS", "", 1);
    e2e_opts o = {.two_nics = 1};
    e2e_pair p;
    e2e_pair_open(&p, &o);
    ndk_qp *l1 = extra_qp(&p), *l2 = extra_qp(&p);
    EXPECT_STATUS(ndk_connect(l1, ndk_qp_address(l2)), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_connect(l2, ndk_qp_address(l1)), NDK_STATUS_SUCCESS);
    ndk_counters c0, c1;
    counters(p.ad, &c0);
    enum { ROUNDS2 = 8 };
    for (uint32_t round = 0; round < ROUNDS2; round++) {
        const uint32_t wire_off = 0, loop_off = 16384, len = 512;
        e2e_fill(p.a.buf + wire_off, 2 * len, 100 + round);
        e2e_fill(p.a.buf + loop_off, 2 * len, 200 + round);
        for (int k = 0; k < 2; k++) {
            int wire = (k == 0) == ((round & 1) == 0);
            for (uint32_t j = 0; j < 2; j++) {   /* a chain of two: DEFER, then not */
                uint32_t fl = j == 0 ? NDK_OP_FLAG_DEFER : 0;
                if (wire) {
                    ndk_sge g = e2e_sge(&p.a, wire_off + j * len, len);
                    EXPECT_STATUS(ndk_write(p.a.qp, NULL, &g, 1, e2e_remote_addr(&p.b, wire_off + j * len),
                                            ndk_mr_remote_token(p.b.mr), fl), NDK_STATUS_SUCCESS);
                } else {
                    ndk_sge g = e2e_sge(&p.a, loop_off + j * len, len);
                    EXPECT_STATUS(ndk_write(l1, NULL, &g, 1, e2e_remote_addr(&p.a, loop_off + 8192 + j * len),
                                            ndk_mr_remote_token(p.a.mr), fl), NDK_STATUS_SUCCESS);
                }
            }
        }
        ndk_result_ex r[4];
        uint32_t n = e2e_poll(p.a.icq, r, 4, 10000);
        EXPECT(n == 4, "round %u: %u of 4 completions (a loopback answer dropped behind the wire's?)", round, n);
        for (uint32_t i = 0; i < n; i++)
            EXPECT(r[i].status == NDK_STATUS_SUCCESS, "round %u: %s", round, ndk_status_str(r[i].status));
        EXPECT(memcmp(p.a.buf + wire_off, p.b.buf + wire_off, 2 * len) == 0, "round %u: the wire's data", round);
        EXPECT(memcmp(p.a.buf + loop_off, p.a.buf + loop_off + 8192, 2 * len) == 0, "round %u: the loopback's data",
               round);
    }
    counters(p.ad, &c1);
    EXPECT(c1.retransmits == c0.retransmits && c1.duplicates == c0.duplicates,
           "%llu retransmissions, %llu duplicates on a clean network",
           (unsigned long long)(c1.retransmits - c0.retransmits), (unsigned long long)(c1.duplicates - c0.duplicates));
    EXPECT_STATUS(ndk_destroy_qp(l1), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_qp(l2), NDK_STATUS_SUCCESS);
    e2e_pair_close(&p);
}

/* Three NICs: a's QP is connected to b's; c, which a knows (another of
 * a's QPs is connected to c), has a QP wrongly connected to a's. c's WRITE
 * of PSN 0 is refused (INVALID_DEVICE_STATE at c) and must leave no trace
 * at a: b's own WRITE of PSN 0 then still executes, and is not taken for
 * a duplicate of c's. */
/* Both ends of a connection need one path MTU (docs/wire.md, "Segments").
 * A NIC of 256 writing 512 bytes to one of 1024: its FIRST packet is not
 * the target's MTU, which refuses it (NAK_INV_REQ) before writing a byte,
 * so the write completes with a status, not with data half down. Its READ
 * of 512 is answered in one packet where it counted two PSNs: the READ
 * fails (REM_OP) rather than leave the two QPs' PSNs apart. And a
 * QPNIC_PATH_MTU the driver cannot set fails the open. */
static void two_nics_of_other_path_mtus_fail_with_a_status(void)
{
    setenv("QPNIC_SIM_ARGS", "", 1);
    e2e_opts o = {.two_nics = 1};
    e2e_pair p;
    e2e_pair_open(&p, &o);
    setenv("QPNIC_PATH_MTU", "256", 1);
    bare_nic c;
    bare_nic_open(&c, 2, 4096);
    unsetenv("QPNIC_PATH_MTU");
    ndk_qp *aq = extra_qp(&p);
    EXPECT_STATUS(ndk_connect(aq, ndk_qp_address(c.qp[0])), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_connect(c.qp[0], ndk_qp_address(aq)), NDK_STATUS_SUCCESS);
    memset(c.buf, 0xC5, 512);
    ndk_sge cg = {(uint64_t)(uintptr_t)c.buf, 512, ndk_mr_local_token(c.mr)};
    EXPECT_STATUS(ndk_write(c.qp[0], NULL, &cg, 1, e2e_remote_addr(&p.a, 0), ndk_mr_remote_token(p.a.mr), 0),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(c.cq, NDK_STATUS_INVALID_DEVICE_STATE, "a write from a NIC of another path MTU");
    for (uint32_t i = 0; i < 512; i++)
        EXPECT(p.a.buf[i] == 0, "byte %u written by a NIC of another path MTU", i);
    /* its READ of 512 bytes (two packets at 256) is answered in one: the
     * READ fails (its PSNs would no longer agree with the target's) */
    ndk_qp *aq2 = extra_qp(&p);
    EXPECT_STATUS(ndk_connect(aq2, ndk_qp_address(c.qp[1])), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_connect(c.qp[1], ndk_qp_address(aq2)), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_read(c.qp[1], NULL, &cg, 1, e2e_remote_addr(&p.a, 0), ndk_mr_remote_token(p.a.mr), 0),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(c.cq, NDK_STATUS_REMOTE_OPERATION_ERROR, "a read from a NIC of another path MTU");
    EXPECT_STATUS(ndk_destroy_qp(aq), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_destroy_qp(aq2), NDK_STATUS_SUCCESS);
    bare_nic_close(&c);
    e2e_pair_close(&p);

    static const char *const bad[] = {"1000", "128", "8192", "1024x", ""};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("QPNIC_PATH_MTU", bad[i], 1);
        ndk_adapter *ad = NULL;
        EXPECT_STATUS(ndk_open_adapter(NULL, &ad), NDK_STATUS_INVALID_PARAMETER);
        EXPECT(ad == NULL, "QPNIC_PATH_MTU=%s: an adapter opened", bad[i]);
    }
    unsetenv("QPNIC_PATH_MTU");
}

static void three_nics_a_stranger_moves_nothing(void)
{
    setenv("QPNIC_SIM_ARGS", "", 1);
    e2e_opts o = {.two_nics = 1};
    e2e_pair p;
    e2e_pair_open(&p, &o);
    bare_nic c;
    bare_nic_open(&c, 2, 4096);
    ndk_qp *cq2 = c.qp[0], *cq3 = c.qp[1];
    /* a knows c: a QP of a connected to one of c */
    ndk_qp *aq2 = extra_qp(&p);
    EXPECT_STATUS(ndk_connect(aq2, ndk_qp_address(cq2)), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_connect(cq2, ndk_qp_address(aq2)), NDK_STATUS_SUCCESS);
    /* c's third QP names a's QP of the pair, which is b's */
    EXPECT_STATUS(ndk_connect(cq3, ndk_qp_address(p.a.qp)), NDK_STATUS_SUCCESS);
    memset(c.buf, 0xC3, 256);
    ndk_sge cg = {(uint64_t)(uintptr_t)c.buf, 256, ndk_mr_local_token(c.mr)};
    EXPECT_STATUS(ndk_write(cq3, NULL, &cg, 1, e2e_remote_addr(&p.a, 0), ndk_mr_remote_token(p.a.mr), 0),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(c.cq, NDK_STATUS_INVALID_DEVICE_STATE, "the stranger's write");
    for (uint32_t i = 0; i < 256; i++)
        EXPECT(p.a.buf[i] == 0, "byte %u of a's memory changed by a stranger's write", i);
    /* b's first WRITE to a: PSN 0, as the stranger's was */
    e2e_fill(p.b.buf, 256, 77);
    ndk_sge g = e2e_sge(&p.b, 0, 256);
    EXPECT_STATUS(ndk_write(p.b.qp, NULL, &g, 1, e2e_remote_addr(&p.a, 0), ndk_mr_remote_token(p.a.mr), 0),
                  NDK_STATUS_SUCCESS);
    e2e_expect_one(p.b.icq, NDK_STATUS_SUCCESS, "b's write after the stranger's");
    EXPECT(memcmp(p.a.buf, p.b.buf, 256) == 0, "b's write did not land: taken for a duplicate of the stranger's");
    EXPECT_STATUS(ndk_destroy_qp(aq2), NDK_STATUS_SUCCESS);
    bare_nic_close(&c);
    e2e_pair_close(&p);
}

/* Off the network (qpnic-sim --net-port 0) a NIC has no address: its node
 * is its own (two such NICs differ), and ndk_connect to another node is
 * refused, INVALID_PARAMETER, rather than meeting a QP of the same number
 * on this NIC. */
static void off_the_network_a_nic_reaches_no_other(void)
{
    setenv("QPNIC_SIM_ARGS", "--net-port 0", 1);
    bare_nic n[2];
    for (int i = 0; i < 2; i++)
        bare_nic_open(&n[i], 1, 0);
    ndk_qp_addr a = ndk_qp_address(n[0].qp[0]), b = ndk_qp_address(n[1].qp[0]);
    EXPECT(a.node != b.node, "two NICs off the network share node 0x%llx", (unsigned long long)a.node);
    EXPECT(a.qp_num == b.qp_num, "the first QPs of two fresh NICs: 0x%x and 0x%x (the case needs equal numbers)",
           a.qp_num, b.qp_num);
    EXPECT_STATUS(ndk_connect(n[0].qp[0], b), NDK_STATUS_INVALID_PARAMETER);
    for (int i = 0; i < 2; i++)
        bare_nic_close(&n[i]);
}

int main(int argc, char **argv)
{
    unsetenv("QPNIC_URI");
#define C(f) { #f, f }
    static const e2e_case cases[] = {
        C(wire_counts_each_frame_once),
        C(loopback_sends_no_frames),
        C(duplicated_frames_execute_once),
        C(lost_frames_are_sent_again),
        C(retries_run_out_and_the_request_times_out),
        C(soak_one_percent_loss),
        C(two_nics_exchange_every_operation),
        C(two_nics_segment_at_the_path_mtu),
        C(two_nics_connect_checks),
        C(two_nics_wrong_remote_fails_with_a_status),
        C(two_nics_under_loss_reorder_and_corruption),
        C(two_nics_resume_long_messages_under_loss),
        C(two_nics_long_messages_at_five_percent_of_each_impairment),
        C(two_nics_several_qps_under_loss),
        C(two_nics_half_the_frames_lost),
        C(two_nics_and_the_loopback_at_once),
        C(two_nics_of_other_path_mtus_fail_with_a_status),
        C(three_nics_a_stranger_moves_nothing),
        C(off_the_network_a_nic_reaches_no_other),
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
