/* transport_sim.c: the co-simulation carrier: qpnic-sim over shared memory.
 *
 * For: starting a private qpnic-sim (or attaching to one that serves),
 * mapping its shared file (sim/shm_proto.h), and the transport calls over
 * it: register writes and reads through the MMIO ring, notifications from
 * the notification ring (futex sleep when empty), DMA-checker ranges.
 * Not for: what the registers mean (adapter.c and the object files).
 *
 * Each ring is single producer, single consumer; a side sleeps on a futex on
 * the ring's head only after saying so (sim_sleeping / host_sleeping), and
 * the other side wakes it only then. The flag store and the head load (and
 * the head store and the flag load on the other side) are sequentially
 * consistent, so no wake-up is lost.
 *
 * The futexes are shared between processes (the file is MAP_SHARED), so they
 * use the plain FUTEX_WAIT/FUTEX_WAKE operations, not the _PRIVATE ones.
 *
 * Register reads wait by polling rd_seq (spin, then short sleeps), not on a
 * futex: host_sleeping belongs to the event thread's wait on ntf_head.
 * A private simulator's file is unlinked as soon as it serves (both sides
 * have it mapped), so no file outlives the two processes however they end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shm_proto.h"
#include "transport.h"

#ifndef QPNIC_DEFAULT_SIM
#define QPNIC_DEFAULT_SIM "qpnic-sim"
#endif

#define START_TIMEOUT_MS 15000   /* the simulator must serve within this */
#define EXIT_TIMEOUT_MS 5000     /* after shutdown, before SIGKILL */
#define REPLY_TIMEOUT_MS 60000   /* a live simulator answers within this */
#define SPIN_ROUNDS 2000         /* busy polls before sleeping */
#define POLL_SLEEP_NS 20000      /* sleep between polls after spinning */
#define MAX_SIM_ARGS 32

typedef struct {
    qpnic_transport base;
    qpnic_shm_hdr *hdr;
    size_t map_bytes;
    int fd;
    pid_t child;          /* private simulator while it runs, else 0 */
    int private_sim;      /* we started it: its file is ours to unlink */
    char path[128];
    uint32_t mmio_head;   /* our copy of hdr->mmio_head */
    uint32_t rd_seq;      /* seq of our newest register read */
    uint64_t alive_at_ms; /* when a posted write last found the simulator alive */
    uint32_t ntf_tail;    /* our copy of hdr->ntf_tail */
    uint8_t range_used[QPNIC_SHM_RANGES];
} sim_transport;

/* ---- time and futexes ---- */

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ns(long ns)
{
    struct timespec ts = { .tv_sec = 0, .tv_nsec = ns };
    nanosleep(&ts, NULL);
}

static void futex_wake(qpnic_atomic_u32 *addr)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void futex_wait(qpnic_atomic_u32 *addr, uint32_t seen, int timeout_ms)
{
    struct timespec ts = { .tv_sec = timeout_ms / 1000, .tv_nsec = (long)(timeout_ms % 1000) * 1000000L };
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT, seen, &ts, NULL, 0);
}

/* ---- is the simulator still there? ---- */

static int pid_alive(pid_t pid)
{
    return pid <= 0 || kill(pid, 0) == 0 || errno == EPERM;
}

