host_time_file.o: workloads/plan/step/host_time_file.cpp \
 workloads/plan/step/host_time_file.hpp workloads/plan/step/host_time.hpp \
 common/data_files.hpp common/errors.hpp
workloads/plan/step/host_time_file.hpp:
workloads/plan/step/host_time.hpp:
common/data_files.hpp:
common/errors.hpp:
