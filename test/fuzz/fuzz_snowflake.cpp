// Fuzz target for the Snowflake layout functions that SQL callers reach with values of their
// choosing: node_bits_for (max_nodes), check_epoch (a definition's epoch), decode (the
// snowflake_timestamp/_node/_counter decoders, any int8) and min_id (snowflake_min_id, any
// timestamptz, ±infinity included). The layout is made from the input too: every kind with every
// node count it allows and any epoch from 1900 to 2262, so the arithmetic is tried with every
// layout a definition can have, and decode and min_id must agree with each other and with the id
// layout (time field, then node and counter in the kind's order, within the kind's width).
//
// Input (big-endian, missing bytes zero): layout byte (kind and node bits), epoch (8, reduced
// into the range), id (8), Unix microseconds (8), max_nodes (4), then for check_epoch a flags
// byte, the epoch (8) and the wall clock (8).
#include "core/layouts/snowflake.hpp"

#include "fuzz_support.hpp"

using namespace idgen;

// Epochs that check_epoch accepts with a wall clock anywhere from 1970 to the end of int64
// nanoseconds (2262): from 1970 less 2^41 ms (1900) to 2262 (Sonyflake's longer field accepts
// older epochs too; these are enough to try its arithmetic).
static constexpr int64_t kEpochMinMs = -((int64_t{1} << 41) - 1);
static constexpr int64_t kEpochMaxMs = INT64_MAX / 1000000;
// Unix microseconds of PostgreSQL's earliest finite timestamptz (4714-11-24 BC).
static constexpr int64_t kMinTimestamptzUnixUs = -211813488000000000 + 946684800000000;
// How many int64 values lie from there to INT64_MAX (computed in unsigned, where it fits).
static constexpr uint64_t kTimestamptzSpan =
    static_cast<uint64_t>(INT64_MAX) - static_cast<uint64_t>(kMinTimestamptzUnixUs) + 1;

// The node counts node_bits_for accepts for each kind (snowflake.hpp).
static void node_range(snowflake::Kind kind, int32_t *least, int32_t *most) {
    *least = kind == snowflake::Kind::sonyflake ? 65536 : kind == snowflake::Kind::javascript ? 16 : 128;
    *most = kind == snowflake::Kind::sonyflake ? 65536 : kind == snowflake::Kind::javascript ? 512 : 8192;
}

static void check_node_bits(snowflake::Kind kind, int32_t max_nodes) {
    int bits = -1;
    int32_t least = 0, most = 0;
    node_range(kind, &least, &most);
    const Status s = snowflake::node_bits_for(kind, max_nodes, &bits);
    FUZZ_CHECK(s.ok() == (max_nodes >= least && max_nodes <= most));
    if (!s.ok()) {
        FUZZ_CHECK(s.code == Errc::invalid_parameter && bits == -1);
        return;
    }
    FUZZ_CHECK((int32_t{1} << bits) >= max_nodes && (int32_t{1} << (bits - 1)) < max_nodes);
    const snowflake::Layout l{0, bits, 0, kind};
    FUZZ_CHECK(l.counter_bits() >= 3);
    FUZZ_CHECK(snowflake::node_fits(l, max_nodes - 1) && !snowflake::node_fits(l, -1) &&
               !snowflake::node_fits(l, int32_t{1} << bits));
}

static void check_decode(const snowflake::Layout &l, int64_t id) {
    snowflake::Parts p{};
    const Status s = snowflake::decode(l, id, &p);
    if (l.width() < 64 && static_cast<uint64_t>(id) >> l.width() != 0) {
        FUZZ_CHECK(!s.ok() && s.code == Errc::value_out_of_range);
        return;
    }
    FUZZ_CHECK(s.ok());
    const int cb = l.counter_bits();
    FUZZ_CHECK(p.node >= 0 && p.node < (int32_t{1} << l.node_bits));
    FUZZ_CHECK(snowflake::node_fits(l, p.node));
    FUZZ_CHECK(p.counter >= 0 && p.counter < (int32_t{1} << cb));
    const int64_t ms = p.unix_ms - l.epoch_unix_ms;
    FUZZ_CHECK(ms >= 0 && ms % l.tick_ms() == 0 && ms / l.tick_ms() <= l.max_ticks());
    const uint64_t node = static_cast<uint64_t>(p.node), counter = static_cast<uint64_t>(p.counter);
    const uint64_t low = l.node_lowest() ? counter << l.node_bits | node : node << cb | counter;
    FUZZ_CHECK((static_cast<uint64_t>(ms / l.tick_ms()) << l.node_and_counter_bits() | low) ==
               static_cast<uint64_t>(id));
}

