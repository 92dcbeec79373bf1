compute_model.o: bench/compute/compute_model.cpp \
 bench/compute/compute_model.hpp bench/compute/compute_engine.hpp \
 collectives/communicator.hpp common/dtype.hpp common/errors.hpp \
 workloads/schedule.hpp collectives/ops/collective_kind.hpp \
 bench/compute/gpu_peaks.hpp bench/compute/compute_scale.hpp \
 bench/compute/launch_order.hpp
bench/compute/compute_model.hpp:
bench/compute/compute_engine.hpp:
collectives/communicator.hpp:
common/dtype.hpp:
common/errors.hpp:
workloads/schedule.hpp:
collectives/ops/collective_kind.hpp:
bench/compute/gpu_peaks.hpp:
bench/compute/compute_scale.hpp:
bench/compute/launch_order.hpp:
