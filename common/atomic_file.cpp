#include "common/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/errors.hpp"

namespace collreplay {

AtomicFile::AtomicFile(std::string path, OnFailure on_failure)
    : path_(std::move(path)), on_failure_(on_failure) {
  // fopen creates with 0666 & ~umask: shared like any output file.
  file_ = std::fopen(partial_path().c_str(), "w");
  if (!file_)
    throw UsageError("cannot write '" + path_ + "' (creating " + partial_path() + ": " +
                     std::strerror(errno) + ")");
}

AtomicFile::~AtomicFile() {
  if (!committed_) abandon();
}

void AtomicFile::append(std::string_view text) {
  if (!file_) throw RuntimeError("writing '" + path_ + "' after it was closed");
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
    throw RuntimeError("cannot write " + partial_path() + ": " + std::strerror(errno));
}

void AtomicFile::commit() {
  if (!file_) throw RuntimeError("committing '" + path_ + "' twice");
  bool ok = std::fflush(file_) == 0 && fsync(fileno(file_)) == 0;
  ok = std::fclose(file_) == 0 && ok;
  file_ = nullptr;
  if (!ok || std::rename(partial_path().c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    abandon();
    throw RuntimeError("cannot write '" + path_ + "': " + why);
  }
  committed_ = true;
}

void AtomicFile::abandon() {
  if (file_) std::fclose(file_);
  file_ = nullptr;
  if (on_failure_ == OnFailure::remove) unlink(partial_path().c_str());
}

void write_file_atomically(const std::string& path, std::string_view content) {
  AtomicFile file(path, AtomicFile::OnFailure::remove);
  file.append(content);
  file.commit();
}

}  // namespace collreplay
