// The retrospective version-7 UUID of a time, for uuid_v7_at and the peers' names that make one
// of a given or shifted time (uuid_peer_names.cpp).
#pragma once

#include <cstdint>

#include "core/base/uuid.hpp"

namespace idgen::pg {

// A version-7 UUID whose time is exactly unix_micros, unique through a namespace leased for this
// session (needs the server's node id: 55000 without, naming `what`); 22008 outside 1970-01-01 ..
// 10889-08-02.
Uuid retrospective_uuid_v7(int64_t unix_micros, const char *what);

}  // namespace idgen::pg