static void check_min_id(const snowflake::Layout &l, int64_t unix_us) {
    int64_t id = -1;
    const Status s = snowflake::min_id(l, unix_us, &id);
    if (unix_us < l.epoch_unix_ms * 1000) {  // before the epoch: every id is at least 0
        FUZZ_CHECK(s.ok() && id == 0);
        return;
    }
    // The tick holding unix_us is its floor, as next() counts it.
    const int64_t ticks = fuzz::floor_div(fuzz::floor_div(unix_us, 1000) - l.epoch_unix_ms, l.tick_ms());
    if (!s.ok()) {
        FUZZ_CHECK(s.code == Errc::timestamp_out_of_range);
        FUZZ_CHECK(ticks > l.max_ticks() || unix_us > INT64_MAX - 1000);
        return;
    }
    FUZZ_CHECK(ticks >= 0 && ticks <= l.max_ticks());
    FUZZ_CHECK(static_cast<uint64_t>(id) == static_cast<uint64_t>(ticks) << l.node_and_counter_bits());
    // ...so it decodes to that tick, node 0, counter 0.
    snowflake::Parts p{};
    FUZZ_CHECK(snowflake::decode(l, id, &p).ok());
    FUZZ_CHECK(p.unix_ms == l.epoch_unix_ms + ticks * l.tick_ms() && p.node == 0 && p.counter == 0);
    FUZZ_CHECK(l.width() == 64 || id >= 0);
}

// An epoch check_epoch accepts leaves room in the layout's time field for the wall clock it was
// checked against: min_id of that moment succeeds.
static void check_epoch_of(snowflake::Layout l, int64_t epoch_us, int64_t now_us) {
    const Status s = snowflake::check_epoch(l, epoch_us, now_us);
    if (!s.ok()) {
        FUZZ_CHECK(s.code == Errc::invalid_parameter);
        FUZZ_CHECK(epoch_us % 1000 != 0 || epoch_us > now_us ||
                   (now_us - epoch_us) / 1000 / l.tick_ms() > l.max_ticks());
        return;
    }
    FUZZ_CHECK(epoch_us % 1000 == 0 && epoch_us <= now_us);
    l.epoch_unix_ms = epoch_us / 1000;
    int64_t id = -1;
    FUZZ_CHECK(snowflake::min_id(l, now_us, &id).ok() && (id >= 0 || l.kind == snowflake::Kind::snowcast));
    FUZZ_CHECK(snowflake::runs_out_unix_ms(l) * 1000 > now_us);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz::Reader in(data, size);
    const uint8_t layout_byte = in.u8();
    const snowflake::Kind kind = static_cast<snowflake::Kind>(layout_byte % 4);
    int32_t least = 0, most = 0;
    node_range(kind, &least, &most);
    int least_bits = 0;
    while ((int32_t{1} << least_bits) < least) least_bits++;
    int most_bits = 0;
    while ((int32_t{1} << most_bits) < most) most_bits++;
    const int node_bits = least_bits + (layout_byte / 4) % (most_bits - least_bits + 1);
    const uint64_t epoch_span = static_cast<uint64_t>(kEpochMaxMs - kEpochMinMs) + 1;
    const int64_t epoch_ms = kEpochMinMs + static_cast<int64_t>(in.u64() % epoch_span);
    const int64_t id = in.i64();
    const int64_t unix_us = in.i64();
    const int32_t max_nodes = in.i32();
    // check_epoch's arguments: a wall clock from 1970 to 2262 and a finite timestamptz,
    // which flag bit 0 puts within 2^42 ticks before that clock and bit 1 on a whole millisecond.
    const uint8_t flags = in.u8();
    const uint64_t raw_epoch = in.u64();
    const int64_t now_us = static_cast<int64_t>(in.u64() % (static_cast<uint64_t>(INT64_MAX / 1000) + 1));
    const snowflake::Layout layout{epoch_ms, node_bits, 0, kind};
    int64_t check_epoch_us =
        flags & 1 ? now_us - static_cast<int64_t>(raw_epoch %
                                                  (static_cast<uint64_t>(layout.tick_ms() * 1000) << 42))
                  : static_cast<int64_t>(static_cast<uint64_t>(kMinTimestamptzUnixUs) +
                                         raw_epoch % kTimestamptzSpan);
    if (flags & 2) check_epoch_us -= (check_epoch_us % 1000 + 1000) % 1000;
    FUZZ_CHECK(layout.time_bits() + node_bits + layout.counter_bits() == layout.width());
    check_node_bits(kind, max_nodes);
    check_decode(layout, id);
    check_min_id(layout, unix_us);
    check_epoch_of(layout, check_epoch_us, now_us);
    return 0;
}
