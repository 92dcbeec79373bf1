peak.o: bench/replay/flops/peak.cpp bench/replay/flops/peak.hpp \
 bench/compute/compute_engine.hpp collectives/communicator.hpp \
 common/dtype.hpp common/errors.hpp workloads/schedule.hpp \
 collectives/ops/collective_kind.hpp bench/compute/gpu_peaks.hpp \
 bench/flags/run_flags.hpp bench/app/run/fabric_profiles.hpp \
 bench/app/run/run_metadata.hpp \
 /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h \
 /usr/lib/x86_64-linux-gnu/openmpi/include/mpi_portable_platform.h \
 bench/compute/compute_model.hpp bench/monitor/monitor_session.hpp \
 bench/monitor/metrics_board.hpp bench/monitor/sampler.hpp \
 bench/monitor/counters.hpp collectives/backend.hpp \
 collectives/transport/transport_select.hpp \
 bench/compute/gemm/gemm_probe.hpp collectives/mpi/mpi_check.hpp \
 collectives/mpi/mpi_watched.hpp
bench/replay/flops/peak.hpp:
bench/compute/compute_engine.hpp:
collectives/communicator.hpp:
common/dtype.hpp:
common/errors.hpp:
workloads/schedule.hpp:
collectives/ops/collective_kind.hpp:
bench/compute/gpu_peaks.hpp:
bench/flags/run_flags.hpp:
bench/app/run/fabric_profiles.hpp:
bench/app/run/run_metadata.hpp:
/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h:
/usr/lib/x86_64-linux-gnu/openmpi/include/mpi_portable_platform.h:
bench/compute/compute_model.hpp:
bench/monitor/monitor_session.hpp:
bench/monitor/metrics_board.hpp:
bench/monitor/sampler.hpp:
bench/monitor/counters.hpp:
collectives/backend.hpp:
collectives/transport/transport_select.hpp:
bench/compute/gemm/gemm_probe.hpp:
collectives/mpi/mpi_check.hpp:
collectives/mpi/mpi_watched.hpp:
