// Namespace batches that backends asked for (cluster_backfill.hpp), leased by the registry
// worker: the space's counter in the registry swapped up by a batch (registry_batch.hpp), the
// batch published only once the swap is stored. Not tied to the lease: a swapped batch is this
// server's for good.
#pragma once

#include <cstdint>
#include <string>

#include "core/registry/registry_batch.hpp"

#include "pg/cluster/cluster_shared.hpp"
#include "pg/cluster/lease_keeper.hpp"
#include "pg/cluster/registry_connection.hpp"

namespace idgen::pg {

struct NamespaceBatches {
    RegistryConnection &r;
    LeaseKeeper &keeper;  // its keep_lease runs between batches (serve_batches)
    bool seeded = false;  // seed_counters done

    // Answers every cell whose batch backends found empty: a batch leased from the registry,
    // or used up (after seed_counters: once per worker, and again by seed_again after etcd forgot).
    void serve_batches();
    // After the registry forgot: what each cell's batch had left is never handed out (the
    // registry no longer knows it was leased), and the counters are raised again to this
    // server's (false when etcd did not answer).
    void drop_unused();
    bool seed_again();
    // Raises a counter of the registry (or any number kept like one) to at least `to`
    // (compare-and-swap; never lowers it). False when etcd did not answer.
    bool raise_counter(const std::string &key, uint64_t to);

private:
    std::string counter_key(uint32_t kind, uint64_t key) const;
    std::string floor_key(uint32_t kind, uint64_t key) const;
    bool read_counter(const std::string &key, bool *found, std::string *value, uint64_t *n);
    void seed_counters();
    bool lease_batch(const BatchCell &cell, registry::Batch *batch);
};

}  // namespace idgen::pg
