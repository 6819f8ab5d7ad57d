// Byte layout of locality UUIDs, as Groupon's Java implementation writes it:
//   bytes 0-3 counter, 4-5 pid, 6 = 0xb0 | mac >> 24, 7-9 the rest of the mac, 10-15 time.
#include "core/layouts/locality_uuid.hpp"

#include <cstdio>
#include <cstring>

#include "core/base/arithmetic.hpp"
#include "core/base/civil_time.hpp"

namespace idgen::locality {

static constexpr int64_t kTimeLimit = int64_t{1} << 48;
static constexpr uint32_t kMacMask = (uint32_t{1} << 28) - 1;
static constexpr uint8_t kVersion = 0xb;

// Reverses the order of the eight hex digits: swaps the digits inside each byte, then the
// bytes. Its own inverse.
static uint32_t reverse_hex_digits(uint32_t x) noexcept {
    x = (x & 0x0F0F0F0Fu) << 4 | (x >> 4 & 0x0F0F0F0Fu);
    return x << 24 | (x & 0xFF00u) << 8 | (x >> 8 & 0xFF00u) | x >> 24;
}

static void put_be(uint8_t *p, uint64_t v, int n) noexcept {
    for (int i = 0; i < n; i++) p[i] = static_cast<uint8_t>(v >> (8 * (n - 1 - i)));
}

static uint64_t get_be(const uint8_t *p, int n) noexcept {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

Status encode(Mode mode, const Fields &f, Uuid *out) noexcept {
    if (f.unix_ms < 0 || f.unix_ms >= kTimeLimit)
        return Status::error(Errc::timestamp_out_of_range,
                             "timestamp out of range for a locality UUID (1970 .. 10889)");
    const uint32_t counter = mode == Mode::variable ? reverse_hex_digits(f.counter) : f.counter;
    const uint32_t mac = static_cast<uint32_t>(f.mac) & kMacMask;
    uint8_t *b = out->bytes;
    put_be(b, counter, 4);
    put_be(b + 4, f.pid & 0xFFFFu, 2);
    put_be(b + 6, uint32_t{kVersion} << 28 | mac, 4);
    put_be(b + 10, static_cast<uint64_t>(f.unix_ms), 6);
    return Status::success();
}

Status decode(const Uuid &u, Decoded *out) noexcept {
    const uint8_t *b = u.bytes;
    if (b[6] >> 4 != kVersion)
        return Status::error(Errc::invalid_parameter, "not a locality UUID: its version digit is not b");
    out->raw_counter = static_cast<uint32_t>(get_be(b, 4));
    out->variable_counter = reverse_hex_digits(out->raw_counter);
    out->pid = static_cast<uint32_t>(get_be(b + 4, 2));
    out->mac = static_cast<uint32_t>(get_be(b + 6, 4)) & kMacMask;
    out->unix_ms = static_cast<int64_t>(get_be(b + 10, 6));
    return Status::success();
}

int64_t sequential_seed_window(int64_t unix_ms) noexcept {
    return floor_div(unix_ms, 600000);
}

void sequential_seed_text(int64_t unix_ms, char buf[12]) noexcept {
    // Floored to whole seconds, as Java's date formatting does.
    const int64_t secs = unix_ms / 1000 - (unix_ms % 1000 < 0);
    const CivilTime t = civil_from_unix_seconds(secs);
    // The whole yyyyMMddHHmm first, then its first 11 characters, as Groupon cuts it (a
    // five-digit year would shift the cut, as it would in Java).
    char full[64];
    std::snprintf(full, sizeof full, "%04d%02d%02d%02d%02d", static_cast<int>(t.year), t.month, t.day, t.hour,
                  t.minute);
    std::memcpy(buf, full, 11);
    buf[11] = '\0';
}

uint32_t sequential_start(const uint8_t md5_digest[16]) noexcept {
    return uint32_t{md5_digest[0]} | uint32_t{md5_digest[1]} << 8 | uint32_t{md5_digest[2]} << 16 |
           uint32_t{md5_digest[3]} << 24;
}

}  // namespace idgen::locality
