// Tests of ConvTranspose (lowering/ops/onnx/conv_transpose.cc) against the ONNX definition
// written here as the scatter it is: each input element X[n, c, i] times W[c, m, k] adds to
// output position o = i * stride + k * dilation - pad_begin (when 0 <= o < output), the
// channels split into groups, then the bias. The output size and pads follow the
// specification: explicit pads, output_padding, output_shape and auto_pad SAME_UPPER /
// SAME_LOWER (total padding stride * (in - 1) + output_padding + (kernel - 1) * dilation
// + 1 - output, its odd element at the end for SAME_UPPER, at the beginning otherwise).
// aotc computes each output element as a gather instead; the two must agree.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

struct TransposedConv {
  Shape x_shape, w_shape;  // X [N, C, D...], W [C, M / group, K...]
  int64_t group = 1;
  Shape strides, dilations, output_padding;
  Shape pads;          // [begins..., ends...]; ignored with output_shape or SAME_*
  Shape output_shape;  // spatial extents, optional
  std::string auto_pad = "NOTSET";
  bool bias = true;
};

// Per spatial axis: the output extent and the padding at its beginning.
void output_geometry(const TransposedConv& c, Shape* extents, Shape* pad_begin) {
  size_t rank = c.x_shape.size() - 2;
  for (size_t d = 0; d < rank; ++d) {
    int64_t in = c.x_shape[d + 2], k = c.w_shape[d + 2];
    int64_t s = c.strides.empty() ? 1 : c.strides[d], dil = c.dilations.empty() ? 1 : c.dilations[d];
    int64_t op = c.output_padding.empty() ? 0 : c.output_padding[d];
    int64_t natural = s * (in - 1) + op + (k - 1) * dil + 1;
    int64_t out = 0, begin = 0;
    if (!c.output_shape.empty() || c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out = c.output_shape.empty() ? in * s : c.output_shape[d];
      int64_t total = natural - out;
      begin = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      begin = c.pads.empty() ? 0 : c.pads[d];
      int64_t end = c.pads.empty() ? 0 : c.pads[rank + d];
      out = natural - begin - end;
    }
    extents->push_back(out);
    pad_begin->push_back(begin);
  }
}

std::vector<double> conv_transpose_reference(const TransposedConv& c, const std::vector<double>& x,
                                             const std::vector<double>& w, const std::vector<double>& b, Shape* y_shape) {
  size_t rank = c.x_shape.size() - 2;
  Shape extents, pad_begin;
  output_geometry(c, &extents, &pad_begin);
  int64_t channels = c.x_shape[1], per_group_in = channels / c.group, per_group_out = c.w_shape[1];
  *y_shape = {c.x_shape[0], per_group_out * c.group};
  y_shape->insert(y_shape->end(), extents.begin(), extents.end());
  std::vector<double> y(static_cast<size_t>(element_count(*y_shape)), 0.0);
  Shape x_spatial(c.x_shape.begin() + 2, c.x_shape.end()), kernel(c.w_shape.begin() + 2, c.w_shape.end());
  for (int64_t n = 0; n < c.x_shape[0]; ++n) {
    for (int64_t ci = 0; ci < channels; ++ci) {
      int64_t g = ci / per_group_in;
      for_each_index(x_spatial, [&](const Index& i, size_t) {
        Index x_index = {n, ci};
        x_index.insert(x_index.end(), i.begin(), i.end());
        double xv = x[static_cast<size_t>(flat_index(c.x_shape, x_index))];
        for (int64_t m = 0; m < per_group_out; ++m) {
          for_each_index(kernel, [&](const Index& k, size_t) {
            Index y_index = {n, g * per_group_out + m};
            for (size_t d = 0; d < rank; ++d) {
              int64_t s = c.strides.empty() ? 1 : c.strides[d], dil = c.dilations.empty() ? 1 : c.dilations[d];
              int64_t o = i[d] * s + k[d] * dil - pad_begin[d];
              if (o < 0 || o >= extents[d]) return;
              y_index.push_back(o);
            }
            Index w_index = {ci, m};
            w_index.insert(w_index.end(), k.begin(), k.end());
            y[static_cast<size_t>(flat_index(*y_shape, y_index))] += xv * w[static_cast<size_t>(flat_index(c.w_shape, w_index))];
          });
        }
      });
    }
  }
  if (!b.empty())
    for_each_index(*y_shape, [&](const Index& i, size_t flat) { y[flat] += b[static_cast<size_t>(i[1])]; });
  return y;
}

template <typename T>
std::vector<T> values(size_t n, uint32_t seed) {
  std::vector<float> f = random_floats(n, seed);
  return std::vector<T>(f.begin(), f.end());
}

template <typename T>
void expect_matches_reference(const TransposedConv& c) {
  std::vector<T> x = values<T>(static_cast<size_t>(element_count(c.x_shape)), 1);
  std::vector<T> w = values<T>(static_cast<size_t>(element_count(c.w_shape)), 2);
  int64_t out_channels = c.w_shape[1] * c.group;
  std::vector<T> b = c.bias ? values<T>(static_cast<size_t>(out_channels), 3) : std::vector<T>{};
  OneNode node("ConvTranspose");
  node.input<T>(c.x_shape, x).template constant<T>(c.w_shape, w);
  if (c.bias) node.constant<T>(Shape{out_channels}, b);
  if (c.group != 1) node.attr("group", c.group);
  if (!c.strides.empty()) node.attr("strides", c.strides);
  if (!c.dilations.empty()) node.attr("dilations", c.dilations);
  if (!c.output_padding.empty()) node.attr("output_padding", c.output_padding);
  if (!c.pads.empty()) node.attr("pads", c.pads);
  if (!c.output_shape.empty()) node.attr("output_shape", c.output_shape);
  if (c.auto_pad != "NOTSET") node.attr("auto_pad", c.auto_pad);
  Shape y_shape;
  std::vector<double> want = conv_transpose_reference(c, std::vector<double>(x.begin(), x.end()),
                                                      std::vector<double>(w.begin(), w.end()),
                                                      std::vector<double>(b.begin(), b.end()), &y_shape);
  EXPECT_EQ(node.infer(), y_shape);
  expect_close(node.template run<T>(), std::vector<T>(want.begin(), want.end()), 1e-5, 1e-5);
}

