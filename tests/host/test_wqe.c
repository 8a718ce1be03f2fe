/* test_wqe.c: a request becomes the WQE the layout describes. */
#include <string.h>

#include "fake_nic.h"

static void wqe_write_fields(void)
{
    uint32_t w[QPNIC_WQE_WORDS];
    memset(w, 0xFF, sizeof w);
    ndk_sge sgl[3] = {
        { 0x1122334455667788ull, 100, 0xAABB0001u },
        { 0x0000000012345678ull, 0, 0x00000102u },
        { 0xFFFFFFFF00000000ull, 0xFFFFFFFFu, 0x7u },
    };
    qpnic_wqe_encode(w, QPNIC_WQE_OP_WRITE, NDK_OP_FLAG_DEFER | NDK_OP_FLAG_READ_FENCE | 0x10000u,
                     sgl, 3, 0xCAFE0105u, 0x0123456789ABCDEFull);
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_OPCODE) == QPNIC_WQE_OP_WRITE, "opcode");
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_NSGE) == 3, "nsge %u", QPNIC_FIELD_GET(w, QPNIC_WQE_NSGE));
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_FLAGS) == (NDK_OP_FLAG_DEFER | NDK_OP_FLAG_READ_FENCE),
          "flags carry the low 16 bits only: 0x%x", QPNIC_FIELD_GET(w, QPNIC_WQE_FLAGS));
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_RTOKEN) == 0xCAFE0105u, "rtoken");
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_RVA_LO) == 0x89ABCDEFu, "rva lo");
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_RVA_HI) == 0x01234567u, "rva hi");
    for (int i = 0; i < 3; i++) {
        const uint32_t *s = w + QPNIC_WQE_SGE_WORD + QPNIC_SGE_WORDS * i;
        uint64_t va = ((uint64_t)QPNIC_FIELD_GET(s, QPNIC_SGE_VA_HI) << 32) | QPNIC_FIELD_GET(s, QPNIC_SGE_VA_LO);
        CHECK(va == sgl[i].addr, "sge %d va", i);
        CHECK(QPNIC_FIELD_GET(s, QPNIC_SGE_LEN) == sgl[i].length, "sge %d len", i);
        CHECK(QPNIC_FIELD_GET(s, QPNIC_SGE_TOKEN) == sgl[i].token, "sge %d token", i);
    }
}

static void wqe_unused_words_zero(void)
{
    uint32_t w[QPNIC_WQE_WORDS];
    memset(w, 0xFF, sizeof w);
    ndk_sge one = { 0x1000, 8, 0x101 };
    qpnic_wqe_encode(w, QPNIC_WQE_OP_SEND, 0, &one, 1, 0, 0);
    for (unsigned i = QPNIC_WQE_SGE_WORD + QPNIC_SGE_WORDS; i < QPNIC_WQE_WORDS; i++)
        CHECK(w[i] == 0, "word %u beyond the SGEs is 0x%x", i, w[i]);
    CHECK(QPNIC_FIELD_GET(w, QPNIC_WQE_RTOKEN) == 0 && w[QPNIC_WQE_RVA_HI_WORD] == 0,
          "a SEND carries no remote token or address");
}

int main(void)
{
    RUN(wqe_write_fields);
    RUN(wqe_unused_words_zero);
    TEST_MAIN_END();
}
