#include "aot/import/onnx_importer.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "aot/import/onnx_operator_versions.h"
#include "runtime-c/aotc_elementwise.h"

namespace aotc {
namespace {

bool onnx_dtype(int elem_type, DataType* out) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: *out = DataType::Float32(); return true;
    case onnx::TensorProto::DOUBLE: *out = DataType::Float64(); return true;
    case onnx::TensorProto::UINT8: *out = DataType::UInt(8); return true;
    case onnx::TensorProto::INT8: *out = DataType::Int(8); return true;
    case onnx::TensorProto::UINT16: *out = DataType::UInt(16); return true;
    case onnx::TensorProto::INT16: *out = DataType::Int(16); return true;
    case onnx::TensorProto::INT32: *out = DataType::Int(32); return true;
    case onnx::TensorProto::INT64: *out = DataType::Int(64); return true;
    case onnx::TensorProto::UINT32: *out = DataType::UInt(32); return true;
    case onnx::TensorProto::UINT64: *out = DataType::UInt(64); return true;
    case onnx::TensorProto::BOOL: *out = DataType::Bool(); return true;
    // Bit patterns only: see "float16" below.
    case onnx::TensorProto::FLOAT16: *out = DataType::Float16(); return true;
    default: return false;  // bfloat16, strings, complex numbers, 8-bit floats
  }
}

// "float16 (10)": the name ONNX gives an element type, for messages.
std::string elem_type_name(int elem_type) {
  std::string name = onnx::TensorProto_DataType_IsValid(elem_type)
                         ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(elem_type))
                         : "unknown";
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name + " (" + std::to_string(elem_type) + ")";
}

int onnx_elem_type(DataType t) {
  if (t == DataType::Float32()) return onnx::TensorProto::FLOAT;
  if (t == DataType::Float64()) return onnx::TensorProto::DOUBLE;
  if (t == DataType::UInt(8)) return onnx::TensorProto::UINT8;
  if (t == DataType::Int(8)) return onnx::TensorProto::INT8;
  if (t == DataType::UInt(16)) return onnx::TensorProto::UINT16;
  if (t == DataType::Int(16)) return onnx::TensorProto::INT16;
  if (t == DataType::Int(32)) return onnx::TensorProto::INT32;
  if (t == DataType::Int(64)) return onnx::TensorProto::INT64;
  if (t == DataType::UInt(32)) return onnx::TensorProto::UINT32;
  if (t == DataType::UInt(64)) return onnx::TensorProto::UINT64;
  if (t == DataType::Bool()) return onnx::TensorProto::BOOL;
  if (t == DataType::Float16()) return onnx::TensorProto::FLOAT16;
  return onnx::TensorProto::UNDEFINED;
}

template <typename T, typename Field>
void append_values(const Field& field, std::vector<uint8_t>* bytes) {
  for (auto v : field) {
    T x = static_cast<T>(v);
    const auto* p = reinterpret_cast<const uint8_t*>(&x);
    bytes->insert(bytes->end(), p, p + sizeof(T));
  }
}

