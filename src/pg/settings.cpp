// Definitions of idgen's settings. Those that size shared memory or name the server's
// identity are fixed at server start; the timing bounds can be changed by a superuser.
#include "settings.hpp"

#include "postgres_api.hpp"

extern "C" {
#include "utils/guc.h"
}

namespace idgen::pg {

int node_id = -1;
int max_lead_ms = 5000;
int max_wait_ms = 1000;
int max_sequencers = 64;

void define_settings(bool preloading) {
    if (preloading) {
        DefineCustomIntVariable(
            "idgen.node_id", "This server's node id, unique among the servers that share id spaces.",
            "-1 (the default) means none: generators that need a node id refuse to generate.",
            &node_id, -1, -1, 8191, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
        DefineCustomIntVariable(
            "idgen.max_sequencers", "How many Snowflake sequencers can be in use at once (server-wide).",
            nullptr, &max_sequencers, 64, 1, 4096, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);
    }
    DefineCustomIntVariable(
        "idgen.max_lead", "How far ahead of the wall clock time-ordered ids may run.",
        "When a counter runs out, or the wall clock steps back, ids keep increasing ahead of the "
        "clock up to this bound; past it, calls wait for the clock.",
        &max_lead_ms, 5000, 0, 24 * 3600 * 1000, PGC_SUSET, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    DefineCustomIntVariable(
        "idgen.max_wait", "How long a call may wait for the wall clock before it fails.",
        nullptr, &max_wait_ms, 1000, 0, 600 * 1000, PGC_SUSET, GUC_UNIT_MS, nullptr, nullptr,
        nullptr);
    MarkGUCPrefixReserved("idgen");
}

}  // namespace idgen::pg
