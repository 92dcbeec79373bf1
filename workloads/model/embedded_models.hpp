// The catalog files compiled into the binary ($(BUILD)/gen/model_catalog.cpp, written by
// workloads/embed_models.sh), so `replay` finds its models from any working directory.
#pragma once
#include <string_view>
#include <utility>
#include <vector>

namespace collreplay {

// (model name = file name without .json, file text), in file-name order.
std::vector<std::pair<std::string_view, std::string_view>> embedded_model_files();

}  // namespace collreplay
