// Stand-in for ruy's profiler instrumentation header, which TFLM's reference kernels include
// for ruy::profiler::ScopeLabel. ruy is not packaged by Debian, and the oracle needs no
// profiling: a label that does nothing is all the kernels use.
#ifndef AOTC_ORACLE_RUY_PROFILER_INSTRUMENTATION_STUB_H_
#define AOTC_ORACLE_RUY_PROFILER_INSTRUMENTATION_STUB_H_
namespace ruy {
namespace profiler {
class ScopeLabel {
 public:
  template <typename... Args>
  explicit ScopeLabel(Args&&...) {}
};
}  // namespace profiler
}  // namespace ruy
#endif
