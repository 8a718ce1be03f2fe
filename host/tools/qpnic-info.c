/* qpnic-info: what an adapter is, what it offers, and what it has counted.
 *
 *   qpnic-info [URI]     URI as for ndk_open_adapter (default: $QPNIC_URI,
 *                        else a private sim; "tty:/dev/ttyUSB0", "usb", ...
 *                        for a board)
 *
 * For: checking that a NIC answers on a backend (a board's link, a
 * simulator), reading its limits (CAPS registers) and its hardware
 * counters. Opening an adapter resets a board's NIC (docs/link.md), so the
 * counters are those since this open: what the open itself cost.
 * Exit status 0 when the adapter opened and answered, 1 otherwise.
 */
#include <qpnic/ndk.h>
#include <qpnic/ndk_sim.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: qpnic-info [URI]\n");
        return 1;
    }
    const char *uri = argc > 1 ? argv[1] : getenv("QPNIC_URI");
    ndk_adapter *ad;
    ndk_status st = ndk_open_adapter(uri, &ad);
    if (st != NDK_STATUS_SUCCESS) {
        fprintf(stderr, "qpnic-info: cannot open %s: %s\n", uri ? uri : "a private sim", ndk_status_str(st));
        return 1;
    }
    ndk_adapter_info in;
    ndk_counters c;
    st = ndk_query_adapter_info(ad, &in);
    if (st == NDK_STATUS_SUCCESS)
        st = ndk_query_counters(ad, &c);
    if (st != NDK_STATUS_SUCCESS) {
        fprintf(stderr, "qpnic-info: %s: %s\n", uri ? uri : "sim", ndk_status_str(st));
        ndk_close_adapter(ad);
        return 1;
    }
    printf("adapter    %s\n", uri ? uri : "sim (a private co-simulated NIC)");
    printf("identity   qpnic, register layout %u.%u\n", in.layout_version >> 8, in.layout_version & 0xFF);
    printf("limits     %u QPs, %u CQs, %u memory regions, %u fast-registered pages\n", in.max_qp, in.max_cq,
           in.max_mr, in.max_fr_pages);
    printf("           QP depth %u, CQ depth %u, %u SGEs, %u inline bytes, %u WQEs per fetch\n", in.max_qp_depth,
           in.max_cq_depth, in.max_sge, in.max_inline, in.fetch_burst_wqes);
    printf("           %llu bytes of DMA memory, messages up to %llu bytes\n", (unsigned long long)in.dma_bytes,
           (unsigned long long)in.max_message_bytes);
    printf("counters   %llu cycles, %llu doorbells, %llu WQEs fetched in %llu reads\n",
           (unsigned long long)c.cycles, (unsigned long long)c.doorbells, (unsigned long long)c.wqes_fetched,
           (unsigned long long)c.wqe_fetch_reads);
    printf("           DMA %llu bytes read, %llu written; %llu CQEs, %llu notifications\n",
           (unsigned long long)c.dma_read_bytes, (unsigned long long)c.dma_write_bytes,
           (unsigned long long)c.cqes_written, (unsigned long long)c.notifications);
    printf("           %llu packets dropped, %llu RNR retries, %llu NAKs taken\n",
           (unsigned long long)c.packets_dropped, (unsigned long long)c.rnr_retries,
           (unsigned long long)c.naks);
    printf("wire       %llu frames sent, %llu received; dropped: %llu (address, header), %llu (ICRC); "
           "%llu duplicates, %llu retransmissions; %llu payload bytes sent\n",
           (unsigned long long)c.frames_sent, (unsigned long long)c.frames_received,
           (unsigned long long)c.frames_dropped, (unsigned long long)c.icrc_errors,
           (unsigned long long)c.duplicates, (unsigned long long)c.retransmits,
           (unsigned long long)c.wire_payload_bytes);
    printf("host       %llu register writes by this library since the open\n",
           (unsigned long long)ndk_sim_mmio_writes(ad));
    ndk_close_adapter(ad);
    return 0;
}
