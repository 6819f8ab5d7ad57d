// The backend-local allocators behind draw_backfill, in the "idgen backfill" memory context.
#include "backfill_sessions.hpp"

#include "../core/backfill_allocator.hpp"
#include "carried_state.hpp"
#include "errors.hpp"
#include "settings.hpp"

extern "C" {
#include "utils/memutils.h"
}

namespace idgen::pg {

struct SessionAllocator {
    bool in_use;
    LeaseSpace space;
    uint64_t last_used;
    backfill::Allocator alloc;  // its table and held window are palloc'd in `context`
};

static MemoryContext context = nullptr;
static SessionAllocator allocators[kSessionSpaces];
static uint64_t use_clock = 0;

static void release(SessionAllocator *s) {
    if (!s->in_use) return;
    pfree(s->alloc.table);
    pfree(s->alloc.held);
    s->in_use = false;
}

// The allocator of `space`, made afresh when there is none or when it no longer matches the
// layout (per_namespace) or idgen.backfill_timestamps. Abandoning one is always safe.
static backfill::Allocator *allocator_for(const LeaseSpace &space, uint64_t per_namespace) {
    SessionAllocator *victim = &allocators[0];
    for (SessionAllocator &s : allocators) {
        if (s.in_use && s.space == space) {
            if (s.alloc.per_namespace == per_namespace &&
                s.alloc.max_keys == static_cast<uint32_t>(backfill_timestamps)) {
                s.last_used = ++use_clock;
                return &s.alloc;
            }
            victim = &s;
            break;
        }
        if (!s.in_use || (victim->in_use && s.last_used < victim->last_used)) victim = &s;
    }
    release(victim);
    if (context == nullptr)
        context = AllocSetContextCreate(TopMemoryContext, "idgen backfill", ALLOCSET_DEFAULT_SIZES);
    const uint32_t max_keys = static_cast<uint32_t>(backfill_timestamps);
    auto *table = static_cast<backfill::Entry *>(
        MemoryContextAllocHuge(context, sizeof(backfill::Entry) * backfill::cells_for(max_keys)));
    auto *held = static_cast<uint64_t *>(MemoryContextAlloc(context, sizeof(uint64_t) * kHeldNamespaces));
    backfill::init(&victim->alloc, table, max_keys, per_namespace, held, kHeldNamespaces);
    victim->space = space;
    victim->in_use = true;
    victim->last_used = ++use_clock;
    return &victim->alloc;
}

BackfillDraw draw_backfill(SharedState *state, const LeaseSpace &space, uint64_t per_namespace,
                           uint64_t limit, int64_t key, const char *what) {
    backfill::Allocator *a = allocator_for(space, per_namespace);
    const backfill::Take t = backfill::take(a, key);
    BackfillDraw d{0, t.offset};
    while (!backfill::held_namespace(a, t.index, &d.ns)) {
        const uint64_t ns = lease_namespace(state, space, limit, what);
        carry_lease(state, space, ns + 1, what);  // this database's copy, before the namespace is used
        check(backfill::hold(a, ns));
    }
    return d;
}

}  // namespace idgen::pg
