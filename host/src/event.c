/* event.c: the adapter's event thread, which turns notifications into
 * callbacks.
 *
 * For: taking notification words from the transport, finding each one's CQ,
 * calling its callback on this one thread, one at a time (N5), and then
 * waking ndk_wait_cq. Not for: deciding when a notification is due (the
 * NIC's firmware does: N1-N4, N6, N7) or reading completions (cq.c).
 *
 * When the device dies the thread stays, to answer every arm with an
 * INTERNAL_ERROR callback (serve_dead_device).
 *
 * No lock is held while a callback runs, so a callback may call
 * ndk_get_cq_results and ndk_arm_cq on its CQ (and post requests).
 */
#include "internal.h"

#define NTF_POLL_MS 100 /* how often the thread looks at ev_stop and the device */
#define NTF_BATCH 64

int qpnic_event_on_thread(ndk_adapter *ad)
{
    return ad->ev_running && pthread_equal(pthread_self(), ad->ev_thread);
}

/* Find cq by number and generation and mark its callback as running (under
 * both locks, so a destroy that removed it from the table never sees it
 * start). A notification of an older generation was earned by a CQ
 * destroyed since: nobody to tell. */
static ndk_cq *begin_callback(ndk_adapter *ad, uint32_t cqn, uint32_t gen)
{
    pthread_mutex_lock(&ad->lock);
    ndk_cq *cq = cqn < ad->num_cq ? ad->cqs[cqn] : NULL;
    if (cq && cq->gen != gen)
        cq = NULL;
    if (cq) {
        pthread_mutex_lock(&ad->ev_lock);
        ad->cb_cq = cq;
        pthread_mutex_unlock(&ad->ev_lock);
    }
    pthread_mutex_unlock(&ad->lock);
    return cq;
}

void qpnic_event_deliver(ndk_adapter *ad, uint32_t word)
{
    uint32_t w[1] = { word };
    ndk_cq *cq = begin_callback(ad, QPNIC_FIELD_GET(w, QPNIC_NOTIFY_CQN),
                                QPNIC_FIELD_GET(w, QPNIC_NOTIFY_GEN));
    if (!cq)
        return; /* a CQ destroyed since: nobody to tell */
    ndk_status status = qpnic_ntf_status(QPNIC_FIELD_GET(w, QPNIC_NOTIFY_STATUS));
    if (status == NDK_STATUS_BUFFER_OVERFLOW)
        atomic_store(&cq->overrun, 1); /* N8: the CQ and its QPs are unusable */
    if (cq->fn)
        cq->fn(cq->fn_ctx, status); /* N5: only this thread calls callbacks */
    pthread_mutex_lock(&ad->ev_lock);
    if (ad->cb_cq == cq) { /* else the callback destroyed its CQ */
        cq->ntf_seq = cq->arm_seq;
        cq->ntf_status = status;
    }
    ad->cb_cq = NULL;
    pthread_cond_broadcast(&ad->ev_cond);
    pthread_mutex_unlock(&ad->ev_lock);
}

void qpnic_event_device_died(ndk_adapter *ad)
{
    if (atomic_exchange(&ad->dead, 1))
        return;
    pthread_mutex_lock(&ad->ev_lock);
    pthread_cond_broadcast(&ad->ev_cond); /* waiters: IO_ERROR */
    pthread_mutex_unlock(&ad->ev_lock);
    ad->t->ops->ntf_kick(ad->t);          /* the event thread: see below */
}

/* After the device died: the CQ with an arm no callback has answered yet
 * (lowest number first), marked as running; NULL when there is none. */
static ndk_cq *next_orphaned_arm(ndk_adapter *ad)
{
    ndk_cq *found = NULL;
    pthread_mutex_lock(&ad->lock);
    pthread_mutex_lock(&ad->ev_lock);
    for (uint32_t i = 0; i < ad->num_cq && !found; i++) {
        ndk_cq *cq = ad->cqs[i];
        if (cq && cq->arm_seq != cq->ntf_seq && cq->arm_seq != cq->dead_seq)
            found = cq;
    }
    if (found) {
        found->dead_seq = found->arm_seq; /* N1: once per arm */
        ad->cb_cq = found;
    }
    pthread_mutex_unlock(&ad->ev_lock);
    pthread_mutex_unlock(&ad->lock);
    return found;
}

/* The device is gone: no notification will come, so every arm, those made
 * before and those made after, is answered with INTERNAL_ERROR (API.md),
 * one callback at a time as ever (N5), until the adapter closes. */
static void serve_dead_device(ndk_adapter *ad)
{
    for (;;) {
        ndk_cq *cq;
        while ((cq = next_orphaned_arm(ad)) != NULL) {
            if (cq->fn)
                cq->fn(cq->fn_ctx, NDK_STATUS_INTERNAL_ERROR);
            pthread_mutex_lock(&ad->ev_lock);
            ad->cb_cq = NULL;
            pthread_cond_broadcast(&ad->ev_cond);
            pthread_mutex_unlock(&ad->ev_lock);
        }
        pthread_mutex_lock(&ad->ev_lock);
        if (!atomic_load(&ad->ev_stop) && !ad->ev_arm_pending)
            pthread_cond_wait(&ad->ev_cond, &ad->ev_lock);
        ad->ev_arm_pending = 0;
        pthread_mutex_unlock(&ad->ev_lock);
        if (atomic_load(&ad->ev_stop))
            return;
    }
}

static void *event_main(void *arg)
{
    ndk_adapter *ad = arg;
    uint32_t words[NTF_BATCH];
    while (!atomic_load(&ad->ev_stop) && !atomic_load(&ad->dead)) {
        uint32_t got = 0;
        ndk_status st = ad->t->ops->ntf_wait(ad->t, words, NTF_BATCH, &got, NTF_POLL_MS);
        if (st != NDK_STATUS_SUCCESS) {
            qpnic_event_device_died(ad);
            break;
        }
        for (uint32_t i = 0; i < got; i++)
            qpnic_event_deliver(ad, words[i]);
    }
    if (atomic_load(&ad->dead))
        serve_dead_device(ad);
    return NULL;
}

ndk_status qpnic_event_start(ndk_adapter *ad)
{
    if (pthread_create(&ad->ev_thread, NULL, event_main, ad) != 0)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    ad->ev_running = 1;
    return NDK_STATUS_SUCCESS;
}

void qpnic_event_stop(ndk_adapter *ad)
{
    if (!ad->ev_running)
        return;
    atomic_store(&ad->ev_stop, 1);
    ad->t->ops->ntf_kick(ad->t);
    pthread_mutex_lock(&ad->ev_lock);
    pthread_cond_broadcast(&ad->ev_cond); /* a thread serving a dead device */
    pthread_mutex_unlock(&ad->ev_lock);
    pthread_join(ad->ev_thread, NULL);
    ad->ev_running = 0;
}

void qpnic_event_quiesce_cq(ndk_adapter *ad, ndk_cq *cq)
{
    pthread_mutex_lock(&ad->ev_lock);
    if (qpnic_event_on_thread(ad)) {
        if (ad->cb_cq == cq)
            ad->cb_cq = NULL; /* destroyed from its own callback: deliver lets go */
    } else {
        while (ad->cb_cq == cq)
            pthread_cond_wait(&ad->ev_cond, &ad->ev_lock);
    }
    pthread_mutex_unlock(&ad->ev_lock);
}
