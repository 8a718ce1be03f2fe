/* qpnic-perf: how fast qpnic is, counted by the NIC itself (issue 3).
 *
 * For: measuring SEND, WRITE and READ between two QPs of one adapter joined
 * through the NIC's loopback port, in the spirit of perftest (ib_write_bw,
 * ib_write_lat) and Network Direct's ndping. Every figure per operation
 * comes from the NIC's hardware counters (ndk_query_counters deltas: D8's
 * doorbells, WQE fetch reads, DMA bytes, NIC cycles, notification latency);
 * only ops/s and simulated cycles/s are wall-clock figures.
 * Not for: checking correctness (tests/e2e does that; this tool only insists
 * that every request completes with SUCCESS), nor real wires. On the
 * simulator's RoCEv2 wire (QPNIC_SIM_ARGS=--wire, and --wire-drop PPM for
 * loss) each run adds a line: frames, payload bytes sent and sent again,
 * retransmissions, NAKs.
 *
 * Each configuration (one op, size, chain length, doorbell delay) runs on a
 * fresh adapter, so a private simulator starts from reset: counters that are
 * high-water marks (the notification latency max) are this run's alone.
 *
 *   qpnic-perf [options]          (qpnic-perf --help for the list)
 *
 * A chain of N is N-1 requests with NDK_OP_FLAG_DEFER and one without: one
 * doorbell for N requests (D1, D8). Latency mode posts one chain and waits
 * for all of its completions before the next; throughput mode keeps the SQ
 * (256 deep) as full as whole chains allow. Completions are taken by polling
 * ndk_get_cq_results, or by ndk_arm_cq + ndk_wait_cq (a notification).
 *
 * frsend is the deferral seed's motivating pattern: a chain of N
 * FastRegisters (DEFER), each of a fresh MR over the first `size` bytes of
 * the local buffer, then one Send that gathers from the last of them: N+1
 * requests, one doorbell. Every FastRegister takes its own MR, created
 * before the measurement (a region stays registered until destroyed), so
 * the run needs one token table entry per FastRegister.
 *
 * --post prepared posts SEND, WRITE and READ through ndk_prepare_* and
 * ndk_post_prepared (V1) instead of the plain calls. Either way the host's
 * time inside the deferred posting calls of each chain is measured (a
 * clock read before the first and one before the last, whose doorbell
 * write is the link's cost, not the post's; a chain of one times its one
 * post) and reported per request for the fastest of the measured chains:
 * the post's own cost, without the scheduler's interruptions or the cache
 * traffic of the simulator beside it, which on a shared machine swing the
 * mean and even the median by 2x from run to run: `host ns/post`, the one
 * figure here that is the host's and not the NIC's.
 *
 * Times in NIC cycles convert to seconds at the stated clock of the iCE40
 * target, 25 MHz (../shared/DESIGN.md): the doorbell cost model's PCIe-like
 * doorbell (~0.5 us) is 13 cycles, the USB-serial-like one (~1 ms) 25000.
 *
 * Exit status: 0 done, 1 a run failed (the message says which call), 2 a
 * bad option (with a usage message).
 */
#include <qpnic/ndk.h>
#include <qpnic/ndk_sim.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NIC_CLOCK_HZ 25000000.0        /* iCE40 target clock (DESIGN.md) */
#define DELAY_PCIE_CYCLES 13u          /* ~0.5 us at 25 MHz */
#define DELAY_USB_CYCLES 25000u        /* ~1 ms at 25 MHz */

#define SQ_DEPTH 256u                  /* four chains of 64 in flight */
#define ICQ_DEPTH 512u                 /* >= every request the SQ holds (V2) */
#define RQ_DEPTH 4096u                 /* receives posted ahead for SEND (at most) */
#define MAX_SIZE 65536u                /* largest message the tool sends */
#define MAX_CHAIN 64u
#define MAX_LIST 32                    /* entries of one list option */
#define REAP_BATCH 256u
#define WAIT_TIMEOUT_MS 120000         /* a notification never takes this long */
#define FR_PAGE 4096u                  /* ndk_fast_register's page size (ndk.h) */

enum op { OP_SEND, OP_WRITE, OP_READ, OP_FRSEND };
#define NUM_OPS 4
enum mode { MODE_LAT, MODE_BW };
enum wait { WAIT_POLL, WAIT_NOTIFY };
enum format { FMT_TABLE, FMT_CSV, FMT_JSON };
enum post { POST_PLAIN, POST_PREPARED };

static const char *const op_names[] = { "send", "write", "read", "frsend" };
static const char *const mode_names[] = { "lat", "bw" };
static const char *const wait_names[] = { "poll", "notify" };
static const char *const post_names[] = { "plain", "prepared" };

typedef struct {
    uint32_t v[MAX_LIST];
    int n;
} u32_list;

/* What the command line asked for: the runs are every combination. */
typedef struct {
    u32_list ops, sizes, chains, delays, posts;
    enum mode mode;
    enum wait wait;
    uint32_t iters, warmup;
    enum format format;
    const char *uri;
} options;

/* One configuration. */
typedef struct {
    enum op op;
    uint32_t size, chain, delay;
    enum mode mode;
    enum wait wait;
    uint32_t iters, warmup;
    enum post post;
} run_cfg;

/* Requests a chain posts: frsend's N FastRegisters and its Send. */
static uint32_t chain_requests(const run_cfg *c)
{
    return c->op == OP_FRSEND ? c->chain + 1 : c->chain;
}

/* What one configuration measured. */
typedef struct {
    uint64_t ops;
    ndk_counters d;            /* counter deltas over the measured ops */
    uint64_t mmio_writes;      /* host register writes (ndk_sim_mmio_writes): doorbells, arms */
    uint64_t ntf_latency_max;  /* since the adapter opened (warmup never notifies) */
    double wall_s;
    uint64_t sim_cycles;       /* ndk_sim_cycles delta */
    double post_ns;            /* host ns inside the posting calls, per request: fastest chain */
} run_result;

