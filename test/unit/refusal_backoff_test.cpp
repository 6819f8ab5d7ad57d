// The wait after etcd refused this server (refusal_backoff.hpp): at most one request a second,
// growing to the cap, and none of it once etcd answers.
#include <gtest/gtest.h>

#include "core/registry/refusal_backoff.hpp"

using idgen::registry::RefusalBackoff;

namespace {

constexpr int64_t kSecond = 1000000000;

TEST(RefusalBackoff, NothingWaitsBeforeARefusal) {
    RefusalBackoff b;
    EXPECT_TRUE(b.ready(0));
    EXPECT_TRUE(b.ready(-5 * kSecond));
}

TEST(RefusalBackoff, EachRefusalDoublesTheWaitUpToTheCap) {
    RefusalBackoff b;
    int64_t now = 100 * kSecond;
    int64_t expected = RefusalBackoff::kFirstNs;
    for (int i = 0; i < 10; i++) {
        b.refused(now);
        EXPECT_EQ(b.wait_ns(), expected);
        EXPECT_FALSE(b.ready(now + expected - 1));
        EXPECT_TRUE(b.ready(now + expected));
        now += expected;
        expected = std::min(RefusalBackoff::kCapNs, expected * 2);
    }
    EXPECT_EQ(b.wait_ns(), RefusalBackoff::kCapNs);
}

TEST(RefusalBackoff, ATightLoopMakesAtMostOneRequestASecond) {
    // The worker asks many times a second; count what goes out in a minute of refusals.
    RefusalBackoff b;
    int sent = 0;
    for (int64_t now = 0; now < 60 * kSecond; now += kSecond / 100)
        if (b.ready(now)) {
            sent++;
            b.refused(now);
        }
    EXPECT_LE(sent, 7);  // at 0, 1, 3, 7, 15, 31 s: 6 (one second of slack)
    EXPECT_GE(sent, 5);
}

TEST(RefusalBackoff, AnAnswerStartsAgainFromTheFirstWait) {
    RefusalBackoff b;
    for (int i = 0; i < 5; i++) b.refused(0);
    b.answered();
    EXPECT_TRUE(b.ready(0));
    b.refused(10 * kSecond);
    EXPECT_EQ(b.wait_ns(), RefusalBackoff::kFirstNs);
}

}  // namespace
