#include "aot/driver/file_utils.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "aot/base/errors.h"

extern char** environ;

namespace aotc {

namespace fs = std::filesystem;

namespace {

// Writes `contents` to `path`; CompileError if that fails.
void write_bytes(const fs::path& path, const std::string& contents) {
  std::ofstream f(path, std::ios::binary);
  f.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  f.close();
  if (!f) throw CompileError("cannot write " + path.string());
}

}  // namespace

void write_files_atomically(const std::string& dir, const std::map<std::string, std::string>& files) {
  fs::path target = fs::absolute(dir);
  fs::path parent = target.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  fs::path staging = parent / ("." + target.filename().string() + ".aotc-staging-" + std::to_string(getpid()));
  fs::remove_all(staging, ec);
  try {
    if (!fs::create_directory(staging, ec)) throw CompileError("cannot create directory " + staging.string());
    for (auto& [name, contents] : files) write_bytes(staging / name, contents);
    if (!fs::exists(target)) {
      fs::rename(staging, target, ec);
      if (ec) throw CompileError("cannot create " + target.string() + ": " + ec.message());
      return;
    }
    if (!fs::is_directory(target)) throw CompileError(target.string() + " exists and is not a directory");
    for (auto& [name, contents] : files) {
      fs::rename(staging / name, target / name, ec);
      if (ec) throw CompileError("cannot move " + name + " into " + target.string() + ": " + ec.message());
    }
    fs::remove_all(staging, ec);
  } catch (...) {
    fs::remove_all(staging, ec);
    throw;
  }
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  fs::path target = fs::absolute(path);
  fs::path staging = target.parent_path() / ("." + target.filename().string() + ".aotc-staging-" + std::to_string(getpid()));
  std::error_code ec;
  try {
    write_bytes(staging, contents);
  } catch (const CompileError&) {
    fs::remove(staging, ec);
    throw CompileError("cannot write " + target.string());
  }
  fs::rename(staging, target, ec);
  if (ec) {
    fs::remove(staging, ec);
    throw CompileError("cannot write " + target.string() + ": " + ec.message());
  }
}

TempDir::TempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/" + prefix + "-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw CompileError("cannot create a temporary directory in " + pattern);
  path_ = buf.data();
}

TempDir::~TempDir() {
  if (keep_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

int run_process(const std::vector<std::string>& argv, std::string* output) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw CompileError("cannot create a pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (err != 0) {
    close(pipe_fds[0]);
    throw CompileError("cannot run '" + argv[0] + "': " + std::string(strerror(err)));
  }
  char buf[4096];
  ssize_t n;
  while ((n = read(pipe_fds[0], buf, sizeof buf)) > 0) {
    if (output) output->append(buf, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> words;
  std::string w;
  while (is >> w) words.push_back(w);
  return words;
}

}  // namespace aotc
