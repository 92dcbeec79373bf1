host_time_file_test.o: tests/unit/host_time/host_time_file_test.cpp \
 common/errors.hpp workloads/plan/step/host_time_file.hpp \
 workloads/plan/step/host_time.hpp
common/errors.hpp:
workloads/plan/step/host_time_file.hpp:
workloads/plan/step/host_time.hpp:
