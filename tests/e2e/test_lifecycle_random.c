/* test_lifecycle_random.c: objects created, used and destroyed at random.
 *
 * One adapter; a few QP and CQ slots; one DMA buffer with an MR over it that
 * is now and then destroyed and registered again. Each step picks an action
 * at random (post a receive, SEND, WRITE or READ, with or without DEFER;
 * poll or arm a CQ; create, connect, disconnect or destroy a QP; create or
 * destroy a CQ; re-register the MR) and the run goes on for
 * QPNIC_LIFECYCLE_SECONDS of wall-clock time (default 60), its seed printed
 * (QPNIC_SEED=n repeats one). Then everything is torn down and every CQ
 * drained before it goes.
 *
 * Checked throughout and at the end:
 *   - every request whose call returned SUCCESS completes exactly once (D4):
 *     0 lost, 0 doubled, and no completion that no request owns (stray);
 *   - completions of one queue (a QP's SQ, or its RQ) come in posting order,
 *     with the QP's number, and once one failed none after it succeeds
 *     (flush order);
 *   - callbacks: never more than the arms of that CQ (N1), none after its
 *     CQ was destroyed;
 *   - the simulator's DMA checker refused nothing.
 */
#include "e2e.h"

#include <unistd.h>

#define NQP 6
#define NCQ 4
#define MAX_REQ (1u << 21)
#define MAX_INC (1u << 16)
#define BUF_BYTES (256u * 1024u)
#define CQ_DEPTH 1024u
#define Q_DEPTH 32u

/* One QP incarnation's two queues: the next posting sequence number to
 * complete, and whether one has failed. */
typedef struct {
    uint32_t qpn;
    uint32_t posted[2], next[2];
    int failed[2];
} incarnation;

typedef struct {
    uint32_t inc;      /* incarnation index */
    uint8_t rq;        /* 1: a receive */
    uint8_t type;      /* NDK_OP_TYPE_* expected */
    uint8_t done;
    uint32_t seq;      /* posting order within its queue */
} request;

typedef struct {
    ndk_cq *cq;
    _Atomic unsigned calls;
    _Atomic unsigned arms;
    _Atomic int destroyed;
    int users;         /* QPs on it */
} cq_slot;

typedef struct {
    ndk_qp *qp;
    int connected, down;  /* down: disconnected */
    int peer;             /* the slot it connected to */
    int rcq, scq;
    uint32_t inc;
} qp_slot;

static request *reqs;
static uint32_t nreq;
static incarnation *incs;
static uint32_t ninc;
static cq_slot *cq_incs[4096];
static uint32_t ncq_inc;
static cq_slot *cqs[NCQ];
static qp_slot qps[NQP];
static uint8_t *buf;
static ndk_mr *mr;
static ndk_pd *pd;
static ndk_adapter *ad;
static unsigned rng;
static struct {
    unsigned long posts, refused, completions, cancelled, errors, callbacks, creates, destroys, mr_cycles;
} st;

static unsigned long by_status[16];

static unsigned rnd(unsigned n) { return (unsigned)(rand_r(&rng) % n); }

static void on_cq(void *fn_ctx, ndk_status status)
{
    (void)status;
    cq_slot *s = fn_ctx;
    EXPECT(!atomic_load(&s->destroyed), "a callback for a destroyed CQ");
    unsigned calls = atomic_fetch_add(&s->calls, 1) + 1;
    EXPECT(calls <= atomic_load(&s->arms), "N1: callback %u on a CQ armed %u times", calls,
           atomic_load(&s->arms));
}

static void take(const ndk_result_ex *r)
{
    st.completions++;
    by_status[(unsigned)r->status < 16 ? (unsigned)r->status : 15]++;
    uintptr_t id = (uintptr_t)r->request_context;
    EXPECT(id >= 1 && id <= nreq, "a completion nobody posted (context %p, QP 0x%x, status %s)",
           r->request_context, r->qp_num, ndk_status_str(r->status));
    request *q = &reqs[id - 1];
    EXPECT(!q->done, "request %lu completed twice", (unsigned long)id);
    q->done = 1;
    incarnation *in = &incs[q->inc];
    EXPECT(r->qp_num == in->qpn, "request %lu: completion names QP 0x%x, posted on 0x%x",
           (unsigned long)id, r->qp_num, in->qpn);
    EXPECT(r->type == q->type, "request %lu: type %u, posted as %u", (unsigned long)id, r->type, q->type);
    EXPECT(q->seq == in->next[q->rq], "QP 0x%x %s: completion of posting %u came before %u's",
           in->qpn, q->rq ? "RQ" : "SQ", q->seq, in->next[q->rq]);
    in->next[q->rq]++;
    if (r->status == NDK_STATUS_SUCCESS)
        EXPECT(!in->failed[q->rq], "QP 0x%x %s: a success after a failed or flushed request",
               in->qpn, q->rq ? "RQ" : "SQ");
    else {
        in->failed[q->rq] = 1;
        if (r->status == NDK_STATUS_CANCELLED)
            st.cancelled++;
        else
            st.errors++;
    }
}

