// The unit-test binary's main: doctest's own, which runs every TEST_CASE
// linked in.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
