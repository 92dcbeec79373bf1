// Small torch.profiler Chrome traces written in the tests, event by event, with the fields torch
// 2.4 to 2.11 write (record_shapes): host launches and their kernels tied by correlation, NCCL
// kernels with their collective fields, record_param_comms host events, ProfilerStep#N spans and
// shaped cpu_ops.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace collreplay::trace::test_trace {

using nlohmann::json;

// The fields torch writes for one NCCL call on the group `ranks` ("[0, 1]").
inline json call(const std::string& name, std::int64_t in_nelems, std::int64_t out_nelems,
                 const std::string& ranks, const std::string& dtype = "BFloat16") {
  return json{{"Collective name", name},      {"In msg nelems", in_nelems},
              {"Out msg nelems", out_nelems}, {"dtype", dtype},
              {"In split size", "[]"},        {"Out split size", "[]"},
              {"Process Group Name", "0"},    {"Process Group Ranks", ranks}};
}

class Builder {
 public:
  Builder(int rank, int world) {
    doc_["schemaVersion"] = 1;
    doc_["distributedInfo"] = {{"backend", "nccl"}, {"rank", rank}, {"world_size", world}};
    doc_["deviceProperties"] = json::array({{{"name", "NVIDIA H100 80GB HBM3"}}});
    doc_["traceEvents"] = json::array();
  }

  // A kernel launched at `launch_us` from host thread `tid`, running `dur_us` at `gpu_us`.
  Builder& kernel(const std::string& name, double launch_us, double gpu_us, double dur_us,
                  json fields = json::object(), std::int64_t tid = 1, std::int64_t stream = 7) {
    const int corr = next_correlation_++;
    add({{"ph", "X"},
         {"cat", "cuda_runtime"},
         {"name", "cudaLaunchKernel"},
         {"ts", launch_us},
         {"dur", 2.0},
         {"tid", tid},
         {"args", {{"correlation", corr}}}});
    fields["correlation"] = corr;
    fields["stream"] = stream;
    return add({{"ph", "X"},
                {"cat", "kernel"},
                {"name", name},
                {"ts", gpu_us},
                {"dur", dur_us},
                {"tid", stream},
                {"args", fields}});
  }

  // The record_param_comms host event torch writes when a c10d call is made.
  Builder& comms(double ts_us, json fields, std::int64_t tid = 1) {
    return add({{"ph", "X"},
                {"cat", "cpu_op"},
                {"name", "record_param_comms"},
                {"ts", ts_us},
                {"dur", 1.0},
                {"tid", tid},
                {"args", fields}});
  }

  Builder& step(int n, double ts_us, double dur_us) {
    return add({{"ph", "X"},
                {"cat", "user_annotation"},
                {"name", "ProfilerStep#" + std::to_string(n)},
                {"ts", ts_us},
                {"dur", dur_us},
                {"tid", 1}});
  }

  Builder& op(const std::string& name, double ts_us, double dur_us, json dims,
              json concrete = json(), std::int64_t tid = 1) {
    json args = {{"Input Dims", dims}};
    if (!concrete.is_null()) args["Concrete Inputs"] = concrete;
    return add({{"ph", "X"},
                {"cat", "cpu_op"},
                {"name", name},
                {"ts", ts_us},
                {"dur", dur_us},
                {"tid", tid},
                {"args", args}});
  }

  Builder& add(json event) {
    doc_["traceEvents"].push_back(std::move(event));
    return *this;
  }

  std::string text() const { return doc_.dump(); }

 private:
  json doc_;
  int next_correlation_ = 1;
};

}  // namespace collreplay::trace::test_trace
