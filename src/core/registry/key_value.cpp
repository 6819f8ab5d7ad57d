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

std::string key_segment(const std::string &name) {
    std::string out;
    for (char c : name) {
        if (c == '%' || c == '/') {
            static const char hex[] = "0123456789ABCDEF";
            out += '%';
            out += hex[static_cast<unsigned char>(c) >> 4];
            out += hex[static_cast<unsigned char>(c) & 15];
        } else {
            out += c;
        }
    }
    return out;
}

std::string server_name(uint64_t system_identifier, const std::string &host, int port,
                        const std::string &data_directory) {
    return key_segment("system " + std::to_string(system_identifier) + " host " + host + " port " +
                       std::to_string(port) + " directory " + data_directory);
}

}  // namespace idgen::registry
