// How often a server asks etcd again after etcd refused it: a TLS handshake it will not complete
// (this server's client certificate expired, from another CA, or missing; etcd's certificate not
// signed by the CA this server trusts) or a password it rejects. Asking again at once costs etcd
// a full handshake or a bcrypt check each time, and a log line, for nothing: the refusal stands
// until an administrator changes a file or a setting. An expired certificate across a fleet would
// otherwise load the etcd that Patroni lives on with tens of handshakes a second per server.
//
// The first refusal waits kFirstNs, each refusal after it twice the last wait, up to kCapNs; any
// answer starts again from the first. Nothing here keeps ids apart: a server that etcd refuses
// holds no lease, or loses the one it holds, and issues nothing under a node id either way;
// the wait only delays how soon it is back once the cause is fixed (kCapNs at the most).
#pragma once

#include <algorithm>
#include <cstdint>

namespace idgen::registry {

class RefusalBackoff {
public:
    static constexpr int64_t kFirstNs = 1000000000;
    static constexpr int64_t kCapNs = 30000000000;

    // Whether a request may go out at now_ns.
    bool ready(int64_t now_ns) const noexcept { return wait_ns_ == 0 || now_ns >= retry_at_ns_; }
    // etcd refused a request made at now_ns.
    void refused(int64_t now_ns) noexcept {
        wait_ns_ = wait_ns_ == 0 ? kFirstNs : std::min(kCapNs, wait_ns_ * 2);
        retry_at_ns_ = now_ns + wait_ns_;
    }
    // etcd answered.
    void answered() noexcept { wait_ns_ = 0; }
    int64_t wait_ns() const noexcept { return wait_ns_; }

private:
    int64_t wait_ns_ = 0;  // 0: no refusal since the last answer
    int64_t retry_at_ns_ = 0;
};

}  // namespace idgen::registry
