// etcd's v3 JSON gateway over libcurl: see etcd_client.hpp.
#include "pg/cluster/etcd_client.hpp"

#include <chrono>
#include <cstring>
#include <curl/curl.h>
#include <nlohmann/json.hpp>

namespace idgen::pg::etcd {

using nlohmann::json;
using registry::parse_int64;

namespace {

const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string b64(const std::string &in) {
    std::string out;
    uint32_t acc = 0;
    int bits = 0;
    for (unsigned char c : in) {
        acc = (acc << 8) | c;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out += kAlphabet[(acc >> bits) & 63];
        }
    }
    if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
    while (out.size() % 4 != 0) out += '=';
    return out;
}

bool unb64(const std::string &in, std::string *out) {
    out->clear();
    uint32_t acc = 0;
    int bits = 0;
    for (char c : in) {
        if (c == '=') break;
        const char *p = c ? std::strchr(kAlphabet, c) : nullptr;
        if (p == nullptr) return false;
        acc = (acc << 6) | static_cast<uint32_t>(p - kAlphabet);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            *out += static_cast<char>((acc >> bits) & 0xFF);
        }
    }
    return true;
}

// The key after every key starting with prefix (etcd's range_end for a prefix).
std::string prefix_end(std::string prefix) {
    while (!prefix.empty()) {
        if (static_cast<unsigned char>(prefix.back()) < 0xFF) {
            prefix.back() = static_cast<char>(prefix.back() + 1);
            return prefix;
        }
        prefix.pop_back();
    }
    return std::string(1, '\0');
}

// An int64 field, sent by the gateway as a JSON string (or a number); 0 when absent (proto3
// leaves zero values out).
bool int_field(const json &j, const char *name, int64_t *v) {
    *v = 0;
    const auto it = j.find(name);
    if (it == j.end()) return true;
    if (it->is_number_integer()) {
        *v = it->get<int64_t>();
        return true;
    }
    return it->is_string() && parse_int64(it->get_ref<const std::string &>(), v);
}

bool bool_field(const json &j, const char *name) {
    const auto it = j.find(name);
    return it != j.end() && it->is_boolean() && it->get<bool>();
}

bool kv_of(const json &j, KeyValue *kv) {
    if (!j.is_object()) return false;
    const auto k = j.find("key");
    if (k == j.end() || !k->is_string() || !unb64(k->get_ref<const std::string &>(), &kv->key)) return false;
    const auto v = j.find("value");
    kv->value.clear();
    if (v != j.end() && (!v->is_string() || !unb64(v->get_ref<const std::string &>(), &kv->value)))
        return false;
    return int_field(j, "lease", &kv->lease);
}

size_t collect(char *data, size_t size, size_t n, void *out) {
    static_cast<std::string *>(out)->append(data, size * n);
    return size * n;
}

json put_op(const std::string &key, const std::string &value, int64_t lease) {
    json put{{"key", b64(key)}, {"value", b64(value)}};
    if (lease != 0) put["lease"] = std::to_string(lease);
    return json{{"request_put", put}};
}

json value_is(const std::string &key, const std::string &value) {
    return json{{"key", b64(key)}, {"target", "VALUE"}, {"result", "EQUAL"}, {"value", b64(value)}};
}

json read_op(const std::string &key) {
    return json{{"request_range", json{{"key", b64(key)}}}};
}

int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

json absent(const std::string &key) {
    return json{{"key", b64(key)}, {"target", "CREATE"}, {"result", "EQUAL"}, {"create_revision", "0"}};
}

}  // namespace

Client::Client(const std::string &endpoints, const Credentials &credentials, long timeout_ms)
    : credentials_(credentials), timeout_ms_(timeout_ms) {
    size_t start = 0;
    while (start <= endpoints.size()) {
        size_t comma = endpoints.find(',', start);
        if (comma == std::string::npos) comma = endpoints.size();
        std::string url = endpoints.substr(start, comma - start);
        while (!url.empty() && url.front() == ' ') url.erase(0, 1);
        while (!url.empty() && (url.back() == ' ' || url.back() == '/')) url.pop_back();
        if (!url.empty()) endpoints_.push_back(url);
        start = comma + 1;
    }
    curl_ = curl_easy_init();
}

Client::~Client() {
    if (curl_ != nullptr) curl_easy_cleanup(static_cast<CURL *>(curl_));
}

// Sets up a request of `body` to `url` on the handle: the reply appended to *reply, TLS files,
// the token in *headers (the caller frees them after the transfer). timeout_ms bounds the
// whole request, or only its connection when 0 (a stream).
void Client::prepare(void *easy, const std::string &url, const std::string &body, std::string *reply,
                     long timeout_ms, struct curl_slist **headers) const {
    CURL *curl = static_cast<CURL *>(easy);
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM of libcurl's in a PostgreSQL process
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms_);
    curl_easy_setopt(curl, CURLOPT_COPYPOSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, reply);
    // TLS: the peer and its name are always verified (libcurl's defaults, never turned off).
    if (!credentials_.cacert.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, credentials_.cacert.c_str());
    if (!credentials_.cert.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERT, credentials_.cert.c_str());
    if (!credentials_.key.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY, credentials_.key.c_str());
    if (!token_.empty()) *headers = curl_slist_append(*headers, ("Authorization: " + token_).c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, *headers);
}

long Client::perform(const std::string &url, const std::string &body, std::string *reply, int *curl_code) {
    CURL *curl = static_cast<CURL *>(curl_);
    reply->clear();
    struct curl_slist *headers = nullptr;
    prepare(curl, url, body, reply, timeout_ms_, &headers);
    char detail[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, detail);
    *curl_code = curl_easy_perform(curl);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
    transport_detail_ = detail;
    curl_slist_free_all(headers);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

bool Client::prepare_watch(void *easy, const std::string &from_key, const std::string &through_prefix,
                           std::string *sink, struct curl_slist **headers) {
    if (endpoints_.empty()) {
        error_ = "no etcd endpoint";
        return false;
    }
    if (!may_ask()) return false;
    refused_ = false;
    if (!authenticate()) {
        if (refused_) refusals_.refused(steady_ns());
        return false;
    }
    const json create{
        {"create_request", json{{"key", b64(from_key)}, {"range_end", b64(prefix_end(through_prefix))}}}};
    // etcd ends the watch when this member loses its leader (gRPC metadata through the gateway):
    // a member cut off from its peers must not keep a watch open that hears of nothing.
    *headers = curl_slist_append(*headers, "Grpc-Metadata-hasleader: true");
    prepare(easy, endpoints_[current_] + "/v3/watch", create.dump(), sink, 0, headers);
    CURL *curl = static_cast<CURL *>(easy);
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);  // a peer gone silently: found in some 20 s (9 probes)
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPIDLE, 2L);
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPINTVL, 2L);
    return true;
}

// etcd answers a request whose token it no longer knows (expired, or a member restarted) with
// "invalid auth token" (HTTP 401 through the gateway): the token is taken anew, once.
static bool token_refused(long status, const std::string &reply) {
    return status == 401 || reply.find("invalid auth token") != std::string::npos;
}

// Over https, libcurl 7.88 reports a member that refuses this server's client certificate as a
// handshake failure, or (TLS 1.3, HTTP/2: the refusal comes after the handshake) as a failure to
// send, to receive, or in the HTTP/2 framing, at random; the other codes are this server's own
// TLS files or etcd's certificate.
bool Client::refused_handshake(int rc) const {
    bool tls = false;
    for (const std::string &url : endpoints_) tls = tls || url.rfind("https://", 0) == 0;
    switch (static_cast<CURLcode>(rc)) {
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_HTTP2:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CACERT_BADFILE:
            return tls;
        default:
            return false;
    }
}

// The cause first (idgen_registry.last_error holds 255 bytes), then libcurl's message and its
// detail (the certificate's fault, when OpenSSL named it).
std::string Client::transport_error(int rc) const {
    std::string cause;
    if (refused_handshake(rc)) switch (static_cast<CURLcode>(rc)) {
            case CURLE_PEER_FAILED_VERIFICATION:
                cause =
                    "etcd's certificate is not trusted (not signed by the CA of idgen.registry_cacert, or "
                    "not for this address)";
                break;
            case CURLE_SSL_CACERT_BADFILE:
                cause = "idgen.registry_cacert cannot be read as a CA certificate";
                break;
            case CURLE_SSL_CERTPROBLEM:
                cause = "idgen.registry_cert or idgen.registry_key cannot be used";
                break;
            default:
                cause =
                    "etcd refused the TLS handshake: this server's client certificate is expired, from "
                    "another CA, or missing";
        }
    std::string text = curl_easy_strerror(static_cast<CURLcode>(rc));
    if (!transport_detail_.empty() && transport_detail_ != text) text += " (" + transport_detail_ + ")";
    return cause.empty() ? text : cause + " [libcurl: " + text + "]";
}

std::string Client::stream_ended(int rc) {
    if (refused_handshake(rc)) refusals_.refused(steady_ns());
    transport_detail_.clear();
    return transport_error(rc);
}

// No request goes out while etcd's last refusal says wait: error_ still says why.
bool Client::may_ask() {
    return refusals_.ready(steady_ns());
}

