// What `advise` weighs: the layouts ranked by the one projection (bench/project/layouts/), under
// advise's own name.
#pragma once
#include "bench/project/layouts/ranked_layouts.hpp"

namespace collreplay::advise {

using Advice = project::RankedLayout;
using project::Layout;

}  // namespace collreplay::advise
