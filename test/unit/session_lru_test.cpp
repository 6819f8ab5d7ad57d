// The choice of a session's allocator for an id space (session_lru.hpp): the one holding the
// space, else a free one, else the least recently used, never the most recent.
#include <gtest/gtest.h>

#include "core/backfill/session_lru.hpp"

using namespace idgen::backfill;

namespace {

struct Entry {
    bool in_use;
    LeaseSpace space;
    uint64_t last_used;
};

LeaseSpace space(uint64_t key) {
    return LeaseSpace{LeaseKind::uuid_given, 0, key};
}

// Takes the chosen entry for `s` into use, as the server does.
Entry *use(Entry (&entries)[4], uint64_t *clock, const LeaseSpace &s, bool *held = nullptr) {
    const Chosen<Entry> c = choose_entry(entries, s);
    if (held) *held = c.held;
    c.entry->in_use = true;
    c.entry->space = s;
    touch(c.entry, clock);
    return c.entry;
}

TEST(SessionLru, FreeEntriesFirstThenTheSpaceItHolds) {
    Entry entries[4] = {};
    uint64_t clock = 0;
    bool held = true;
    Entry *a = use(entries, &clock, space(1), &held);
    EXPECT_FALSE(held);
    Entry *b = use(entries, &clock, space(2), &held);
    EXPECT_NE(a, b);
    EXPECT_EQ(use(entries, &clock, space(1), &held), a);
    EXPECT_TRUE(held);
}

TEST(SessionLru, AFullSessionAbandonsTheLeastRecentlyUsed) {
    Entry entries[4] = {};
    uint64_t clock = 0;
    Entry *e[4];
    for (int i = 0; i < 4; i++) e[i] = use(entries, &clock, space(i));
    use(entries, &clock, space(0));  // 0 is now the most recent, 1 the least
    use(entries, &clock, space(2));  // then 2: the order is 1, 3, 0, 2
    bool held = true;
    EXPECT_EQ(use(entries, &clock, space(9), &held), e[1]);
    EXPECT_FALSE(held);
    EXPECT_EQ(use(entries, &clock, space(8)), e[3]);
    EXPECT_EQ(use(entries, &clock, space(7)), e[0]);
    EXPECT_EQ(use(entries, &clock, space(2), &held), e[2]);  // still held
    EXPECT_TRUE(held);
}

TEST(SessionLru, AFreedEntryIsTakenBeforeAnyInUse) {
    Entry entries[4] = {};
    uint64_t clock = 0;
    Entry *e[4];
    for (int i = 0; i < 4; i++) e[i] = use(entries, &clock, space(i));
    e[3]->in_use = false;  // released (its namespaces parked)
    EXPECT_EQ(use(entries, &clock, space(5)), e[3]);
    EXPECT_EQ(choose_entry(entries, space(3)).held, false);  // a freed entry holds nothing
}

}  // namespace
