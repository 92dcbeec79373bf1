#include "bench/executor/stream_wait.hpp"
#include "common/errors.hpp"

namespace collreplay {

void stream_wait(void*, const StreamEvent&) {
  throw RuntimeError("stream_wait: this build has no CUDA, so there are no device streams");
}

}  // namespace collreplay
