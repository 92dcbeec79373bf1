#include "bench/compute_cublas.hpp"

#include "common/errors.hpp"

namespace collreplay {

std::unique_ptr<ComputeEngine> make_cublas_engine(int) {
  throw UsageError("this build has no GPU compute engine");
}

}  // namespace collreplay
