// Test support: holds a CUDA stream behind a host function until released, so that work queued
// after it waits as it would behind kernels that wait for a stopped peer, and the stream's queue
// fills up. The stream is passed as void* (a cudaStream_t) so host code includes this header
// without CUDA. Built from stream_hold.cpp with CUDA; this folder's no_cuda.cpp throws UsageError
// elsewhere.
#pragma once
#include <atomic>

namespace collreplay {

// Queues on `stream` a host function that returns once *release is true (polled every
// millisecond); `release` must outlive it.
void hold_stream_until(void* stream, const std::atomic<bool>* release);

}  // namespace collreplay
