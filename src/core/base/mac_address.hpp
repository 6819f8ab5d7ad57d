// MAC addresses as text, as settings (idgen.uuid_node, idgen.locality_mac) and the kernel's
// /sys/class/net/*/address write them: outside input, so the parser is fuzzed
// (test/fuzz/fuzz_mac.cpp).
#pragma once

#include <cstdint>

namespace idgen {

// "xx:xx:xx:xx:xx:xx" or with '-' separators (hex digits in either case), optionally followed
// by one newline; *mac receives the 48 bits. False for anything else (*mac untouched).
bool parse_mac(const char *text, uint64_t *mac) noexcept;

}  // namespace idgen
