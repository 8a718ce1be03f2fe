// tests/fw/tb_fw_on_core.v: the firmware image on PicoRV32, under Icarus.
//
// For: showing that the built image ($readmemh file given as +fw_hex=PATH)
// boots on the core as qpnic configures it (rv32i, no counters, no
// compressed ISA, no IRQs), pops events and writes the registers the way
// docs/internals.md ("Firmware and its hardware") says: an ARM is judged by
// the PI it carries, not by CQ_PI as the firmware reads it later; a CQE
// event by the index it carries; a fired arm -> ARMED_CLR + NOTIFY; OVERRUN
// -> NOTIFY OVERFLOW. The firmware registers are a behavioural model here,
// not the RTL's qpnic_fw_if: an event queue, a notification log, per-CQ
// PI/CI/marks set by the test, and the armed bits as the hardware keeps
// them (an ARM event entering the queue sets its CQ's bit; ARMED_CLR is
// ignored while an ARM of that CQ is still queued). write_cqe models the
// CQE writer: PI + 1, marks, and a CQE event carrying the index only if the
// CQ is armed. The race case: two ARMs queued before the CQE that satisfies
// them, CQ_PI already showing that CQE, must give one notification.
// Not for: the policy's corner cases (tests/fw/test_arm_policy.c) or the RTL.
//
// Prints "PASS <name>" per case, "FAIL <name>: <what>" on a failure, and
// "N passed, M failed" at the end; fw/fw.mk fails the target unless the
// closing line says 0 failed.
`timescale 1ns / 1ps
`default_nettype none
`include "qpnic_layout.vh"

module tb_fw_on_core;
    localparam FW_WORDS = `QPNIC_FW_RAM_WORDS;  // the core's RAM in words (layout FW_RAM_WORDS)
    localparam NUM_CQ = 8;             // what the NUM_CQ register reports
    localparam SETTLE_CYCLES = 3000;   // cycles the firmware gets to handle an event
    localparam MAX_CYCLES = 2000000;   // watchdog

    reg clk = 1'b0;
    reg resetn = 1'b0;
    always #5 clk = ~clk;

    // --- the core -------------------------------------------------------
    wire        mem_valid, mem_instr, trap;
    reg         mem_ready = 1'b0;
    wire [31:0] mem_addr, mem_wdata;
    wire [3:0]  mem_wstrb;
    reg  [31:0] mem_rdata = 32'd0;
    wire        mem_la_read, mem_la_write;
    wire [31:0] mem_la_addr, mem_la_wdata;
    wire [3:0]  mem_la_wstrb;
    wire        pcpi_valid;
    wire [31:0] pcpi_insn, pcpi_rs1, pcpi_rs2, eoi;
    wire        trace_valid;
    wire [35:0] trace_data;

    picorv32 #(
        .ENABLE_COUNTERS(0), .ENABLE_COUNTERS64(0), .COMPRESSED_ISA(0),
        .ENABLE_MUL(0), .ENABLE_DIV(0), .ENABLE_IRQ(0), .CATCH_ILLINSN(1),
        .CATCH_MISALIGN(1), .PROGADDR_RESET(32'h0)
    ) core (
        .clk(clk), .resetn(resetn), .trap(trap),
        .mem_valid(mem_valid), .mem_instr(mem_instr), .mem_ready(mem_ready),
        .mem_addr(mem_addr), .mem_wdata(mem_wdata), .mem_wstrb(mem_wstrb),
        .mem_rdata(mem_rdata),
        .mem_la_read(mem_la_read), .mem_la_write(mem_la_write),
        .mem_la_addr(mem_la_addr), .mem_la_wdata(mem_la_wdata), .mem_la_wstrb(mem_la_wstrb),
        .pcpi_valid(pcpi_valid), .pcpi_insn(pcpi_insn), .pcpi_rs1(pcpi_rs1),
        .pcpi_rs2(pcpi_rs2), .pcpi_wr(1'b0), .pcpi_rd(32'd0), .pcpi_wait(1'b0),
        .pcpi_ready(1'b0), .irq(32'd0), .eoi(eoi),
        .trace_valid(trace_valid), .trace_data(trace_data)
    );

    // --- RAM and the firmware-register model ----------------------------
    reg [31:0] ram [0:FW_WORDS-1];
    reg [31:0] evq [0:15];             // events waiting for EVT_POP
    reg [4:0]  evq_head = 5'd0, evq_tail = 5'd0;
    reg [31:0] ntf_log [0:63];         // NOTIFY writes, in order
    integer    ntf_count = 0;
    reg [7:0]  cq_sel = 8'd0;
    reg [15:0] cq_pi [0:NUM_CQ-1];
    reg [15:0] cq_ci [0:NUM_CQ-1];
    reg [31:0] cq_err [0:NUM_CQ-1];    // struct cq_mark
    reg [31:0] cq_sol [0:NUM_CQ-1];
    reg [NUM_CQ-1:0] armed = {NUM_CQ{1'b0}};
    integer    arms_queued [0:NUM_CQ-1];   // ARM events pushed, not yet popped
    integer    clr_ignored = 0;            // ARMED_CLRs ignored for a queued ARM
    reg        fw_ready = 1'b0;
    reg        bus_error = 1'b0;
    reg [31:0] bus_error_addr = 32'd0;
    integer    cycles = 0;

    wire       io_hit = mem_addr[31:8] == (`QPNIC_FW_IO_BASE >> 8);
    wire [7:0] io_off = mem_addr[7:0];

    always @(posedge clk) begin
        cycles <= cycles + 1;
        mem_ready <= 1'b0;
        if (resetn && mem_valid && !mem_ready) begin
            mem_ready <= 1'b1;
            mem_rdata <= 32'd0;
            if (mem_addr < FW_WORDS * 4) begin
                mem_rdata <= ram[mem_addr[31:2]];
                if (mem_wstrb[0]) ram[mem_addr[31:2]][7:0] <= mem_wdata[7:0];
                if (mem_wstrb[1]) ram[mem_addr[31:2]][15:8] <= mem_wdata[15:8];
                if (mem_wstrb[2]) ram[mem_addr[31:2]][23:16] <= mem_wdata[23:16];
                if (mem_wstrb[3]) ram[mem_addr[31:2]][31:24] <= mem_wdata[31:24];
            end else if (io_hit && mem_wstrb != 4'd0) begin
                case (io_off)
                    `QPNIC_FWREG_NOTIFY: begin
                        ntf_log[ntf_count[5:0]] <= mem_wdata;
                        ntf_count <= ntf_count + 1;
                    end
                    `QPNIC_FWREG_CQ_SEL:    cq_sel <= mem_wdata[7:0];
                    `QPNIC_FWREG_ARMED_CLR:
                        if (mem_wdata < NUM_CQ) begin
                            if (arms_queued[mem_wdata[2:0]] == 0)
                                armed[mem_wdata[2:0]] <= 1'b0;
                            else
                                clr_ignored <= clr_ignored + 1;
                        end
                    `QPNIC_FWREG_FW_READY:  fw_ready <= mem_wdata[0];
                    default: begin bus_error <= 1'b1; bus_error_addr <= mem_addr; end
                endcase
            end else if (io_hit) begin
                case (io_off)
                    `QPNIC_FWREG_EVT_POP:
                        if (evq_head != evq_tail) begin
                            mem_rdata <= evq[evq_head[3:0]];
                            evq_head <= evq_head + 5'd1;
                            if (evq[evq_head[3:0]][`QPNIC_EVENT_TYPE] == `QPNIC_EVT_TYPE_ARM)
                                arms_queued[evq[evq_head[3:0]][`QPNIC_EVENT_CQN]] <=
                                    arms_queued[evq[evq_head[3:0]][`QPNIC_EVENT_CQN]] - 1;
                        end
                    `QPNIC_FWREG_CQ_SEL:      mem_rdata <= {24'd0, cq_sel};
                    `QPNIC_FWREG_CQ_PI:       mem_rdata <= {16'd0, cq_pi[cq_sel[2:0]]};
                    `QPNIC_FWREG_CQ_CI:       mem_rdata <= {16'd0, cq_ci[cq_sel[2:0]]};
                    `QPNIC_FWREG_CQ_LAST_ERR: mem_rdata <= cq_err[cq_sel[2:0]];
                    `QPNIC_FWREG_CQ_LAST_SOL: mem_rdata <= cq_sol[cq_sel[2:0]];
                    `QPNIC_FWREG_CYCLES:      mem_rdata <= cycles;
                    `QPNIC_FWREG_NUM_CQ:      mem_rdata <= NUM_CQ;
                    default: begin bus_error <= 1'b1; bus_error_addr <= mem_addr; end
                endcase
            end else begin
                bus_error <= 1'b1;
                bus_error_addr <= mem_addr;
            end
        end
    end

    // --- the test ---------------------------------------------------------
    integer passed = 0, failed = 0;
    reg [8*64-1:0] case_name;
    reg case_ok;
    reg [1023:0] fw_hex;
    integer i;

    task fail;
        input [8*80-1:0] what;
        begin
            if (case_ok) $display("FAIL %0s: %0s", case_name, what);
            case_ok = 1'b0;
        end
    endtask

    task begin_case;
        input [8*64-1:0] name;
        begin
            case_name = name;
            case_ok = 1'b1;
        end
    endtask

    task end_case;
        begin
            if (case_ok) begin
                passed = passed + 1;
                $display("PASS %0s", case_name);
            end else begin
                failed = failed + 1;
            end
        end
    endtask

    function [31:0] ev_word;
        input [3:0] typ;
        input [7:0] cqn;
        input       err;
        input       sol;
        input [1:0] trig;
        input [15:0] index;
        begin
            ev_word = 32'd0;
            ev_word[`QPNIC_EVENT_VALID] = 1'b1;
            ev_word[`QPNIC_EVENT_TYPE] = typ;
            ev_word[`QPNIC_EVENT_CQN] = cqn;
            ev_word[`QPNIC_EVENT_ERROR] = err;
            ev_word[`QPNIC_EVENT_SOLICITED] = sol;
            ev_word[`QPNIC_EVENT_TRIGGER] = trig;
            ev_word[`QPNIC_EVENT_INDEX] = index;
        end
    endfunction

    function [31:0] mark_word;   // struct cq_mark of a CQE at index
        input [15:0] index;
        begin
            mark_word = 32'd0;
            mark_word[`QPNIC_CQ_MARK_VALID] = 1'b1;
            mark_word[`QPNIC_CQ_MARK_INDEX] = index;
        end
    endfunction

    // Queue an event in this time step (call between clock edges). An ARM
    // sets its CQ's armed bit as it enters, as qpnic_fw_if does.
    task push_now;
        input [31:0] w;
        begin
            if (evq_tail - evq_head == 5'd16) fail("the test overfilled the event queue");
            evq[evq_tail[3:0]] = w;
            evq_tail = evq_tail + 5'd1;
            if (w[`QPNIC_EVENT_TYPE] == `QPNIC_EVT_TYPE_ARM) begin
                armed[w[`QPNIC_EVENT_CQN]] = 1'b1;
                arms_queued[w[`QPNIC_EVENT_CQN]] = arms_queued[w[`QPNIC_EVENT_CQN]] + 1;
            end
        end
    endtask

    task push_event;
        input [31:0] w;
        begin
            @(negedge clk);
            push_now(w);
        end
    endtask

    // An ARM doorbell for cqn: the event carries the CQ's PI now.
    task arm_now;
        input [7:0] cqn;
        input [1:0] trig;
        begin
            push_now(ev_word(`QPNIC_EVT_TYPE_ARM, cqn, 1'b0, 1'b0, trig, cq_pi[cqn[2:0]]));
        end
    endtask

    // The CQE writer and the csr writing one CQE to cqn (call between clock
    // edges): marks at the old PI, PI + 1, then a CQE event with the index
    // written if the CQ is armed (the writer reads the bit after PI moved).
    task write_cqe_now;
        input [7:0] cqn;
        input       err;
        input       sol;
        reg [15:0] idx;
        begin
            idx = cq_pi[cqn[2:0]];
            if (err) cq_err[cqn[2:0]] = mark_word(idx);
            if (sol) cq_sol[cqn[2:0]] = mark_word(idx);
            cq_pi[cqn[2:0]] = idx + 16'd1;
            if (armed[cqn[2:0]])
                push_now(ev_word(`QPNIC_EVT_TYPE_CQE, cqn, err, sol, 2'd0, idx));
        end
    endtask

    task write_cqe;
        input [7:0] cqn;
        input       err;
        input       sol;
        begin
            @(negedge clk);
            write_cqe_now(cqn, err, sol);
        end
    endtask

    // Wait until the firmware popped every event, then give it time to act.
    task settle;
        integer n;
        begin
            n = 0;
            while (evq_head != evq_tail && n < SETTLE_CYCLES) begin
                @(posedge clk);
                n = n + 1;
            end
            if (evq_head != evq_tail) fail("the firmware does not pop its events");
            repeat (SETTLE_CYCLES) @(posedge clk);
        end
    endtask

    task expect_notify;
        input integer index;
        input [7:0] cqn;
        input [7:0] status;
        begin
            if (ntf_count != index + 1) begin
                fail("wrong number of notifications");
                $display("     %0d notifications, want %0d", ntf_count, index + 1);
            end else if (ntf_log[index][`QPNIC_NOTIFY_CQN] != cqn ||
                         ntf_log[index][`QPNIC_NOTIFY_STATUS] != status) begin
                fail("wrong notification");
                $display("     got %h, want cqn %0d status %0d", ntf_log[index], cqn, status);
            end
        end
    endtask

    task expect_no_notify_beyond;
        input integer count;
        begin
            if (ntf_count != count) begin
                fail("an unexpected notification");
                $display("     %0d notifications, want %0d; last %h", ntf_count, count,
                         ntf_log[ntf_count - 1]);
            end
        end
    endtask

    always @(posedge clk) begin
        if (resetn && trap) begin
            $display("FAIL core: PicoRV32 trapped (illegal or misaligned access) at cycle %0d", cycles);
            $display("0 passed, 1 failed");
            $finish;
        end
        if (bus_error) begin
            $display("FAIL core: access to an unmapped address %h", bus_error_addr);
            $display("0 passed, 1 failed");
            $finish;
        end
        if (cycles > MAX_CYCLES) begin
            $display("FAIL watchdog: the test took more than %0d cycles", MAX_CYCLES);
            $display("%0d passed, %0d failed", passed, failed + 1);
            $finish;
        end
    end

    initial begin
        if (!$value$plusargs("fw_hex=%s", fw_hex)) begin
            $display("FAIL setup: no +fw_hex=PATH given");
            $display("0 passed, 1 failed");
            $finish;
        end
        for (i = 0; i < FW_WORDS; i = i + 1) ram[i] = 32'd0;
        $readmemh(fw_hex, ram);
        for (i = 0; i < NUM_CQ; i = i + 1) begin
            cq_pi[i] = 16'd0;
            cq_ci[i] = 16'd0;
            cq_err[i] = 32'd0;
            cq_sol[i] = 32'd0;
            arms_queued[i] = 0;
        end
        repeat (10) @(posedge clk);
        resetn = 1'b1;

        begin_case("boot_writes_fw_ready");
        i = 0;
        while (!fw_ready && i < 20000) begin
            @(posedge clk);
            i = i + 1;
        end
        if (!fw_ready) fail("FW_READY was not written within 20000 cycles");
        end_case;

        begin_case("N1_arm_on_empty_cq_armed_by_its_event_no_notify");
        @(negedge clk);
        arm_now(3, `QPNIC_CQ_TRIGGER_ANY);
        settle;
        if (!armed[3]) fail("CQ 3 unarmed after its ARM: the firmware cleared a pending arm");
        expect_no_notify_beyond(0);
        end_case;

        begin_case("N2_cqe_fires_arm_notify_success_armed_clr");
        write_cqe(3, 0, 0);
        if (evq_head == evq_tail) fail("setup: the armed CQ raised no CQE event");
        settle;
        expect_notify(0, 3, `QPNIC_NTF_STATUS_SUCCESS);
        if (armed[3]) fail("ARMED_CLR was not written for CQ 3");
        end_case;

        // a CQE event queued before the firmware's ARMED_CLR took effect
        begin_case("N1_stale_cqe_event_no_second_notify");
        cq_pi[3] = 16'd2;
        push_event(ev_word(`QPNIC_EVT_TYPE_CQE, 3, 0, 0, 0, 16'd1));
        settle;
        expect_no_notify_beyond(1);
        end_case;

        begin_case("N3_arm_with_new_cqes_satisfied_at_once");
        write_cqe(2, 0, 0);
        write_cqe(2, 0, 0);
        if (evq_head != evq_tail) fail("setup: an unarmed CQ raised CQE events");
        push_event(ev_word(`QPNIC_EVT_TYPE_ARM, 2, 0, 0, `QPNIC_CQ_TRIGGER_ANY, cq_pi[2]));
        settle;
        expect_notify(1, 2, `QPNIC_NTF_STATUS_SUCCESS);
        if (armed[2]) fail("CQ 2 left armed after its arm was satisfied");
        end_case;

        begin_case("N4_arm_with_only_old_cqes_waits");
        push_event(ev_word(`QPNIC_EVT_TYPE_ARM, 2, 0, 0, `QPNIC_CQ_TRIGGER_ANY, cq_pi[2]));
        settle;
        expect_no_notify_beyond(2);
        if (!armed[2]) fail("CQ 2 not armed");
        end_case;

        begin_case("N7_errors_arm_skips_ok_fires_on_error");
        push_event(ev_word(`QPNIC_EVT_TYPE_ARM, 4, 0, 0, `QPNIC_CQ_TRIGGER_ERRORS, cq_pi[4]));
        write_cqe(4, 0, 1);
        settle;
        expect_no_notify_beyond(2);
        if (!armed[4]) fail("CQ 4 disarmed by a CQE its ERRORS arm does not match");
        write_cqe(4, 1, 0);
        settle;
        expect_notify(2, 4, `QPNIC_NTF_STATUS_SUCCESS);
        if (armed[4]) fail("CQ 4 left armed after its arm fired");
        end_case;

        begin_case("N8_overrun_notifies_overflow");
        push_event(ev_word(`QPNIC_EVT_TYPE_OVERRUN, 5, 0, 0, 0, 0));
        settle;
        expect_notify(3, 5, `QPNIC_NTF_STATUS_OVERFLOW);
        end_case;

        // Two arms queued together on a CQ with one unseen CQE: the first is
        // satisfied at once (N3); its ARMED_CLR comes while the second is
        // still queued, so the hardware ignores it and the second arm, which
        // waits, still gets the next CQE's event.
        begin_case("armed_clr_ignored_while_second_arm_queued_next_cqe_fires");
        write_cqe(6, 0, 0);
        i = clr_ignored;
        @(negedge clk);
        arm_now(6, `QPNIC_CQ_TRIGGER_ANY);
        arm_now(6, `QPNIC_CQ_TRIGGER_ANY);
        settle;
        expect_notify(4, 6, `QPNIC_NTF_STATUS_SUCCESS);
        if (clr_ignored != i + 1) fail("setup: the firmware's ARMED_CLR did not meet a queued ARM");
        if (!armed[6]) fail("CQ 6 unarmed while its second arm waits");
        write_cqe(6, 0, 0);
        settle;
        expect_notify(5, 6, `QPNIC_NTF_STATUS_SUCCESS);
        if (armed[6]) fail("CQ 6 left armed after its second arm fired");
        end_case;

        // The race: two ARMs, both at PI 0, queued before the CQE that
        // satisfies them. By the time the firmware handles the first ARM,
        // CQ_PI already shows that CQE (written meanwhile), whose event
        // (index 0) is queued behind both. One notification, not two.
        begin_case("race_two_arms_before_their_cqe_notify_once");
        @(negedge clk);
        arm_now(7, `QPNIC_CQ_TRIGGER_ANY);
        arm_now(7, `QPNIC_CQ_TRIGGER_ANY);
        write_cqe_now(7, 0, 0);
        if (evq_tail - evq_head != 5'd3 || cq_pi[7] != 16'd1)
            fail("setup: want ARM, ARM, CQE queued and CQ_PI 1");
        settle;
        expect_notify(6, 7, `QPNIC_NTF_STATUS_SUCCESS);
        if (armed[7]) fail("CQ 7 left armed after its arms fired");
        // a CQE event (index 1) queued before that ARMED_CLR took effect
        cq_pi[7] = 16'd2;
        push_event(ev_word(`QPNIC_EVT_TYPE_CQE, 7, 0, 0, 0, 16'd1));
        settle;
        expect_no_notify_beyond(7);
        end_case;

        $display("%0d passed, %0d failed", passed, failed);
        $finish;
    end
endmodule

`default_nettype wire
