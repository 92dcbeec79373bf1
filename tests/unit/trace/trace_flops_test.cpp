// FLOPs from traced shapes (record_shapes): exact counts for known GEMM and attention shapes,
// nested ops counted once, and unknown (not 0) without shapes.
#include <gtest/gtest.h>

#include "tests/support/synthetic_trace.hpp"
#include "workloads/trace/read/op_flops.hpp"
#include "workloads/trace/trace_schedule.hpp"

namespace collreplay::trace {
namespace {

using test_trace::Builder;
using test_trace::json;

std::optional<double> flops_of(Builder& b) {
  b.kernel("k", 1, 2, 3);
  return trace_to_schedule(parse_trace(b.text(), "t.json"), true).compute_flops;
}

TEST(TraceFlops, GemmsFromTheirShapes) {
  Builder mm(0, 1);
  mm.op("aten::mm", 10, 5, json::array({{64, 128}, {128, 256}}));
  EXPECT_EQ(flops_of(mm), 2.0 * 64 * 128 * 256);  // 2mnk
  Builder bmm(0, 1);
  bmm.op("aten::bmm", 10, 5, json::array({{4, 8, 16}, {4, 16, 32}}));
  EXPECT_EQ(flops_of(bmm), 2.0 * 4 * 8 * 16 * 32);
  Builder linear(0, 1);  // a linear with nothing traced inside: 2 x rows x in x out
  linear.op("aten::linear", 10, 5, json::array({{8, 16, 32}, {64, 32}, {64}}));
  EXPECT_EQ(flops_of(linear), 2.0 * 8 * 16 * 32 * 64);
}

TEST(TraceFlops, NestedOpsCountOnceAtTheInnermost) {
  Builder b(0, 1);
  // linear -> addmm (forward); matmul -> mm (on the autograd thread, backward).
  b.op("aten::linear", 10, 20, json::array({{128, 32}, {64, 32}, {64}}));
  b.op("aten::addmm", 12, 5, json::array({{64}, {128, 32}, {32, 64}}));
  b.op("aten::matmul", 10, 20, json::array({{128, 64}, {64, 32}}), json(), 2);
  b.op("aten::mm", 15, 3, json::array({{128, 64}, {64, 32}}), json(), 2);
  EXPECT_EQ(flops_of(b), 2.0 * 128 * 32 * 64 * 2);
}

TEST(TraceFlops, AttentionAsFlashAttentionCountsIt) {
  const json qkv = json::array({{2, 4, 128, 64}, {2, 4, 128, 64}, {2, 4, 128, 64}, {}, {}, {}, {}});
  Builder causal(0, 1);  // _scaled_dot_product_flash_attention(q, k, v, dropout_p, is_causal, ...)
  causal.op("aten::_scaled_dot_product_flash_attention", 10, 5, qkv,
            json::array({"", "", "", "0.", "True", "False", ""}));
  EXPECT_EQ(flops_of(causal), 4.0 * 2 * 4 * 128 * 128 * 64 / 2);
  json grads = json::array({{2, 4, 128, 64}});
  for (const json& d : qkv) grads.push_back(d);
  Builder backward(0, 1);  // no "Concrete Inputs": counted as not causal
  backward.op("aten::_scaled_dot_product_efficient_attention_backward", 10, 5, grads);
  EXPECT_EQ(flops_of(backward), 2.5 * 4.0 * 2 * 4 * 128 * 128 * 64);
}

TEST(TraceFlops, UnknownWithoutShapesZeroWithShapesButNoGemm) {
  Builder none(0, 1);
  EXPECT_FALSE(flops_of(none).has_value());
  Builder other(0, 1);
  other.op("aten::add", 10, 5, json::array({{4}, {4}}));
  EXPECT_EQ(flops_of(other), 0.0);
}

}  // namespace
}  // namespace collreplay::trace
