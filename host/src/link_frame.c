/* link_frame.c: the board link's frames as bytes (docs/link.md, "Frames").
 *
 * For: the CRC-32 of a body, byte stuffing into a frame and unstuffing out
 * of the line's bytes, and the checks a receiver makes of a body before it
 * looks at its seq (CRC, type, length). Pure functions of their arguments;
 * the fake NIC of the tests frames with them too.
 * Not for: sequence numbers, acknowledgements, retransmission (link.c) or
 * moving the bytes (link_pipe.c).
 */
#include <string.h>

#include "link.h"

/* The reflected IEEE polynomial (zlib's), a byte at a time through a table
 * built on first use. */
#define CRC_POLY 0xEDB88320u

static uint32_t crc_table_entry(uint32_t byte)
{
    uint32_t c = byte;
    for (int k = 0; k < 8; k++)
        c = (c & 1u) ? (c >> 1) ^ CRC_POLY : c >> 1;
    return c;
}

uint32_t qpnic_link_crc32(const uint8_t *buf, size_t len)
{
    /* Built once; a race only writes the same values twice. */
    static _Atomic int ready;
    static uint32_t table[256];
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++)
            table[i] = crc_table_entry(i);
        ready = 1;
    }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++)
        c = table[(c ^ buf[i]) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

uint32_t qpnic_link_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void qpnic_link_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static size_t put_stuffed(uint8_t *out, uint8_t b)
{
    if (b == QPNIC_LINK_FLAG || b == QPNIC_LINK_ESC) {
        out[0] = QPNIC_LINK_ESC;
        out[1] = (uint8_t)(b ^ QPNIC_LINK_ESC_XOR);
        return 2;
    }
    out[0] = b;
    return 1;
}

size_t qpnic_link_frame(uint8_t *body, size_t len, uint32_t ack, uint8_t *out)
{
    uint32_t h = qpnic_link_get32(body);
    QPNIC_FIELD_SET(&h, QPNIC_LINK_HDR_ACK, ack);
    qpnic_link_put32(body, h);
    qpnic_link_put32(body + len, qpnic_link_crc32(body, len));
    len += QPNIC_LINK_CRC_BYTES;
    size_t n = 0;
    out[n++] = QPNIC_LINK_FLAG;
    for (size_t i = 0; i < len; i++)
        n += put_stuffed(out + n, body[i]);
    out[n++] = QPNIC_LINK_FLAG;
    return n;
}

int qpnic_unframe(qpnic_unframer *u, uint8_t byte)
{
    if (u->done) { /* the body given back last time is consumed */
        u->len = 0;
        u->done = 0;
    }
    if (byte == QPNIC_LINK_FLAG) {
        int r = u->overflow ? -1 : u->len > 0;
        u->overflow = 0;
        u->esc = 0;
        u->done = 1;
        return r;
    }
    if (byte == QPNIC_LINK_ESC) {
        u->esc = 1;
        return 0;
    }
    if (u->esc) {
        byte ^= QPNIC_LINK_ESC_XOR;
        u->esc = 0;
    }
    if (u->len < sizeof u->body)
        u->body[u->len++] = byte;
    else
        u->overflow = 1;
    return 0;
}

int qpnic_link_sequenced(uint32_t type)
{
    return type != QPNIC_LINK_TYPE_ACK && type != QPNIC_LINK_TYPE_RESET &&
           type != QPNIC_LINK_TYPE_RESET_DONE && type <= QPNIC_LINK_TYPE_RESET_DONE;
}

size_t qpnic_link_body_size(uint32_t type, size_t data_len)
{
    size_t words;
    switch (type) {
    case QPNIC_LINK_TYPE_ACK:           words = QPNIC_LINK_HDR_WORDS; break;
    case QPNIC_LINK_TYPE_MMIO_WR:
    case QPNIC_LINK_TYPE_MMIO_RD_REPLY: words = QPNIC_LINK_MMIO_WORDS; break;
    case QPNIC_LINK_TYPE_MMIO_RD:       words = QPNIC_LINK_MMIO_ADDR_WORD + 1u; break;
    case QPNIC_LINK_TYPE_DMA_RD_REQ:    words = QPNIC_LINK_DMA_WORDS; break;
    case QPNIC_LINK_TYPE_DMA_RD_DATA:   words = QPNIC_LINK_HDR_WORDS; break;
    case QPNIC_LINK_TYPE_DMA_WR:        words = QPNIC_LINK_DMA_LEN_WORD; break; /* data from word 3 */
    case QPNIC_LINK_TYPE_NTF:           words = QPNIC_LINK_NTF_WORDS; break;
    case QPNIC_LINK_TYPE_RESET:         words = QPNIC_LINK_RESET_NONCE_WORD + 1u; break;
    case QPNIC_LINK_TYPE_RESET_DONE:    words = QPNIC_LINK_RESET_WORDS; break;
    default:                            return 0;
    }
    return 4u * words + data_len + QPNIC_LINK_CRC_BYTES;
}

/* Does this side receive the type? */
static int received_by(uint32_t type, int from_nic)
{
    switch (type) {
    case QPNIC_LINK_TYPE_ACK:
        return 1;
    case QPNIC_LINK_TYPE_MMIO_RD_REPLY:
    case QPNIC_LINK_TYPE_DMA_RD_REQ:
    case QPNIC_LINK_TYPE_DMA_WR:
    case QPNIC_LINK_TYPE_NTF:
    case QPNIC_LINK_TYPE_RESET_DONE:
        return from_nic;
    case QPNIC_LINK_TYPE_MMIO_WR:
    case QPNIC_LINK_TYPE_MMIO_RD:
    case QPNIC_LINK_TYPE_DMA_RD_DATA:
    case QPNIC_LINK_TYPE_RESET:
        return !from_nic;
    default:
        return 0;
    }
}

enum qpnic_link_check qpnic_link_check_body(const uint8_t *body, size_t len, int from_nic)
{
    if (len < QPNIC_LINK_MIN_BODY || len > QPNIC_LINK_MAX_BODY)
        return QPNIC_LINK_BAD_LEN;
    size_t n = len - QPNIC_LINK_CRC_BYTES;
    if (qpnic_link_crc32(body, n) != qpnic_link_get32(body + n))
        return QPNIC_LINK_BAD_CRC;
    uint32_t hdr = qpnic_link_get32(body);
    uint32_t type = QPNIC_FIELD_GET(&hdr, QPNIC_LINK_HDR_TYPE);
    if (!received_by(type, from_nic))
        return QPNIC_LINK_BAD_TYPE;
    if (type == QPNIC_LINK_TYPE_DMA_WR || type == QPNIC_LINK_TYPE_DMA_RD_DATA) {
        size_t min = qpnic_link_body_size(type, 1), max = qpnic_link_body_size(type, QPNIC_LINK_MAX_DATA);
        return len >= min && len <= max ? QPNIC_LINK_OK : QPNIC_LINK_BAD_LEN;
    }
    return len == qpnic_link_body_size(type, 0) ? QPNIC_LINK_OK : QPNIC_LINK_BAD_LEN;
}
