// shm.cpp: create and map the shared file; futex helpers (see shm.h).
#include "shm.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static_assert(sizeof(qpnic_shm_hdr) <= QPNIC_SHM_HDR_BYTES, "header overflows its page");
static_assert(sizeof(qpnic_atomic_u32) == 4 && sizeof(qpnic_atomic_u64) == 8,
              "atomics must have the layout of the C side");

static void fill_identity(qpnic_shm_hdr *h, uint64_t dma_bytes) {
    // ftruncate zero-filled the file: every atomic starts at 0, sim_state at
    // QPNIC_SIM_STARTING. Only the identity is written here.
    h->magic = QPNIC_SHM_MAGIC;
    h->version = QPNIC_SHM_VERSION;
    h->hdr_bytes = QPNIC_SHM_HDR_BYTES;
    h->dma_base = QPNIC_SHM_DMA_BASE;
    h->dma_bytes = dma_bytes;
    h->sim_pid = (uint32_t)getpid();
}

int shm_create(const char *path, uint64_t dma_bytes, SimShm *out, char *err, size_t err_len) {
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, err_len, "cannot create %s: %s%s", path, strerror(errno),
                 errno == EEXIST ? " (remove it, or pick another --shm path)" : "");
        return -1;
    }
    size_t bytes = (size_t)QPNIC_SHM_HDR_BYTES + (size_t)dma_bytes;
    if (ftruncate(fd, (off_t)bytes) != 0) {
        snprintf(err, err_len, "cannot size %s to %zu bytes: %s", path, bytes, strerror(errno));
        close(fd);
        unlink(path);
        return -1;
    }
    void *map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        snprintf(err, err_len, "cannot map %s: %s", path, strerror(errno));
        close(fd);
        unlink(path);
        return -1;
    }
    out->fd = fd;
    out->map = map;
    out->map_bytes = bytes;
    out->hdr = static_cast<qpnic_shm_hdr *>(map);
    out->dma = static_cast<uint8_t *>(map) + QPNIC_SHM_HDR_BYTES;
    out->dma_bytes = dma_bytes;
    fill_identity(out->hdr, dma_bytes);
    return 0;
}

void shm_close(SimShm *s) {
    if (s->map)
        munmap(s->map, s->map_bytes);
    if (s->fd >= 0)
        close(s->fd);
    *s = SimShm();
}

static uint32_t *futex_word(qpnic_atomic_u32 *word) {
    return reinterpret_cast<uint32_t *>(word);
}

void shm_futex_wake(qpnic_atomic_u32 *word) {
    syscall(SYS_futex, futex_word(word), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

void shm_futex_wait(qpnic_atomic_u32 *word, uint32_t expected, long timeout_ns) {
    struct timespec ts;
    ts.tv_sec = timeout_ns / 1000000000L;
    ts.tv_nsec = timeout_ns % 1000000000L;
    syscall(SYS_futex, futex_word(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}
