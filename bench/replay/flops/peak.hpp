// The peak TFLOP/s per rank that MFU and HFU divide by, and where it came from.
#pragma once
#include <optional>
#include <string>

#include "bench/compute/compute_engine.hpp"
#include "bench/compute/gpu_peaks.hpp"
#include "bench/flags/run_flags.hpp"

namespace collreplay {

struct Peak {
  std::optional<double> tflops;
  std::string source;
};

// The GPU's own dense bf16 peak, by the name its driver gives it (gpu_peaks.hpp); none, said so,
// for a GPU not listed: MFU once divided by 989 TFLOP/s whatever the device.
inline Peak device_peak(const std::string& device_name) {
  if (const std::optional<double> tflops = device_bf16_dense_tflops(device_name))
    return {tflops, device_name + " bf16 dense (datasheet)"};
  return {std::nullopt, "unknown GPU '" + device_name +
                            "': no bf16 dense peak known, no MFU (give --peak-tflops)"};
}

// Given (--peak-tflops), the modeled GPU's, the GPU's own by its name (device_peak), or (host)
// the fastest rank's measured sgemm. Collective over MPI_COMM_WORLD in the last case, which every
// rank reaches alike.
Peak choose_peak(const std::optional<double>& given, const RunSetup& setup, ComputeEngine& engine,
                 double timeout_s);

}  // namespace collreplay
