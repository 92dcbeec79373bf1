// Host memory for message buffers. Large buffers sit on huge pages where the kernel gives them on
// request (transparent huge pages in "madvise" or "always" mode): shared-memory transports pin
// (CMA) or map every page of a large message for each transfer, and one 2 MiB page costs one pin
// where 4 KiB pages cost 512. Measured on 4 ranks of a 2-core host: all-to-all 1.5-1.7x faster at
// 4 and 16 MiB (bench/RESULTS.md). Small buffers keep 4 KiB pages, so that many small buffers are
// not each rounded up to 2 MiB.
#pragma once
#include <cstddef>

namespace collreplay {

// At least `bytes` (one page for 0), page-aligned; throws RuntimeError when memory runs out.
void* allocate_host_buffer(std::size_t bytes);
void free_host_buffer(void* buffer);

// An owned host buffer from allocate_host_buffer, movable, its contents undefined when grown.
class HostBuffer {
 public:
  HostBuffer() = default;
  ~HostBuffer() { free_host_buffer(data_); }
  HostBuffer(HostBuffer&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  // Makes room for `bytes`, dropping the contents when it has to grow.
  void reserve(std::size_t bytes);
  char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace collreplay
