// The syntax of idgen.registry (registry_endpoints.hpp).
#include "core/registry/registry_endpoints.hpp"

#include <cstddef>
#include <cstring>
#include <strings.h>

namespace idgen::registry {

static bool authority_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_' || c == ':' || c == '[' || c == ']' || c == '%';
}

// One URL, [begin, end) with the surrounding spaces and a trailing '/' already taken off.
static const char *url_problem(const char *begin, const char *end) noexcept {
    size_t scheme = 0;
    if (end - begin >= 7 && strncasecmp(begin, "http://", 7) == 0) scheme = 7;
    if (end - begin >= 8 && strncasecmp(begin, "https://", 8) == 0) scheme = 8;
    if (scheme == 0) return "Each endpoint must start with http:// or https://.";
    const char *host = begin + scheme;
    const char *p = host;
    while (p < end && *p != '/') {
        if (!authority_char(*p))
            return "An endpoint's host and port may hold letters, digits and . - _ : [ ] % only.";
        p++;
    }
    if (p == host) return "An endpoint has no host after its scheme.";
    for (; p < end; p++)
        if (*p <= ' ' || *p == 0x7f) return "An endpoint must not contain spaces or control characters.";
    return nullptr;
}

const char *endpoints_problem(const char *text) noexcept {
    if (text == nullptr || *text == '\0') return nullptr;
    int urls = 0;
    for (const char *start = text;;) {
        const char *comma = strchr(start, ',');
        const char *end = comma != nullptr ? comma : start + strlen(start);
        const char *b = start;
        const char *e = end;
        while (b < e && *b == ' ') b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '/')) e--;
        if (b < e) {
            if (const char *problem = url_problem(b, e)) return problem;
            urls++;
        }
        if (comma == nullptr) break;
        start = comma + 1;
    }
    return urls > 0 ? nullptr : "The list holds no endpoint (set it empty to leave cluster mode off).";
}

}  // namespace idgen::registry
