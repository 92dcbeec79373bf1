// The one way collreplay writes an output file: into "<path>.partial" as the content arrives
// (each append is flushed, so what was measured survives a crash), then fsync and rename over
// <path> at commit(). A reader therefore sees either the previous complete file or the new
// complete one at <path>, never a half-written one. Without commit (an exception, a failed run)
// the partial file is kept under its clearly named ".partial" path, or removed (OnFailure).
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace collreplay {

class AtomicFile {
 public:
  enum class OnFailure { keep_partial, remove };
  // Creates (truncates) "<path>.partial" now; UsageError naming `path` when it cannot.
  AtomicFile(std::string path, OnFailure on_failure);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void append(std::string_view text);  // RuntimeError on I/O failure
  void commit();                       // RuntimeError on failure (the partial file is handled
                                       // as OnFailure says)
  const std::string& path() const { return path_; }
  std::string partial_path() const { return path_ + ".partial"; }

 private:
  void abandon();

  std::string path_;
  OnFailure on_failure_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

// The whole of `content` at `path`, atomically (nothing is left behind on failure).
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace collreplay
