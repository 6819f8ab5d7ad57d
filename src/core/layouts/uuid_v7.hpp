// RFC 9562 version-7 UUIDs as idgen lays them out and reads them:
//   unix_ts_ms(48) version(4)=7 fraction(12) variant(2)=10 rand_b(62)
// The 12 bits after the version are the sub-millisecond fraction in steps of 1/4096 ms (RFC 9562
// section 6.2, method 3; PostgreSQL 18's uuidv7() writes them the same way). 4096 steps per
// 1000 microseconds: every microsecond has a step of its own, so a time given to the
// microsecond is stored exactly and read back exactly.
//
// idgen splits rand_b by who made the UUID; the first bit keeps the two kinds apart for ever:
//   live:          0 | counter(4) | node id(13) | random(44)
//   retrospective: 1 | node id(13) | namespace(24) | offset(24)
// A live UUID's time, fraction and counter are one position of the server's logical clock
// (uuid_v7_clock.hpp): 16 positions per step, 65,536 per millisecond. A retrospective UUID's
// time is exactly the microsecond asked for, and a leased namespace and an offset in it make it
// unique (as for version-1 UUIDs, uuid_v1_backfill.hpp).
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/base/uuid.hpp"

namespace idgen::uuid_v7 {

constexpr int64_t kMaxUnixMs = (int64_t{1} << 48) - 1;  // 10889-08-02 05:31:50.655 UTC
constexpr int64_t kMaxUnixMicros = kMaxUnixMs * 1000 + 999;
constexpr uint32_t kFractionSteps = 4096;
constexpr int kNodeIdBits = 13;
constexpr int kCounterBits = 4;
constexpr int kRandomBits = 44;  // live UUIDs; 57 when no node id is set
constexpr int kNamespaceBits = 24;
constexpr int kOffsetBits = 24;
constexpr uint64_t kNamespaces = uint64_t{1} << kNamespaceBits;
constexpr uint64_t kPerNamespace = uint64_t{1} << kOffsetBits;  // per microsecond

// The 60 bits of time: the millisecond and the step of 1/4096 ms in it.
struct Time {
    int64_t unix_ms;    // 0 .. kMaxUnixMs
    uint32_t fraction;  // 0 .. kFractionSteps - 1
};

// The first step of a microsecond (exact: unix_micros_of gives the microsecond back);
// Errc::timestamp_out_of_range before 1970 or after kMaxUnixMicros.
Status time_from_unix_micros(int64_t unix_micros, Time *out) noexcept;

// The microsecond a step lies in (rounded down).
int64_t unix_micros_of(const Time &t) noexcept;

// Lays out time and the 62 bits of rand_b (higher bits ignored).
void encode(const Time &t, uint64_t rand_b, Uuid *out) noexcept;

// False, leaving the outputs alone, when u is not an RFC-variant version-7 UUID.
bool decode(const Uuid &u, Time *t, uint64_t *rand_b) noexcept;

// The smallest version-7 UUID whose decoded time is at or after unix_micros: for every
// version-7 UUID u, u >= min_at(t) exactly when unix_micros_of(decode(u)) >= t. Times before
// 1970 give the smallest version-7 UUID of all; Errc::timestamp_out_of_range after
// kMaxUnixMicros (no version-7 UUID is that late).
Status min_at(int64_t unix_micros, Uuid *out) noexcept;

// rand_b of a live UUID: `counter` (kCounterBits), `node_id` (kNodeIdBits; negative: none, the
// bits are random too) and the rest from `random`.
uint64_t live_rand_b(uint32_t counter, int32_t node_id, uint64_t random) noexcept;

// The retrospective UUID at `offset` of namespace `ns` of node id `node_id`, whose time is
// exactly unix_micros. Errc::timestamp_out_of_range outside 1970 .. kMaxUnixMicros;
// Errc::not_attached for a node id that does not fit; Errc::exhausted past the namespaces.
Status make_retrospective(int64_t unix_micros, int32_t node_id, uint64_t ns, uint64_t offset,
                          Uuid *out) noexcept;

}  // namespace idgen::uuid_v7
