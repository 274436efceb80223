// Writes the host float benchmark's models (issue #15) as ONNX (opset 13): torchvision's
// SqueezeNet 1.1 and MobileNetV2 (full width, 1000 classes) at 96x96 and 224x224, layer
// for layer what torch.onnx.export makes of them in eval mode (BatchNorm folded into the
// convolutions, Dropout gone, ReLU6 as Clip(0, 6), the classifier's pooling as
// GlobalAveragePool), with seeded uniform random weights scaled by 1/sqrt(fan-in) so that
// activations stay near 1 through the network. Speed does not depend on the weights'
// values, and the models are not committed (MobileNetV2 is 14 MB): bench_host_float
// writes them into the build folder.
//
//   host_float_models OUT_DIR        (writes a model only if it is missing)
//
// Written in C++ against the ONNX protobuf the compiler links, because the build machine
// has no torch.
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace {

// A deterministic generator (splitmix64): the same models on every machine.
struct Random {
  uint64_t state;
  float uniform() {  // in [-1, 1)
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<float>(static_cast<double>(z >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  }
};

class ModelWriter {
 public:
  ModelWriter(const std::string& name, int64_t size) {
    model_.set_ir_version(8);
    model_.set_producer_name("aotc bench/host_float/make_models.cc");
    model_.add_opset_import()->set_version(13);
    graph_ = model_.mutable_graph();
    graph_->set_name(name);
    value_info(graph_->add_input(), "input", {1, 3, size, size});
    scalar("relu6_min", 0.0f);
    scalar("relu6_max", 6.0f);
  }

  // Conv (+ bias) with the weights of a BatchNorm-folded convolution; then ReLU, ReLU6 or
  // nothing. Returns the output's name.
  enum class Activation { kNone, kRelu, kRelu6 };
  std::string conv(const std::string& x, int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad,
                   int64_t groups, Activation act) {
    std::string name = "conv" + std::to_string(++count_);
    int64_t fan_in = in / groups * kernel * kernel;
    weights(name + ".weight", {out, in / groups, kernel, kernel}, std::sqrt(3.0f / static_cast<float>(fan_in)));
    weights(name + ".bias", {out}, 0.1f);
    onnx::NodeProto* n = node("Conv", {x, name + ".weight", name + ".bias"}, name);
    ints(n, "kernel_shape", {kernel, kernel});
    ints(n, "strides", {stride, stride});
    ints(n, "pads", {pad, pad, pad, pad});
    ints(n, "dilations", {1, 1});
    int_attr(n, "group", groups);
    if (act == Activation::kRelu) return node("Relu", {name}, name + "_relu")->output(0);
    if (act == Activation::kRelu6) return node("Clip", {name, "relu6_min", "relu6_max"}, name + "_relu6")->output(0);
    return name;
  }

  std::string max_pool_ceil(const std::string& x) {  // MaxPool2d(3, 2, ceil_mode=True)
    onnx::NodeProto* n = node("MaxPool", {x}, "pool" + std::to_string(++count_));
    ints(n, "kernel_shape", {3, 3});
    ints(n, "strides", {2, 2});
    ints(n, "pads", {0, 0, 0, 0});
    int_attr(n, "ceil_mode", 1);
    return n->output(0);
  }

  onnx::NodeProto* node(const char* op, const std::vector<std::string>& inputs, const std::string& output) {
    onnx::NodeProto* n = graph_->add_node();
    n->set_op_type(op);
    n->set_name(output);
    for (const std::string& i : inputs) n->add_input(i);
    n->add_output(output);
    return n;
  }

  void weights(const std::string& name, const std::vector<int64_t>& dims, float scale) {
    onnx::TensorProto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) t->add_dims(d), n *= d;
    std::string raw(static_cast<size_t>(n) * 4, '\0');
    for (int64_t i = 0; i < n; ++i) {
      float v = random_.uniform() * scale;
      std::memcpy(&raw[static_cast<size_t>(i) * 4], &v, 4);
    }
    t->set_raw_data(raw);
  }

  void finish(const std::string& last, const std::string& path) {
    value_info(graph_->add_output(), last, {1, 1000});
    std::ofstream out(path + ".tmp", std::ios::binary);
    out << model_.SerializeAsString();
    out.close();
    std::rename((path + ".tmp").c_str(), path.c_str());
  }

  static void ints(onnx::NodeProto* n, const char* name, const std::vector<int64_t>& values) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
  }
  static void int_attr(onnx::NodeProto* n, const char* name, int64_t value) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }

 private:
  void scalar(const std::string& name, float value) {
    onnx::TensorProto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(value);
  }
  static void value_info(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  }

  onnx::ModelProto model_;
  onnx::GraphProto* graph_;
  Random random_{42};
  int count_ = 0;
};

