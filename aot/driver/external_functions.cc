#include "aot/driver/external_functions.h"

#include <fstream>
#include <memory>
#include <iterator>
#include <nlohmann/json.hpp>

namespace aotc {
namespace {

constexpr const char* kIndexFile = "artifacts.json";
constexpr int kIndexVersion = 1;

const char* entry_kind(RegionEntry::Kind kind) {
  switch (kind) {
    case RegionEntry::Kind::kArtifact: return "artifact";
    case RegionEntry::Kind::kScratch: return "scratch";
    case RegionEntry::Kind::kInput: return "input";
    case RegionEntry::Kind::kOutput: return "output";
  }
  return "";
}

nlohmann::json function_json(const ExternalFunction& f, const std::vector<Artifact>& artifacts) {
  nlohmann::json j;
  j["name"] = f.name;
  j["backend"] = f.backend;
  j["invoke"] = f.invoke;
  j["stream"] = f.stream;
  for (const RegionEntry& e : f.table) {
    nlohmann::json entry = {{"kind", entry_kind(e.kind)}};
    if (e.kind == RegionEntry::Kind::kArtifact) entry["artifact"] = e.artifact;
    if (e.kind == RegionEntry::Kind::kScratch) entry["bytes"] = e.bytes;
    if (e.kind == RegionEntry::Kind::kInput || e.kind == RegionEntry::Kind::kOutput) entry["index"] = e.index;
    j["table"].push_back(entry);
  }
  j["macs"] = f.macs;
  j["estimated_cycles"] = f.cycles;
  j["nodes"] = f.nodes;
  j["artifacts"] = nlohmann::json::array();
  for (const Artifact& a : artifacts)
    j["artifacts"].push_back({{"name", a.name}, {"format", a.format}, {"file", a.name + ".bin"}, {"bytes", a.bytes.size()}});
  return j;
}

// The function `node` names, as --emit-artifacts wrote it into `dir`.
class ArtifactReader {
 public:
  explicit ArtifactReader(std::string dir) : dir_(std::move(dir)) {
    std::ifstream in(dir_ + "/" + kIndexFile);
    if (!in) throw CompileError("--artifacts " + dir_ + ": no " + kIndexFile + " (written by aotc compile --emit-artifacts)");
    index_ = nlohmann::json::parse(in, nullptr, false);
    if (index_.is_discarded() || !index_.is_object() || index_.value("version", 0) != kIndexVersion ||
        !index_.contains("functions") || !index_["functions"].is_array())
      throw CompileError("--artifacts " + dir_ + ": " + kIndexFile + " is not an artifact index of version " +
                         std::to_string(kIndexVersion));
  }

  ExternalFunction read(const Node& node) const {
    std::string where = "--artifacts " + dir_ + ": ";
    for (const nlohmann::json& j : index_["functions"]) {
      if (!j.is_object() || j.value("name", "") != node.name) continue;
      try {
        return parse(node, j);
      } catch (const nlohmann::json::exception& e) {
        throw CompileError(where + "function '" + node.name + "': " + e.what());
      }
    }
    throw CompileError(where + "no external function '" + node.name + "' (were the artifacts written for another model or target?)");
  }