static void poll_cq(int c)
{
    ndk_result_ex r[32];
    uint32_t n = ndk_get_cq_results_ex(cqs[c]->cq, r, 32);
    for (uint32_t i = 0; i < n; i++)
        take(&r[i]);
}

static uint32_t new_request(uint32_t inc, int rq, uint32_t type)
{
    EXPECT(nreq < MAX_REQ, "too many requests for the test's table");
    request *q = &reqs[nreq++];
    q->inc = inc;
    q->rq = (uint8_t)rq;
    q->type = (uint8_t)type;
    q->done = 0;
    q->seq = incs[inc].posted[rq];
    return nreq; /* the id: its context */
}

static ndk_sge rand_sge(uint32_t max_len)
{
    ndk_sge g;
    g.length = rnd(max_len + 1);
    uint32_t off = rnd(BUF_BYTES - g.length + 1);
    g.addr = (uint64_t)(uintptr_t)(buf + off);
    g.token = ndk_mr_local_token(mr);
    return g;
}

/* A post: on SUCCESS the request is owed a completion; on any failure none. */
static void post(int s, int kind)
{
    qp_slot *q = &qps[s];
    if (!q->qp)
        return;
    static const uint32_t types[4] = { NDK_OP_TYPE_RECEIVE, NDK_OP_TYPE_SEND, NDK_OP_TYPE_WRITE,
                                       NDK_OP_TYPE_READ };
    uint32_t id = new_request(q->inc, kind == 0, types[kind]);
    void *ctx = (void *)(uintptr_t)id;
    /* receives hold any SEND (up to 2 KiB), so a SEND fails only when none
     * is posted (RNR) or its QP is going */
    ndk_sge g = rand_sge(2048);
    if (kind == 0)
        g.length = 2048;
    uint32_t flags = rnd(3) == 0 ? NDK_OP_FLAG_DEFER : 0;
    uint64_t ra = (uint64_t)(uintptr_t)(buf + rnd(BUF_BYTES - g.length + 1));
    ndk_status rc;
    switch (kind) {
    case 0: rc = ndk_receive(q->qp, ctx, &g, 1); break;
    case 1: rc = ndk_send(q->qp, ctx, &g, 1, flags); break;
    case 2: rc = ndk_write(q->qp, ctx, &g, 1, ra, ndk_mr_remote_token(mr), flags); break;
    default: rc = ndk_read(q->qp, ctx, &g, 1, ra, ndk_mr_remote_token(mr), flags); break;
    }
    if (rc == NDK_STATUS_SUCCESS) {
        incs[q->inc].posted[kind == 0]++;
        st.posts++;
        return;
    }
    EXPECT(rc == NDK_STATUS_INVALID_DEVICE_STATE || rc == NDK_STATUS_INSUFFICIENT_RESOURCES,
           "a post failed with %s", ndk_status_str(rc));
    nreq--; /* D3: it never completes; its id is not owed */
    st.refused++;
}

static void create_cq(int c)
{
    if (cqs[c] || ncq_inc == sizeof cq_incs / sizeof cq_incs[0])
        return;
    cq_slot *s = calloc(1, sizeof *s);
    EXPECT(s != NULL, "calloc");
    EXPECT_STATUS(ndk_create_cq(ad, CQ_DEPTH, on_cq, s, &s->cq), NDK_STATUS_SUCCESS);
    cqs[c] = s;
    cq_incs[ncq_inc++] = s;
    st.creates++;
}

static void destroy_cq(int c)
{
    if (!cqs[c])
        return;
    if (cqs[c]->users) {
        EXPECT_STATUS(ndk_destroy_cq(cqs[c]->cq), NDK_STATUS_DEVICE_BUSY);
        return;
    }
    /* what it holds is owed to someone: let the NIC finish, take it all */
    EXPECT_STATUS(ndk_sim_wait_idle(ad, 20000), NDK_STATUS_SUCCESS);
    for (unsigned i = 0; i < CQ_DEPTH / 32 + 1; i++)
        poll_cq(c);
    EXPECT_STATUS(ndk_destroy_cq(cqs[c]->cq), NDK_STATUS_SUCCESS);
    atomic_store(&cqs[c]->destroyed, 1);
    cqs[c] = NULL; /* the slot record stays in cq_incs for the checks */
    st.destroys++;
}