// etcd checks a password with bcrypt, and the worker asks many times a second: a refused
// authentication is a refusal (refusal_backoff.hpp).
bool Client::authenticate() {
    if (credentials_.user.empty() || !token_.empty()) return true;
    const std::string body = json{{"name", credentials_.user}, {"password", credentials_.password}}.dump();
    std::string reply;
    int rc = 0;
    const long status = perform(endpoints_[current_] + "/v3/auth/authenticate", body, &reply, &rc);
    const json r = json::parse(reply, nullptr, false);
    if (rc == CURLE_OK && status == 200 && r.is_object() && r.contains("token") && r["token"].is_string()) {
        token_ = r["token"].get<std::string>();
        return true;
    }
    refused_ = rc == CURLE_OK || refused_handshake(rc);  // refused, not unreachable
    error_ = endpoints_[current_] + ": authenticating as etcd user \"" + credentials_.user + "\": " +
             (rc != CURLE_OK ? transport_error(rc)
                             : "HTTP " + std::to_string(status) + " " + reply.substr(0, 200));
    return false;
}

// Each endpoint in turn until one answers. When every one refused (none was merely unreachable),
// the next request waits (refusal_backoff.hpp).
bool Client::post(const std::string &path, const std::string &body, std::string *reply) {
    if (curl_ == nullptr || endpoints_.empty()) {
        error_ = curl_ == nullptr ? "libcurl could not be initialised" : "no etcd endpoint";
        return false;
    }
    if (!may_ask()) return false;
    bool all_refused = true;
    for (size_t tried = 0; tried < endpoints_.size(); tried++) {
        int rc = CURLE_OK;
        long status = 0;
        bool authenticated = true;
        refused_ = false;
        for (int attempt = 0; attempt < 2; attempt++) {
            authenticated = authenticate();
            if (!authenticated) break;
            status = perform(endpoints_[current_] + path, body, reply, &rc);
            if (rc == CURLE_OK && status == 200 && !token_refused(status, *reply)) {
                refusals_.answered();
                return true;
            }
            if (rc != CURLE_OK || token_.empty() || !token_refused(status, *reply)) break;
            token_.clear();  // refused: authenticate again and repeat the request once
        }
        if (authenticated) {  // (otherwise error_ says why authenticating failed)
            refused_ = refused_handshake(rc);
            error_ = endpoints_[current_] + ": " +
                     (rc != CURLE_OK ? transport_error(rc)
                                     : "HTTP " + std::to_string(status) + " " + reply->substr(0, 200));
        }
        all_refused = all_refused && refused_;
        current_ = (current_ + 1) % endpoints_.size();
        token_.clear();  // a simple token is one member's: the next member needs its own
    }
    if (all_refused) refusals_.refused(steady_ns());
    return false;
}

bool Client::call(const std::string &path, const json &body, json *out) {
    std::string reply;
    if (!post(path, body.dump(), &reply)) return false;
    *out = json::parse(reply, nullptr, false);
    if (out->is_discarded() || !out->is_object()) {
        error_ = path + ": not a JSON object: " + reply.substr(0, 200);
        return false;
    }
    if (out->contains("error")) {
        error_ = path + ": " + reply.substr(0, 200);
        return false;
    }
    // The revision of a key-value answer (linearizable: at least that of every answer before it,
    // unless etcd forgot); lease answers may come from a member that lags, so they do not count.
    const auto header = out->find("header");
    int64_t revision = 0;
    if (path.compare(0, 7, "/v3/kv/") == 0 && header != out->end() && header->is_object() &&
        int_field(*header, "revision", &revision))
        revisions_.saw(revision);
    return true;
}

bool Client::grant(int64_t ttl_s, int64_t *lease, int64_t *granted_ttl_s) {
    json r;
    if (!call("/v3/lease/grant", (json{{"TTL", std::to_string(ttl_s)}}), &r)) return false;
    if (!int_field(r, "ID", lease) || !int_field(r, "TTL", granted_ttl_s) || *lease == 0) {
        error_ = "lease grant: unexpected answer " + r.dump();
        return false;
    }
    return true;
}

bool Client::keep_alive(int64_t lease, int64_t *ttl_s) {
    json r;
    if (!call("/v3/lease/keepalive", (json{{"ID", std::to_string(lease)}}), &r)) return false;
    const auto result = r.find("result");
    if (result == r.end() || !result->is_object() || !int_field(*result, "TTL", ttl_s)) {
        error_ = "lease keepalive: unexpected answer " + r.dump();
        return false;
    }
    return true;
}

