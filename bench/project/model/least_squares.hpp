// Weighted least squares with sign constraints, small enough to solve by enumeration: minimise
// sum ((t_i - known_i - sum_j c_j x_ij) / t_i)^2 (relative error, so small and large messages
// count alike) with every c_j >= 0 and the last column's coefficient > 0. Columns that the data
// cannot tell apart (collinear) or that would go negative are dropped, earliest-listed subsets
// of columns preferred on ties.
#pragma once
#include <vector>

namespace collreplay::project {

struct LeastSquares {
  std::vector<double> coef;  // one per column; 0 for dropped columns
  double sse = 0;            // sum of squared relative residuals; infinity when nothing fits
  bool ok = false;
};

// x[i] holds point i's columns. `free_columns` marks which columns may be fitted (others are 0).
LeastSquares fit_nonnegative(const std::vector<double>& t, const std::vector<double>& known,
                             const std::vector<std::vector<double>>& x,
                             const std::vector<bool>& free_columns);

}  // namespace collreplay::project
