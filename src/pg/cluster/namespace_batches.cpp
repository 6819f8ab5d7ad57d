// Namespace batches leased from etcd's counters: see namespace_batches.hpp.
#include "pg/cluster/namespace_batches.hpp"

#include <algorithm>

#include "core/backfill/lease_spaces.hpp"

#include "pg/boundary/postgres_api.hpp"
#include "pg/leases/backfill_leases.hpp"

namespace idgen::pg {
namespace {

const char *kind_name(uint32_t kind) {
    switch (static_cast<backfill::LeaseKind>(kind)) {
        case backfill::LeaseKind::uuid_auto:
            return "uuid_auto";
        case backfill::LeaseKind::uuid_given:
            return "uuid_given";
        case backfill::LeaseKind::uuid_v7:
            return "uuid_v7";
        case backfill::LeaseKind::snowflake:
            return "snowflake";
        default:
            return "other";
    }
}

}  // namespace

std::string NamespaceBatches::counter_key(uint32_t kind, uint64_t key) const {
    return r.prefix + "backfill/" + kind_name(kind) + "/" + std::to_string(key);
}
// Counted before this server ran in cluster mode, per kind (the ids that carry the node id
// were not counted per node id then) or per space in reserved node ids (snowflake_at).
std::string NamespaceBatches::floor_key(uint32_t kind, uint64_t key) const {
    return static_cast<backfill::LeaseKind>(kind) == backfill::LeaseKind::snowflake
               ? counter_key(kind, key) + "/nodes"
               : r.prefix + "backfill/" + kind_name(kind) + "/floor";
}

bool NamespaceBatches::read_counter(const std::string &key, bool *found, std::string *value, uint64_t *n) {
    int64_t v = 0;
    if (!r.etcd.get(key, found, value)) return false;
    if (*found && (!registry::parse_int64(*value, &v) || v < 0)) return false;
    *n = *found ? static_cast<uint64_t>(v) : 0;
    return true;
}

// Raises a counter of the registry to at least `to` (compare-and-swap; never lowers it).
bool NamespaceBatches::raise_counter(const std::string &key, uint64_t to) {
    for (int attempt = 0; attempt < 8; attempt++) {
        bool found = false, done = false;
        std::string value, seen;
        uint64_t current = 0;
        if (!read_counter(key, &found, &value, &current)) return false;
        if (current >= to) return true;
        if (!r.etcd.swap(key, value, !found, std::to_string(to), &done, &seen)) return false;
        if (done) return true;
    }
    return false;
}

// Once per worker before any batch (and again after etcd forgot, generation_keeper.hpp): what
// the server counted before (outside cluster mode, or before a restart) raised into the registry,
// so that no server's batch starts below namespaces this one used. A server that backfilled
// before cluster mode was turned on is covered once its worker has run this; batches other
// servers took before then are not.
void NamespaceBatches::seed_counters() {
    const backfill::LeaseTable table = lease_table(backfill_shared());
    for (const LeaseTable::Cell &cell : table.cells) {
        const auto kind = static_cast<uint32_t>(cell.space.kind);
        if (cell.space.kind == backfill::LeaseKind::free || cell.state.next == 0) continue;
        const bool pooled = cell.space.kind == backfill::LeaseKind::snowflake ||
                            ((cell.space.kind == backfill::LeaseKind::uuid_auto ||
                              cell.space.kind == backfill::LeaseKind::uuid_v7) &&
                             cell.space.key == 0);
        if (!raise_counter(pooled ? floor_key(kind, cell.space.key) : counter_key(kind, cell.space.key),
                           cell.state.next)) {
            r.note_error("raising the registry's namespace counters to this server's");
            return;
        }
    }
    seeded = true;
}

// The next batch for `cell` (a copy): above the registry's counter, the floor the backend
// saw, and the counts servers brought from before cluster mode.
bool NamespaceBatches::lease_batch(const BatchCell &cell, registry::Batch *batch) {
    const std::string key = counter_key(cell.kind, cell.key);
    bool found = false;
    std::string value;
    uint64_t before = 0;
    if (!read_counter(floor_key(cell.kind, cell.key), &found, &value, &before)) return false;
    const uint64_t floor = std::max(
        cell.floor, before * (static_cast<backfill::LeaseKind>(cell.kind) == backfill::LeaseKind::snowflake
                                  ? cell.per_local
                                  : 1));
    const uint64_t want = std::max<uint64_t>(1, std::min<uint64_t>(16, cell.limit / 64));
    for (int attempt = 0; attempt < 8; attempt++) {  // another server's swap came first: again
        bool done = false;
        std::string seen;
        uint64_t current = 0;
        if (!read_counter(key, &found, &value, &current)) return false;
        *batch = registry::take_batch(std::max(current, floor), want, cell.limit);
        if (batch->first == batch->end) return true;  // used up: nothing to take
        if (!r.etcd.swap(key, value, !found, std::to_string(batch->end), &done, &seen)) return false;
        if (done) return true;
    }
    return false;
}

void NamespaceBatches::drop_unused() {
    LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
    for (BatchCell &cell : r.c->batches) cell.next = cell.end;
    LWLockRelease(r.c->lock);
}

bool NamespaceBatches::seed_again() {
    seeded = false;
    seed_counters();
    return seeded;
}

void NamespaceBatches::serve_batches() {
    if (!seeded) seed_counters();
    if (!seeded) return;
    for (int i = 0; i < kBatchSpaces; i++) {
        keeper.keep_lease(monotonic_ns());  // many batches in one round must not starve the lease
        LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
        BatchCell asked = r.c->batches[i];
        const bool open = asked.kind != 0 && asked.answered < asked.asked;
        if (open && asked.next < asked.end) r.c->batches[i].answered = asked.asked;  // filled meanwhile
        LWLockRelease(r.c->lock);
        if (open && asked.next < asked.end) answer_backends(r.c);
        if (!open || asked.next < asked.end) continue;
        registry::Batch batch;
        if (!lease_batch(asked, &batch)) {
            r.note_error(
                "leasing namespaces (etcd did not answer, or other servers' swaps kept coming first)");
            continue;
        }
        r.remember_writes();
        LWLockAcquire(r.c->lock, LW_EXCLUSIVE);
        BatchCell &cell = r.c->batches[i];
        if (cell.kind == asked.kind && cell.key == asked.key) {  // backends only take from it meanwhile
            if (batch.first == batch.end) {
                cell.used_up = true;
            } else {
                cell.next = batch.first;
                cell.end = batch.end;
                cell.taken_end = batch.end;
            }
            cell.answered = asked.asked;
        }
        LWLockRelease(r.c->lock);
        answer_backends(r.c);
    }
}

}  // namespace idgen::pg
