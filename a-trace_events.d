trace_events.o: workloads/trace/trace_events.cpp \
 workloads/trace/trace_events.hpp common/errors.hpp \
 workloads/trace/read/comm_fields.hpp workloads/trace/read/op_flops.hpp \
 workloads/trace/read/trace_file.hpp
workloads/trace/trace_events.hpp:
common/errors.hpp:
workloads/trace/read/comm_fields.hpp:
workloads/trace/read/op_flops.hpp:
workloads/trace/read/trace_file.hpp:
