// Bigint ids and UUIDs as binary numeral strings, through FF1 and back.
#include "core/masking/id_masks.hpp"

namespace idgen::masking {

namespace {

using u128 = unsigned __int128;

constexpr uint32_t kUuidBits = 122;  // 128 less 4 of version and 2 of variant
constexpr uint32_t kUuidLowHalf = kUuidBits - kUuidBits / 2;

ff1::Halves apply(const ff1::BlockCipher &cipher, Direction dir, const ff1::Domain &d, ff1::Halves x) {
    return dir == Direction::mask ? ff1::encrypt(cipher, d, x) : ff1::decrypt(cipher, d, x);
}

// The 122 bits in order: 48 before the version, 12 between version and variant, 62 after.
u128 uuid_bits(const Uuid &u) {
    u128 hi = 0, lo = 0;
    for (int i = 0; i < 8; i++) hi = hi << 8 | u.bytes[i];
    for (int i = 8; i < 16; i++) lo = lo << 8 | u.bytes[i];
    const u128 first = hi >> 16, middle = hi & 0xfff, last = lo & ((u128{1} << 62) - 1);
    return first << 74 | middle << 62 | last;
}

Uuid uuid_of_bits(u128 bits, int version) {
    const uint64_t hi = static_cast<uint64_t>(bits >> 74) << 16 | uint64_t(version) << 12 |
                        static_cast<uint64_t>(bits >> 62 & 0xfff);
    const uint64_t lo = uint64_t{2} << 62 | static_cast<uint64_t>(bits & ((u128{1} << 62) - 1));
    Uuid u;
    for (int i = 0; i < 8; i++) u.bytes[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    for (int i = 0; i < 8; i++) u.bytes[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
    return u;
}

}  // namespace

Status check_width(int width) noexcept {
    if (width < kMinWidth || width > kMaxWidth)
        return Status::error(Errc::invalid_parameter, "width %d is outside %d..%d", width, kMinWidth,
                             kMaxWidth);
    return Status::success();
}

Status transform_id(const ff1::BlockCipher &cipher, Direction dir, int width, int64_t id,
                    int64_t *out) noexcept {
    Status s = check_width(width);
    if (!s.ok()) return s;
    if (id < 0 || (id >> width) != 0)
        return Status::error(Errc::value_out_of_range, "%lld is outside 0 .. 2^%d - 1",
                             static_cast<long long>(id), width);
    const uint32_t low = static_cast<uint32_t>(width - width / 2);
    const uint64_t v = static_cast<uint64_t>(id);
    const ff1::Domain d{2, static_cast<uint32_t>(width), nullptr, 0};
    const ff1::Halves y = apply(cipher, dir, d, ff1::Halves{v >> low, v & ((uint64_t{1} << low) - 1)});
    *out = static_cast<int64_t>(y.a << low | y.b);
    return Status::success();
}

Status transform_uuid(const ff1::BlockCipher &cipher, Direction dir, const Uuid &in, Uuid *out) noexcept {
    const int from = dir == Direction::mask ? 7 : 4, to = dir == Direction::mask ? 4 : 7;
    const std::optional<int> version = uuid_version(in);
    if (uuid_variant(in) != UuidVariant::rfc || version != from)
        return Status::error(Errc::invalid_parameter, "not a version-%d UUID", from);
    const u128 bits = uuid_bits(in);
    const u128 low_mask = (u128{1} << kUuidLowHalf) - 1;
    const ff1::Domain d{2, kUuidBits, nullptr, 0};
    const ff1::Halves y = apply(
        cipher, dir, d,
        ff1::Halves{static_cast<uint64_t>(bits >> kUuidLowHalf), static_cast<uint64_t>(bits & low_mask)});
    *out = uuid_of_bits(u128{y.a} << kUuidLowHalf | y.b, to);
    return Status::success();
}

}  // namespace idgen::masking
