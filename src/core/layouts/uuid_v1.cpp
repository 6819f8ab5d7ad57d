// The two layouts of the version-1 fields (RFC 9562 sections 5.1 and 5.6):
//   version 1: time_low(32) time_mid(16) version(4)=1 time_high(12) variant(2)=10 clock_seq(14) node(48)
//   version 6: time_high(32) time_mid(16) version(4)=6 time_low(12) variant(2)=10 clock_seq(14) node(48)
// (in version 6 the names are the time's top 32, middle 16 and low 12 bits.) Bytes 8-15 are
// the same in both.
#include "core/layouts/uuid_v1.hpp"

namespace idgen::uuid_v1 {

Status ticks_from_unix_micros(int64_t unix_micros, uint64_t *ticks) noexcept {
    if (unix_micros < kMinUnixMicros || unix_micros > kMaxUnixMicros)
        return Status::error(Errc::timestamp_out_of_range, "timestamp out of range for a version-1 UUID");
    *ticks = static_cast<uint64_t>(unix_micros * 10 + kUnixEpochTicks);
    return Status::success();
}

int64_t unix_micros_from_ticks(uint64_t ticks) noexcept {
    // kUnixEpochTicks is a multiple of 10, so this is an exact floor division.
    return static_cast<int64_t>(ticks / 10) - kUnixEpochTicks / 10;
}

static Status check_fields(const Fields &f) noexcept {
    if (f.ticks > kMaxTicks)
        return Status::error(Errc::timestamp_out_of_range, "timestamp out of range for a version-1 UUID");
    if (f.clock_seq < 0 || f.clock_seq > kMaxClockSeq)
        return Status::error(Errc::value_out_of_range, "clock sequence %d is out of range 0..%d", f.clock_seq,
                             kMaxClockSeq);
    if (f.node > kMaxNode) return Status::error(Errc::value_out_of_range, "node does not fit in 48 bits");
    return Status::success();
}

// Bytes 8-15, the same in both layouts: variant, clock sequence, node.
static void put_clock_seq_and_node(const Fields &f, uint8_t *b) noexcept {
    b[8] = static_cast<uint8_t>(0x80 | (f.clock_seq >> 8));
    b[9] = static_cast<uint8_t>(f.clock_seq);
    for (int i = 0; i < 6; i++) b[10 + i] = static_cast<uint8_t>(f.node >> (8 * (5 - i)));
}

static void get_clock_seq_and_node(const uint8_t *b, Fields *out) noexcept {
    out->clock_seq = (b[8] & 0x3F) << 8 | b[9];
    out->node = 0;
    for (int i = 0; i < 6; i++) out->node = out->node << 8 | b[10 + i];
}

Status encode(const Fields &f, Uuid *out) noexcept {
    const Status s = check_fields(f);
    if (!s.ok()) return s;
    const uint64_t t = f.ticks;
    uint8_t *b = out->bytes;
    b[0] = static_cast<uint8_t>(t >> 24);
    b[1] = static_cast<uint8_t>(t >> 16);
    b[2] = static_cast<uint8_t>(t >> 8);
    b[3] = static_cast<uint8_t>(t);
    b[4] = static_cast<uint8_t>(t >> 40);
    b[5] = static_cast<uint8_t>(t >> 32);
    b[6] = static_cast<uint8_t>(0x10 | ((t >> 56) & 0x0F));
    b[7] = static_cast<uint8_t>(t >> 48);
    put_clock_seq_and_node(f, b);
    return Status::success();
}

Status encode_v6(const Fields &f, Uuid *out) noexcept {
    const Status s = check_fields(f);
    if (!s.ok()) return s;
    const uint64_t t = f.ticks;
    uint8_t *b = out->bytes;
    for (int i = 0; i < 6; i++) b[i] = static_cast<uint8_t>(t >> (52 - 8 * i));  // bits 59..12
    b[6] = static_cast<uint8_t>(0x60 | ((t >> 8) & 0x0F));
    b[7] = static_cast<uint8_t>(t);
    put_clock_seq_and_node(f, b);
    return Status::success();
}

bool decode(const Uuid &u, Fields *out) noexcept {
    if (uuid_version(u) != 1) return false;
    const uint8_t *b = u.bytes;
    out->ticks = (uint64_t{b[6]} & 0x0F) << 56 | uint64_t{b[7]} << 48 | uint64_t{b[4]} << 40 |
                 uint64_t{b[5]} << 32 | uint64_t{b[0]} << 24 | uint64_t{b[1]} << 16 | uint64_t{b[2]} << 8 |
                 uint64_t{b[3]};
    get_clock_seq_and_node(b, out);
    return true;
}

bool decode_v6(const Uuid &u, Fields *out) noexcept {
    if (uuid_version(u) != 6) return false;
    const uint8_t *b = u.bytes;
    uint64_t t = 0;
    for (int i = 0; i < 6; i++) t = t << 8 | b[i];
    out->ticks = t << 12 | (uint64_t{b[6]} & 0x0F) << 8 | b[7];
    get_clock_seq_and_node(b, out);
    return true;
}

Status v6_min_at(int64_t unix_micros, Uuid *out) noexcept {
    Fields f{0, 0, 0};
    if (unix_micros > kMinUnixMicros) {
        const Status s = ticks_from_unix_micros(unix_micros, &f.ticks);
        if (!s.ok()) return s;
    }
    return encode_v6(f, out);
}

// Decoded fields are in range, so the encoders cannot fail here.
bool v1_to_v6(const Uuid &in, Uuid *out) noexcept {
    Fields f;
    return decode(in, &f) && encode_v6(f, out).ok();
}

bool v6_to_v1(const Uuid &in, Uuid *out) noexcept {
    Fields f;
    return decode_v6(in, &f) && encode(f, out).ok();
}

}  // namespace idgen::uuid_v1