Tensor convert_tensor(const onnx::TensorProto& tp, const std::string& what) {
  Tensor t;
  t.name = tp.name();
  if (!onnx_dtype(tp.data_type(), &t.dtype))
    throw CompileError(what + ": tensor '" + tp.name() + "' has unsupported element type " + elem_type_name(tp.data_type()));
  if (tp.data_location() == onnx::TensorProto::EXTERNAL)
    throw CompileError(what + ": tensor '" + tp.name() + "' keeps its data in an external file, which is not supported");
  for (int64_t d : tp.dims()) {
    if (d < 0) throw CompileError(what + ": tensor '" + tp.name() + "' has a negative dimension");
    t.shape.push_back(d);
  }
  std::string problem = shape_size_problem(t.shape);
  if (!problem.empty()) throw CompileError(what + ": tensor '" + tp.name() + "': " + problem);
  t.shape_known = true;
  std::vector<uint8_t> bytes;
  if (tp.has_raw_data()) {
    bytes.assign(tp.raw_data().begin(), tp.raw_data().end());
  } else {
    switch (tp.data_type()) {
      case onnx::TensorProto::FLOAT: append_values<float>(tp.float_data(), &bytes); break;
      case onnx::TensorProto::DOUBLE: append_values<double>(tp.double_data(), &bytes); break;
      case onnx::TensorProto::INT64: append_values<int64_t>(tp.int64_data(), &bytes); break;
      case onnx::TensorProto::UINT32: append_values<uint32_t>(tp.uint64_data(), &bytes); break;
      case onnx::TensorProto::UINT64: append_values<uint64_t>(tp.uint64_data(), &bytes); break;
      case onnx::TensorProto::FLOAT16: append_values<uint16_t>(tp.int32_data(), &bytes); break;  // the bit patterns
      case onnx::TensorProto::INT32: append_values<int32_t>(tp.int32_data(), &bytes); break;
      case onnx::TensorProto::INT16: append_values<int16_t>(tp.int32_data(), &bytes); break;
      case onnx::TensorProto::UINT16: append_values<uint16_t>(tp.int32_data(), &bytes); break;
      case onnx::TensorProto::INT8: append_values<int8_t>(tp.int32_data(), &bytes); break;
      case onnx::TensorProto::UINT8:
      case onnx::TensorProto::BOOL: append_values<uint8_t>(tp.int32_data(), &bytes); break;
      default: break;
    }
  }
  if (static_cast<int64_t>(bytes.size()) != t.size_bytes())
    throw CompileError(what + ": tensor '" + tp.name() + "' has " + std::to_string(bytes.size()) + " bytes of data but its shape " +
                       shape_str(t.shape) + " of " + t.dtype.str() + " needs " + std::to_string(t.size_bytes()));
  t.data = std::move(bytes);
  return t;
}

// ---- float16
//
// C99 has no float16 arithmetic, so aotc computes a float16 model in float32 and keeps
// float16 (DataType::Float16: the bit patterns, uint16_t in C) only where the model's
// interface or its explicit conversions need it:
//   - a float16 graph input holds bit patterns; a Cast to float32 decodes it, and every
//     reader of the input reads the decoded tensor;
//   - float16 initializers, Constant nodes and tensor attributes are widened to float32
//     here, exactly;
//   - a Cast to float16 produces bit patterns (rounded to nearest, ties to even, by the
//     runtime's aotc_f64_to_f16), and a Cast back to float32 right after it gives its
//     readers the rounded value; a CastLike whose `like` is float16 becomes such a Cast;
//   - a graph output declared float16 is encoded by a Cast to float16 at the end.
// So only Cast ever reads or writes float16, and every other operator works unchanged. The
// price: operators between the edges compute in float32 and do not round each result to
// float16, which is more accurate than float16 arithmetic and differs from it by at most
// the float16 rounding of the intermediate results.

// A float16 tensor's values as float32 (exact); any other tensor unchanged.
Tensor widened(Tensor t) {
  if (!t.dtype.is_float16()) return t;
  std::vector<uint8_t> bytes(static_cast<size_t>(t.num_elements()) * 4);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    uint16_t bits;
    std::memcpy(&bits, t.data->data() + 2 * i, 2);
    float value = aotc_f16_to_f32(bits);
    std::memcpy(bytes.data() + 4 * i, &value, 4);
  }
  t.dtype = DataType::Float32();
  t.data = std::move(bytes);
  return t;
}

