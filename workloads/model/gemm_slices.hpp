// GEMM shapes of one module for a number of rows: forward, and backward as dgrad + wgrad.
// FLOPs = 2 * M * N * K * batch for every shape.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/model/work.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

double gemm_flops(const GemmShape& g);
double gemm_flops(const std::vector<GemmShape>& gemms);

// y[rows x out] = x[rows x in] W^T. dgrad: dx = dy W (rows x in x out); wgrad: dW = dy^T x
// (out x in x rows). Nothing when rows == 0 (an expert that got no tokens).
void add_linear_gemms(std::int64_t rows, std::int64_t in, std::int64_t out,
                      const std::string& label, WorkSet& out_set);

// Attention core for micro_batch x heads batched GEMMs, causal-half: a causal mask leaves each
// query ceil(seq/2) keys on average, so the key length is counted as ceil(seq/2). q and k have
// qk_dim per head, v has v_dim (equal but for multi-head latent attention: 192 and 128).
//   fwd: scores S = Q K^T (seq x seq/2 x qk), context O = P V (seq x v x seq/2)
//   bwd: dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q (twice the forward)
void add_attention_gemms(std::int64_t micro_batch, std::int64_t seq, std::int64_t heads,
                         std::int64_t qk_dim, std::int64_t v_dim, const std::string& label,
                         WorkSet& out_set);

}  // namespace collreplay
