#include "bench/app/results.hpp"

#include <sys/stat.h>
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
  if (enabled() && writer_) check_writable(path_);
}

void ResultsFile::add(nlohmann::json record) { records_.push_back(std::move(record)); }

void ResultsFile::commit() {
  if (!enabled() || !writer_) return;
  std::string temp = path_ + ".tmp.XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw RuntimeError("cannot create " + temp + ": " + std::strerror(errno));
  FILE* file = fdopen(fd, "w");
  bool ok = file != nullptr;
  for (const nlohmann::json& record : records_) {
    if (!ok) break;
    const std::string line = record.dump() + "\n";
    ok = std::fwrite(line.data(), 1, line.size(), file) == line.size();
  }
  ok = file && std::fflush(file) == 0 && fsync(fileno(file)) == 0 && ok;
  if (file) ok = std::fclose(file) == 0 && ok;
  else close(fd);
  // mkstemp creates 0600; results are meant to be shared like any output file.
  const mode_t mask = umask(0);
  umask(mask);
  chmod(temp.c_str(), 0666 & ~mask);
  if (!ok || std::rename(temp.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlink(temp.c_str());
    throw RuntimeError("cannot write results to " + path_ + ": " + why);
  }
}

}  // namespace collreplay
