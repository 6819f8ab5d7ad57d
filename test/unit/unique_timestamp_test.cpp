// Unique timestamps with a fake clock: Chronicle's example, host ids that do not fit, values
// that keep increasing and keep their host digits whatever the wall clock does, the lead
// limit, the end of int64 nanoseconds, restart above a horizon, uniqueness across threads,
// the text form, and the calendar arithmetic under it checked against the C library.
#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <thread>
#include <time.h>
#include <vector>

#include "core/base/civil_time.hpp"
#include "core/layouts/unique_timestamp.hpp"

#include "test_support.hpp"

using namespace idgen;
using namespace idgen::unique_ts;

static constexpr Layout kTwo{2}, kThree{3};
static constexpr int64_t kNowNs = 1640700422954100000;  // 2021-12-28 14:07:02.9541 UTC

static Next take(LogicalClock *c, const Layout &l, int64_t now_ns, int32_t host = 28,
                 int64_t lead_ms = 1000) {
    Status err;
    return next(c, l, host, now_ns, lead_ms, &err);
}

static std::string text(int64_t value) {
    char buf[30];
    EXPECT_TRUE(format(value, buf).ok()) << value;
    return buf;
}

// Chronicle's unique timestamps: "For a hostId of 28, the generated timestamp would look like this:
// 2021-12-28T14:07:02.954100128".
TEST(UniqueTimestamp, ChroniclesExample) {
    EXPECT_EQ(text(1640700422954100128), "2021-12-28T14:07:02.954100128");
    EXPECT_EQ(host_of(kTwo, 1640700422954100128), 28);
    LogicalClock c{0};
    const Next n = take(&c, kTwo, kNowNs + 128);  // the wall clock's 100 ns digit is dropped
    ASSERT_EQ(n.kind, Next::Kind::issued);
    EXPECT_EQ(n.value, 1640700422954100128);
    EXPECT_EQ(n.end_unix_us, 1640700422954101);  // the unit ends at ...954100200 ns
}

TEST(UniqueTimestamp, UnitsAndHostsOfBothLayouts) {
    EXPECT_EQ(unit_ns(kTwo), 100);
    EXPECT_EQ(unit_ns(kThree), 1000);
    EXPECT_EQ(host_of(kThree, 1640700422954100128), 128);
    EXPECT_TRUE(check_host(kTwo, 0).ok());
    EXPECT_TRUE(check_host(kTwo, 99).ok());
    EXPECT_TRUE(check_host(kThree, 999).ok());
    for (auto [l, host] : {std::pair{kTwo, 100},
                           {kThree, 1000},
                           {kTwo, -1},
                           {kThree, -1},
                           {kThree, INT32_MIN},
                           {kTwo, INT32_MAX}}) {
        const Status s = check_host(l, host);
        EXPECT_EQ(s.code, Errc::not_attached) << host;
        EXPECT_NE(std::strstr(s.message, l.host_digits == 2 ? "2 decimal digits" : "3 decimal digits"),
                  nullptr)
            << s.message;
    }
}

TEST(UniqueTimestamp, HostThatDoesNotFitIsRefusedWithoutDrawing) {
    LogicalClock c{0};
    Status err;
    for (auto [l, host] : {std::pair{kTwo, 100}, {kThree, 1000}, {kTwo, -1}}) {
        EXPECT_EQ(next(&c, l, host, kNowNs, 1000, &err).kind, Next::Kind::failed) << host;
        EXPECT_EQ(err.code, Errc::not_attached);
    }
    EXPECT_EQ(c.next_free, 0u);
    EXPECT_EQ(next(&c, kThree, 999, kNowNs, 1000, &err).kind, Next::Kind::issued);
}

TEST(UniqueTimestamp, IncreasesAndKeepsTheHostWhenTheClockStandsStillGoesBackAndJumps) {
    for (const Layout &l : {kTwo, kThree}) {
        const int32_t host = l.host_digits == 2 ? 7 : 999;
        const int64_t unit = unit_ns(l);
        LogicalClock c{0};
        int64_t last = -1;
        const auto check = [&](int64_t now_ns) {
            const Next n = take(&c, l, now_ns, host, 1000);
            ASSERT_EQ(n.kind, Next::Kind::issued);
            EXPECT_GT(n.value, last);
            EXPECT_EQ(host_of(l, n.value), host);
            EXPECT_GE(n.end_unix_us * 1000, n.value - host + unit);
            last = n.value;
        };
        for (int i = 0; i < 1000; i++) check(kNowNs);  // stands still
        EXPECT_EQ(last, kNowNs / unit * unit + 999 * unit + host);
        for (int i = 0; i < 1000; i++) check(kNowNs - 500 * 1000 * 1000);  // back 500 ms
        check(kNowNs + 3600LL * 1000 * 1000 * 1000);                       // jumps an hour ahead: follows it
        EXPECT_EQ(last, (kNowNs + 3600LL * 1000 * 1000 * 1000) / unit * unit + host);
        check(kNowNs + 3600LL * 1000 * 1000 * 1000 + 1);  // within the same unit
    }
}

