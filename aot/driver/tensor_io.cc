#include "aot/driver/tensor_io.h"

#include <fstream>
#include <sstream>

#include "aot/import/onnx_importer.h"

namespace aotc {
namespace {

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw CompileError(path + ": cannot open the file");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string npy_descr(DataType t) {
  if (t.is_bool()) return "|b1";
  char kind = t.is_float() ? 'f' : (t.is_int() ? 'i' : 'u');
  return std::string(t.bits == 8 ? "|" : "<") + kind + std::to_string(t.bytes());
}

std::string describe(const Tensor& t) { return "'" + t.name + "' (" + t.dtype.str() + shape_str(t.shape) + ")"; }

std::vector<uint8_t> read_npy(const std::string& path, const std::string& bytes, const Tensor& expected) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw CompileError(path + ": not a .npy file");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    header_start = 10;
  } else {
    if (bytes.size() < 12) throw CompileError(path + ": truncated .npy header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    header_start = 12;
  }
  if (header_start + header_len > bytes.size()) throw CompileError(path + ": truncated .npy header");
  std::string header = bytes.substr(header_start, header_len);
  if (header.find("'fortran_order': True") != std::string::npos)
    throw CompileError(path + ": Fortran-ordered arrays are not supported; save with np.ascontiguousarray");
  std::string want = "'descr': '" + npy_descr(expected.dtype) + "'";
  if (header.find(want) == std::string::npos)
    throw CompileError(path + ": array type does not match " + describe(expected) + " (header: " + header + ")");
  std::vector<uint8_t> data(bytes.begin() + static_cast<long>(header_start + header_len), bytes.end());
  if (static_cast<int64_t>(data.size()) != expected.size_bytes())
    throw CompileError(path + ": has " + std::to_string(data.size()) + " bytes of data but " + describe(expected) + " needs " +
                       std::to_string(expected.size_bytes()));
  return data;
}

}  // namespace

std::string npy_bytes(const Tensor& t) {
  std::string shape = "(";
  for (size_t i = 0; i < t.shape.size(); ++i) shape += std::to_string(t.shape[i]) + (t.shape.size() == 1 || i + 1 < t.shape.size() ? "," : "");
  shape += ")";
  std::string header = "{'descr': '" + npy_descr(t.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(t.data->begin(), t.data->end());
  return out;
}

std::vector<uint8_t> read_tensor_file(const std::string& path, const Tensor& expected) {
  std::string bytes = read_all(path);
  if (has_suffix(path, ".npy")) return read_npy(path, bytes, expected);
  if (has_suffix(path, ".pb")) {
    Tensor t = parse_onnx_tensor(bytes, path);
    if (t.dtype != expected.dtype || t.num_elements() != expected.num_elements())
      throw CompileError(path + ": holds " + t.dtype.str() + shape_str(t.shape) + " but input " + describe(expected) +
                         " is expected");
    return *t.data;
  }
  if (static_cast<int64_t>(bytes.size()) != expected.size_bytes())
    throw CompileError(path + ": has " + std::to_string(bytes.size()) + " bytes but input " + describe(expected) +
                       " needs " + std::to_string(expected.size_bytes()));
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

void write_tensor_file(const std::string& path, const Tensor& t) {
  std::string bytes;
  if (has_suffix(path, ".npy")) bytes = npy_bytes(t);
  else if (has_suffix(path, ".pb")) bytes = serialize_onnx_tensor(t);
  else bytes.assign(t.data->begin(), t.data->end());
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw CompileError(path + ": cannot write the file");
}

}  // namespace aotc
