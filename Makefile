# collreplay build. `make` builds everything this machine can; `make test` installs what is
# missing, builds and runs every test; `make demo` runs the main job. Overridable:
#   CUDA_HOME NCCL_HOME MPI_HOME GPU_ARCHS BUILD CXX DEBUG NP JOBS PREFIX
# Sources are found recursively. Optional libraries are chosen by folder, never by #if: a folder
# holding a no_cuda.cpp needs CUDA+NCCL for its other sources (no_cuda.cpp holds their host
# stubs and is built only without CUDA); no_nvml.cpp does the same for NVML; *.cu needs CUDA.
# bench/bin/X.cpp and plots/bin/X.cpp become build/bin/X; tests/S/**/*.cpp become build/bin/S_tests.

CUDA_HOME ?= /usr/local/cuda
# NCCL from the CUDA tree or from the distribution's libnccl-dev (/usr/include/nccl.h).
NCCL_HOME ?= $(firstword $(patsubst %/include/nccl.h,%,$(wildcard $(CUDA_HOME)/include/nccl.h /usr/include/nccl.h)))
MPI_HOME  ?=
GPU_ARCHS ?= 90
BUILD     ?= build
CXX       ?= g++
NVCC      ?= $(CUDA_HOME)/bin/nvcc
NP        ?= 4

BIN := $(BUILD)/bin
OBJ := $(BUILD)/obj

MPICXX := $(if $(MPI_HOME),$(MPI_HOME)/bin/mpicxx,mpicxx)
MPIRUN := $(if $(MPI_HOME),$(MPI_HOME)/bin/mpirun,mpirun)
MPI_CFLAGS := $(shell $(MPICXX) --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell $(MPICXX) --showme:link 2>/dev/null)

# NCCL 2.28 or later: the backend calls ncclAlltoAll, new in 2.28.
NCCL_VERSION_CODE := $(if $(NCCL_HOME),$(shell sed -n 's/^\#define NCCL_VERSION_CODE //p' $(NCCL_HOME)/include/nccl.h 2>/dev/null))
NCCL_RECENT := $(shell [ "0$(NCCL_VERSION_CODE)" -ge 22800 ] && echo yes)
HAVE_CUDA := $(and $(NCCL_RECENT),$(wildcard $(CUDA_HOME)/include/cuda_runtime.h),$(wildcard $(NCCL_HOME)/include/nccl.h),$(wildcard $(NVCC)))
# Never -I/-L the system prefix: it would reorder the compiler's own include_next chain.
NCCL_FLAGS := $(if $(filter /usr $(CUDA_HOME),$(NCCL_HOME)),,-I$(NCCL_HOME)/include)
NCCL_LIBDIR := $(if $(filter /usr $(CUDA_HOME),$(NCCL_HOME)),,-L$(NCCL_HOME)/lib -Wl,-rpath,$(NCCL_HOME)/lib)
HAVE_NVML := $(and $(HAVE_CUDA),$(wildcard $(CUDA_HOME)/include/nvml.h))
# The figures need gnuplot-iostream to build (plots/figures/ keeps no_gnuplot.cpp for a build
# without it) and gnuplot to run; report is built either way and writes its text without them.
HAVE_GNUPLOT_IOSTREAM := $(wildcard /usr/include/gnuplot-iostream.h)
HAVE_PLOT := $(and $(HAVE_GNUPLOT_IOSTREAM),$(shell command -v gnuplot))

# Debug information: line tables (-g1) name the line in a backtrace or a profile and compile every
# translation unit about a quarter faster than full debug information (`make DEBUG=-g`); `make
# demo` and `make test` share one build tree, so they share these flags.
DEBUG ?= -g1
CXXFLAGS ?= -O2 $(DEBUG)
# The MPI C++ bindings (deprecated) are skipped: their headers warn under -Wextra.
CXXFLAGS += -std=c++20 -Wall -Wextra -MMD -MP -I. $(MPI_CFLAGS) -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1
# zlib: gzip'd traces (workloads/trace/read/trace_file.cpp, tensorboard_trace_handler's .json.gz).
LDLIBS   := $(MPI_LIBS) -lbenchmark -lopenblas -lz -lpthread
NVCCFLAGS := -O2 -std=c++20 -I. $(foreach a,$(GPU_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a))
ifneq ($(HAVE_CUDA),)
CXXFLAGS += -I$(CUDA_HOME)/include $(NCCL_FLAGS)
LDLIBS   += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 $(NCCL_LIBDIR) \
            -lnccl -lcublasLt -lcublas -lcudart
