// The registry's generation as this server remembers it, durably: the file idgen.registry in the
// data directory (durable_record.hpp), read when the registry worker starts and written before
// the worker uses what a write of its own to etcd made (core/registry/registry_generation.hpp
// says why). A record of another cluster name (idgen.registry_cluster changed) counts as none.
// Only the registry worker reads and writes it, and only on a server that runs no recovery.
//
// A record is this server's own only on the WAL timeline it was written on. A standby (which
// runs no worker) holds a copy of its source's record from the base backup; once promoted, or
// once a copy ends its recovery, it runs on a new timeline: the record is its source's, perhaps
// of a generation etcd was rebuilt from since, and judged as its own it would mark a healthy
// cluster forgotten. So a record of another timeline counts as none: the server joins the
// generation etcd holds as one new to it, which is safe, since everything it issued is in its WAL
// (its generators start above it, and its namespace counters are raised into etcd's before it
// uses a batch). A missing record counts as none likewise. An unreadable one does not: the
// worker stops with the file named (registry_connection.cpp). Format 1 (before 0.9.9, without
// the timeline) is read as this timeline's, as it was then.
#pragma once

#include <string>

#include "core/registry/registry_generation.hpp"

namespace idgen::pg {

// What is remembered for the cluster whose keys lie under `prefix` (nothing: an empty record);
// `unreadable` says why when the file exists but cannot be read.
registry::Remembered load_generation(const std::string &prefix, std::string *unreadable);
// Writes it (an ERROR if it cannot be made durable: the worker restarts).
void store_generation(const std::string &prefix, const registry::Remembered &mine);

}  // namespace idgen::pg
