// Snowflake ids (Twitter's scheme, as snowcast and idgen lay it out, and the layouts of peers): a
// 64-bit integer of a time field (ticks since the sequencer's epoch), log2(max_nodes) bits of node id
// and the remaining bits a per-tick counter. The layout's kind fixes the tick, the time field's width
// and how many of the 64 bits ids span (Kind below); the node count splits the rest between node and
// counter. The generator is a LogicalClock whose positions are (ticks << counter_bits | counter); the
// node id sits between the two in the id, or below both in Sonyflake's layout.
#pragma once

#include <cstdint>

#include "core/base/status.hpp"
#include "core/clocks/logical_clock.hpp"
#include "core/clocks/session_run.hpp"

namespace idgen::snowflake {

// The node ids a server can hold (idgen.node_id, a cluster lease, a Citus group): 0 .. kMaxNodes - 1.
// A layout with more node ids (Sonyflake's 65,536 machine ids) is used by servers below it.
constexpr int32_t kMaxNodes = 8192;

// The layouts a sequencer can have:
// - idgen (the default): 41 bits of milliseconds, node and counter in 22 bits below them, the sign
//   bit 0: every id is a positive int64 and int64 order is time order for the whole time field.
//   With 1,024 nodes it is Twitter's layout, and Discord's until 2^41 ms after the epoch.
// - snowcast (snowcast's layout: id = ms << 23 | node << (23 - node_bits) | counter): node and
//   counter share 23 bits, twice the ids per millisecond; from 2^40 ms (34.8 years) after the epoch
//   on, ids have the top bit set, negative as an int64, so only their unsigned order is time order.
// - sonyflake (Sony's: id = ticks << 24 | counter << 16 | machine): 39 bits of 10 ms ticks (174
//   years), an 8-bit counter, then a 16-bit machine id (65,536 node ids) in the lowest bits; the sign
//   bit 0.
// - javascript: ids below 2^53, so every id is an exact JavaScript number: 41 bits of milliseconds,
//   node and counter in the 12 bits below them.
enum class Kind { idgen, snowcast, sonyflake, javascript };

struct Layout {
    int64_t epoch_unix_ms;
    int node_bits;  // from node_bits_for()
    // The top backfill_nodes node ids are reserved for retrospective ids (snowflake_at); live
    // generation uses the node ids below them.
    int32_t backfill_nodes = 0;
    Kind kind = Kind::idgen;
    int width() const noexcept {  // how many of the 64 bits ids span, from the lowest
        return kind == Kind::snowcast ? 64 : kind == Kind::javascript ? 53 : 63;
    }
    int time_bits() const noexcept { return kind == Kind::sonyflake ? 39 : 41; }
    int64_t tick_ms() const noexcept { return kind == Kind::sonyflake ? 10 : 1; }
    bool node_lowest() const noexcept { return kind == Kind::sonyflake; }
    int node_and_counter_bits() const noexcept { return width() - time_bits(); }
    int counter_bits() const noexcept { return node_and_counter_bits() - node_bits; }
    int32_t max_nodes() const noexcept { return int32_t{1} << node_bits; }
    int64_t max_ticks() const noexcept { return (int64_t{1} << time_bits()) - 1; }
};

// The Unix time (ms) at which the layout's time field runs out: no id has a time at or after it.
int64_t runs_out_unix_ms(const Layout &layout) noexcept;

// log2 of max_nodes rounded up to a power of two; Errc::invalid_parameter outside the node counts
// the kind allows: 128..8192 for idgen and snowcast, 65,536 (16 bits) for sonyflake, 16..512 for
// javascript (at least 3 counter bits).
Status node_bits_for(Kind kind, int32_t max_nodes, int *node_bits) noexcept;

// The node count a kind takes where none is given: 8,192 for idgen and snowcast, 65,536 for
// sonyflake (its only one), 64 for javascript.
int32_t default_max_nodes(Kind kind) noexcept;

// An epoch must be a whole millisecond, not after `now`, and recent enough that the layout's
// time field has not run out (Errc::invalid_parameter otherwise).
Status check_epoch(const Layout &layout, int64_t epoch_unix_us, int64_t now_unix_us) noexcept;

// Whether `node` is a node id live generation may use (0 .. max_nodes - backfill_nodes - 1).
bool node_fits(const Layout &layout, int32_t node) noexcept;

// Errc::invalid_parameter unless 0 <= backfill_nodes < max_nodes (one live node id at least).
Status check_backfill_nodes(const Layout &layout, int32_t backfill_nodes) noexcept;

struct Parts {
    int64_t unix_ms;  // the start of the id's tick
    int32_t node;
    int32_t counter;
};

// The time field, node and counter of an id. Errc::value_out_of_range for an id with a bit set
// above the layout's width (a negative id where the sign bit stays 0, 2^53 or more in javascript);
// in snowcast every id decodes.
Status decode(const Layout &layout, int64_t id, Parts *parts) noexcept;

// The smallest id any node can issue in the tick holding `unix_us`, in the unsigned order of ids;
// 0 before the epoch (every id is at least that); Errc::timestamp_out_of_range past the time
// field. Where the sign bit stays 0 it is also the smallest as an int64. In snowcast the
// millisecond's ids are min_id .. min_id + 2^23 - 1 as int64 too, but the result is negative
// from 2^40 ms after the epoch on: then the ids of that millisecond and later are those with
// min_id <= id < 0; before it, those with id >= min_id or id < 0.
Status min_id(const Layout &layout, int64_t unix_us, int64_t *id) noexcept;

// The clock position from which a sequencer may issue without ever meeting an id issued
// before a durable horizon (every id issued so far ends at or before `horizon_unix_us`).
uint64_t position_after(const Layout &layout, int64_t horizon_unix_us) noexcept;

// Where a definition of a name must start so that it never repeats an id an earlier definition of
// that name issued: the Unix time (us) of the start of the first tick of `later` whose every id
// lies above, in the unsigned order of ids, every id `earlier` can have issued in ticks that
// start before `bound_unix_us` (a time at or after the end of every id it issued). Ids are
// ordered by their time field first, so the bound is the first id of `earlier`'s tick after the
// one holding the bound, whatever the epochs, node counts and kinds; it compares ids, never
// times, because the same time is another tick count under another epoch. INT64_MIN when
// `earlier` issued nothing before the bound; INT64_MAX when `later`'s time field runs out first.
int64_t above_earlier_unix_us(const Layout &earlier, int64_t bound_unix_us, const Layout &later) noexcept;

// The Unix time at which clock position `position` starts (the start of its tick).
int64_t unix_us_of(const Layout &layout, uint64_t position) noexcept;

// A Unix time at or after the end of every id `clock` has handed out under `layout` (positions
// are taken before ids are handed out, so this holds whatever is in flight).
int64_t issued_bound_unix_us(const Layout &layout, const LogicalClock &clock) noexcept;

// An issued id (logical_clock.hpp's Drawn): its end_unix_us is when its tick ends.
struct IdFields {
    int64_t id;
    int64_t unix_ms;  // the start of the id's tick
};
using Next = Drawn<IdFields>;

// Draws the next id for `node` at wall-clock time `now_unix_us`, running at most
// `max_lead_ms` ahead of it (whole ticks of it). Failures (kind failed, reason in *error): the node does not
// fit (not_attached), the time field is used up (exhausted). With `run`, from this session's run of positions
// (session_run.hpp).
Next next(LogicalClock *clock, const Layout &layout, int32_t node, int64_t now_unix_us, int64_t max_lead_ms,
          Status *error, PositionRun *run = nullptr) noexcept;

// A sequencer's clock in shared memory can be retired (the sequencer dropped) while other
// processes draw from it. `generation` is a word that changes when the clock is retired (and
// again when it is given to a new sequencer); a drawer reads it when it binds to the clock.
//
// next_in_generation draws like next(), but hands the id out only while *generation still
// equals `bound_generation`, the value the caller bound with; otherwise kind is `retired`
// (the position is lost; bind again).
Next next_in_generation(LogicalClock *clock, const uint64_t *generation, uint64_t bound_generation,
                        const Layout &layout, int32_t node, int64_t now_unix_us, int64_t max_lead_ms,
                        Status *error, PositionRun *run = nullptr) noexcept;

// Retires a clock: changes *generation, then returns a Unix time at or after the end of every
// id that next_in_generation has handed out or will still hand out under the old generation
// (the argument is beside the code). Whoever gives the clock to a new sequencer must start it
// at or above that bound.
int64_t retire(LogicalClock *clock, uint64_t *generation, const Layout &layout) noexcept;

// Retrospective ids (snowflake_at): namespace `lease` is reserved node id
// max_nodes - backfill_nodes + lease, so the namespaces of one session come in increasing node
// order; an offset is a counter value (2^counter_bits per tick and namespace).
// The tick the counters are kept per, as the Unix millisecond it starts at.
int64_t backfill_key(const Layout &layout, int64_t unix_us) noexcept;
uint64_t backfill_per_namespace(const Layout &layout) noexcept;

// In cluster mode namespaces are never recycled (registry_batch.hpp), so each reserved node
// id's counter values are cut into windows, each a namespace of its own: cluster namespace v is
// window v % windows of reserved node id v / windows (node-major, so that a server's count of
// whole reserved node ids, n, covers exactly the cluster namespaces below n * windows).
uint64_t cluster_backfill_windows(const Layout &layout) noexcept;  // per reserved node id
uint64_t cluster_backfill_namespaces(const Layout &layout) noexcept;
uint64_t cluster_backfill_per_namespace(const Layout &layout) noexcept;
// Nodes that backfill one sequencer at once without a shared counter, each numbered by a directory
// that never gives a number twice (a group): each takes one window of every reserved node id, its
// own number's, and counts the reserved node ids it used on its own. Window `group` of reserved
// node id `reserved` is cluster namespace reserved * windows + group; false when the group is past
// the windows (the layout's counter is too narrow to give it one).
bool group_backfill_namespace(const Layout &layout, uint64_t group, uint64_t reserved, uint64_t *v) noexcept;
// The namespace and offset of at() for `offset` of cluster namespace `v`.
void cluster_backfill_position(const Layout &layout, uint64_t v, uint64_t offset, uint64_t *lease,
                               uint64_t *node_offset) noexcept;

// The id at `offset` of namespace `lease` in the tick of `unix_us`. Errors: the time is
// before the epoch or past the time field (timestamp_out_of_range), the layout reserves no
// node ids (not_attached), the lease is past the reserved ones (exhausted).
Status at(const Layout &layout, int64_t unix_us, uint64_t lease, uint64_t offset, int64_t *id) noexcept;

}  // namespace idgen::snowflake
