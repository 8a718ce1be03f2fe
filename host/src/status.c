/* status.c: names of the status codes, for humans (ndk_status_str).
 *
 * For: turning an ndk_status into its name. Not for: mapping the NIC's
 * completion codes to statuses (cq.c does that).
 */
#include "qpnic/ndk.h"

#define NAME(s) [NDK_STATUS_##s] = "NDK_STATUS_" #s

static const char *const names[] = {
    NAME(SUCCESS),
    NAME(INVALID_PARAMETER),
    NAME(INSUFFICIENT_RESOURCES),
    NAME(INVALID_DEVICE_STATE),
    NAME(ACCESS_VIOLATION),
    NAME(REMOTE_ACCESS_ERROR),
    NAME(INVALID_TOKEN),
    NAME(BUFFER_OVERFLOW),
    NAME(CANCELLED),
    NAME(DEVICE_BUSY),
    NAME(RECEIVER_NOT_READY),
    NAME(INTERNAL_ERROR),
    NAME(IO_ERROR),
    NAME(TIMEOUT),
    NAME(REMOTE_OPERATION_ERROR),
};

const char *ndk_status_str(ndk_status status)
{
    if (status < 0 || (unsigned)status >= sizeof names / sizeof names[0] || !names[status])
        return "NDK_STATUS_<unknown>";
    return names[status];
}
