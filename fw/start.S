/* fw/start.S: the soft core's entry point, at address 0 (PicoRV32's reset
 * address, PROGADDR_RESET = 0).
 *
 * For: setting the stack pointer to the top of RAM (from fw/link.ld), zeroing
 * .bss and calling main; if main ever returns, it parks the core.
 * Not for: copying .data: the whole image (code and data) is in RAM already,
 * loaded by $readmemh at build time. No interrupts, no traps.
 */
    .section .text.start, "ax"
    .globl _start
_start:
    la      sp, __stack_top
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       1b
2:  call    main
3:  j       3b
