# idgen: a PGXS build of a C++17 core (src/core, no PostgreSQL headers) and its
# PostgreSQL layer (src/pg), plus the unit, regression and TAP test targets.
EXTENSION = idgen
MODULE_big = idgen
EXTVERSION = $(shell grep default_version $(EXTENSION).control | sed -e "s/default_version[[:space:]]*=[[:space:]]*'\([^']*\)'/\1/")
# The current schema is one file, schema/idgen.sql; the build copies it to the install script of
# this version (pgvector's DATA_built). The update scripts in schema/updates/, and 0.1.0's install
# script there that the update tests start from, are installed as they are.
DATA_built = $(EXTENSION)--$(EXTVERSION).sql
DATA = $(wildcard schema/updates/$(EXTENSION)--*.sql)

# One folder per concern under each (CONTRIBUTING.md, Source layout); every include names its
# path from src/, so the folder shows in every #include.
CORE_SRCS = $(sort $(shell find src/core -name '*.cpp'))
CORE_HDRS = $(sort $(shell find src/core -name '*.hpp'))
PG_SRCS = $(sort $(shell find src/pg -name '*.cpp'))
OBJS = $(CORE_SRCS:.cpp=.o) $(PG_SRCS:.cpp=.o)

# The core and the wrappers are built without exceptions: nothing can be thrown, so nothing
# can unwind into PostgreSQL. -Wno-register: PG15's atomics headers. -Werror: a warning in the
# module fails the build on every compiler the tests use.
PG_CXXFLAGS = -std=c++17 -fno-exceptions -fno-rtti -Wno-register -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Werror
PG_CPPFLAGS += -Isrc
# Header dependencies: an object is rebuilt when a header it includes changes.
PG_CXXFLAGS += -MMD -MP
SHLIB_LINK += -lstdc++ -lcurl
# libpq: DROP SUBSCRIPTION and idgen_carry_state read the publisher's state (src/pg/moves/publisher_state.cpp).
PG_CPPFLAGS += -I$(shell $(PG_CONFIG) --includedir)
SHLIB_LINK += -L$(shell $(PG_CONFIG) --libdir) -lpq
# libcrypto: AES, the block cipher of the masking functions' FF1 (src/pg/masking/mask_keys.cpp; Debian: libssl-dev).
SHLIB_LINK += -lcrypto
# Test hooks (faults the TAP tests inject from the server's environment) are compiled only into
# test builds: make TEST_HOOKS=yes (scripts/test builds so). A release build reads no such variable.
ifeq ($(TEST_HOOKS),yes)
PG_CPPFLAGS += -DIDGEN_TEST_HOOKS
endif
# The version in the magic block (PostgreSQL 18: pg_get_loaded_modules(); src/pg/boundary/pg_compat.hpp).
PG_CPPFLAGS += -DIDGEN_VERSION='"$(EXTVERSION)"'

