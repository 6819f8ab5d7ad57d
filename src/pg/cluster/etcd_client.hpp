// A small client of etcd's v3 JSON gateway (POST /v3/..., keys and values base64, int64 fields
// as JSON strings), for the registry worker only: every call blocks on the network for up to
// its timeout, so no backend ever calls it. Built on libcurl and nlohmann-json (Debian's
// libcurl4-openssl-dev and nlohmann-json3-dev); no PostgreSQL header, no exception (the module
// is built with -fno-exceptions: JSON is parsed without them and every field is checked).
//
// Endpoints are tried in turn, starting with the one that answered last, so one member down
// costs one timeout and the next call goes straight to a live member.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace idgen::pg::etcd {

struct KeyValue {
    std::string key;
    std::string value;
    int64_t lease = 0;
};

// A whole decimal int64 (etcd's int64 fields, the values idgen stores); false otherwise.
bool parse_int64(const std::string &text, int64_t *v);

class Client {
public:
    // endpoints: "http://host:port" URLs, comma separated; timeout_ms per request.
    Client(const std::string &endpoints, long timeout_ms);
    ~Client();
    Client(const Client &) = delete;
    Client &operator=(const Client &) = delete;

    // Each call: false on a transport or protocol error (error() says which).
    bool grant(int64_t ttl_s, int64_t *lease, int64_t *granted_ttl_s);
    bool keep_alive(int64_t lease, int64_t *ttl_s);  // *ttl_s 0: the lease is gone
    bool revoke(int64_t lease);
    // Creates key = value under the lease if no key exists; *created says whether it did (or the
    // key already holds `value`: our own create, applied but its answer lost).
    bool create(const std::string &key, const std::string &value, int64_t lease, bool *created);
    // Puts key = value (no lease) if `guard` still holds `guard_value`; *done says whether.
    bool put_if(const std::string &guard, const std::string &guard_value, const std::string &key,
                const std::string &value, bool *done);
    // Puts key = value (no lease) if the key's value is still `expected` ("" and *absent*: the
    // key must not exist); *done says whether, and *current holds the value found otherwise.
    bool swap(const std::string &key, const std::string &expected, bool expect_absent, const std::string &value,
              bool *done, std::string *current);
    // Deletes key if it still holds `value`.
    bool remove_if(const std::string &key, const std::string &value);
    bool get(const std::string &key, bool *found, std::string *value);
    bool range(const std::string &prefix, std::vector<KeyValue> *out);

    const std::string &error() const { return error_; }

private:
    bool post(const std::string &path, const std::string &body, std::string *reply);
    // post() and parse: false (with error_) on a transport error, bad JSON or an error object.
    bool call(const std::string &path, const nlohmann::json &body, nlohmann::json *out);
    bool failure_value(const nlohmann::json &r, std::string *current);

    std::vector<std::string> endpoints_;
    size_t current_ = 0;
    long timeout_ms_;
    void *curl_;
    std::string error_;
};

}  // namespace idgen::pg::etcd