static void create_qp(int s)
{
    qp_slot *q = &qps[s];
    int r = rnd(NCQ), i = rnd(NCQ);
    if (q->qp || !cqs[r] || !cqs[i])
        return;
    ndk_qp_attr attr = {.sq_depth = Q_DEPTH, .rq_depth = Q_DEPTH, .max_sge = 1, .max_inline = 0};
    EXPECT_STATUS(ndk_create_qp(pd, cqs[r]->cq, cqs[i]->cq, q, &attr, &q->qp), NDK_STATUS_SUCCESS);
    q->rcq = r;
    q->scq = i;
    q->connected = q->down = 0;
    cqs[r]->users++;
    cqs[i]->users++;
    incarnation *in = &incs[ninc];
    memset(in, 0, sizeof *in);
    in->qpn = ndk_qp_num(q->qp);
    q->inc = ninc++;
    st.creates++;
}

static void connect_pair(int a, int b)
{
    if (a == b || !qps[a].qp || !qps[b].qp || qps[a].connected || qps[b].connected)
        return;
    EXPECT_STATUS(ndk_connect(qps[a].qp, ndk_qp_address(qps[b].qp)), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_connect(qps[b].qp, ndk_qp_address(qps[a].qp)), NDK_STATUS_SUCCESS);
    qps[a].connected = qps[b].connected = 1;
    qps[a].peer = b;
    qps[b].peer = a;
}

static void disconnect(int s)
{
    qp_slot *q = &qps[s];
    if (!q->qp || !q->connected || q->down)
        return;
    EXPECT_STATUS(ndk_disconnect(q->qp), NDK_STATUS_SUCCESS);
    q->down = 1;
}

static void destroy_qp(int s)
{
    qp_slot *q = &qps[s];
    if (!q->qp)
        return;
    if (rnd(2) && q->connected && !q->down)
        disconnect(s);
    EXPECT_STATUS(ndk_destroy_qp(q->qp), NDK_STATUS_SUCCESS);
    cqs[q->rcq]->users--;
    cqs[q->scq]->users--;
    q->qp = NULL;
    st.destroys++;
}

static void cycle_mr(void)
{
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_create_mr(pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(mr, buf, BUF_BYTES, NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
                                  NDK_MR_FLAG_ALLOW_REMOTE_READ | NDK_MR_FLAG_ALLOW_REMOTE_WRITE),
                  NDK_STATUS_SUCCESS);
    st.mr_cycles++;
}

/* One action, weights in ten-thousandths: mostly traffic and polling, now
 * and then a change of objects, so that a QP carries a few hundred requests
 * in its life. */
static void step(void)
{
    unsigned a = rnd(10000) / 10, b = rnd(10);
    int s = (int)rnd(NQP), c = (int)rnd(NCQ);
    if (a < 200) {
        /* mostly where a SEND can come, and not piling up */
        const incarnation *in = qps[s].qp ? &incs[qps[s].inc] : NULL;
        if (in && (qps[s].connected || b == 0) && in->posted[1] - in->next[1] < 4)
            post(s, 0);
    }
    else if (a < 350) {
        /* a SEND usually finds a receive: post one on the peer first */
        if (qps[s].qp && qps[s].connected && rnd(8) != 0)
            post(qps[s].peer, 0);
        post(s, 1);
    }
    else if (a < 500) post(s, 2);
    else if (a < 580) post(s, 3);
    else if (a < 830) { if (cqs[c]) poll_cq(c); }
    else if (a < 870) {
        if (cqs[c]) {
            atomic_fetch_add(&cqs[c]->arms, 1);
            ndk_arm_cq(cqs[c]->cq, rnd(3));
        }
    }
    else if (a < 910) create_qp(s);
    else if (a < 950) connect_pair(s, (int)rnd(NQP));
    else if (a < 960) { if (b < 3) disconnect(s); }
    else if (a < 975) {
        /* a QP in ERROR has nothing more to do: it goes sooner */
        uint32_t state = NDK_QP_STATE_RESET;
        if (qps[s].qp)
            EXPECT_STATUS(ndk_query_qp_state(qps[s].qp, &state), NDK_STATUS_SUCCESS);
        if (b < 2 || state == NDK_QP_STATE_ERROR)
            destroy_qp(s);
    }
    else if (a < 987) create_cq(c);
    else if (a < 997) destroy_cq(c);
    else if (b < 4) cycle_mr();   /* 12 in 10,000: a dozen in the firmware partition's 20 s */
}

