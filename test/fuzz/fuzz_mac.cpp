// Fuzz target for the MAC address parser (settings idgen.uuid_node and idgen.locality_mac, and
// the kernel's /sys/class/net/*/address lines): any bytes, as a NUL-terminated string, must be
// refused or give exactly the 48 bits an independent reading (sscanf with a strict format and
// the shape checked character by character, no shared code) gives.
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/base/mac_address.hpp"

#include "fuzz_support.hpp"

// True and the value when `s` is six pairs of hex digits joined by five ':' or '-' (either,
// mixed), then nothing or one newline.
static bool oracle(const std::string &s, uint64_t *mac) {
    std::string body = s;
    if (!body.empty() && body.back() == '\n') body.pop_back();
    if (body.size() != 17) return false;
    for (size_t i = 0; i < body.size(); i++) {
        const bool sep = i % 3 == 2;
        if (sep ? (body[i] != ':' && body[i] != '-') : !std::isxdigit(static_cast<unsigned char>(body[i])))
            return false;
    }
    unsigned b[6];
    for (int i = 0; i < 6; i++) {
        if (std::sscanf(body.c_str() + 3 * i, "%2x", &b[i]) != 1) return false;
    }
    uint64_t v = 0;
    for (unsigned x : b) v = v << 8 | x;
    *mac = v;
    return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string text(reinterpret_cast<const char *>(data),
                           strnlen(reinterpret_cast<const char *>(data), size));
    uint64_t got = 0xDEADBEEF, want = 0;
    const bool ok = idgen::parse_mac(text.c_str(), &got);
    const bool expected = oracle(text, &want);
    FUZZ_CHECK(ok == expected);
    if (ok)
        FUZZ_CHECK(got == want);
    else
        FUZZ_CHECK(got == 0xDEADBEEF);  // untouched when refused
    return 0;
}
