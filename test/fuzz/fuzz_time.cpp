// Fuzz target for the core's conversions of a bare int64 that SQL callers choose: version-1
// ticks to and from Unix microseconds, unique_ts::format (unique_timestamp_text), the host of
// a unique timestamp, civil_from_unix_seconds under all of them, and the locality seed text.
// Any int64 must give an error or a correct answer: no overflow, no write past the caller's
// buffer (format's buffer is exactly 30 heap bytes, so ASan sees one byte too many), and
// calendar fields that convert back to the same second.
//
// Input: big-endian int64 values, missing bytes zero; the first is the value under test,
// the second a check_host argument.
#include <cstdlib>
#include <cstring>

#include "core/base/civil_time.hpp"
#include "core/layouts/locality_uuid.hpp"
#include "core/layouts/unique_timestamp.hpp"
#include "core/layouts/uuid_v1.hpp"

#include "fuzz_support.hpp"

using namespace idgen;

static bool is_leap(int64_t y) {
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

static int days_in_month(int64_t y, int m) {
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date, counted the slow way: whole 400-year
// cycles, then years, then months (no shared code with civil_time.cpp).
static int64_t days_from_civil(int64_t y, int m, int d) {
    const int64_t cycles = fuzz::floor_div(y - 1970, 400);
    int64_t days = cycles * 146097;
    for (int64_t year = 1970 + cycles * 400; year < y; year++) days += is_leap(year) ? 366 : 365;
    for (int month = 1; month < m; month++) days += days_in_month(y, month);
    return days + d - 1;
}

// Years of seconds that keep the year inside int32_t, the documented exact range.
static constexpr int64_t kExactSeconds = int64_t{2000000000} * 31556952;

static void check_civil(int64_t secs) {
    const CivilTime t = civil_from_unix_seconds(secs);
    FUZZ_CHECK(t.month >= 1 && t.month <= 12);
    FUZZ_CHECK(t.day >= 1 && t.day <= 31);
    FUZZ_CHECK(t.hour >= 0 && t.hour <= 23);
    FUZZ_CHECK(t.minute >= 0 && t.minute <= 59);
    FUZZ_CHECK(t.second >= 0 && t.second <= 59);
    const int64_t rem = secs % 86400;
    FUZZ_CHECK(t.hour * 3600 + t.minute * 60 + t.second == (rem < 0 ? rem + 86400 : rem));
    if (secs < -kExactSeconds || secs > kExactSeconds) return;
    FUZZ_CHECK(t.day <= days_in_month(t.year, t.month));
    FUZZ_CHECK(days_from_civil(t.year, t.month, t.day) == fuzz::floor_div(secs, 86400));
}

static void check_ticks(int64_t v) {
    uint64_t ticks = 0x5555555555555555ULL;
    const Status s = uuid_v1::ticks_from_unix_micros(v, &ticks);
    const bool in_range = v >= uuid_v1::kMinUnixMicros && v <= uuid_v1::kMaxUnixMicros;
    FUZZ_CHECK(s.ok() == in_range);
    if (s.ok()) {
        FUZZ_CHECK(ticks <= uuid_v1::kMaxTicks && ticks % 10 == 0);
        FUZZ_CHECK(uuid_v1::unix_micros_from_ticks(ticks) == v);
    } else {
        FUZZ_CHECK(s.code == Errc::timestamp_out_of_range);
        FUZZ_CHECK(ticks == 0x5555555555555555ULL);
    }
    // The other way, for any 60-bit tick count (what a decoded UUID holds) and, for the
    // sanitizers only, any 64-bit one.
    const uint64_t t60 = static_cast<uint64_t>(v) & uuid_v1::kMaxTicks;
    const int64_t micros = uuid_v1::unix_micros_from_ticks(t60);
    FUZZ_CHECK(micros >= uuid_v1::kMinUnixMicros && micros <= uuid_v1::kMaxUnixMicros);
    uint64_t back = 0;
    FUZZ_CHECK(uuid_v1::ticks_from_unix_micros(micros, &back).ok() && back == t60 - t60 % 10);
    (void)uuid_v1::unix_micros_from_ticks(static_cast<uint64_t>(v));
}

static bool digits(const char *p, int n) {
    for (int i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9') return false;
    return true;
}

static int number(const char *p, int n) {
    int v = 0;
    for (int i = 0; i < n; i++) v = v * 10 + (p[i] - '0');
    return v;
}

static void check_format(int64_t v) {
    char *buf = static_cast<char *>(std::malloc(30));  // exactly the documented size
    std::memset(buf, '#', 30);
    const Status s = unique_ts::format(v, buf);
    if (v < 0) {
        FUZZ_CHECK(!s.ok() && s.code == Errc::value_out_of_range);
        std::free(buf);
        return;
    }
    FUZZ_CHECK(s.ok());
    // int64 nanoseconds end in 2262, so the year always has four digits:
    // "YYYY-MM-DDTHH:MM:SS.nnnnnnnnn" is 29 characters and the NUL.
    FUZZ_CHECK(std::memchr(buf, '\0', 30) == buf + 29);
    FUZZ_CHECK(digits(buf, 4) && buf[4] == '-' && digits(buf + 5, 2) && buf[7] == '-' && digits(buf + 8, 2) &&
               buf[10] == 'T' && digits(buf + 11, 2) && buf[13] == ':' && digits(buf + 14, 2) &&
               buf[16] == ':' && digits(buf + 17, 2) && buf[19] == '.' && digits(buf + 20, 9));
    const int64_t secs = v / 1000000000;
    const CivilTime t = civil_from_unix_seconds(secs);
    FUZZ_CHECK(number(buf, 4) == t.year && number(buf + 5, 2) == t.month && number(buf + 8, 2) == t.day &&
               number(buf + 11, 2) == t.hour && number(buf + 14, 2) == t.minute &&
               number(buf + 17, 2) == t.second);
    FUZZ_CHECK(number(buf + 20, 9) == v % 1000000000);
    FUZZ_CHECK(t.year >= 1970 && t.year <= 2262);
    std::free(buf);
}

static void check_host(int64_t v, int32_t host) {
    for (int host_digits = 2; host_digits <= 3; host_digits++) {
        const unique_ts::Layout l{host_digits};
        const int32_t unit = host_digits == 2 ? 100 : 1000;
        FUZZ_CHECK(unique_ts::unit_ns(l) == unit);
        const Status s = unique_ts::check_host(l, host);
        FUZZ_CHECK(s.ok() == (host >= 0 && host < unit));
        if (!s.ok()) FUZZ_CHECK(s.code == Errc::not_attached);
        if (v >= 0) {  // the SQL function rejects a negative value before calling host_of
            const int32_t h = unique_ts::host_of(l, v);
            FUZZ_CHECK(h >= 0 && h < unit && h == v % unit);
        }
    }
}

static void check_seed_text(int64_t v) {
    char *buf = static_cast<char *>(std::malloc(12));
    locality::sequential_seed_text(v, buf);
    FUZZ_CHECK(std::memchr(buf, '\0', 12) == buf + 11);
    if (v >= 0 && v < (int64_t{1} << 48)) {  // the times a locality UUID can hold
        FUZZ_CHECK(digits(buf, 11));
        const CivilTime t = civil_from_unix_seconds(v / 1000);
        if (t.year <= 9999) {  // yyyyMMddHHm
            FUZZ_CHECK(number(buf, 4) == t.year && number(buf + 4, 2) == t.month &&
                       number(buf + 6, 2) == t.day && number(buf + 8, 2) == t.hour &&
                       number(buf + 10, 1) == t.minute / 10);
        } else {  // a five-digit year shifts the cut: yyyyyMMddHH
            FUZZ_CHECK(number(buf, 5) == t.year && number(buf + 5, 2) == t.month &&
                       number(buf + 7, 2) == t.day && number(buf + 9, 2) == t.hour);
        }
    }
    std::free(buf);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz::Reader in(data, size);
    const int64_t v = in.i64();
    const int32_t host = in.i32();

    check_civil(v);
    check_ticks(v);
    check_format(v);
    check_host(v, host);
    check_seed_text(v);
    return 0;
}