/* Everything one run holds. */
typedef struct {
    const run_cfg *cfg;
    const char *uri;
    ndk_adapter *ad;
    ndk_pd *pd;
    ndk_cq *icq, *rcq;
    ndk_qp *qa, *qb;           /* qa initiates, qb is the loopback peer */
    ndk_mr *mr;
    void *block;               /* ndk_alloc_dma's block; buf is its first page boundary */
    uint8_t *buf;              /* [0, MAX_SIZE) local, [MAX_SIZE, 2*MAX_SIZE) remote */
    ndk_prepared *pp_defer, *pp_last;  /* --post prepared: with DEFER, without */
    ndk_mr **fr_mrs;           /* frsend: one MR per FastRegister of the run */
    uint32_t fr_count, fr_used;
    uint64_t fr_list[MAX_SIZE / FR_PAGE];  /* frsend: the pages of the buffer's first `size` bytes */
    uint32_t fr_pages;
    uint64_t posted, done;     /* initiator requests */
    uint64_t sends;            /* SENDs among them (each needs a receive) */
    double *chain_s;           /* host time inside the posting calls, per chain */
    size_t chains, chains_cap;
    uint32_t rq_depth;         /* RQ_DEPTH, or less if the NIC offers less */
    uint64_t recv_posted, recv_done;
    char err[256];
} bench;

/* ---- errors ---------------------------------------------------------- */

static int fail(bench *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, sizeof b->err, fmt, ap);
    va_end(ap);
    return -1;
}

static int check(bench *b, ndk_status st, const char *what)
{
    return st == NDK_STATUS_SUCCESS ? 0 : fail(b, "%s: %s", what, ndk_status_str(st));
}

/* ---- option parsing ---------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: qpnic-perf [options]\n"
        "  -o, --op LIST          send, write, read, frsend (comma list; default write);\n"
        "                         frsend: N FastRegisters then a Send, one doorbell\n"
        "  -s, --size LIST        message bytes, 1..65536 (default 64); A-B is every\n"
        "                         power of two from A to B; K suffix = 1024\n"
        "  -c, --chain LIST       requests per doorbell, 1..64 (default 1; A-B as above);\n"
        "                         for frsend the FastRegisters before each Send\n"
        "  -m, --mode MODE        lat (one chain at a time, wait for its completions)\n"
        "                         or bw (keep the SQ full of chains; default)\n"
        "  -w, --wait HOW         poll (ndk_get_cq_results; default) or notify\n"
        "                         (ndk_arm_cq + ndk_wait_cq)\n"
        "  -n, --iters N          operations measured per configuration (default 256;\n"
        "                         rounded up to whole chains)\n"
        "      --warmup N         operations run before measuring (default: one chain)\n"
        "  -p, --post LIST        plain (ndk_send/write/read; default) or prepared\n"
        "                         (ndk_prepare_* once, ndk_post_prepared each time; V1)\n"
        "  -d, --doorbell-delay LIST\n"
        "                         NIC cycles each MMIO write costs in the simulator:\n"
        "                         a number, free (0), pcie (%u, ~0.5 us) or usb (%u,\n"
        "                         ~1 ms), at the iCE40 target's 25 MHz (default free)\n"
        "      --csv              CSV instead of a table\n"
        "      --json             JSON instead of a table\n"
        "  -u, --uri URI          adapter (default: a private simulator, fresh for each\n"
        "                         configuration; with sim:PATH the notification latency\n"
        "                         max is that simulator's since its reset)\n"
        "  -h, --help             this text\n"
        "SEND's receives are posted before the measurement (up to the RQ's 4096); a\n"
        "longer run posts more inside it, and their RQ doorbells count in doorbells/op.\n",
        DELAY_PCIE_CYCLES, DELAY_USB_CYCLES);
}

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "qpnic-perf: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    usage(stderr);
    return 2;
}

/* A number 0..UINT32_MAX with an optional K suffix; -1 when malformed. */
static int parse_u32(const char *s, size_t len, uint32_t *out)
{
    char tmp[32];
    if (len == 0 || len >= sizeof tmp)
        return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    uint64_t mult = 1;
    if (tmp[len - 1] == 'K' || tmp[len - 1] == 'k') {
        mult = 1024;
        tmp[--len] = '\0';
    }
    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++)
        if (tmp[i] < '0' || tmp[i] > '9')
            return -1;
    errno = 0;
    unsigned long long v = strtoull(tmp, NULL, 10);
    if (errno || v * mult > UINT32_MAX)
        return -1;
    *out = (uint32_t)(v * mult);
    return 0;
}

static int list_add(u32_list *l, uint32_t v)
{
    if (l->n >= MAX_LIST)
        return -1;
    l->v[l->n++] = v;
    return 0;
}

/* "A-B": A, 2A, 4A, ... up to B. */
static int add_range(u32_list *l, uint32_t a, uint32_t b)
{
    if (a == 0 || a > b)
        return -1;
    for (uint64_t v = a; v <= b; v *= 2)
        if (list_add(l, (uint32_t)v) != 0)
            return -1;
    return 0;
}

/* One item of a delay list: a number or a named doorbell. */
static int parse_delay(const char *s, size_t len, uint32_t *out)
{
    if (len == 4 && strncmp(s, "free", 4) == 0)
        *out = 0;
    else if (len == 4 && strncmp(s, "pcie", 4) == 0)
        *out = DELAY_PCIE_CYCLES;
    else if (len == 3 && strncmp(s, "usb", 3) == 0)
        *out = DELAY_USB_CYCLES;
    else
        return parse_u32(s, len, out);
    return 0;
}

