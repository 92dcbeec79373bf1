#include "collectives/host/host_memory.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <utility>

#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {

void* allocate_host_buffer(std::size_t bytes) {
  constexpr std::size_t kPage = 4096, kHugePage = std::size_t{2} << 20;
  const std::size_t page = bytes >= kHugePage ? kHugePage : kPage;
  const std::size_t rounded = bytes == 0 ? page : (bytes + page - 1) / page * page;
  void* buffer = std::aligned_alloc(page, rounded);
  if (!buffer) throw RuntimeError("cannot allocate " + format_bytes(bytes) + " of host memory");
  if (page == kHugePage) madvise(buffer, rounded, MADV_HUGEPAGE);  // advice: ignored where off
  return buffer;
}

void free_host_buffer(void* buffer) { std::free(buffer); }

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    free_host_buffer(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void HostBuffer::reserve(std::size_t bytes) {
  if (bytes <= size_ && data_) return;
  char* grown = static_cast<char*>(allocate_host_buffer(bytes));
  free_host_buffer(data_);
  data_ = grown;
  size_ = bytes;
}

}  // namespace collreplay
