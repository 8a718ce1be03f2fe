/* test_shm_proto.c: the simulator harness through its shared-memory protocol.
 *
 * For: checking qpnic-sim as a process against sim/shm_proto.h, with its own
 * minimal host side (not libqpnic): the file and header it creates, the MMIO
 * ring (writes, reads, ordering, wrap-around, doorbell_delay), sleeping when
 * idle and waking on a write, the ways it stops (shutdown, SIGTERM, the host
 * process gone) and its start-up errors. The DMA checker's rule itself is
 * unit-tested in test_dma_check.cpp; here only its counter is checked, when
 * the NIC can be made to DMA outside the ranges (see test_violation_counted).
 * Not for: NIC behaviour beyond the registers it needs (tests/e2e does that).
 *
 * usage: test_shm_proto PATH-OF-qpnic-sim
 * Prints "PASS <name>" per case, or "FAIL ..." and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qpnic_hw.h"
#include "shm_proto.h"

#define CHECK(cond, ...)                                              \
    do {                                                              \
        if (!(cond)) {                                                \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                             \
            fprintf(stderr, "\n");                                    \
            cleanup_all();                                            \
            exit(1);                                                  \
        }                                                             \
    } while (0)

#define START_TIMEOUT_S 60.0 /* model construction, firmware load */
#define REPLY_TIMEOUT_S 10.0
#define MEM_MB 4u

static const char *sim_bin;

/* One running simulator as this test sees it. */
typedef struct {
    pid_t pid;
    char path[128];
    qpnic_shm_hdr *hdr;
    size_t map_bytes;
    uint32_t next_seq;
} sim_t;

static sim_t *live[8]; /* for cleanup on failure */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void cleanup_all(void) {
    for (size_t i = 0; i < sizeof live / sizeof live[0]; i++) {
        if (!live[i])
            continue;
        if (live[i]->pid > 0)
            kill(live[i]->pid, SIGKILL);
        unlink(live[i]->path);
    }
}

static void make_path(char *out, size_t len, const char *what) {
    snprintf(out, len, "/dev/shm/qpnic-test-%d-%s", (int)getpid(), what);
}

static pid_t spawn(const char *const *args, int stderr_fd) {
    pid_t pid = fork();
    if (pid == 0) {
        if (stderr_fd >= 0)
            dup2(stderr_fd, 2);
        execv(sim_bin, (char *const *)args);
        fprintf(stderr, "exec %s: %s\n", sim_bin, strerror(errno));
        _exit(127);
    }
    return pid;
}

/* Map the file once it exists at full size, then wait for SERVING. */
static void attach(sim_t *s) {
    double t0 = now_s();
    int fd = -1;
    struct stat st;
    for (;;) {
        int status;
        CHECK(waitpid(s->pid, &status, WNOHANG) == 0, "qpnic-sim exited (status 0x%x) before serving %s",
              status, s->path);
        CHECK(now_s() - t0 < START_TIMEOUT_S, "%s did not appear at full size in %.0f s", s->path, START_TIMEOUT_S);
        if (fd < 0)
            fd = open(s->path, O_RDWR);
        if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size >= QPNIC_SHM_HDR_BYTES)
            break;
        usleep(1000);
    }
    s->map_bytes = (size_t)st.st_size;
    void *m = mmap(NULL, s->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    CHECK(m != MAP_FAILED, "mmap %s: %s", s->path, strerror(errno));
    s->hdr = m;
    while (atomic_load(&s->hdr->sim_state) != QPNIC_SIM_SERVING) {
        int status;
        CHECK(waitpid(s->pid, &status, WNOHANG) == 0, "qpnic-sim exited (status 0x%x) while starting", status);
        CHECK(now_s() - t0 < START_TIMEOUT_S, "sim_state never became SERVING (it is %u)",
              atomic_load(&s->hdr->sim_state));
        usleep(1000);
    }
}

static void start_sim(sim_t *s, const char *name, const char *extra1, const char *extra2) {
    memset(s, 0, sizeof *s);
    make_path(s->path, sizeof s->path, name);
    unlink(s->path);
    const char *args[] = {sim_bin, "--shm", s->path, "--mem-mb", "4", "--quiet", extra1, extra2, NULL};
    s->pid = spawn(args, -1);
    CHECK(s->pid > 0, "fork failed");
    for (size_t i = 0; i < sizeof live / sizeof live[0]; i++)
        if (!live[i]) {
            live[i] = s;
            break;
        }
    attach(s);
}

static void forget(sim_t *s) {
    for (size_t i = 0; i < sizeof live / sizeof live[0]; i++)
        if (live[i] == s)
            live[i] = NULL;
    if (s->hdr)
        munmap(s->hdr, s->map_bytes);
    unlink(s->path);
}

/* Wait for the process and return its exit status (or -signal). */
static int wait_exit(sim_t *s, double timeout_s) {
    double t0 = now_s();
    int status;
    for (;;) {
        pid_t r = waitpid(s->pid, &status, WNOHANG);
        if (r == s->pid)
            break;
        CHECK(now_s() - t0 < timeout_s, "qpnic-sim (pid %d) still running after %.0f s", (int)s->pid, timeout_s);
        usleep(1000);
    }
    s->pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

static void wake_sim(sim_t *s) {
    if (atomic_load(&s->hdr->sim_sleeping))
        syscall(SYS_futex, (uint32_t *)&s->hdr->mmio_head, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static void post(sim_t *s, uint32_t op, uint32_t addr, uint32_t data, uint32_t seq) {
    qpnic_shm_hdr *h = s->hdr;
    uint32_t head = atomic_load_explicit(&h->mmio_head, memory_order_relaxed);
    double t0 = now_s();
    while (head - atomic_load_explicit(&h->mmio_tail, memory_order_acquire) >= QPNIC_SHM_MMIO_SLOTS) {
        CHECK(now_s() - t0 < REPLY_TIMEOUT_S, "MMIO ring stayed full for %.0f s (tail %u, head %u)",
              REPLY_TIMEOUT_S, atomic_load(&h->mmio_tail), head);
        sched_yield();
    }
    qpnic_mmio_slot *slot = &h->mmio[head % QPNIC_SHM_MMIO_SLOTS];
    slot->op = op;
    slot->addr = addr;
    slot->data = data;
    slot->seq = seq;
    atomic_store(&h->mmio_head, head + 1); /* seq_cst: pairs with sim_sleeping */
    wake_sim(s);
}

static void reg_write(sim_t *s, uint32_t addr, uint32_t value) { post(s, QPNIC_MMIO_WRITE, addr, value, 0); }

static uint32_t reg_read(sim_t *s, uint32_t addr) {
    uint32_t seq = ++s->next_seq;
    post(s, QPNIC_MMIO_READ, addr, 0, seq);
    double t0 = now_s();
    while (atomic_load_explicit(&s->hdr->rd_seq, memory_order_acquire) != seq) {
        CHECK(now_s() - t0 < REPLY_TIMEOUT_S, "no reply to the read of register 0x%x (seq %u) in %.0f s",
              addr, seq, REPLY_TIMEOUT_S);
        sched_yield();
    }
    return s->hdr->rd_data;
}

static void shutdown_sim(sim_t *s) {
    atomic_store(&s->hdr->shutdown, 1);
    syscall(SYS_futex, (uint32_t *)&s->hdr->mmio_head, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* ---- cases ------------------------------------------------------------- */

static void test_header_identity(sim_t *s) {
    qpnic_shm_hdr *h = s->hdr;
    CHECK(h->magic == QPNIC_SHM_MAGIC, "magic is 0x%llx", (unsigned long long)h->magic);
    CHECK(h->version == QPNIC_SHM_VERSION, "version is %u", h->version);
    CHECK(h->hdr_bytes == QPNIC_SHM_HDR_BYTES, "hdr_bytes is %u", h->hdr_bytes);
    CHECK(h->dma_base == QPNIC_SHM_DMA_BASE, "dma_base is 0x%llx", (unsigned long long)h->dma_base);
    CHECK(h->dma_bytes == (uint64_t)MEM_MB << 20, "dma_bytes is %llu for --mem-mb %u",
          (unsigned long long)h->dma_bytes, MEM_MB);
    CHECK(s->map_bytes == QPNIC_SHM_HDR_BYTES + h->dma_bytes, "file is %zu bytes, header says %llu",
          s->map_bytes, (unsigned long long)(QPNIC_SHM_HDR_BYTES + h->dma_bytes));
    CHECK(h->sim_pid == (uint32_t)s->pid, "sim_pid is %u, the process is %d", h->sim_pid, (int)s->pid);
    CHECK(atomic_load(&h->violations) == 0, "violations is %u at start", atomic_load(&h->violations));
    printf("PASS header_identity\n");
}

static void test_id_register(sim_t *s) {
    uint32_t id = reg_read(s, QPNIC_REG_ID);
    CHECK(id == QPNIC_ID_VALUE, "ID register reads 0x%08x, want QPNIC_ID_VALUE 0x%08x", id, QPNIC_ID_VALUE);
    printf("PASS id_register\n");
}

static void test_scratch_roundtrip(sim_t *s) {
    static const uint32_t patterns[] = {0x00000000u, 0xFFFFFFFFu, 0xA5A5A5A5u, 0x12345678u};
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        reg_write(s, QPNIC_REG_SCRATCH, patterns[i]);
        uint32_t got = reg_read(s, QPNIC_REG_SCRATCH);
        CHECK(got == patterns[i], "SCRATCH reads 0x%08x after writing 0x%08x", got, patterns[i]);
    }
    printf("PASS scratch_roundtrip\n");
}

/* More writes than the ring holds, then one read: order kept across wraps. */
static void test_ring_wraps_in_order(sim_t *s) {
    uint32_t n = 3 * QPNIC_SHM_MMIO_SLOTS + 7;
    for (uint32_t i = 1; i <= n; i++)
        reg_write(s, QPNIC_REG_SCRATCH, i * 2654435761u);
    uint32_t got = reg_read(s, QPNIC_REG_SCRATCH);
    CHECK(got == n * 2654435761u, "after %u writes SCRATCH reads 0x%08x, want the last one 0x%08x",
          n, got, n * 2654435761u);
    CHECK(atomic_load(&s->hdr->mmio_tail) == atomic_load(&s->hdr->mmio_head),
          "ring not drained after the read: tail %u head %u", atomic_load(&s->hdr->mmio_tail),
          atomic_load(&s->hdr->mmio_head));
    printf("PASS ring_wraps_in_order (%u writes)\n", n);
}

/* Reads interleaved with writes each see the write just before them. */
static void test_reads_see_earlier_writes(sim_t *s) {
    for (uint32_t i = 0; i < 200; i++) {
        reg_write(s, QPNIC_REG_SCRATCH, 0xC0DE0000u + i);
        uint32_t got = reg_read(s, QPNIC_REG_SCRATCH);
        CHECK(got == 0xC0DE0000u + i, "read %u returned 0x%08x, want 0x%08x", i, got, 0xC0DE0000u + i);
    }
    printf("PASS reads_see_earlier_writes\n");
}

/* The core's cycle counter must advance by at least delay per write. */
static void test_doorbell_delay(sim_t *s) {
    const uint32_t delay = 1000, writes = 20;
    uint32_t c0 = reg_read(s, QPNIC_REG_CNT_CYCLES_LO);
    atomic_store(&s->hdr->doorbell_delay, delay);
    for (uint32_t i = 0; i < writes; i++)
        reg_write(s, QPNIC_REG_SCRATCH, i);
    uint32_t c1 = reg_read(s, QPNIC_REG_CNT_CYCLES_LO);
    atomic_store(&s->hdr->doorbell_delay, 0);
    CHECK(c1 - c0 >= delay * writes, "%u writes with doorbell_delay %u took only %u cycles", writes, delay, c1 - c0);
    /* And without the delay the same writes are much cheaper. */
    uint32_t c2 = reg_read(s, QPNIC_REG_CNT_CYCLES_LO);
    for (uint32_t i = 0; i < writes; i++)
        reg_write(s, QPNIC_REG_SCRATCH, i);
    uint32_t c3 = reg_read(s, QPNIC_REG_CNT_CYCLES_LO);
    CHECK(c3 - c2 < delay * writes / 2, "with doorbell_delay 0, %u writes still took %u cycles", writes, c3 - c2);
    printf("PASS doorbell_delay (%u cycles with, %u without)\n", c1 - c0, c3 - c2);
}

/* Idle: the simulator announces its sleep, and a write wakes it. */
static void test_sleeps_when_idle_and_wakes(sim_t *s) {
    double t0 = now_s();
    while (!atomic_load(&s->hdr->sim_sleeping)) {
        CHECK(now_s() - t0 < 5.0, "sim_sleeping never set within 5 s of an idle ring (core never idle?)");
        usleep(1000);
    }
    uint64_t c0 = atomic_load(&s->hdr->sim_cycles);
    usleep(50 * 1000);
    uint64_t c1 = atomic_load(&s->hdr->sim_cycles);
    CHECK(c1 - c0 < 1000, "the sleeping simulator ran %llu cycles in 50 ms", (unsigned long long)(c1 - c0));
    double t1 = now_s();
    reg_write(s, QPNIC_REG_SCRATCH, 0x5EEB);
    uint32_t got = reg_read(s, QPNIC_REG_SCRATCH);
    CHECK(got == 0x5EEB, "after waking, SCRATCH reads 0x%x", got);
    printf("PASS sleeps_when_idle_and_wakes (round trip from sleep %.2f ms)\n", (now_s() - t1) * 1e3);
}

/* A CQ the host never entered as a range: the CQE write must be refused and
 * counted. Needs the NIC to complete something: a NOP WQE completes locally
 * with BAD_WQE and its CQE goes to the send CQ. */
static void test_violation_counted(sim_t *s) {
    qpnic_shm_hdr *h = s->hdr;
    uint64_t sq = QPNIC_SHM_DMA_BASE;          /* entered as a range (read) */
    uint64_t cq = QPNIC_SHM_DMA_BASE + 0x10000; /* not entered: the violation */
    uint8_t *dma = (uint8_t *)h + QPNIC_SHM_HDR_BYTES;
    memset(dma, 0, 0x20000);
    memset(dma + 0x10000, 0xEE, 64); /* must stay untouched */
    h->ranges[0].addr = sq;
    h->ranges[0].perm = QPNIC_RANGE_READ;
    atomic_store(&h->violations, 0);
    __atomic_store_n(&h->ranges[0].len, 4096, __ATOMIC_RELEASE);
    atomic_store(&h->ranges_hi, 1u); /* the checker looks at range 0 */

    const uint32_t cqn = 0, qpn = 0;
    reg_write(s, QPNIC_CQREG(cqn, BASE_LO), (uint32_t)cq);
    reg_write(s, QPNIC_CQREG(cqn, BASE_HI), (uint32_t)(cq >> 32));
    reg_write(s, QPNIC_CQREG(cqn, CFG), QPNIC_FIELD(QPNIC_CQ_CFG_LOG_DEPTH, 4) | QPNIC_FIELD(QPNIC_CQ_CFG_ENABLE, 1));
    reg_write(s, QPNIC_QPREG(qpn, SQ_BASE_LO), (uint32_t)sq);
    reg_write(s, QPNIC_QPREG(qpn, SQ_BASE_HI), (uint32_t)(sq >> 32));
    reg_write(s, QPNIC_QPREG(qpn, RQ_BASE_LO), (uint32_t)sq);
    reg_write(s, QPNIC_QPREG(qpn, RQ_BASE_HI), (uint32_t)(sq >> 32));
    reg_write(s, QPNIC_QPREG(qpn, CFG),
              QPNIC_FIELD(QPNIC_QP_CFG_SQ_LOG, 4) | QPNIC_FIELD(QPNIC_QP_CFG_RQ_LOG, 4) |
                  QPNIC_FIELD(QPNIC_QP_CFG_SEND_CQ, cqn) | QPNIC_FIELD(QPNIC_QP_CFG_RECV_CQ, cqn));
    reg_write(s, QPNIC_QPREG(qpn, STATE), QPNIC_QP_STATE_RTS);
    /* WQE 0 is all zeros: opcode NOP, completes with BAD_WQE. */
    reg_write(s, QPNIC_QPREG(qpn, SQ_PI), 1);

    printf("INFO a 'DMA write ... outside the host's ranges' line from qpnic-sim is expected next\n");
    double t0 = now_s();
    while (atomic_load_explicit(&h->violations, memory_order_acquire) == 0) {
        CHECK(now_s() - t0 < 5.0, "no violation counted for a CQE written outside every range");
        (void)reg_read(s, QPNIC_REG_SCRATCH); /* keeps the simulator busy, not asleep */
    }
    CHECK(h->first_violation_write == 1, "first violation recorded as a read, want the CQE write");
    CHECK(h->first_violation_addr == cq, "first violation at 0x%llx, want the CQ at 0x%llx",
          (unsigned long long)h->first_violation_addr, (unsigned long long)cq);
    CHECK(h->first_violation_len >= 1 && h->first_violation_len <= QPNIC_MAX_DMA_BYTES,
          "first violation length %llu", (unsigned long long)h->first_violation_len);
    for (int i = 0; i < 64; i++)
        CHECK(dma[0x10000 + i] == 0xEE, "the refused write changed byte %d of the CQ to 0x%02x", i, dma[0x10000 + i]);
    __atomic_store_n(&h->ranges[0].len, 0, __ATOMIC_RELEASE);
    printf("PASS violation_counted (CQE write at 0x%llx refused)\n", (unsigned long long)cq);
}

/* CPU seconds (user + system) the process has used so far, from /proc. */
static double cpu_seconds(pid_t pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the name may hold spaces */
    unsigned long utime = 0, stime = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        return 0;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* Keep the ring full for a while and count simulated cycles per second, per
 * wall second and per CPU second of qpnic-sim (the latter does not depend on
 * what else runs on the machine). Prints; asserts nothing about speed. */
static void bench_mmio_storm(sim_t *s) {
    uint64_t c0 = atomic_load(&s->hdr->sim_cycles);
    double t0 = now_s(), cpu0 = cpu_seconds(s->pid);
    uint32_t i = 0;
    while (now_s() - t0 < 1.0) {
        for (int k = 0; k < 256; k++)
            reg_write(s, QPNIC_REG_SCRATCH, i++);
    }
    (void)reg_read(s, QPNIC_REG_SCRATCH);
    double t1 = now_s(), cpu1 = cpu_seconds(s->pid);
    /* sim_cycles is published every 1024 cycles: good enough over a second */
    uint64_t c1 = atomic_load(&s->hdr->sim_cycles);
    printf("INFO mmio storm: %u writes in %.2f s: %.0f simulated cycles per second, %.0f per CPU second of qpnic-sim\n",
           i, t1 - t0, (double)(c1 - c0) / (t1 - t0), cpu1 > cpu0 ? (double)(c1 - c0) / (cpu1 - cpu0) : 0.0);
}

static void test_shutdown_exits_cleanly(sim_t *s) {
    shutdown_sim(s);
    int st = wait_exit(s, 10.0);
    CHECK(st == 0, "qpnic-sim exited with %d after shutdown, want 0", st);
    CHECK(atomic_load(&s->hdr->sim_state) == QPNIC_SIM_EXITED, "sim_state is %u after exit, want EXITED",
          atomic_load(&s->hdr->sim_state));
    CHECK(access(s->path, F_OK) == 0, "the simulator removed %s (the host owns the name)", s->path);
    printf("PASS shutdown_exits_cleanly\n");
}

static void test_sigterm_exits_cleanly_with_wave(void) {
    sim_t s;
    char wave[160];
    make_path(wave, sizeof wave, "wave.fst");
    unlink(wave);
    start_sim(&s, "sigterm", "--wave", wave);
    reg_write(&s, QPNIC_REG_SCRATCH, 1);
    (void)reg_read(&s, QPNIC_REG_SCRATCH);
    kill(s.pid, SIGTERM);
    int st = wait_exit(&s, 10.0);
    CHECK(st == 0, "qpnic-sim exited with %d after SIGTERM, want 0", st);
    CHECK(atomic_load(&s.hdr->sim_state) == QPNIC_SIM_EXITED, "sim_state %u after SIGTERM", atomic_load(&s.hdr->sim_state));
    struct stat st_wave;
    CHECK(stat(wave, &st_wave) == 0 && st_wave.st_size > 0, "no FST written to %s", wave);
    unlink(wave);
    forget(&s);
    printf("PASS sigterm_exits_cleanly_with_wave\n");
}

static void test_exits_when_host_gone(void) {
    pid_t ghost = fork();
    if (ghost == 0)
        _exit(0);
    waitpid(ghost, NULL, 0); /* now a pid with no process */
    sim_t s;
    start_sim(&s, "ghost", "--unlink-on-exit", NULL);
    atomic_store(&s.hdr->host_pid, (uint32_t)ghost);
    int st = wait_exit(&s, 10.0);
    CHECK(st == 0, "qpnic-sim exited with %d when its host was gone, want 0", st);
    CHECK(access(s.path, F_OK) != 0, "--unlink-on-exit left %s behind", s.path);
    forget(&s);
    printf("PASS exits_when_host_gone (and --unlink-on-exit)\n");
}

/* Run the simulator expecting a start-up failure; returns its stderr. */
static void expect_startup_error(const char *const *args, const char *want, const char *what) {
    char log[160];
    make_path(log, sizeof log, "stderr.txt");
    int fd = open(log, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0, "cannot create %s", log);
    pid_t pid = spawn(args, fd);
    int status;
    waitpid(pid, &status, 0);
    char buf[1024] = {0};
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    unlink(log);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 0, "%s: exit status 0x%x, want a failure", what, status);
    CHECK(n > 0 && strncmp(buf, "qpnic-sim: ", 11) == 0 && strstr(buf, want),
          "%s: stderr '%s' lacks the 'qpnic-sim: ' prefix or '%s'", what, buf, want);
}

static void test_refuses_existing_file(void) {
    char path[128];
    make_path(path, sizeof path, "exists");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, "keep", 4) == 4, "cannot create %s", path);
    close(fd);
    const char *args[] = {sim_bin, "--shm", path, "--quiet", NULL};
    expect_startup_error(args, "File exists", "an existing --shm file");
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == 4, "the existing file was changed");
    unlink(path);
    printf("PASS refuses_existing_file\n");
}

static void test_refuses_missing_firmware(void) {
    char path[128];
    make_path(path, sizeof path, "nofw");
    unlink(path);
    const char *args[] = {sim_bin, "--shm", path, "--fw", "/nonexistent/qpnic-fw.hex", NULL};
    expect_startup_error(args, "/nonexistent/qpnic-fw.hex", "a missing --fw");
    CHECK(access(path, F_OK) != 0, "the shared file was created although the firmware is missing");
    printf("PASS refuses_missing_firmware\n");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH-OF-qpnic-sim\n", argv[0]);
        return 2;
    }
    sim_bin = argv[1];
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep our lines in order with the simulator's */
    test_refuses_existing_file();
    test_refuses_missing_firmware();

    sim_t s;
    start_sim(&s, "main", NULL, NULL);
    test_header_identity(&s);
    test_id_register(&s);
    test_scratch_roundtrip(&s);
    test_reads_see_earlier_writes(&s);
    test_ring_wraps_in_order(&s);
    test_doorbell_delay(&s);
    test_sleeps_when_idle_and_wakes(&s);
    test_violation_counted(&s);
    bench_mmio_storm(&s);
    test_shutdown_exits_cleanly(&s);
    forget(&s);

    test_sigterm_exits_cleanly_with_wave();
    test_exits_when_host_gone();
    return 0;
}
