// The lease table's pure logic (lease_spaces.hpp): a space keeps one cell and a new one takes
// the first unused cell; a full table has no cell for a new space; bounds move one step past an
// offset and never down; raising state is per field and reports whether anything changed; the
// skip after a failover moves every used cell and no unused one.
#include <gtest/gtest.h>

#include "core/backfill/lease_spaces.hpp"

using namespace idgen::backfill;

namespace {

LeaseSpace snowflake_space(uint32_t db, uint64_t key) {
    return LeaseSpace{LeaseKind::snowflake, db, key};
}

// A cell type of the other user of cell_of (the pool's per-space counts).
struct Use {
    LeaseSpace space;
    uint64_t limit, in_use;
};

TEST(LeaseSpaces, CellOfFindsTheSpaceOrClaimsTheFirstUnusedCell) {
    LeaseTable t{};
    LeaseTable::Cell *a = cell_of(t.cells, snowflake_space(5, 1));
    ASSERT_EQ(a, &t.cells[0]);
    a->state = LeaseState{7, 100, 10};
    LeaseTable::Cell *b = cell_of(t.cells, snowflake_space(5, 2));
    ASSERT_EQ(b, &t.cells[1]);
    EXPECT_EQ(b->state.next, 0u);
    // Found again, state kept; a lookup of another database is another space.
    EXPECT_EQ(cell_of(t.cells, snowflake_space(5, 1)), a);
    EXPECT_EQ(a->state.next, 7u);
    EXPECT_EQ(cell_of(t.cells, snowflake_space(6, 1)), &t.cells[2]);
    EXPECT_EQ(find_cell(t.cells, snowflake_space(5, 2)), b);
    EXPECT_EQ(find_cell(t.cells, snowflake_space(9, 9)), nullptr);
    EXPECT_EQ(t.cells[3].space.kind, LeaseKind::free);  // find_cell claims nothing
}

TEST(LeaseSpaces, AFullTableHasNoCellForANewSpaceButKeepsItsOwn) {
    LeaseTable t{};
    for (int i = 0; i < kLeaseSpaces; i++) ASSERT_NE(cell_of(t.cells, snowflake_space(1, i)), nullptr);
    EXPECT_EQ(cell_of(t.cells, snowflake_space(1, kLeaseSpaces)), nullptr);
    EXPECT_EQ(cell_of(t.cells, snowflake_space(1, kLeaseSpaces - 1)), &t.cells[kLeaseSpaces - 1]);
}

TEST(LeaseSpaces, AClaimedCellStartsAtZeroWhateverItHeld) {
    Use uses[2] = {{LeaseSpace{LeaseKind::free, 0, 0}, 99, 99}, {}};
    Use *u = cell_of(uses, LeaseSpace{LeaseKind::uuid_auto, 0, 0});
    ASSERT_EQ(u, &uses[0]);
    EXPECT_EQ(u->limit, 0u);
    EXPECT_EQ(u->in_use, 0u);
}

TEST(LeaseSpaces, TheBoundMovesOneStepPastTheOffsetAndNeverDown) {
    LeaseState st{0, 0, 0};
    EXPECT_TRUE(bound_needed(st, 0));  // no step yet
    raise_bound(&st, 0, 64);
    EXPECT_EQ(st.bound, 64u);
    EXPECT_EQ(st.step, 64u);
    EXPECT_FALSE(bound_needed(st, 63));
    EXPECT_TRUE(bound_needed(st, 64));
    raise_bound(&st, 64, 64);
    EXPECT_EQ(st.bound, 128u);
    raise_bound(&st, 130, 64);
    EXPECT_EQ(st.bound, 192u);
    LeaseState high{0, 1000, 64};
    raise_bound(&high, 10, 64);  // a bound above the offset stays
    EXPECT_EQ(high.bound, 1000u);
    EXPECT_TRUE(recyclable(high));
    EXPECT_FALSE(recyclable(LeaseState{3, kBoundUnknown, 1}));
    EXPECT_FALSE(recyclable(LeaseState{3, 10, 0}));
}

TEST(LeaseSpaces, RaisingStateIsPerFieldAndSaysWhetherItChanged) {
    LeaseState st{10, 100, 8};
    EXPECT_FALSE(raise_state(&st, LeaseState{5, 100, 8}));
    EXPECT_TRUE(raise_state(&st, LeaseState{5, 200, 4}));
    EXPECT_EQ(st.next, 10u);
    EXPECT_EQ(st.bound, 200u);
    EXPECT_EQ(st.step, 8u);
    EXPECT_TRUE(raise_state(&st, LeaseState{11, 0, 0}));
    EXPECT_EQ(st.next, 11u);
}

TEST(LeaseSpaces, SkipLostMovesEveryUsedCellAndNoUnusedOne) {
    LeaseTable t{};
    EXPECT_FALSE(skip_lost(&t));
    cell_of(t.cells, snowflake_space(1, 1))->state = LeaseState{4, 128, 64};
    cell_of(t.cells, LeaseSpace{LeaseKind::uuid_auto, 0, 0})->state = LeaseState{2, kBoundUnknown, 1};
    EXPECT_TRUE(skip_lost(&t));
    EXPECT_EQ(t.cells[0].state.next, 5u);
    EXPECT_EQ(t.cells[0].state.bound, 192u);
    EXPECT_EQ(t.cells[1].state.next, 3u);
    EXPECT_EQ(t.cells[1].state.bound, kBoundUnknown);
    EXPECT_EQ(t.cells[2].state.next, 0u);
}

TEST(LeaseSpaces, SpaceIdsOfDifferentSpacesDiffer) {
    EXPECT_FALSE(space_id(snowflake_space(1, 7)) == space_id(snowflake_space(2, 7)));
    EXPECT_FALSE(space_id(snowflake_space(1, 7)) == space_id(LeaseSpace{LeaseKind::uuid_given, 1, 7}));
    EXPECT_TRUE(space_id(snowflake_space(1, 7)) == space_id(snowflake_space(1, 7)));
}

TEST(LeaseSpaces, OldKindsTakenOverMergeWithTheNewCellOfTheirSpace) {
    // A standby of 0.6.0 replayed a newer primary's records into a second cell of the space.
    LeaseTable t{};
    t.cells[0] = LeaseTable::Cell{LeaseSpace{LeaseKind::uuid_given_skipping_live, 0, 7}, LeaseState{9, 4, 2}};
    t.cells[2] = LeaseTable::Cell{LeaseSpace{LeaseKind::uuid_given, 0, 7}, LeaseState{6, 8, 2}};
    for (LeaseTable::Cell &c : t.cells) from_skipping_mapping(&c.space, &c.state);
    merge_same_spaces(&t);
    EXPECT_EQ(t.cells[0].space.kind, LeaseKind::uuid_given);
    EXPECT_EQ(t.cells[0].state.next, 10u);  // 9 + 1 from the old mapping, above the new cell's 6
    EXPECT_EQ(t.cells[0].state.bound, 8u);
    EXPECT_EQ(t.cells[2].space.kind, LeaseKind::free);
    EXPECT_EQ(find_cell(t.cells, LeaseSpace{LeaseKind::uuid_given, 0, 7}), &t.cells[0]);
}

}  // namespace
