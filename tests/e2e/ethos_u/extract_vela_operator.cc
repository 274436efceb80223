// extract_vela_operator MODEL.tflite DIR: writes what the firmware test of the Ethos-U
// target (tests/firmware/ethos_u_test.cmake) checks the generated code against: the first
// ethos-u operator's command stream (DIR/stream.bin), Vela's weights (DIR/weights.bin) and
// the sizes of its two scratch tensors (DIR/scratch.cmake: SCRATCH and SCRATCH_FAST).
#include <cstdio>
#include <exception>
#include <fstream>

#include "tests/e2e/ethos_u/vela_operator.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: extract_vela_operator MODEL.tflite DIR\n");
    return 2;
  }
  try {
    aotc::ethos_u_test::VelaOperator v = aotc::ethos_u_test::read_vela_operator(argv[1]);
    std::string dir = argv[2];
    std::ofstream(dir + "/stream.bin", std::ios::binary) << v.stream;
    std::ofstream(dir + "/weights.bin", std::ios::binary) << v.weights;
    std::ofstream(dir + "/scratch.cmake") << "set(SCRATCH " << v.scratch_sizes[0] << ")\nset(SCRATCH_FAST "
                                          << v.scratch_sizes[1] << ")\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "extract_vela_operator: %s\n", e.what());
    return 1;
  }
  return 0;
}