AttrValue convert_attribute(const onnx::AttributeProto& a, const Node& node) {
  switch (a.type()) {
    case onnx::AttributeProto::INT: return static_cast<int64_t>(a.i());
    case onnx::AttributeProto::FLOAT: return static_cast<double>(a.f());
    case onnx::AttributeProto::STRING: return a.s();
    case onnx::AttributeProto::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case onnx::AttributeProto::FLOATS: {
      std::vector<double> v;
      for (float f : a.floats()) v.push_back(f);
      return v;
    }
    case onnx::AttributeProto::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case onnx::AttributeProto::TENSOR: return TensorAttr{widened(convert_tensor(a.t(), "node " + node.label()))};
    case onnx::AttributeProto::GRAPH:  // read by OnnxImporter::add_node
    case onnx::AttributeProto::GRAPHS:
      node_error(node, "attribute '" + a.name() + "' is a list of subgraphs, which aotc does not support");
    default: node_error(node, "attribute '" + a.name() + "' has a type aotc does not support");
  }
}

class OnnxImporter {
 public:
  // `path` names the model in messages; `bytes` are its contents.
  OnnxImporter(std::string path, const std::string& bytes, const ShapeBindings& bindings)
      : path_(std::move(path)), bytes_(bytes), bindings_(bindings) {}

  Graph run() {
    onnx::ModelProto model = parse_model();
    g_.source_format = "onnx";
    for (auto& op : model.opset_import())
      if (op.domain().empty() || op.domain() == "ai.onnx") g_.opset = op.version();
    // Operators of a newer opset may mean something else than aotc implements.
    // Within the known ones, each node's operator version is checked (add_node).
    if (g_.opset > newest_onnx_opset())
      throw CompileError(path_ + ": opset " + std::to_string(g_.opset) + " is newer than the newest aotc knows (" +
                         std::to_string(newest_onnx_opset()) + "); export the model with opset " +
                         std::to_string(newest_onnx_opset()) + " or older");
    const onnx::GraphProto& graph = model.graph();
    for (auto& init : graph.initializer()) define(init.name(), g_.add_tensor(widened(note_float16(convert_tensor(init, path_)))));
    for (auto& in : graph.input()) {
      if (ids_.count(in.name())) {
        // Before IR version 4 every initializer was listed as an input too; since then
        // such an input is a default value a caller may override. aotc takes the value.
        if (model.ir_version() >= 4)
          g_.warnings.push_back("graph input '" + in.name() +
                                "' has an initializer (a default value): aotc compiles it as that constant, and it is "
                                "not an input of the generated code");
        continue;
      }
      TensorId id = g_.add_tensor(input_tensor(in));
      g_.inputs.push_back(id);
      if (g_.tensor(id).dtype.is_float16()) {
        float16_.insert(in.name());
        float16_bits_[in.name()] = id;
        id = add_cast(id, onnx::TensorProto::FLOAT, in.name() + "_float32");
      }
      define(in.name(), id);
    }
    bindings_.check_all_used(path_);
    for (auto& n : graph.node()) add_node(n);
    for (auto& out : graph.output()) {
      auto it = ids_.find(out.name());
      if (it == ids_.end()) throw CompileError(path_ + ": graph output '" + out.name() + "' is not produced by any node");
      TensorId id = it->second;
      if (out.type().tensor_type().elem_type() == onnx::TensorProto::FLOAT16) {
        auto bits = float16_bits_.find(out.name());
        if (bits != float16_bits_.end()) {
          id = bits->second;
        } else {  // computed in float32: encode at the end, under the output's name
          g_.tensor(id).name = out.name() + "_float32";
          id = add_cast(id, onnx::TensorProto::FLOAT16, out.name());
        }
      }
      // Legal ONNX, but the generated API has one member, one buffer, per output tensor.
      if (std::count(g_.outputs.begin(), g_.outputs.end(), id))
        throw CompileError(path_ + ": graph output '" + out.name() + "' is listed twice; list it once");
      g_.outputs.push_back(id);
    }
    if (g_.inputs.empty() && graph.node_size() > 0) {
      // Legal, but worth saying: everything will be folded into constants.
    }
    return std::move(g_);
  }

