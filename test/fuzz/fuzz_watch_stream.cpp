// Fuzz target for the reader of etcd's watch stream (core/registry/watch_stream.hpp), which reads
// whatever bytes the network brings. Input: one byte, the size of the pieces (1..256), then the
// stream's bytes. Checks: no crash or undefined behaviour on any bytes; the same news whether
// the bytes come in one piece or in many; a stream that ended says why and hears nothing more;
// after reset() it reads a confirmation again.
#include <string>

#include "core/registry/watch_stream.hpp"

#include "fuzz_support.hpp"

using idgen::registry::WatchNews;
using idgen::registry::WatchStream;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const size_t piece = static_cast<size_t>(data[0]) + 1;
    const char *bytes = reinterpret_cast<const char *>(data + 1);
    const size_t n = size - 1;

    WatchStream whole;
    WatchNews at_once;
    whole.feed(bytes, n, &at_once);

    WatchStream pieces;
    WatchNews in_pieces;
    for (size_t at = 0; at < n; at += piece)
        pieces.feed(bytes + at, n - at < piece ? n - at : piece, &in_pieces);
    FUZZ_CHECK(at_once.created == in_pieces.created);
    FUZZ_CHECK(at_once.changed == in_pieces.changed);
    FUZZ_CHECK(at_once.ended == in_pieces.ended);
    FUZZ_CHECK(at_once.error == in_pieces.error);
    FUZZ_CHECK(at_once.ended == !at_once.error.empty());

    if (at_once.ended) {
        const std::string confirmation = "{\"result\":{\"created\":true}}\n";
        WatchNews after;
        whole.feed(confirmation.data(), confirmation.size(), &after);
        FUZZ_CHECK(!after.created && !after.changed && !after.ended);
        whole.reset();
        whole.feed(confirmation.data(), confirmation.size(), &after);
        FUZZ_CHECK(after.created && !after.ended);
    }
    return 0;
}
