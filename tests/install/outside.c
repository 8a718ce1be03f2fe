/* outside.c: a program written against the installed libqpnic only.
 * Built by tests/install/test_install.sh with `pkg-config --cflags --libs
 * qpnic` from outside the repository: opens the default (simulated) adapter,
 * moves 4 KiB with a WRITE, and checks it. */
#include <qpnic/ndk.h>

#include <stdio.h>
#include <string.h>

#define TRY(x) do { ndk_status s_ = (x); if (s_) { printf("%s: %s\n", #x, ndk_status_str(s_)); return 1; } } while (0)

int main(void)
{
    ndk_adapter *ad;
    ndk_pd *pd;
    ndk_cq *cq;
    ndk_qp *a, *b;
    ndk_mr *mr;
    TRY(ndk_open_adapter(NULL, &ad));
    TRY(ndk_create_pd(ad, &pd));
    TRY(ndk_create_cq(ad, 16, NULL, NULL, &cq));
    ndk_qp_attr attr = {.sq_depth = 8, .rq_depth = 8, .max_sge = 1, .max_inline = 0};
    TRY(ndk_create_qp(pd, cq, cq, NULL, &attr, &a));
    attr = (ndk_qp_attr){.sq_depth = 8, .rq_depth = 8, .max_sge = 1, .max_inline = 0};
    TRY(ndk_create_qp(pd, cq, cq, NULL, &attr, &b));
    TRY(ndk_connect(a, ndk_qp_address(b)));
    TRY(ndk_connect(b, ndk_qp_address(a)));
    unsigned char *buf = ndk_alloc_dma(ad, 8192);
    if (!buf) return 1;
    for (int i = 0; i < 4096; i++) buf[i] = (unsigned char)(i * 13);
    memset(buf + 4096, 0, 4096);
    TRY(ndk_create_mr(pd, &mr));
    TRY(ndk_register_mr(mr, buf, 8192, NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_WRITE));
    ndk_sge s = {(uint64_t)(uintptr_t)buf, 4096, ndk_mr_local_token(mr)};
    TRY(ndk_write(a, NULL, &s, 1, (uint64_t)(uintptr_t)(buf + 4096), ndk_mr_remote_token(mr), 0));
    ndk_result r;
    unsigned got = 0;
    for (long t = 0; t < 50000000 && !got; t++)
        got = ndk_get_cq_results(cq, &r, 1);
    if (!got || r.status != NDK_STATUS_SUCCESS || memcmp(buf, buf + 4096, 4096) != 0) {
        printf("outside: the write did not arrive intact\n");
        return 1;
    }
    TRY(ndk_destroy_qp(a));
    TRY(ndk_destroy_qp(b));
    TRY(ndk_destroy_mr(mr));
    TRY(ndk_destroy_cq(cq));
    TRY(ndk_destroy_pd(pd));
    ndk_free_dma(ad, buf);
    TRY(ndk_close_adapter(ad));
    printf("outside: 4096 bytes written through the installed libqpnic\n");
    return 0;
}
