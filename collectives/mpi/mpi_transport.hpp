// Best-effort answer to "what does MPI use between these ranks?" for OpenMPI:
//   "self"  one rank;
//   "ucx"   the UCX PML was selected (or, when that is unknown, asked for); "ucx:<UCX_TLS>" when
//           UCX_TLS is set;
//   "cm"    another PML (cm: PSM2, OFI), by its name;
//   "shm"   ob1 with every rank on one node and the shared-memory BTL (vader) not excluded;
//   "tcp"   ob1 across nodes, or with vader excluded (OMPI_MCA_btl).
// OpenMPI does not publish the components it selected through MPI_T in 4.1. The PML (ucx, ob1,
// cm) is read from the library's own selected-component record where its layout is recognised;
// the BTL under ob1 is inferred from the same MCA parameters the library reads and the node
// layout, so a run that overrides it another way (an mca-params.conf file) is reported by what
// the environment says.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

namespace collreplay {

// Collective over `comm` (it checks whether all ranks share a node).
std::string detect_mpi_transport(MPI_Comm comm);

// The PML OpenMPI selected in this process ("ob1", "ucx", "cm"), "" when not known (another MPI,
// an unrecognised layout, before MPI_Init).
std::string selected_mpi_pml();

// The interfaces behind a transport name of detect_mpi_transport, from the same settings:
// btl_tcp_if_include (names or address ranges) or UCX_NET_DEVICES when set, else every
// interface that is up but loopback (tcp) or every HCA (ucx); empty for self and shm.
std::vector<std::string> mpi_transport_interfaces(const std::string& transport);

}  // namespace collreplay
