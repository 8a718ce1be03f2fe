/* test_handles.c: the table of live handles (host/src/handles.c): entries
 * found with their kind and only it, gone once removed, and a handle that
 * stays live is never refused while other threads' creates and destroys
 * grow the table and rehash it in place. */
#include <sched.h>
#include <stdatomic.h>

#include "fake_nic.h"

/* The handles are addresses of this array's bytes: never read through. */
static char arena[1 << 20];

static void handles_found_by_kind_and_removed(void)
{
    for (int i = 0; i < 3000; i++)
        CHECK(qpnic_handle_add(&arena[i], (enum qpnic_handle_kind)(QPNIC_H_PD + i % 6)) == 0, "add %d", i);
    int bad = 0;
    for (int i = 0; i < 3000; i++) {
        enum qpnic_handle_kind k = (enum qpnic_handle_kind)(QPNIC_H_PD + i % 6);
        enum qpnic_handle_kind other = (enum qpnic_handle_kind)(QPNIC_H_PD + (i + 1) % 6);
        bad += !qpnic_handle_live(&arena[i], k) || qpnic_handle_live(&arena[i], other);
    }
    CHECK(bad == 0, "%d of 3000 handles not found with their kind, or found with another", bad);
    for (int i = 0; i < 3000; i += 2)
        qpnic_handle_del(&arena[i]);
    bad = 0;
    for (int i = 0; i < 3000; i++)
        bad += qpnic_handle_live(&arena[i], (enum qpnic_handle_kind)(QPNIC_H_PD + i % 6)) != (i & 1);
    CHECK(bad == 0, "%d handles live after removal or gone without it", bad);
    CHECK(!qpnic_handle_live(NULL, QPNIC_H_PD), "NULL is live");
    CHECK(!qpnic_handle_live(&arena[5000], QPNIC_H_PD), "a pointer never added is live");
    for (int i = 1; i < 3000; i += 2)
        qpnic_handle_del(&arena[i]);
}

static atomic_int stop;
static atomic_long refusals, looks;

/* Looks at 16 handles that stay live throughout: none may ever be refused. */
static void *reader(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        for (int i = 0; i < 16; i++) {
            if (!qpnic_handle_live(&arena[i], QPNIC_H_QP))
                atomic_fetch_add(&refusals, 1);
            atomic_fetch_add(&looks, 1);
        }
    return NULL;
}

static void live_handles_never_refused_under_churn(void)
{
    for (int i = 0; i < 16; i++)
        qpnic_handle_add(&arena[i], QPNIC_H_QP);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, reader, NULL);
    /* the churn starts once the readers look (on a loaded machine they may
     * not run before a churn that does not wait has ended) */
    while (atomic_load(&looks) < 64)
        sched_yield();
    /* creates and destroys of other handles: the table grows to a few
     * thousand entries, shrinks back, and fills with tombstones again and
     * again (rehashes in place) */
    for (int round = 0; round < 40; round++) {
        int n = round % 2 ? 4000 : 100;
        for (int i = 0; i < n; i++)
            qpnic_handle_add(&arena[1000 + round * 5000 + i], QPNIC_H_CQ);
        for (int i = 0; i < n; i++)
            qpnic_handle_del(&arena[1000 + round * 5000 + i]);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK(atomic_load(&refusals) == 0, "a live handle was refused %ld times in %ld looks",
          atomic_load(&refusals), atomic_load(&looks));
    CHECK(atomic_load(&looks) > 0, "the readers looked at nothing");
    for (int i = 0; i < 16; i++)
        qpnic_handle_del(&arena[i]);
}

int main(void)
{
    RUN(handles_found_by_kind_and_removed);
    RUN(live_handles_never_refused_under_churn);
    TEST_MAIN_END();
}
