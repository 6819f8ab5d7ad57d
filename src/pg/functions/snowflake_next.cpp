// snowflake_next(name): the next id of a Snowflake sequencer, from its slot's clock in shared
// memory with this server's node id (idgen.node_id, or the sequencer's claim in cluster mode).
#include "core/layouts/snowflake.hpp"

#include "pg/boundary/errors.hpp"
#include "pg/boundary/extension_schema.hpp"
#include "pg/boundary/postgres_api.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/cluster/node_source.hpp"
#include "pg/functions/generate.hpp"
#include "pg/functions/ready_to_generate.hpp"
#include "pg/functions/sequencer_call_site.hpp"

using namespace idgen;
using namespace idgen::pg;

extern "C" {
PG_FUNCTION_INFO_V1(idgen_snowflake_next);
}

Datum idgen_snowflake_next(PG_FUNCTION_ARGS) {
    SharedState *shared = ready_to_generate("snowflake_next()");
    const text *name = PG_GETARG_TEXT_PP(0);
    CachedSequencer *site = sequencer_of(fcinfo, name);
    NodeSource node = sequencer_node(site);
    const snowflake::Next n = draw_until_issued(
        shared, Generator::snowflake_next, "snowflake_next()",
        [&](int64_t now_ns, Status *error) {
            if (!still_bound(site)) {
                if (site->slot != nullptr)  // released: dropped, or dropped and created again?
                    refresh_cached_sequencer(extension_schema(fcinfo), name, site);
                site->slot = bind_sequencer_slot(shared, site->def, &site->generation);
                site->run = PositionRun{};
                site->stored_unix_ms = -1;
            }
            snowflake::Next d = snowflake::next_in_generation(
                &site->slot->clock, &site->slot->generation, site->generation, site->def.layout, node.node,
                now_ns / 1000, max_lead_ms, error, ordered_run(shared, &site->run, now_ns));
            if (d.kind == snowflake::Next::Kind::retired) {
                d.kind = snowflake::Next::Kind::wait;  // the slot changed hands during the draw: again
                d.ahead_ms = 0;
            }
            return d;
        },
        &node);
    count_issued(shared, site->slot, site->generation);
    // Once per millisecond per backend, not per id: the line is shared by all drawers.
    if (n.unix_ms != site->stored_unix_ms) {
        site->stored_unix_ms = n.unix_ms;
        atomic_store(&site->slot->last_unix_ms, static_cast<uint64_t>(n.unix_ms));
    }
    PG_RETURN_INT64(n.id);
}
