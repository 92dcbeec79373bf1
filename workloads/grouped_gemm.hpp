// Checks of a grouped GEMM (GemmShape::group_rows, declared with it in schedule.hpp) that the
// schedule reader applies to what a file says.
#pragma once
#include <string>

#include "workloads/schedule.hpp"

namespace collreplay {

// Why a grouped GEMM read from a file is not one ("" when it is): a row count per group
// (`batch` of them), and m (or k) their mean rounded up.
std::string grouped_gemm_problem(const GemmShape& g);

}  // namespace collreplay
