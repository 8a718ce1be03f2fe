/* wqe.c: encoding a work queue entry.
 *
 * For: turning one request (opcode, flags, SGEs, remote token and address)
 * into the 16 words the NIC fetches, every field placed by the generated
 * layout macros; an INLINE request into its WQE and INLINE_DATA slots.
 * Not for: where the WQE goes or when the NIC hears of it (post.c).
 */
#include <string.h>

#include "internal.h"
#include "gen/qpnic_hw.h"

void qpnic_wqe_encode(uint32_t *w, uint32_t opcode, uint32_t flags,
                      const ndk_sge *sgl, uint32_t nsge, uint32_t rtoken, uint64_t rva)
{
    memset(w, 0, QPNIC_WQE_BYTES);
    QPNIC_FIELD_SET(w, QPNIC_WQE_OPCODE, opcode);
    QPNIC_FIELD_SET(w, QPNIC_WQE_NSGE, nsge);
    QPNIC_FIELD_SET(w, QPNIC_WQE_FLAGS, flags); /* the low 16 bits travel */
    QPNIC_FIELD_SET(w, QPNIC_WQE_RTOKEN, rtoken);
    QPNIC_FIELD_SET(w, QPNIC_WQE_RVA_LO, (uint32_t)rva);
    QPNIC_FIELD_SET(w, QPNIC_WQE_RVA_HI, (uint32_t)(rva >> 32));
    for (uint32_t i = 0; i < nsge; i++) {
        uint32_t *s = w + QPNIC_WQE_SGE_WORD + QPNIC_SGE_WORDS * i;
        QPNIC_FIELD_SET(s, QPNIC_SGE_VA_LO, (uint32_t)sgl[i].addr);
        QPNIC_FIELD_SET(s, QPNIC_SGE_VA_HI, (uint32_t)(sgl[i].addr >> 32));
        QPNIC_FIELD_SET(s, QPNIC_SGE_LEN, sgl[i].length);
        QPNIC_FIELD_SET(s, QPNIC_SGE_TOKEN, sgl[i].token);
    }
}

uint32_t qpnic_wqe_encode_inline(uint32_t *w, uint32_t opcode, uint32_t flags, const ndk_sge *sgl,
                                 uint32_t nsge, uint32_t rtoken, uint64_t rva)
{
    uint8_t data[QPNIC_MAX_INLINE_BYTES];
    uint32_t len = 0;
    for (uint32_t i = 0; i < nsge; i++) { /* the caller checked the total */
        if (sgl[i].length)
            memcpy(data + len, (const void *)(uintptr_t)sgl[i].addr, sgl[i].length);
        len += sgl[i].length;
    }
    qpnic_wqe_encode(w, opcode, flags, NULL, 0, rtoken, rva);
    QPNIC_FIELD_SET(w, QPNIC_WQE_INLINE_INLINE_LEN, len);
    uint32_t head = len < QPNIC_INLINE_HEAD_BYTES ? len : QPNIC_INLINE_HEAD_BYTES;
    memcpy((uint8_t *)w + QPNIC_WQE_BYTES - QPNIC_INLINE_HEAD_BYTES, data, head);
    uint32_t slots = 1;
    for (uint32_t done = head; done < len; done += QPNIC_INLINE_SLOT_BYTES, slots++) {
        uint32_t *d = w + slots * QPNIC_WQE_WORDS;
        uint32_t n = len - done < QPNIC_INLINE_SLOT_BYTES ? len - done : QPNIC_INLINE_SLOT_BYTES;
        memset(d, 0, QPNIC_WQE_BYTES);
        QPNIC_FIELD_SET(d, QPNIC_WQE_OPCODE, QPNIC_WQE_OP_INLINE_DATA);
        memcpy((uint8_t *)d + QPNIC_WQE_BYTES - QPNIC_INLINE_SLOT_BYTES, data + done, n);
    }
    return slots;
}
