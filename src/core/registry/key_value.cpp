// The number format of registry values: see key_value.hpp.
#include "core/registry/key_value.hpp"

#include <cerrno>
#include <cstdlib>

namespace idgen::registry {

bool parse_int64(const std::string &text, int64_t *v) {
    char *end = nullptr;
    errno = 0;
    const long long parsed = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end == text.c_str() || *end != '\0') return false;
    *v = parsed;
    return true;
}

}  // namespace idgen::registry
