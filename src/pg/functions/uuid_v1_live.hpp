// The node of the server's live version-1 UUIDs (idgen.uuid_node, or the random one of
// idgen.identity): uuid_v1() puts it in every UUID, and uuid_v1_at(ts, node) must never be given it.
#pragma once

#include <cstdint>

#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

// False when the server makes no live version-1 UUIDs (idgen.uuid_node is 'mac' and no
// interface has one). Raises XX001 when idgen.identity is unreadable (the node is then unknown).
bool live_uuid_node(const SharedState *shared, uint64_t *node);

}  // namespace idgen::pg