# pg_regress: sql/*.sql against expected/*.out on a throwaway server with idgen preloaded, in a
# UTF8 database whatever the caller's locale (under LANG=C it would be SQL_ASCII, where
# multibyte text in a message is cut differently).
REGRESS = $(sort $(basename $(notdir $(wildcard sql/*.sql))))
REGRESS_OPTS = --temp-instance=tmp_check_regress --temp-config=test/idgen-test.conf --encoding=UTF8

# TAP tests with PostgreSQL::Test::Cluster; helpers in test/lib. A file whose outcome does not
# depend on the PostgreSQL major (cluster mode against etcd, Patroni, a pooler, idgen's own shared
# memory under load) says so on a line "# One major per test run: <why>"; TAP_SCOPE=every-major
# leaves those out (scripts/test runs them on the first major of a run only).
PROVE_TESTS = $(sort $(wildcard test/tap/*.pl))
ifeq ($(TAP_SCOPE),every-major)
PROVE_TESTS = $(sort $(shell grep -L '^\# One major per test run:' test/tap/*.pl))
endif

EXTRA_CLEAN = tmp_check_regress results regression.diffs regression.out test/unit/run_unit_tests bench/clock_threads \
	test/unit/run_unit_tests_sanitized \
	$(OBJS:.o=.d)

# Debian compiles LLVM bitcode with clang-14 and without our C++ flags: no bitcode.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

$(EXTENSION)--$(EXTVERSION).sql: schema/$(EXTENSION).sql
	cp $< $@
-include $(OBJS:.o=.d)

# idgen in a directory of its own, for PostgreSQL 18's extension_control_path and
# dynamic_library_path, laid out as CloudNativePG's extension images (docs/operations.md,
# Installing from an extension directory): DIR/share/extension (the control file and every script
# make install installs), DIR/lib/idgen.so, and DIR/system, the shared libraries idgen.so needs
# that a server image lacks (scripts/image-volume-libs). DIR must be new or empty.
# Usage: make image-volume DIR=/path/to/dir PG_CONFIG=/path/to/pg_config
.PHONY: image-volume
image-volume: all
	@test -n '$(DIR)' || { echo 'make image-volume: name the directory: DIR=/path/to/dir' >&2; exit 2; }
	@test ! -e '$(DIR)' || test -z "$$(ls -A '$(DIR)')" || { echo 'make image-volume: $(DIR) is not empty' >&2; exit 2; }
	$(MKDIR_P) '$(DIR)/share/extension' '$(DIR)/lib'
	$(INSTALL_DATA) $(EXTENSION).control $(DATA) $(DATA_built) '$(DIR)/share/extension/'
	$(INSTALL_SHLIB) $(MODULE_big)$(DLSUFFIX) '$(DIR)/lib/'
	scripts/image-volume-libs '$(bindir)' '$(DIR)/lib/$(MODULE_big)$(DLSUFFIX)' '$(DIR)/system'

# Objects built against one PostgreSQL are no use to another, nor a test build's in a release:
# they depend on a stamp naming the server headers they were compiled with and whether test hooks
# are in, rewritten when PG_CONFIG names another major or TEST_HOOKS changes.
PG_BUILD_STAMP = .pg-build-stamp
PG_BUILD_ID := $(VERSION) $(includedir_server) test-hooks=$(TEST_HOOKS)
ifneq ($(PG_BUILD_ID),$(shell cat $(PG_BUILD_STAMP) 2>/dev/null))
$(shell echo '$(PG_BUILD_ID)' > $(PG_BUILD_STAMP))
endif
$(OBJS): $(PG_BUILD_STAMP)
EXTRA_CLEAN += $(PG_BUILD_STAMP)

# ---- The core's test builds (unit tests, sanitizers, fuzzing): each flavour's objects in
# build/FLAVOUR/, one per source with its header dependencies, so that make -jN compiles them
# side by side and a change recompiles what it touches. Built with no PostgreSQL include path
# at all, so a core file that includes a PostgreSQL header fails them.
UNIT_CXX ?= g++
UNIT_CXXFLAGS ?= -std=c++17 -O2 -g -Wall -Wextra -Werror -pthread
UNIT_SRCS = $(sort $(wildcard test/unit/*.cpp))
# AddressSanitizer and UndefinedBehaviorSanitizer; any report fails.
SANITIZE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

UNIT_OBJS = $(patsubst %.cpp,build/unit/%.o,$(CORE_SRCS) $(UNIT_SRCS))
SANITIZED_OBJS = $(patsubst %.cpp,build/unit-sanitized/%.o,$(CORE_SRCS) $(UNIT_SRCS))
$(UNIT_OBJS): FLAVOUR_CXX = $(UNIT_CXX) $(UNIT_CXXFLAGS)
$(SANITIZED_OBJS): FLAVOUR_CXX = $(UNIT_CXX) $(UNIT_CXXFLAGS) $(SANITIZE_FLAGS)
compile_flavour = @mkdir -p $(@D) && $(FLAVOUR_CXX) -MMD -MP -Isrc -c -o $@ $<
$(UNIT_OBJS): build/unit/%.o: %.cpp
	$(compile_flavour)
$(SANITIZED_OBJS): build/unit-sanitized/%.o: %.cpp
	$(compile_flavour)
EXTRA_CLEAN += build

test/unit/run_unit_tests: $(UNIT_OBJS)
	$(UNIT_CXX) $(UNIT_CXXFLAGS) -o $@ $^ -lgtest -lgtest_main -lcrypto -pthread

test/unit/run_unit_tests_sanitized: $(SANITIZED_OBJS)
	$(UNIT_CXX) $(UNIT_CXXFLAGS) $(SANITIZE_FLAGS) -o $@ $^ -lgtest -lgtest_main -lcrypto -pthread

# The shared clock word's contention without PostgreSQL, per thread count and ordering (a
# measurement, not a test: README, Benchmark).
bench/clock_threads: bench/clock_threads.cpp $(CORE_SRCS) $(CORE_HDRS)
	$(UNIT_CXX) -std=c++17 -O2 -Wall -Wextra -pthread -Isrc -o $@ bench/clock_threads.cpp $(CORE_SRCS)

.PHONY: unit unit-sanitized tap bench-clock
bench-clock: bench/clock_threads
	bench/clock_threads

unit: test/unit/run_unit_tests
	test/unit/run_unit_tests $(GTEST_FLAGS)

unit-sanitized: test/unit/run_unit_tests_sanitized
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 test/unit/run_unit_tests_sanitized $(GTEST_FLAGS)

# (Makefile.global resets PROVE_FLAGS, so it is set for this target only.) TAP_JOBS test files
# at a time: most of a TAP test's time is spent waiting on servers, so two at a time on two
# cores take about half as long (every test gets its own ports and directories).
TAP_JOBS ?= 2
tap: PROVE_FLAGS += -I test/lib -j$(TAP_JOBS) --timer
tap:
	$(prove_installcheck)

# ---- libFuzzer targets (test/fuzz): every core function that takes outside data, fed
# arbitrary bytes under ASan and UBSan, each target for FUZZ_SECONDS, starting from the seeds
# in test/fuzz/corpus/<target>. What the fuzzers add to the corpus and any crash input go to
# a temporary directory (kept, and named, when a target fails). Needs clang-14 with
# libclang-rt-14-dev (the fuzzer runtime).
FUZZ_CXX ?= clang++-14
FUZZ_CXXFLAGS ?= -std=c++17 -g -O1 -Wall -Wextra
FUZZ_SANITIZE = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SECONDS ?= 20
FUZZ_TARGETS = $(sort $(basename $(notdir $(wildcard test/fuzz/fuzz_*.cpp))))
FUZZ_BINS = $(addprefix test/fuzz/,$(FUZZ_TARGETS))
EXTRA_CLEAN += $(FUZZ_BINS)

# The core compiled once for every target (instrumented, without libFuzzer's main), each
# target's own source apart, and libFuzzer linked in last.
FUZZ_CORE_OBJS = $(patsubst %.cpp,build/fuzz/%.o,$(CORE_SRCS))
FUZZ_OBJS = $(FUZZ_CORE_OBJS) $(patsubst %,build/fuzz/test/fuzz/%.o,$(FUZZ_TARGETS))
$(FUZZ_OBJS): FLAVOUR_CXX = $(FUZZ_CXX) $(FUZZ_CXXFLAGS) $(subst fuzzer,fuzzer-no-link,$(FUZZ_SANITIZE))
$(FUZZ_OBJS): build/fuzz/%.o: %.cpp
	$(compile_flavour)

test/fuzz/fuzz_%: build/fuzz/test/fuzz/fuzz_%.o $(FUZZ_CORE_OBJS)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) $(FUZZ_SANITIZE) -o $@ $^

.PHONY: fuzz
fuzz: $(FUZZ_BINS)
	test/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

-include $(UNIT_OBJS:.o=.d) $(SANITIZED_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d)
