// Definitions of idgen's settings. Those that size shared memory or name the server's
// identity are fixed at server start; the timing bounds can be changed by a superuser.
#include "pg/boundary/settings.hpp"

#include <cctype>
#include <cstdint>
#include <cstring>

#include "core/backfill/uuid_v1_backfill.hpp"
#include "core/base/mac_address.hpp"
#include "core/layouts/snowflake.hpp"
#include "core/registry/registry_endpoints.hpp"

#include "pg/boundary/postgres_api.hpp"

extern "C" {
#include "lib/stringinfo.h"
#include "utils/guc.h"
}

namespace idgen::pg {

int node_id = -1;
int node_id_source = kNodeIdFromSetting;
int max_lead_ms = 5000;
int max_adopted_lead_s = 600;
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
char *registry_cacert = nullptr;
char *registry_cert = nullptr;
char *registry_key = nullptr;
char *registry_user = nullptr;
char *registry_password = nullptr;
char *registry_password_file = nullptr;
static bool preloaded = false;

bool registry_configured() {
    return preloaded && registry != nullptr && registry[0] != '\0';
}

// What is wrong with a value of the string settings that name the server's identity (nullptr:
// nothing). The check hooks refuse such a value on reload; at start it stops the server.
static const char *registry_cluster_problem(const char *value) {
    for (const char *c = value; *c; c++)
        if (!isalnum(static_cast<unsigned char>(*c)) && *c != '_' && *c != '-' && *c != '.')
            return "idgen.registry_cluster may hold letters, digits, '_', '-' and '.' only.";
    return *value != '\0' ? nullptr : "idgen.registry_cluster must not be empty.";
}

static const char *uuid_node_problem(const char *value) {
    uint64_t mac = 0;
    if (strcmp(value, "random") == 0 || strcmp(value, "mac") == 0) return nullptr;
    if (!parse_mac(value, &mac))
        return "idgen.uuid_node must be 'random', 'mac' or a MAC address such as '02:00:5e:10:00:01'.";
    if (uuid_v1::backfill::reserved_node(mac))
        return "Nodes 03:xx:xx:xx:xx:xx are reserved for the automatic nodes of uuid_v1_at().";
    return nullptr;
}

static const char *locality_mac_problem(const char *value) {
    uint64_t mac = 0;
    if (*value == '\0' || parse_mac(value, &mac)) return nullptr;
    return "idgen.locality_mac must be empty (the first network interface) or a MAC address.";
}

static bool check_with(const char *(*problem)(const char *), char **value) {
    if (const char *p = problem(*value)) {
        GUC_check_errdetail("%s", p);
        return false;
    }
    return true;
}

static bool check_registry_cluster(char **value, void **, GucSource) {
    return check_with(registry_cluster_problem, value);
}

static bool check_registry(char **value, void **, GucSource) {
    return check_with(registry::endpoints_problem, value);
}

static bool check_uuid_node(char **value, void **, GucSource) {
    return check_with(uuid_node_problem, value);
}

static bool check_locality_mac(char **value, void **, GucSource) {
    return check_with(locality_mac_problem, value);
}

// The integer settings checked at server start, with their ranges (used to define them and to
// check them at start): those fixed then, and the failover margin, which decides how far above
// the replayed state a promoted server starts (its default in place of a malformed value would
// be a smaller margin than the one meant).
struct IntRange {
    const char *name;
    int min, max, flags;
};
static const IntRange kNodeId{"idgen.node_id", -1, snowflake::kMaxNodes - 1, 0};
static const IntRange kMaxSequencers{"idgen.max_sequencers", 1, 4096, 0};
static const IntRange kUniqueTimestampDigits{"idgen.unique_timestamp_digits", 2, 3, 0};
static const IntRange kRegistryLease{"idgen.registry_lease", 2, 3600, GUC_UNIT_S};
static const IntRange kRegistryMargin{"idgen.registry_margin", 0, 3600 * 1000, GUC_UNIT_MS};
static const IntRange kFailoverMargin{"idgen.failover_margin", 0, 24 * 3600 * 1000, GUC_UNIT_MS};

static const struct config_enum_entry locality_modes[] = {
    {"variable", kLocalityVariable, false},
    {"sequential", kLocalitySequential, false},
    {nullptr, 0, false},
};

static const struct config_enum_entry node_id_sources[] = {
    {"setting", kNodeIdFromSetting, false},
    {"citus", kNodeIdFromCitus, false},
    {nullptr, 0, false},
};

static const struct config_enum_entry orderings[] = {
    {"session", kOrderingSession, false},
    {"strict", kOrderingStrict, false},
    {nullptr, 0, false},
};

// Fixed at server start (they size shared memory or name the server's identity): defined only
// while preloading.
static void define_server_settings() {
    DefineCustomIntVariable(
        kNodeId.name, "This server's node id, unique among the servers that share id spaces.",
        "-1 (the default) means none: generators that need a node id refuse to generate. With "
        "idgen.registry, the node id this server holds in etcd as its own (-1: the lowest free one).",
        &node_id, -1, kNodeId.min, kNodeId.max, PGC_POSTMASTER, kNodeId.flags, nullptr, nullptr, nullptr);
    DefineCustomEnumVariable(
        "idgen.node_id_source", "Where this server's node id comes from: 'setting' or 'citus'.",
        "'setting' (the default): idgen.node_id, or the registry's in cluster mode. 'citus': the Citus "
        "group of this node in the database that calls the generator (0 for the coordinator, the "
        "worker's own for a worker); idgen.node_id is then not used.",
        &node_id_source, kNodeIdFromSetting, node_id_sources, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(kMaxSequencers.name,
                            "How many Snowflake sequencers can be in use at once (server-wide).", nullptr,
                            &max_sequencers, 64, kMaxSequencers.min, kMaxSequencers.max, PGC_POSTMASTER,
                            kMaxSequencers.flags, nullptr, nullptr, nullptr);
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
        kUniqueTimestampDigits.name,
        "How many last decimal digits of unique_timestamp() carry idgen.node_id.",
        "2: 100 servers at 100 ns resolution (Chronicle's default); 3: 1,000 servers at 1 microsecond.",
        &unique_timestamp_digits, 2, kUniqueTimestampDigits.min, kUniqueTimestampDigits.max, PGC_POSTMASTER,
        kUniqueTimestampDigits.flags, nullptr, nullptr, nullptr);
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
        "idgen.backfill_timestamps",
        "How many distinct timestamps a session remembers per id space for uuid_v1_at and snowflake_at.",
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
        "idgen.max_adopted_lead",
        "How far ahead of the wall clock a moved database's horizon may be adopted.",
        "A restored database, or a publisher whose state is taken over, brings the time its ids may "
        "reach; every generator of this server moves above it. One further ahead than this is refused "
        "(55000) instead of dating every id that far ahead.",
        &max_adopted_lead_s, 600, 60, INT_MAX, PGC_SUSET, GUC_UNIT_S, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("idgen.max_wait", "How long a call may wait for the wall clock before it fails.",
                            nullptr, &max_wait_ms, 1000, 0, 600 * 1000, PGC_SUSET, GUC_UNIT_MS, nullptr,
                            nullptr, nullptr);
    DefineCustomIntVariable(
        kFailoverMargin.name,
        "How far above the replayed state a promoted standby or a restored backup starts its ids.",
        "WAL that never reached this server (asynchronous replication, an unarchived last segment) "
        "may have covered ids up to this far above what it replayed; with a margin, every lease "
        "space of retrospective ids also skips one namespace. 0 is exact with synchronous "
        "replication.",
        &failover_margin_ms, 10000, kFailoverMargin.min, kFailoverMargin.max, PGC_SIGHUP,
        kFailoverMargin.flags, nullptr, nullptr, nullptr);
}

// Cluster mode (fixed at server start, defined only while preloading).
static void define_registry_settings() {
    DefineCustomStringVariable(
        "idgen.registry", "etcd client URLs (comma separated) to lease node ids from.",
        "Cluster mode: a background worker claims this server's node ids in etcd under a lease and "
        "keeps it alive (idgen.node_id, when set, as its own; else the lowest free ones); "
        "generators that carry a node id refuse (55000) while the lease is not held. Empty (the "
        "default): idgen.node_id alone.",
        &registry, "", PGC_POSTMASTER, 0, check_registry, nullptr, nullptr);
    DefineCustomStringVariable(
        "idgen.registry_cluster", "The name of this idgen cluster in etcd: the prefix of every key.",
        "Servers with the same name share node ids and Snowflake sequencers.", &registry_cluster, "idgen",
        PGC_POSTMASTER, 0, check_registry_cluster, nullptr, nullptr);
    DefineCustomIntVariable(
        kRegistryLease.name, "The time to live of this server's lease in etcd.",
        "A server that cannot renew it stops issuing ids under its node ids before etcd can give "
        "them to another server; keep-alives go out every third of it.",
        &registry_lease_s, 10, kRegistryLease.min, kRegistryLease.max, PGC_POSTMASTER, kRegistryLease.flags,
        nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        kRegistryMargin.name, "How long before the lease could expire in etcd this server stops issuing ids.",
        "Taken off the lease's deadline, which is measured on this server's monotonic clock from "
        "when the keep-alive was sent, less 0.2% for clock rate drift. Must be less than half of "
        "idgen.registry_lease.",
        &registry_margin_ms, 1000, kRegistryMargin.min, kRegistryMargin.max, PGC_POSTMASTER,
        kRegistryMargin.flags, nullptr, nullptr, nullptr);
    // TLS and authentication, beside the endpoints (Patroni's etcd3 section: cacert, cert, key,
    // username, password). Files are read by the registry worker at each connection.
    DefineCustomStringVariable(
        "idgen.registry_cacert",
        "The CA certificate file (PEM) that etcd's https:// endpoints are checked against.",
        "Empty (the default): the system's certificate store.", &registry_cacert, "", PGC_POSTMASTER, 0,
        nullptr, nullptr, nullptr);
    DefineCustomStringVariable("idgen.registry_cert",
                               "The client certificate file (PEM) for etcd's --client-cert-auth.", nullptr,
                               &registry_cert, "", PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable("idgen.registry_key", "The private key file (PEM) of idgen.registry_cert.",
                               nullptr, &registry_key, "", PGC_POSTMASTER, GUC_SUPERUSER_ONLY, nullptr,
                               nullptr, nullptr);
    DefineCustomStringVariable("idgen.registry_user",
                               "The etcd user this server authenticates as (etcd's auth enabled).",
                               "Empty (the default): no authentication.", &registry_user, "", PGC_POSTMASTER,
                               0, nullptr, nullptr, nullptr);
    DefineCustomStringVariable("idgen.registry_password", "The password of idgen.registry_user.",
                               "Readable by superusers and by members of pg_read_all_settings (pg_monitor): "
                               "idgen.registry_password_file keeps it from them.",
                               &registry_password, "", PGC_POSTMASTER, GUC_SUPERUSER_ONLY, nullptr, nullptr,
                               nullptr);
    DefineCustomStringVariable(
        "idgen.registry_password_file", "A file whose first line is the password of idgen.registry_user.",
        "Read when the registry worker starts; no access for others than its owner and group. "
        "Instead of idgen.registry_password.",
        &registry_password_file, "", PGC_POSTMASTER, GUC_SUPERUSER_ONLY, nullptr, nullptr, nullptr);
}

// PostgreSQL replaces an extension's setting that it cannot read with its default and only
// warns. For a setting that names the server's identity (its node id, its cluster, its nodes)
// or sizes what it keeps, another value means other ids, or another server's: so the value in
// the configuration (postgresql.conf, postgresql.auto.conf, the command line: still a
// placeholder before the setting is defined) is checked first, and a malformed one stops the
// server, naming it.
[[noreturn]] static void refuse_at_start(const char *name, const char *raw, const char *problem) {
    ereport(FATAL, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("invalid value for parameter \"%s\": \"%s\"", name, raw), errdetail("%s", problem),
                    errhint("idgen does not start with a setting it cannot read: its default could make this "
                            "server issue ids that are not its own. Correct the setting and start the server "
                            "again.")));
    pg_unreachable();
}

static void check_int_at_start(const IntRange &range) {
    const char *raw = GetConfigOption(range.name, true, false);
    if (raw == nullptr) return;
    int value = 0;
    const char *hint = nullptr;
    if (!parse_int(raw, &value, range.flags, &hint))
        refuse_at_start(range.name, raw, hint != nullptr ? hint : "It is not an integer.");
    if (value < range.min || value > range.max)
        refuse_at_start(range.name, raw, psprintf("It must be between %d and %d.", range.min, range.max));
}

static void check_string_at_start(const char *name, const char *(*problem)(const char *)) {
    const char *raw = GetConfigOption(name, true, false);
    if (raw == nullptr) return;
    if (const char *p = problem(raw)) refuse_at_start(name, raw, p);
}

// An enum setting fixed at start: one of its values (case does not matter, as for PostgreSQL's own).
static void check_enum_at_start(const char *name, const struct config_enum_entry *values) {
    const char *raw = GetConfigOption(name, true, false);
    if (raw == nullptr) return;
    StringInfoData allowed;
    initStringInfo(&allowed);
    for (const struct config_enum_entry *v = values; v->name != nullptr; v++) {
        if (pg_strcasecmp(raw, v->name) == 0) return;
        appendStringInfo(&allowed, "%s'%s'", v == values ? "" : (v[1].name == nullptr ? " or " : ", "),
                         v->name);
    }
    refuse_at_start(name, raw, psprintf("It must be %s.", allowed.data));
}

static void refuse_malformed_at_start() {
    check_enum_at_start("idgen.node_id_source", node_id_sources);
    for (const IntRange *range : {&kNodeId, &kMaxSequencers, &kUniqueTimestampDigits, &kRegistryLease,
                                  &kRegistryMargin, &kFailoverMargin})
        check_int_at_start(*range);
    check_string_at_start("idgen.uuid_node", uuid_node_problem);
    check_string_at_start("idgen.locality_mac", locality_mac_problem);
    check_string_at_start("idgen.registry", registry::endpoints_problem);
    check_string_at_start("idgen.registry_cluster", registry_cluster_problem);
}

// Settings that are valid alone but not together: the server does not start.
static void check_setting_combinations() {
    if (registry_configured() && int64_t{registry_margin_ms} * 2 >= int64_t{registry_lease_s} * 1000)
        ereport(FATAL,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("idgen.registry_margin (%d ms) must be less than half of idgen.registry_lease (%d s)",
                        registry_margin_ms, registry_lease_s)));
    // Two sources of one node id, each unaware of the other, could hand one node id to two servers.
    if (node_id_source == kNodeIdFromCitus && (registry_configured() || node_id >= 0))
        ereport(FATAL, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("idgen.node_id_source = 'citus' takes the node id from Citus: leave "
                               "idgen.node_id and idgen.registry unset")));
}

void define_settings(bool preloading) {
    if (preloading) refuse_malformed_at_start();
    if (preloading) define_server_settings();
    define_generator_settings();
    if (preloading) define_registry_settings();
    MarkGUCPrefixReserved("idgen");
    preloaded = preloading;
    check_setting_combinations();
}

}  // namespace idgen::pg
