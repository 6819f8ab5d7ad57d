// Turns a core Status into a PostgreSQL error. Call it only from the SQL wrapper itself,
// after the core call has returned: ereport(ERROR) longjmps, and nothing but trivially
// destructible values (such as Status) may be alive in the frames it jumps over.
#pragma once

#include "../core/status.hpp"

namespace idgen::pg {

[[noreturn]] void raise_error(const Status &status);

// raise_error unless the status is ok.
inline void check(const Status &status) {
    if (!status.ok()) raise_error(status);
}

}  // namespace idgen::pg
