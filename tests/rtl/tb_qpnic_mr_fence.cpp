// tb_qpnic_mr_fence: unit test of rtl/qpnic_mr_fence.v, which tells when
// every DMA job checked before an MR invalidate has finished.
//
// Each case drives the engines' signals as the datapath would and checks
// that busy rises with the invalidate exactly when something was noted,
// stays up while a noted job can still move data, and falls as soon as the
// last one is done; and that jobs begun after the invalidate never hold it.
#include <memory>

#include "Vqpnic_mr_fence.h"
#include "verilated.h"
#include "tb_util.h"

namespace {

struct Tb {
    std::unique_ptr<Vqpnic_mr_fence> m{new Vqpnic_mr_fence};
    void quiet() {
        m->start = 0;
        m->rq_hold = 0;
        m->rq_gather_busy = 0;
        m->ost_push = 0;
        m->ost_count = 0;
        m->cp_busy = 0;
        m->cp_retire = 0;
        m->rs_bound = 1;
    }
    void reset() {
        quiet();
        m->rst = 1;
        tb_tick(m.get());
        tb_tick(m.get());
        m->rst = 0;
        tb_tick(m.get());
    }
    void tick() { tb_tick(m.get()); m->start = 0; m->ost_push = 0; m->cp_retire = 0; }
    bool busy() { m->eval(); return m->busy; }
    void fence() { m->start = 1; tick(); }
};

void test_idle_nic(Tb &t) {
    t.reset();
    t.fence();
    CHECK(!t.busy(), "an invalidate with every engine idle left the fence busy");
    PASS("mr_fence_idle_nic_clears_at_once");
}

// The responder's packet at the invalidate: busy until its next boundary;
// a packet begun after does not count.
void test_responder(Tb &t) {
    t.reset();
    t.m->rs_bound = 0;
    t.fence();
    for (int i = 0; i < 5; i++) {
        CHECK(t.busy(), "cycle %d: the responder's packet is not done, the fence is clear", i);
        t.tick();
    }
    t.m->rs_bound = 1;
    t.tick();
    CHECK(!t.busy(), "the responder reached its boundary, the fence is still busy");
    // mid-packet again, but that packet came after the invalidate
    t.m->rs_bound = 0;
    t.tick();
    CHECK(!t.busy(), "a packet begun after the invalidate held the fence");
    PASS("mr_fence_responder_packet");
}

// The requester: a WQE in its check passes to the gather, whose job then
// must end; the gather idle with nothing held clears it.
void test_requester(Tb &t) {
    t.reset();
    t.m->rq_hold = 1;
    t.m->rq_gather_busy = 1;   // busy with an older job too
    t.fence();
    CHECK(t.busy(), "a WQE in its token check did not hold the fence");
    t.m->rq_gather_busy = 0;   // the older job ends while the WQE is still held
    t.tick();
    CHECK(t.busy(), "the gather went idle while the checked WQE was still held: fence clear");
    t.m->rq_hold = 0;          // the WQE goes to the gather...
    t.m->rq_gather_busy = 1;
    t.tick();
    t.tick();
    CHECK(t.busy(), "the checked WQE's gather runs, the fence is clear");
    t.m->rq_gather_busy = 0;   // ...and its job ends
    t.tick();
    CHECK(!t.busy(), "the checked WQE's gather ended, the fence is still busy");
    PASS("mr_fence_requester_check_then_gather");
}

// The completer: every outstanding entry at the invalidate (and the one it
// is on) retires first; so do the entries a held WQE pushes after it.
void test_completer(Tb &t) {
    t.reset();
    t.m->ost_count = 3;
    t.m->cp_busy = 1;
    t.m->rq_hold = 1;          // a checked READ about to push its entry
    t.fence();
    t.m->ost_push = 1;         // it does
    t.m->ost_count = 4;
    t.tick();
    t.m->rq_hold = 0;          // and goes on (a READ starts no gather)
    t.tick();
    for (int k = 0; k < 5; k++) {
        CHECK(t.busy(), "%d of 5 entries retired, the fence is clear", k);
        t.m->cp_retire = 1;
        t.tick();
    }
    CHECK(!t.busy(), "all 5 noted entries retired, the fence is still busy");
    // later entries (pushed after, by WQEs checked after) never hold it
    t.m->ost_push = 1;
    t.tick();
    t.m->cp_retire = 1;
    t.tick();
    CHECK(!t.busy(), "an entry from after the invalidate held the fence");
    PASS("mr_fence_completer_entries_in_order");
}

// A second invalidate while the first is pending keeps what was noted.
void test_second_fence(Tb &t) {
    t.reset();
    t.m->rs_bound = 0;
    t.fence();
    t.m->rs_bound = 1;         // the responder got to a boundary...
    t.m->ost_count = 1;        // ...but an entry is outstanding at the second
    t.fence();
    CHECK(t.busy(), "the second invalidate's outstanding entry did not hold the fence");
    t.m->cp_retire = 1;
    t.tick();
    CHECK(!t.busy(), "everything noted is done, the fence is still busy");
    PASS("mr_fence_second_invalidate");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Tb t;
    test_idle_nic(t);
    test_responder(t);
    test_requester(t);
    test_completer(t);
    test_second_fence(t);
    return 0;
}