 private:
  ExternalFunction parse(const Node& node, const nlohmann::json& j) const {
    std::string where = "--artifacts " + dir_ + ": function '" + node.name + "': ";
    ExternalFunction f;
    f.name = node.name;
    f.backend = j.at("backend").get<std::string>();
    if (f.backend != node.attr_string(kExternalBackendAttr, ""))
      throw CompileError(where + "made by backend '" + f.backend + "', but the target's NPU is '" +
                         node.attr_string(kExternalBackendAttr, "") + "'");
    f.invoke = j.at("invoke").get<std::string>();
    f.stream = j.at("stream").get<std::string>();
    for (const nlohmann::json& e : j.at("table")) {
      RegionEntry entry;
      std::string kind = e.at("kind").get<std::string>();
      if (kind == "artifact") entry = {RegionEntry::Kind::kArtifact, e.at("artifact").get<std::string>(), 0, 0};
      else if (kind == "scratch") entry = {RegionEntry::Kind::kScratch, "", e.at("bytes").get<int64_t>(), 0};
      else if (kind == "input") entry = {RegionEntry::Kind::kInput, "", 0, e.at("index").get<int64_t>()};
      else if (kind == "output") entry = {RegionEntry::Kind::kOutput, "", 0, e.at("index").get<int64_t>()};
      else throw CompileError(where + "unknown region kind '" + kind + "'");
      f.table.push_back(entry);
    }
    f.macs = j.at("macs").get<int64_t>();
    f.cycles = j.at("estimated_cycles").get<int64_t>();
    f.nodes = j.at("nodes").get<std::vector<std::string>>();
    for (const nlohmann::json& a : j.at("artifacts")) {
      Artifact artifact{a.at("name").get<std::string>(), a.at("format").get<std::string>(), {}};
      std::string file = a.at("file").get<std::string>();
      if (file.empty() || file.find('/') != std::string::npos || file[0] == '.')
        throw CompileError(where + "artifact file '" + file + "' is not a plain file name");
      std::ifstream in(dir_ + "/" + file, std::ios::binary);
      if (!in) throw CompileError(where + "cannot read " + dir_ + "/" + file);
      artifact.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (artifact.bytes.size() != a.at("bytes").get<size_t>())
        throw CompileError(where + dir_ + "/" + file + " has " + std::to_string(artifact.bytes.size()) +
                           " bytes, the index says " + std::to_string(a.at("bytes").get<size_t>()));
      f.artifacts.push_back(std::move(artifact));
    }
    return f;
  }

  std::string dir_;
  nlohmann::json index_;
};

}  // namespace

void compile_external(CompiledModel& m, const std::string& artifacts_dir) {
  std::vector<Artifact>& artifacts = m.attrs[kExternalArtifactsAttr];
  artifacts.clear();
  std::unique_ptr<ArtifactReader> reader;
  for (Node& node : m.graph.nodes) {
    if (node.op != kExternalOp) continue;
    if (!reader && !artifacts_dir.empty()) reader = std::make_unique<ArtifactReader>(artifacts_dir);
    ExternalFunction f;
    if (reader) {
      f = reader->read(node);
    } else {
      std::string backend_name = node.attr_string(kExternalBackendAttr, "");
      const ExternalBackend* backend = find_external_backend(backend_name);
      if (!backend) node_error(node, "no external backend '" + backend_name + "'");
      if (!m.target.npu || m.target.npu->backend != backend_name)
        node_error(node, "runs on an NPU of backend '" + backend_name + "', but target '" + m.target.name + "' has " +
                             (m.target.npu ? "backend '" + m.target.npu->backend + "'" : std::string("no NPU ([npu] table)")) +
                             (backend_name == "ethos-u" ? "; compile for an Ethos-U target, e.g. --target cortex-m55-ethos-u55" : ""));
      f = backend->compile(m.graph, node, *m.target.npu);
    }
    for (const Artifact& a : f.artifacts)
      for (const Artifact& other : artifacts)
        if (a.name == other.name) node_error(node, "artifact '" + a.name + "' is made twice");
    set_external_call(node, f);
    artifacts.insert(artifacts.end(), f.artifacts.begin(), f.artifacts.end());
  }
  if (artifacts.empty()) m.attrs.erase(kExternalArtifactsAttr);
}

std::map<std::string, std::string> artifact_files(const CompiledModel& m) {
  std::map<std::string, std::string> files;
  nlohmann::json index = {{"version", kIndexVersion}, {"model", m.name}, {"target", m.target.name}};
  index["functions"] = nlohmann::json::array();
  auto all = m.attrs.find(kExternalArtifactsAttr);
  for (const Node& node : m.graph.nodes) {
    if (node.op != kExternalOp || all == m.attrs.end()) continue;
    ExternalFunction f = external_call(node);
    std::vector<Artifact> artifacts;
    for (const Artifact& sized : f.artifacts)
      for (const Artifact& a : all->second)
        if (a.name == sized.name) artifacts.push_back(a);
    index["functions"].push_back(function_json(f, artifacts));
    for (const Artifact& a : artifacts) files[a.name + ".bin"] = std::string(a.bytes.begin(), a.bytes.end());
  }
  files[kIndexFile] = index.dump(2) + "\n";
  return files;
}

}  // namespace aotc
