/* tests/fw/fw_check.h: the case harness of the firmware's host unit tests
 * (tests/fw/test_arm_policy.c, tests/fw/test_transport.c).
 *
 * For: CHECK (fail the running case with a message and leave its function),
 * RUN (one case: "PASS <name>", or its FAIL lines), and the counts main
 * prints as "N passed, M failed".
 * Not for: anything a test asserts; each test file keeps its own cases.
 */
#ifndef QPNIC_TESTS_FW_CHECK_H
#define QPNIC_TESTS_FW_CHECK_H

#include <stdbool.h>
#include <stdio.h>

static int n_passed, n_failed;
static bool case_failed;
static char case_name[128];

/* Fail the running case with a message and leave its function. */
#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            printf("FAIL %s: ", case_name);                                  \
            printf(__VA_ARGS__);                                             \
            printf(" (%s:%d: %s)\n", __FILE__, __LINE__, #cond);             \
            case_failed = true;                                              \
            return;                                                          \
        }                                                                    \
    } while (0)

static inline void case_begin(const char *name)
{
    snprintf(case_name, sizeof case_name, "%s", name);
    case_failed = false;
}

static inline void case_end(void)
{
    if (case_failed) {
        n_failed++;
    } else {
        n_passed++;
        printf("PASS %s\n", case_name);
    }
}

#define RUN(fn)             \
    do {                    \
        case_begin(#fn);    \
        fn();               \
        case_end();         \
    } while (0)

#endif
