// The peak TFLOP/s per rank that MFU and HFU divide by, and where it came from.
#pragma once
#include <optional>
#include <string>

#include "bench/compute/compute_engine.hpp"
#include "bench/flags/run_flags.hpp"

namespace collreplay {

inline constexpr double kGpuPeakTflops = 989;  // H100 / H200 SXM, bf16 dense

struct Peak {
  std::optional<double> tflops;
  std::string source;
};

// Given (--peak-tflops), the modeled GPU's, the GPU default, or (host) the fastest rank's
// measured sgemm. Collective over MPI_COMM_WORLD in the last case, which every rank reaches alike.
Peak choose_peak(const std::optional<double>& given, const RunSetup& setup, ComputeEngine& engine,
                 double timeout_s);

}  // namespace collreplay