TEST(UniqueTimestamp, RunsAtMostTheLeadAheadThenWaits) {
    LogicalClock c{0};
    // 1 ms of lead is 10,000 units of 100 ns beyond the current one.
    for (int i = 0; i <= 10000; i++) ASSERT_EQ(take(&c, kTwo, kNowNs, 28, 1).kind, Next::Kind::issued) << i;
    const Next w = take(&c, kTwo, kNowNs, 28, 1);
    ASSERT_EQ(w.kind, Next::Kind::wait);
    EXPECT_EQ(w.ahead_ms, 2);                                             // 1.0001 ms, rounded up
    EXPECT_EQ(c.next_free, static_cast<uint64_t>(kNowNs / 100 + 10001));  // nothing taken
    EXPECT_EQ(take(&c, kTwo, kNowNs + 100, 28, 1).kind, Next::Kind::issued);

    const Next back = take(&c, kTwo, kNowNs - 3600LL * 1000 * 1000 * 1000, 28, 1000);
    ASSERT_EQ(back.kind, Next::Kind::wait);
    EXPECT_EQ(back.ahead_ms, 3600LL * 1000 + 2);  // an hour and 1.0002 ms, rounded up
}

TEST(UniqueTimestamp, TheEndOfInt64NanosecondsIsAnErrorNotAWrap) {
    // The last value of each host and the end of its unit in microseconds, which may lie
    // past INT64_MAX ns (the unit of INT64_MAX itself ends at ...776000 ns).
    for (auto [l, host, last_value, end_us] :
         {std::tuple{kTwo, 99, INT64_C(9223372036854775799), INT64_C(9223372036854776)},
          {kTwo, 7, INT64_MAX, INT64_C(9223372036854776)},
          {kTwo, 8, INT64_C(9223372036854775708), INT64_C(9223372036854776)},
          {kThree, 807, INT64_MAX, INT64_C(9223372036854776)},
          {kThree, 808, INT64_C(9223372036854774808), INT64_C(9223372036854775)}}) {
        LogicalClock c{0};
        Status err;
        Next n{};
        do n = next(&c, l, host, INT64_MAX - 2000, 1000, &err);
        while (n.kind == Next::Kind::issued && n.value != last_value);
        ASSERT_EQ(n.kind, Next::Kind::issued) << host;
        EXPECT_EQ(n.end_unix_us, end_us) << host;
        EXPECT_EQ(next(&c, l, host, INT64_MAX, 1000, &err).kind, Next::Kind::failed) << host;
        EXPECT_EQ(err.code, Errc::exhausted);
    }
}

TEST(UniqueTimestamp, WallClockBefore1970CountsAs1970) {
    LogicalClock c{0};
    const Next n = take(&c, kTwo, -5000, 3, 0);
    ASSERT_EQ(n.kind, Next::Kind::issued);
    EXPECT_EQ(n.value, 3);
    const Next w = take(&c, kTwo, -5000, 3, 0);
    ASSERT_EQ(w.kind, Next::Kind::wait);
    EXPECT_EQ(w.ahead_ms, 1);
}

TEST(UniqueTimestamp, ResumesAboveADurableHorizon) {
    for (const Layout &l : {kTwo, kThree}) {
        LogicalClock before{0};
        int64_t horizon_us = 0, last = 0;
        for (int i = 0; i < 5000; i++) {
            const Next n = take(&before, l, kNowNs + 50 * i, 99);
            ASSERT_EQ(n.kind, Next::Kind::issued);
            horizon_us = std::max(horizon_us, n.end_unix_us);
            last = n.value;
        }
        LogicalClock after{0};  // a restart, with the wall clock stepped back
        raise_to(&after, position_after(l, horizon_us));
        for (int32_t host : {0, 99}) {
            const Next n = take(&after, l, kNowNs - 1000, host);
            ASSERT_EQ(n.kind, Next::Kind::issued);
            EXPECT_GT(n.value, last);
            EXPECT_GE(n.value - host, horizon_us * 1000);
        }
    }
    EXPECT_EQ(position_after(kTwo, 0), 0u);
    EXPECT_EQ(position_after(kTwo, INT64_MIN), 0u);
    EXPECT_EQ(position_after(kTwo, 1), 10u);
    EXPECT_EQ(position_after(kThree, 1), 1u);
    LogicalClock beyond{0};
    raise_to(&beyond, position_after(kTwo, INT64_MAX));
    Status err;
    EXPECT_EQ(next(&beyond, kTwo, 0, kNowNs, 1000, &err).kind, Next::Kind::failed);
    EXPECT_EQ(err.code, Errc::exhausted);
}

