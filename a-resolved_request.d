resolved_request.o: workloads/plan/resolved_request.cpp \
 workloads/plan/resolved_request.hpp common/dtype.hpp \
 workloads/model/model.hpp workloads/plan/step/host_time.hpp \
 workloads/plan/moe_routing.hpp workloads/plan/step/optimizer_step.hpp \
 workloads/model/work.hpp workloads/schedule.hpp \
 collectives/ops/collective_kind.hpp workloads/plan/request.hpp \
 workloads/plan/wrap.hpp workloads/model/module_tree.hpp \
 common/errors.hpp common/sizes.hpp \
 workloads/plan/parallel/parallel_checks.hpp \
 workloads/plan/step/host_time_file.hpp
workloads/plan/resolved_request.hpp:
common/dtype.hpp:
workloads/model/model.hpp:
workloads/plan/step/host_time.hpp:
workloads/plan/moe_routing.hpp:
workloads/plan/step/optimizer_step.hpp:
workloads/model/work.hpp:
workloads/schedule.hpp:
collectives/ops/collective_kind.hpp:
workloads/plan/request.hpp:
workloads/plan/wrap.hpp:
workloads/model/module_tree.hpp:
common/errors.hpp:
common/sizes.hpp:
workloads/plan/parallel/parallel_checks.hpp:
workloads/plan/step/host_time_file.hpp:
