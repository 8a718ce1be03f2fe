/* link_nic.h: a NIC at the far end of the board link, and a faulty line.
 *
 * For: the board link's unit tests (test_link.c). lnic speaks the NIC's
 * side of docs/link.md over a file descriptor (a socket, a pseudo-terminal
 * master): RESET and RESET_DONE, a register file it applies writes to (and
 * logs them in order) and answers reads from, DMA writes and reads and
 * notifications the test asks it to send, go-back-N with a fixed timeout.
 * inj sits between two descriptors and corrupts, drops, duplicates and
 * truncates whole frames at a seeded rate.
 * Not for: checking the RTL's link (rtl/qpnic_link.v has its own bench).
 */
#ifndef QPNIC_TEST_LINK_NIC_H
#define QPNIC_TEST_LINK_NIC_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t version;     /* RESET_DONE's version (LINK_VERSION) */
    uint32_t rx_frames;   /* the window it announces (LINK_NIC_RX_FRAMES) */
    int lose_reset_done;  /* RESET_DONEs lost on the way before one arrives */
    int rto_ms;           /* its retransmission timeout */
    int lazy_ack;         /* 1: an ACK only once two frames are owed one, or 3 ms
                           * after the first: acks that cover several frames */
} lnic_cfg;

typedef struct {
    unsigned resets;        /* RESETs with a new nonce */
    unsigned reset_repeats; /* RESETs with the nonce already done */
    unsigned bad;           /* bodies dropped by the frame checks */
    unsigned out_of_seq;    /* well-formed frames with the wrong seq */
    unsigned applied;       /* host frames applied */
    char error[200];        /* the first protocol error the host made, else "" */
} lnic_stats;

typedef struct lnic lnic;

void lnic_cfg_default(lnic_cfg *cfg);
/* Serve fd (the NIC owns it from now on) on a thread of its own. */
lnic *lnic_start(int fd, const lnic_cfg *cfg);
/* Stop the thread, close fd, free. */
void lnic_stop(lnic *n);
/* Its register file, 0x10000 / 4 words by address / 4: preset it before
 * the host opens. */
uint32_t *lnic_regs(lnic *n);
/* Copy of the register writes applied so far, in order; returns their count. */
size_t lnic_log(lnic *n, uint32_t *addr, uint32_t *val, size_t max);
/* From now on it neither answers nor sends anything. */
void lnic_silence(lnic *n);
/* Send a DMA write / a notification (queued; sent as its window allows);
 * 0, or -1 when its queue stayed full for 10 s (the host takes nothing). */
int lnic_dma_write(lnic *n, uint64_t addr, const uint8_t *data, size_t len);
int lnic_notify(lnic *n, uint32_t word);
/* Ask the host for len bytes at addr and wait for them; 0, or -1 on timeout. */
int lnic_dma_read(lnic *n, uint64_t addr, size_t len, uint8_t *out, int timeout_ms);
/* Wait until the host acknowledged everything queued; 0, or -1 on timeout. */
int lnic_drain(lnic *n, int timeout_ms);
void lnic_get_stats(lnic *n, lnic_stats *out);

/* The faulty line: frames from a_fd go to b_fd and back; each frame is hit
 * with probability rate by one of: a flipped bit, dropped, sent twice, cut
 * short. Stop joins its threads and closes both descriptors. */
typedef struct inj inj;
inj *inj_start(int a_fd, int b_fd, double rate, uint64_t seed);
/* Frames hit so far (both ways). */
unsigned inj_hits(inj *x);
void inj_stop(inj *x);

#endif
