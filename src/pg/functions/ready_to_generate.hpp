// What every generator does before its first id of a call: pass the shared-memory gate, then
// take over, once, what this server must stay above and has not yet taken in - the end of an
// archive recovery (promotion, restore) and a moved database's carried state.
#pragma once

#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

// The shared state for generator `what` with every pending adoption done; the gate's errors
// (require_shared_state) otherwise.
SharedState *ready_to_generate(const char *what);

}  // namespace idgen::pg
