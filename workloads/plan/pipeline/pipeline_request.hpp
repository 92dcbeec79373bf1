// What a user asks for pipeline parallelism (--pp, --pp-schedule, --pp-layers), and the one
// (virtual) stage a schedule build covers, which the pipeline builder sets on the requests it
// builds each stage's pieces from. Plain values, checked by pipeline_plan.hpp.
#pragma once
#include <string>

namespace collreplay {

// The decoder layers and the model-level modules of one (virtual) stage: the embedding lives on
// the first stage, the final norm, the output head and the loss on the last.
struct StageSpan {
  int first_layer = 0;
  int layers = -1;  // -1: every layer from first_layer (no pipeline)
  bool embedding = true, head = true;
  bool restricted() const { return layers >= 0; }
};

struct PipelineRequest {
  int pp = 1;  // stages: ranks of one pipeline (pp outermost in the rank layout)
  // gpipe | 1f1b | interleaved:V (V virtual stages per rank); "" is 1f1b.
  std::string schedule;
  // Decoder layers per stage, in stage order (interleaved: per virtual stage), "20,20,20,20";
  // "" splits them evenly.
  std::string layers;
  // Not a flag: the stage a build covers (set by the pipeline builder).
  StageSpan stage;
  // Any pipeline flag given (the pipeline builder checks them, --pp 1 with the others included).
  bool asked() const { return pp != 1 || !schedule.empty() || !layers.empty(); }
};

}  // namespace collreplay
