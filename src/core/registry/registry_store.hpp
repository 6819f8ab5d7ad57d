// The registry as cluster mode's rules use it: a store of keys, some living under a lease, whose
// writes are conditional on what a guard key holds, so that a server that lost a key can no
// longer write in its name. In the server it is etcd (src/pg/cluster/etcd_client.hpp); in the
// unit tests a model in memory that loses answers, fails requests and revokes leases on demand.
//
// Every call returns false when the registry did not answer: the request may or may not have
// been applied, and the rules must be right either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/registry/key_value.hpp"

namespace idgen::registry {

// How many keys one transaction may guard and write: etcd refuses a transaction with more than
// --max-txn-ops (default 128) compares or operations.
constexpr size_t kMaxTxnKeys = 128;

class RegistryStore {
public:
    virtual ~RegistryStore() = default;

    // Creates key = value under the lease if no key exists; *created says whether it did (or the
    // key already holds `value`: our own create, applied but its answer lost).
    virtual bool create(const std::string &key, const std::string &value, int64_t lease, bool *created) = 0;
    // Puts key = value (no lease) if `guard` still holds `guard_value`; *done says whether.
    virtual bool put_if(const std::string &guard, const std::string &guard_value, const std::string &key,
                        const std::string &value, bool *done) = 0;
    // Puts keys[i] = value (no lease) for every i, in one transaction, if every guards[i] still
    // holds `guard_value`; *done says whether (all or none). At most kMaxTxnKeys keys.
    virtual bool put_all_if(const std::vector<std::string> &guards, const std::string &guard_value,
                            const std::vector<std::string> &keys, const std::string &value, bool *done) = 0;
    // Puts key = value (no lease) if the key's value is still `expected` (expect_absent: the key
    // must not exist); *done says whether, and *current holds the value found otherwise ("" when
    // absent).
    virtual bool swap(const std::string &key, const std::string &expected, bool expect_absent,
                      const std::string &value, bool *done, std::string *current) = 0;
    // Deletes key if it still holds `value`.
    virtual bool remove_if(const std::string &key, const std::string &value) = 0;
    virtual bool get(const std::string &key, bool *found, std::string *value) = 0;
    virtual bool range(const std::string &prefix, std::vector<KeyValue> *out) = 0;
};

}  // namespace idgen::registry
