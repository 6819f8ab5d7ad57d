// A key as the registry (etcd in cluster mode) holds it: what a range read returns, and what
// the registry's rules (node_choice.hpp) judge; how a name becomes one segment of a key; and the
// one format of the numbers idgen stores there (horizons, counters) and etcd's int64 fields.
#pragma once

#include <cstdint>
#include <string>

namespace idgen::registry {

struct KeyValue {
    std::string key;
    std::string value;
    int64_t lease = 0;  // the registry lease it lives under (0: none)
};

// A whole decimal int64; false otherwise (nothing is guessed from a value that is not one).
bool parse_int64(const std::string &text, int64_t *v);

// `name` as one segment of a key: '%' and '/' escaped as %25 and %2F.
std::string key_segment(const std::string &name);

// A server's name in the registry's keys (the servers that seeded a forgotten registry are
// counted by it): what tells apart two running servers, also two cloned from one data directory
// (one system identifier), whether on two hosts with one port or on one host with two ports or
// socket directories. One key segment.
std::string server_name(uint64_t system_identifier, const std::string &host, int port,
                        const std::string &data_directory);

}  // namespace idgen::registry
