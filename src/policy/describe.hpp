// A wait reason in words, for squeue's reason column and shareq why.
#pragma once

#include <cstdint>
#include <string>

#include "policy/admission.hpp"
#include "policy/ledger.hpp"

namespace shareq::policy {

// Words for squeue's reason column, e.g. "shareq: family p4 at capacity (4/4 node); waiting to
// reclaim borrowed capacity". `amount` and the ledger give the figures. Under 100 characters for
// share and family names of up to ~16 characters; "" for None.
std::string describe(WaitReason reason, const Ledger& ledger, ShareId share, FamilyId family,
                     int64_t amount);

}  // namespace shareq::policy