TEST(UniqueTimestamp, ThreadsWithAFakeClockGetUniqueIncreasingValues) {
    LogicalClock c{0};
    constexpr int kThreads = 8, kPerThread = 100000;
    const std::vector<int64_t> all =
        test::run_threads<int64_t>(kThreads, [&](int, std::vector<int64_t> &got) {
            int64_t now = kNowNs;
            while (got.size() < kPerThread) {
                const Next n = take(&c, kTwo, now, 42, 1);
                if (n.kind == Next::Kind::wait) {
                    now += 100000;  // the fake clock moves on while we "wait"
                    continue;
                }
                ASSERT_EQ(n.kind, Next::Kind::issued);
                ASSERT_EQ(host_of(kTwo, n.value), 42);
                if (!got.empty()) {
                    ASSERT_GT(n.value, got.back());
                }
                got.push_back(n.value);
                if (got.size() % 997 == 0) now -= 500000;  // and sometimes steps back 0.5 ms
            }
        });
    EXPECT_TRUE(test::all_distinct(all)) << "a value was issued twice";
}

TEST(UniqueTimestamp, FormatsEveryNonNegativeValueAndRefusesNegatives) {
    EXPECT_EQ(text(0), "1970-01-01T00:00:00.000000000");
    EXPECT_EQ(text(INT64_MAX), "2262-04-11T23:47:16.854775807");
    EXPECT_EQ(text(951868799999999999), "2000-02-29T23:59:59.999999999");
    char buf[30] = "untouched";
    for (int64_t v : {int64_t{-1}, int64_t{-1000000000}, INT64_MIN}) {
        EXPECT_EQ(format(v, buf).code, Errc::value_out_of_range) << v;
        EXPECT_STREQ(buf, "untouched");
    }
}

static void expect_same_as_gmtime(int64_t s) {
    const time_t tt = static_cast<time_t>(s);
    struct tm want;
    ASSERT_NE(gmtime_r(&tt, &want), nullptr) << s;
    const CivilTime got = civil_from_unix_seconds(s);
    ASSERT_EQ(got.year, want.tm_year + 1900) << s;
    ASSERT_EQ(got.month, want.tm_mon + 1) << s;
    ASSERT_EQ(got.day, want.tm_mday) << s;
    ASSERT_EQ(got.hour, want.tm_hour) << s;
    ASSERT_EQ(got.minute, want.tm_min) << s;
    ASSERT_EQ(got.second, want.tm_sec) << s;
}

TEST(CivilTime, AgreesWithTheCLibraryOnEveryDayOfYears1To9999) {
    constexpr int64_t kFirst = -62135596800;  // 0001-01-01 00:00:00 UTC
    constexpr int64_t kLast = 253402300799;   // 9999-12-31 23:59:59 UTC
    std::mt19937_64 rng(7);
    for (int64_t day = kFirst; day <= kLast; day += 86400) {
        expect_same_as_gmtime(day);
        expect_same_as_gmtime(day + static_cast<int64_t>(rng() % 86400));
        if (HasFatalFailure()) return;
    }
    expect_same_as_gmtime(kLast);
}

TEST(CivilTime, NegativeTimesAreFloored) {
    const CivilTime t = civil_from_unix_seconds(-1);
    EXPECT_EQ(t.year, 1969);
    EXPECT_EQ(t.month, 12);
    EXPECT_EQ(t.day, 31);
    EXPECT_EQ(t.hour, 23);
    EXPECT_EQ(t.minute, 59);
    EXPECT_EQ(t.second, 59);
    const CivilTime day = civil_from_unix_seconds(-86400);
    EXPECT_EQ(day.day, 31);
    EXPECT_EQ(day.hour, 0);
    civil_from_unix_seconds(INT64_MIN);  // defined, if meaningless, at the extremes
    civil_from_unix_seconds(INT64_MAX);
}

TEST(UniqueTimestamp, MaxHostIsTheLastIdTheDigitsHold) {
    EXPECT_EQ(unique_ts::max_host(unique_ts::Layout{2}), 99);
    EXPECT_EQ(unique_ts::max_host(unique_ts::Layout{3}), 999);
    EXPECT_TRUE(unique_ts::check_host(unique_ts::Layout{2}, 99).ok());
    EXPECT_FALSE(unique_ts::check_host(unique_ts::Layout{2}, 100).ok());
}
