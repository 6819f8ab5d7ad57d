// The registry worker's watch on etcd: one streaming request to the JSON gateway's /v3/watch on
// a libcurl handle of its own, driven by a multi handle so that the worker never waits on the
// stream: pump() reads what arrived and returns at once (the worker's rounds come at least every
// 100 ms). Starting a stream may wait on one request, as any of the worker's: the token, when
// etcd's authentication is on and none is held.
// What the news mean for the worker is core/registry/look_schedule.hpp's; how the stream is read,
// core/registry/watch_stream.hpp's. A stream that ended (or could not start) is started again a
// second later on the endpoint the etcd client answered from last, which moves on when a member
// fails the client's requests; etcd itself ends a watch whose member lost its leader.
#pragma once

#include <cstdint>
#include <string>

#include "core/registry/watch_stream.hpp"

#include "pg/cluster/etcd_client.hpp"

namespace idgen::pg::etcd {

class Watch {
public:
    // A watch of every key from from_key through those starting with through_prefix.
    Watch(Client &client, std::string from_key, std::string through_prefix);
    ~Watch();
    Watch(const Watch &) = delete;
    Watch &operator=(const Watch &) = delete;

    // What arrived since the last call; starts the stream when none runs and its second of rest
    // is over (news.ended, with the reason, when it cannot start or just ended).
    registry::WatchNews pump(int64_t now_ns);

private:
    bool start(registry::WatchNews *news);
    void stop(int64_t now_ns);

    Client &client_;
    std::string from_key_, through_prefix_;
    void *multi_ = nullptr;
    void *easy_ = nullptr;  // the stream's handle while one runs
    struct curl_slist *headers_ = nullptr;
    std::string received_;  // bytes libcurl wrote since the last pump
    registry::WatchStream stream_;
    int64_t start_at_ns_ = 0;  // no new stream before (monotonic)
};

}  // namespace idgen::pg::etcd
