// The registry's key segments and server names (core/registry/key_value.hpp): a name is one
// segment whatever it holds, and two running servers never share a name, also two cloned from
// one data directory.
#include <gtest/gtest.h>

#include "core/registry/key_value.hpp"

using namespace idgen::registry;

TEST(RegistryKeys, ANameIsOneSegment) {
    EXPECT_EQ(key_segment("orders"), "orders");
    EXPECT_EQ(key_segment("a/b%c"), "a%2Fb%25c");
    EXPECT_EQ(key_segment("%2F"), "%252F");  // an escape in the name is escaped itself
    EXPECT_NE(key_segment("a/b"), key_segment("a%2Fb"));
}

// Clones share the system identifier: on two hosts with one port, or on one host with two ports
// or two data directories (sockets only), their names differ; one server keeps its name.
TEST(RegistryKeys, ClonesOfOneDataDirectoryHaveNamesOfTheirOwn) {
    const uint64_t system = 7400000000000000001ULL;
    const std::string a = server_name(system, "db-a", 5432, "/var/lib/postgresql/15/main");
    EXPECT_NE(a, server_name(system, "db-b", 5432, "/var/lib/postgresql/15/main"));
    EXPECT_NE(a, server_name(system, "db-a", 5433, "/var/lib/postgresql/15/main"));
    EXPECT_NE(a, server_name(system, "db-a", 5432, "/srv/clone"));
    EXPECT_NE(a, server_name(system + 1, "db-a", 5432, "/var/lib/postgresql/15/main"));
    EXPECT_EQ(a, server_name(system, "db-a", 5432, "/var/lib/postgresql/15/main"));
    EXPECT_EQ(a.find('/'), std::string::npos) << a;
}