using Act = ModelWriter::Activation;

// torchvision.models.squeezenet1_1: features, then Dropout (gone in eval), a 1x1
// convolution to 1000 classes + ReLU, AdaptiveAvgPool2d(1), flatten.
void squeezenet1_1(int64_t size, const std::string& path) {
  ModelWriter m("squeezenet1_1", size);
  std::string x = m.conv("input", 3, 64, 3, 2, 0, 1, Act::kRelu);
  auto fire = [&](int64_t in, int64_t squeeze, int64_t expand) {
    std::string s = m.conv(x, in, squeeze, 1, 1, 0, 1, Act::kRelu);
    std::string e1 = m.conv(s, squeeze, expand, 1, 1, 0, 1, Act::kRelu);
    std::string e3 = m.conv(s, squeeze, expand, 3, 1, 1, 1, Act::kRelu);
    onnx::NodeProto* cat = m.node("Concat", {e1, e3}, s + "_fire");
    ModelWriter::int_attr(cat, "axis", 1);
    x = cat->output(0);
  };
  x = m.max_pool_ceil(x);
  fire(64, 16, 64);
  fire(128, 16, 64);
  x = m.max_pool_ceil(x);
  fire(128, 32, 128);
  fire(256, 32, 128);
  x = m.max_pool_ceil(x);
  fire(256, 48, 192);
  fire(384, 48, 192);
  fire(384, 64, 256);
  fire(512, 64, 256);
  x = m.conv(x, 512, 1000, 1, 1, 0, 1, Act::kRelu);
  x = m.node("GlobalAveragePool", {x}, "avgpool")->output(0);
  onnx::NodeProto* flat = m.node("Flatten", {x}, "output");
  ModelWriter::int_attr(flat, "axis", 1);
  m.finish("output", path);
}

// torchvision.models.mobilenet_v2 (width 1.0): a 3x3 stride-2 stem, the inverted residual
// blocks (t, c, n, s), a 1x1 convolution to 1280 channels, global average pooling,
// Dropout (gone in eval), Linear(1280, 1000) as Gemm.
void mobilenet_v2(int64_t size, const std::string& path) {
  ModelWriter m("mobilenet_v2", size);
  std::string x = m.conv("input", 3, 32, 3, 2, 1, 1, Act::kRelu6);
  int64_t in = 32;
  const int64_t settings[7][4] = {{1, 16, 1, 1},  {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                  {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (const auto& s : settings) {
    for (int64_t i = 0; i < s[2]; ++i) {
      int64_t stride = i == 0 ? s[3] : 1, hidden = in * s[0], out = s[1];
      std::string y = x;
      if (s[0] != 1) y = m.conv(y, in, hidden, 1, 1, 0, 1, Act::kRelu6);
      y = m.conv(y, hidden, hidden, 3, stride, 1, hidden, Act::kRelu6);
      y = m.conv(y, hidden, out, 1, 1, 0, 1, Act::kNone);
      if (stride == 1 && in == out) y = m.node("Add", {x, y}, y + "_add")->output(0);
      x = y;
      in = out;
    }
  }
  x = m.conv(x, 320, 1280, 1, 1, 0, 1, Act::kRelu6);
  x = m.node("GlobalAveragePool", {x}, "avgpool")->output(0);
  onnx::NodeProto* flat = m.node("Flatten", {x}, "flatten");
  ModelWriter::int_attr(flat, "axis", 1);
  m.weights("classifier.weight", {1000, 1280}, std::sqrt(3.0f / 1280.0f));
  m.weights("classifier.bias", {1000}, 0.1f);
  onnx::NodeProto* gemm = m.node("Gemm", {flat->output(0), "classifier.weight", "classifier.bias"}, "output");
  ModelWriter::int_attr(gemm, "transB", 1);
  m.finish("output", path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  mkdir(dir.c_str(), 0755);
  for (int64_t size : {96, 224}) {
    std::string s = std::to_string(size);
    struct stat st;
    std::string squeeze = dir + "/squeezenet1_1_" + s + ".onnx", mobile = dir + "/mobilenet_v2_" + s + ".onnx";
    if (stat(squeeze.c_str(), &st) != 0) squeezenet1_1(size, squeeze);
    if (stat(mobile.c_str(), &st) != 0) mobilenet_v2(size, mobile);
  }
  return 0;
}