 private:
  onnx::ModelProto parse_model() {
    onnx::ModelProto model;
    if (!model.ParseFromString(bytes_) || !model.has_graph())
      throw CompileError(path_ + ": not a valid ONNX model (the protobuf does not parse; is the file truncated?)");
    return model;
  }

  Tensor input_tensor(const onnx::ValueInfoProto& in) {
    Tensor t;
    t.name = in.name();
    const auto& type = in.type();
    if (!type.has_tensor_type()) throw CompileError(path_ + ": graph input '" + in.name() + "' is not a tensor");
    if (!onnx_dtype(type.tensor_type().elem_type(), &t.dtype))
      throw CompileError(path_ + ": graph input '" + in.name() + "' has unsupported element type " +
                         elem_type_name(type.tensor_type().elem_type()));
    if (!type.tensor_type().has_shape()) throw CompileError(path_ + ": graph input '" + in.name() + "' has no shape");
    std::vector<int64_t> declared;
    std::vector<std::string> dim_names;
    for (auto& d : type.tensor_type().shape().dim()) {
      if (d.has_dim_value() && d.dim_value() == 0)
        throw CompileError(path_ + ": graph input '" + in.name() + "' has a dimension of size 0; tensors without elements are not supported");
      declared.push_back(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value() : -1);
      dim_names.push_back(d.has_dim_param() ? d.dim_param() : "");
    }
    t.shape = bindings_.shape_of(path_, in.name(), declared, dim_names);
    std::string problem = shape_size_problem(t.shape);
    if (!problem.empty()) throw CompileError(path_ + ": graph input '" + in.name() + "': " + problem);
    t.shape_known = true;
    return t;
  }

  TensorId define(const std::string& name, TensorId id) {
    ids_[name] = id;
    scope_names_.insert(name);
    return id;
  }

  // A GRAPH attribute (If's branches, Loop's and Scan's body). Its parameters are new
  // tensors whose element types come from their declarations and whose shapes
  // infer_shapes derives from the operator's inputs; its names may shadow outer ones and
  // are gone after it.
  Subgraph import_subgraph(const onnx::GraphProto& gp, const std::string& attr, const Node& node) {
    Subgraph sub;
    sub.name = attr;
    auto outer_ids = ids_;
    auto outer_names = std::move(scope_names_);
    std::vector<Node>* outer_nodes = nodes_;
    scope_names_.clear();
    nodes_ = &sub.nodes;
    std::string what = "node " + node.label() + ", subgraph '" + attr + "'";
    for (auto& init : gp.initializer()) define(init.name(), g_.add_tensor(widened(convert_tensor(init, what))));
    for (auto& in : gp.input()) {
      Tensor t;
      t.name = in.name();
      const auto& type = in.type();
      if (type.has_sequence_type() || type.has_optional_type() || type.has_map_type())
        throw CompileError(what + ": parameter '" + in.name() + "' is not a tensor (sequences, optionals and maps are not supported)");
      if (type.has_tensor_type() && type.tensor_type().elem_type() != 0 &&
          !onnx_dtype(type.tensor_type().elem_type(), &t.dtype))
        throw CompileError(what + ": parameter '" + in.name() + "' has unsupported element type " +
                           elem_type_name(type.tensor_type().elem_type()));
      sub.inputs.push_back(define(in.name(), g_.add_tensor(std::move(t))));
    }
    for (auto& n : gp.node()) add_node(n);
    for (auto& out : gp.output()) {
      auto it = ids_.find(out.name());
      if (it == ids_.end()) throw CompileError(what + ": output '" + out.name() + "' is not computed in it or before it");
      if (out.type().has_sequence_type() || out.type().has_optional_type())
        throw CompileError(what + ": output '" + out.name() + "' is not a tensor (sequences and optionals are not supported)");
      sub.outputs.push_back(it->second);
    }
    ids_ = std::move(outer_ids);
    scope_names_ = std::move(outer_names);
    nodes_ = outer_nodes;
    return sub;
  }

