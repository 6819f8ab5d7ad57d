// The slot table of Snowflake sequencers (sequencer_slots.hpp): a sequencer keeps its slot, a new
// one takes a free slot started above the start floor and the released bound, a dropped one gets
// none, a full table gives none; releasing retires the slot (new generation, bound raised above
// its ids) and frees it for another sequencer, which starts above every id of the old one; the
// ring forgets only the oldest drops; raising moves only the slots in use.
#include <gtest/gtest.h>
#include <vector>

#include "core/base/atomic_word.hpp"
#include "core/sequencers/sequencer_slots.hpp"

using namespace idgen;
using namespace idgen::snowflake;

namespace {

const Layout kLayout{1577836800000, 10};  // 2020-01-01, 1,024 nodes
const int64_t kStart = 1700000000000000;  // a Unix microsecond after the epoch

SequencerKey key(int64_t id) {
    return SequencerKey{5, 16384, id};
}

struct Table {
    std::vector<SequencerSlot> slots;
    DroppedKeys dropped{};
    int64_t released_bound_us = 0;
    explicit Table(int n) : slots(n, SequencerSlot{}) {}

    SequencerSlot *bind(const SequencerKey &k, Bound *outcome) {
        return bind_slot(slots.data(), static_cast<int>(slots.size()), dropped, k, kLayout, kStart,
                         released_bound_us, outcome);
    }
    void release(const SequencerKey &k) {
        release_slot(slots.data(), static_cast<int>(slots.size()), &dropped, k, &released_bound_us);
    }
    SequencerSlot *find(const SequencerKey &k) {
        return find_slot(slots.data(), static_cast<int>(slots.size()), k);
    }
};

TEST(SequencerSlots, ASequencerKeepsItsSlotAndANewOneTakesAFreeSlotAboveTheFloor) {
    Table t(3);
    Bound outcome;
    SequencerSlot *a = t.bind(key(1), &outcome);
    ASSERT_EQ(outcome, Bound::bound);
    EXPECT_EQ(a, &t.slots[0]);
    EXPECT_EQ(a->generation, 1u);
    EXPECT_GE(a->clock.next_free, position_after(kLayout, kStart));
    EXPECT_EQ(t.bind(key(1), &outcome), a);
    EXPECT_EQ(outcome, Bound::held);
    EXPECT_EQ(a->generation, 1u);  // holding changes nothing
    EXPECT_EQ(t.bind(key(2), &outcome), &t.slots[1]);
    EXPECT_EQ(t.find(key(2)), &t.slots[1]);
    EXPECT_EQ(t.find(key(3)), nullptr);
}

TEST(SequencerSlots, AFullTableGivesNoSlot) {
    Table t(2);
    Bound outcome;
    t.bind(key(1), &outcome);
    t.bind(key(2), &outcome);
    EXPECT_EQ(t.bind(key(3), &outcome), nullptr);
    EXPECT_EQ(outcome, Bound::full);
}

TEST(SequencerSlots, AReleasedSlotIsRetiredFreedAndItsSuccessorStartsAboveIt) {
    Table t(1);
    Bound outcome;
    SequencerSlot *a = t.bind(key(1), &outcome);
    // Ids far ahead of the floor: the released bound must cover them.
    raise_to(&a->clock, position_after(kLayout, kStart + 60000000));
    const uint64_t used = a->clock.next_free;
    const uint64_t generation = atomic_load(&a->generation);
    t.release(key(1));
    EXPECT_NE(atomic_load(&a->generation), generation);
    EXPECT_TRUE(a->key.none());
    EXPECT_GE(t.released_bound_us, kStart + 60000000);
    EXPECT_TRUE(was_dropped(t.dropped, key(1)));
    // The dropped key gets no slot; another takes the freed one above every id of the old one.
    EXPECT_EQ(t.bind(key(1), &outcome), nullptr);
    EXPECT_EQ(outcome, Bound::dropped);
    SequencerSlot *b = t.bind(key(2), &outcome);
    ASSERT_EQ(b, a);
    EXPECT_EQ(outcome, Bound::bound);
    EXPECT_GE(b->clock.next_free, used);
    // A drop undone: the key binds again (a fresh slot, above the released bound).
    t.release(key(2));
    forget_dropped(&t.dropped, key(1));
    EXPECT_FALSE(was_dropped(t.dropped, key(1)));
    EXPECT_TRUE(was_dropped(t.dropped, key(2)));
    EXPECT_EQ(t.bind(key(1), &outcome), a);
    EXPECT_EQ(outcome, Bound::bound);
}

TEST(SequencerSlots, TheRingForgetsOnlyTheOldestDrops) {
    Table t(1);
    for (int64_t i = 0; i < kDroppedRemembered + 10; i++) t.release(key(i));
    for (int64_t i = 0; i < 10; i++) EXPECT_FALSE(was_dropped(t.dropped, key(i))) << i;
    for (int64_t i = 10; i < kDroppedRemembered + 10; i++) EXPECT_TRUE(was_dropped(t.dropped, key(i))) << i;
}

TEST(SequencerSlots, RaisingMovesOnlyTheSlotsInUse) {
    Table t(2);
    Bound outcome;
    SequencerSlot *a = t.bind(key(1), &outcome);
    raise_slots(t.slots.data(), 2, kStart + 5000000);
    EXPECT_GE(a->clock.next_free, position_after(kLayout, kStart + 5000000));
    EXPECT_EQ(t.slots[1].clock.next_free, 0u);
}

}  // namespace
