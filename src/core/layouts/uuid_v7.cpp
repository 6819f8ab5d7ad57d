// The layout of version-7 UUIDs and its exact microsecond arithmetic (uuid_v7.hpp).
#include "core/layouts/uuid_v7.hpp"

namespace idgen::uuid_v7 {

static constexpr uint64_t kRandBMask = (uint64_t{1} << 62) - 1;
static constexpr uint64_t kRetrospectiveBit = uint64_t{1} << 61;

// The microsecond u (0..999) of a millisecond starts in step ceil(u * 4096 / 1000), and step f
// lies in microsecond floor(f * 1000 / 4096): ceil(u * 4.096) / 4.096 is in [u, u + 0.245), so
// the round trip gives u back, and steps of one microsecond never reach the next one.
Status time_from_unix_micros(int64_t unix_micros, Time *out) noexcept {
    if (unix_micros < 0 || unix_micros > kMaxUnixMicros)
        return Status::error(Errc::timestamp_out_of_range,
                             "timestamp out of range for a version-7 UUID (1970-01-01 to 10889-08-02)");
    const int64_t us_in_ms = unix_micros % 1000;
    *out = Time{unix_micros / 1000, static_cast<uint32_t>((us_in_ms * kFractionSteps + 999) / 1000)};
    return Status::success();
}

int64_t unix_micros_of(const Time &t) noexcept {
    return t.unix_ms * 1000 + int64_t{t.fraction} * 1000 / kFractionSteps;
}

void encode(const Time &t, uint64_t rand_b, Uuid *out) noexcept {
    const uint64_t ms = static_cast<uint64_t>(t.unix_ms);
    uint8_t *b = out->bytes;
    for (int i = 0; i < 6; i++) b[i] = static_cast<uint8_t>(ms >> (40 - 8 * i));
    b[6] = static_cast<uint8_t>(0x70 | ((t.fraction >> 8) & 0x0F));
    b[7] = static_cast<uint8_t>(t.fraction);
    b[8] = static_cast<uint8_t>(0x80 | ((rand_b >> 56) & 0x3F));
    for (int i = 0; i < 7; i++) b[9 + i] = static_cast<uint8_t>(rand_b >> (48 - 8 * i));
}

bool decode(const Uuid &u, Time *t, uint64_t *rand_b) noexcept {
    if (uuid_version(u) != 7) return false;
    const uint8_t *b = u.bytes;
    uint64_t ms = 0;
    for (int i = 0; i < 6; i++) ms = ms << 8 | b[i];
    *t = Time{static_cast<int64_t>(ms), (uint32_t{b[6]} & 0x0F) << 8 | b[7]};
    uint64_t r = b[8] & 0x3F;
    for (int i = 0; i < 7; i++) r = r << 8 | b[9 + i];
    *rand_b = r;
    return true;
}

Status min_at(int64_t unix_micros, Uuid *out) noexcept {
    Time t{0, 0};
    if (unix_micros > 0) {
        const Status s = time_from_unix_micros(unix_micros, &t);
        if (!s.ok()) return s;
    }
    encode(t, 0, out);
    return Status::success();
}

uint64_t live_rand_b(uint32_t counter, int32_t node_id, uint64_t random) noexcept {
    constexpr int kNodeShift = kRandomBits;
    constexpr int kCounterShift = kNodeShift + kNodeIdBits;
    const uint64_t counter_bits = uint64_t{counter & ((1u << kCounterBits) - 1)} << kCounterShift;
    if (node_id < 0) return counter_bits | (random & ((uint64_t{1} << kCounterShift) - 1));
    const uint64_t node_bits = static_cast<uint64_t>(node_id & ((1 << kNodeIdBits) - 1)) << kNodeShift;
    return counter_bits | node_bits | (random & ((uint64_t{1} << kRandomBits) - 1));
}

Status make_retrospective(int64_t unix_micros, int32_t node_id, uint64_t ns, uint64_t offset,
                          Uuid *out) noexcept {
    Time t;
    const Status s = time_from_unix_micros(unix_micros, &t);
    if (!s.ok()) return s;
    if (node_id < 0 || node_id >= (1 << kNodeIdBits))
        return Status::error(Errc::not_attached, "node id %d does not fit %d bits", node_id, kNodeIdBits);
    if (ns >= kNamespaces || offset >= kPerNamespace)
        return Status::error(Errc::exhausted, "version-7 namespace %llu does not exist",
                             static_cast<unsigned long long>(ns));
    const uint64_t rand_b = kRetrospectiveBit |
                            static_cast<uint64_t>(node_id) << (kNamespaceBits + kOffsetBits) |
                            ns << kOffsetBits | offset;
    encode(t, rand_b & kRandBMask, out);
    return Status::success();
}

}  // namespace idgen::uuid_v7
