// Retrospective ids in cluster mode: the namespaces of a space are numbered by one counter in
// the registry, shared by every server, instead of each server's own. A server takes a batch of
// them at a time with a compare-and-swap of the counter: the batch [current, current + n) is
// its own for good, since the counter only moves up and a swap that lost to another server's
// takes nothing. Namespaces are never given back or recycled across servers, so nothing a
// server does later (a crash, a lost lease, a node id handed over) can let two servers use one:
// a crash only loses the rest of a batch. Ids that carry the node id (automatic uuid_v1_at
// nodes, uuid_v7_at) count per node id, so a node id that changes hands goes on with its
// counter. Few round trips: one per batch.
#pragma once

#include <cstdint>

namespace idgen::registry {

struct Batch {
    uint64_t first;  // first namespace of the batch
    uint64_t end;    // one past the last; first == end: the space has no namespace left
};

// The batch to take when the registry's counter reads `current` (0 when absent): up to `want`
// namespaces, none at or above `limit`. The counter is then swapped to `end`.
inline Batch take_batch(uint64_t current, uint64_t want, uint64_t limit) noexcept {
    if (current >= limit) return Batch{limit, limit};
    const uint64_t end = limit - current < want ? limit : current + want;
    return Batch{current, end};
}

}  // namespace idgen::registry
