// The horizon a holder of node ids keeps in the registry, one per node id: a Unix time that no
// id it handed out under that node id reaches past. It is what makes a node id safe to hand to
// another server (which may have a clock behind ours): the new holder starts every generator
// above the stored horizon, whatever its own clock says.
//
// The rules, each kept by the node holder (node_holder.cpp):
// - Moved ahead before ids pass it: the generators hand out an id only if it ends at or
//   before the *published* horizon (issuable below), and the worker publishes a horizon only
//   after the registry stored it for every node id it holds.
// - Stored only by the holder: the write is a transaction conditional on the node id's key
//   still belonging to our lease, so a server that lost a node id can no longer move its
//   horizon, and the value the next holder reads covers every id the old one could hand out.
// - Taken over on claim: after claiming a node id, the worker raises every generator above
//   its stored horizon (with a lead: ids may run ahead of a clock that is behind) before it
//   publishes anything.
// - Kept ahead by a reserve (advance_target), so that moving it is rare (once per reserve / 2 of
//   id time) and never on a generator's path.
#pragma once

#include <cstdint>

namespace idgen::registry {

// An id ending at end_unix_us may be handed out under a published registry horizon.
inline bool issuable(int64_t end_unix_us, int64_t published_unix_us) noexcept {
    return end_unix_us <= published_unix_us;
}

// Whether the published horizon should move: less than half the reserve is left above the
// generators' time (the later of the wall clock and the lead floor).
inline bool needs_advance(int64_t published_unix_us, int64_t generator_now_unix_us,
                          int64_t reserve_us) noexcept {
    return published_unix_us - generator_now_unix_us < reserve_us / 2;
}

// The horizon to store: the reserve above the generators' time, and never below a horizon
// already stored or taken over (`at_least`).
inline int64_t advance_target(int64_t generator_now_unix_us, int64_t reserve_us, int64_t at_least) noexcept {
    const int64_t target = generator_now_unix_us + reserve_us;
    return target > at_least ? target : at_least;
}

}  // namespace idgen::registry
