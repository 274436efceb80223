/* What the stand-in Ethos-U driver (stand_in_driver.c) saw: the test's harness reads it. */
#ifndef STAND_IN_DRIVER_H
#define STAND_IN_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#define STAND_IN_MAX_BASES 8

struct stand_in_record {
  int reserved, invoked, released; /* calls of each function */
  int reserved_while_invoking;     /* the driver was reserved, and not yet released, at the invoke */
  const void* stream;
  int stream_size;
  int count;
  uint64_t bases[STAND_IN_MAX_BASES];
  size_t sizes[STAND_IN_MAX_BASES];
  uintptr_t invoke_stack; /* an address on the stack inside ethosu_invoke_v3 */
};

extern struct stand_in_record stand_in;

/* What the stand-in writes into the last base address (the output) on each invoke. */
#define STAND_IN_OUTPUT_BYTE 0x5A

#endif
