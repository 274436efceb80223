# Prints, one a line, the sources of TFLM's libtensorflow-microlite.a for the host with the
# reference kernels, taken from the snapshot's own tools/make/sources.inc so that the list is
# the one TFLM's Makefile builds (less the signal kernels, which need kissfft).
#   make -s -f print_sources.mk TENSORFLOW_ROOT=<snapshot-src>/ print
include $(TENSORFLOW_ROOT)tensorflow/lite/micro/tools/make/sources.inc
MICROLITE_CC_SRCS := $(filter-out $(MICROLITE_TEST_SRCS), $(MICROLITE_CC_BASE_SRCS))
MICROLITE_CC_SRCS := $(filter-out $(MICROLITE_BENCHMARK_SRCS), $(MICROLITE_CC_SRCS))
print:
	@echo $(MICROLITE_CC_SRCS) $(MICROLITE_CC_KERNEL_SRCS) | tr ' ' '\n'
