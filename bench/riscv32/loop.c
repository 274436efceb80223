/* Sanity test: a loop with a known number of instructions between the markers. */
void marker_begin(void); void marker_end(void); long sys_write(int, const void*, unsigned long);
int main(void) {
  marker_begin();
  __asm__ volatile(
      "li t0, 1000\n"        /* 1 insn */
      "1: addi t0, t0, -1\n" /* 1000 x */
      "nop\n"                /* 1000 x */
      "bnez t0, 1b\n"        /* 1000 x */
      ::: "t0");
  marker_end();
  sys_write(1, "done\n", 5);
  return 0;
}
