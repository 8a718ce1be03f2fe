/* test_status.c: every status code is named, distinctly (API.md "Status codes"). */
#include <string.h>

#include "fake_nic.h"

static const ndk_status all[] = {
    NDK_STATUS_SUCCESS, NDK_STATUS_INVALID_PARAMETER, NDK_STATUS_INSUFFICIENT_RESOURCES,
    NDK_STATUS_INVALID_DEVICE_STATE, NDK_STATUS_ACCESS_VIOLATION, NDK_STATUS_REMOTE_ACCESS_ERROR,
    NDK_STATUS_INVALID_TOKEN, NDK_STATUS_BUFFER_OVERFLOW, NDK_STATUS_CANCELLED,
    NDK_STATUS_DEVICE_BUSY, NDK_STATUS_RECEIVER_NOT_READY, NDK_STATUS_INTERNAL_ERROR,
    NDK_STATUS_IO_ERROR, NDK_STATUS_TIMEOUT, NDK_STATUS_REMOTE_OPERATION_ERROR,
};
#define N_ALL (sizeof all / sizeof all[0])

static void status_success_is_zero(void)
{
    CHECK(NDK_STATUS_SUCCESS == 0, "SUCCESS is %d", (int)NDK_STATUS_SUCCESS);
    CHECK(strcmp(ndk_status_str(NDK_STATUS_SUCCESS), "NDK_STATUS_SUCCESS") == 0,
          "name of SUCCESS is %s", ndk_status_str(NDK_STATUS_SUCCESS));
}

static void status_values_and_names_distinct(void)
{
    for (size_t i = 0; i < N_ALL; i++) {
        const char *a = ndk_status_str(all[i]);
        CHECK(a && strncmp(a, "NDK_STATUS_", 11) == 0 && !strstr(a, "unknown"),
              "status %d has name %s", (int)all[i], a ? a : "(null)");
        for (size_t j = i + 1; j < N_ALL; j++) {
            CHECK(all[i] != all[j], "statuses %zu and %zu share value %d", i, j, (int)all[i]);
            CHECK(strcmp(a, ndk_status_str(all[j])) != 0, "two statuses named %s", a);
        }
    }
}

static void status_unknown_named_unknown(void)
{
    const char *s = ndk_status_str(9999);
    CHECK(s && strstr(s, "unknown"), "9999 named %s", s ? s : "(null)");
    s = ndk_status_str(-1);
    CHECK(s && strstr(s, "unknown"), "-1 named %s", s ? s : "(null)");
}

static void cqe_status_mapping(void)
{
    struct { uint32_t cqe; ndk_status want; } map[] = {
        { QPNIC_CQE_STATUS_SUCCESS, NDK_STATUS_SUCCESS },
        { QPNIC_CQE_STATUS_LOC_LEN, NDK_STATUS_BUFFER_OVERFLOW },
        { QPNIC_CQE_STATUS_LOC_PROT, NDK_STATUS_ACCESS_VIOLATION },
        { QPNIC_CQE_STATUS_REM_ACCESS, NDK_STATUS_REMOTE_ACCESS_ERROR },
        { QPNIC_CQE_STATUS_RNR, NDK_STATUS_RECEIVER_NOT_READY },
        { QPNIC_CQE_STATUS_FLUSHED, NDK_STATUS_CANCELLED },
        { QPNIC_CQE_STATUS_BAD_WQE, NDK_STATUS_INVALID_PARAMETER },
        { QPNIC_CQE_STATUS_REM_OP, NDK_STATUS_REMOTE_OPERATION_ERROR },
        { QPNIC_CQE_STATUS_BAD_QP, NDK_STATUS_INVALID_DEVICE_STATE },
        { QPNIC_CQE_STATUS_BAD_TOKEN, NDK_STATUS_INVALID_TOKEN },
        { QPNIC_CQE_STATUS_RETRY_EXC, NDK_STATUS_TIMEOUT },
        { 0xEE, NDK_STATUS_INTERNAL_ERROR },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        CHECK(qpnic_cqe_status(map[i].cqe) == map[i].want, "CQE status 0x%x maps to %s, want %s",
              map[i].cqe, ndk_status_str(qpnic_cqe_status(map[i].cqe)), ndk_status_str(map[i].want));
    CHECK(qpnic_ntf_status(QPNIC_NTF_STATUS_SUCCESS) == NDK_STATUS_SUCCESS, "ntf SUCCESS");
    CHECK(qpnic_ntf_status(QPNIC_NTF_STATUS_OVERFLOW) == NDK_STATUS_BUFFER_OVERFLOW, "ntf OVERFLOW (N8)");
    CHECK(qpnic_ntf_status(QPNIC_NTF_STATUS_INTERNAL) == NDK_STATUS_INTERNAL_ERROR, "ntf INTERNAL");
}

int main(void)
{
    RUN(status_success_is_zero);
    RUN(status_values_and_names_distinct);
    RUN(status_unknown_named_unknown);
    RUN(cqe_status_mapping);
    TEST_MAIN_END();
}
