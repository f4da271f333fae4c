// The CPU signature in every record (machine.cpu_signature): read from the
// first processor's block of /proc/cpuinfo, whatever the padding of its
// field names, and "unknown" where the kernel prints no family or model.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "report/machine.hpp"

using namespace uts;

namespace {
std::string signature(const std::string& text) {
  std::istringstream in(text);
  return cpu_signature_of(in);
}
}  // namespace

TEST_CASE("cpu_signature_of: vendor, family, model and stepping of the first processor") {
  const std::string zen5 =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
      "model name\t: AMD EPYC\nstepping\t: 1\nflags\t\t: fpu sha_ni\n\n"
      "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\nstepping\t: 8\n\n";
  CHECK(signature(zen5) == "AuthenticAMD family 26 model 2 stepping 1");
  // "model name" is not "model", in either order.
  CHECK(signature("model name\t: X\ncpu family\t: 25\nmodel\t\t: 17\n") == "family 25 model 17");
  CHECK(signature("cpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC 9654\n") == "family 25 model 17");
  // The second processor's fields never fill in the first's.
  CHECK(signature("processor\t: 0\ncpu family\t: 6\n\nprocessor\t: 1\nmodel\t\t: 85\n") == "unknown");
}

TEST_CASE("cpu_signature_of: unknown without a family and a model") {
  // An arm64 kernel's fields.
  CHECK(signature("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n") ==
        "unknown");
  CHECK(signature("") == "unknown");
  CHECK(signature("cpu family\t: 6\n") == "unknown");
  CHECK(signature("cpu family\t:\nmodel\t\t: 3\n") == "unknown");
}
