// The registry's generation as this server remembers it, durably: the file idgen.registry in the
// data directory (durable_record.hpp), read when the registry worker starts and written before
// the worker uses what a write of its own to etcd made (core/registry/registry_generation.hpp
// says why). A record of another cluster name (idgen.registry_cluster changed) counts as none.
// Only the registry worker reads and writes it. The record can only make a server refuse, never
// let it issue: a standby, a restored backup or a copy on a second server remembers what its
// source remembered, a revision etcd has since passed (nothing noticed: the copy's ids are kept
// apart by the node ids it leases) or one it lost (a notice and a rebuild, never an id twice). A
// missing or unreadable record is none: the server joins the generation etcd holds.
#pragma once

#include <string>

#include "core/registry/registry_generation.hpp"

namespace idgen::pg {

// What is remembered for the cluster whose keys lie under `prefix` (nothing: an empty record).
registry::Remembered load_generation(const std::string &prefix);
// Writes it (an ERROR if it cannot be made durable: the worker restarts).
void store_generation(const std::string &prefix, const registry::Remembered &mine);

}  // namespace idgen::pg
