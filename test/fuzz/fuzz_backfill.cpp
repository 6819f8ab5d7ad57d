// Fuzz target for retrospective ids, whose inputs SQL callers choose: any timestamptz (±infinity
// included) and node for uuid_v1_at, any timestamptz and sequencer layout for snowflake_at, and
// any order and repetition of timestamps for the per-session allocator.
// Checks: every UUID made carries exactly its microsecond, never the live clock sequence, and
// the node asked for (or an automatic 03: node); every Snowflake id decodes to the millisecond
// and a reserved node; and across an arbitrary key sequence through a tiny table (so it is
// cleared often), no (key, namespace, offset) comes out twice.
//
// Input (big-endian, missing bytes zero): Unix microseconds (8), node (8), live clock sequence
// (2), lease (8), offset (8), node bits byte, backfill nodes (2), epoch (8, reduced into the
// range); then the allocator's key stream: table size byte, per-namespace byte, then keys as
// single bytes (a small alphabet, so keys repeat).
#include <set>
#include <tuple>

#include "core/backfill/backfill_allocator.hpp"
#include "core/backfill/uuid_v1_backfill.hpp"
#include "core/layouts/snowflake.hpp"
#include "core/layouts/uuid_v1.hpp"

#include "fuzz_support.hpp"

using namespace idgen;

static void check_uuid(int64_t unix_us, uint64_t node, uint64_t lease, uint64_t offset) {
    Uuid u;
    const bool given = (node & 1) != 0;  // one input bit picks the variant
    const Status s =
        given ? uuid_v1::backfill::make_given(unix_us, node >> 16, lease, offset, &u)
              : uuid_v1::backfill::make_auto(unix_us, static_cast<int32_t>(node % 9000), lease, offset, &u);
    if (!s.ok()) {
        FUZZ_CHECK(s.code == Errc::timestamp_out_of_range || s.code == Errc::exhausted ||
                   s.code == Errc::not_attached || s.code == Errc::invalid_parameter);
        if (s.code == Errc::timestamp_out_of_range)
            FUZZ_CHECK(unix_us < uuid_v1::kMinUnixMicros || unix_us >= uuid_v1::kMaxUnixMicros);
        return;
    }
    uuid_v1::Fields f;
    FUZZ_CHECK(uuid_v1::decode(u, &f));
    FUZZ_CHECK(uuid_v1::unix_micros_from_ticks(f.ticks) == unix_us);
    FUZZ_CHECK(f.clock_seq != 16383);  // used by no retrospective UUID
    if (given)
        FUZZ_CHECK(f.node == (node >> 16) && !uuid_v1::backfill::reserved_node(f.node) &&
                   static_cast<uint64_t>(f.clock_seq) == lease);
    else
        FUZZ_CHECK(uuid_v1::backfill::reserved_node(f.node) && (f.node & ((uint64_t{1} << 27) - 1)) == lease);
}

static void check_snowflake(int64_t unix_us, int node_bits, int32_t backfill_nodes, int64_t epoch_ms,
                            uint64_t lease, uint64_t offset) {
    const snowflake::Layout l{epoch_ms, node_bits, backfill_nodes};
    int64_t id = -1;
    const Status s = snowflake::at(l, unix_us, lease, offset, &id);
    if (!s.ok()) {
        FUZZ_CHECK(s.code == Errc::timestamp_out_of_range || s.code == Errc::exhausted ||
                   s.code == Errc::not_attached);
        return;
    }
    snowflake::Parts p{};
    FUZZ_CHECK(snowflake::decode(l, id, &p).ok());
    FUZZ_CHECK(p.unix_ms == fuzz::floor_div(unix_us, 1000));
    FUZZ_CHECK(p.node >= l.max_nodes() - backfill_nodes && !snowflake::node_fits(l, p.node));
    FUZZ_CHECK(static_cast<uint64_t>(p.counter) == offset);
}

static void check_allocator(fuzz::Reader &r) {
    backfill::Entry table[64];
    uint64_t held[8];
    const uint32_t max_keys = 1 + r.u8() % 16;  // cells_for(16) = 32 cells: fits the table
    const uint64_t per_namespace = 1 + r.u8() % 8;
    backfill::Allocator a;
    backfill::init(&a, table, max_keys, per_namespace, held, 8);
    std::set<std::tuple<int64_t, uint64_t, uint64_t>> seen;
    uint64_t next_lease = 0;
    while (r.more()) {
        const int64_t key = r.u8() % 40;
        const backfill::Take t = backfill::take(&a, key);
        uint64_t ns = 0;
        bool full = false;
        while (!full && !backfill::held_namespace(&a, t.index, &ns))
            full = !backfill::hold(&a, next_lease++).ok();
        if (full) continue;  // the window is full: no id from this position, as in the server
        FUZZ_CHECK(t.offset < per_namespace);
        FUZZ_CHECK(seen.emplace(key, ns, t.offset).second);
    }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz::Reader r(data, size);
    const int64_t unix_us = r.i64();
    const uint64_t node = r.u64();
    const uint64_t lease = r.u64() % (uint64_t{1} << 28);
    const uint64_t offset = r.u64() % 200000;
    const int node_bits = 7 + r.u8() % 7;
    const int32_t backfill_nodes = static_cast<int32_t>(r.u32() >> 16) % (int32_t{1} << node_bits);
    const int64_t epoch_ms = static_cast<int64_t>(r.u64() % (uint64_t{1} << 43)) - (int64_t{1} << 42);
    check_uuid(unix_us, node, lease, offset);
    check_snowflake(unix_us, node_bits, backfill_nodes, epoch_ms, lease % 64, offset % 40000);
    check_allocator(r);
    return 0;
}
