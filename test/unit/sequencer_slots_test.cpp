// The slot table of Snowflake sequencers (sequencer_slots.hpp): a sequencer keeps its slot, a new
// one takes a free slot started above the start floor and the released bound, a dropped one gets
// none, a full table gives none; releasing retires the slot (new generation, bound raised above
// its ids) and frees it for another sequencer, which starts above every id of the old one; the
// ring forgets only the oldest drops; raising moves only the slots in use; a new slot starts above
// every id of its name's earlier definitions, whatever their epochs and layouts; definitions gone
// without a drop are remembered under their names, not in the released bound.
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

    GoneDefinitions gone{};
    SequencerSlot *bind(const SequencerKey &k, Bound *outcome, const Layout &layout = kLayout,
                        const std::vector<Layout> &earlier_layouts = {}, uint64_t name_hash = 7) {
        std::vector<EarlierDefinition> earlier;
        for (const Layout &l : earlier_layouts) earlier.push_back(EarlierDefinition{l, INT64_MIN});
        int count = 0;
        EarlierDefinition merged[4];
        for (const EarlierDefinition &e : earlier) merge_earlier(merged, &count, e);
        add_gone(gone, k.database, name_hash, layout, merged, &count);
        SlotFloors floors{kStart, released_bound_us, merged, count};
        return bind_slot(slots.data(), static_cast<int>(slots.size()), dropped, k, name_hash, layout, floors,
                         outcome);
    }
    void gone_without_drop(const SequencerKey &k) {
        release_gone_slot(slots.data(), static_cast<int>(slots.size()), &dropped, &gone, k);
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

// The largest id `layout` can issue for node `node` at clock position `position`.
static uint64_t id_at(const Layout &layout, uint64_t position, int32_t node) {
    const uint64_t ticks = position >> layout.counter_bits();
    const uint64_t counter = position & ((uint64_t{1} << layout.counter_bits()) - 1);
    if (layout.node_lowest())
        return ticks << layout.node_and_counter_bits() | counter << layout.node_bits |
               static_cast<uint64_t>(node);
    return ticks << layout.node_and_counter_bits() | static_cast<uint64_t>(node) << layout.counter_bits() |
           counter;
}

TEST(SequencerSlots, ANameDefinedAgainStartsAboveTheIdsOfEveryEarlierDefinition) {
    // The name's old definition issued ids up to 3 s past kStart; it is dropped and defined
    // again with an epoch 2 s later (the same time is 2,000 fewer ticks), with fewer nodes (more
    // counter bits), with Sony's layout: every first id of the new one is above every old id,
    // although the new one's clock starts at a time before the old one's last ids.
    const Layout old_layout{kLayout.epoch_unix_ms, 13};
    const std::vector<Layout> agains = {Layout{kLayout.epoch_unix_ms + 2000, 13},
                                        Layout{kLayout.epoch_unix_ms + 2000, 7},
                                        Layout{kLayout.epoch_unix_ms - 3600000, 16, 0, Kind::sonyflake},
                                        Layout{kLayout.epoch_unix_ms + 2000, 10, 0, Kind::snowcast}};
    for (const Layout &again : agains) {
        Table t(1);
        Bound outcome;
        SequencerSlot *old_slot = t.bind(key(1), &outcome, old_layout);
        raise_to(&old_slot->clock, position_after(old_layout, kStart + 3000000));
        const uint64_t last_old =
            id_at(old_layout, old_slot->clock.next_free - 1, old_layout.max_nodes() - 1);
        t.release(key(1));
        SequencerSlot *b = t.bind(key(2), &outcome, again, {old_layout});
        ASSERT_EQ(outcome, Bound::bound);
        EXPECT_GT(id_at(again, b->clock.next_free, 0), last_old)
            << again.epoch_unix_ms << " " << again.node_bits;
        // Without the earlier layout only the time bound holds, which the later epoch repeats under.
        if (again.epoch_unix_ms > old_layout.epoch_unix_ms && again.kind == Kind::idgen) {
            Table u(1);
            SequencerSlot *o = u.bind(key(1), &outcome, old_layout);
            raise_to(&o->clock, position_after(old_layout, kStart + 3000000));
            u.release(key(1));
            EXPECT_LT(id_at(again, u.bind(key(2), &outcome, again)->clock.next_free, 0), last_old);
        }
    }
}

TEST(SequencerSlots, AnEarlierDefinitionWhoseIdsOutrunTheNewLayoutGivesNoSlot) {
    // javascript ids have 12 bits below the time field, idgen's 22: the new one would need a
    // time field 1,024 times further from its epoch than it has (kStart is years after it).
    const Layout wide{kLayout.epoch_unix_ms, 13};
    const Layout javascript{kLayout.epoch_unix_ms, 6, 0, Kind::javascript};
    Table t(1);
    Bound outcome;
    t.bind(key(1), &outcome, wide);
    t.release(key(1));
    EXPECT_EQ(t.bind(key(2), &outcome, javascript, {wide}), nullptr);
    EXPECT_EQ(outcome, Bound::too_far);
    // An earlier definition that issued nothing before the bound constrains nothing.
    const Layout future{kStart / 1000 + 10000, 13};
    EXPECT_NE(t.bind(key(3), &outcome, javascript, {future}), nullptr);
}

TEST(SequencerSlots, ADefinitionGoneWithoutADropIsRememberedUnderItsNameNotInTheReleasedBound) {
    // A creation that aborted after drawing 3 s ahead (or a dropped definitions table): its ids are
    // remembered under its name, with their bound; the released bound, which every new slot
    // starts above, is left alone.
    Table t(2);
    Bound outcome;
    SequencerSlot *a = t.bind(key(1), &outcome, kLayout, {}, 77);
    raise_to(&a->clock, position_after(kLayout, kStart + 3000000));
    const uint64_t used = a->clock.next_free;
    const uint64_t generation = atomic_load(&a->generation);
    t.gone_without_drop(key(1));
    EXPECT_NE(atomic_load(&a->generation), generation);
    EXPECT_TRUE(a->key.none());
    EXPECT_TRUE(was_dropped(t.dropped, key(1)));
    EXPECT_EQ(t.released_bound_us, 0);
    // Another name starts at the floor, not behind the gone one's lead.
    SequencerSlot *other = t.bind(key(2), &outcome, kLayout, {}, 78);
    EXPECT_LT(other->clock.next_free, used);
    // The same name, even with an epoch 2 s later, starts above every id of the gone one.
    const Layout later{kLayout.epoch_unix_ms + 2000, kLayout.node_bits};
    SequencerSlot *again = t.bind(key(3), &outcome, later, {}, 77);
    ASSERT_NE(again, nullptr);
    EXPECT_GT(id_at(later, again->clock.next_free, 0), id_at(kLayout, used - 1, kLayout.max_nodes() - 1));
}

TEST(SequencerSlots, GoneDefinitionsAreRememberedByNameOnceEachAndMergedByKind) {
    GoneDefinitions gone{};
    const Layout a{kLayout.epoch_unix_ms + 5000, 13};
    const Layout b{kLayout.epoch_unix_ms + 1000, 10};  // the same kind, an earlier epoch
    const Layout sony{kLayout.epoch_unix_ms, 16, 0, Kind::sonyflake};
    remember_gone(&gone, GoneDefinition{5, 77, a, 100});
    remember_gone(&gone, GoneDefinition{5, 77, a, 300});  // once, the later bound kept
    remember_gone(&gone, GoneDefinition{5, 77, b, 200});
    remember_gone(&gone, GoneDefinition{5, 77, sony, 50});
    remember_gone(&gone, GoneDefinition{6, 77, kLayout, 0});  // another database
    remember_gone(&gone, GoneDefinition{5, 78, kLayout, 0});  // another name
    EXPECT_EQ(gone.count, 5u);
    EarlierDefinition earlier[4];
    int count = 0;
    EXPECT_TRUE(add_gone(gone, 5, 77, a, earlier, &count));  // b and sony differ from a
    ASSERT_EQ(count, 2);
    EXPECT_EQ(earlier[0].layout.epoch_unix_ms, b.epoch_unix_ms);  // the earlier epoch and
    EXPECT_EQ(earlier[0].bound_us, 300);                          // the later bound of the kind
    EXPECT_EQ(earlier[1].layout.kind, Kind::sonyflake);
    count = 0;
    EXPECT_FALSE(add_gone(gone, 5, 78, kLayout, earlier, &count));  // only itself
    EXPECT_EQ(count, 1);
    count = 0;
    EXPECT_FALSE(add_gone(gone, 7, 77, kLayout, earlier, &count));
    EXPECT_EQ(count, 0);
    // The ring keeps the last kGoneRemembered.
    for (uint32_t i = 0; i < kGoneRemembered; i++) remember_gone(&gone, GoneDefinition{9, i, kLayout, 0});
    count = 0;
    EXPECT_FALSE(add_gone(gone, 5, 77, a, earlier, &count));
    EXPECT_EQ(count, 0);
}

}  // namespace
