// The clock sequence of the server's live version-1 UUIDs, kept in idgen.identity: uuid_v1()
// puts it in every UUID, and uuid_v1_at() must never use it.
#pragma once

#include <cstdint>

#include "shared_state.hpp"

namespace idgen::pg {

// Raises XX001 when idgen.identity is unreadable (the clock sequence is then unknown).
int32_t live_uuid_clock_seq(const SharedState *shared);

}  // namespace idgen::pg
