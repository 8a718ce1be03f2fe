/* fuzz_rings.c: the ring fuzzer (issue 11, fuzzer 2): raw bytes in the SQ
 * and RQ rings of two connected QPs, doorbells rung, against the
 * co-simulated NIC (libFuzzer, clang -fsanitize=fuzzer,address,undefined).
 *
 * For: what the NIC does with WQEs nobody validated. Whatever the bytes, it
 * must complete every slot rung with a named status (or retire it silently
 * where the layout says so), never hang, never DMA outside registered
 * memory (the simulator's checker), never lose or double a completion, and
 * leave both QPs destroyable. Not for: the API's argument checks (the API
 * fuzzer, tests/fuzz/fuzz.mk) or the semantics of valid requests (the
 * differential test, tests/diff/).
 *
 *   fuzz_rings [libFuzzer options] [CORPUS_DIR | CRASH_FILE ...]
 *   fuzz_rings --write-corpus DIR   write the seed corpus (tests/fuzz/corpus/rings)
 *
 * An input is a run of records of RECORD_BYTES: a control byte, three
 * spare bytes, and the 64 bytes of one ring slot (see struct record). The
 * harness writes each slot into its ring behind the driver's producer index,
 * updating the driver's own bookkeeping (internal.h) as a post would, and
 * rings the doorbell. The seed corpus holds slots the real driver wrote, so
 * mutations stay near the valid format.
 *
 * Each input runs on a fresh QP pair, with the token table restored to the
 * same regions first, so an input's outcome does not depend on the inputs
 * before it: a crash file reproduces alone. NIC behaviour feeds back to
 * libFuzzer through extra counters (nic_cov): completion type and status per
 * ring, status per SQ opcode, QP end states, and which NIC counters moved by
 * how much: host code coverage alone would not see the RTL.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "internal.h"
#include "regs.h"
#include "qpnic/ndk.h"
#include "qpnic/ndk_sim.h"

/* ------------------------------------------------------------- the input */

#define RECORD_BYTES (4 + QPNIC_WQE_BYTES)
#define MAX_RECORDS 48

/* record.ctl bits */
#define CTL_QP_B 0x01u      /* the slot goes to QP b (else a) */
#define CTL_RQ 0x02u        /* into its RQ (else its SQ) */
#define CTL_RING 0x04u      /* ring the doorbell after it (the last slot of each ring is rung anyway) */
#define CTL_PEER_SHIFT 3    /* bits 3-4: valid SENDs the other QP posts after this record (0-3) */
#define CTL_PEER_MASK 0x3u
#define CTL_SETTLE 0x20u    /* let the NIC go idle and check before the next record */

struct record {
    uint8_t ctl;
    uint8_t spare[3];
    uint8_t wqe[QPNIC_WQE_BYTES];
};

/* ------------------------------------------------------------- the setup */

#define RING_DEPTH 16u      /* slots in each SQ and RQ: small, so inputs wrap them */
#define CQ_DEPTH 1024u      /* more than the slots of one input: no overrun */
#define VA_BASE 0x10000000ull /* regions are fast-registered at fixed addresses: seeds hold them */
#define PAGE 4096u
#define BUF_PAGES 16u       /* the regions' memory, in pages */
#define NUM_REGIONS 5

/* Bounds of one settle: simulated cycles (a hang in the NIC's terms) and
 * wall time (in case the simulator stops counting). */
#define SETTLE_MAX_CYCLES 4000000ull
#define SETTLE_MAX_MS 60000

typedef struct {
    uint32_t offset_pages, pages, flags; /* NDK_OP_FLAG_ALLOW_* */
} region_spec;

/* The main PD's regions: every combination of rights a check can fail on. */
static const region_spec regions[NUM_REGIONS] = {
    { 0, 4, NDK_OP_FLAG_ALLOW_LOCAL_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE },
    { 4, 2, NDK_OP_FLAG_ALLOW_LOCAL_WRITE },
    { 6, 2, NDK_OP_FLAG_ALLOW_REMOTE_READ },
    { 8, 1, 0 },
    { 9, 2, NDK_OP_FLAG_ALLOW_LOCAL_WRITE | NDK_OP_FLAG_ALLOW_REMOTE_READ }, /* the FAST_REG seed's */
};

/* One token table entry as the harness restores it before each input. */
typedef struct {
    uint32_t idx, lkey, rkey, len, access, pd;
    uint64_t va, dev;
} entry_image;

static struct {
    ndk_adapter *ad;
    ndk_pd *pd, *pd2;
    ndk_cq *rcq[2], *scq[2];
    ndk_qp *qp[2];
    uint8_t *mem;           /* BUF_PAGES pages, page-aligned, inside the DMA memory */
    void *mem_alloc;
    uint8_t *mem2;          /* the other PD's region */
    ndk_mr *mr[NUM_REGIONS], *mr2;
    ndk_mw *mw;
    entry_image img[NUM_REGIONS + 1];
    uint32_t nimg;
    uint32_t mw_idx;
    uint8_t freg_seed[QPNIC_WQE_BYTES]; /* the driver's FAST_REG of region 4 */
    uint32_t violations;
    int verbose;            /* $QPNIC_FUZZ_VERBOSE: each input's slots and outcomes */
} g;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_rings: FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort(); /* libFuzzer saves the input as a crash */
}

