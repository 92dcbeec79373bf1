// Published parameter totals derived from the catalog, and catalog loading errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/model/model.hpp"

namespace collreplay {
namespace {

using test::rounded;

TEST(WorkloadsModel, CatalogModelsNameTheirSource) {
  for (const auto& n : catalog_model_names()) EXPECT_FALSE(load_model(n, "").source.empty()) << n;
}

TEST(WorkloadsModel, Qwen25_7bPublishedTotals) {
  const ModelTotals t = model_totals(load_model("qwen2.5-7b", ""));
  EXPECT_EQ(t.params, 7615616512u);
  // Qwen publishes 7.61B (7.6156 truncated) and 6.53B (6.5256 rounded): agree to the last digit.
  EXPECT_NEAR(t.params / 1e9, 7.61, 0.01);
  EXPECT_NEAR(t.params_without_embeddings / 1e9, 6.53, 0.01);
}

// The host-sized models tie lm_head to the embedding: counted once. Qwen publishes 0.49B (0.36B
// without embedding) and 1.54B (1.31B without).
TEST(WorkloadsModel, SmallQwenPublishedTotals) {
  const ModelTotals half = model_totals(load_model("qwen2.5-0.5b", ""));
  EXPECT_EQ(half.params, 494032768u);
  EXPECT_EQ(rounded(half.params_without_embeddings, 1e9, 2), 0.36);
  const ModelTotals one_half = model_totals(load_model("qwen2.5-1.5b", ""));
  EXPECT_EQ(rounded(one_half.params, 1e9, 2), 1.54);
  EXPECT_EQ(rounded(one_half.params_without_embeddings, 1e9, 2), 1.31);
}

TEST(WorkloadsModel, Qwen25_72bPublishedTotal) {
  EXPECT_EQ(rounded(model_totals(load_model("qwen2.5-72b", "")).params, 1e9, 1), 72.7);
}

TEST(WorkloadsModel, MixtralTotalAndActive) {
  const ModelTotals t = model_totals(load_model("mixtral-8x7b", ""));
  EXPECT_EQ(t.params, 46702792704u);
  EXPECT_EQ(rounded(t.params, 1e9, 1), 46.7);
  EXPECT_EQ(rounded(t.active_params, 1e9, 1), 12.9);
}

TEST(WorkloadsModel, LlamaTotals) {
  EXPECT_EQ(model_totals(load_model("llama-3.1-8b", "")).params, 8030261248u);
  EXPECT_EQ(rounded(model_totals(load_model("llama-3-70b", "")).params, 1e9, 1), 70.6);
}

TEST(WorkloadsModel, UnknownModelIsUsageError) {
  EXPECT_THROW(load_model("gpt-17", ""), UsageError);
}

TEST(WorkloadsModel, MissingFieldNamesIt) {
  try {
    parse_model_json(R"({"model_type":"llama","hidden_size":8})", "x.json");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("missing field 'intermediate_size'"), std::string::npos)
        << e.what();
  }
}

TEST(WorkloadsModel, UserModelFileByPath) {
  const std::string path = ::testing::TempDir() + "/tiny-model.json";
  std::ofstream(path) << R"({"model_type":"llama","hidden_size":64,"intermediate_size":128,
    "num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":1000,
    "tie_word_embeddings":true})";
  const ModelConfig m = load_model(path, "");
  EXPECT_EQ(m.name, "tiny-model");
  // layer: q 64*64 + k,v 2*(32*64) + o 64*64 + mlp 3*64*128 + norms 128; embed 64000 tied.
  EXPECT_EQ(model_totals(m).params, 2u * (4096 + 4096 + 4096 + 24576 + 128) + 64 + 64000);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace collreplay
