nccl_blocking_test.o: tests/gpu/nccl_blocking_test.cpp \
 /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h \
 /usr/lib/x86_64-linux-gnu/openmpi/include/mpi_portable_platform.h \
 collectives/device/stream_hold.hpp collectives/nccl/nccl_backend.hpp \
 collectives/backend.hpp collectives/communicator.hpp common/dtype.hpp \
 common/errors.hpp collectives/transport/transport_select.hpp \
 tests/gpu/gpu_env.hpp common/host_identity.hpp \
 tests/support/subprocess.hpp
/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h:
/usr/lib/x86_64-linux-gnu/openmpi/include/mpi_portable_platform.h:
collectives/device/stream_hold.hpp:
collectives/nccl/nccl_backend.hpp:
collectives/backend.hpp:
collectives/communicator.hpp:
common/dtype.hpp:
common/errors.hpp:
collectives/transport/transport_select.hpp:
tests/gpu/gpu_env.hpp:
common/host_identity.hpp:
tests/support/subprocess.hpp:
