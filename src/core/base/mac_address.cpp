// The MAC address parser.
#include "core/base/mac_address.hpp"

namespace idgen {

static int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool parse_mac(const char *text, uint64_t *mac) noexcept {
    uint64_t value = 0;
    for (int i = 0; i < 6; i++) {
        const int hi = hex_value(text[0]);
        const int lo = hi < 0 ? -1 : hex_value(text[1]);
        if (lo < 0) return false;
        value = value << 8 | static_cast<uint64_t>(hi << 4 | lo);
        text += 2;
        if (i < 5) {
            if (*text != ':' && *text != '-') return false;
            text++;
        }
    }
    if (*text == '\n') text++;
    if (*text != '\0') return false;
    *mac = value;
    return true;
}

}  // namespace idgen
