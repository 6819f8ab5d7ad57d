// etcd's watch stream as the JSON gateway sends it (watch_stream.hpp), fed in pieces: the
// confirmation, events, messages split anywhere and several in one piece, and every way the
// stream ends (an error object, a cancel, a compaction, an unreadable line, a line too long).
#include <gtest/gtest.h>
#include <string>

#include "core/registry/watch_stream.hpp"

using idgen::registry::WatchNews;
using idgen::registry::WatchStream;

namespace {

const std::string kCreated =
    R"({"result":{"header":{"cluster_id":"1","member_id":"2","revision":"1","raft_term":"2"},"created":true}})"
    "\n";
const std::string kPut =
    R"({"result":{"header":{"revision":"2"},"events":[{"kv":{"key":"L2Mvbm9kZS94","mod_revision":"2","value":"MQ=="}}]}})"
    "\n";
const std::string kDelete =
    R"({"result":{"header":{"revision":"4"},"events":[{"type":"DELETE","kv":{"key":"L2Mvbm9kZS94","mod_revision":"4"}}]}})"
    "\n";

WatchNews feed(WatchStream *s, const std::string &bytes) {
    WatchNews news;
    s->feed(bytes.data(), bytes.size(), &news);
    return news;
}

TEST(WatchStream, ConfirmedThenChanges) {
    WatchStream s;
    WatchNews n = feed(&s, kCreated);
    EXPECT_TRUE(n.created);
    EXPECT_FALSE(n.changed);
    EXPECT_FALSE(n.ended);
    n = feed(&s, kPut);
    EXPECT_FALSE(n.created);
    EXPECT_TRUE(n.changed);
    EXPECT_TRUE(feed(&s, kDelete).changed);
    EXPECT_FALSE(feed(&s, R"({"result":{"header":{"revision":"5"}}})"
                          "\n")
                     .changed)
        << "a progress note is no change";
}

TEST(WatchStream, MessagesSplitAnywhereAndSeveralInOnePiece) {
    const std::string all = kCreated + kPut;
    for (size_t cut = 0; cut <= all.size(); cut++) {
        WatchStream s;
        WatchNews n;
        s.feed(all.data(), cut, &n);
        s.feed(all.data() + cut, all.size() - cut, &n);
        EXPECT_TRUE(n.created && n.changed && !n.ended) << "cut at " << cut;
    }
    WatchStream s;
    EXPECT_FALSE(feed(&s, kPut.substr(0, kPut.size() - 1)).changed) << "not before its line ends";
    EXPECT_TRUE(feed(&s, "\n").changed);
}

TEST(WatchStream, EveryEnd) {
    const std::string ends[] = {
        R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader","http_status":"Service Unavailable"}})"
        "\n",
        R"({"result":{"header":{"revision":"9"},"canceled":true,"cancel_reason":"etcdserver: no leader"}})"
        "\n",
        R"({"result":{"header":{"revision":"9"},"compact_revision":"7"}})"
        "\n",
        "<html>502 Bad Gateway</html>\n",
        "[1,2]\n",
        R"({"result":"created"})"
        "\n",
    };
    for (const std::string &end : ends) {
        WatchStream s;
        WatchNews n = feed(&s, kCreated + end + kPut);
        EXPECT_TRUE(n.created) << end;
        EXPECT_TRUE(n.ended) << end;
        EXPECT_FALSE(n.error.empty()) << end;
        EXPECT_FALSE(n.changed) << "nothing is read after the end: " << end;
        EXPECT_FALSE(feed(&s, kPut).changed) << end;
    }
    WatchStream s;
    EXPECT_NE(feed(&s, kCreated + R"({"error":{"message":"etcdserver: no leader"}})"
                                  "\n")
                  .error.find("no leader"),
              std::string::npos);
}

TEST(WatchStream, ALineTooLongEndsIt) {
    WatchStream s;
    const std::string chunk(1 << 20, 'x');
    WatchNews n;
    for (int i = 0; i < 5 && !n.ended; i++) s.feed(chunk.data(), chunk.size(), &n);
    EXPECT_TRUE(n.ended);
}

TEST(WatchStream, AResetStreamReadsAgain) {
    WatchStream s;
    EXPECT_TRUE(feed(&s, "garbage\n").ended);
    s.reset();
    EXPECT_TRUE(feed(&s, kCreated).created);
}

}  // namespace
