// The resource manager's records: every layout a release wrote reads back, a record of a length
// no release wrote is refused rather than guessed at, and the description a DBA sees.
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

#include "core/records/state_records.hpp"

namespace idgen::records {
namespace {

using backfill::LeaseKind;
using backfill::LeaseSpace;
using backfill::LeaseState;

TEST(StateRecords, LeaseRecordReadsBackAndKeepsItsBytes) {
    const LeaseSpace space{LeaseKind::uuid_given, 0, 0x020000000001};
    const LeaseRecord r = lease_record(space, LeaseState{7, 300, 100});
    // The bytes of 0.6.0's layout on a little-endian server: a change to the layout fails here.
    const unsigned char expected[32] = {6, 0, 0, 0, 0, 0, 0, 0, 1,    0, 0, 0, 0,   2, 0, 0,
                                        7, 0, 0, 0, 0, 0, 0, 0, 0x2c, 1, 0, 0, 100, 0, 0, 0};
    EXPECT_EQ(0, memcmp(&r, expected, sizeof expected));
    StateRecord out;
    ASSERT_EQ(Read::ok, read_record(kLeaseInfo, &r, sizeof r, &out));
    EXPECT_TRUE(out.space == space);
    EXPECT_EQ(7u, out.state.next);
    EXPECT_EQ(300u, out.state.bound);
    EXPECT_EQ(100u, out.state.step);
}

TEST(StateRecords, LeaseRecordOfVersionOneReadsWithoutBound) {
    const LeaseRecordV1 old{3, 16384, 99, 12};
    StateRecord out;
    ASSERT_EQ(Read::ok, read_record(kLeaseInfo, &old, sizeof old, &out));
    EXPECT_EQ(LeaseKind::snowflake, out.space.kind);
    EXPECT_EQ(16384u, out.space.database);
    EXPECT_EQ(99u, out.space.key);
    EXPECT_EQ(12u, out.state.next);
    EXPECT_EQ(0u, out.state.bound);
    EXPECT_EQ(0u, out.state.step);
}

TEST(StateRecords, HorizonRecordReadsBack) {
    const HorizonRecord h = horizon_record(1700000000123456);
    StateRecord out;
    ASSERT_EQ(Read::ok, read_record(kHorizonInfo, &h, sizeof h, &out));
    EXPECT_EQ(1700000000123456, out.horizon_unix_us);
}

TEST(StateRecords, UnknownLengthsAndTypesAreRefused) {
    std::vector<unsigned char> bytes(64, 0xAB);
    StateRecord out;
    for (size_t size : {size_t{0}, size_t{7}, size_t{9}, size_t{16}})
        EXPECT_EQ(Read::unknown_length, read_record(kHorizonInfo, bytes.data(), size, &out)) << size;
    for (size_t size : {size_t{0}, size_t{8}, size_t{23}, size_t{25}, size_t{31}, size_t{33}, size_t{40}})
        EXPECT_EQ(Read::unknown_length, read_record(kLeaseInfo, bytes.data(), size, &out)) << size;
    for (uint8_t info : {uint8_t{0x20}, uint8_t{0x30}, uint8_t{0xF0}})
        EXPECT_EQ(Read::unknown_type, read_record(info, bytes.data(), 32, &out)) << int{info};
    EXPECT_EQ(nullptr, record_type_name(0x20));
}

TEST(StateRecords, DescriptionsSayWhatTheRecordHolds) {
    char buf[160];
    const HorizonRecord h = horizon_record(1700000000123456);
    EXPECT_STREQ("horizon 1700000000123456 us", describe_record(kHorizonInfo, &h, sizeof h, buf, sizeof buf));
    const LeaseRecord r = lease_record(LeaseSpace{LeaseKind::snowflake, 16384, 42}, LeaseState{5, 64, 64});
    EXPECT_STREQ("lease space 3/16384/42 next 5 bound 64 step 64",
                 describe_record(kLeaseInfo, &r, sizeof r, buf, sizeof buf));
    EXPECT_STREQ("LEASE record of unknown length 31", describe_record(kLeaseInfo, &r, 31, buf, sizeof buf));
    EXPECT_STREQ("unknown record type 0x20 (32 bytes)", describe_record(0x20, &r, 32, buf, sizeof buf));
    char tiny[8];
    EXPECT_STREQ("horizon", describe_record(kHorizonInfo, &h, sizeof h, tiny, sizeof tiny));
}

}  // namespace
}  // namespace idgen::records
