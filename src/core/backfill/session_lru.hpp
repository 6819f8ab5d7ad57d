// Which of a session's few allocators of retrospective ids serves an id space (the server keeps
// kSessionSpaces of them per backend, src/pg/backfill/backfill_sessions.cpp): the one holding the space,
// else a free one, else the least recently used, which is abandoned. Abandoning is always safe:
// its namespaces are handed back or simply never used again. Session-local, so no lock.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/backfill/lease_spaces.hpp"

namespace idgen::backfill {

// The entry for a space: `held` when it already holds the space, otherwise the one to (re)make
// for it. Entry is any type with `in_use`, `space` and `last_used` members.
template <class Entry>
struct Chosen {
    Entry *entry;
    bool held;
};

template <class Entry, size_t N>
Chosen<Entry> choose_entry(Entry (&entries)[N], const LeaseSpace &space) noexcept {
    Entry *victim = &entries[0];
    for (Entry &e : entries) {
        if (e.in_use && e.space == space) return Chosen<Entry>{&e, true};
        if (!e.in_use || (victim->in_use && e.last_used < victim->last_used)) victim = &e;
    }
    return Chosen<Entry>{victim, false};
}

// Marks `entry` the most recently used; `use_clock` counts uses in the session.
template <class Entry>
void touch(Entry *entry, uint64_t *use_clock) noexcept {
    entry->last_used = ++*use_clock;
}

}  // namespace idgen::backfill
