// Formatting of core error messages into Status's fixed buffer.
#include "core/base/status.hpp"

#include <cstdarg>
#include <cstdio>

namespace idgen {

Status Status::error(Errc code, const char *fmt, ...) noexcept {
    Status s;
    s.code = code;
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(s.message, sizeof s.message, fmt, ap);
    va_end(ap);
    return s;
}

}  // namespace idgen
