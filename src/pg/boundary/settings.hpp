// idgen's settings (GUCs), defined once in _PG_init and read by the generators.
#pragma once

#include <cstdint>

namespace idgen::pg {

extern int node_id;                  // idgen.node_id: this server's node identity, -1 when unset
extern int node_id_source;           // idgen.node_id_source: NodeIdSource, where node ids come from
extern int max_lead_ms;              // idgen.max_lead: how far ids may run ahead of the wall clock
extern int max_wait_ms;              // idgen.max_wait: how long a call may wait for the wall clock
extern int max_sequencers;           // idgen.max_sequencers: shared-memory slots for Snowflake sequencers
extern char *uuid_node;              // idgen.uuid_node: 'random', 'mac' or a MAC address, for uuid_v1()
extern char *locality_mac;           // idgen.locality_mac: '' (the first interface) or a MAC address
extern int locality_mode;            // idgen.locality_mode: LocalityMode, for locality_uuid()
extern int unique_timestamp_digits;  // idgen.unique_timestamp_digits: 2 or 3 host digits
extern int backfill_timestamps;      // idgen.backfill_timestamps: timestamps a session remembers per id space
extern int failover_margin_ms;       // idgen.failover_margin: added above replayed state at promotion
extern int max_adopted_lead_s;       // idgen.max_adopted_lead: how far ahead a moved horizon may be
extern int ordering;                 // idgen.ordering: Ordering, of every live generator
// Cluster mode (cluster_shared.hpp): node ids leased from etcd instead of idgen.node_id.
extern char *registry;          // idgen.registry: etcd client URLs, '' for none
extern char *registry_cluster;  // idgen.registry_cluster: the prefix of every key
extern int registry_lease_s;    // idgen.registry_lease: the lease's ttl
extern int registry_margin_ms;  // idgen.registry_margin: taken off the lease's deadline
// How to reach a production etcd (named as Patroni's etcd3 section names them); '' for none.
extern char *registry_cacert;         // idgen.registry_cacert: CA file for https:// endpoints
extern char *registry_cert;           // idgen.registry_cert: client certificate file
extern char *registry_key;            // idgen.registry_key: its private key file
extern char *registry_user;           // idgen.registry_user: etcd user
extern char *registry_password;       // idgen.registry_password: its password
extern char *registry_password_file;  // idgen.registry_password_file: a file holding it

// Whether cluster mode is on (idgen.registry set, and preloaded).
bool registry_configured();

enum LocalityMode { kLocalityVariable = 0, kLocalitySequential = 1 };
// setting: idgen.node_id; citus: the Citus group of the database's node (pg/cluster/citus_group.hpp).
enum NodeIdSource { kNodeIdFromSetting = 0, kNodeIdFromCitus = 1 };
// strict: one atomic add per id; session: runs of positions (src/core/clocks/session_run.hpp).
enum Ordering { kOrderingStrict = 0, kOrderingSession = 1 };

// The settings fixed at server start can only be defined while preloading; without the
// preload they keep their defaults (no node id, no shared memory to size).
void define_settings(bool preloading);

}  // namespace idgen::pg
