// A model of the registry for the unit tests of its rules: keys, some under a lease, that a
// revoke deletes; creates that also accept a key already holding the creator's value, writes
// conditional on a guard key or on the value they replace, as etcd's transactions in cluster
// mode are; and, on demand, a request that fails before it is applied or whose answer is lost
// after it was, and a hook run as a request arrives, for another server's write to come first.
#pragma once

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "core/registry/registry_store.hpp"

namespace idgen::registry::fakes {

class FakeRegistry : public RegistryStore {
public:
    struct Entry {
        std::string value;
        int64_t lease;
    };
    std::map<std::string, Entry> keys;
    int requests = 0;                 // requests received so far
    std::function<void()> on_remove;  // called as a delete arrives (to check what precedes it)
    std::function<void()> on_swap;    // called as a compare-and-swap arrives (another server's write first)

    // The request after the next n fails: not applied, no answer.
    void fail_after(int n) { fail_request_ = requests + n + 1; }
    // The request after the next n is applied, and its answer lost.
    void lose_answer_after(int n) { lose_request_ = requests + n + 1; }

    void revoke(int64_t lease) {
        for (auto it = keys.begin(); it != keys.end();)
            it = it->second.lease == lease ? keys.erase(it) : std::next(it);
    }
    std::string value_of(const std::string &key) const {
        auto it = keys.find(key);
        return it == keys.end() ? "" : it->second.value;
    }

    bool create(const std::string &key, const std::string &value, int64_t lease, bool *created) override {
        if (failed()) return false;
        auto [it, inserted] = keys.emplace(key, Entry{value, lease});
        *created = inserted || it->second.value == value;
        return answered();
    }
    bool put_if(const std::string &guard, const std::string &guard_value, const std::string &key,
                const std::string &value, bool *done) override {
        if (failed()) return false;
        *done = value_of(guard) == guard_value && keys.count(guard);
        if (*done) keys[key] = Entry{value, 0};
        return answered();
    }
    bool put_all_if(const std::vector<std::string> &guards, const std::string &guard_value,
                    const std::vector<std::string> &ks, const std::string &value, bool *done) override {
        if (failed()) return false;
        EXPECT_LE(guards.size(), kMaxTxnKeys);
        *done = std::all_of(guards.begin(), guards.end(), [&](const std::string &g) {
            return keys.count(g) && value_of(g) == guard_value;
        });
        if (*done)
            for (const std::string &k : ks) keys[k] = Entry{value, 0};
        return answered();
    }
    bool swap(const std::string &key, const std::string &expected, bool expect_absent,
              const std::string &value, bool *done, std::string *current) override {
        if (on_swap) on_swap();
        if (failed()) return false;
        *done = expect_absent ? !keys.count(key) : keys.count(key) && value_of(key) == expected;
        current->clear();
        if (*done)
            keys[key] = Entry{value, 0};
        else
            *current = value_of(key);
        return answered();
    }
    bool remove_if(const std::string &key, const std::string &value) override {
        if (on_remove) on_remove();
        if (failed()) return false;
        if (keys.count(key) && value_of(key) == value) keys.erase(key);
        return answered();
    }
    bool get(const std::string &key, bool *found, std::string *value) override {
        if (failed()) return false;
        *found = keys.count(key) > 0;
        *value = value_of(key);
        return answered();
    }
    bool range(const std::string &prefix, std::vector<KeyValue> *out) override {
        if (failed()) return false;
        out->clear();
        for (const auto &[k, e] : keys)
            if (k.compare(0, prefix.size(), prefix) == 0) out->push_back(KeyValue{k, e.value, e.lease});
        return answered();
    }

private:
    bool failed() { return ++requests == fail_request_; }
    bool answered() const { return requests != lose_request_; }

    int fail_request_ = 0;
    int lose_request_ = 0;
};

}  // namespace idgen::registry::fakes