bool Client::revoke(int64_t lease) {
    json r;
    return call("/v3/lease/revoke", (json{{"ID", std::to_string(lease)}}), &r);
}

// A create whose answer was lost may have been applied, and is then tried again on the next
// endpoint: the key found holding our own value (the caller's identity, unique per lease) was
// created by us.
bool Client::create(const std::string &key, const std::string &value, int64_t lease, bool *created) {
    json r;
    const json txn{{"compare", json::array({absent(key)})},
                   {"success", json::array({put_op(key, value, lease)})},
                   {"failure", json::array({read_op(key)})}};
    if (!call("/v3/kv/txn", txn, &r)) return false;
    *created = bool_field(r, "succeeded");
    std::string current;
    if (!*created && !failure_value(r, &current)) return false;
    *created = *created || current == value;
    return true;
}

bool Client::put_if(const std::string &guard, const std::string &guard_value, const std::string &key,
                    const std::string &value, bool *done) {
    json r;
    const json txn{{"compare", json::array({value_is(guard, guard_value)})},
                   {"success", json::array({put_op(key, value, 0)})}};
    if (!call("/v3/kv/txn", txn, &r)) return false;
    *done = bool_field(r, "succeeded");
    return true;
}

bool Client::put_all_if(const std::vector<std::string> &guards, const std::string &guard_value,
                        const std::vector<std::string> &keys, const std::string &value, bool *done) {
    json compare = json::array(), success = json::array();
    for (const std::string &g : guards) compare.push_back(value_is(g, guard_value));
    for (const std::string &k : keys) success.push_back(put_op(k, value, 0));
    json r;
    if (!call("/v3/kv/txn", json{{"compare", compare}, {"success", success}}, &r)) return false;
    *done = bool_field(r, "succeeded");
    return true;
}

bool Client::swap(const std::string &key, const std::string &expected, bool expect_absent,
                  const std::string &value, bool *done, std::string *current) {
    json r;
    const json txn{{"compare", json::array({expect_absent ? absent(key) : value_is(key, expected)})},
                   {"success", json::array({put_op(key, value, 0)})},
                   {"failure", json::array({read_op(key)})}};
    if (!call("/v3/kv/txn", txn, &r)) return false;
    *done = bool_field(r, "succeeded");
    current->clear();
    return *done || failure_value(r, current);
}

// The value a failed txn's one read (read_op) found: responses[0].response_range.kvs[0].value,
// "" when the key is absent.
bool Client::failure_value(const json &r, std::string *current) {
    current->clear();
    const auto responses = r.find("responses");
    if (responses == r.end() || !responses->is_array() || responses->empty()) return true;
    const auto range = (*responses)[0].find("response_range");
    if (range == (*responses)[0].end() || !range->is_object()) return true;
    const auto kvs = range->find("kvs");
    if (kvs == range->end() || !kvs->is_array() || kvs->empty()) return true;
    KeyValue kv;
    if (!kv_of((*kvs)[0], &kv)) {
        error_ = "txn: unexpected key-value " + (*kvs)[0].dump();
        return false;
    }
    *current = kv.value;
    return true;
}

bool Client::remove_if(const std::string &key, const std::string &value) {
    json r;
    const json txn{{"compare", json::array({value_is(key, value)})},
                   {"success", json::array({json{{"request_delete_range", json{{"key", b64(key)}}}}})}};
    return call("/v3/kv/txn", txn, &r);
}

bool Client::get(const std::string &key, bool *found, std::string *value) {
    json r;
    if (!call("/v3/kv/range", (json{{"key", b64(key)}}), &r)) return false;
    *found = false;
    const auto list = r.find("kvs");
    if (list == r.end()) return true;
    KeyValue kv;
    if (!list->is_array() || list->empty() || !kv_of((*list)[0], &kv)) {
        error_ = "range: unexpected answer " + r.dump();
        return false;
    }
    *found = true;
    *value = kv.value;
    return true;
}

bool Client::range(const std::string &prefix, std::vector<KeyValue> *out) {
    json r;
    if (!call("/v3/kv/range", (json{{"key", b64(prefix)}, {"range_end", b64(prefix_end(prefix))}}), &r))
        return false;
    out->clear();
    const auto list = r.find("kvs");
    if (list == r.end()) return true;
    if (!list->is_array()) {
        error_ = "range: unexpected answer " + r.dump();
        return false;
    }
    for (const json &item : *list) {
        KeyValue kv;
        if (!kv_of(item, &kv)) {
            error_ = "range: unexpected key-value " + item.dump();
            return false;
        }
        out->push_back(std::move(kv));
    }
    return true;
}

}  // namespace idgen::pg::etcd
