// Fuzz target for the Snowflake layout functions that SQL callers reach with values of their
// choosing: node_bits_for (max_nodes), check_epoch (a definition's epoch), decode (the
// snowflake_timestamp/_node/_counter decoders, any int8) and min_id (snowflake_min_id, any
// timestamptz, ±infinity included). The layout is made from the input too: 7 to 13 node bits,
// either width and any epoch from 1900 to 2262, so the arithmetic is tried with every layout a
// definition can have, and decode and min_id must agree with each other and with the id layout.
//
// Input (big-endian, missing bytes zero): node bits byte (its top bit: Width::bits64), epoch (8,
// reduced into the range), id (8), Unix microseconds (8), max_nodes (4), then for check_epoch a
// flags byte, the epoch (8) and the wall clock (8).
#include "core/layouts/snowflake.hpp"

#include "fuzz_support.hpp"

using namespace idgen;

// Epochs that check_epoch accepts with a wall clock anywhere from 1970 to the end of int64
// nanoseconds (2262): from 1970 less 2^41 ms (1900) to 2262.
static constexpr int64_t kEpochMinMs = -snowflake::kMaxMillis;
static constexpr int64_t kEpochMaxMs = INT64_MAX / 1000000;
// Unix microseconds of PostgreSQL's earliest finite timestamptz (4714-11-24 BC).
static constexpr int64_t kMinTimestamptzUnixUs = -211813488000000000 + 946684800000000;
// How many int64 values lie from there to INT64_MAX (computed in unsigned, where it fits).
static constexpr uint64_t kTimestamptzSpan =
    static_cast<uint64_t>(INT64_MAX) - static_cast<uint64_t>(kMinTimestamptzUnixUs) + 1;

static void check_node_bits(int32_t max_nodes) {
    int bits = -1;
    const Status s = snowflake::node_bits_for(max_nodes, &bits);
    FUZZ_CHECK(s.ok() == (max_nodes >= snowflake::kMinNodes && max_nodes <= snowflake::kMaxNodes));
    if (!s.ok()) {
        FUZZ_CHECK(s.code == Errc::invalid_parameter && bits == -1);
        return;
    }
    FUZZ_CHECK(bits >= 7 && bits <= 13);
    FUZZ_CHECK((int32_t{1} << bits) >= max_nodes && (int32_t{1} << (bits - 1)) < max_nodes);
    const snowflake::Layout l{0, bits};
    FUZZ_CHECK(snowflake::node_fits(l, max_nodes - 1) && !snowflake::node_fits(l, -1) &&
               !snowflake::node_fits(l, int32_t{1} << bits));
}

static void check_decode(const snowflake::Layout &l, int64_t id) {
    snowflake::Parts p{};
    const Status s = snowflake::decode(l, id, &p);
    if (id < 0 && l.width == snowflake::Width::bits63) {
        FUZZ_CHECK(!s.ok() && s.code == Errc::value_out_of_range);
        return;
    }
    FUZZ_CHECK(s.ok());
    const int cb = l.counter_bits();
    FUZZ_CHECK(p.node >= 0 && p.node < (int32_t{1} << l.node_bits));
    FUZZ_CHECK(snowflake::node_fits(l, p.node));
    FUZZ_CHECK(p.counter >= 0 && p.counter < (int32_t{1} << cb));
    const int64_t ms = p.unix_ms - l.epoch_unix_ms;
    FUZZ_CHECK(ms >= 0 && ms <= snowflake::kMaxMillis);
    FUZZ_CHECK((static_cast<uint64_t>(ms) << l.node_and_counter_bits() | static_cast<uint64_t>(p.node) << cb |
                static_cast<uint64_t>(p.counter)) == static_cast<uint64_t>(id));
}