  void add_node(const onnx::NodeProto& n) {
    Node node;
    node.name = n.name();
    node.op = n.op_type();
    // Unnamed nodes are common in exported models; an output names them in messages.
    for (int i = 0; i < n.output_size() && node.name.empty(); ++i) node.name = n.output(i);
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      node_error(node, "operator domain '" + n.domain() + "' is not supported");
    check_onnx_operator_version(node, g_.opset);
    if (node.op == "Constant") return add_constant(n, node);
    for (auto& a : n.attribute())
      if (a.type() != onnx::AttributeProto::GRAPH) node.attrs[a.name()] = convert_attribute(a, node);
    for (auto& in : n.input()) {
      if (in.empty()) {
        node.inputs.push_back(kNoTensor);
        continue;
      }
      auto it = ids_.find(in);
      if (it == ids_.end())
        node_error(node, "input '" + in + "' is not a graph input, an initializer, or the output of an earlier node");
      node.inputs.push_back(it->second);
    }
    // Subgraphs read the values defined before this node; their own names stay inside.
    for (auto& a : n.attribute()) {
      if (a.type() != onnx::AttributeProto::GRAPH) continue;
      if (node.op != "If" && node.op != "Loop" && node.op != "Scan")
        node_error(node, "attribute '" + a.name() + "' is a subgraph; aotc reads subgraphs of If, Loop and Scan only");
      node.subgraphs.push_back(import_subgraph(a.g(), a.name(), node));
    }
    if (!node.subgraphs.empty()) declare_captured_inputs(g_, node);
    for (auto& out : n.output()) {
      if (out.empty()) {
        node.outputs.push_back(kNoTensor);
        continue;
      }
      if (scope_names_.count(out)) node_error(node, "output '" + out + "' is defined twice");
      Tensor t;
      t.name = out;
      node.outputs.push_back(define(out, g_.add_tensor(std::move(t))));
    }
    // float16 (see above): a CastLike to a float16 tensor is a Cast to float16, whose
    // readers read its value decoded to float32 right after it.
    if (node.op == "CastLike" && n.input_size() == 2 && float16_.count(n.input(1))) {
      node.op = "Cast";
      node.inputs.resize(1);
      node.attrs = {{"to", int64_t{onnx::TensorProto::FLOAT16}}};
    }
    bool to_float16 = node.op == "Cast" && node.attr_int("to", 0) == onnx::TensorProto::FLOAT16 && !node.outputs.empty() &&
                      node.outputs[0] != kNoTensor;
    bool reads_float16 = false;
    for (auto& in : n.input()) reads_float16 |= float16_.count(in) != 0;
    TensorId bits = to_float16 ? node.outputs[0] : kNoTensor;
    std::vector<std::string> outputs(n.output().begin(), n.output().end());
    nodes_->push_back(std::move(node));
    if (to_float16) {
      float16_.insert(outputs[0]);
      float16_bits_[outputs[0]] = bits;
      define(outputs[0], add_cast(bits, onnx::TensorProto::FLOAT, outputs[0] + "_float32"));
    } else if (reads_float16 && n.op_type() != "Cast" && n.op_type() != "CastLike") {
      // What a later CastLike needs to know: an operator of float16 operands has float16
      // results (those that are floating point at all).
      float16_.insert(outputs.begin(), outputs.end());
    }
  }

  // Appends a Cast of `input` to ONNX element type `to`; returns its output, a new tensor
  // named `output_name`.
  TensorId add_cast(TensorId input, int64_t to, const std::string& output_name) {
    Node cast;
    cast.name = output_name;
    cast.op = "Cast";
    cast.attrs["to"] = to;
    cast.inputs = {input};
    Tensor t;
    t.name = output_name;
    cast.outputs = {g_.add_tensor(std::move(t))};
    nodes_->push_back(cast);
    return cast.outputs[0];
  }

  // Remembers a float16 constant's name (for CastLike); returns it unchanged.
  Tensor note_float16(Tensor t) {
    if (t.dtype.is_float16()) float16_.insert(t.name);
    return t;
  }

