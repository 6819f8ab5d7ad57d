// Fuzz target for the UUID decoders of the core (uuid_variant, uuid_version, uuid_v1::decode,
// uuid_v1::decode_v6 and the v1/v6 conversions, uuid_v7::decode and min_at, locality::decode):
// they read 16 bytes any SQL caller can pass in a uuid argument, so no
// byte pattern may make them read out of bounds, hit undefined behaviour or return fields
// that do not encode back to the very same bytes. Also the encoders behind form_uuid_v1 and
// the locality generator, with out-of-range fields from the same input.
//
// Input: bytes 0-15 the UUID; then, optionally, big-endian extras: 4 bytes of pid high bits
// and 8 of mac high bits (locality encode must drop them), 8 bytes of Unix microseconds,
// 4 of clock sequence and 8 of node (uuid_v1 encode must range-check them).
#include <cstring>

#include "core/base/uuid.hpp"
#include "core/layouts/locality_uuid.hpp"
#include "core/layouts/uuid_v1.hpp"
#include "core/layouts/uuid_v7.hpp"

#include "fuzz_support.hpp"

using namespace idgen;

static uint32_t be(const uint8_t *p, int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

static void check_variant_and_version(const Uuid &u) {
    const int top = u.bytes[8] >> 5;  // the variant is the leading 1, 2 or 3 bits of byte 8
    const UuidVariant want = top <= 3   ? UuidVariant::ncs
                             : top <= 5 ? UuidVariant::rfc
                             : top == 6 ? UuidVariant::microsoft
                                        : UuidVariant::future;
    FUZZ_CHECK(uuid_variant(u) == want);
    const std::optional<int> version = uuid_version(u);
    FUZZ_CHECK(version.has_value() == (want == UuidVariant::rfc));
    if (version) FUZZ_CHECK(*version == u.bytes[6] >> 4);
}

static void check_uuid_v1_decode(const Uuid &u) {
    const uuid_v1::Fields sentinel{0x0123456789abcdefULL, -12345, 0xfedcba9876543210ULL};
    uuid_v1::Fields f = sentinel;
    const bool is_v1 = uuid_v1::decode(u, &f);
    FUZZ_CHECK(is_v1 == (uuid_version(u) == std::optional<int>(1)));
    if (!is_v1) {  // *out left alone
        FUZZ_CHECK(f.ticks == sentinel.ticks && f.clock_seq == sentinel.clock_seq && f.node == sentinel.node);
        return;
    }
    const uint8_t *b = u.bytes;
    // time_low(32) time_mid(16) version(4) time_high(12) variant(2) clock_seq(14) node(48)
    const uint64_t ticks = uint64_t{be(b + 6, 2) & 0x0FFF} << 48 | uint64_t{be(b + 4, 2)} << 32 | be(b, 4);
    const uint64_t node = uint64_t{be(b + 10, 2)} << 32 | be(b + 12, 4);
    FUZZ_CHECK(f.ticks == ticks && f.ticks <= uuid_v1::kMaxTicks);
    FUZZ_CHECK(f.clock_seq == static_cast<int32_t>(be(b + 8, 2) & 0x3FFF));
    FUZZ_CHECK(f.clock_seq >= 0 && f.clock_seq <= uuid_v1::kMaxClockSeq);
    FUZZ_CHECK(f.node == node && f.node <= uuid_v1::kMaxNode);

    // decode accepted only version 1 and the RFC variant, which are exactly the bits encode
    // sets, so the round trip is byte for byte.
    Uuid again;
    std::memset(again.bytes, 0xA5, sizeof again.bytes);
    FUZZ_CHECK(uuid_v1::encode(f, &again).ok());
    FUZZ_CHECK(std::memcmp(again.bytes, u.bytes, 16) == 0);

    // The decoded time, as uuid_v1_timestamp shows it, converts back to the same ticks
    // less the sub-microsecond ones.
    const int64_t micros = uuid_v1::unix_micros_from_ticks(f.ticks);
    FUZZ_CHECK(micros >= uuid_v1::kMinUnixMicros && micros <= uuid_v1::kMaxUnixMicros);
    uint64_t back = 0;
    FUZZ_CHECK(uuid_v1::ticks_from_unix_micros(micros, &back).ok());
    FUZZ_CHECK(back == f.ticks - f.ticks % 10);
}

// Version 6, read from RFC 9562's field table here: time_high(32) time_mid(16) version(4)
// time_low(12), then bytes 8-15 as in version 1. The conversions map the same fields both ways.
static void check_uuid_v6(const Uuid &u) {
    uuid_v1::Fields f{};
    const bool is_v6 = uuid_v1::decode_v6(u, &f);
    FUZZ_CHECK(is_v6 == (uuid_version(u) == std::optional<int>(6)));
    Uuid other;
    std::memset(other.bytes, 0x3C, sizeof other.bytes);
    FUZZ_CHECK(uuid_v1::v6_to_v1(u, &other) == is_v6);
    if (!is_v6) {
        FUZZ_CHECK(other.bytes[0] == 0x3C);
        return;
    }
    const uint8_t *b = u.bytes;
    const uint64_t ticks = uint64_t{be(b, 4)} << 28 | uint64_t{be(b + 4, 2)} << 12 | (be(b + 6, 2) & 0x0FFF);
    FUZZ_CHECK(f.ticks == ticks);
    FUZZ_CHECK(f.clock_seq == static_cast<int32_t>(be(b + 8, 2) & 0x3FFF));
    uuid_v1::Fields v1{};
    FUZZ_CHECK(uuid_v1::decode(other, &v1));
    FUZZ_CHECK(v1.ticks == f.ticks && v1.clock_seq == f.clock_seq && v1.node == f.node);
    Uuid back;
    FUZZ_CHECK(uuid_v1::v1_to_v6(other, &back));
    FUZZ_CHECK(std::memcmp(back.bytes, b, 16) == 0);
}

// Version 7: unix_ts_ms(48) version(4) fraction(12) variant(2) rand_b(62). Decode and encode are
// exact inverses, the decoded time is the fraction's microsecond, and min_at bounds it.
static void check_uuid_v7(const Uuid &u) {
    uuid_v7::Time t{};
    uint64_t rand_b = 0;
    const bool is_v7 = uuid_v7::decode(u, &t, &rand_b);
    FUZZ_CHECK(is_v7 == (uuid_version(u) == std::optional<int>(7)));
    if (!is_v7) return;
    const uint8_t *b = u.bytes;
    FUZZ_CHECK(t.unix_ms == static_cast<int64_t>(uint64_t{be(b, 4)} << 16 | be(b + 4, 2)));
    FUZZ_CHECK(t.fraction == (be(b + 6, 2) & 0x0FFF));
    FUZZ_CHECK(rand_b == ((uint64_t{be(b + 8, 4)} << 32 | be(b + 12, 4)) & ((uint64_t{1} << 62) - 1)));
    Uuid again;
    uuid_v7::encode(t, rand_b, &again);
    FUZZ_CHECK(std::memcmp(again.bytes, b, 16) == 0);
    const int64_t us = uuid_v7::unix_micros_of(t);
    FUZZ_CHECK(us >= t.unix_ms * 1000 && us < t.unix_ms * 1000 + 1000);
    FUZZ_CHECK((us - t.unix_ms * 1000) * 4096 <= int64_t{t.fraction} * 1000);
    Uuid lo, hi;
    FUZZ_CHECK(uuid_v7::min_at(us, &lo).ok());
    FUZZ_CHECK(std::memcmp(lo.bytes, b, 16) <= 0);
    if (us < uuid_v7::kMaxUnixMicros) {
        FUZZ_CHECK(uuid_v7::min_at(us + 1, &hi).ok());
        FUZZ_CHECK(std::memcmp(hi.bytes, b, 16) > 0);
    }
}

// uuid_v7_at's time check and exact round trip, for any timestamptz.
static void check_uuid_v7_time(int64_t unix_micros) {
    uuid_v7::Time t{};
    const Status s = uuid_v7::time_from_unix_micros(unix_micros, &t);
    FUZZ_CHECK(s.ok() == (unix_micros >= 0 && unix_micros <= uuid_v7::kMaxUnixMicros));
    if (s.ok())
        FUZZ_CHECK(uuid_v7::unix_micros_of(t) == unix_micros);
    else
        FUZZ_CHECK(s.code == Errc::timestamp_out_of_range);
}

// form_uuid_v1: any timestamptz, any int4 clock sequence, a node from the input.
static void check_uuid_v1_encode(int64_t unix_micros, int32_t clock_seq, uint64_t node) {
    uuid_v1::Fields f{0, clock_seq, node};
    const Status t = uuid_v1::ticks_from_unix_micros(unix_micros, &f.ticks);
    const bool in_range = unix_micros >= uuid_v1::kMinUnixMicros && unix_micros <= uuid_v1::kMaxUnixMicros;
    FUZZ_CHECK(t.ok() == in_range);
    if (!t.ok()) {
        FUZZ_CHECK(t.code == Errc::timestamp_out_of_range);
        return;
    }
    Uuid u;
    const Status e = uuid_v1::encode(f, &u);
    const bool fits = clock_seq >= 0 && clock_seq <= uuid_v1::kMaxClockSeq && node <= uuid_v1::kMaxNode;
    FUZZ_CHECK(e.ok() == fits);
    if (!e.ok()) {
        FUZZ_CHECK(e.code == Errc::value_out_of_range);
        return;
    }
    FUZZ_CHECK(uuid_variant(u) == UuidVariant::rfc && uuid_version(u) == std::optional<int>(1));
    uuid_v1::Fields d{};
    FUZZ_CHECK(uuid_v1::decode(u, &d));
    FUZZ_CHECK(d.ticks == f.ticks && d.clock_seq == clock_seq && d.node == node);
    FUZZ_CHECK(uuid_v1::unix_micros_from_ticks(d.ticks) == unix_micros);
}

// Groupon's digit reversal, done digit by digit.
static uint32_t reverse_digits(uint32_t x) {
    uint32_t r = 0;
    for (int i = 0; i < 8; i++) r = r << 4 | (x >> (4 * i) & 0xF);
    return r;
}

static void check_locality_decode(const Uuid &u, uint32_t pid_high, uint64_t mac_high) {
    locality::Decoded d;
    const Status s = locality::decode(u, &d);
    const uint8_t *b = u.bytes;
    FUZZ_CHECK(s.ok() == (b[6] >> 4 == 0xb));
    if (!s.ok()) {
        FUZZ_CHECK(s.code == Errc::invalid_parameter);
        return;
    }
    FUZZ_CHECK(d.raw_counter == be(b, 4));
    FUZZ_CHECK(d.variable_counter == reverse_digits(d.raw_counter));
    FUZZ_CHECK(d.pid == be(b + 4, 2) && d.pid <= 0xFFFF);
    FUZZ_CHECK(d.mac == (be(b + 6, 4) & 0x0FFFFFFF));
    FUZZ_CHECK(d.unix_ms == (int64_t{be(b + 10, 2)} << 32 | be(b + 12, 4)));
    FUZZ_CHECK(d.unix_ms >= 0 && d.unix_ms < (int64_t{1} << 48));

    // Every bit of the 16 bytes is a decoded field except the high nibble of byte 6, which
    // decode required to be b and encode writes as b; the variant bits are plain MAC bits. So
    // sequential mode (counter as is) gives back the input exactly, and so does variable mode
    // fed the un-reversed counter. The pid and mac bits the layout has no room for (from the
    // input's extras) must be dropped, not leak into other fields.
    const locality::Fields seq{d.raw_counter, d.pid | pid_high << 16, d.mac | mac_high << 28, d.unix_ms};
    Uuid again;
    std::memset(again.bytes, 0x5A, sizeof again.bytes);
    FUZZ_CHECK(locality::encode(locality::Mode::sequential, seq, &again).ok());
    FUZZ_CHECK(std::memcmp(again.bytes, b, 16) == 0);

    locality::Fields var = seq;
    var.counter = d.variable_counter;
    std::memset(again.bytes, 0x5A, sizeof again.bytes);
    FUZZ_CHECK(locality::encode(locality::Mode::variable, var, &again).ok());
    FUZZ_CHECK(std::memcmp(again.bytes, b, 16) == 0);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz::Reader in(data, size);
    Uuid u;
    for (uint8_t &byte : u.bytes) byte = in.u8();
    const uint32_t pid_high = in.u32();
    const uint64_t mac_high = in.u64();
    const int64_t unix_micros = in.i64();
    const int32_t clock_seq = in.i32();
    const uint64_t node = in.u64();

    check_variant_and_version(u);
    check_uuid_v1_decode(u);
    check_uuid_v6(u);
    check_uuid_v7(u);
    check_uuid_v7_time(unix_micros);
    check_locality_decode(u, pid_high, mac_high);
    check_uuid_v1_encode(unix_micros, clock_seq, node);
    return 0;
}
