// int8 FULLY_CONNECTED in blocks of four units; see fully_connected_s8.h.
#include "lowering/kernels/dsp/fully_connected_s8.h"

#include <algorithm>

#include "lowering/ir/runtime_calls.h"
#include "lowering/kernels/dsp/dsp.h"
#include "lowering/compute/channel_header.h"

namespace aotc {
namespace {

using ir::Expr;

constexpr int64_t kUnits = 4;  // per block

// Per block of four units (a last partial block repeating its last unit): the header, then
// per group of four elements a word of each of the four rows in turn, zero-padded past
// the depth.
std::vector<uint8_t> packed_blocks(const Tensor& filter, const FcProblem& p, const ChannelHeader& header) {
  const FcGeometry& f = p.geometry;
  std::vector<uint8_t> bytes;
  for (int64_t block = 0; block < (f.units + kUnits - 1) / kUnits; ++block) {
    header.append(bytes, block);
    for (int64_t g = 0; g < f.depth; g += 4)
      for (int64_t j = 0; j < kUnits; ++j) {
        int64_t unit = std::min(kUnits * block + j, f.units - 1);
        for (int64_t d = g; d < g + 4; ++d)
          bytes.push_back(d < f.depth ? static_cast<uint8_t>(static_cast<int8_t>(filter.element_as_int(p.filter_index(unit, d)))) : 0);
      }
  }
  return bytes;
}

}  // namespace

ir::Stmt lower_fully_connected_s8(const ir::Buffer& input, const ir::Buffer& output, const Tensor& filter,
                                  const FcProblem& p) {
  const FcGeometry& f = p.geometry;
  ConvArithmetic& arithmetic = *p.arithmetic;
  // Rows of whole words at word-aligned addresses (aotc_dot_s8_1x4_aligned).
  bool aligned = p.planned_input && f.depth % 4 == 0;
  ChannelHeader header(arithmetic, p.folded_bias, kUnits);
  int64_t blocks = (f.units + kUnits - 1) / kUnits;
  int64_t block_words = header.words() + kUnits * ((f.depth + 3) / 4);
  return header.wrap(arithmetic, [&] {
    return ir::allocate_const(
        "packed_weights", DataType::Int(32), {blocks * block_words}, packed_blocks(filter, p, header), [&](const ir::Buffer& packed) {
          return ir::loop_nest({f.batches, blocks}, {"b", "block"}, [&](const std::vector<Expr>& o) {
            Expr base = o[1] * block_words;
            ir::Buffer acc = ir::make_buffer("acc", DataType::Int(32), {kUnits}, "local");
            std::vector<ir::Stmt> body;
            for (int64_t j = 0; j < kUnits; ++j) body.push_back(ir::store(acc, {j}, header.bias(packed, base, j)));
            Expr x = ir::address_of(input, {o[0], 0}), w = ir::address_of(packed, {base + header.words()});
            body.push_back(ir::evaluate(aligned ? ir::dot_s8_1x4_aligned(x, w, ir::make_int(f.depth), ir::address_of(acc, {0}))
                                                : ir::dot_s8_1x4(x, w, ir::make_int(f.depth), ir::address_of(acc, {0}))));
            for (int64_t j = 0; j < kUnits; ++j) {
              Expr unit = o[1] * kUnits + j;
              ir::Stmt store = ir::store(output, {o[0], unit}, header.output(packed, base, j, ir::load(acc, {j}), unit));
              body.push_back(f.units % kUnits == 0 || j == 0 ? store : ir::if_then_else(unit < ir::make_int(f.units), store));
            }
            return ir::allocate(acc, ir::seq(body));
          });
        });
  });
}

// int8 with the input's zero point folded into the bias (constant symmetric weights).
AOTC_REGISTER_KERNEL(FcKernels, ({
    "dsp.fully_connected_s8", 20,
    [](const FcProblem& p, const TargetFacts& target) { return int8_register_blocks_pay(target) && !p.folded_bias.empty(); },
    [](KernelBuilder& kb, const FcProblem& p, FcViews& views) {
      return lower_fully_connected_s8(views.input, views.output, kb.graph().tensor(p.filter), p);
    }}));

}  // namespace aotc
