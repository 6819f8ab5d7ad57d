// Readings and makings of UUIDs that other projects offer and idgen offers under their names, so
// that code written for them runs unchanged: the time of a version-1 or version-7 UUID read
// without version 7's sub-millisecond fraction, the 48-bit millisecond field read whatever the
// version, and the version-7 UUID of a millisecond with nothing after its time. Pure functions.
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/base/uuid.hpp"

namespace idgen::uuid_readings {

// The latest Unix time in microseconds whose millisecond fits the 48-bit field as a whole
// millisecond: a time shifted past it has no version-7 UUID of its own millisecond.
constexpr int64_t kMaxWholeMsMicros = ((int64_t{1} << 48) - 1) * 1000;

// The Unix time an RFC-variant UUID of version 1 (its ticks, to the microsecond, truncated) or
// version 7 (its millisecond only) carries; false for any other UUID.
bool embedded_unix_micros(const Uuid &u, int64_t *unix_micros) noexcept;

// The first 48 bits as Unix milliseconds, whatever the variant and version.
int64_t unix_ms_field(const Uuid &u) noexcept;

// The version-7 UUID of unix_micros's millisecond whose fraction and rand_b are zero;
// Errc::timestamp_out_of_range outside 1970-01-01 .. the last millisecond of the 48-bit field.
Status whole_ms_v7(int64_t unix_micros, Uuid *out) noexcept;

}  // namespace idgen::uuid_readings