endif
ifneq ($(HAVE_NVML),)
LDLIBS += -L$(CUDA_HOME)/lib64/stubs -lnvidia-ml
endif

# Every file under $(1) whose name matches one of the patterns $(2), found recursively.
rwildcard = $(foreach d,$(wildcard $(1:=/*)),$(call rwildcard,$d,$2)$(filter $(2),$d))
# The sources of $(1) that this build can compile: a folder with a no_<lib>.cpp keeps either that
# stub (library absent) or its other sources (library present).
stub_dirs = $(dir $(filter %/$(1),$(2)))
in_dirs = $(foreach f,$(2),$(if $(filter $(dir $f),$(1)),$f))
CUDA_ONLY = $(filter-out %/no_cuda.cpp,$(call in_dirs,$(call stub_dirs,no_cuda.cpp,$(1)),$(1))) $(filter %.cu,$(1))
NVML_ONLY = $(filter-out %/no_nvml.cpp,$(call in_dirs,$(call stub_dirs,no_nvml.cpp,$(1)),$(1)))
GNUPLOT_ONLY = $(filter-out %/no_gnuplot.cpp,$(call in_dirs,$(call stub_dirs,no_gnuplot.cpp,$(1)),$(1)))
buildable = $(filter-out $(if $(HAVE_CUDA),%/no_cuda.cpp,$(call CUDA_ONLY,$(1))) \
                         $(if $(HAVE_NVML),%/no_nvml.cpp,$(call NVML_ONLY,$(1))) \
                         $(if $(HAVE_GNUPLOT_IOSTREAM),%/no_gnuplot.cpp,$(call GNUPLOT_ONLY,$(1))),$(1))
to_obj = $(patsubst %,$(OBJ)/%.o,$(1))
# Unity builds: the sources of one folder (within one archive) compile as one translation unit,
# $(BUILD)/gen/unity/ARCHIVE/FOLDER.cpp including them in order, so that the headers, and the JSON
# and CLI11 code they instantiate, compile once a folder rather than once a file: about 40% less
# CPU time (bench/RESULTS.md). The code that runs inside a timed region (collectives, the
# executor, the compute engines, perf's timing loop and buffers, replay's passes and the monitor
# sampling beside them) compiles file by file, as measured. `make UNITY=` compiles every file on
# its own, and `make sources-alone` (run by `make test`) checks that each still compiles alone.
UNITY ?= yes
FILE_BY_FILE := collectives/% bench/executor/% bench/compute/% bench/perf/timing/% \
  bench/perf/perf_harness.cpp bench/perf/perf_buffers.cpp bench/replay/measure/% bench/monitor/% \
  common/data_files.cpp %.cu
unity_members_of = $(filter-out $(FILE_BY_FILE),$(1))
unity_key = $(subst /,.,$(patsubst %/,%,$(dir $(1))))
unity_keys = $(sort $(foreach f,$(call unity_members_of,$(1)),$(call unity_key,$f)))
unity_folder = $(foreach f,$(call unity_members_of,$(2)),$(if $(filter $(1),$(call unity_key,$f)),$f))
# The objects of source list $(2), whose unity sources live under gen/unity/$(1).
objects = $(if $(UNITY),$(call to_obj,$(filter $(FILE_BY_FILE),$(2))) \
  $(patsubst %,$(OBJ)/gen/unity/$(1)/%.cpp.o,$(call unity_keys,$(2))),$(call to_obj,$(2)))
# Writes gen/unity/$(1)/FOLDER.cpp for each folder of $(2), only when its list changes.
HASH := \#
write_unity = $(foreach k,$(call unity_keys,$(2)),$(shell f=$(BUILD)/gen/unity/$(1)/$(k).cpp; \
  mkdir -p $(BUILD)/gen/unity/$(1) && printf '$(HASH)include "%s"\n' $(call unity_folder,$(k),$(2)) >$$f.new && \
  { cmp -s $$f.new $$f && rm $$f.new || mv $$f.new $$f; }))
# A test suite's sources, subfolders included (a variable, so that a pattern rule's stem does not
# replace its %).
suite_srcs = $(call rwildcard,tests/$(1),%.cpp)

# records/ (the results reader) is standard library + nlohmann-json only: an archive of its own
# for the benchmark's programs that read results, and objects of the plot programs, which never
# link the benchmark.
RECORD_SRCS := $(call rwildcard,records,%.cpp)
ALL_LIB_SRCS := $(call rwildcard,common collectives workloads bench,%.cpp %.cu) $(RECORD_SRCS)
# Rooms that only some programs and the tests link are archives of their own, so that the demo's
# first two programs (replay, all_gather_perf) compile none of them on a fresh machine, where the
# build is most of `make demo`'s time (bench/RESULTS.md): the tools (advise, compare, gemm_perf,
# preflight's command), the projection (project and advise) and the records reader (project, the
# tools and report; the benchmark writes records from headers only).
TOOL_SRCS := $(call buildable,$(call rwildcard,bench/advise bench/compare bench/gemm_perf,%.cpp) \
  bench/preflight/preflight_main.cpp)
TOOL_BINS := $(addprefix $(BIN)/,advise compare gemm_perf preflight)
PROJECT_SRCS := $(call buildable,$(call rwildcard,bench/project,%.cpp))
PROJECT_BINS := $(addprefix $(BIN)/,project advise)
LIB_SRCS  := $(filter-out $(TOOL_SRCS) $(PROJECT_SRCS) $(RECORD_SRCS),$(call buildable,$(filter-out bench/bin/%,$(ALL_LIB_SRCS))))
PLOT_SRCS := $(call buildable,$(filter-out plots/bin/%,$(call rwildcard,plots,%.cpp)))
BENCH_BINS := $(patsubst bench/bin/%.cpp,$(BIN)/%,$(wildcard bench/bin/*.cpp))
# The figure programs where gnuplot-iostream is; report everywhere.
PLOT_BINS  := $(if $(HAVE_GNUPLOT_IOSTREAM),$(patsubst plots/bin/%.cpp,$(BIN)/%,$(wildcard plots/bin/*.cpp)),$(BIN)/report)
PLOT_LIBS  := $(if $(HAVE_GNUPLOT_IOSTREAM),-lboost_iostreams -lboost_filesystem -lboost_system)
# A suite is a folder of tests/ with sources anywhere below it (tests/unit keeps its own in
# subfolders by room).
TEST_SUITES := $(filter-out $(if $(HAVE_PLOT),,plots),$(sort $(foreach f,$(call rwildcard,tests,%.cpp),$(word 2,$(subst /, ,$f)))))
TEST_BINS := $(foreach s,$(TEST_SUITES),$(BIN)/$(s)_tests)

.SECONDEXPANSION:
.PHONY: all programs deps demo-deps test demo demo-programs sources-alone install clean
# `all` has no recipe of its own, so a second `make` (or `make -q`) finds nothing to do.
all: $(BENCH_BINS) $(PLOT_BINS) $(TEST_BINS)
ifeq ($(filter-out all,$(MAKECMDGOALS)),)
$(info collreplay: $(if $(HAVE_CUDA),with CUDA+NCCL (GPU archs $(GPU_ARCHS)),host-only (no CUDA and NCCL 2.28+ under CUDA_HOME=$(CUDA_HOME)$(if $(NCCL_VERSION_CODE),; NCCL there is $(NCCL_VERSION_CODE))))$(if $(HAVE_PLOT),, without plot programs (no gnuplot-iostream)))
endif
# Objects of executables and tests are kept: make would otherwise delete them as intermediates
# and relink everything on the next run.
.SECONDARY:

# The git revision goes into run metadata: the programs read it at run time from the build
# tree's gen/git_revision (common/data_files.hpp), rewritten here only when it changes, so that a
# commit rebuilds and relinks nothing.
GIT_REVISION := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
REVISION_STAMP := $(BUILD)/gen/git_revision
$(shell mkdir -p $(BUILD)/gen && { [ "$$(cat $(REVISION_STAMP) 2>/dev/null)" = '$(GIT_REVISION)' ] || echo '$(GIT_REVISION)' > $(REVISION_STAMP); })
# The checkout the programs were built from is where they look for their data when nothing
# beside them holds it (common/data_files.hpp); rebuilt when the checkout moves.
SOURCE_DIR_STAMP := $(BUILD)/gen/source_dir
$(shell { [ "$$(cat $(SOURCE_DIR_STAMP) 2>/dev/null)" = '$(CURDIR)' ] || echo '$(CURDIR)' > $(SOURCE_DIR_STAMP); })
$(OBJ)/common/data_files.cpp.o: CXXFLAGS += -DCOLLREPLAY_SOURCE_DIR='"$(CURDIR)"'
$(OBJ)/common/data_files.cpp.o: $(SOURCE_DIR_STAMP)
# The standard headers most sources include, parsed once into a precompiled header that every C++
# translation unit starts from (g++'s -include with the .gch beside the header): about a quarter
# of the build's CPU time, most of it in the small units (bench/RESULTS.md, "Demo and
# first-command times"). Only g++'s format: with another compiler the units build without it.
PCH_STD_HEADERS := algorithm chrono cmath cstdint cstdio functional map memory optional set \
  string string_view vector
PCH := $(BUILD)/gen/pch/std_headers.hpp
IS_GCC := $(shell $(CXX) -dM -E -x c++ /dev/null 2>/dev/null | \
  awk '/ __clang__ /{c=1} / __GNUC__ /{g=1} END{if (g && !c) print "yes"}')
PCH_GCH := $(if $(IS_GCC),$(PCH).gch)
PCH_FLAGS := $(if $(IS_GCC),-include $(PCH) -Winvalid-pch)
# Every object depends on the flags it was built with: objects built with other flags (another
# DEBUG, with or without CUDA) are rebuilt instead of looking up to date.
FLAGS_STAMP := $(BUILD)/gen/flags
BUILD_FLAGS := $(CXXFLAGS) | $(NVCCFLAGS) | $(HAVE_CUDA) | $(HAVE_NVML) | $(HAVE_GNUPLOT_IOSTREAM) | $(PCH_FLAGS) $(PCH_STD_HEADERS)
$(shell { [ "$$(cat $(FLAGS_STAMP) 2>/dev/null)" = '$(BUILD_FLAGS)' ] || echo '$(BUILD_FLAGS)' > $(FLAGS_STAMP); })

$(PCH): $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@printf '#include <%s>\n' $(PCH_STD_HEADERS) > $@
$(PCH).gch: $(PCH)
	$(CXX) $(CXXFLAGS) -MF /dev/null -x c++-header $< -o $@

$(OBJ)/%.cpp.o: %.cpp $(FLAGS_STAMP) $(PCH_GCH)
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(PCH_FLAGS) -c $< -o $@
$(OBJ)/gen/unity/%.cpp.o: $(BUILD)/gen/unity/%.cpp $(FLAGS_STAMP) $(PCH_GCH)
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(PCH_FLAGS) -c $< -o $@
$(OBJ)/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# Which source goes into which archive, and whether as a unity: a build tree made before either
# changed rebuilds them all rather than link one object from two.
ARCHIVE_STAMP := $(BUILD)/gen/archives
ARCHIVE_LISTS := unity $(UNITY) | $(TOOL_SRCS) | $(PROJECT_SRCS) | $(RECORD_SRCS)
$(shell { [ "$$(cat $(ARCHIVE_STAMP) 2>/dev/null)" = '$(ARCHIVE_LISTS)' ] || echo '$(ARCHIVE_LISTS)' > $(ARCHIVE_STAMP); })
UNITY_SOURCES := $(if $(UNITY),$(call write_unity,lib,$(LIB_SRCS)) $(call write_unity,tools,$(TOOL_SRCS)) \
  $(call write_unity,project,$(PROJECT_SRCS)) $(call write_unity,records,$(RECORD_SRCS)) \
  $(call write_unity,plots,$(PLOT_SRCS)))
PLOT_OBJS := $(call objects,plots,$(PLOT_SRCS)) $(call objects,records,$(RECORD_SRCS))
$(BUILD)/libcollreplay.a: $(call objects,lib,$(LIB_SRCS))
$(BUILD)/libcollreplay_tools.a: $(call objects,tools,$(TOOL_SRCS))
$(BUILD)/libcollreplay_project.a: $(call objects,project,$(PROJECT_SRCS))
$(BUILD)/libcollreplay_records.a: $(call objects,records,$(RECORD_SRCS))
# From the rooms above to the rooms below: a link takes its objects, then these in this order
# (each calls only into those after it).
ARCHIVES_TOP_DOWN := $(addprefix $(BUILD)/libcollreplay,_tools.a _project.a .a _records.a)
$(ARCHIVES_TOP_DOWN): $(ARCHIVE_STAMP)
	@rm -f $@; ar rcs $@ $(filter %.o,$^)
LINK_INPUTS = $(filter %.o,$^) $(foreach a,$(ARCHIVES_TOP_DOWN),$(filter $(a),$^))
$(TOOL_BINS): $(BUILD)/libcollreplay_tools.a $(BUILD)/libcollreplay_records.a
$(PROJECT_BINS): $(BUILD)/libcollreplay_project.a $(BUILD)/libcollreplay_records.a
$(BIN)/%: $(OBJ)/bench/bin/%.cpp.o $(BUILD)/libcollreplay.a
	@mkdir -p $(@D)
	$(CXX) $(LINK_INPUTS) -o $@ $(LDLIBS)
$(BIN)/%: $(OBJ)/plots/bin/%.cpp.o $(PLOT_OBJS)
	@mkdir -p $(@D)
	$(CXX) $^ -o $@ $(PLOT_LIBS)
$(BIN)/plots_tests: $(call to_obj,$(wildcard tests/plots/*.cpp)) $(PLOT_OBJS)
	@mkdir -p $(@D)
	$(CXX) $^ -o $@ -lgtest_main -lgtest $(PLOT_LIBS) -lpthread
$(BIN)/%_tests: $$(call to_obj,$$(call suite_srcs,$$*)) $(ARCHIVES_TOP_DOWN)
	@mkdir -p $(@D)
	$(CXX) $(LINK_INPUTS) -o $@ $(if $(filter mpi gpu,$*),-lgtest,-lgtest_main -lgtest) $(LDLIBS)

# The model catalog compiled into the library, so `replay` finds its models from any working
# directory. workloads/embed_models.sh writes raw string literals.
MODEL_JSONS := $(sort $(wildcard workloads/catalog/*.json))
MODEL_CATALOG_CPP := $(BUILD)/gen/model_catalog.cpp
MODEL_CATALOG_OBJ := $(OBJ)/gen/model_catalog.cpp.o
$(MODEL_CATALOG_CPP): workloads/embed_models.sh $(MODEL_JSONS)
	@mkdir -p $(@D)
	sh workloads/embed_models.sh $(MODEL_JSONS) > $@.tmp && mv $@.tmp $@
$(MODEL_CATALOG_OBJ): $(MODEL_CATALOG_CPP) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -c $< -o $@
$(BUILD)/libcollreplay.a: $(MODEL_CATALOG_OBJ)

# Debian packages the suite needs; installed only when missing (apt-get needs root or sudo).
# The demo's share: no GoogleTest, Slurm, Prometheus or python3 (tests and sweeps --slurm use
# them; python3 runs the trace-trimming tool's tests).
DEMO_PACKAGES := g++ make openmpi-bin libopenmpi-dev libucx0 libbenchmark-dev \
  libcli11-dev nlohmann-json3-dev libopenblas-dev gnuplot-nox libgnuplot-iostream-dev \
  libboost-iostreams-dev libboost-filesystem-dev libboost-system-dev zlib1g-dev iproute2 jq \
  util-linux
DEB_PACKAGES := $(DEMO_PACKAGES) libgtest-dev slurm-wlm slurm-wlm-basic-plugins munge prometheus \
  python3
deps: PACKAGES = $(DEB_PACKAGES)
demo-deps: PACKAGES = $(DEMO_PACKAGES)
# The demo's packages without their recommendations (ImageMagick, Ghostscript, gfortran, fonts
# beyond the one gnuplot needs: 241 packages and 196 MB become 161 and 154 MB on Debian 12).
demo-deps: APT_INSTALL_FLAGS = --no-install-recommends
# `make deps` fails when a package cannot be installed; the demo says which it could not install
# (a machine without a package registry, or not Debian) and goes on with what is there: without
# gnuplot it still writes its results, projections and report.md, in text.
deps demo-deps:
	@missing=$$(for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "make $@: installing" $$missing; \
	  sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  if ! { timeout 300 $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(APT_INSTALL_FLAGS) $$missing; }; then \
	    if [ "$@" = deps ]; then exit 1; fi; \
	    echo "make demo: could not install" $$missing "- going on without them (no figures without gnuplot)"; \
	  fi; \
	fi

# `make test` and `make demo` are the README's one-command entry points: build in parallel.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

test: deps
	$(MAKE) -j$(JOBS) all
	$(MAKE) sources-alone
	tests/run_all.sh $(BIN) $(MPIRUN)

# Every source a unity compiles also compiles on its own (none borrows an include from the file
# before it): syntax only, with the build's flags, in parallel.
sources-alone: $(PCH_GCH)
	@printf '%s\n' $(call unity_members_of,$(LIB_SRCS) $(TOOL_SRCS) $(PROJECT_SRCS) $(RECORD_SRCS) $(PLOT_SRCS)) | \
	  xargs -P $(JOBS) -I{} $(CXX) $(filter-out -MMD -MP,$(CXXFLAGS)) $(PCH_FLAGS) -fsyntax-only {}
	@echo "sources-alone: every unity member compiles on its own"

programs: $(BENCH_BINS) $(PLOT_BINS)

# The demo builds what it runs and no more (on a fresh 2-core machine the build is most of its
# time): four programs, in the one build tree, with the same flags as `make` and `make test`, so
# that a `make test` before it leaves nothing to build and one after it builds only the rest.
demo-programs: $(addprefix $(BIN)/,replay all_gather_perf project report)

# The replays start once their two programs are built; `project` and `report` build beside them.
demo: demo-deps
	$(MAKE) -j$(JOBS) $(BIN)/replay $(BIN)/all_gather_perf
	sweeps/demo.sh $(BIN) $(MPIRUN) $(NP) '$(MAKE) -j$(JOBS) demo-programs'

# An install prefix: the programs in PREFIX/bin, the data they look for (common/data_files.hpp)
# in PREFIX/share/collreplay, laid out as in the checkout.
PREFIX ?= /usr/local
INSTALL_DATA := sweeps/fabrics.tsv sweeps/measured/2026-11-23 workloads/catalog sweeps/gpu/reference \
  tests/fixtures/published
install: programs
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/collreplay
	cp $(BENCH_BINS) $(PLOT_BINS) $(DESTDIR)$(PREFIX)/bin/
	for d in $(INSTALL_DATA); do mkdir -p $(DESTDIR)$(PREFIX)/share/collreplay/$$(dirname $$d) && \
	  cp -r $$d $(DESTDIR)$(PREFIX)/share/collreplay/$$(dirname $$d)/; done
	mkdir -p $(DESTDIR)$(PREFIX)/share/collreplay/gen && cp $(REVISION_STAMP) $(DESTDIR)$(PREFIX)/share/collreplay/gen/

clean:
	rm -rf $(BUILD)

# Dependency files of sources that still exist (generated ones live under $(BUILD)): a moved
# source's stale file would otherwise send make's search for the new object astray.
DEP_FILES := $(shell find $(OBJ) -name '*.d' 2>/dev/null)
-include $(foreach d,$(DEP_FILES),$(if $(wildcard $(patsubst $(OBJ)/%.d,%,$d) $(patsubst $(OBJ)/%.d,$(BUILD)/%,$d)),$d))
