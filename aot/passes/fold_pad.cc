// fold_pad: a TFLite PAD that only pads the height and width of a quantized NHWC tensor
// with its zero point, read by nothing but one CONV_2D or DEPTHWISE_CONV_2D of VALID
// padding, becomes that convolution's own padding: padding "EXPLICIT" and the attribute
// aotc.pads = [top, bottom, left, right] (lowering/compute/window.h's tflite_window_axis
// reads them).
//
// Why: Keras writes its stride-2 layers as ZeroPadding2D and a VALID convolution, and the
// TFLite converter keeps the PAD: a copy of the whole tensor, a little larger, alive beside
// its input, which in MobileNets is the activation peak (issue #29). A convolution's own
// padding costs no memory and no copy.
//
// Exact: TFLite's quantized convolutions sum (input - input zero point) * filter, and a
// padded element equal to the zero point adds nothing, as the tap the kernel skips adds
// nothing. Float PADs stay: 0.0 * w added and a skipped tap differ where w is infinite or
// the sum is a negative zero.
#include <algorithm>

#include "aot/passes/graph_passes.h"

namespace aotc {
namespace {

bool is_quantized_integer(const Tensor& t) {
  return (t.dtype == DataType::Int(8) || t.dtype == DataType::Int(16)) && t.quant.scale.size() == 1 &&
         t.quant.zero_point.size() == 1;
}

// The [top, bottom, left, right] pads of PAD node `pad` if it pads only height and width
// of a quantized 4-D tensor with its zero point, and keeps its quantization; else empty.
std::vector<int64_t> spatial_zero_point_pads(const Graph& g, const Node& pad) {
  if ((pad.op != "tfl.PAD" && pad.op != "tfl.PADV2") || pad.inputs.size() < 2 || pad.outputs.size() != 1) return {};
  const Tensor& x = g.tensor(pad.inputs[0]);
  const Tensor& y = g.tensor(pad.outputs[0]);
  const Tensor& paddings = g.tensor(pad.inputs[1]);
  if (!is_quantized_integer(x) || !is_quantized_integer(y) || x.dtype != y.dtype || x.shape.size() != 4) return {};
  if (x.quant.scale != y.quant.scale || x.quant.zero_point != y.quant.zero_point) return {};
  if (!paddings.is_constant() || paddings.shape != std::vector<int64_t>{4, 2}) return {};
  if (pad.op == "tfl.PADV2" && pad.inputs.size() > 2 && pad.inputs[2] != kNoTensor) {
    const Tensor& value = g.tensor(pad.inputs[2]);
    if (!value.is_constant() || value.num_elements() != 1 || value.element_as_int(0) != y.quant.zero_point[0]) return {};
  }
  std::vector<int64_t> p = paddings.ints();  // [[batch before, after], [height ...], [width ...], [channels ...]]
  if (p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0) return {};
  if (std::any_of(p.begin(), p.end(), [](int64_t v) { return v < 0; })) return {};
  return {p[2], p[3], p[4], p[5]};
}

}  // namespace

void fold_pad(Graph& g) {
  for (size_t i = 0; i < g.nodes.size();) {
    const Node& pad = g.nodes[i];
    std::vector<int64_t> pads = spatial_zero_point_pads(g, pad);
    TensorId padded = pad.outputs.empty() ? kNoTensor : pad.outputs[0];
    std::vector<int> readers = padded == kNoTensor ? std::vector<int>{} : g.consumers(padded);
    bool folds = !pads.empty() && readers.size() == 1 && !g.is_graph_output(padded);
    if (folds) {
      const Node& conv = g.nodes[static_cast<size_t>(readers[0])];
      folds = (conv.op == "tfl.CONV_2D" || conv.op == "tfl.DEPTHWISE_CONV_2D") && conv.inputs.at(0) == padded &&
              std::count(conv.inputs.begin(), conv.inputs.end(), padded) == 1 && conv.body.empty() &&
              conv.attr_string("padding", "SAME") == "VALID";
    }
    if (!folds) {
      ++i;
      continue;
    }
    Node& conv = g.nodes[static_cast<size_t>(readers[0])];
    conv.inputs[0] = pad.inputs[0];
    conv.attrs["padding"] = std::string("EXPLICIT");
    conv.attrs["aotc.pads"] = pads;
    g.nodes.erase(g.nodes.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace aotc