  void add_constant(const onnx::NodeProto& n, const Node& node) {
    if (n.output_size() != 1) node_error(node, "Constant must have one output");
    Tensor t;
    for (auto& a : n.attribute()) {
      if (a.name() == "value") {
        t = convert_tensor(a.t(), path_);
      } else if (a.name() == "value_float" || a.name() == "value_int" || a.name() == "value_floats" || a.name() == "value_ints") {
        bool is_float = a.name().find("float") != std::string::npos;
        bool is_list = a.name().back() == 's';
        std::vector<uint8_t> bytes;
        if (is_float) {
          std::vector<float> v = is_list ? std::vector<float>(a.floats().begin(), a.floats().end()) : std::vector<float>{a.f()};
          append_values<float>(v, &bytes);
          t.dtype = DataType::Float32();
          if (is_list) t.shape = {static_cast<int64_t>(v.size())};
        } else {
          std::vector<int64_t> v = is_list ? std::vector<int64_t>(a.ints().begin(), a.ints().end()) : std::vector<int64_t>{a.i()};
          append_values<int64_t>(v, &bytes);
          t.dtype = DataType::Int(64);
          if (is_list) t.shape = {static_cast<int64_t>(v.size())};
        }
        t.shape_known = true;
        t.data = std::move(bytes);
      } else {
        node_error(node, "Constant attribute '" + a.name() + "' is not supported");
      }
    }
    if (!t.data) node_error(node, "Constant has no value");
    t.name = n.output(0);
    define(n.output(0), g_.add_tensor(widened(note_float16(std::move(t)))));
  }

  std::string path_;
  const std::string& bytes_;
  BindingUse bindings_;
  Graph g_;
  std::vector<Node>* nodes_ = &g_.nodes;  // where add_node puts nodes: the graph's or a subgraph's
  std::map<std::string, TensorId> ids_;   // every name in scope
  std::set<std::string> scope_names_;     // the names the innermost scope defines
  // float16 (see above): the names of the model's float16 tensors (held as float32), and
  // for graph inputs and Casts to float16 the tensor of their bit patterns.
  std::set<std::string> float16_;
  std::map<std::string, TensorId> float16_bits_;
};

}  // namespace

Graph import_onnx(const std::string& path, const ShapeBindings& bindings) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw CompileError(path + ": cannot open the file");
  std::stringstream contents;
  contents << f.rdbuf();
  return import_onnx_bytes(contents.str(), path, bindings);
}

Graph import_onnx_bytes(const std::string& bytes, const std::string& source_name, const ShapeBindings& bindings) {
  return OnnxImporter(source_name, bytes, bindings).run();
}

std::optional<DataType> onnx_element_dtype(int64_t elem_type) {
  DataType t;
  if (elem_type < INT32_MIN || elem_type > INT32_MAX || !onnx_dtype(static_cast<int>(elem_type), &t)) return std::nullopt;
  return t;
}

std::string onnx_element_type_name(int64_t elem_type) {
  if (elem_type < INT32_MIN || elem_type > INT32_MAX) return "unknown (" + std::to_string(elem_type) + ")";
  return elem_type_name(static_cast<int>(elem_type));
}

Tensor parse_onnx_tensor(const std::string& bytes, const std::string& what) {
  onnx::TensorProto tp;
  if (!tp.ParseFromString(bytes)) throw CompileError(what + ": not a valid ONNX TensorProto");
  return convert_tensor(tp, what);
}

std::string serialize_onnx_tensor(const Tensor& t) {
  onnx::TensorProto tp;
  tp.set_name(t.name);
  tp.set_data_type(onnx_elem_type(t.dtype));
  for (int64_t d : t.shape) tp.add_dims(d);
  tp.set_raw_data(std::string(t.data->begin(), t.data->end()));
  return tp.SerializeAsString();
}

}  // namespace aotc
