/* link.h: the host's side of the board link (docs/link.md), inside the library.
 *
 * For: the calls between the three files of the link: link_frame.c (CRC,
 * byte stuffing, the checks of a frame body), link.c (the transport: the
 * go-back-N sender and receiver, the receive thread, the RESET handshake,
 * DMA served from the library's memory) and link_pipe.c (what carries the
 * bytes: a serial device, an FTDI bridge through libftdi1, or a file
 * descriptor the tests hold the other end of). The unit tests use the
 * framing calls for their fake NIC, and the counters to see what the link
 * dropped.
 * Not for: the numbers of the protocol (spec/layout.toml, generated into
 * gen/qpnic_hw.h) or the registers behind the link (adapter.c).
 */
#ifndef QPNIC_LINK_H
#define QPNIC_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "gen/qpnic_hw.h"
#include "transport.h"

/* ---- link_frame.c: bodies and their bytes on the line ---- */

#define QPNIC_LINK_HDR_BYTES 4u
#define QPNIC_LINK_CRC_BYTES 4u
/* The shortest body (an ACK) and the longest (a DMA_WR of LINK_MAX_DATA). */
#define QPNIC_LINK_MIN_BODY (QPNIC_LINK_HDR_BYTES + QPNIC_LINK_CRC_BYTES)
#define QPNIC_LINK_MAX_BODY (4u * (QPNIC_LINK_DMA_WORDS - 1u) + QPNIC_LINK_MAX_DATA + QPNIC_LINK_CRC_BYTES)
/* A whole frame on the line: two flags, every body byte stuffed. */
#define QPNIC_LINK_MAX_FRAME (2u * QPNIC_LINK_MAX_BODY + 2u)

/* CRC-32 of IEEE 802.3 and zlib over buf[0..len). */
uint32_t qpnic_link_crc32(const uint8_t *buf, size_t len);

/* Little-endian words of a body. */
uint32_t qpnic_link_get32(const uint8_t *p);
void qpnic_link_put32(uint8_t *p, uint32_t v);

/* Put ack (the seq the sender expects next: every frame carries the one of
 * the moment it is sent) into body's header, append the CRC to body[0..len)
 * (body has room for 4 more bytes) and write the frame, FLAG stuffed-body
 * FLAG, to out (QPNIC_LINK_MAX_FRAME bytes). Returns the frame's length. */
size_t qpnic_link_frame(uint8_t *body, size_t len, uint32_t ack, uint8_t *out);

/* Takes line bytes one at a time and gives back whole bodies (still with
 * their CRC). */
typedef struct {
    uint8_t body[QPNIC_LINK_MAX_BODY];
    size_t len;
    int esc;       /* the last byte was LINK_ESC */
    int overflow;  /* longer than any body: dropped at the next flag */
    int done;      /* a flag came: the next byte starts a new body */
} qpnic_unframer;

/* 1 when byte closed a non-empty body (u->body, u->len until the next
 * call), -1 when it closed one too long to keep, else 0. */
int qpnic_unframe(qpnic_unframer *u, uint8_t byte);

/* Which NIC sends a type, and how long its bodies are. */
enum qpnic_link_check {
    QPNIC_LINK_OK = 0,
    QPNIC_LINK_BAD_LEN,   /* shorter than 8, longer than its type allows, or not its size */
    QPNIC_LINK_BAD_CRC,
    QPNIC_LINK_BAD_TYPE,  /* unknown, or not one this side receives */
};
/* Check a received body: its CRC, its type against the types the receiver
 * takes (from_nic: the host receives; else the NIC receives), its length
 * against the type. The length of DMA_RD_DATA is checked against its
 * request by the receiver. */
enum qpnic_link_check qpnic_link_check_body(const uint8_t *body, size_t len, int from_nic);

/* Is a type sequenced (counted by seq, delivered once and in order)? */
int qpnic_link_sequenced(uint32_t type);
/* Bytes of a body of that type with data_len data bytes (DMA_WR and
 * DMA_RD_DATA; else 0), CRC included; 0 for an unknown type. */
size_t qpnic_link_body_size(uint32_t type, size_t data_len);

/* ---- link_pipe.c: what carries the bytes ---- */

typedef struct qpnic_pipe qpnic_pipe;
struct qpnic_pipe {
    /* Up to max bytes into buf, waiting at most timeout_ms for the first.
     * Returns the count (0: none came), -1 when the device failed. */
    int (*read)(qpnic_pipe *p, uint8_t *buf, size_t max, int timeout_ms);
    /* All of buf; 0, or -1 when the device failed. */
    int (*write)(qpnic_pipe *p, const uint8_t *buf, size_t len);
    void (*close)(qpnic_pipe *p);
    char name[96];  /* the device, for messages */
};

/* Open a serial device raw 8N1 without flow control at $QPNIC_LINK_BAUD
 * (default 3000000). On failure prints one line naming the device
 * and the reason, returns IO_ERROR. */
ndk_status qpnic_pipe_tty_open(const char *dev, qpnic_pipe **out);
/* Open an FTDI bridge: spec "" (0403:6015) or "VID:PID[:SERIAL]" in hex.
 * Same failures as the tty. */
ndk_status qpnic_pipe_usb_open(const char *spec, qpnic_pipe **out);
/* A pipe over an open file descriptor (a socket or a terminal); closing the
 * pipe closes fd. For the tests. */
ndk_status qpnic_pipe_fd_open(int fd, const char *name, qpnic_pipe **out);

/* ---- link.c: the transport ---- */

/* Run the RESET handshake over pipe (which the transport owns from now on,
 * success or not) and return a transport over it. node: ndk_qp_addr.node of
 * this NIC. IO_ERROR when no RESET_DONE came within the link timeout,
 * INTERNAL_ERROR when the NIC speaks a version this library does not know. */
ndk_status qpnic_link_transport_open(qpnic_pipe *pipe, uint64_t node, qpnic_transport **out);

/* What a link transport dropped or resent, for tests and diagnostics. */
typedef struct {
    uint64_t frames_in, frames_out;   /* well-formed bodies received, frames sent */
    uint64_t bad_crc, bad_len, bad_type, duplicates, gaps;
    uint64_t retransmits;             /* frames sent again after a timeout */
    uint64_t dma_violations;          /* DMA outside the registered ranges */
    uint32_t rto_ms;                  /* the retransmission timeout now */
    uint32_t window;                  /* the NIC's rx_frames */
} qpnic_link_counts;

void qpnic_link_get_counts(qpnic_transport *t, qpnic_link_counts *out);

#endif
