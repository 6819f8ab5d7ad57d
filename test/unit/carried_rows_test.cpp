// The carried rows' rules: a row only moves up, however rows of several servers and dumps meet;
// adoption takes every lease row and only a foreign horizon; guards keep their flags.
#include <gtest/gtest.h>

#include "core/records/carried_rows.hpp"

namespace idgen::records {
namespace {

using backfill::LeaseKind;
using backfill::LeaseSpace;
using backfill::LeaseState;

constexpr int64_t kOwn = 7001, kOther = 7002;
constexpr uint32_t kDatabase = 16384;

CarriedRow horizon_row(int64_t value, int64_t writer) {
    return CarriedRow{kHorizonSlot, 0, 0, value, writer, 0, 0};
}

CarriedRow free_row(int32_t slot) {
    return CarriedRow{slot, 0, 0, 0, 0, 0, 0};
}

CarriedRow lease_row(LeaseKind kind, int64_t key, LeaseState s, int64_t writer) {
    return CarriedRow{3,
                      static_cast<int32_t>(kind),
                      key,
                      static_cast<int64_t>(s.next),
                      writer,
                      static_cast<int32_t>(s.bound),
                      static_cast<int32_t>(s.step)};
}

TEST(CarriedRows, HorizonRowMovesAReserveAheadAndNeverBack) {
    CarriedRow row = horizon_row(0, 0);
    int64_t covered = 0;
    EXPECT_TRUE(cover_horizon_row(&row, 1000, kOwn, &covered));
    EXPECT_EQ(1000 + kCarriedReserveUs, row.value);
    EXPECT_EQ(row.value, covered);
    EXPECT_EQ(kOwn, row.writer);
    // Covered already, by this cluster: not written again.
    EXPECT_FALSE(cover_horizon_row(&row, 2000, kOwn, &covered));
    EXPECT_EQ(1000 + kCarriedReserveUs, covered);
    // A row far ahead, written by another cluster (a restore not yet adopted): claimed, not lowered.
    row = horizon_row(5 * kCarriedReserveUs, kOther);
    EXPECT_TRUE(cover_horizon_row(&row, 1000, kOwn, &covered));
    EXPECT_EQ(5 * kCarriedReserveUs, row.value);
    EXPECT_EQ(kOwn, row.writer);
}

TEST(CarriedRows, HorizonRowHoldsAtTheEndOfTime) {
    CarriedRow row = horizon_row(0, kOwn);
    int64_t covered = 0;
    EXPECT_TRUE(cover_horizon_row(&row, INT64_MAX - 5, kOwn, &covered));
    EXPECT_EQ(INT64_MAX, row.value);
}

TEST(CarriedRows, LeaseRowMergesEachFieldUp) {
    const LeaseSpace space{LeaseKind::uuid_given, 0, 0x020000000001};
    CarriedRow row = lease_row(LeaseKind::uuid_given, 0x020000000001, LeaseState{9, 100, 50}, kOther);
    LeaseState merged{};
    EXPECT_TRUE(merge_lease_row(&row, space, LeaseState{4, 300, 10}, kDatabase, kOwn, &merged));
    EXPECT_EQ(9u, merged.next);
    EXPECT_EQ(300u, merged.bound);
    EXPECT_EQ(50u, merged.step);
    EXPECT_EQ(9, row.value);
    EXPECT_EQ(300, row.bound);
    EXPECT_EQ(kOwn, row.writer);
    // Nothing new: the row is not written.
    EXPECT_FALSE(merge_lease_row(&row, space, LeaseState{2, 10, 1}, kDatabase, kOwn, &merged));
}

TEST(CarriedRows, AnUnknownBoundStaysTheLargest) {
    const LeaseSpace space{LeaseKind::uuid_given, 0, 5};
    CarriedRow row = lease_row(LeaseKind::uuid_given, 5, LeaseState{3, backfill::kBoundUnknown, 0}, kOwn);
    LeaseState merged{};
    merge_lease_row(&row, space, LeaseState{4, 64, 64}, kDatabase, kOwn, &merged);
    EXPECT_EQ(backfill::kBoundUnknown, merged.bound);
    EXPECT_EQ(4u, merged.next);
}

TEST(CarriedRows, AFreeRowTakesTheSpace) {
    const LeaseSpace space{LeaseKind::snowflake, kDatabase, 42};
    CarriedRow row = free_row(5);
    ASSERT_TRUE(is_free_row(row));
    LeaseState merged{};
    EXPECT_TRUE(merge_lease_row(&row, space, LeaseState{2, 64, 64}, kDatabase, kOwn, &merged));
    EXPECT_TRUE(holds_space(row, space, kDatabase));
    EXPECT_FALSE(holds_space(row, space, kDatabase + 1));  // a Snowflake space is per database
    EXPECT_EQ(5, row.slot);
}

TEST(CarriedRows, ARowOfTheSkippingMappingReadsRaised) {
    // 0.6.0 and before: a given node's namespace i was clock sequence i or i + 1.
    CarriedRow row = lease_row(LeaseKind::uuid_given_skipping_live, 77, LeaseState{10, 0, 0}, kOther);
    const RowLease l = lease_of(row, kDatabase);
    EXPECT_EQ(LeaseKind::uuid_given, l.space.kind);
    EXPECT_EQ(11u, l.state.next);
    const LeaseSpace fixed{LeaseKind::uuid_given, 0, 77};
    EXPECT_TRUE(holds_space(row, fixed, kDatabase));
    LeaseState merged{};
    merge_lease_row(&row, fixed, LeaseState{5, 0, 0}, kDatabase, kOwn, &merged);
    EXPECT_EQ(11u, merged.next);
    EXPECT_EQ(static_cast<int32_t>(LeaseKind::uuid_given), row.kind);
}

TEST(CarriedRows, AdoptionTakesEveryLeaseRowAndOnlyAForeignHorizon) {
    const CarriedRow own_lease = lease_row(LeaseKind::uuid_v7, 0, LeaseState{1, 0, 0}, kOwn);
    const CarriedRow other_lease = lease_row(LeaseKind::uuid_v7, 0, LeaseState{1, 0, 0}, kOther);
    EXPECT_TRUE(to_adopt(own_lease, kOwn));
    EXPECT_TRUE(to_adopt(other_lease, kOwn));
    EXPECT_FALSE(to_adopt(horizon_row(100, kOwn), kOwn));
    EXPECT_TRUE(to_adopt(horizon_row(100, kOther), kOwn));
    EXPECT_FALSE(to_adopt(horizon_row(0, 0), kOwn));  // never written
    EXPECT_FALSE(to_adopt(free_row(4), kOwn));
    CarriedRow guard{6, kGuardKind, 16500, 3, kOther, 0, 0};
    EXPECT_FALSE(to_adopt(guard, kOwn));
    // Claimed as this cluster's once adopted: every row another cluster wrote, guards included.
    EXPECT_TRUE(claim_row(&guard, kOwn));
    EXPECT_EQ(kOwn, guard.writer);
    CarriedRow unwritten = free_row(9);
    EXPECT_FALSE(claim_row(&unwritten, kOwn));
    EXPECT_EQ(0, unwritten.writer);
}

TEST(CarriedRows, AGuardKeepsItsFlagsAndFreesOnlyItself) {
    CarriedRow row = free_row(8);
    EXPECT_TRUE(put_guard_row(&row, 16500, -1, 0, kGuardBroughtRows, kOwn));
    EXPECT_TRUE(is_guard_row(row, 16500));
    EXPECT_FALSE(is_lease_row(row));
    EXPECT_TRUE(put_guard_row(&row, 16500, 12, 1, 0, kOwn));
    EXPECT_EQ(kGuardBroughtRows, row.step);  // kept
    EXPECT_EQ(12, row.value);
    EXPECT_FALSE(put_guard_row(&row, 16500, 12, 1, 0, kOwn));  // unchanged
    EXPECT_FALSE(free_guard_row(&row, 16501));
    EXPECT_TRUE(free_guard_row(&row, 16500));
    EXPECT_TRUE(is_free_row(row));
    EXPECT_EQ(8, row.slot);
    // A free row that held another subscription's guard starts without its flags.
    CarriedRow other = free_row(9);
    put_guard_row(&other, 16501, -1, 0, kGuardBroughtRows, kOwn);
    EXPECT_TRUE(put_guard_row(&other, 16502, -1, 0, 0, kOwn));
    EXPECT_EQ(0, other.step);
}

}  // namespace
}  // namespace idgen::records
