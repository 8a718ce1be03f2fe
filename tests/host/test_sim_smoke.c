/* test_sim_smoke.c: the driver against the real co-simulated NIC: open a
 * private simulator, the MMIO path (SCRATCH), CAPS, counters, then one
 * loopback SEND/RECEIVE, WRITE and READ with a notification, and close.
 * Skipped (exit 0, "SKIP") when no simulator binary is there: the NIC's own
 * rules are tested end to end in tests/e2e. */
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_nic.h"
#include "qpnic/ndk_sim.h"
#include "shm_proto.h"

static const char *sim_path(void)
{
    const char *p = getenv("QPNIC_SIM");
    return p && *p ? p : QPNIC_DEFAULT_SIM;
}

static void mmio_scratch_and_caps(void)
{
    ndk_adapter *ad = NULL;
    CHECK_ST(ndk_open_adapter(NULL, &ad), NDK_STATUS_SUCCESS);
    if (!ad)
        return;
    for (uint32_t v = 1; v; v <<= 7) {
        uint32_t got = 0;
        CHECK_ST(qpnic_reg_write(ad, QPNIC_REG_SCRATCH, v ^ 0xA5A5A5A5u), NDK_STATUS_SUCCESS);
        CHECK_ST(qpnic_reg_read(ad, QPNIC_REG_SCRATCH, &got), NDK_STATUS_SUCCESS);
        CHECK(got == (v ^ 0xA5A5A5A5u), "SCRATCH wrote 0x%x read 0x%x", v ^ 0xA5A5A5A5u, got);
    }
    ndk_adapter_info info;
    CHECK_ST(ndk_query_adapter_info(ad, &info), NDK_STATUS_SUCCESS);
    CHECK(info.max_qp >= 2 && info.max_cq >= 2 && info.max_sge >= 1 && info.dma_bytes > 0,
          "info: qp %u cq %u sge %u dma %llu", info.max_qp, info.max_cq, info.max_sge,
          (unsigned long long)info.dma_bytes);
    ndk_counters c1, c2;
    CHECK_ST(ndk_query_counters(ad, &c1), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_query_counters(ad, &c2), NDK_STATUS_SUCCESS);
    CHECK(c2.cycles > c1.cycles, "cycles advance: %llu then %llu", (unsigned long long)c1.cycles,
          (unsigned long long)c2.cycles);
    CHECK(ndk_sim_cycles(ad) > 0, "simulator cycles");
    ndk_adapter *second = NULL;
    char uri[200];
    snprintf(uri, sizeof uri, "sim:/dev/shm/none-%d", (int)getpid());
    CHECK_ST(ndk_open_adapter(uri, &second), NDK_STATUS_IO_ERROR);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

typedef struct {
    atomic_int calls;
    atomic_int status;
} cb_rec;

static void on_cq(void *ctx, ndk_status st)
{
    cb_rec *r = ctx;
    atomic_store(&r->status, st);
    atomic_fetch_add(&r->calls, 1);
}

static uint32_t poll(ndk_cq *cq, ndk_result_ex *out, uint32_t n)
{
    uint32_t got = 0;
    for (int i = 0; i < 20000 && got < n; i++) {
        got += ndk_get_cq_results_ex(cq, out + got, n - got);
        if (got < n)
            usleep(200);
    }
    return got;
}

static void loopback_send_write_read(void)
{
    ndk_adapter *ad = NULL;
    CHECK_ST(ndk_open_adapter("sim", &ad), NDK_STATUS_SUCCESS);
    if (!ad)
        return;
    cb_rec rec = { 0, -1 };
    ndk_pd *pd;
    ndk_cq *cq;
    ndk_qp *a, *b;
    ndk_mr *mr;
    CHECK_ST(ndk_create_pd(ad, &pd), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_create_cq(ad, 16, on_cq, &rec, &cq), NDK_STATUS_SUCCESS);
    ndk_qp_attr at = { 8, 8, 2, 0 };
    CHECK_ST(ndk_create_qp(pd, cq, cq, (void *)0xA, &at, &a), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_create_qp(pd, cq, cq, (void *)0xB, &at, &b), NDK_STATUS_SUCCESS);
    uint8_t *buf = ndk_alloc_dma(ad, 4096);
    CHECK_ST(ndk_create_mr(pd, &mr), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_register_mr(mr, buf, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ |
                                                NDK_MR_FLAG_ALLOW_REMOTE_WRITE),
             NDK_STATUS_SUCCESS);
    uint32_t lk = ndk_mr_local_token(mr), rk = ndk_mr_remote_token(mr);
    uint64_t va = (uint64_t)(uintptr_t)buf;
    for (int i = 0; i < 256; i++)
        buf[i] = (uint8_t)(i * 7 + 1);

    ndk_sge rx = { va + 1024, 256, lk };
    CHECK_ST(ndk_receive(b, (void *)0x200, &rx, 1), NDK_STATUS_SUCCESS); /* V8: before connect */
    CHECK_ST(ndk_connect(a, ndk_qp_address(b)), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_connect(b, ndk_qp_address(a)), NDK_STATUS_SUCCESS);

    ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
    ndk_sge tx = { va, 100, lk };
    CHECK_ST(ndk_send(a, (void *)0x100, &tx, 1, 0), NDK_STATUS_SUCCESS);
    ndk_result_ex r[4];
    uint32_t n = poll(cq, r, 2);
    CHECK(n == 2, "SEND: 2 completions, got %u", n);
    for (uint32_t i = 0; i < n; i++) {
        CHECK(r[i].status == NDK_STATUS_SUCCESS, "completion %u: %s (type 0x%x)", i,
              ndk_status_str(r[i].status), r[i].type);
        if (r[i].type == NDK_OP_TYPE_RECEIVE)
            CHECK(r[i].request_context == (void *)0x200 && r[i].qp_context == (void *)0xB &&
                      r[i].bytes_transferred == 100,
                  "receive result: ctx %p qp %p bytes %u", r[i].request_context, r[i].qp_context,
                  r[i].bytes_transferred);
        else
            CHECK(r[i].type == NDK_OP_TYPE_SEND && r[i].request_context == (void *)0x100, "send result");
    }
    CHECK(memcmp(buf, buf + 1024, 100) == 0, "SEND payload landed in the receive buffer");
    CHECK_ST(ndk_wait_cq(cq, 5000), NDK_STATUS_SUCCESS);
    CHECK(atomic_load(&rec.calls) == 1, "one callback, got %d", atomic_load(&rec.calls));

    /* WRITE with a DEFER chain in front (D8), then READ it back */
    ndk_sge w1 = { va, 64, lk };
    CHECK_ST(ndk_write(a, (void *)1, &w1, 1, va + 2048, rk, NDK_OP_FLAG_DEFER), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_write(a, (void *)2, &w1, 1, va + 2112, rk, 0), NDK_STATUS_SUCCESS);
    ndk_sge rd = { va + 3072, 128, lk };
    CHECK_ST(ndk_read(a, (void *)3, &rd, 1, va + 2048, rk, 0), NDK_STATUS_SUCCESS);
    n = poll(cq, r, 3);
    CHECK(n == 3, "WRITE, WRITE, READ: 3 completions, got %u", n);
    for (uint32_t i = 0; i < n; i++)
        CHECK(r[i].status == NDK_STATUS_SUCCESS && r[i].request_context == (void *)(uintptr_t)(i + 1),
              "completion %u: %s ctx %p", i, ndk_status_str(r[i].status), r[i].request_context);
    CHECK(memcmp(buf + 2048, buf, 64) == 0 && memcmp(buf + 2112, buf, 64) == 0, "WRITE data");
    CHECK(memcmp(buf + 3072, buf + 2048, 128) == 0, "READ data");

    ndk_counters c;
    CHECK_ST(ndk_query_counters(ad, &c), NDK_STATUS_SUCCESS);
    CHECK(c.cqes_written == 5 && c.notifications == 1, "counters: cqes %llu notifications %llu",
          (unsigned long long)c.cqes_written, (unsigned long long)c.notifications);
    printf("counters: doorbells %llu wqes %llu fetch reads %llu dma rd %llu wr %llu cycles %llu\n",
           (unsigned long long)c.doorbells, (unsigned long long)c.wqes_fetched,
           (unsigned long long)c.wqe_fetch_reads, (unsigned long long)c.dma_read_bytes,
           (unsigned long long)c.dma_write_bytes, (unsigned long long)c.cycles);
    uint32_t viol = 1;
    uint64_t first = 0;
    CHECK_ST(ndk_sim_dma_violations(ad, &viol, &first), NDK_STATUS_SUCCESS);
    CHECK(viol == 0, "%u DMA violations, first at 0x%llx", viol, (unsigned long long)first);

    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_DEVICE_BUSY);
    CHECK_ST(ndk_disconnect(a), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_qp(a), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_qp(b), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_mr(mr), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_cq(cq), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_destroy_pd(pd), NDK_STATUS_SUCCESS);
    ndk_free_dma(ad, buf);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}


/* "sim:PATH": attach to a simulator someone else started; a second host
 * (another process, or this one again) is refused while the first lives. */
static void attach_to_serving_simulator(void)
{
    char path[128], uri[140];
    snprintf(path, sizeof path, "/dev/shm/qpnic-test-%d", (int)getpid());
    snprintf(uri, sizeof uri, "sim:%s", path);
    unlink(path);
    pid_t sim = fork();
    if (sim == 0) {
        execl(sim_path(), sim_path(), "--shm", path, "--quiet", (char *)NULL);
        _exit(127);
    }
    ndk_adapter *ad = NULL;
    for (int i = 0; i < 500 && access(path, F_OK) != 0; i++)
        usleep(10000);
    CHECK_ST(ndk_open_adapter(uri, &ad), NDK_STATUS_SUCCESS);
    if (ad) {
        uint32_t got = 0;
        CHECK_ST(qpnic_reg_write(ad, QPNIC_REG_SCRATCH, 0x5EEDu), NDK_STATUS_SUCCESS);
        CHECK_ST(qpnic_reg_read(ad, QPNIC_REG_SCRATCH, &got), NDK_STATUS_SUCCESS);
        CHECK(got == 0x5EEDu, "SCRATCH through an attached simulator: 0x%x", got);
        ndk_adapter *again = NULL;
        CHECK_ST(ndk_open_adapter(uri, &again), NDK_STATUS_DEVICE_BUSY);
        pid_t other = fork();
        if (other == 0) {
            ndk_adapter *x = NULL;
            _exit(ndk_open_adapter(uri, &x) == NDK_STATUS_DEVICE_BUSY ? 0 : 1);
        }
        int ws = 0;
        waitpid(other, &ws, 0);
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "another process was not refused (DEVICE_BUSY)");
        CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
        CHECK_ST(ndk_open_adapter(uri, &ad), NDK_STATUS_SUCCESS); /* free again after close */
        if (ad)
            CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
    }
    kill(sim, SIGTERM);
    waitpid(sim, NULL, 0);
    unlink(path);
}

