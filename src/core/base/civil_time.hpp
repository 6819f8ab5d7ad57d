// Unix time to the proleptic Gregorian calendar in UTC, for the id formats that print or
// hash a date (locality UUIDs' sequential seed, unique timestamps' text form). Howard
// Hinnant's civil_from_days, so no libc time zone code and no 2038 or 1970 limits.
#pragma once

#include <cstdint>

namespace idgen {

struct CivilTime {
    int32_t year;  // astronomical: year 0 is 1 BC
    int month;     // 1 .. 12
    int day;       // 1 .. 31
    int hour;      // 0 .. 23
    int minute;    // 0 .. 59
    int second;    // 0 .. 59 (Unix time has no leap seconds)
};

// The UTC calendar time of a Unix time, whole seconds; a negative time is floored, so
// -1 is 1969-12-31 23:59:59. Exact for every time whose year fits in int32_t.
CivilTime civil_from_unix_seconds(int64_t unix_seconds) noexcept;

}  // namespace idgen