TEST(ConvTranspose, Plain2dWithBias) {
  TransposedConv c;
  c.x_shape = {2, 3, 3, 4};
  c.w_shape = {3, 2, 3, 2};
  expect_matches_reference<float>(c);
}

TEST(ConvTranspose, StridesDilationsPadsAndOutputPadding) {
  TransposedConv c;
  c.x_shape = {1, 2, 3, 4};
  c.w_shape = {2, 3, 3, 2};
  c.strides = {2, 3};
  c.dilations = {1, 2};
  c.pads = {1, 0, 0, 2};
  c.output_padding = {1, 0};
  expect_matches_reference<float>(c);
}

TEST(ConvTranspose, GroupsWithoutBias) {
  TransposedConv c;
  c.x_shape = {1, 4, 3, 3};
  c.w_shape = {4, 3, 2, 2};
  c.group = 2;
  c.strides = {2, 1};
  c.bias = false;
  expect_matches_reference<float>(c);
  TransposedConv depthwise;
  depthwise.x_shape = {1, 3, 4, 4};
  depthwise.w_shape = {3, 1, 3, 3};
  depthwise.group = 3;
  depthwise.pads = {1, 1, 1, 1};
  expect_matches_reference<float>(depthwise);
}

TEST(ConvTranspose, OutputShapeAndAutoPad) {
  TransposedConv shaped;
  shaped.x_shape = {1, 1, 3};
  shaped.w_shape = {1, 2, 3};
  shaped.strides = {2};
  shaped.output_shape = {6};  // natural 7: one element of padding, at the beginning
  expect_matches_reference<float>(shaped);
  for (const char* auto_pad : {"SAME_UPPER", "SAME_LOWER"}) {
    SCOPED_TRACE(auto_pad);
    TransposedConv same;
    same.x_shape = {1, 2, 3, 3};
    same.w_shape = {2, 1, 3, 2};
    same.strides = {2, 2};
    same.auto_pad = auto_pad;
    expect_matches_reference<float>(same);
  }
  // Some exporters give output_shape with the batch and channel extents first.
  TransposedConv full;
  full.x_shape = {1, 1, 4};
  full.w_shape = {1, 1, 2};
  full.strides = {2};
  full.output_shape = {1, 1, 8};
  OneNode node("ConvTranspose");
  node.input(full.x_shape).constant<float>(full.w_shape, {1, 1}).attr("strides", full.strides).attr("output_shape", full.output_shape);
  EXPECT_EQ(node.infer(), (Shape{1, 1, 8}));
}

TEST(ConvTranspose, ThreeSpatialAxesInFloat64) {
  TransposedConv c;
  c.x_shape = {1, 2, 2, 3, 2};
  c.w_shape = {2, 2, 2, 2, 3};
  c.strides = {1, 2, 2};
  c.pads = {0, 1, 1, 1, 0, 0};
  expect_matches_reference<double>(c);
}

TEST(ConvTranspose, RejectsInvalidNodes) {
  OneNode group("ConvTranspose");
  group.input({1, 3, 4, 4}).constant<float>(Shape{3, 1, 2, 2}, std::vector<float>(12, 1)).attr("group", int64_t{2});
  expect_error(group, "group 2 must divide the input channels (3)");
  OneNode channels("ConvTranspose");
  channels.input({1, 3, 4, 4}).constant<float>(Shape{2, 1, 2, 2}, std::vector<float>(8, 1));
  expect_error(channels, "expected 3 input channels first");
  OneNode output_padding("ConvTranspose");
  output_padding.input({1, 1, 4}).constant<float>(Shape{1, 1, 2}, {1, 1}).attr("strides", Shape{2}).attr("output_padding", Shape{2});
  expect_error(output_padding, "output_padding 2 must be smaller");
  OneNode bias("ConvTranspose");
  bias.input({1, 1, 4}).constant<float>(Shape{1, 2, 2}, {1, 1, 1, 1}).constant<float>(Shape{3}, {0, 0, 0});
  expect_error(bias, "expected [2]");
  OneNode ints("ConvTranspose");
  ints.input<int32_t>({1, 1, 4}, {1, 2, 3, 4}).constant<int32_t>(Shape{1, 1, 2}, {1, 1});
  expect_error(ints, "supported: float32, float64");
  OneNode kernel_shape("ConvTranspose");
  kernel_shape.input({1, 1, 4}).constant<float>(Shape{1, 1, 2}, {1, 1}).attr("kernel_shape", Shape{3});
  expect_error(kernel_shape, "does not match");
  OneNode no_output("ConvTranspose");
  no_output.input({1, 1, 2}).constant<float>(Shape{1, 1, 2}, {1, 1}).attr("pads", Shape{2, 2});
  expect_error(no_output, "leave no output");
}

}  // namespace
}  // namespace aotc::test