/* The simulator dies: waits end with IO_ERROR, register access fails, and
 * the adapter still closes. */
static void simulator_death_is_io_error(void)
{
    ndk_adapter *ad = NULL;
    CHECK_ST(ndk_open_adapter(NULL, &ad), NDK_STATUS_SUCCESS);
    if (!ad)
        return;
    ndk_cq *cq;
    CHECK_ST(ndk_create_cq(ad, 4, NULL, NULL, &cq), NDK_STATUS_SUCCESS);
    ndk_arm_cq(cq, NDK_CQ_NOTIFY_ANY);
    pid_t sim = (pid_t)((qpnic_shm_hdr *)ad->t->sim_hdr)->sim_pid;
    kill(sim, SIGKILL);
    CHECK_ST(ndk_wait_cq(cq, 10000), NDK_STATUS_IO_ERROR);
    uint32_t v;
    CHECK_ST(qpnic_reg_read(ad, QPNIC_REG_SCRATCH, &v), NDK_STATUS_IO_ERROR);
    CHECK_ST(ndk_destroy_cq(cq), NDK_STATUS_SUCCESS);
    CHECK_ST(ndk_close_adapter(ad), NDK_STATUS_SUCCESS);
}

int main(void)
{
    struct stat sb;
    if (stat(sim_path(), &sb) != 0) {
        printf("SKIP test_sim_smoke: no simulator at %s\n", sim_path());
        return 0;
    }
    RUN(mmio_scratch_and_caps);
    RUN(loopback_send_write_read);
    RUN(attach_to_serving_simulator);
    RUN(simulator_death_is_io_error);
    TEST_MAIN_END();
}
