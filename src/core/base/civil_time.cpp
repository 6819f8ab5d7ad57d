// Days since 1970-01-01 to year, month and day: Howard Hinnant's civil_from_days
// (http://howardhinnant.github.io/date_algorithms.html), which counts in 400-year eras of
// 146,097 days and in years that start on March 1st, so that February's leap day is last.
#include "core/base/civil_time.hpp"

#include "core/base/arithmetic.hpp"

namespace idgen {

static constexpr int64_t kSecondsPerDay = 86400;
static constexpr int64_t kDaysPerEra = 146097;
static constexpr int64_t kDaysFrom0000_03_01To1970_01_01 = 719468;

static void civil_from_days(int64_t days, CivilTime *out) noexcept {
    const int64_t z = days + kDaysFrom0000_03_01To1970_01_01;
    const int64_t era = floor_div(z, kDaysPerEra);
    const int64_t doe = z - era * kDaysPerEra;                                  // 0 .. 146096
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // 0 .. 399
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // 0 .. 365
    const int64_t mp = (5 * doy + 2) / 153;                                     // 0 = March
    out->day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
    out->month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
    out->year = static_cast<int32_t>(yoe + era * 400 + (out->month <= 2));
}

CivilTime civil_from_unix_seconds(int64_t unix_seconds) noexcept {
    // The remainder is taken apart from the division, so that days * 86400 is never
    // formed (it would overflow near INT64_MIN).
    const int64_t rem = unix_seconds % kSecondsPerDay;
    const int64_t secs = rem < 0 ? rem + kSecondsPerDay : rem;  // 0 .. 86399
    CivilTime t;
    civil_from_days(floor_div(unix_seconds, kSecondsPerDay), &t);
    t.hour = static_cast<int>(secs / 3600);
    t.minute = static_cast<int>(secs / 60 % 60);
    t.second = static_cast<int>(secs % 60);
    return t;
}

}  // namespace idgen
