// The compile-time constants of a kernel that may vary by output channel (zero points,
// requantization multipliers and shifts, scales): a value that is the same for every
// channel becomes an immediate in the code, any other a `static const` table the kernel
// indexes by channel.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "lowering/ir/ir.h"

namespace aotc {

class ChannelConstants {
 public:
  using Handle = size_t;

  // Adds a constant of `type` with one value per channel (or one for all).
  Handle add(const std::string& name, DataType type, std::vector<double> values) {
    bool uniform = std::all_of(values.begin(), values.end(), [&](double v) { return v == values[0]; });
    if (uniform) values.resize(1);
    tables_.push_back({name, type, std::move(values), nullptr});
    return tables_.size() - 1;
  }

  // Value `handle` for channel `channel`; valid inside the body given to wrap().
  ir::Expr at(Handle handle, const ir::Expr& channel) const {
    const Table& t = tables_.at(handle);
    if (t.values.size() == 1)
      return t.type.is_float() ? ir::make_float(t.values[0], t.type)
                               : ir::make_int(static_cast<int64_t>(t.values[0]), t.type);
    return ir::load(t.buffer, {channel});
  }

  // `body()` inside the AllocateConsts of the tables.
  ir::Stmt wrap(const std::function<ir::Stmt()>& body) { return wrap_from(0, body); }

 private:
  struct Table {
    std::string name;
    DataType type;
    std::vector<double> values;
    ir::Buffer buffer;
  };

  ir::Stmt wrap_from(size_t i, const std::function<ir::Stmt()>& body) {
    if (i == tables_.size()) return body();
    if (tables_[i].values.size() == 1) return wrap_from(i + 1, body);
    return ir::allocate_const(tables_[i].name, tables_[i].type, tables_[i].values, [&](const ir::Buffer& b) {
      tables_[i].buffer = b;
      return wrap_from(i + 1, body);
    });
  }

  std::vector<Table> tables_;
};

}  // namespace aotc
