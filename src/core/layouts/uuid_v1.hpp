// Folder src/core/layouts: how each kind of id lays its fields out, both ways (versions 1, 6
// and 7 UUIDs, Snowflake ids, locality UUIDs, unique timestamps).
//
// RFC 4122 version-1 UUIDs as data: the 60-bit count of 100 ns ticks since the Gregorian
// reform (1582-10-15 00:00 UTC), the 14-bit clock sequence and the 48-bit node, and the
// conversion between ticks and Unix microseconds. The same fields have a second byte order,
// RFC 9562's version 6, which sorts by time: both layouts are here, so that a conversion
// between them is one decode and one encode of the same fields. Pure functions; generators
// build on them.
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/base/uuid.hpp"

namespace idgen::uuid_v1 {

// 100 ns ticks from 1582-10-15 00:00:00 UTC to 1970-01-01 00:00:00 UTC.
constexpr int64_t kUnixEpochTicks = 122192928000000000;
constexpr uint64_t kMaxTicks = (uint64_t{1} << 60) - 1;
constexpr int kMaxClockSeq = (1 << 14) - 1;
constexpr uint64_t kMaxNode = (uint64_t{1} << 48) - 1;

// The range of Unix microseconds whose ticks fit in 60 bits:
// 1582-10-15 00:00:00 UTC .. 5236-03-31 21:21:00.684697 UTC.
constexpr int64_t kMinUnixMicros = -kUnixEpochTicks / 10;
constexpr int64_t kMaxUnixMicros = (static_cast<int64_t>(kMaxTicks) - kUnixEpochTicks) / 10;

struct Fields {
    uint64_t ticks;     // 0 .. kMaxTicks
    int32_t clock_seq;  // 0 .. kMaxClockSeq (signed, so that callers pass any int and get the check)
    uint64_t node;      // 0 .. kMaxNode
};

// Ticks for a Unix time in microseconds (sub-microsecond ticks zero);
// Errc::timestamp_out_of_range outside kMinUnixMicros .. kMaxUnixMicros.
Status ticks_from_unix_micros(int64_t unix_micros, uint64_t *ticks) noexcept;

// The Unix time of a tick count, sub-microsecond ticks truncated towards the past.
int64_t unix_micros_from_ticks(uint64_t ticks) noexcept;

// Range-checks every field (Errc::value_out_of_range names the field) before laying it out.
Status encode(const Fields &fields, Uuid *out) noexcept;

// False, leaving *out alone, when u is not an RFC-variant version-1 UUID.
bool decode(const Uuid &u, Fields *out) noexcept;

// Version 6: the same fields, the time's most significant bits first. Checks as encode does.
Status encode_v6(const Fields &fields, Uuid *out) noexcept;

// False, leaving *out alone, when u is not an RFC-variant version-6 UUID.
bool decode_v6(const Uuid &u, Fields *out) noexcept;

// The smallest version-6 UUID whose time is at or after the Unix time `unix_micros` (ticks,
// clock sequence and node zero): u >= *out exactly when u's ticks are at or after that time,
// for every version-6 u, since version 6 lays the ticks out first, most significant bits first.
// A time before the Gregorian reform gives the smallest version-6 UUID of all;
// Errc::timestamp_out_of_range past kMaxUnixMicros.
Status v6_min_at(int64_t unix_micros, Uuid *out) noexcept;

// The same fields in the other layout: false, leaving *out alone, when `in` is not a UUID of
// the version converted from. Lossless both ways.
bool v1_to_v6(const Uuid &in, Uuid *out) noexcept;
bool v6_to_v1(const Uuid &in, Uuid *out) noexcept;

}  // namespace idgen::uuid_v1
