// What the unit tests share: UUIDs as text, a generator driven from real threads, and a
// backfill counter table grown as the server grows it.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "core/backfill/backfill_allocator.hpp"
#include "core/base/uuid.hpp"

namespace idgen::test {

inline std::string uuid_text(const Uuid &u) {
    char buf[37];
    const uint8_t *b = u.bytes;
    std::snprintf(buf, sizeof buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                  b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    return buf;
}

// Runs body(thread_index, values) on `threads` threads at once, each appending what it drew to
// its own `values`; returns everything drawn.
template <typename T, typename Body>
std::vector<T> run_threads(int threads, Body body) {
    std::vector<std::vector<T>> got(threads);
    std::vector<std::thread> running;
    for (int t = 0; t < threads; t++) running.emplace_back([&, t] { body(t, got[t]); });
    for (auto &th : running) th.join();
    std::vector<T> all;
    for (auto &v : got) all.insert(all.end(), v.begin(), v.end());
    return all;
}

template <typename T>
bool all_distinct(std::vector<T> values) {
    std::sort(values.begin(), values.end());
    return std::adjacent_find(values.begin(), values.end()) == values.end();
}

// An allocator's counter table in a vector: call make_room before every take, as the server
// does (src/pg/backfill/backfill_sessions.cpp).
struct GrowingTable {
    std::vector<backfill::Entry> cells;
    explicit GrowingTable(uint32_t max_keys) : cells(backfill::first_cells(max_keys)) {}
    void make_room(backfill::Allocator *a) {
        if (const uint32_t wanted = backfill::cells_wanted(a)) {
            std::vector<backfill::Entry> bigger(wanted);
            backfill::grow(a, bigger.data());
            cells.swap(bigger);
        }
    }
};

}  // namespace idgen::test
