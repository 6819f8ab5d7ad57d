// Folder src/pg/backfill: each backend's side of retrospective ids (its allocators; batches
// from the registry in cluster mode), over the lease store of src/pg/leases.
//
// This backend's allocators of retrospective ids, one per lease space it uses (at most
// kSessionSpaces at once; the least recently used is abandoned for a new one, which is safe:
// its namespaces are simply never used again). Their memory lives in the memory context
// "idgen backfill" (visible in pg_backend_memory_contexts): per allocator about
// 32 bytes x idgen.backfill_timestamps (rounded up to a power of two) plus the held window.
#pragma once

#include <cstdint>

#include "pg/leases/backfill_leases.hpp"
#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

constexpr int kSessionSpaces = 4;
constexpr uint32_t kHeldNamespaces = 4096;

struct BackfillDraw {
    uint64_t ns;      // the namespace (lease number)
    uint64_t offset;  // the position inside it
};

// The namespace and offset of the next id for `key` (a microsecond or millisecond) in
// `space`, whose namespaces hold `per_namespace` ids per key and number `limit`; leases a
// namespace first when the session needs one more (in cluster mode from the registry, where
// `per_local` of them make one namespace of the server's own table: cluster_backfill.hpp).
// Raises the lease store's errors.
BackfillDraw draw_backfill(SharedState *state, const LeaseSpace &space, uint64_t per_namespace,
                           uint64_t limit, uint64_t per_local, int64_t key, const char *what);

}  // namespace idgen::pg
