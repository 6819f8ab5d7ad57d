// A small client of etcd's v3 JSON gateway (POST /v3/..., keys and values base64, int64 fields
// as JSON strings), for the registry worker only: every call blocks on the network for up to
// its timeout, so no backend ever calls it. Built on libcurl and nlohmann-json (Debian's
// libcurl4-openssl-dev and nlohmann-json3-dev); no PostgreSQL header, no exception (the module
// is built with -fno-exceptions: JSON is parsed without them and every field is checked).
//
// Endpoints are tried in turn, starting with the one that answered last, so one member down
// costs one timeout and the next call goes straight to a live member.
//
// A production etcd: https:// endpoints checked against a CA file (else the system's store),
// a client certificate and key for etcd's --client-cert-auth, and etcd's user authentication
// (a token from /v3/auth/authenticate, sent with every request and taken anew when etcd says it
// is no longer valid: tokens expire, and a restarted member forgets simple tokens). When etcd
// refuses this server (a TLS handshake, a password), requests and watches wait as
// refusal_backoff.hpp says.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

struct curl_slist;

#include "core/registry/refusal_backoff.hpp"
#include "core/registry/registry_generation.hpp"
#include "core/registry/registry_store.hpp"

namespace idgen::pg::etcd {

using KeyValue = registry::KeyValue;

// How to reach etcd beyond its URLs; an empty field is not used.
struct Credentials {
    std::string cacert;  // PEM file of the CA that signed the members' certificates
    std::string cert;    // PEM file of this client's certificate (--client-cert-auth)
    std::string key;     // PEM file of its private key
    std::string user;    // etcd user (auth enabled)
    std::string password;
};

class Client : public registry::RegistryStore {
public:
    // endpoints: "http://host:port" or "https://host:port" URLs, comma separated; timeout_ms per
    // request.
    Client(const std::string &endpoints, const Credentials &credentials, long timeout_ms);
    ~Client();
    Client(const Client &) = delete;
    Client &operator=(const Client &) = delete;

    // Each call: false on a transport or protocol error (error() says which).
    bool grant(int64_t ttl_s, int64_t *lease, int64_t *granted_ttl_s);
    bool keep_alive(int64_t lease, int64_t *ttl_s);  // *ttl_s 0: the lease is gone
    bool revoke(int64_t lease);
    // The registry's calls (registry_store.hpp says what each does).
    bool create(const std::string &key, const std::string &value, int64_t lease, bool *created) override;
    bool put_if(const std::string &guard, const std::string &guard_value, const std::string &key,
                const std::string &value, bool *done) override;
    bool put_all_if(const std::vector<std::string> &guards, const std::string &guard_value,
                    const std::vector<std::string> &keys, const std::string &value, bool *done) override;
    bool swap(const std::string &key, const std::string &expected, bool expect_absent,
              const std::string &value, bool *done, std::string *current) override;
    bool remove_if(const std::string &key, const std::string &value) override;
    bool get(const std::string &key, bool *found, std::string *value) override;
    bool range(const std::string &prefix, std::vector<KeyValue> *out) override;

    const std::string &error() const { return error_; }
    // The revisions of the key-value answers (the registry's generation:
    // core/registry/registry_generation.hpp, Revisions).
    int64_t last_revision() const { return revisions_.last; }
    int64_t highest_revision() const { return revisions_.highest; }
    void start_revisions(int64_t from) { revisions_.start(from); }
    bool went_back() const { return revisions_.went_back(); }
    int64_t take_revision_for_look() { return revisions_.take_for_look(); }

    // For etcd_watch.hpp: sets up the libcurl handle `easy` to stream a watch of every key from
    // from_key through those starting with through_prefix, from the endpoint that answered last,
    // into *sink (headers: as prepare's). False (error()) when no token could be had.
    bool prepare_watch(void *easy, const std::string &from_key, const std::string &through_prefix,
                       std::string *sink, struct curl_slist **headers);
    // For etcd_watch.hpp: how a watch's stream ended (libcurl's code): a refused handshake counts
    // as a refusal of every request. The text to show for it.
    std::string stream_ended(int curl_code);

private:
    void prepare(void *easy, const std::string &url, const std::string &body, std::string *reply,
                 long timeout_ms, struct curl_slist **headers) const;
    bool post(const std::string &path, const std::string &body, std::string *reply);
    // One request to the current endpoint: the curl code and HTTP status, the reply.
    long perform(const std::string &url, const std::string &body, std::string *reply, int *curl_code);
    // A token for the user (when one is set and none is held); false with error_ otherwise.
    bool authenticate();
    std::string transport_error(int curl_code) const;
    // Whether a libcurl code means etcd (or this server's own TLS files) refused the handshake.
    bool refused_handshake(int curl_code) const;
    bool may_ask();  // false (error() says why) while refusals_ says wait
    // post() and parse: false (with error_) on a transport error, bad JSON or an error object.
    bool call(const std::string &path, const nlohmann::json &body, nlohmann::json *out);
    bool failure_value(const nlohmann::json &r, std::string *current);

    std::vector<std::string> endpoints_;
    Credentials credentials_;
    std::string token_;  // etcd's auth token, "" while none is held
    registry::RefusalBackoff refusals_;
    bool refused_ = false;  // the last request or authentication was refused (not unanswered)
    size_t current_ = 0;
    long timeout_ms_;
    void *curl_;
    std::string error_;
    std::string transport_detail_;  // libcurl's error buffer of the last request
    registry::Revisions revisions_;
};

}  // namespace idgen::pg::etcd