static int sim_alive(sim_transport *s)
{
    if (atomic_load(&s->hdr->sim_state) == QPNIC_SIM_EXITED)
        return 0;
    if (s->child > 0) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        /* WNOWAIT: look without reaping; close reaps. */
        if (waitid(P_PID, (id_t)s->child, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
            return si.si_pid == 0;
        return pid_alive(s->child); /* ECHILD: SIGCHLD ignored by the program */
    }
    return pid_alive((pid_t)s->hdr->sim_pid);
}

/* One step of waiting for the simulator: spin first, then sleep briefly.
 * Returns 0 to keep waiting, -1 when the simulator died or took too long. */
typedef struct {
    unsigned spins;
    uint64_t deadline;
} waiter;

static int wait_step(sim_transport *s, waiter *w)
{
    if (w->spins < SPIN_ROUNDS) {
        w->spins++;
        return 0;
    }
    if (w->spins == SPIN_ROUNDS) {
        w->spins++;
        w->deadline = now_ms() + REPLY_TIMEOUT_MS;
    }
    if (!sim_alive(s) || now_ms() > w->deadline)
        return -1;
    sleep_ns(POLL_SLEEP_NS);
    return 0;
}

/* ---- register access ---- */

static ndk_status mmio_post(sim_transport *s, uint32_t op, uint32_t addr, uint32_t data,
                            uint32_t seq)
{
    qpnic_shm_hdr *h = s->hdr;
    uint32_t head = s->mmio_head;
    waiter w = { 0, 0 };
    /* A write is posted, not answered: without this look a dead simulator
     * would take doorbells without a word. The look is a system call, so a
     * stream of posts makes it once a millisecond, not once a doorbell. */
    uint64_t now = now_ms();
    if (now != s->alive_at_ms) {
        if (!sim_alive(s))
            return NDK_STATUS_IO_ERROR;
        s->alive_at_ms = now;
    }
    while (head - atomic_load_explicit(&h->mmio_tail, memory_order_acquire) >= QPNIC_SHM_MMIO_SLOTS)
        if (wait_step(s, &w) != 0)
            return NDK_STATUS_IO_ERROR;
    qpnic_mmio_slot *slot = &h->mmio[head % QPNIC_SHM_MMIO_SLOTS];
    slot->op = op;
    slot->addr = addr;
    slot->data = data;
    slot->seq = seq;
    s->mmio_head = head + 1;
    atomic_store(&h->mmio_head, head + 1); /* seq_cst: releases the slot, then... */
    if (atomic_load(&h->sim_sleeping))     /* ...looks whether the simulator sleeps */
        futex_wake(&h->mmio_head);
    return NDK_STATUS_SUCCESS;
}

static ndk_status sim_mmio_write(qpnic_transport *t, uint32_t addr, uint32_t val)
{
    return mmio_post((sim_transport *)t, QPNIC_MMIO_WRITE, addr, val, 0);
}

static ndk_status sim_mmio_read(qpnic_transport *t, uint32_t addr, uint32_t *val)
{
    sim_transport *s = (sim_transport *)t;
    uint32_t seq = ++s->rd_seq;
    ndk_status st = mmio_post(s, QPNIC_MMIO_READ, addr, 0, seq);
    if (st != NDK_STATUS_SUCCESS)
        return st;
    waiter w = { 0, 0 };
    while (atomic_load_explicit(&s->hdr->rd_seq, memory_order_acquire) != seq)
        if (wait_step(s, &w) != 0)
            return NDK_STATUS_IO_ERROR;
    *val = s->hdr->rd_data; /* written before rd_seq */
    return NDK_STATUS_SUCCESS;
}

/* ---- notifications ---- */

static ndk_status sim_ntf_wait(qpnic_transport *t, uint32_t *words, uint32_t max,
                               uint32_t *got, int timeout_ms)
{
    sim_transport *s = (sim_transport *)t;
    qpnic_shm_hdr *h = s->hdr;
    uint32_t tail = s->ntf_tail;
    uint32_t head = atomic_load_explicit(&h->ntf_head, memory_order_acquire);
    if (head == tail && timeout_ms > 0) {
        atomic_store(&h->host_sleeping, 1u);
        head = atomic_load(&h->ntf_head);
        if (head == tail)
            futex_wait(&h->ntf_head, head, timeout_ms);
        atomic_store(&h->host_sleeping, 0u);
        head = atomic_load_explicit(&h->ntf_head, memory_order_acquire);
    }
    uint32_t n = head - tail;
    if (n > max)
        n = max;
    for (uint32_t i = 0; i < n; i++)
        words[i] = h->ntf[(tail + i) % QPNIC_SHM_NTF_SLOTS];
    s->ntf_tail = tail + n;
    atomic_store_explicit(&h->ntf_tail, tail + n, memory_order_release);
    *got = n;
    if (n == 0 && !sim_alive(s))
        return NDK_STATUS_IO_ERROR;
    return NDK_STATUS_SUCCESS;
}

static void sim_ntf_kick(qpnic_transport *t)
{
    futex_wake(&((sim_transport *)t)->hdr->ntf_head);
}

/* ---- DMA checker ranges ---- */

static int sim_range_add(qpnic_transport *t, uint64_t dev_addr, uint64_t len, uint32_t perm)
{
    sim_transport *s = (sim_transport *)t;
    for (int i = 0; i < (int)QPNIC_SHM_RANGES; i++) {
        if (s->range_used[i])
            continue;
        qpnic_range *r = &s->hdr->ranges[i];
        r->addr = dev_addr;
        r->perm = perm;
        __atomic_store_n(&r->len, len, __ATOMIC_RELEASE); /* len != 0 publishes it */
        s->range_used[i] = 1;
        if ((uint32_t)i >= atomic_load(&s->hdr->ranges_hi))
            atomic_store(&s->hdr->ranges_hi, (uint32_t)i + 1u); /* the checker looks this far */
        return i;
    }
    return -1;
}

static void sim_range_del(qpnic_transport *t, int handle)
{
    sim_transport *s = (sim_transport *)t;
    if (handle < 0 || handle >= (int)QPNIC_SHM_RANGES || !s->range_used[handle])
        return;
    __atomic_store_n(&s->hdr->ranges[handle].len, 0, __ATOMIC_RELEASE);
    s->range_used[handle] = 0;
}

/* ---- mapping, starting, stopping ---- */

static void unmap(sim_transport *s)
{
    if (s->hdr)
        munmap(s->hdr, s->map_bytes);
    if (s->fd >= 0)
        close(s->fd);
    s->hdr = NULL;
    s->fd = -1;
}

/* Map the file at s->path once it holds at least a header. 0: mapped;
 * 1: not yet; -1: failed for good. */
static int try_map(sim_transport *s)
{
    if (s->fd < 0) {
        s->fd = open(s->path, O_RDWR | O_CLOEXEC);
        if (s->fd < 0)
            return errno == ENOENT ? 1 : -1;
    }
    struct stat sb;
    if (fstat(s->fd, &sb) != 0)
        return -1;
    if ((uint64_t)sb.st_size < QPNIC_SHM_HDR_BYTES)
        return 1;
    if (s->hdr && (size_t)sb.st_size == s->map_bytes)
        return 0;
    if (s->hdr)
        munmap(s->hdr, s->map_bytes);
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
    s->hdr = NULL;
    if (p == MAP_FAILED)
        return -1;
    s->hdr = p;
    s->map_bytes = (size_t)sb.st_size;
    return 0;
}

/* Does the mapped file serve, whole? 0 yes, 1 not yet, -1 never will. */
static int check_serving(sim_transport *s)
{
    int m = try_map(s);
    if (m != 0)
        return m;
    uint32_t state = atomic_load(&s->hdr->sim_state);
    if (state == QPNIC_SIM_EXITED)
        return -1;
    if (state != QPNIC_SIM_SERVING)
        return 1;
    if (s->hdr->magic != QPNIC_SHM_MAGIC)
        return -1;
    if ((uint64_t)s->map_bytes < (uint64_t)s->hdr->hdr_bytes + s->hdr->dma_bytes) {
        m = try_map(s); /* the file grew after our first look */
        if (m != 0 || (uint64_t)s->map_bytes < (uint64_t)s->hdr->hdr_bytes + s->hdr->dma_bytes)
            return -1;
    }
    return 0;
}

static void reap_child(sim_transport *s, int timeout_ms)
{
    if (s->child <= 0)
        return;
    uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
    while (waitpid(s->child, NULL, WNOHANG) == 0) {
        if (now_ms() > deadline) {
            kill(s->child, SIGKILL);
            waitpid(s->child, NULL, 0);
            break;
        }
        sleep_ns(1000000L);
    }
    s->child = 0;
}

/* Split $QPNIC_SIM_ARGS on spaces into argv[n..]; returns the new count.
 * The strings live in buf. */
static int extra_args(char *buf, size_t bufsz, char **argv, int n, int max)
{
    const char *env = getenv("QPNIC_SIM_ARGS");
    if (!env || strlen(env) >= bufsz)
        return n;
    strcpy(buf, env);
    char *save = NULL;
    for (char *a = strtok_r(buf, " ", &save); a && n < max; a = strtok_r(NULL, " ", &save))
        argv[n++] = a;
    return n;
}

/* Start qpnic-sim serving at s->path and wait until it serves. */
static ndk_status spawn(sim_transport *s)
{
    const char *bin = getenv("QPNIC_SIM");
    if (!bin || !*bin)
        bin = QPNIC_DEFAULT_SIM;
    /* Unique per live adapter of this process: its transport's address. */
    snprintf(s->path, sizeof s->path, "/dev/shm/qpnic-%d-%lx", (int)getpid(),
             (unsigned long)(uintptr_t)s);
    unlink(s->path);
    s->private_sim = 1;

    char argbuf[1024];
    char *argv[MAX_SIM_ARGS + 1];
    int argc = 0;
    argv[argc++] = (char *)bin;
    argv[argc++] = "--shm";
    argv[argc++] = s->path;
    argv[argc++] = "--quiet";
    argc = extra_args(argbuf, sizeof argbuf, argv, argc, MAX_SIM_ARGS);
    argv[argc] = NULL;

    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return NDK_STATUS_IO_ERROR;
    if (pid == 0) {
        /* The simulator ends with us. (PR_SET_PDEATHSIG follows the thread
         * that forked: open adapters from a thread that outlives them.) */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(126);
        execv(bin, argv);
        _exit(127);
    }
    s->child = pid;

    uint64_t deadline = now_ms() + START_TIMEOUT_MS;
    for (;;) {
        if (waitpid(pid, NULL, WNOHANG) == pid) { /* it exited: reaped */
            s->child = 0;
            return NDK_STATUS_IO_ERROR;
        }
        int r = check_serving(s);
        if (r == 0) {
            /* Both sides have it mapped: the name is no longer needed, and
             * without it nothing is left behind however we end. */
            unlink(s->path);
            return NDK_STATUS_SUCCESS;
        }
        if (r < 0 || now_ms() > deadline) {
            reap_child(s, 0);
            return NDK_STATUS_IO_ERROR;
        }
        sleep_ns(2000000L);
    }
}

/* Attach to a simulator serving at s->path (bounded wait if it is starting). */
static ndk_status attach(sim_transport *s)
{
    if (try_map(s) < 0 || s->fd < 0)
        return NDK_STATUS_IO_ERROR; /* no such file: nothing serves there */
    uint64_t deadline = now_ms() + START_TIMEOUT_MS;
    for (;;) {
        int r = check_serving(s);
        if (r == 0)
            return NDK_STATUS_SUCCESS;
        if (r < 0 || now_ms() > deadline)
            return NDK_STATUS_IO_ERROR;
        sleep_ns(2000000L);
    }
}

/* Become the host of the mapped simulator: DEVICE_BUSY if a live one is. */
static ndk_status claim(sim_transport *s)
{
    uint32_t me = (uint32_t)getpid();
    uint32_t cur = atomic_load(&s->hdr->host_pid);
    for (;;) {
        if (cur != 0 && cur != me && pid_alive((pid_t)cur))
            return NDK_STATUS_DEVICE_BUSY;
        if (cur == me && s->child == 0)
            return NDK_STATUS_DEVICE_BUSY; /* this process attached already */
        if (atomic_compare_exchange_strong(&s->hdr->host_pid, &cur, me))
            return NDK_STATUS_SUCCESS;
    }
}

static void sim_close(qpnic_transport *t)
{
    sim_transport *s = (sim_transport *)t;
    if (s->hdr) {
        for (int i = 0; i < (int)QPNIC_SHM_RANGES; i++)
            sim_range_del(t, i);
        atomic_store(&s->hdr->host_pid, 0u);
        if (s->child > 0) {
            atomic_store(&s->hdr->shutdown, 1u);
            futex_wake(&s->hdr->mmio_head);
        }
    }
    reap_child(s, EXIT_TIMEOUT_MS);
    if (s->private_sim)
        unlink(s->path);
    unmap(s);
    free(s);
}

static void sim_violations(qpnic_transport *t, uint32_t *count, uint64_t *first_addr)
{
    sim_transport *s = (sim_transport *)t;
    uint32_t n = atomic_load(&s->hdr->violations); /* acquire: the first's fields are set */
    *count = n;
    *first_addr = n ? s->hdr->first_violation_addr : 0;
}

static const qpnic_transport_ops sim_ops = {
    .mmio_write = sim_mmio_write,
    .mmio_read = sim_mmio_read,
    .ntf_wait = sim_ntf_wait,
    .ntf_kick = sim_ntf_kick,
    .range_add = sim_range_add,
    .range_del = sim_range_del,
    .violations = sim_violations,
    .close = sim_close,
};

/* Take over the mapped header: our copies of the ring indices (stale
 * notifications of an earlier host are dropped), no checker ranges. */
static void adopt(sim_transport *s)
{
    qpnic_shm_hdr *h = s->hdr;
    s->mmio_head = atomic_load(&h->mmio_head);
    s->rd_seq = atomic_load(&h->rd_seq);
    s->ntf_tail = atomic_load(&h->ntf_head);
    atomic_store(&h->ntf_tail, s->ntf_tail);
    for (unsigned i = 0; i < QPNIC_SHM_RANGES; i++)
        __atomic_store_n(&h->ranges[i].len, 0, __ATOMIC_RELEASE);
    atomic_store(&h->ranges_hi, 0u);
    s->base.ops = &sim_ops;
    s->base.dma = (uint8_t *)h + h->hdr_bytes;
    s->base.dma_bytes = h->dma_bytes;
    s->base.dma_base = h->dma_base;
    s->base.node = h->sim_pid;
    s->base.sim_hdr = h;
}

/* Undo a failed open: stop a private simulator; leave an attached one (and
 * its host) alone. */
static void fail_open(sim_transport *s)
{
    if (s->child > 0) {
        if (s->hdr) {
            atomic_store(&s->hdr->shutdown, 1u);
            futex_wake(&s->hdr->mmio_head);
        }
        reap_child(s, EXIT_TIMEOUT_MS);
    }
    if (s->private_sim)
        unlink(s->path);
    unmap(s);
    free(s);
}

ndk_status qpnic_sim_transport_open(const char *path, qpnic_transport **out)
{
    sim_transport *s = calloc(1, sizeof *s);
    if (!s)
        return NDK_STATUS_INSUFFICIENT_RESOURCES;
    s->fd = -1;
    ndk_status st;
    if (path) {
        if (strlen(path) >= sizeof s->path) {
            free(s);
            return NDK_STATUS_INVALID_PARAMETER;
        }
        strcpy(s->path, path);
        st = attach(s);
    } else {
        st = spawn(s);
    }
    if (st == NDK_STATUS_SUCCESS && s->hdr->version != QPNIC_SHM_VERSION)
        st = NDK_STATUS_INTERNAL_ERROR;
    if (st == NDK_STATUS_SUCCESS)
        st = claim(s);
    if (st != NDK_STATUS_SUCCESS) {
        fail_open(s);
        return st;
    }
    adopt(s);
    *out = &s->base;
    return NDK_STATUS_SUCCESS;
}
