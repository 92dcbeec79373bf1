// Hugging Face config.json as downloaded: read by the one model loader, named by its path, with
// the catalog in the same format; bad files are one UsageError naming file, field and families.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/errors.hpp"
#include "tests/unit/models/hf_fixture.hpp"
#include "workloads/model/model.hpp"
#include "workloads/plan/request.hpp"
#include "workloads/plan/schedule_builder.hpp"
#include "workloads/schedule_json.hpp"

namespace collreplay {
namespace {

using test::hf_config;
using test::hf_folder;

std::string error_of(const std::string& text) {
  try {
    parse_model_json(text, "dir/config.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelHfConfig, PublishedQwen25_7bByFileAndFolder) {
  const ModelConfig file = load_model(hf_config("Qwen2.5-7B"), "");
  const ModelConfig folder = load_model(hf_folder("Qwen2.5-7B"), "");
  EXPECT_EQ(file.name, "Qwen2.5-7B");
  EXPECT_EQ(folder.name, "Qwen2.5-7B");
  EXPECT_EQ(file.family, ModelFamily::qwen2);
  EXPECT_EQ(file.architecture, "Qwen2ForCausalLM");
  // Qwen2's q/k/v biases are modeling_qwen2.py's rule, not a config field.
  EXPECT_TRUE(file.qkv_bias);
  EXPECT_FALSE(file.o_bias);
  EXPECT_EQ(model_totals(file).params, 7615616512u);
  EXPECT_EQ(model_totals(folder).params, 7615616512u);
}

// The published config.json gives the catalog entry's schedule, op for op and byte for byte.
TEST(ModelHfConfig, PublishedQwen25_7bGivesTheCatalogSchedule) {
  WorkloadRequest q;
  q.plan = "fsdp2";
  q.world = 16;
  q.layers = 4;
  q.seq = 2048;
  q.micro_batch = 2;
  q.model = "qwen2.5-7b";
  Schedule catalog = build_schedule(q);
  q.model = hf_folder("Qwen2.5-7B");
  Schedule published = build_schedule(q);
  EXPECT_EQ(published.model, "Qwen2.5-7B");
  published.model = catalog.model;
  EXPECT_EQ(schedule_to_json(published), schedule_to_json(catalog));
}

TEST(ModelHfConfig, NameFromNameOrPathThenHubCacheThenFolder) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "hf_names";
  const fs::path cached = root / "models--Qwen--Qwen2.5-7B" / "snapshots" / "abc123";
  fs::create_directories(cached);
  fs::copy_file(hf_config("Qwen2.5-7B"), cached / "config.json",
                fs::copy_options::overwrite_existing);
  EXPECT_EQ(load_model(cached.string(), "").name, "Qwen2.5-7B");
  std::ifstream in(hf_config("Qwen2.5-7B"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.insert(text.find('{') + 1, "\n  \"_name_or_path\": \"org/my-finetune\",");
  fs::create_directories(root / "ckpt");
  std::ofstream(root / "ckpt" / "config.json") << text;
  EXPECT_EQ(load_model((root / "ckpt").string(), "").name, "my-finetune");
  fs::remove_all(root);
}

TEST(ModelHfConfig, CatalogNamesAreHfConfigsToo) {
  const std::vector<std::string> expected = {
      "deepseek-v3",    "llama-3-70b",  "llama-3.1-8b", "mixtral-8x7b", "nemotron-4-15b",
      "nemotron-4-340b", "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-72b",  "qwen2.5-7b",
      "qwen3-30b-a3b"};
  EXPECT_EQ(catalog_model_names(), expected);
  for (const auto& n : expected) EXPECT_EQ(load_model(n, "").name, n);
  EXPECT_EQ(model_totals(load_model("mixtral-8x7b", "")).params,
            model_totals(load_model(hf_folder("Mixtral-8x7B-v0.1"), "")).params);
}

TEST(ModelHfConfig, UnknownModelTypeNamesFileFieldAndFamilies) {
  const std::string e = error_of(R"({"model_type":"mpt","d_model":4096})");
  EXPECT_NE(e.find("dir/config.json"), std::string::npos) << e;
  EXPECT_NE(e.find("model_type 'mpt'"), std::string::npos) << e;
  EXPECT_NE(e.find("llama, mistral, qwen2, qwen3, mixtral, qwen2_moe, qwen3_moe, deepseek_v3, "
                   "gpt_neox, nemotron"),
            std::string::npos)
      << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(ModelHfConfig, MissingFieldNamesFileFieldAndFamilies) {
  const std::string e = error_of(R"({"model_type":"qwen3_moe","hidden_size":8})");
  EXPECT_NE(e.find("dir/config.json: missing field 'intermediate_size' (model_type 'qwen3_moe')"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("gpt_neox"), std::string::npos) << e;
  EXPECT_NE(error_of("{\"hidden_size\":8}").find("missing field 'model_type'"), std::string::npos);
}

TEST(ModelHfConfig, BadJsonOverflowAndMissingFolderAreUsageErrors) {
  EXPECT_THROW(parse_model_json("{", "x.json"), UsageError);
  EXPECT_THROW(parse_model_json(R"({"model_type":"llama","hidden_size":4294967296,
    "intermediate_size":8,"num_hidden_layers":1,"num_attention_heads":1,
    "vocab_size":4294967296})", "x.json"), UsageError);
  EXPECT_THROW(load_model(::testing::TempDir(), ""), UsageError);  // a folder without config.json
  EXPECT_THROW(load_model("gpt-17", ""), UsageError);
}

TEST(ModelHfConfig, NullMeansUnsetAsTransformersWritesIt) {
  // Mistral-7B's config says "head_dim": null and "sliding_window": null.
  const ModelConfig m = parse_model_json(R"({"model_type":"mistral","hidden_size":4096,
    "intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,
    "num_key_value_heads":8,"vocab_size":32000,"head_dim":null,"sliding_window":null})", "m.json");
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_FALSE(m.tied_embeddings);
}

}  // namespace
}  // namespace collreplay
