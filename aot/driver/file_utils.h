// Small filesystem and process helpers for the driver: staged output directories (so a
// failed compile never leaves half-written files behind), temporary directories, and
// running a child process with its output captured.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace aotc {

// Writes all `files` into `dir` or nothing: they are written to a staging directory
// beside `dir` first and moved into place only when every write has succeeded.
// Throws CompileError on failure, after removing the staging directory.
void write_files_atomically(const std::string& dir, const std::map<std::string, std::string>& files);

// Writes `contents` to the file `path` or nothing: a file beside it first, renamed into
// place when the write has succeeded. Throws CompileError on failure.
void write_file_atomically(const std::string& path, const std::string& contents);

// A fresh directory under $TMPDIR (or /tmp), removed when the object is destroyed
// unless keep() was called.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  std::string path_;
  bool keep_ = false;
};

// Runs argv[0] (searched in PATH) with the arguments; returns its exit status (or 128 +
// signal), with stdout and stderr together in *output.
int run_process(const std::vector<std::string>& argv, std::string* output);

// Splits a string on whitespace (for $CFLAGS).
std::vector<std::string> split_words(const std::string& s);

}  // namespace aotc
