// Groupon's locality UUIDs, "version b", as data: wwwwwwww-xxxx-byyy-yyyy-zzzzzzzzzzzz
// with w a 32-bit counter, x the process id modulo 65,536, b the literal version digit, y the
// low 28 bits of a MAC address and z 48 bits of milliseconds since the Unix epoch. The counter
// is written with its hex digits reversed (variable mode: the first digits change with every
// id, spreading writes over shards) or in order (sequential mode: ids of one period share
// their first digits, keeping writes together). Pure functions; the generator builds on them.
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/base/uuid.hpp"

namespace idgen::locality {

// Variable mode adds this prime to the counter for every id, as Groupon's Java and Ruby
// implementations do, so that a process takes 2^32 ids to see a counter again.
constexpr uint32_t kVariableStep = 198491317;

enum class Mode { variable, sequential };

struct Fields {
    uint32_t counter;
    uint32_t pid;     // only its low 16 bits are written (the process id modulo 65,536)
    uint64_t mac;     // only its low 28 bits are written (the MAC address's last 3.5 bytes)
    int64_t unix_ms;  // 0 .. 2^48 - 1
};

// Lays the fields out in `mode`'s counter order; Errc::timestamp_out_of_range unless
// 0 <= unix_ms < 2^48.
Status encode(Mode mode, const Fields &f, Uuid *out) noexcept;

struct Decoded {
    uint32_t variable_counter;  // bytes 0-3 with the hex digits un-reversed: Groupon's "counter"
    uint32_t raw_counter;       // bytes 0-3 big-endian: the sequential mode's counter
    uint32_t pid;               // 0 .. 65535
    uint32_t mac;               // 0 .. 2^28 - 1
    int64_t unix_ms;            // 0 .. 2^48 - 1
};

// Errc::invalid_parameter when the version digit (the high nibble of byte 6) is not b. The
// variant bits are not checked: in this layout they belong to the MAC fragment.
Status decode(const Uuid &u, Decoded *out) noexcept;

// The sequential mode's starting counter, which independent servers derive alike: the UTC
// time formatted yyyyMMddHHmm cut to its first 11 characters (ten-minute precision), e.g.
// "20121015185" for 2012-10-15 18:58. Returns those 11 characters (NUL-terminated) in buf.
// Meant for unix_ms >= 0, the times a locality UUID can hold.
void sequential_seed_text(int64_t unix_ms, char buf[12]) noexcept;

// The window of unix_ms within which the seed text (and so the sequential start) stays the
// same: the text has ten-minute precision.
int64_t sequential_seed_window(int64_t unix_ms) noexcept;

// ...and the counter from the first 4 bytes of that text's MD5 digest, read little-endian
// (the caller computes the MD5; the core has no MD5). Groupon's implementations set their
// counter to this value and add 1 before the first id.
uint32_t sequential_start(const uint8_t md5_digest[16]) noexcept;

}  // namespace idgen::locality
