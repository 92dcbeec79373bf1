trace_schedule.o: workloads/trace/trace_schedule.cpp \
 workloads/trace/trace_schedule.hpp workloads/schedule.hpp \
 collectives/ops/collective_kind.hpp common/dtype.hpp \
 workloads/trace/trace_events.hpp workloads/model/eager_kernels.hpp \
 workloads/model/work.hpp workloads/trace/read/op_flops.hpp \
 workloads/trace/trace_collective.hpp
workloads/trace/trace_schedule.hpp:
workloads/schedule.hpp:
collectives/ops/collective_kind.hpp:
common/dtype.hpp:
workloads/trace/trace_events.hpp:
workloads/model/eager_kernels.hpp:
workloads/model/work.hpp:
workloads/trace/read/op_flops.hpp:
workloads/trace/trace_collective.hpp:
