// The syntax of idgen.registry: what a server refuses to start with.
#include <gtest/gtest.h>

#include "core/registry/registry_endpoints.hpp"

namespace idgen::registry {
namespace {

TEST(RegistryEndpoints, ValidListsPass) {
    for (const char *ok : {"", "http://127.0.0.1:2379", "https://etcd-1.example.com:2379/",
                           "http://a:2379, http://b:2379 ,https://[::1]:2379", "HTTPS://Etcd:2379",
                           "http://a:2379,,http://b:2379"})
        EXPECT_EQ(nullptr, endpoints_problem(ok)) << ok;
}

TEST(RegistryEndpoints, MalformedListsAreRefused) {
    for (const char *bad :
         {"not a url", "127.0.0.1:2379", "ftp://a:2379", "http://", "http:///x", "http://a b:2379",
          "http://a:2379,etcd:2379", " , ", "http://a:2379/pa th", "https://host\t:1"})
        EXPECT_NE(nullptr, endpoints_problem(bad)) << bad;
}

}  // namespace
}  // namespace idgen::registry
