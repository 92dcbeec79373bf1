// Host message buffers: page alignment (2 MiB from 2 MiB up, where huge pages can back them),
// every byte writable, and a pooled buffer that grows on demand and moves without copying.
#include "collectives/host/host_memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>

namespace collreplay {
namespace {

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

TEST(HostMemory, SmallBuffersArePageAlignedAndLargeOnesHugePageAligned) {
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{5000}, std::size_t{2} << 20,
                            (std::size_t{2} << 20) + 3}) {
    void* buffer = allocate_host_buffer(bytes);
    ASSERT_NE(buffer, nullptr);
    const std::size_t alignment = bytes >= (std::size_t{2} << 20) ? std::size_t{2} << 20 : 4096;
    EXPECT_EQ(address(buffer) % alignment, 0u) << bytes << " bytes";
    std::memset(buffer, 0x5a, bytes);  // every byte asked for is writable
    free_host_buffer(buffer);
  }
}

TEST(HostMemory, BufferGrowsOnDemandAndMovesItsStorage) {
  HostBuffer buffer;
  EXPECT_EQ(buffer.size(), 0u);
  buffer.reserve(100);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 100u);
  char* first = buffer.data();
  buffer.reserve(50);  // fits: same storage
  EXPECT_EQ(buffer.data(), first);
  buffer.reserve(3u << 20);
  EXPECT_EQ(buffer.size(), 3u << 20);
  std::memset(buffer.data(), 1, buffer.size());
  char* grown = buffer.data();
  HostBuffer moved(std::move(buffer));
  EXPECT_EQ(moved.data(), grown);
  EXPECT_EQ(buffer.data(), nullptr);
  HostBuffer assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.data(), grown);
  EXPECT_EQ(assigned.size(), 3u << 20);
}

}  // namespace
}  // namespace collreplay
