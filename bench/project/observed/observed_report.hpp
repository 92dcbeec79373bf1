// What `project --observed` prints and writes: every fitted parameter with its unit, its range
// over the plausible sets and its meaning; each row's residual; held-out rows against their
// predictions; the projection's tokens/s per GPU with the band. Records: "observed_fit",
// "observed_check" (a held-out row), and the band's fields added to each "projection".
#pragma once
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/project/observed/observed_fit.hpp"
#include "bench/project/projection.hpp"

namespace collreplay::project {

struct ObservedLabels {
  std::string table;  // the --observed file
  std::string gpu;    // the GPU whose peak and memory the compute terms refer to
  std::optional<double> peak_tflops;
};

void print_observed_fit(const ObservedFit& fit, const ObservedLabels& labels, std::ostream& out);
nlohmann::json observed_fit_json(const ObservedFit& fit, const ObservedLabels& labels);

// A row kept out of the fit, predicted: tokens/s per GPU with the band of the plausible sets.
struct HeldOutPrediction {
  ObservedRow row;
  double predicted = 0, lo = 0, hi = 0;
  double error() const { return predicted / row.tokens_per_s_per_gpu - 1; }
};

void print_held_out(const std::vector<HeldOutPrediction>& rows, const std::string& table,
                    std::ostream& out);
std::vector<nlohmann::json> held_out_json(const std::vector<HeldOutPrediction>& rows,
                                          const std::string& fabric, const std::string& table);

// The projection's whole-job tokens/s range over the plausible sets, per row.
struct TokensBand {
  double lo = 0, hi = 0;
};

void print_observed_projection(const std::vector<ProjectionRow>& rows,
                               const std::vector<TokensBand>& bands, std::ostream& out);
// Adds the whole job's band to a projection record (the per-GPU intervals are the row's).
void add_band_json(nlohmann::json& record, const TokensBand& band);

}  // namespace collreplay::project
