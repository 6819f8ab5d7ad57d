// The step before a generator's first id (ready_to_generate.hpp).
#include "pg/functions/ready_to_generate.hpp"

#include "pg/moves/adoption.hpp"
#include "pg/moves/carried_state.hpp"

namespace idgen::pg {

SharedState *ready_to_generate(const char *what) {
    SharedState *s = require_shared_state(what);
    if (unlikely(s->archive_recovery_pending)) adopt_after_archive_recovery();
    adopt_carried_state_once(s);
    return s;
}

}  // namespace idgen::pg
