// The backend-local allocators behind draw_backfill, in the "idgen backfill" memory context.
// When one is abandoned, and for all of them when the backend exits (normally, by an error, by
// pg_terminate_backend: a before_shmem_exit callback), their namespaces are parked in the
// shared pool for the next session of the same id space (backfill_pool.hpp).
#include "pg/backfill/backfill_sessions.hpp"

#include "core/backfill/backfill_allocator.hpp"
#include "core/backfill/backfill_pool.hpp"
#include "core/backfill/session_lru.hpp"

#include "pg/backfill/cluster_backfill.hpp"
#include "pg/boundary/errors.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/cover/cover.hpp"
#include "pg/leases/backfill_pool.hpp"
#include "pg/leases/backfill_shared.hpp"
#include "pg/moves/subscription_guard.hpp"

extern "C" {
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "utils/memutils.h"
}

namespace idgen::pg {

struct SessionAllocator {
    bool in_use;
    LeaseSpace space;
    uint64_t last_used;
    SharedState *shared;
    uint64_t limit;             // the space's namespaces
    uint64_t per_local;         // in cluster mode: namespaces per namespace of the server's table
    uint64_t counted;           // namespaces this allocator counted in use (backfill_pool.hpp)
    uint64_t known_bound;       // the space's durable offset bound as last seen (it only grows)
    backfill::Allocator alloc;  // its table, held window and adopted starts are palloc'd in `context`
};

static MemoryContext context = nullptr;
static SessionAllocator allocators[kSessionSpaces];
static uint64_t use_clock = 0;
static uint32_t *park_buffer = nullptr;  // kStartBuckets offsets, for parking and adopting
static bool exit_callback_registered = false;

// Parks every namespace the allocator still holds (spent ones are let go), then frees it.
static void release(SessionAllocator *s) {
    if (!s->in_use) return;
    s->in_use = false;
    const backfill::Allocator *a = &s->alloc;
    for (uint64_t i = a->held_base; i < a->held_base + a->held_count; i++) {
        uint64_t ns = 0;
        if (!backfill::held_namespace(a, i, &ns) || !backfill::park_starts(a, i, park_buffer)) continue;
        park_namespace(backfill_shared(), s->space, a->per_namespace, ns, park_buffer);
    }
    if (s->counted > 0) count_in_use(backfill_shared(), s->space, 0, -static_cast<int64_t>(s->counted));
    pfree(s->alloc.table);
    pfree(s->alloc.held);
    pfree(s->alloc.adopted_starts);
}

// At backend exit, however it ends: hand every allocator's namespaces back.
static void park_at_exit(int, Datum) {
    for (SessionAllocator &s : allocators) release(&s);
}

// The allocator of `space` (src/core/backfill/session_lru.hpp chooses it), made afresh when there is none
// or when it no longer matches the layout (per_namespace) or idgen.backfill_timestamps.
static SessionAllocator *allocator_for(SharedState *shared, const LeaseSpace &space, uint64_t per_namespace,
                                       uint64_t limit) {
    const backfill::Chosen<SessionAllocator> chosen = backfill::choose_entry(allocators, space);
    SessionAllocator *victim = chosen.entry;
    if (chosen.held && victim->alloc.per_namespace == per_namespace &&
        victim->alloc.max_keys == static_cast<uint32_t>(backfill_timestamps)) {
        backfill::touch(victim, &use_clock);
        victim->limit = limit;  // backfill_nodes may have changed
        return victim;
    }
    if (context == nullptr) {
        context = AllocSetContextCreate(TopMemoryContext, "idgen backfill", ALLOCSET_DEFAULT_SIZES);
        park_buffer =
            static_cast<uint32_t *>(MemoryContextAlloc(context, sizeof(uint32_t) * backfill::kStartBuckets));
    }
    if (!exit_callback_registered) {
        before_shmem_exit(park_at_exit, 0);
        exit_callback_registered = true;
    }
    release(victim);
    const uint32_t max_keys = static_cast<uint32_t>(backfill_timestamps);
    auto *table = static_cast<backfill::Entry *>(
        MemoryContextAllocHuge(context, sizeof(backfill::Entry) * backfill::first_cells(max_keys)));
    auto *held = static_cast<uint64_t *>(MemoryContextAlloc(context, sizeof(uint64_t) * kHeldNamespaces));
    auto *starts = static_cast<uint32_t *>(
        MemoryContextAlloc(context, sizeof(uint32_t) * backfill::kStartBuckets * backfill::kMaxAdopted));
    backfill::init(&victim->alloc, table, max_keys, per_namespace, held, kHeldNamespaces);
    backfill::enable_adoption(&victim->alloc, starts);
    victim->space = space;
    victim->shared = shared;
    victim->limit = limit;
    victim->counted = 0;
    victim->known_bound = 0;
    victim->in_use = true;
    backfill::touch(victim, &use_clock);
    return victim;
}

// Whether to wait for another session to hand a namespace back rather than fail: this session
// holds none of the space (so no two sessions can wait for each other's), another session
// holds one, and idgen.max_wait has not passed (a session that ended a moment ago may not have
// parked yet; bounded, so waits across spaces cannot deadlock). The wait is on `parked`, which
// every park and every end of a count broadcasts: the first call only prepares the sleep and
// returns, so the caller looks again before any sleep and no broadcast after its look is lost.
static bool wait_for_parked(SessionAllocator *s, int64_t *give_up_ns) {
    if (s->counted > 0 || gave_up(give_up_ns)) return false;
    // Nothing held and nothing parked: none will come. Parked since this session looked: adopt
    // it (the ending session parks, then stops counting it, so both can be seen at once).
    const SpaceCounts c = space_counts(backfill_shared(), s->space);
    if (c.in_use == 0 && c.pooled == 0) return false;
    (void)ConditionVariableTimedSleep(&backfill_shared()->parked, kAwaitRecheckMs, PG_WAIT_EXTENSION);
    return true;
}

// One more namespace for the allocator, in this order: a parked one of the space (with its
// starts), a fresh lease (in cluster mode from the registry's batches), one leased before this
// server began generating (recycled, every timestamp starting at the space's durable offset
// bound; not in cluster mode), or, after waiting for a session to hand one back, an error
// (54000).
static void hold_next(SessionAllocator *s, const char *what) {
    backfill::Allocator *a = &s->alloc;
    ClusterShared *cluster = cluster_shared();
    uint64_t ns = 0;
    uint32_t start = 0;
    bool adopted = false;
    int64_t give_up_ns = 0;
    for (;;) {
        if (backfill::can_adopt(a) &&
            adopt_parked(backfill_shared(), s->space, a->per_namespace, &ns, park_buffer)) {
            adopted = true;
            break;
        }
        if (cluster != nullptr ? cluster_lease_namespace(backfill_shared(), cluster, s->space, s->limit,
                                                         s->per_local, what, &ns)
                               : lease_namespace(backfill_shared(), s->space, s->limit, what, &ns))
            break;
        // Recycling counts on the server's table holding only its own namespaces: in cluster
        // mode it counts every server's (cluster_backfill.hpp).
        if (cluster == nullptr && backfill::can_adopt(a) &&
            recycle_namespace(backfill_shared(), s->space, &ns, &start)) {
            for (uint32_t b = 0; b < backfill::kStartBuckets; b++) park_buffer[b] = start;
            adopted = true;
            break;
        }
        if (!wait_for_parked(s, &give_up_ns)) {
            ConditionVariableCancelSleep();
            raise_space_used_up(s->limit, what);
        }
    }
    ConditionVariableCancelSleep();
    // Counted in use at once: a namespace neither parked nor counted would let another session
    // conclude that none will come back (wait_for_parked).
    s->counted++;
    count_in_use(backfill_shared(), s->space, s->limit, 1);
    // Covered before it is used, however it was had (cover.hpp). In cluster mode also the
    // server's one space, which counted it too: a standalone server that this database is
    // restored into, with the same node id, counts there.
    cover_namespace(s->shared, s->space, what);
    LeaseSpace server_space;
    if (cluster != nullptr && server_space_of(s->space, &server_space))
        cover_namespace(s->shared, server_space, what);
    if (adopted)
        check(backfill::hold_adopted(a, ns, park_buffer));  // on an error the namespace is spent
    else
        check(backfill::hold(a, ns));
}

// How far a space's durable offset bound moves at a time: a 64th of a namespace, so that it is
// written at most 64 times per space while offsets climb, and a crash costs at most that much
// more of each recycled namespace than was used.
static uint32_t bound_step(uint64_t per_namespace) {
    return per_namespace >= 64 ? static_cast<uint32_t>(per_namespace / 64) : 1;
}

BackfillDraw draw_backfill(SharedState *state, const LeaseSpace &space, uint64_t per_namespace,
                           uint64_t limit, uint64_t per_local, int64_t key, const char *what) {
    refuse_while_guarded(state, space.kind, what);
    SessionAllocator *s = allocator_for(state, space, per_namespace, limit);
    s->per_local = per_local;
    if (const uint32_t cells = backfill::cells_wanted(&s->alloc)) {  // on an error the old one stays
        backfill::Entry *old = s->alloc.table;
        backfill::grow(&s->alloc, static_cast<backfill::Entry *>(
                                      MemoryContextAllocHuge(context, sizeof(backfill::Entry) * cells)));
        pfree(old);
    }
    backfill::Take t;
    while (!backfill::try_take(&s->alloc, key, &t)) hold_next(s, what);
    // The bound covers every offset handed out, before the id is (cover.hpp).
    if (t.offset >= s->known_bound)
        // Only once the cover returned: an error in it leaves the bound to the next draw.
        s->known_bound = cover_offset(state, space, t.offset, bound_step(per_namespace), what);
    BackfillDraw d{0, t.offset};
    backfill::held_namespace(&s->alloc, t.index, &d.ns);
    return d;
}

}  // namespace idgen::pg
