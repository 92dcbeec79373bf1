#include "workloads/model/gemm_slices.hpp"

namespace collreplay {

double gemm_flops(const GemmShape& g) { return gemm_shape_flops(g); }

double gemm_flops(const std::vector<GemmShape>& gemms) {
  double f = 0;
  for (const GemmShape& g : gemms) f += gemm_flops(g);
  return f;
}

void add_linear_gemms(std::int64_t rows, std::int64_t in, std::int64_t out,
                      const std::string& label, WorkSet& s) {
  if (rows <= 0) return;
  s.fwd.add_gemm({rows, out, in, 1, label + " fwd"});
  s.bwd.add_gemm({rows, in, out, 1, label + " dgrad"});
  s.bwd.add_gemm({out, in, rows, 1, label + " wgrad", true});
}

void add_attention_gemms(std::int64_t micro_batch, std::int64_t seq, std::int64_t heads,
                         std::int64_t qk_dim, std::int64_t v_dim, const std::string& label,
                         WorkSet& s) {
  const std::int64_t batch = micro_batch * heads, keys = (seq + 1) / 2;
  s.fwd.add_gemm({seq, keys, qk_dim, batch, label + " scores QK^T (causal half) fwd"});
  s.fwd.add_gemm({seq, v_dim, keys, batch, label + " context PV (causal half) fwd"});
  s.bwd.add_gemm({seq, keys, v_dim, batch, label + " dP = dO V^T (causal half)"});
  s.bwd.add_gemm({keys, v_dim, seq, batch, label + " dV = P^T dO (causal half)"});
  s.bwd.add_gemm({seq, qk_dim, keys, batch, label + " dQ = dS K (causal half)"});
  s.bwd.add_gemm({keys, qk_dim, seq, batch, label + " dK = dS^T Q (causal half)"});
}

}  // namespace collreplay
