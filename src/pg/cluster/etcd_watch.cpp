// The registry worker's non-blocking watch on etcd: see etcd_watch.hpp.
#include "pg/cluster/etcd_watch.hpp"

#include <curl/curl.h>
#include <utility>

namespace idgen::pg::etcd {

namespace {
constexpr int64_t kRestNs = 1000000000;  // between the end of a stream and the next
}

Watch::Watch(Client &client, std::string from_key, std::string through_prefix)
    : client_(client),
      from_key_(std::move(from_key)),
      through_prefix_(std::move(through_prefix)),
      multi_(curl_multi_init()) {}

Watch::~Watch() {
    stop(0);
    if (multi_ != nullptr) curl_multi_cleanup(static_cast<CURLM *>(multi_));
}

bool Watch::start(registry::WatchNews *news) {
    CURL *easy = multi_ != nullptr ? curl_easy_init() : nullptr;
    if (easy == nullptr) {
        news->ended = true;
        news->error = "watch: libcurl could not be initialised";
        return false;
    }
    received_.clear();
    stream_.reset();
    if (!client_.prepare_watch(easy, from_key_, through_prefix_, &received_, &headers_)) {
        news->ended = true;
        news->error = "watch: " + client_.error();
        curl_slist_free_all(headers_);
        headers_ = nullptr;
        curl_easy_cleanup(easy);
        return false;
    }
    curl_multi_add_handle(static_cast<CURLM *>(multi_), easy);
    easy_ = easy;
    return true;
}

void Watch::stop(int64_t now_ns) {
    if (easy_ != nullptr) {
        curl_multi_remove_handle(static_cast<CURLM *>(multi_), static_cast<CURL *>(easy_));
        curl_easy_cleanup(static_cast<CURL *>(easy_));
        easy_ = nullptr;
    }
    curl_slist_free_all(headers_);
    headers_ = nullptr;
    start_at_ns_ = now_ns + kRestNs;
}

registry::WatchNews Watch::pump(int64_t now_ns) {
    registry::WatchNews news;
    if (easy_ == nullptr) {
        if (now_ns < start_at_ns_) return news;
        if (!start(&news)) {
            stop(now_ns);
            return news;
        }
    }
    int running = 0;
    curl_multi_perform(static_cast<CURLM *>(multi_), &running);
    if (!received_.empty()) {
        stream_.feed(received_.data(), received_.size(), &news);
        received_.clear();
    }
    if (running == 0 && !news.ended) {  // the response ended: etcd or the network closed it
        std::string why = "the stream closed";
        int left = 0;
        while (CURLMsg *m = curl_multi_info_read(static_cast<CURLM *>(multi_), &left))
            if (m->msg == CURLMSG_DONE && m->data.result != CURLE_OK)
                why = client_.stream_ended(m->data.result);
        news.ended = true;
        news.error = "watch: " + why;
    }
    if (news.ended) stop(now_ns);
    return news;
}

}  // namespace idgen::pg::etcd
