// Makes a device stream wait for an event of another stream (a GPU dependency between the
// compute and comm streams, or between two communicators' streams). cuda/stream_wait.cpp does
// it with cudaStreamWaitEvent; the host-only build's cuda/no_cuda.cpp throws, as host
// executors never call it.
#pragma once
#include "collectives/communicator.hpp"

namespace collreplay {

void stream_wait(void* native_stream, const StreamEvent& event);

}  // namespace collreplay
