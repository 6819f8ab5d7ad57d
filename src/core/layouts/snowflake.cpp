// Layout arithmetic and the draw of Snowflake ids.
#include "core/layouts/snowflake.hpp"

#include "core/base/arithmetic.hpp"
#include "core/base/atomic_word.hpp"

namespace idgen::snowflake {

int64_t runs_out_unix_ms(const Layout &layout) noexcept {
    return layout.epoch_unix_ms + (layout.max_ticks() + 1) * layout.tick_ms();
}

Status node_bits_for(Kind kind, int32_t max_nodes, int *node_bits) noexcept {
    const int32_t least = kind == Kind::sonyflake ? 65536 : kind == Kind::javascript ? 16 : 128;
    const int32_t most = kind == Kind::sonyflake ? 65536 : kind == Kind::javascript ? 512 : kMaxNodes;
    if (max_nodes < least || max_nodes > most) {
        if (least == most)
            return Status::error(Errc::invalid_parameter,
                                 "node count %d is not %d, the only one of the layout", max_nodes, least);
        return Status::error(Errc::invalid_parameter, "node count %d is outside %d..%d", max_nodes, least,
                             most);
    }
    int bits = 0;
    while ((int32_t{1} << bits) < max_nodes) bits++;
    *node_bits = bits;
    return Status::success();
}

int32_t default_max_nodes(Kind kind) noexcept {
    return kind == Kind::sonyflake ? 65536 : kind == Kind::javascript ? 64 : 8192;
}

// The ticks since the epoch of the tick holding `unix_us` (negative before the epoch). Both
// divisions floor, and the epoch is a whole millisecond, so this is floor((unix_us - epoch) /
// tick), without the subtraction that could overflow at an int64 extreme.
static int64_t ticks_of(const Layout &layout, int64_t unix_us) noexcept {
    return floor_div(floor_div(unix_us, 1000) - layout.epoch_unix_ms, layout.tick_ms());
}

// The Unix millisecond at which tick `ticks` starts.
static int64_t tick_start_ms(const Layout &layout, int64_t ticks) noexcept {
    return layout.epoch_unix_ms + ticks * layout.tick_ms();
}

Status check_epoch(const Layout &layout, int64_t epoch_unix_us, int64_t now_unix_us) noexcept {
    if (epoch_unix_us % 1000 != 0)
        return Status::error(Errc::invalid_parameter, "a sequencer epoch must be a whole millisecond");
    if (epoch_unix_us > now_unix_us)
        return Status::error(Errc::invalid_parameter, "a sequencer epoch must not be in the future");
    Layout at_epoch = layout;
    at_epoch.epoch_unix_ms = epoch_unix_us / 1000;
    if (ticks_of(at_epoch, now_unix_us) > at_epoch.max_ticks())
        return Status::error(
            Errc::invalid_parameter,
            "a sequencer epoch must be less than the layout's time field (2^%d ticks of %lld ms) ago",
            layout.time_bits(), static_cast<long long>(layout.tick_ms()));
    return Status::success();
}

bool node_fits(const Layout &layout, int32_t node) noexcept {
    return node >= 0 && node < layout.max_nodes() - layout.backfill_nodes;
}

Status check_backfill_nodes(const Layout &layout, int32_t backfill_nodes) noexcept {
    if (backfill_nodes < 0 || backfill_nodes >= layout.max_nodes())
        return Status::error(Errc::invalid_parameter, "reserved node count %d is outside 0..%d",
                             backfill_nodes, layout.max_nodes() - 1);
    return Status::success();
}

// The id of (ticks, node, counter), put together unsigned: in snowcast the top bit may be set.
static int64_t compose(const Layout &layout, uint64_t ticks, uint64_t node, uint64_t counter) noexcept {
    const uint64_t low =
        layout.node_lowest() ? counter << layout.node_bits | node : node << layout.counter_bits() | counter;
    return static_cast<int64_t>(ticks << layout.node_and_counter_bits() | low);
}

int64_t backfill_key(const Layout &layout, int64_t unix_us) noexcept {
    return tick_start_ms(layout, ticks_of(layout, unix_us));
}

uint64_t backfill_per_namespace(const Layout &layout) noexcept {
    return uint64_t{1} << layout.counter_bits();
}

uint64_t cluster_backfill_windows(const Layout &layout) noexcept {
    const uint64_t per_node = backfill_per_namespace(layout);
    return per_node < 64 ? per_node : 64;
}

uint64_t cluster_backfill_namespaces(const Layout &layout) noexcept {
    return static_cast<uint64_t>(layout.backfill_nodes) * cluster_backfill_windows(layout);
}

uint64_t cluster_backfill_per_namespace(const Layout &layout) noexcept {
    return backfill_per_namespace(layout) / cluster_backfill_windows(layout);
}

bool group_backfill_namespace(const Layout &layout, uint64_t group, uint64_t reserved, uint64_t *v) noexcept {
    const uint64_t windows = cluster_backfill_windows(layout);
    if (group >= windows) return false;
    *v = reserved * windows + group;
    return true;
}

void cluster_backfill_position(const Layout &layout, uint64_t v, uint64_t offset, uint64_t *lease,
                               uint64_t *node_offset) noexcept {
    const uint64_t windows = cluster_backfill_windows(layout);
    *lease = v / windows;
    *node_offset = (v % windows) * cluster_backfill_per_namespace(layout) + offset;
}

Status at(const Layout &layout, int64_t unix_us, uint64_t lease, uint64_t offset, int64_t *id) noexcept {
    const int64_t epoch_us = layout.epoch_unix_ms * 1000;
    // unix_us may be an int64 extreme (±infinity): compare before subtracting.
    if (unix_us < epoch_us)
        return Status::error(Errc::timestamp_out_of_range, "timestamp is before the sequencer's epoch");
    const int64_t ticks = ticks_of(layout, unix_us);
    if (ticks > layout.max_ticks())
        return Status::error(Errc::timestamp_out_of_range,
                             "timestamp is past the end of the sequencer's %d-bit time field",
                             layout.time_bits());
    if (layout.backfill_nodes == 0)
        return Status::error(Errc::not_attached, "the sequencer reserves no node ids for backfill");
    if (lease >= static_cast<uint64_t>(layout.backfill_nodes) || offset >= backfill_per_namespace(layout))
        return Status::error(Errc::exhausted, "all %d node ids reserved for backfill are used",
                             layout.backfill_nodes);
    const uint64_t node = static_cast<uint64_t>(layout.max_nodes() - layout.backfill_nodes) + lease;
    *id = compose(layout, static_cast<uint64_t>(ticks), node, offset);
    return Status::success();
}

Status decode(const Layout &layout, int64_t id, Parts *parts) noexcept {
    const uint64_t bits = static_cast<uint64_t>(id);
    if (layout.width() < 64 && bits >> layout.width() != 0)
        return Status::error(Errc::value_out_of_range,
                             layout.width() == 63
                                 ? "a Snowflake id is never negative in a layout that keeps the sign bit 0"
                                 : "a Snowflake id of this layout is below 2^%d",
                             layout.width());
    const int cb = layout.counter_bits();
    const uint64_t node_mask = (uint64_t{1} << layout.node_bits) - 1;
    const uint64_t counter_mask = (uint64_t{1} << cb) - 1;
    parts->unix_ms = tick_start_ms(layout, static_cast<int64_t>(bits >> layout.node_and_counter_bits()));
    parts->node = static_cast<int32_t>((layout.node_lowest() ? bits : bits >> cb) & node_mask);
    parts->counter =
        static_cast<int32_t>((layout.node_lowest() ? bits >> layout.node_bits : bits) & counter_mask);
    return Status::success();
}

Status min_id(const Layout &layout, int64_t unix_us, int64_t *id) noexcept {
    const int64_t ticks = ticks_of(layout, unix_us);
    if (ticks < 0) {
        *id = 0;
        return Status::success();
    }
    // The last millisecond of int64 microseconds has no end to name: out of range too.
    if (unix_us > INT64_MAX - 1000 || ticks > layout.max_ticks())
        return Status::error(Errc::timestamp_out_of_range,
                             "timestamp is past the end of the sequencer's %d-bit time field",
                             layout.time_bits());
    *id = compose(layout, static_cast<uint64_t>(ticks), 0, 0);
    return Status::success();
}

uint64_t position_after(const Layout &layout, int64_t horizon_unix_us) noexcept {
    // The first tick that starts at or after the horizon.
    const int64_t ms = floor_div(horizon_unix_us + 999, 1000) - layout.epoch_unix_ms;
    const int64_t ticks = floor_div(ms + layout.tick_ms() - 1, layout.tick_ms());
    return ticks <= 0 ? 0 : static_cast<uint64_t>(ticks) << layout.counter_bits();
}

int64_t above_earlier_unix_us(const Layout &earlier, int64_t bound_unix_us, const Layout &later) noexcept {
    // The last tick of `earlier` that starts before the bound (an id's tick ends at or before it).
    if (bound_unix_us <= INT64_MIN + 1000) return INT64_MIN;
    int64_t last_tick = ticks_of(earlier, bound_unix_us - 1);
    if (last_tick < 0) return INT64_MIN;
    if (last_tick > earlier.max_ticks()) last_tick = earlier.max_ticks();
    // Every id of earlier is below (last_tick + 1) << its node and counter bits (up to 2^64:
    // 128-bit arithmetic); the first tick of later at or above that, rounded up.
    using u128 = unsigned __int128;
    const u128 ids_below = static_cast<u128>(last_tick + 1) << earlier.node_and_counter_bits();
    const int shift = later.node_and_counter_bits();
    const u128 first_tick = (ids_below + ((u128{1} << shift) - 1)) >> shift;
    if (first_tick > static_cast<u128>(later.max_ticks())) return INT64_MAX;
    return tick_start_ms(later, static_cast<int64_t>(first_tick)) * 1000;
}

int64_t unix_us_of(const Layout &layout, uint64_t position) noexcept {
    return tick_start_ms(layout, static_cast<int64_t>(position >> layout.counter_bits())) * 1000;
}

int64_t issued_bound_unix_us(const Layout &layout, const LogicalClock &clock) noexcept {
    const uint64_t next_free = atomic_load(&clock.next_free);
    return tick_start_ms(layout, static_cast<int64_t>(next_free >> layout.counter_bits()) + 1) * 1000;
}

Next next(LogicalClock *clock, const Layout &layout, int32_t node, int64_t now_unix_us, int64_t max_lead_ms,
          Status *error, PositionRun *run) noexcept {
    if (!node_fits(layout, node))
        return Next::failed_with(
            error,
            Status::error(Errc::not_attached, "node id %d does not fit in the sequencer's %d node bits", node,
                          layout.node_bits));
    const int cb = layout.counter_bits();
    const int64_t tick = layout.tick_ms();
    const int64_t now = ticks_of(layout, now_unix_us);
    const int64_t limit_ticks = now + max_lead_ms / tick;
    // The wall clock so far before the epoch that no id may be issued:
    if (limit_ticks < 0) return Next::waiting(-now * tick);
    const uint64_t floor = now <= 0 ? 0 : static_cast<uint64_t>(now) << cb;
    const uint64_t limit = ((static_cast<uint64_t>(limit_ticks) + 1) << cb) - 1;
    const uint64_t max_position = ((static_cast<uint64_t>(layout.max_ticks()) + 1) << cb) - 1;

    const Draw d = draw_ordered(clock, run, floor, limit, max_position, uint64_t{1} << cb);
    const int64_t ticks = static_cast<int64_t>(d.position >> cb);
    if (d.outcome == Draw::Outcome::exhausted)
        return Next::failed_with(
            error, Status::error(Errc::exhausted, "the sequencer's %d-bit time field is used up",
                                 layout.time_bits()));
    if (d.outcome == Draw::Outcome::ahead) return Next::waiting((ticks - now) * tick);
    const uint64_t counter = d.position & ((uint64_t{1} << cb) - 1);
    const IdFields f{compose(layout, static_cast<uint64_t>(ticks), static_cast<uint64_t>(node), counter),
                     tick_start_ms(layout, ticks)};
    return Next::issued_with(f, (f.unix_ms + tick) * 1000);
}

// Why no id of a retired generation lies past the bound retire() returns. The drawer D, bound to
// generation g, does (1) X = fetch_add(next_free) inside next() and then (2) G = load(generation),
// and hands X out only if G == g. The retirer R does (a) fetch_add(generation), leaving it
// != g for good (generations only grow), and then (b) N = load(next_free), and the bound is
// the end of N's millisecond. All four are sequentially consistent (atomic_word.hpp), and
// every write of next_free during a generation is a read-modify-write that raises it, so in the
// one total order of these operations either
// - (1) comes before (b): (b) reads next_free at or after X + 1, so N > X and X's millisecond
//   ends at or before the bound; or
// - (b) comes before (1): then (a), before (b) in R, comes before (1) and so before (2), which
//   reads the changed generation: X is not handed out.
// Taking the bound first and changing the generation after it (as before) allows the third
// case: D passes (2) before (a) but takes X after (b), past the bound, and keeps it; a sequencer
// re-created on this node then starts at the bound and repeats X (snowflake_retire_test).
// With a run (idgen.ordering = 'session'), X may come from a run taken earlier by the add
// (1') of a previous call instead of by (1). (2) still follows (1') in D's order, so the same two
// cases hold with (1') for (1): either (1') comes before (b) and N > X, or (a) comes before (2)
// and X is dropped. A run outlives its generation only unused: the caller empties it when it
// binds the slot again.
// The position a drawer takes and then drops is simply never used; (1) and (2) cost what they
// did before: on x86-64 a sequentially consistent fetch_add is the same locked instruction and
// a sequentially consistent load the same plain load as the acquire/release ones.
Next next_in_generation(LogicalClock *clock, const uint64_t *generation, uint64_t bound_generation,
                        const Layout &layout, int32_t node, int64_t now_unix_us, int64_t max_lead_ms,
                        Status *error, PositionRun *run) noexcept {
    Next out = next(clock, layout, node, now_unix_us, max_lead_ms, error, run);           // (1)
    if (out.kind == Next::Kind::issued && atomic_load(generation) != bound_generation) {  // (2)
        out = Next{};
        out.kind = Next::Kind::retired;
    }
    return out;
}

int64_t retire(LogicalClock *clock, uint64_t *generation, const Layout &layout) noexcept {
    atomic_fetch_add(generation, 1);              // (a): no draw checked after this keeps its id
    return issued_bound_unix_us(layout, *clock);  // (b): covers every draw checked before it
}

}  // namespace idgen::snowflake
