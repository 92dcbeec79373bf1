#include "bench/app/results.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/errors.hpp"

namespace collreplay {
namespace {

std::string directory_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// Root passes access(W_OK) on read-only mounts, so the check really creates a file.
void check_writable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError("--out " + path + ": is a directory");
  std::string probe = directory_of(path) + "/.collreplay-probe-XXXXXX";
  const int fd = mkstemp(probe.data());
  if (fd < 0)
    throw UsageError("--out " + path + ": cannot write in " + directory_of(path) + " (" +
                     std::strerror(errno) + ")");
  close(fd);
  unlink(probe.c_str());
}

}  // namespace

ResultsFile::ResultsFile(std::string path, bool writer) : path_(std::move(path)), writer_(writer) {
  if (!enabled() || !writer_) return;
  check_writable(path_);
  std::error_code ec;
  if (std::filesystem::exists(path_, ec)) std::filesystem::rename(path_, path_ + ".previous", ec);
}

ResultsFile::~ResultsFile() {
  if (file_ && !committed_ && records_ > 0)
    std::fprintf(stderr, "# results: %d record%s measured before the failure kept in %s\n",
                 records_, records_ == 1 ? "" : "s", file_->partial_path().c_str());
}

AtomicFile& ResultsFile::file() {
  if (!file_) file_ = std::make_unique<AtomicFile>(path_, AtomicFile::OnFailure::keep_partial);
  return *file_;
}

void ResultsFile::add(const nlohmann::json& record) {
  if (!enabled() || !writer_) return;
  file().append(record.dump() + "\n");
  ++records_;
}

void ResultsFile::commit() {
  if (!enabled() || !writer_) return;
  file().commit();
  committed_ = true;
}

}  // namespace collreplay
