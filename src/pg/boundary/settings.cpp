// Definitions of idgen's settings. Those that size shared memory or name the server's
// identity are fixed at server start; the timing bounds can be changed by a superuser.
#include "pg/boundary/settings.hpp"

#include <cstdint>
#include <cctype>
#include <cstring>

#include "core/base/mac_address.hpp"
#include "core/backfill/uuid_v1_backfill.hpp"
#include "core/layouts/snowflake.hpp"
#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "utils/guc.h"
}

namespace idgen::pg {

int node_id = -1;
int max_lead_ms = 5000;
int max_wait_ms = 1000;
int max_sequencers = 64;
char *uuid_node = nullptr;
char *locality_mac = nullptr;
int locality_mode = kLocalityVariable;
int unique_timestamp_digits = 2;
int backfill_timestamps = 65536;
int failover_margin_ms = 10000;
int ordering = kOrderingSession;
char *registry = nullptr;
char *registry_cluster = nullptr;
int registry_lease_s = 10;
int registry_margin_ms = 1000;
static bool preloaded = false;

bool registry_configured() {
    return preloaded && registry != nullptr && registry[0] != '\0';
}

static bool check_registry_cluster(char **value, void **, GucSource) {
    for (const char *c = *value; *c; c++)
        if (!isalnum(static_cast<unsigned char>(*c)) && *c != '_' && *c != '-' && *c != '.') {
            GUC_check_errdetail("idgen.registry_cluster may hold letters, digits, '_', '-' and '.' only.");
            return false;
        }
    if (**value != '\0') return true;
    GUC_check_errdetail("idgen.registry_cluster must not be empty.");
    return false;
}

static const struct config_enum_entry locality_modes[] = {
    {"variable", kLocalityVariable, false},
    {"sequential", kLocalitySequential, false},
    {nullptr, 0, false},
};

static const struct config_enum_entry orderings[] = {
    {"session", kOrderingSession, false},
    {"strict", kOrderingStrict, false},
    {nullptr, 0, false},
};

static bool check_uuid_node(char **value, void **, GucSource) {
    uint64_t mac = 0;
    if (strcmp(*value, "random") == 0 || strcmp(*value, "mac") == 0) return true;
    if (parse_mac(*value, &mac) && uuid_v1::backfill::reserved_node(mac)) {
        GUC_check_errdetail("Nodes 03:xx:xx:xx:xx:xx are reserved for the automatic nodes of uuid_v1_at().");
        return false;
    }
    if (parse_mac(*value, &mac)) return true;
    GUC_check_errdetail("idgen.uuid_node must be 'random', 'mac' or a MAC address such as '02:00:5e:10:00:01'.");
    return false;
}

static bool check_locality_mac(char **value, void **, GucSource) {
    uint64_t mac = 0;
    if (**value == '\0' || parse_mac(*value, &mac)) return true;
    GUC_check_errdetail("idgen.locality_mac must be empty (the first network interface) or a MAC address.");
    return false;
}

// Fixed at server start (they size shared memory or name the server's identity): defined only
// while preloading.
static void define_server_settings() {
    DefineCustomIntVariable(
        "idgen.node_id", "This server's node id, unique among the servers that share id spaces.",
        "-1 (the default) means none: generators that need a node id refuse to generate.",
        &node_id, -1, -1, snowflake::kMaxNodes - 1, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "idgen.max_sequencers", "How many Snowflake sequencers can be in use at once (server-wide).",
        nullptr, &max_sequencers, 64, 1, 4096, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable(
        "idgen.uuid_node", "The node of uuid_v1(): 'random', 'mac' or a MAC address.",
        "'random' (the default) is a random multicast node made once per data directory, so no "
        "hardware address leaks; 'mac' is the first network interface's address.",
        &uuid_node, "random", PGC_POSTMASTER, 0, check_uuid_node, nullptr, nullptr);
    DefineCustomStringVariable(
        "idgen.locality_mac", "The MAC address whose last 28 bits locality_uuid() carries.",
        "Empty (the default): the first network interface's address, or zeros if there is none.",
        &locality_mac, "", PGC_POSTMASTER, 0, check_locality_mac, nullptr, nullptr);
    DefineCustomIntVariable(
        "idgen.unique_timestamp_digits", "How many last decimal digits of unique_timestamp() carry idgen.node_id.",
        "2: 100 servers at 100 ns resolution (Chronicle's default); 3: 1,000 servers at 1 microsecond.",
        &unique_timestamp_digits, 2, 2, 3, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
}

// The generators' behaviour; some per session, some server-wide.
static void define_generator_settings() {
    DefineCustomEnumVariable(
        "idgen.locality_mode", "The counter mode of locality_uuid() without an argument.",
        "variable: the first characters change fastest (writes spread over shards); sequential: "
        "they count up (writes stay together).",
        &locality_mode, kLocalityVariable, locality_modes, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    // Server-wide (reload), not per session: one session handing out a run's positions would
    // break the strict order that the others promise.
    DefineCustomEnumVariable(
        "idgen.ordering", "How the ids of the live generators are ordered across sessions.",
        "session (the default): strictly increasing within each session, and across sessions by "
        "millisecond (an id is greater than every id whose millisecond ended before it was asked "
        "for); each session takes runs of up to 64 positions with one atomic operation, so "
        "generators scale with cores. strict: every id is greater than every id handed out "
        "before it was asked for, server-wide; one atomic operation on a shared word per id.",
        &ordering, kOrderingSession, orderings, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "idgen.backfill_timestamps", "How many distinct timestamps a session remembers per id space for uuid_v1_at and snowflake_at.",
        "Memory per id space in use is about 32 bytes times this (rounded up to a power of two). "
        "When the table is full it is forgotten and counting goes on above everything handed out, "
        "so a smaller table only uses more of the id space, never repeats an id.",
        &backfill_timestamps, 65536, 16, 16 * 1024 * 1024, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "idgen.max_lead", "How far ahead of the wall clock time-ordered ids may run.",
        "When a counter runs out, or the wall clock steps back, ids keep increasing ahead of the "
        "clock up to this bound; past it, calls wait for the clock.",
        &max_lead_ms, 5000, 0, 24 * 3600 * 1000, PGC_SUSET, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "idgen.max_wait", "How long a call may wait for the wall clock before it fails.",
        nullptr, &max_wait_ms, 1000, 0, 600 * 1000, PGC_SUSET, GUC_UNIT_MS, nullptr, nullptr,
        nullptr);
    DefineCustomIntVariable(
        "idgen.failover_margin", "How far above the replayed state a promoted standby or a restored backup starts its ids.",
        "WAL that never reached this server (asynchronous replication, an unarchived last segment) "
        "may have covered ids up to this far above what it replayed; with a margin, every lease "
        "space of retrospective ids also skips one namespace. 0 is exact with synchronous "
        "replication.",
        &failover_margin_ms, 10000, 0, 24 * 3600 * 1000, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr,
        nullptr);
}

// Cluster mode (fixed at server start, defined only while preloading).
static void define_registry_settings() {
    DefineCustomStringVariable(
        "idgen.registry", "etcd client URLs (comma separated) to lease node ids from, instead of idgen.node_id.",
        "Cluster mode: a background worker claims this server's node ids in etcd under a lease and "
        "keeps it alive; generators that carry a node id refuse (55000) while the lease is not "
        "held. Empty (the default): idgen.node_id as before.",
        &registry, "", PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable(
        "idgen.registry_cluster", "The name of this idgen cluster in etcd: the prefix of every key.",
        "Servers with the same name share node ids and Snowflake sequencers.",
        &registry_cluster, "idgen", PGC_POSTMASTER, 0, check_registry_cluster,
        nullptr, nullptr);
    DefineCustomIntVariable(
        "idgen.registry_lease", "The time to live of this server's lease in etcd.",
        "A server that cannot renew it stops issuing ids under its node ids before etcd can give "
        "them to another server; keep-alives go out every third of it.",
        &registry_lease_s, 10, 2, 3600, PGC_POSTMASTER, GUC_UNIT_S, nullptr,
        nullptr, nullptr);
    DefineCustomIntVariable(
        "idgen.registry_margin", "How long before the lease could expire in etcd this server stops issuing ids.",
        "Taken off the lease's deadline, which is measured on this server's monotonic clock from "
        "when the keep-alive was sent, less 0.2% for clock rate drift. Must be less than half of "
        "idgen.registry_lease.",
        &registry_margin_ms, 1000, 0, 3600 * 1000, PGC_POSTMASTER, GUC_UNIT_MS,
        nullptr, nullptr, nullptr);
}

// Settings that are valid alone but not together.
static void check_setting_combinations() {
    if (registry_configured() && node_id >= 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("idgen.node_id and idgen.registry cannot both be set"),
                        errhint("In cluster mode the node ids come from etcd: remove idgen.node_id.")));
    if (registry_configured() && int64_t{registry_margin_ms} * 2 >= int64_t{registry_lease_s} * 1000)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("idgen.registry_margin (%d ms) must be less than half of idgen.registry_lease (%d s)",
                               registry_margin_ms, registry_lease_s)));
}

void define_settings(bool preloading) {
    if (preloading) define_server_settings();
    define_generator_settings();
    if (preloading) define_registry_settings();
    MarkGUCPrefixReserved("idgen");
    preloaded = preloading;
    check_setting_combinations();
}

}  // namespace idgen::pg
