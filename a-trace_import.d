trace_import.o: workloads/trace/trace_import.cpp \
 workloads/trace/trace_import.hpp workloads/plan/request.hpp \
 workloads/schedule.hpp collectives/ops/collective_kind.hpp \
 common/dtype.hpp workloads/trace/trace_schedule.hpp \
 workloads/trace/trace_events.hpp common/errors.hpp \
 workloads/plan/schedule_builder.hpp workloads/schedule_json.hpp \
 workloads/trace/read/trace_file.hpp
workloads/trace/trace_import.hpp:
workloads/plan/request.hpp:
workloads/schedule.hpp:
collectives/ops/collective_kind.hpp:
common/dtype.hpp:
workloads/trace/trace_schedule.hpp:
workloads/trace/trace_events.hpp:
common/errors.hpp:
workloads/plan/schedule_builder.hpp:
workloads/schedule_json.hpp:
workloads/trace/read/trace_file.hpp:
