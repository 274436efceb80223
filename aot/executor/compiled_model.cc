#include "aot/executor/compiled_model.h"

namespace aotc {

const char* step_kind_name(Step::Kind kind) {
  switch (kind) {
    case Step::Kind::kCall: return "call";
    case Step::Kind::kCopy: return "copy";
    case Step::Kind::kIf: return "if";
    case Step::Kind::kElse: return "else";
    case Step::Kind::kEndIf: return "end_if";
    case Step::Kind::kLoop: return "loop";
    case Step::Kind::kEndLoop: return "end_loop";
    case Step::Kind::kSetIteration: return "set_iteration";
  }
  return "?";
}

}  // namespace aotc
