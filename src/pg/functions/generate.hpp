// Folder src/pg/functions: the SQL functions of every generator and decoder.
//
// The loop every time-ordered generator runs for one id: read the wall clock (or the lead floor
// after adopted state, generator_now_unix_ns), draw from the core, cover the id (cover.hpp: the
// horizon and every copy of it durable), in cluster mode have the registry admit it
// (NodeSource), and hand it out; or wait for the clock, or raise the core's error. `draw(now_unix_ns,
// &error)` returns the core's one result shape, Drawn<Fields> (logical_clock.hpp). Everything alive across
// the ereport longjmps in here is trivially destructible.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/base/atomic_word.hpp"
#include "core/base/status.hpp"
#include "core/clocks/session_run.hpp"

#include "pg/boundary/errors.hpp"
#include "pg/boundary/settings.hpp"
#include "pg/boundary/wall_clock.hpp"
#include "pg/cluster/node_source.hpp"
#include "pg/cover/cover.hpp"
#include "pg/shared_memory/shared_state.hpp"

namespace idgen::pg {

// The run a generator draws from in this backend under idgen.ordering at wall-clock time
// `now_ns` (nullptr: 'strict', one atomic add per id). `run` is the backend's own, one per
// generator clock (per sequencer slot binding for Snowflake). It is emptied
// - under 'strict', so that a later switch back cannot hand out its older positions after the
//   strict ones (a session's ids never go back);
// - if the clocks were raised since it was taken (drop_if_raised);
// - if the wall clock reads earlier than the latest millisecond any session has seen: the clock
//   stepped back, and the run's millisecond may have ended already (session_run.hpp).
inline PositionRun *ordered_run(SharedState *shared, PositionRun *run, int64_t now_ns) {
    if (ordering == kOrderingStrict) {
        drop_run(run);
        return nullptr;
    }
    drop_if_raised(run, atomic_load(&shared->clock_raises));
    const uint64_t now_ms = now_ns < 0 ? 0 : static_cast<uint64_t>(now_ns / 1000000);
    const uint64_t latest = atomic_load(&shared->latest_wall_ms);
    if (now_ms > latest)
        atomic_raise(&shared->latest_wall_ms, now_ms);
    else if (now_ms < latest)
        drop_run(run);
    return run;
}

// Draws until an id is issued. With `node` (generators whose ids carry a node id), in cluster
// mode the id is handed out only within the lease's deadline and under the registry horizon,
// and only if the node id did not change meanwhile (otherwise node->read and draw again): see
// cluster_shared.hpp.
template <typename DrawFn>
auto draw_until_issued(SharedState *shared, Generator g, const char *what, DrawFn draw,
                       NodeSource *node = nullptr) {
    using Result = decltype(draw(int64_t{0}, static_cast<Status *>(nullptr)));
    static_assert(std::is_same_v<Result, Drawn<typename Result::FieldsType>>,
                  "a generator's draw returns the core's Drawn (logical_clock.hpp)");
    using Kind = typename Result::Kind;
    ClockWait wait;
    for (;;) {
        const int64_t now_ns = generator_now_unix_ns(shared);
        Status error;
        const Result n = draw(now_ns, &error);
        if (n.kind == Kind::issued) {
            cover_ids(shared, n.end_unix_us, now_ns / 1000, what);
            if (node == nullptr || node->cluster == nullptr ||
                cluster_admit(node->cluster, node->word(), node->seen, n.end_unix_us, what,
                              &node->give_up_ns))
                return n;
            node->read(what);
            continue;
        }
        if (n.kind == Kind::failed) raise_error(error);
        if (wait.started_monotonic_us < 0) count_wait(shared, g);
        if (!wait_for_clock(&wait, n.ahead_ms)) {
            count_clock_error(shared, g);
            raise_clock_behind(wait, n.ahead_ms, what);
        }
    }
}

}  // namespace idgen::pg