static int parse_op(const char *s, size_t len, uint32_t *out)
{
    for (uint32_t i = 0; i < NUM_OPS; i++)
        if (strlen(op_names[i]) == len && strncmp(s, op_names[i], len) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

/* A comma list; items are parsed by `item`, or are ranges when ranges != 0.
 * Every value must lie in [lo, hi]. */
static int parse_list(const char *arg, u32_list *l, int ranges, uint32_t lo, uint32_t hi,
                      int (*item)(const char *, size_t, uint32_t *))
{
    l->n = 0;
    for (const char *p = arg;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *dash = ranges ? memchr(p, '-', len) : NULL;
        uint32_t a, b;
        if (dash) {
            if (parse_u32(p, (size_t)(dash - p), &a) || parse_u32(dash + 1, len - (size_t)(dash - p) - 1, &b) ||
                a < lo || b > hi || add_range(l, a, b))
                return -1;
        } else {
            if (item(p, len, &a) || a < lo || a > hi || list_add(l, a))
                return -1;
        }
        if (!end)
            return 0;
        p = end + 1;
    }
}

static int parse_post(const char *s, size_t len, uint32_t *out)
{
    for (uint32_t i = 0; i < 2; i++)
        if (strlen(post_names[i]) == len && strncmp(s, post_names[i], len) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

static int parse_word(const char *arg, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(arg, names[i]) == 0)
            return i;
    return -1;
}

static int parse_count(const char *arg, uint32_t lo, uint32_t hi, uint32_t *out)
{
    return parse_u32(arg, strlen(arg), out) == 0 && *out >= lo && *out <= hi ? 0 : -1;
}

enum { OPT_WARMUP = 256, OPT_CSV, OPT_JSON };

/* Returns 0, 2 on a usage error (printed), or 3 for --help (printed). */
static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        { "op", required_argument, NULL, 'o' },
        { "size", required_argument, NULL, 's' },
        { "chain", required_argument, NULL, 'c' },
        { "mode", required_argument, NULL, 'm' },
        { "wait", required_argument, NULL, 'w' },
        { "iters", required_argument, NULL, 'n' },
        { "warmup", required_argument, NULL, OPT_WARMUP },
        { "doorbell-delay", required_argument, NULL, 'd' },
        { "csv", no_argument, NULL, OPT_CSV },
        { "json", no_argument, NULL, OPT_JSON },
        { "uri", required_argument, NULL, 'u' },
        { "post", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    *o = (options){ .mode = MODE_BW, .wait = WAIT_POLL, .iters = 256, .warmup = UINT32_MAX };
    o->ops = (u32_list){ { OP_WRITE }, 1 };
    o->sizes = (u32_list){ { 64 }, 1 };
    o->chains = (u32_list){ { 1 }, 1 };
    o->delays = (u32_list){ { 0 }, 1 };
    o->posts = (u32_list){ { POST_PLAIN }, 1 };
    opterr = 0;
    int c, v;
    while ((c = getopt_long(argc, argv, ":o:s:c:m:w:n:d:u:p:h", longs, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (parse_list(optarg, &o->ops, 0, 0, NUM_OPS - 1, parse_op))
                return usage_error("--op: \"%s\" is not a list of send, write, read, frsend", optarg);
            break;
        case 's':
            if (parse_list(optarg, &o->sizes, 1, 1, MAX_SIZE, parse_u32))
                return usage_error("--size: \"%s\" is not a list of sizes 1..%u", optarg, MAX_SIZE);
            break;
        case 'c':
            if (parse_list(optarg, &o->chains, 1, 1, MAX_CHAIN, parse_u32))
                return usage_error("--chain: \"%s\" is not a list of chain lengths 1..%u", optarg, MAX_CHAIN);
            break;
        case 'd':
            if (parse_list(optarg, &o->delays, 0, 0, UINT32_MAX, parse_delay))
                return usage_error("--doorbell-delay: \"%s\" is not a list of cycles, free, pcie or usb", optarg);
            break;
        case 'm':
            if ((v = parse_word(optarg, mode_names, 2)) < 0)
                return usage_error("--mode: \"%s\" is neither lat nor bw", optarg);
            o->mode = (enum mode)v;
            break;
        case 'w':
            if ((v = parse_word(optarg, wait_names, 2)) < 0)
                return usage_error("--wait: \"%s\" is neither poll nor notify", optarg);
            o->wait = (enum wait)v;
            break;
        case 'n':
            if (parse_count(optarg, 1, 1000000, &o->iters))
                return usage_error("--iters: \"%s\" is not a count 1..1000000", optarg);
            break;
        case OPT_WARMUP:
            if (parse_count(optarg, 0, 100000, &o->warmup))
                return usage_error("--warmup: \"%s\" is not a count 0..100000", optarg);
            break;
        case OPT_CSV: o->format = FMT_CSV; break;
        case OPT_JSON: o->format = FMT_JSON; break;
        case 'u': o->uri = optarg; break;
        case 'p':
            if (parse_list(optarg, &o->posts, 0, 0, 1, parse_post))
                return usage_error("--post: \"%s\" is not a list of plain, prepared", optarg);
            break;
        case 'h': usage(stdout); return 3;
        case ':': return usage_error("%s needs a value", argv[optind - 1]);
        default: return usage_error("unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument \"%s\"", argv[optind]);
    for (int i = 0; i < o->ops.n; i++)
        for (int j = 0; j < o->posts.n; j++)
            if (o->ops.v[i] == OP_FRSEND && o->posts.v[j] == POST_PREPARED)
                return usage_error("--post prepared: frsend has no prepared form (V1 covers "
                                   "send, write, read)");
    return 0;
}

/* ---- setting up a run -------------------------------------------------- */

static uint64_t whole_chains(uint32_t ops, uint32_t per_chain)
{
    return ((uint64_t)ops + per_chain - 1) / per_chain * per_chain;
}

/* Requests run before the measurement (warm) and measured (ops), in whole
 * chains. */
static void run_requests(const run_cfg *c, uint64_t *warm, uint64_t *ops)
{
    uint32_t n = chain_requests(c);
    *warm = whole_chains(c->warmup == UINT32_MAX ? n : c->warmup, n);
    *ops = whole_chains(c->iters, n);
}

static ndk_status post_plain(bench *b, uint32_t flags);

/* --post prepared: the request prepared twice, with DEFER and without. */
static int prepare(bench *b)
{
    const run_cfg *c = b->cfg;
    ndk_sge s = { (uint64_t)(uintptr_t)b->buf, c->size, ndk_mr_local_token(b->mr) };
    uint64_t remote = (uint64_t)(uintptr_t)(b->buf + MAX_SIZE);
    uint32_t rtoken = ndk_mr_remote_token(b->mr);
    for (int last = 0; last < 2; last++) {
        uint32_t flags = last ? 0 : NDK_OP_FLAG_DEFER;
        ndk_prepared **pp = last ? &b->pp_last : &b->pp_defer;
        ndk_status st = c->op == OP_SEND ? ndk_prepare_send(b->qa, &s, 1, flags, pp)
                      : c->op == OP_WRITE ? ndk_prepare_write(b->qa, &s, 1, remote, rtoken, flags, pp)
                                          : ndk_prepare_read(b->qa, &s, 1, remote, rtoken, flags, pp);
        if (check(b, st, "ndk_prepare_*"))
            return -1;
    }
    return 0;
}

/* frsend: an MR for every FastRegister of the run (each stays registered
 * until destroyed, so none is used twice). */
static int make_fr_mrs(bench *b, const ndk_adapter_info *info)
{
    uint64_t warm, ops;
    run_requests(b->cfg, &warm, &ops);
    uint64_t n = (warm + ops) / chain_requests(b->cfg) * b->cfg->chain;
    if (n + 1 > info->max_mr)
        return fail(b, "frsend: %llu FastRegisters need as many regions besides the buffer's, the "
                       "NIC has %u tokens; lower --iters or --warmup", (unsigned long long)n, info->max_mr);
    b->fr_mrs = calloc((size_t)n, sizeof *b->fr_mrs);
    if (!b->fr_mrs)
        return fail(b, "out of memory for %llu MRs", (unsigned long long)n);
    uint64_t page0 = ndk_dma_address(b->ad, b->buf);
    b->fr_pages = (b->cfg->size + FR_PAGE - 1) / FR_PAGE;
    for (uint32_t p = 0; p < b->fr_pages; p++)
        b->fr_list[p] = page0 + (uint64_t)p * FR_PAGE;
    for (b->fr_count = 0; b->fr_count < n; b->fr_count++)
        if (check(b, ndk_create_mr(b->pd, &b->fr_mrs[b->fr_count]), "ndk_create_mr (frsend)"))
            return -1;
    return 0;
}

static int setup(bench *b)
{
    ndk_adapter_info info;
    if (check(b, ndk_open_adapter(b->uri, &b->ad), "ndk_open_adapter") ||
        check(b, ndk_query_adapter_info(b->ad, &info), "ndk_query_adapter_info"))
        return -1;
    if (info.max_qp_depth < SQ_DEPTH)
        return fail(b, "the NIC's queues hold %u requests, %u needed", info.max_qp_depth, SQ_DEPTH);
    b->rq_depth = info.max_qp_depth < RQ_DEPTH ? info.max_qp_depth : RQ_DEPTH;
    if (check(b, ndk_create_pd(b->ad, &b->pd), "ndk_create_pd") ||
        check(b, ndk_create_cq(b->ad, ICQ_DEPTH, NULL, NULL, &b->icq), "ndk_create_cq (initiator)") ||
        check(b, ndk_create_cq(b->ad, b->rq_depth, NULL, NULL, &b->rcq), "ndk_create_cq (receive)"))
        return -1;
    ndk_qp_attr a = { .sq_depth = SQ_DEPTH, .rq_depth = 2, .max_sge = 1 };
    if (check(b, ndk_create_qp(b->pd, b->rcq, b->icq, NULL, &a, &b->qa), "ndk_create_qp (a)"))
        return -1;
    if (a.sq_depth < SQ_DEPTH)
        return fail(b, "SQ depth %u granted, %u needed", a.sq_depth, SQ_DEPTH);
    ndk_qp_attr bb = { .sq_depth = 2, .rq_depth = b->rq_depth, .max_sge = 1 };
    if (check(b, ndk_create_qp(b->pd, b->rcq, b->icq, NULL, &bb, &b->qb), "ndk_create_qp (b)") ||
        check(b, ndk_connect(b->qa, ndk_qp_address(b->qb)), "ndk_connect (a)") ||
        check(b, ndk_connect(b->qb, ndk_qp_address(b->qa)), "ndk_connect (b)"))
        return -1;
    /* page aligned, for frsend's page lists */
    b->block = ndk_alloc_dma(b->ad, 2 * MAX_SIZE + FR_PAGE);
    if (!b->block)
        return fail(b, "ndk_alloc_dma of %u bytes failed", 2 * MAX_SIZE + FR_PAGE);
    b->buf = (uint8_t *)(((uintptr_t)b->block + FR_PAGE - 1) & ~(uintptr_t)(FR_PAGE - 1));
    for (uint32_t i = 0; i < 2 * MAX_SIZE; i++)
        b->buf[i] = (uint8_t)(i * 13 + 1);
    uint32_t rights = NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ |
                      NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
    if (check(b, ndk_create_mr(b->pd, &b->mr), "ndk_create_mr") ||
        check(b, ndk_register_mr(b->mr, b->buf, 2 * MAX_SIZE, rights), "ndk_register_mr"))
        return -1;
    if (b->cfg->post == POST_PREPARED && prepare(b))
        return -1;
    if (b->cfg->op == OP_FRSEND && make_fr_mrs(b, &info))
        return -1;
    return 0;
}

static void teardown(bench *b)
{
    if (b->pp_defer)
        ndk_free_prepared(b->pp_defer, NULL);
    if (b->pp_last)
        ndk_free_prepared(b->pp_last, NULL);
    if (b->qa)
        ndk_disconnect(b->qa);
    if (b->qb)
        ndk_disconnect(b->qb);
    if (b->qa)
        ndk_destroy_qp(b->qa);
    if (b->qb)
        ndk_destroy_qp(b->qb);
    if (b->mr)
        ndk_destroy_mr(b->mr);
    for (uint32_t i = 0; i < b->fr_count; i++)
        ndk_destroy_mr(b->fr_mrs[i]);
    free(b->fr_mrs);
    free(b->chain_s);
    if (b->icq)
        ndk_destroy_cq(b->icq);
    if (b->rcq)
        ndk_destroy_cq(b->rcq);
    if (b->pd)
        ndk_destroy_pd(b->pd);
    if (b->block)
        ndk_free_dma(b->ad, b->block);
    if (b->ad)
        ndk_close_adapter(b->ad);
}

/* ---- receives (SEND only) ---------------------------------------------- */

static int reap_receives(bench *b)
{
    ndk_result r[REAP_BATCH];
    uint32_t n = ndk_get_cq_results(b->rcq, r, REAP_BATCH);
    for (uint32_t i = 0; i < n; i++)
        if (r[i].status != NDK_STATUS_SUCCESS)
            return fail(b, "a receive completed with %s", ndk_status_str(r[i].status));
    b->recv_done += n;
    return 0;
}

/* Make sure `ahead` receives wait beyond every SEND posted so far. Receives
 * ring the RQ doorbell one each: posted before the measurement starts, they
 * are not counted; a run longer than the RQ posts more inside it. */
static int ensure_receives(bench *b, uint64_t ahead)
{
    ndk_sge s = { (uint64_t)(uintptr_t)(b->buf + MAX_SIZE), MAX_SIZE, ndk_mr_local_token(b->mr) };
    while (b->recv_posted < b->sends + ahead) {
        if (b->recv_posted - b->recv_done >= b->rq_depth) {
            if (reap_receives(b))
                return -1;
            continue;
        }
        if (check(b, ndk_receive(b->qb, NULL, &s, 1), "ndk_receive"))
            return -1;
        b->recv_posted++;
    }
    return 0;
}

/* ---- posting and completing ------------------------------------------- */

static ndk_status post_plain(bench *b, uint32_t flags)
{
    const run_cfg *c = b->cfg;
    ndk_sge s = { (uint64_t)(uintptr_t)b->buf, c->size, ndk_mr_local_token(b->mr) };
    uint64_t remote = (uint64_t)(uintptr_t)(b->buf + MAX_SIZE);
    uint32_t rtoken = ndk_mr_remote_token(b->mr);
    switch (c->op) {
    case OP_SEND: return ndk_send(b->qa, NULL, &s, 1, flags);
    case OP_WRITE: return ndk_write(b->qa, NULL, &s, 1, remote, rtoken, flags);
    default: return ndk_read(b->qa, NULL, &s, 1, remote, rtoken, flags);
    }
}

static ndk_status post_one(bench *b, uint32_t flags)
{
    if (b->cfg->post == POST_PREPARED)
        return ndk_post_prepared(flags & NDK_OP_FLAG_DEFER ? b->pp_defer : b->pp_last, NULL);
    return post_plain(b, flags);
}

/* frsend's request i of a chain: FastRegister i of a fresh MR over the
 * buffer's first `size` bytes (DEFER) for i < N, then the Send gathering
 * from the last of them. */
static ndk_status post_frsend(bench *b, uint32_t i)
{
    const run_cfg *c = b->cfg;
    if (i == c->chain) {
        ndk_sge s = { (uint64_t)(uintptr_t)b->buf, c->size, ndk_mr_local_token(b->fr_mrs[b->fr_used - 1]) };
        return ndk_send(b->qa, NULL, &s, 1, 0);
    }
    if (b->fr_used == b->fr_count)
        return NDK_STATUS_INSUFFICIENT_RESOURCES; /* make_fr_mrs counted them: not reached */
    return ndk_fast_register(b->qa, NULL, b->fr_mrs[b->fr_used++], b->fr_pages, b->fr_list, 0, c->size,
                             (uint64_t)(uintptr_t)b->buf, NDK_OP_FLAG_DEFER);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keep one chain's host cost per request. */
static int note_post_time(bench *b, double per_request_s)
{
    if (b->chains == b->chains_cap) {
        size_t cap = b->chains_cap ? 2 * b->chains_cap : 1024;
        double *more = realloc(b->chain_s, cap * sizeof *more);
        if (!more)
            return fail(b, "out of memory for %zu chain times", cap);
        b->chain_s = more;
        b->chains_cap = cap;
    }
    b->chain_s[b->chains++] = per_request_s;
    return 0;
}

/* One chain: every request but the last with DEFER, the last without
 * (D8). The host's time per request is taken over the deferred posts (the
 * last one's doorbell write is the link's cost, not the post's), or over
 * the one post of a chain of one. */
static int post_chain(bench *b)
{
    const run_cfg *c = b->cfg;
    uint32_t n = chain_requests(c);
    int sends = c->op == OP_SEND ? (int)c->chain : c->op == OP_FRSEND ? 1 : 0;
    if (sends && ensure_receives(b, (uint64_t)sends))
        return -1;
    double t0 = now_s(), t_last = t0;
    for (uint32_t i = 0; i < n; i++) {
        if (i + 1 == n)
            t_last = now_s();
        ndk_status st = c->op == OP_FRSEND ? post_frsend(b, i) : post_one(b, i + 1 < n ? NDK_OP_FLAG_DEFER : 0);
        if (check(b, st, op_names[c->op]))
            return -1;
        b->posted++;
    }
    double per = n > 1 ? (t_last - t0) / (n - 1) : now_s() - t0;
    b->sends += (uint64_t)sends;
    return note_post_time(b, per);
}

/* Take what the initiator CQ holds; *got says how many. */
static int reap(bench *b, uint32_t *got)
{
    ndk_result r[REAP_BATCH];
    uint32_t n = ndk_get_cq_results(b->icq, r, REAP_BATCH);
    for (uint32_t i = 0; i < n; i++)
        if (r[i].status != NDK_STATUS_SUCCESS)
            return fail(b, "a %s completed with %s", op_names[b->cfg->op], ndk_status_str(r[i].status));
    b->done += n;
    *got = n;
    return 0;
}

/* Wait for a notification of the initiator CQ; the CQ is empty (polled) and
 * the arm covers any completion that came after that poll (N3). */
static void arm(bench *b)
{
    ndk_arm_cq(b->icq, NDK_CQ_NOTIFY_ANY);
}

static int wait_notified(bench *b)
{
    arm(b);
    return check(b, ndk_wait_cq(b->icq, WAIT_TIMEOUT_MS), "ndk_wait_cq");
}

/* Take completions until done reaches `target`, by polling or notification.
 * In latency mode with notification the arm is made before the chain is
 * posted (armed_before), so the first wait is a clean CQE-to-notification
 * measure. */
static int complete_until(bench *b, uint64_t target, enum wait how, int armed_before)
{
    while (b->done < target) {
        uint32_t got;
        if (armed_before) {
            armed_before = 0;
            if (check(b, ndk_wait_cq(b->icq, WAIT_TIMEOUT_MS), "ndk_wait_cq"))
                return -1;
        }
        if (reap(b, &got))
            return -1;
        if (got == 0 && how == WAIT_NOTIFY && b->done < target && wait_notified(b))
            return -1;
    }
    return 0;
}

/* Latency mode: one chain in flight at a time. */
static int run_latency(bench *b, uint64_t ops, enum wait how)
{
    for (uint64_t i = 0; i < ops; i += chain_requests(b->cfg)) {
        if (how == WAIT_NOTIFY)
            arm(b);
        if (post_chain(b) || complete_until(b, b->posted, how, how == WAIT_NOTIFY))
            return -1;
    }
    return 0;
}

/* Throughput mode: post whole chains while the SQ has room, then take
 * completions (each poll that takes any writes the CQ's CI once). */
static int run_throughput(bench *b, uint64_t ops, enum wait how)
{
    uint64_t end = b->posted + ops;
    uint32_t n = chain_requests(b->cfg);
    while (b->done < end) {
        while (b->posted < end && b->posted - b->done + n <= SQ_DEPTH)
            if (post_chain(b))
                return -1;
        uint32_t got;
        if (reap(b, &got))
            return -1;
        if (got == 0 && how == WAIT_NOTIFY && wait_notified(b))
            return -1;
    }
    return 0;
}

static int run_ops(bench *b, uint64_t ops, enum wait how)
{
    return b->cfg->mode == MODE_LAT ? run_latency(b, ops, how) : run_throughput(b, ops, how);
}

/* ---- one configuration ------------------------------------------------- */

/* The least of v[0..n), 0 for none. */
static double least(const double *v, size_t n)
{
    double m = n ? v[0] : 0;
    for (size_t i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

#define DELTA(f) (d->f = c1->f - c0->f)

static void counter_delta(const ndk_counters *c0, const ndk_counters *c1, run_result *r)
{
    ndk_counters *d = &r->d;
    DELTA(doorbells);
    DELTA(wqes_fetched);
    DELTA(wqe_fetch_reads);
    DELTA(dma_read_bytes);
    DELTA(dma_write_bytes);
    DELTA(cqes_written);
    DELTA(notifications);
    DELTA(cycles);
    DELTA(ntf_latency_sum);
    DELTA(frames_sent);
    DELTA(retransmits);
    DELTA(naks);
    DELTA(duplicates);
    DELTA(wire_payload_bytes);
    r->ntf_latency_max = c1->ntf_latency_max;
}

/* Warm up (always polling, at no doorbell cost, so no notification happens
 * before the measurement), set the doorbell cost, let the NIC go idle, then
 * measure `iters` operations between two counter snapshots. */
static int measure(bench *b, run_result *r)
{
    const run_cfg *c = b->cfg;
    uint64_t warm, ops;
    run_requests(c, &warm, &ops);
    uint64_t sends = c->op == OP_FRSEND ? (warm + ops) / chain_requests(c) : warm + ops;
    if ((c->op == OP_SEND || c->op == OP_FRSEND) &&
        ensure_receives(b, sends < b->rq_depth ? sends : b->rq_depth))
        return -1;
    if (check(b, ndk_sim_set_doorbell_delay(b->ad, 0), "ndk_sim_set_doorbell_delay") ||
        (warm && run_ops(b, warm, WAIT_POLL)))
        return -1;
    if (check(b, ndk_sim_set_doorbell_delay(b->ad, c->delay), "ndk_sim_set_doorbell_delay") ||
        check(b, ndk_sim_wait_idle(b->ad, WAIT_TIMEOUT_MS), "ndk_sim_wait_idle"))
        return -1;
    ndk_counters c0, c1;
    if (check(b, ndk_query_counters(b->ad, &c0), "ndk_query_counters"))
        return -1;
    uint64_t s0 = ndk_sim_cycles(b->ad);
    uint64_t w0 = ndk_sim_mmio_writes(b->ad);
    size_t first_chain = b->chains;
    double t0 = now_s();
    if (run_ops(b, ops, c->wait))
        return -1;
    if (check(b, ndk_query_counters(b->ad, &c1), "ndk_query_counters"))
        return -1;
    r->wall_s = now_s() - t0;
    r->post_ns = least(b->chain_s + first_chain, b->chains - first_chain) * 1e9;
    r->sim_cycles = ndk_sim_cycles(b->ad) - s0;
    r->ops = ops;
    r->mmio_writes = ndk_sim_mmio_writes(b->ad) - w0;
    counter_delta(&c0, &c1, r);
    if (c->op == OP_SEND || c->op == OP_FRSEND) {
        while (b->recv_done < b->sends)
            if (reap_receives(b))
                return -1;
    }
    return 0;
}

static int run_one(const run_cfg *cfg, const char *uri, run_result *r, char *err, size_t errlen)
{
    bench b = { .cfg = cfg, .uri = uri };
    memset(r, 0, sizeof *r);
    int rc = setup(&b) == 0 && measure(&b, r) == 0 ? 0 : -1;
    teardown(&b);
    if (rc)
        snprintf(err, errlen, "%s", b.err);
    return rc;
}

/* ---- output ------------------------------------------------------------- */

typedef struct {
    double db, mmio, fetch, wqes, rd, wr, cqes, cyc, bpc, ntf_mean, ops_s, cyc_s, us_25;
    double cyc_chain;          /* NIC cycles per chain (per doorbell) */
    double host_ns;            /* host ns inside the posting calls, per request */
    int ntf_valid;
    uint64_t ntf_max;
} per_op;

static per_op per_op_figures(const run_cfg *c, const run_result *r)
{
    double n = (double)r->ops;
    per_op p = {
        .db = (double)r->d.doorbells / n,
        .mmio = (double)r->mmio_writes / n,
        .fetch = (double)r->d.wqe_fetch_reads / n,
        .wqes = (double)r->d.wqes_fetched / n,
        .rd = (double)r->d.dma_read_bytes / n,
        .wr = (double)r->d.dma_write_bytes / n,
        .cqes = (double)r->d.cqes_written / n,
        .cyc = (double)r->d.cycles / n,
        .ops_s = r->wall_s > 0 ? n / r->wall_s : 0,
        .cyc_s = r->wall_s > 0 ? (double)r->sim_cycles / r->wall_s : 0,
        .cyc_chain = (double)r->d.cycles / n * chain_requests(c),
        .host_ns = r->post_ns,
    };
    /* payload bytes per request: frsend's one Send moves size per chain */
    double payload = c->op == OP_FRSEND ? (double)c->size / chain_requests(c) : (double)c->size;
    p.bpc = p.cyc > 0 ? payload / p.cyc : 0;
    p.us_25 = p.cyc / NIC_CLOCK_HZ * 1e6;
    if (r->d.notifications) { /* mean = sum / notifications */
        p.ntf_valid = 1;
        p.ntf_mean = (double)r->d.ntf_latency_sum / (double)r->d.notifications;
        p.ntf_max = r->ntf_latency_max;
    }
    return p;
}

/* On the RoCEv2 wire (QPNIC_SIM_ARGS=--wire, with --wire-drop for loss):
 * frames, the payload bytes they carried against the bytes the requests
 * moved (the rest was sent again), retransmissions and NAKs. Goodput is
 * the table's B/cyc: the requests' bytes per NIC cycle. */
static void print_wire_line(const run_cfg *c, const run_result *r)
{
    if (!r->d.frames_sent)
        return;
    double n = (double)r->ops;
    double moved = c->op == OP_FRSEND ? (double)c->size * n / chain_requests(c) : (double)c->size * n;
    double again = (double)r->d.wire_payload_bytes - moved;
    printf("       wire: %.2f frames/op, %llu payload bytes sent for %.0f moved: %.0f sent again (%.2f%%); "
           "%llu retransmissions, %llu NAKs, %llu duplicates\n",
           (double)r->d.frames_sent / n, (unsigned long long)r->d.wire_payload_bytes, moved,
           again > 0 ? again : 0, moved > 0 && again > 0 ? 100.0 * again / moved : 0.0,
           (unsigned long long)r->d.retransmits, (unsigned long long)r->d.naks,
           (unsigned long long)r->d.duplicates);
}

static void print_table_head(const options *o)
{
    printf("qpnic-perf: per-operation figures from the NIC's counters; ops/s and sim cycles/s\n"
           "are wall clock. NIC clock for conversions: 25 MHz (the iCE40 target), so a\n"
           "doorbell delay of %u cycles is ~0.5 us (PCIe-like) and %u cycles 1 ms (USB-serial).\n"
           "mode %s, completions by %s; ntf lat = cycles from the newest CQE to the notification;\n"
           "host ns/post = the host's time inside the posting calls (wall clock), per request.\n\n",
           DELAY_PCIE_CYCLES, DELAY_USB_CYCLES, mode_names[o->mode], wait_names[o->wait]);
    printf("%-6s %-8s %6s %5s %6s %6s | %7s %7s %8s %8s %8s %9s %9s %7s %6s %9s %7s | %9s %9s %7s\n",
           "op", "post", "bytes", "chain", "dbdly", "ops", "db/op", "mmio/op", "fetch/op", "rdB/op",
           "wrB/op", "cyc/op", "cyc/chain", "B/cyc", "us@25M", "ntf mean", "ntf max", "ops/s", "Mcyc/s",
           "ns/post");
}

static void print_table_row(const run_cfg *c, const run_result *r)
{
    per_op p = per_op_figures(c, r);
    char mean[16] = "-", max[16] = "-";
    if (p.ntf_valid) {
        snprintf(mean, sizeof mean, "%.1f", p.ntf_mean);
        snprintf(max, sizeof max, "%llu", (unsigned long long)p.ntf_max);
    }
    printf("%-6s %-8s %6u %5u %6u %6llu | %7.4f %7.4f %8.4f %8.1f %8.1f %9.1f %9.1f %7.3f %6.2f %9s %7s | "
           "%9.0f %9.3f %7.0f\n",
           op_names[c->op], post_names[c->post], c->size, c->chain, c->delay, (unsigned long long)r->ops,
           p.db, p.mmio, p.fetch, p.rd, p.wr, p.cyc, p.cyc_chain, p.bpc, p.us_25, mean, max, p.ops_s,
           p.cyc_s / 1e6, p.host_ns);
    print_wire_line(c, r);
}

static const char csv_head[] =
    "op,bytes,chain,mode,wait,doorbell_delay,ops,doorbells_per_op,mmio_writes_per_op,fetch_reads_per_op,"
    "wqes_fetched_per_op,dma_read_bytes_per_op,dma_write_bytes_per_op,cqes_per_op,"
    "cycles_per_op,bytes_per_cycle,us_per_op_at_25mhz,notifications,ntf_latency_mean,"
    "ntf_latency_max,ops_per_s,sim_cycles_per_s,wall_s,post,cycles_per_chain,host_ns_per_post\n";

static void print_csv_row(const run_cfg *c, const run_result *r)
{
    per_op p = per_op_figures(c, r);
    char mean[32] = "", max[32] = "";
    if (p.ntf_valid) {
        snprintf(mean, sizeof mean, "%.3f", p.ntf_mean);
        snprintf(max, sizeof max, "%llu", (unsigned long long)p.ntf_max);
    }
    printf("%s,%u,%u,%s,%s,%u,%llu,%.6f,%.6f,%.6f,%.6f,%.3f,%.3f,%.6f,%.3f,%.6f,%.6f,%llu,%s,%s,%.1f,%.1f,%.6f,"
           "%s,%.3f,%.1f\n",
           op_names[c->op], c->size, c->chain, mode_names[c->mode], wait_names[c->wait], c->delay,
           (unsigned long long)r->ops, p.db, p.mmio, p.fetch, p.wqes, p.rd, p.wr, p.cqes, p.cyc, p.bpc,
           p.us_25, (unsigned long long)r->d.notifications, mean, max, p.ops_s, p.cyc_s, r->wall_s,
           post_names[c->post], p.cyc_chain, p.host_ns);
}

static void print_json_row(const run_cfg *c, const run_result *r, int first)
{
    per_op p = per_op_figures(c, r);
    char mean[32] = "null", max[32] = "null";
    if (p.ntf_valid) {
        snprintf(mean, sizeof mean, "%.3f", p.ntf_mean);
        snprintf(max, sizeof max, "%llu", (unsigned long long)p.ntf_max);
    }
    printf("%s    {\"op\": \"%s\", \"bytes\": %u, \"chain\": %u, \"mode\": \"%s\", \"wait\": \"%s\", "
           "\"doorbell_delay\": %u, \"post\": \"%s\", \"ops\": %llu,\n"
           "     \"doorbells_per_op\": %.6f, \"mmio_writes_per_op\": %.6f, \"fetch_reads_per_op\": %.6f, \"wqes_fetched_per_op\": %.6f,\n"
           "     \"dma_read_bytes_per_op\": %.3f, \"dma_write_bytes_per_op\": %.3f, \"cqes_per_op\": %.6f,\n"
           "     \"cycles_per_op\": %.3f, \"cycles_per_chain\": %.3f, \"bytes_per_cycle\": %.6f, \"us_per_op_at_25mhz\": %.6f,\n"
           "     \"notifications\": %llu, \"ntf_latency_mean\": %s, \"ntf_latency_max\": %s,\n"
           "     \"ops_per_s\": %.1f, \"sim_cycles_per_s\": %.1f, \"wall_s\": %.6f, \"host_ns_per_post\": %.1f,\n"
           "     \"counters\": {\"doorbells\": %llu, \"wqe_fetch_reads\": %llu, \"wqes_fetched\": %llu, "
           "\"dma_read_bytes\": %llu, \"dma_write_bytes\": %llu, \"cqes_written\": %llu, \"cycles\": %llu, "
           "\"sim_cycles\": %llu}}",
           first ? "" : ",\n", op_names[c->op], c->size, c->chain, mode_names[c->mode],
           wait_names[c->wait], c->delay, post_names[c->post], (unsigned long long)r->ops, p.db, p.mmio,
           p.fetch, p.wqes, p.rd, p.wr, p.cqes, p.cyc, p.cyc_chain, p.bpc, p.us_25,
           (unsigned long long)r->d.notifications, mean, max, p.ops_s, p.cyc_s, r->wall_s, p.host_ns,
           (unsigned long long)r->d.doorbells,
           (unsigned long long)r->d.wqe_fetch_reads, (unsigned long long)r->d.wqes_fetched,
           (unsigned long long)r->d.dma_read_bytes, (unsigned long long)r->d.dma_write_bytes,
           (unsigned long long)r->d.cqes_written, (unsigned long long)r->d.cycles,
           (unsigned long long)r->sim_cycles);
}

static void print_head(const options *o)
{
    if (o->format == FMT_TABLE)
        print_table_head(o);
    else if (o->format == FMT_CSV)
        printf("%s", csv_head);
    else
        printf("{\"tool\": \"qpnic-perf\", \"nic_clock_hz\": %.0f, \"delay_pcie_cycles\": %u, "
               "\"delay_usb_cycles\": %u, \"sq_depth\": %u,\n \"results\": [\n",
               NIC_CLOCK_HZ, DELAY_PCIE_CYCLES, DELAY_USB_CYCLES, SQ_DEPTH);
}

static void print_row(const options *o, const run_cfg *c, const run_result *r, int first)
{
    if (o->format == FMT_TABLE)
        print_table_row(c, r);
    else if (o->format == FMT_CSV)
        print_csv_row(c, r);
    else
        print_json_row(c, r, first);
    fflush(stdout);
}

static void print_tail(const options *o)
{
    if (o->format == FMT_JSON)
        printf("\n]}\n");
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
    options o;
    int prc = parse_options(argc, argv, &o);
    if (prc)
        return prc == 3 ? 0 : prc;
    print_head(&o);
    int first = 1;
    for (int i = 0; i < o.ops.n; i++)
        for (int s = 0; s < o.sizes.n; s++)
            for (int ch = 0; ch < o.chains.n; ch++)
                for (int d = 0; d < o.delays.n; d++)
                    for (int pi = 0; pi < o.posts.n; pi++) {
                        run_cfg c = { (enum op)o.ops.v[i], o.sizes.v[s], o.chains.v[ch], o.delays.v[d],
                                      o.mode, o.wait, o.iters, o.warmup, (enum post)o.posts.v[pi] };
                        run_result r;
                        char err[256];
                        if (run_one(&c, o.uri, &r, err, sizeof err)) {
                            print_tail(&o);
                            fprintf(stderr, "qpnic-perf: %s %u B chain %u (%s): %s\n", op_names[c.op],
                                    c.size, c.chain, post_names[c.post], err);
                            return 1;
                        }
                        print_row(&o, &c, &r, first);
                        first = 0;
                    }
    print_tail(&o);
    return 0;
}
