// The shared run flags: checked before MPI, recorded in the metadata, and the IPoIB note.
#include "bench/flags/run_flags.hpp"

#include <gtest/gtest.h>

#include "common/errors.hpp"

namespace collreplay {
namespace {

RunFlags flags_with_fabrics_file() {
  RunFlags f;
  f.fabrics_file = "sweeps/fabrics.tsv";
  return f;
}

TEST(RunFlags, DefaultsAreTheRealFabricUndilated) {
  const RunSetup setup = prepare_run(flags_with_fabrics_file(), BackendKind::mpi);
  EXPECT_EQ(setup.transport.name(), "auto");
  EXPECT_FALSE(setup.fabric.has_value());
  EXPECT_FALSE(setup.emulated);
  EXPECT_EQ(setup.dilation, 1);
  EXPECT_FALSE(setup.compute_model.has_value());
}

TEST(RunFlags, BadValuesAreUsageErrors) {
  auto with = [](auto change) {
    RunFlags f = flags_with_fabrics_file();
    change(f);
    return f;
  };
  EXPECT_THROW(prepare_run(with([](RunFlags& f) { f.dilation = 0; }), BackendKind::mpi),
               UsageError);
  EXPECT_THROW(prepare_run(with([](RunFlags& f) { f.compute = "model:xyz"; }), BackendKind::mpi),
               UsageError);
  EXPECT_THROW(prepare_run(with([](RunFlags& f) { f.compute = "gpu"; }), BackendKind::mpi),
               UsageError);
  EXPECT_THROW(prepare_run(with([](RunFlags& f) { f.fabric = "eth-7g"; }), BackendKind::mpi),
               UsageError);
  EXPECT_THROW(prepare_run(with([](RunFlags& f) { f.emulate_nodes = 2; }), BackendKind::mpi),
               UsageError);
  EXPECT_THROW(prepare_run(with([](RunFlags& f) { f.transport = "tcp"; }), BackendKind::mpi),
               UsageError);
}

TEST(RunFlags, EmulatedNodesAreCountedAndMarked) {
  RunSetup setup;
  setup.emulate_nodes = 4;
  setup.emulated = true;
  setup.dilation = 8;
  setup.fabric = FabricProfile{"eth-50g", 50, 10, 1, "x"};
  RunMetadata meta;
  meta.ranks = 8;
  meta.nodes = 1;
  meta.ranks_per_node = 8;
  write_setup_to_metadata(meta, setup);
  EXPECT_EQ(meta.nodes, 4);
  EXPECT_EQ(meta.ranks_per_node, 2);
  const nlohmann::json json = meta.to_json();
  EXPECT_EQ(json["emulated"], true);
  EXPECT_EQ(json["fabric"], "eth-50g");
  EXPECT_EQ(json["dilation"], 8.0);
  EXPECT_EQ(json["transport_asked"], "auto");
}

TEST(RunFlags, SocketOverAnIbInterfaceIsCalledOut) {
  RunMetadata meta;
  meta.transport_verified = "socket";
  meta.interfaces = {"ib0", "eth0"};
  const std::vector<std::string> notes = run_notes(meta);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("ib0"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("IPoIB"), std::string::npos) << notes[0];
  meta.interfaces = {"eth0"};
  EXPECT_TRUE(run_notes(meta).empty());
  meta.transport_verified = "ib";  // the HCA ports are not IPoIB
  meta.interfaces = {"ib0"};
  EXPECT_TRUE(run_notes(meta).empty());
}

}  // namespace
}  // namespace collreplay
