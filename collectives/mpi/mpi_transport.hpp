// Best-effort answer to "what does MPI use between these ranks?" for OpenMPI:
//   "self"  one rank;
//   "ucx"   the UCX PML was asked for (OMPI_MCA_pml=ucx); "ucx:<UCX_TLS>" when UCX_TLS is set;
//   "shm"   ob1 with every rank on one node and the shared-memory BTL (vader) not excluded;
//   "tcp"   ob1 across nodes, or with vader excluded (OMPI_MCA_btl).
// OpenMPI does not publish the component it selected through MPI_T in 4.1, so this reads the
// same MCA parameters the library reads and the node layout; a run that overrides the choice in
// another way (an mca-params.conf file) is reported by what the environment says.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

namespace collreplay {

// Collective over `comm` (it checks whether all ranks share a node).
std::string detect_mpi_transport(MPI_Comm comm);

// The interfaces behind a transport name of detect_mpi_transport, from the same settings:
// btl_tcp_if_include (names or address ranges) or UCX_NET_DEVICES when set, else every
// interface but loopback (tcp) or every HCA (ucx); empty for self and shm.
std::vector<std::string> mpi_transport_interfaces(const std::string& transport);

}  // namespace collreplay