#define TRY(call)                                                                       \
    do {                                                                                \
        ndk_status st_ = (call);                                                        \
        if (st_ != NDK_STATUS_SUCCESS)                                                  \
            die("%s:%d: %s: %s", __FILE__, __LINE__, #call, ndk_status_str(st_));       \
    } while (0)

/* -------------------------------------------------------- NIC coverage */

/* Extra counters: libFuzzer clears them before each input and keeps an
 * input that sets one not seen before (or a new count bucket of one). */
#define COV_COUNTERS 0      /* 16 counters x 16 buckets of how far each moved */
#define COV_CQE 256         /* ring (2) x type (16) x status (16) */
#define COV_OPCODE 768      /* SQ opcode (16) x status (16) */
#define COV_STATE 1024      /* QP (2) x NIC state (4) */
#define COV_N 1040
__attribute__((used, section("__libfuzzer_extra_counters"))) static uint8_t nic_cov[COV_N];

static void cov(uint32_t i)
{
    if (i < COV_N && nic_cov[i] < 255)
        nic_cov[i]++;
}

/* $QPNIC_FUZZ_NIC_COV: at exit, which NIC features the inputs run reached
 * (run it over a corpus with -runs=0 for docs/reliability.md's figures). */
static uint8_t nic_seen[COV_N];

static void nic_cov_report(void)
{
    static const char *const group[] = { "NIC counter moved (counter x log2 bucket)",
                                         "completion (ring x type x status)",
                                         "SQ opcode x status", "QP end state" };
    static const uint32_t from[] = { COV_COUNTERS, COV_CQE, COV_OPCODE, COV_STATE, COV_N };
    uint32_t all = 0;
    for (int k = 0; k < 4; k++) {
        uint32_t n = 0;
        for (uint32_t i = from[k]; i < from[k + 1]; i++)
            n += nic_seen[i] != 0;
        all += n;
        fprintf(stderr, "fuzz_rings: NIC coverage: %3u %s\n", n, group[k]);
    }
    fprintf(stderr, "fuzz_rings: NIC coverage: %3u extra counters of %u set\n", all, COV_N);
    fprintf(stderr, "fuzz_rings: SQ opcode/status pairs:");
    for (uint32_t i = COV_OPCODE; i < COV_STATE; i++)
        if (nic_seen[i])
            fprintf(stderr, " %u/%s", (i - COV_OPCODE) / 16,
                    ndk_status_str((ndk_status)((i - COV_OPCODE) % 16)) + 11);
    fprintf(stderr, "\n");
}

static uint32_t log_bucket(uint64_t v)
{
    uint32_t b = 0;
    while (v && b < 15) {
        v >>= 1;
        b++;
    }
    return b;
}

static uint32_t type_index(uint32_t ndk_type)
{
    switch (ndk_type) {
    case NDK_OP_TYPE_RECEIVE: return 1;
    case NDK_OP_TYPE_SEND: return 2;
    case NDK_OP_TYPE_FAST_REGISTER: return 3;
    case NDK_OP_TYPE_BIND: return 4;
    case NDK_OP_TYPE_INVALIDATE: return 5;
    case NDK_OP_TYPE_READ: return 6;
    case NDK_OP_TYPE_WRITE: return 7;
    case NDK_OP_TYPE_RECEIVE_AND_INVALIDATE: return 8;
    default: return 0;
    }
}

/* ------------------------------------------------- per-input bookkeeping */

/* One slot rung in an input: what the CQEs are checked against. */
typedef struct {
    uint8_t opcode, silent, cqes, ring;
    ndk_status status;
} slot_rec;

#define MAX_SLOTS (2 * (MAX_RECORDS + 3 * MAX_RECORDS))
static slot_rec slots[MAX_SLOTS];
static uint32_t nslots;
static uint32_t last_sq_seq[2]; /* newest SQ slot completed per QP (+1), for the order */
static uint32_t last_rq_seq[2];
static uint32_t gen_of_input;   /* tags carry it: a CQE of another input is caught */

/* A request context: the input's generation and the slot's number. */
static void *tag(uint32_t seq)
{
    return (void *)(uintptr_t)(((uint64_t)(gen_of_input & 0xFFFF) << 16 | (seq + 1)) & 0xFFFFFFFFu);
}

static uint32_t new_slot(int q, int rq, const uint8_t *wqe)
{
    if (nslots >= MAX_SLOTS)
        die("harness: slot table full");
    slot_rec *s = &slots[nslots];
    memset(s, 0, sizeof *s);
    uint32_t w0;
    memcpy(&w0, wqe, 4);
    s->opcode = (uint8_t)QPNIC_FIELD_GET(&w0, QPNIC_WQE_OPCODE);
    s->silent = (QPNIC_FIELD_GET(&w0, QPNIC_WQE_FLAGS) & QPNIC_OP_FLAG_SILENT_SUCCESS) != 0;
    s->ring = (uint8_t)(q * 2 + rq);
    return nslots++;
}

/* ----------------------------------------------------------- the pair */

static uint32_t qp_reg(int q, uint32_t reg_off)
{
    uint32_t v = 0;
    TRY(qpnic_reg_read(g.ad, QPNIC_QP_BASE + g.qp[q]->idx * QPNIC_QP_STRIDE + reg_off, &v));
    return v;
}

static void pair_create(void)
{
    for (int q = 0; q < 2; q++) {
        ndk_qp_attr a = { RING_DEPTH, RING_DEPTH, QPNIC_MAX_SGE, 0 };
        TRY(ndk_create_qp(g.pd, g.rcq[q], g.scq[q], (void *)(uintptr_t)(0x100 + q), &a, &g.qp[q]));
        if (a.sq_depth != RING_DEPTH || a.rq_depth != RING_DEPTH)
            die("harness: QP depths %u/%u granted, %u asked", a.sq_depth, a.rq_depth, RING_DEPTH);
    }
    TRY(ndk_connect(g.qp[0], ndk_qp_address(g.qp[1])));
    TRY(ndk_connect(g.qp[1], ndk_qp_address(g.qp[0])));
}

/* ------------------------------------------------------ checks and waits */

static void check_violations(const char *when)
{
    uint32_t v = 0;
    uint64_t first = 0;
    TRY(ndk_sim_dma_violations(g.ad, &v, &first));
    if (v != g.violations)
        die("%s: the simulator refused %u DMA access(es) outside registered memory (first at 0x%" PRIx64 ")",
            when, v - g.violations, first);
}

/* Let the NIC go idle, within SETTLE_MAX_CYCLES simulated cycles: past that
 * it is hung (or busy without end: the same to a user). */
static void wait_idle(const char *when)
{
    uint64_t c0 = ndk_sim_cycles(g.ad);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        ndk_status st = ndk_sim_wait_idle(g.ad, 100);
        if (st == NDK_STATUS_SUCCESS)
            return;
        if (st != NDK_STATUS_TIMEOUT)
            die("%s: ndk_sim_wait_idle: %s", when, ndk_status_str(st));
        uint64_t c = ndk_sim_cycles(g.ad) - c0;
        if (c > SETTLE_MAX_CYCLES || qpnic_ms_since(&t0) > SETTLE_MAX_MS) {
            char s[256] = "";
            for (int q = 0; q < 2; q++)
                if (g.qp[q]) {
                    size_t n = strlen(s);
                    snprintf(s + n, sizeof s - n, " QP %c: STATE %u SQ_PI %u SQ_CI %u RQ_PI %u RQ_CI %u;",
                             'a' + q, qp_reg(q, QPNIC_QPREG_STATE), qp_reg(q, QPNIC_QPREG_SQ_PI),
                             qp_reg(q, QPNIC_QPREG_SQ_CI), qp_reg(q, QPNIC_QPREG_RQ_PI),
                             qp_reg(q, QPNIC_QPREG_RQ_CI));
                }
            die("%s: hang: the NIC is not idle after %" PRIu64 " cycles (%ld ms);%s", when, c,
                qpnic_ms_since(&t0), s);
        }
    }
}

/* Which slot a completion names: its tag, of this input, of a slot rung. */
static uint32_t slot_of(const ndk_result_ex *r, int q, const char *when)
{
    uintptr_t t = (uintptr_t)r->request_context;
    uint32_t seq = (uint32_t)(t & 0xFFFF);
    if (!t || ((t >> 16) & 0xFFFF) != (gen_of_input & 0xFFFF) || seq == 0 || seq > nslots)
        die("%s: QP %c: a completion (type 0x%x, %s) names no slot of this input (context %p)", when,
            'a' + q, r->type, ndk_status_str(r->status), r->request_context);
    return seq - 1;
}

static void drain(const char *when)
{
    for (int q = 0; q < 2; q++)
        for (int rq = 0; rq < 2; rq++) {
            ndk_cq *cq = rq ? g.rcq[q] : g.scq[q];
            ndk_result_ex r[32];
            uint32_t n;
            while ((n = ndk_get_cq_results_ex(cq, r, 32)) != 0)
                for (uint32_t i = 0; i < n; i++) {
                    uint32_t ti = type_index(r[i].type);
                    int recv = ti == 1 || ti == 8;
                    cov(COV_CQE + ((uint32_t)rq * 16 + ti) * 16 + ((uint32_t)r[i].status & 15));
                    if (r[i].status == NDK_STATUS_INTERNAL_ERROR || !strcmp(ndk_status_str(r[i].status), "NDK_STATUS_<unknown>"))
                        die("%s: QP %c: a completion with no named status (CQE status unknown to the driver)",
                            when, 'a' + q);
                    if (ti == 0 || recv != rq)
                        die("%s: QP %c: a completion of type 0x%x in its %s CQ", when, 'a' + q,
                            r[i].type, rq ? "receive" : "initiator");
                    if (r[i].qp_context != (void *)(uintptr_t)(0x100 + q))
                        die("%s: a completion in QP %c's CQ names another QP (context %p)", when, 'a' + q,
                            r[i].qp_context);
                    uint32_t seq = slot_of(&r[i], q, when);
                    slot_rec *s = &slots[seq];
                    if (s->ring != q * 2 + rq)
                        die("%s: QP %c: a completion for slot %u of another ring", when, 'a' + q, seq);
                    uint32_t *last = rq ? &last_rq_seq[q] : &last_sq_seq[q];
                    if (seq + 1 <= *last)
                        die("%s: QP %c %s: completion of slot %u after slot %u's (doubled or out of order)",
                            when, 'a' + q, rq ? "RQ" : "SQ", seq, *last - 1);
                    *last = seq + 1;
                    if (s->cqes++)
                        die("%s: QP %c: slot %u completed twice", when, 'a' + q, seq);
                    s->status = r[i].status;
                    if (!rq) {
                        if (s->opcode == QPNIC_WQE_OP_INLINE_DATA)
                            die("%s: QP %c: an INLINE_DATA slot (%u) got a completion", when, 'a' + q, seq);
                        if (s->silent && r[i].status == NDK_STATUS_SUCCESS)
                            die("%s: QP %c: a SILENT_SUCCESS slot (%u) completed with SUCCESS", when,
                                'a' + q, seq);
                        cov(COV_OPCODE + (s->opcode < 15 ? s->opcode : 15) * 16u + ((uint32_t)r[i].status & 15));
                    }
                }
        }
}

/* The driver's consumer counts follow the NIC's (the CQEs were taken), so
 * its room checks and its destroy's quiesce see what the harness did. */
static void sync_consumers(int q)
{
    ndk_qp *qp = g.qp[q];
    uint32_t sci = qp_reg(q, QPNIC_QPREG_SQ_CI), rci = qp_reg(q, QPNIC_QPREG_RQ_CI);
    atomic_store(&qp->sq_ci, qp->sq_pi - ((qp->sq_pi - sci) & HREG_INDEX_MASK));
    atomic_store(&qp->rq_ci, qp->rq_pi - ((qp->rq_pi - rci) & HREG_INDEX_MASK));
}

/* Idle, completions taken, and every SQ slot rung completed: the NIC
 * consumed all it was handed (in either state). */
static void settle(const char *when)
{
    wait_idle(when);
    drain(when);
    check_violations(when);
    for (int q = 0; q < 2; q++) {
        ndk_qp *qp = g.qp[q];
        uint32_t sci = qp_reg(q, QPNIC_QPREG_SQ_CI), rci = qp_reg(q, QPNIC_QPREG_RQ_CI);
        uint32_t state = qp_reg(q, QPNIC_QPREG_STATE);
        if (sci != (qp->sq_rung & HREG_INDEX_MASK))
            die("%s: QP %c idle in state %u with SQ_CI %u, SQ_PI %u: slots rung and never completed",
                when, 'a' + q, state, sci, qp->sq_rung & HREG_INDEX_MASK);
        uint32_t posted = (qp->rq_pi - rci) & HREG_INDEX_MASK;
        if (posted > RING_DEPTH)
            die("%s: QP %c: RQ_CI %u beyond RQ_PI %u", when, 'a' + q, rci, qp->rq_pi & HREG_INDEX_MASK);
        if (state == QPNIC_QP_STATE_ERROR && posted)
            die("%s: QP %c idle in ERROR with %u receives not flushed", when, 'a' + q, posted);
        sync_consumers(q);
    }
}

/* ------------------------------------------------------ token table */

static void entry_write(const entry_image *e)
{
    const struct {
        uint32_t reg, val;
    } seq[] = {
        { QPNIC_REG_MR_IDX, e->idx },           { QPNIC_REG_MR_VA_LO, (uint32_t)e->va },
        { QPNIC_REG_MR_VA_HI, (uint32_t)(e->va >> 32) }, { QPNIC_REG_MR_LEN, e->len },
        { QPNIC_REG_MR_DMA_LO, (uint32_t)e->dev }, { QPNIC_REG_MR_DMA_HI, (uint32_t)(e->dev >> 32) },
        { QPNIC_REG_MR_LKEY, e->lkey },         { QPNIC_REG_MR_RKEY, e->rkey },
        { QPNIC_REG_MR_ACCESS, e->access },     { QPNIC_REG_MR_PD, e->pd },
        { QPNIC_REG_MR_CMD, QPNIC_MR_CMD_WRITE },
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
        TRY(qpnic_reg_write(g.ad, seq[i].reg, seq[i].val));
}

static void entry_invalidate(uint32_t idx)
{
    TRY(qpnic_reg_write(g.ad, QPNIC_REG_MR_IDX, idx));
    TRY(qpnic_reg_write(g.ad, QPNIC_REG_MR_CMD, QPNIC_MR_CMD_INVALIDATE));
}

/* Entries a FAST_REG or BIND of the last input may have written: invalid
 * again before the next, unless they are the harness's own (rewritten). */
static uint8_t touched[1u << QPNIC_TOKEN_INDEX_BITS];

static void note_touched(const uint8_t *wqe)
{
    uint32_t w[QPNIC_WQE_WORDS];
    memcpy(w, wqe, sizeof w);
    uint32_t op = QPNIC_FIELD_GET(w, QPNIC_WQE_OPCODE);
    if (op == QPNIC_WQE_OP_FAST_REG || op == QPNIC_WQE_OP_BIND)
        touched[w[1] & ((1u << QPNIC_TOKEN_INDEX_BITS) - 1)] = 1;
}

/* The token table as after the setup: the regions valid, the window
 * unbound, whatever else an input wrote invalid. The NIC is idle. */
static void restore_tokens(void)
{
    for (uint32_t i = 0; i < (1u << QPNIC_TOKEN_INDEX_BITS); i++)
        if (touched[i]) {
            entry_invalidate(i);
            touched[i] = 0;
        }
    entry_invalidate(g.mw_idx);
    for (uint32_t i = 0; i < g.nimg; i++)
        entry_write(&g.img[i]);
}

/* ------------------------------------------------------------- setup */

static void fast_register(int k)
{
    const region_spec *r = &regions[k];
    uint64_t pages[8];
    for (uint32_t p = 0; p < r->pages; p++)
        pages[p] = ndk_dma_address(g.ad, g.mem + (size_t)(r->offset_pages + p) * PAGE);
    TRY(ndk_create_mr(g.pd, &g.mr[k]));
    TRY(ndk_fast_register(g.qp[0], NULL, g.mr[k], r->pages, pages, 0, (size_t)r->pages * PAGE,
                          VA_BASE + (uint64_t)k * 0x100000u, r->flags));
    if (k == 4) { /* the seed corpus's FAST_REG: the driver's own WQE */
        uint32_t slot = (g.qp[0]->sq_pi - 1) & (RING_DEPTH - 1);
        memcpy(g.freg_seed, g.qp[0]->sq.host + (size_t)slot * QPNIC_WQE_BYTES, QPNIC_WQE_BYTES);
    }
    ndk_mr *m = g.mr[k];
    entry_image *e = &g.img[g.nimg++];
    *e = (entry_image){ m->idx, m->lkey, m->rkey, m->len, m->access, g.pd->id, m->va,
                        (1ull << QPNIC_PT_ADDR_BIT) | ((uint64_t)m->pt_first << QPNIC_FREG_PAGE_SHIFT) };
}

static void setup(void)
{
    g.verbose = getenv("QPNIC_FUZZ_VERBOSE") != NULL;
    TRY(ndk_open_adapter(NULL, &g.ad));
    TRY(ndk_create_pd(g.ad, &g.pd));
    TRY(ndk_create_pd(g.ad, &g.pd2));
    for (int q = 0; q < 2; q++) {
        TRY(ndk_create_cq(g.ad, CQ_DEPTH, NULL, NULL, &g.rcq[q]));
        TRY(ndk_create_cq(g.ad, CQ_DEPTH, NULL, NULL, &g.scq[q]));
    }
    g.mem_alloc = ndk_alloc_dma(g.ad, (BUF_PAGES + 1) * PAGE);
    g.mem2 = ndk_alloc_dma(g.ad, PAGE);
    if (!g.mem_alloc || !g.mem2)
        die("setup: ndk_alloc_dma gave NULL");
    g.mem = (uint8_t *)(((uintptr_t)g.mem_alloc + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
    gen_of_input = 1;
    pair_create();
    for (int k = 0; k < NUM_REGIONS; k++)
        fast_register(k);
    /* another PD's region: its tokens must get nowhere from these QPs */
    TRY(ndk_create_mr(g.pd2, &g.mr2));
    TRY(ndk_register_mr(g.mr2, g.mem2, PAGE, NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
                        NDK_MR_FLAG_ALLOW_REMOTE_READ | NDK_MR_FLAG_ALLOW_REMOTE_WRITE));
    TRY(ndk_create_mw(g.pd, &g.mw));
    g.mw_idx = g.mw->idx;
    wait_idle("setup");
    ndk_result_ex r[16];
    uint32_t n = ndk_get_cq_results_ex(g.scq[0], r, 16);
    for (uint32_t i = 0; i < n; i++)
        if (r[i].status != NDK_STATUS_SUCCESS)
            die("setup: a FastRegister completed %s", ndk_status_str(r[i].status));
    if (n != NUM_REGIONS)
        die("setup: %u FastRegister completions, %u expected", n, NUM_REGIONS);
    TRY(ndk_destroy_qp(g.qp[0]));
    TRY(ndk_destroy_qp(g.qp[1]));
    g.qp[0] = g.qp[1] = NULL;
    TRY(ndk_sim_dma_violations(g.ad, &g.violations, NULL));
    if (g.violations)
        die("setup: %u DMA violations", g.violations);
}

/* ---------------------------------------------------------- one input */

static void ring_sq(int q)
{
    ndk_qp *qp = g.qp[q];
    if (qp->sq_rung == qp->sq_pi)
        return;
    pthread_mutex_lock(&g.ad->lock);
    ndk_status st = qpnic_ring_sq_locked(qp);
    pthread_mutex_unlock(&g.ad->lock);
    TRY(st);
}

static uint32_t rq_rung[2];

static void ring_rq(int q)
{
    ndk_qp *qp = g.qp[q];
    if (rq_rung[q] == qp->rq_pi)
        return;
    atomic_thread_fence(memory_order_release);
    TRY(qpnic_reg_write(g.ad, QPNIC_QPREG(qp->idx, RQ_PI), qp->rq_pi & HREG_INDEX_MASK));
    rq_rung[q] = qp->rq_pi;
}

/* Write one slot into a ring behind the driver, as a post would. Returns 0
 * when the ring has no room even after the NIC settled. */
static int put_slot(int q, int rq, const uint8_t *wqe)
{
    ndk_qp *qp = g.qp[q];
    for (int tries = 0; tries < 2; tries++) {
        uint32_t used = rq ? qp->rq_pi - atomic_load(&qp->rq_ci) : qp->sq_pi - atomic_load(&qp->sq_ci);
        if (used < RING_DEPTH)
            break;
        if (tries)
            return 0; /* an RQ full of receives no SEND took */
        ring_sq(0), ring_sq(1), ring_rq(0), ring_rq(1);
        settle("ring full");
    }
    uint32_t seq = new_slot(q, rq, wqe);
    if (rq) {
        uint32_t slot = qp->rq_pi & (RING_DEPTH - 1);
        memcpy(qp->rq.host + (size_t)slot * QPNIC_WQE_BYTES, wqe, QPNIC_WQE_BYTES);
        qp->rq_ctx[slot] = tag(seq);
        qp->rq_pi++;
    } else {
        uint32_t slot = qp->sq_pi & (RING_DEPTH - 1);
        memcpy(qp->sq.host + (size_t)slot * QPNIC_WQE_BYTES, wqe, QPNIC_WQE_BYTES);
        qp->sq_ctx[slot] = tag(seq);
        /* the driver's retire_silent only passes silent slots */
        qp->sq_silent[slot] = slots[seq].silent || slots[seq].opcode == QPNIC_WQE_OP_INLINE_DATA;
        qp->sq_pi++;
        note_touched(wqe);
    }
    return 1;
}

/* A valid SEND of 32 bytes from region 0, through the driver: something
 * for the peer's receives (valid or not) to take. */
static void peer_send(int q)
{
    ndk_qp *qp = g.qp[q];
    if (atomic_load(&qp->state) != QP_HOST_RTS)
        return;
    if (qp->sq_pi - atomic_load(&qp->sq_ci) >= RING_DEPTH) {
        ring_sq(0), ring_sq(1), ring_rq(0), ring_rq(1);
        settle("peer send: ring full");
        if (qp->sq_pi - atomic_load(&qp->sq_ci) >= RING_DEPTH || atomic_load(&qp->state) != QP_HOST_RTS)
            return;
    }
    uint8_t w[QPNIC_WQE_BYTES];
    uint32_t words[QPNIC_WQE_WORDS];
    ndk_sge sge = { VA_BASE, 32, g.img[0].lkey };
    qpnic_wqe_encode(words, QPNIC_WQE_OP_SEND, 0, &sge, 1, 0, 0);
    memcpy(w, words, sizeof w);
    uint32_t seq = new_slot(q, 0, w);
    ndk_status st = ndk_send(qp, tag(seq), &sge, 1, 0);
    if (st == NDK_STATUS_INVALID_DEVICE_STATE) { /* the QP failed meanwhile */
        nslots--;
        return;
    }
    TRY(st);
}

/* Every slot of the input accounted for: once its QPs are destroyed (all
 * flushed) and their completions taken, each slot has the completions the
 * layout says: an INLINE_DATA slot none, a SILENT_SUCCESS one none on
 * success, every other exactly one. */
static void check_accounting(void)
{
    for (uint32_t i = 0; i < nslots; i++) {
        const slot_rec *s = &slots[i];
        int q = s->ring / 2, rq = s->ring & 1;
        if (rq || (s->opcode != QPNIC_WQE_OP_INLINE_DATA && !s->silent)) {
            if (s->cqes != 1)
                die("end: QP %c %s slot %u (opcode %u): %u completions, 1 expected (lost)", 'a' + q,
                    rq ? "RQ" : "SQ", i, s->opcode, s->cqes);
        }
    }
}

static void run_input(const struct record *rec, size_t nrec)
{
    gen_of_input++;
    nslots = 0;
    memset(last_sq_seq, 0, sizeof last_sq_seq);
    memset(last_rq_seq, 0, sizeof last_rq_seq);
    memset(g.mem, 0, (size_t)BUF_PAGES * PAGE);
    memset(g.mem2, 0, PAGE);
    restore_tokens();
    pair_create();
    rq_rung[0] = rq_rung[1] = 0;
    ndk_counters c0, c1;
    TRY(ndk_query_counters(g.ad, &c0));

    for (size_t i = 0; i < nrec; i++) {
        const struct record *r = &rec[i];
        int q = (r->ctl & CTL_QP_B) != 0, rq = (r->ctl & CTL_RQ) != 0;
        if (!put_slot(q, rq, r->wqe))
            continue;
        if (r->ctl & CTL_RING) {
            if (rq)
                ring_rq(q);
            else
                ring_sq(q);
        }
        for (uint32_t k = 0; k < ((r->ctl >> CTL_PEER_SHIFT) & CTL_PEER_MASK); k++)
            peer_send(!q);
        if (r->ctl & CTL_SETTLE) {
            ring_sq(0), ring_sq(1), ring_rq(0), ring_rq(1);
            settle("settle");
        }
    }
    ring_sq(0), ring_sq(1), ring_rq(0), ring_rq(1);
    settle("end of input");

    for (int q = 0; q < 2; q++) {
        uint32_t state = qp_reg(q, QPNIC_QPREG_STATE);
        cov(COV_STATE + (uint32_t)q * 4 + (state & 3));
    }
    /* destroy: the NIC flushes the receives still posted; the driver waits
     * until it has (a hang here is the NIC's too) */
    for (int q = 0; q < 2; q++) {
        ndk_status st = ndk_destroy_qp(g.qp[q]);
        if (st == NDK_STATUS_DEVICE_BUSY)
            die("end: ndk_destroy_qp of QP %c: DEVICE_BUSY (the NIC did not let go of it in 10 s)",
                'a' + q);
        TRY(st);
    }
    wait_idle("after destroy");
    drain("after destroy");
    g.qp[0] = g.qp[1] = NULL;
    check_violations("after destroy");
    check_accounting();
    if (g.ad->zombies)
        die("end: a destroyed QP still waits for completions (the driver's count and the NIC's differ)");

    TRY(ndk_query_counters(g.ad, &c1));
    const uint64_t *a = (const uint64_t *)&c0, *b = (const uint64_t *)&c1;
    if (g.verbose) {
        for (uint32_t i = 0; i < nslots; i++)
            fprintf(stderr, "  slot %2u: QP %c %s opcode %3u%s: %u completion(s)%s%s\n", i,
                    'a' + slots[i].ring / 2, slots[i].ring & 1 ? "RQ" : "SQ", slots[i].opcode,
                    slots[i].silent ? " silent" : "", slots[i].cqes, slots[i].cqes ? ", " : "",
                    slots[i].cqes ? ndk_status_str(slots[i].status) : "");
        fprintf(stderr, "  counters moved:");
        for (size_t i = 0; i < sizeof c0 / sizeof(uint64_t); i++)
            fprintf(stderr, " %" PRIu64, b[i] - a[i]);
        fprintf(stderr, "\n");
    }
    for (size_t i = 0; i < sizeof c0 / sizeof(uint64_t) && i < 16; i++)
        if (i != 7) /* cycles: always moves */
            cov(COV_COUNTERS + (uint32_t)i * 16 + log_bucket(b[i] - a[i]));
}

/* ---------------------------------------------------------- seed corpus */

typedef struct {
    struct record rec[MAX_RECORDS];
    size_t n;
} seed;

/* Capture the slots the driver wrote since *mark into the seed, with ctl. */
static void capture(seed *s, int q, int rq, uint32_t *mark, uint8_t ctl_last)
{
    ndk_qp *qp = g.qp[q];
    uint32_t pi = rq ? qp->rq_pi : qp->sq_pi;
    for (uint32_t i = *mark; i != pi; i++) {
        struct record *r = &s->rec[s->n++];
        memset(r, 0, sizeof *r);
        r->ctl = (uint8_t)((q ? CTL_QP_B : 0) | (rq ? CTL_RQ : 0) | (i + 1 == pi ? ctl_last : 0));
        memcpy(r->wqe, (rq ? qp->rq.host : qp->sq.host) + (size_t)(i & (RING_DEPTH - 1)) * QPNIC_WQE_BYTES,
               QPNIC_WQE_BYTES);
    }
    *mark = pi;
}

static ndk_sge sge(int k, uint32_t off, uint32_t len)
{
    return (ndk_sge){ VA_BASE + (uint64_t)k * 0x100000u + off, len, g.img[k].lkey };
}

static uint64_t rva(int k, uint32_t off)
{
    return VA_BASE + (uint64_t)k * 0x100000u + off;
}

static void write_seed(const char *dir, const char *name, const seed *s)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(s->rec, RECORD_BYTES, s->n, f) != s->n || fclose(f) != 0)
        die("--write-corpus: cannot write %s", path);
    printf("fuzz_rings: wrote %s (%zu slots)\n", path, s->n);
}

/* Each seed: requests posted by the real driver on a fresh pair, captured
 * from the rings. The requests run too (the pair is thrown away after). */
static void write_corpus(const char *dir)
{
    mkdir(dir, 0777);
    for (uint32_t i = 0; i < 164; i++) /* the INLINE seeds' payload */
        g.mem[i] = (uint8_t)(i * 7 + 1);
    static const char *names[] = { "send", "write", "read", "send_inv", "invalidate", "fast_reg",
                                   "bind_write", "inline_send", "inline_write", "silent_fence",
                                   "other_pd", "no_rights", "chain", "bad_wqe", "recv_no_write",
                                   "freg_raw_dma", "bind_over_region" };
    for (unsigned k = 0; k < sizeof names / sizeof names[0]; k++) {
        seed s;
        memset(&s, 0, sizeof s);
        restore_tokens();
        pair_create();
        ndk_qp *a = g.qp[0], *b = g.qp[1];
        uint32_t ma = 0, mb = 0, ra = 0, rb = 0;
        ndk_sge l[3];
        uint8_t w[QPNIC_WQE_BYTES];
        switch (k) {
        case 0: /* a receive on b, a SEND from a */
            l[0] = sge(0, 4096, 4096);
            TRY(ndk_receive(b, NULL, l, 1));
            capture(&s, 1, 1, &rb, CTL_RING);
            l[0] = sge(0, 0, 100);
            TRY(ndk_send(a, NULL, l, 1, 0));
            capture(&s, 0, 0, &ma, CTL_RING);
            break;
        case 1:
            l[0] = sge(1, 0, 200);
            l[1] = sge(0, 0, 56);
            TRY(ndk_write(a, NULL, l, 2, rva(0, 8192), g.img[0].rkey, 0));
            capture(&s, 0, 0, &ma, CTL_RING);
            break;
        case 2:
            l[0] = sge(1, 100, 300);
            TRY(ndk_read(b, NULL, l, 1, rva(2, 0), g.img[2].rkey, 0));
            capture(&s, 1, 0, &mb, CTL_RING);
            break;
        case 3:
            l[0] = sge(0, 0, 64);
            TRY(ndk_receive(b, NULL, l, 1));
            capture(&s, 1, 1, &rb, CTL_RING);
            l[0] = sge(0, 64, 8);
            TRY(ndk_send_and_invalidate(a, NULL, l, 1, 0, g.img[1].rkey));
            capture(&s, 0, 0, &ma, CTL_RING);
            break;
        case 4:
            TRY(ndk_invalidate(a, NULL, g.img[1].lkey, 0));
            capture(&s, 0, 0, &ma, CTL_RING);
            l[0] = sge(1, 0, 16);
            TRY(ndk_write(a, NULL, l, 1, rva(0, 0), g.img[0].rkey, 0));
            capture(&s, 0, 0, &ma, CTL_RING);
            break;
        case 5: /* the driver's FAST_REG of region 4 (setup), then a READ across its pages */
            s.rec[s.n].ctl = 0;
            memcpy(s.rec[s.n++].wqe, g.freg_seed, QPNIC_WQE_BYTES);
            l[0] = sge(0, 0, 128);
            TRY(ndk_read(a, NULL, l, 1, rva(4, 4000), g.img[4].rkey, 0));
            capture(&s, 0, 0, &ma, CTL_RING);
            break;
        case 6:
            TRY(ndk_bind(a, NULL, g.mr[0], g.mw, rva(0, 1024), 2048,
                         NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_REMOTE_WRITE));
            capture(&s, 0, 0, &ma, CTL_RING);
            l[0] = sge(0, 8192, 256);
            TRY(ndk_write(b, NULL, l, 1, rva(0, 1024), ndk_mw_remote_token(g.mw), 0));
            capture(&s, 1, 0, &mb, CTL_RING | CTL_SETTLE);
            TRY(ndk_read(b, NULL, l, 1, rva(0, 2048), ndk_mw_remote_token(g.mw), 0));
            capture(&s, 1, 0, &mb, CTL_RING);
            break;
        case 7:
            l[0] = sge(0, 0, 4096);
            TRY(ndk_receive(b, NULL, l, 1));
            capture(&s, 1, 1, &rb, CTL_RING);
            /* INLINE copies from the address as a pointer, at the post */
            l[0] = (ndk_sge){ (uint64_t)(uintptr_t)g.mem, 164, 0 };
            TRY(ndk_send(a, NULL, l, 1, NDK_OP_FLAG_INLINE | NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT));
            capture(&s, 0, 0, &ma, CTL_RING);
            break;
        case 8:
            l[0] = (ndk_sge){ (uint64_t)(uintptr_t)g.mem, 50, 0 };
            TRY(ndk_write(a, NULL, l, 1, rva(0, 12000), g.img[0].rkey, NDK_OP_FLAG_INLINE));
            capture(&s, 0, 0, &ma, CTL_RING);
            break;
        case 9:
            l[0] = sge(1, 0, 512);
            TRY(ndk_write(a, NULL, l, 1, rva(0, 0), g.img[0].rkey,
                          NDK_OP_FLAG_SILENT_SUCCESS | NDK_OP_FLAG_DEFER));
            TRY(ndk_read(a, NULL, l, 1, rva(0, 512), g.img[0].rkey, NDK_OP_FLAG_READ_FENCE | NDK_OP_FLAG_DEFER));
            l[0] = sge(1, 0, 0);
            TRY(ndk_send(a, NULL, l, 1, NDK_OP_FLAG_SILENT_SUCCESS));
            capture(&s, 0, 0, &ma, CTL_RING);
            s.rec[s.n - 1].ctl |= 1u << CTL_PEER_SHIFT; /* b sends one back: a has no receive */
            break;
        case 10: /* another PD's region, by its own tokens */
            l[0] = (ndk_sge){ (uint64_t)(uintptr_t)g.mem2, 64, ndk_mr_local_token(g.mr2) };
            TRY(ndk_write(a, NULL, l, 1, (uint64_t)(uintptr_t)g.mem2, ndk_mr_remote_token(g.mr2), 0));
            capture(&s, 0, 0, &ma, CTL_RING);
            break;
        case 11:
            l[0] = sge(0, 0, 64);
            TRY(ndk_write(a, NULL, l, 1, rva(3, 0), g.img[3].rkey, 0));
            TRY(ndk_read(b, NULL, l, 1, rva(1, 0), g.img[1].rkey, 0));
            capture(&s, 0, 0, &ma, CTL_RING);
            capture(&s, 1, 0, &mb, CTL_RING);
            break;
        case 12: /* receives on a, a DEFER chain of SENDs from b */
            for (int i = 0; i < 4; i++) {
                l[0] = sge(0, 1024u * (uint32_t)i, 1024);
                TRY(ndk_receive(a, NULL, l, 1));
            }
            capture(&s, 0, 1, &ra, CTL_RING);
            for (int i = 0; i < 4; i++) {
                l[0] = sge(1, 0, 100u * (uint32_t)i);
                TRY(ndk_send(b, NULL, l, 1, i < 3 ? NDK_OP_FLAG_DEFER : 0));
            }
            capture(&s, 1, 0, &mb, CTL_RING);
            break;
        case 13: /* an all-zero slot (NOP), and a WRITE claiming 4 SGEs */
            memset(w, 0, sizeof w);
            s.rec[s.n].ctl = CTL_RING | CTL_SETTLE;
            memcpy(s.rec[s.n++].wqe, w, sizeof w);
            l[0] = sge(0, 0, 8);
            TRY(ndk_write(b, NULL, l, 1, rva(0, 0), g.img[0].rkey, 0));
            capture(&s, 1, 0, &mb, CTL_RING);
            s.rec[s.n - 1].wqe[1] = (uint8_t)((s.rec[s.n - 1].wqe[1] & 0xF0) | 4);
            s.rec[s.n - 1].ctl = CTL_QP_B | CTL_RING;
            break;
        case 15: /* defect 1 (docs/reliability.md): a FAST_REG whose device address is
                  * not a page-table address, then a READ into it: BAD_WQE now */
            s.rec[s.n].ctl = 0;
            memcpy(s.rec[s.n].wqe, g.freg_seed, QPNIC_WQE_BYTES);
            s.rec[s.n++].wqe[QPNIC_WQE_FREG_DMA_HI_WORD * 4 + 3] &= 0x7F; /* PT_ADDR_BIT */
            l[0] = sge(0, 0, 128);
            TRY(ndk_read(a, NULL, l, 1, rva(4, 4000), g.img[4].rkey, 0));
            capture(&s, 0, 0, &ma, CTL_RING);
            break;
        case 16: /* defect 3: a BIND naming region 2's entry as its window (it
                  * replaced the region before; BAD_WQE now), then b's READ of
                  * region 2 (BAD_QP now: a went to ERROR) */
            TRY(ndk_bind(a, NULL, g.mr[0], g.mw, rva(0, 1024), 2048, NDK_OP_FLAG_ALLOW_REMOTE_READ));
            capture(&s, 0, 0, &ma, CTL_RING | CTL_SETTLE);
            {
                uint32_t rk;
                memcpy(&rk, s.rec[s.n - 1].wqe + QPNIC_WQE_BIND_RKEY_WORD * 4, 4);
                rk = (rk & ~((1u << QPNIC_TOKEN_INDEX_BITS) - 1)) | g.img[2].idx;
                memcpy(s.rec[s.n - 1].wqe + QPNIC_WQE_BIND_RKEY_WORD * 4, &rk, 4);
            }
            l[0] = sge(0, 8192, 64);
            TRY(ndk_read(b, NULL, l, 1, rva(2, 0), g.img[2].rkey, 0));
            capture(&s, 1, 0, &mb, CTL_RING);
            break;
        case 14: /* a receive into a region without LOCAL_WRITE */
            l[0] = sge(2, 0, 64);
            TRY(ndk_receive(b, NULL, l, 1));
            capture(&s, 1, 1, &rb, CTL_RING | (1u << CTL_PEER_SHIFT));
            break;
        }
        (void)ra;
        wait_idle("write-corpus");
        TRY(ndk_destroy_qp(a));
        TRY(ndk_destroy_qp(b));
        g.qp[0] = g.qp[1] = NULL;
        wait_idle("write-corpus");
        for (int q = 0; q < 2; q++) { /* throw the completions away */
            ndk_result_ex r[32];
            while (ndk_get_cq_results_ex(g.rcq[q], r, 32) || ndk_get_cq_results_ex(g.scq[q], r, 32)) {
            }
        }
        char name[64];
        snprintf(name, sizeof name, "%02u-%s", k, names[k]);
        write_seed(dir, name, &s);
    }
}

/* ---------------------------------------------------------- libFuzzer */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *corpus_dir = NULL;
    for (int i = 1; i < *argc; i++)
        if (!strcmp((*argv)[i], "--write-corpus") && i + 1 < *argc)
            corpus_dir = (*argv)[i + 1];
    setup();
    if (corpus_dir) {
        write_corpus(corpus_dir);
        ndk_close_adapter(g.ad);
        exit(0);
    }
    if (getenv("QPNIC_FUZZ_NIC_COV"))
        atexit(nic_cov_report);
    fprintf(stderr, "fuzz_rings: simulator pid %d; records of %d bytes, at most %d an input\n",
            ndk_sim_pid(g.ad), RECORD_BYTES, MAX_RECORDS);
    return 0;
}

/* Mutations that know the record format, half the time (libFuzzer's own
 * byte-level ones the rest): a bit, a word or the opcode of one slot, its
 * control byte, a word copied from another slot, records duplicated,
 * dropped or swapped. A defect behind one field of one WQE (a flag bit, a
 * token, an address's top bit) is then a mutation or two away instead of
 * one in a million byte-level ones. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static uint32_t mrand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return (uint32_t)(*x >> 11);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint64_t x = (uint64_t)seed * 0x9E3779B97F4A7C15ull | 1;
    size_t n = size / RECORD_BYTES, cap = max_size / RECORD_BYTES;
    if (cap > MAX_RECORDS)
        cap = MAX_RECORDS;
    if (n == 0 || n > cap || mrand(&x) % 2)
        return LLVMFuzzerMutate(data, size, max_size);
    uint8_t *r = data + (size_t)(mrand(&x) % n) * RECORD_BYTES;
    uint8_t *other = data + (size_t)(mrand(&x) % n) * RECORD_BYTES;
    uint32_t wi = mrand(&x) % QPNIC_WQE_WORDS, w;
    uint8_t *wp = r + 4 + wi * 4;
    memcpy(&w, wp, 4);
    switch (mrand(&x) % 10) {
    case 0: w ^= 1u << (mrand(&x) % 32); break;
    case 1: w ^= 0x80000000u; break; /* the top bit: a 64-bit address's high word */
    case 2: w = (mrand(&x) % 2) ? 0 : 0xFFFFFFFFu; break;
    case 3: w += (mrand(&x) % 33) - 16; break;
    case 4: memcpy(&w, other + 4 + wi * 4, 4); break;
    case 5: /* an opcode, any of the layout's or just past them */
        r[4] = (uint8_t)(mrand(&x) % (QPNIC_WQE_OP_INLINE_DATA + 2));
        return n * RECORD_BYTES;
    case 6: r[0] = (uint8_t)mrand(&x); return n * RECORD_BYTES;
    case 7: /* a record again, after the chosen one */
        if (n < cap) {
            uint8_t t[RECORD_BYTES];
            memcpy(t, other, RECORD_BYTES);
            size_t at = (size_t)(r - data) + RECORD_BYTES;
            memmove(data + at + RECORD_BYTES, data + at, n * RECORD_BYTES - at);
            memcpy(data + at, t, RECORD_BYTES);
            return (n + 1) * RECORD_BYTES;
        }
        return n * RECORD_BYTES;
    case 8: /* drop one */
        if (n > 1) {
            size_t at = (size_t)(r - data);
            memmove(data + at, data + at + RECORD_BYTES, n * RECORD_BYTES - at - RECORD_BYTES);
            return (n - 1) * RECORD_BYTES;
        }
        return n * RECORD_BYTES;
    default: { /* swap two */
        uint8_t t[RECORD_BYTES];
        memcpy(t, r, RECORD_BYTES);
        memmove(r, other, RECORD_BYTES);
        memcpy(other, t, RECORD_BYTES);
        return n * RECORD_BYTES;
    }
    }
    memcpy(wp, &w, 4);
    return n * RECORD_BYTES;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t nrec = size / RECORD_BYTES;
    if (nrec == 0 || nrec > MAX_RECORDS)
        return -1; /* not kept */
    struct record rec[MAX_RECORDS];
    memcpy(rec, data, nrec * RECORD_BYTES);
    run_input(rec, nrec);
    for (uint32_t i = 0; i < COV_N; i++)
        nic_seen[i] |= nic_cov[i] != 0;
    return 0;
}
