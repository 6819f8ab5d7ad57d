// Turns a core Status into a PostgreSQL error. Call it only from the SQL wrapper itself,
// after the core call has returned: ereport(ERROR) longjmps, and nothing but trivially
// destructible values (such as Status) may be alive in the frames it jumps over.
#pragma once

#include <initializer_list>

#include "core/base/status.hpp"

#include "pg/boundary/postgres_api.hpp"

namespace idgen::pg {

// The core describes the condition and names no SQL function, argument or setting; where the
// condition is about one, the caller names it as `subject` (the message's prefix), and may add a
// hint.
[[noreturn]] void raise_error(const Status &status, const char *subject = nullptr,
                              const char *hint = nullptr);

// raise_error unless the status is ok.
inline void check(const Status &status, const char *subject = nullptr, const char *hint = nullptr) {
    if (!status.ok()) raise_error(status, subject, hint);
}

// For generators that take arguments, where a NULL is a mistake and never means a NULL id:
// 22004 naming the first NULL argument (names in argument order).
void refuse_null_arguments(FunctionCallInfo fcinfo, const char *what,
                           std::initializer_list<const char *> names);

}  // namespace idgen::pg
