// A key as the registry (etcd in cluster mode) holds it: what a range read returns, and what
// the registry's rules (node_choice.hpp) judge; and the one format of the numbers idgen stores
// there (horizons, counters) and etcd's int64 fields.
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

}  // namespace idgen::registry