static void check_min_id(const snowflake::Layout &l, int64_t unix_us) {
    int64_t id = -1;
    const Status s = snowflake::min_id(l, unix_us, &id);
    if (unix_us < l.epoch_unix_ms * 1000) {  // before the epoch: every id is at least 0
        FUZZ_CHECK(s.ok() && id == 0);
        return;
    }
    // The millisecond holding unix_us is its floor, as next() counts it.
    const int64_t unix_ms = fuzz::floor_div(unix_us, 1000);
    const int64_t ms = unix_ms - l.epoch_unix_ms;
    if (!s.ok()) {
        FUZZ_CHECK(s.code == Errc::timestamp_out_of_range);
        FUZZ_CHECK(ms > snowflake::kMaxMillis || unix_us > INT64_MAX - 1000);
        return;
    }
    FUZZ_CHECK(ms >= 0 && ms <= snowflake::kMaxMillis);
    FUZZ_CHECK(static_cast<uint64_t>(id) == static_cast<uint64_t>(ms) << l.node_and_counter_bits());
    // ...so it decodes to that millisecond, node 0, counter 0.
    snowflake::Parts p{};
    FUZZ_CHECK(snowflake::decode(l, id, &p).ok());
    FUZZ_CHECK(p.unix_ms == unix_ms && p.node == 0 && p.counter == 0);
}

// An epoch check_epoch accepts leaves room in the 41-bit field for the wall clock it was
// checked against: min_id of that moment succeeds.
static void check_epoch(int node_bits, snowflake::Width width, int64_t epoch_us, int64_t now_us) {
    const Status s = snowflake::check_epoch(epoch_us, now_us);
    if (!s.ok()) {
        FUZZ_CHECK(s.code == Errc::invalid_parameter);
        FUZZ_CHECK(epoch_us % 1000 != 0 || epoch_us > now_us ||
                   (now_us - epoch_us) / 1000 > snowflake::kMaxMillis);
        return;
    }
    FUZZ_CHECK(epoch_us % 1000 == 0 && epoch_us <= now_us);
    const snowflake::Layout l{epoch_us / 1000, node_bits, 0, width};
    int64_t id = -1;
    FUZZ_CHECK(snowflake::min_id(l, now_us, &id).ok() && (id >= 0 || width == snowflake::Width::bits64));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz::Reader in(data, size);
    const uint8_t layout_byte = in.u8();
    const int node_bits = 7 + (layout_byte & 0x7f) % 7;
    const snowflake::Width width = layout_byte & 0x80 ? snowflake::Width::bits64 : snowflake::Width::bits63;
    const uint64_t epoch_span = static_cast<uint64_t>(kEpochMaxMs - kEpochMinMs) + 1;
    const int64_t epoch_ms = kEpochMinMs + static_cast<int64_t>(in.u64() % epoch_span);
    const int64_t id = in.i64();
    const int64_t unix_us = in.i64();
    const int32_t max_nodes = in.i32();
    // check_epoch's arguments: a wall clock from 1970 to 2262 and a finite timestamptz,
    // which flag bit 0 puts within 2^42 ms before that clock and bit 1 on a whole millisecond.
    const uint8_t flags = in.u8();
    const uint64_t raw_epoch = in.u64();
    const int64_t now_us = static_cast<int64_t>(in.u64() % (static_cast<uint64_t>(INT64_MAX / 1000) + 1));
    int64_t check_epoch_us = flags & 1 ? now_us - static_cast<int64_t>(raw_epoch % (uint64_t{1000} << 42))
                                       : static_cast<int64_t>(static_cast<uint64_t>(kMinTimestamptzUnixUs) +
                                                              raw_epoch % kTimestamptzSpan);
    if (flags & 2) check_epoch_us -= (check_epoch_us % 1000 + 1000) % 1000;
    const snowflake::Layout layout{epoch_ms, node_bits, 0, width};
    FUZZ_CHECK(layout.counter_bits() == (width == snowflake::Width::bits64 ? 23 : 22) - node_bits);
    check_node_bits(max_nodes);
    check_decode(layout, id);
    check_min_id(layout, unix_us);
    check_epoch(node_bits, width, check_epoch_us, now_us);
    return 0;
}