static void lifecycle_random_objects_and_traffic(void)
{
    rng = e2e_env_uint("QPNIC_SEED", (unsigned)e2e_now_ms());
    unsigned seconds = e2e_env_uint("QPNIC_LIFECYCLE_SECONDS", 60);
    printf("lifecycle: seed %u (QPNIC_SEED=%u repeats it), %u s\n", rng, rng, seconds);
    fflush(stdout);
    reqs = calloc(MAX_REQ, sizeof *reqs);
    incs = calloc(MAX_INC, sizeof *incs);
    EXPECT(reqs && incs, "calloc");

    EXPECT_STATUS(ndk_open_adapter(NULL, &ad), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_create_pd(ad, &pd), NDK_STATUS_SUCCESS);
    buf = ndk_alloc_dma(ad, BUF_BYTES);
    EXPECT(buf != NULL, "ndk_alloc_dma");
    EXPECT_STATUS(ndk_create_mr(pd, &mr), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_register_mr(mr, buf, BUF_BYTES, NDK_MR_FLAG_ALLOW_LOCAL_WRITE |
                                  NDK_MR_FLAG_ALLOW_REMOTE_READ | NDK_MR_FLAG_ALLOW_REMOTE_WRITE),
                  NDK_STATUS_SUCCESS);

    uint64_t start_cycles = ndk_sim_cycles(ad);
    uint64_t end = e2e_now_ms() + 1000ull * seconds;
    unsigned long steps = 0;
    while (e2e_now_ms() < end && nreq + 64 < MAX_REQ && ninc + 2 < MAX_INC) {
        step();
        steps++;
    }

    /* teardown: every QP, then drain and destroy every CQ */
    for (int s = 0; s < NQP; s++)
        destroy_qp(s);
    EXPECT_STATUS(ndk_sim_wait_idle(ad, 20000), NDK_STATUS_SUCCESS);
    for (int c = 0; c < NCQ; c++)
        destroy_cq(c);
    unsigned long lost = 0;
    for (uint32_t i = 0; i < nreq; i++)
        lost += !reqs[i].done;
    for (uint32_t i = 0; i < ncq_inc; i++)
        st.callbacks += atomic_load(&cq_incs[i]->calls);
    uint32_t violations = 0;
    uint64_t first = 0;
    EXPECT_STATUS(ndk_sim_dma_violations(ad, &violations, &first), NDK_STATUS_SUCCESS);
    /* (reported in the summary below, then failed on) */
    uint64_t cycles = ndk_sim_cycles(ad) - start_cycles;
    printf("lifecycle: %lu steps, %llu cycles: %lu posts (%lu refused inline), %lu completions "
           "(%lu cancelled, %lu other errors), %lu lost, %lu callbacks, %lu creates, %lu destroys, "
           "%lu MR re-registrations, %u refused DMAs\n",
           steps, (unsigned long long)cycles, st.posts, st.refused, st.completions, st.cancelled,
           st.errors, lost, st.callbacks, st.creates, st.destroys, st.mr_cycles, violations);
    printf("lifecycle: completions by status:");
    for (unsigned i = 0; i < 16; i++)
        if (by_status[i])
            printf(" %s %lu", ndk_status_str((ndk_status)i), by_status[i]);
    printf("\n");
    EXPECT(lost == 0, "%lu requests never completed (D4)", lost);
    EXPECT(st.completions == st.posts, "%lu completions for %lu successful posts", st.completions, st.posts);
    EXPECT(violations == 0, "the NIC made %u DMA accesses outside registered memory, the first at 0x%llx",
           violations, (unsigned long long)first);
    EXPECT(st.cancelled > 0 && st.mr_cycles > 0 && st.destroys > 10,
           "the run exercised too little: %lu cancelled, %lu MR cycles, %lu destroys", st.cancelled,
           st.mr_cycles, st.destroys);
    EXPECT_STATUS(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    ndk_free_dma(ad, buf);
    EXPECT_STATUS(ndk_destroy_pd(pd), NDK_STATUS_SUCCESS);
    EXPECT_STATUS(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

int main(int argc, char **argv)
{
    e2e_case_timeout_s = e2e_env_uint("QPNIC_LIFECYCLE_SECONDS", 60) + 120;
    static const e2e_case cases[] = {
        { "lifecycle_random_objects_and_traffic", lifecycle_random_objects_and_traffic },
    };
    return e2e_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
