// base/printable.hpp: messages that echo a user's value carry no raw control
// character, stay UTF-8 text, and a huge value is cut to a line.
#include <doctest/doctest.h>

#include <string>

#include "base/printable.hpp"

using namespace uts;

namespace {
bool has_control(const std::string& s) {
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') return true;
  return false;
}
}  // namespace

TEST_CASE("printable: control characters escaped, printable text kept") {
  CHECK(printable("hier") == "hier");
  CHECK(printable("a b/c:'d' \"e\" ~") == "a b/c:'d' \"e\" ~");
  CHECK(printable("hier\nuts: fake") == "hier\\nuts: fake");
  CHECK(printable("a\rb\tc") == "a\\rb\\tc");
  CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(printable("\x1b[31mred") == "\\x1b[31mred");
  CHECK(printable("\x7f") == "\\x7f");
  CHECK(printable("\x01\x1f") == "\\x01\\x1f");
  CHECK_FALSE(has_control(printable(std::string("\0\a\b\n\v\f\r\x0e\x1b\x7f", 10))));
}

TEST_CASE("printable: UTF-8 kept, broken UTF-8 and C1 controls escaped") {
  CHECK(printable("caf\xc3\xa9 \xe2\x80\x98x\xe2\x80\x99 \xf0\x9f\x8c\xb3") ==
        "caf\xc3\xa9 \xe2\x80\x98x\xe2\x80\x99 \xf0\x9f\x8c\xb3");
  CHECK(printable("\xc2\x9b" "31m") == "\\u009b31m");  // CSI as U+009B
  CHECK(printable("\xc2\xa0") == "\xc2\xa0");          // U+00A0 is text
  CHECK(printable("\xff\xfe") == "\\xff\\xfe");
  CHECK(printable("\xc3") == "\\xc3");                  // cut short
  CHECK(printable("\xc3(") == "\\xc3(");                // no continuation
  CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");         // overlong '/'
  CHECK(printable("\xe0\x80\xaf") == "\\xe0\\x80\\xaf");  // overlong
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(printable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
}

TEST_CASE("printable: escaping twice changes nothing, so wrapped messages stay as they were") {
  for (const std::string& s : {std::string("a\nb\\n\r\x1b\xff\xc2\x85"), std::string("plain"), std::string("\\x00")}) {
    CAPTURE(s);
    CHECK(printable(printable(s)) == printable(s));
    CHECK(printable_line(printable_line(s)) == printable_line(s));
  }
  const std::string big(100000, '\n');
  CHECK(printable_line(printable_line(big)) == printable_line(big));
}

TEST_CASE("printable_line: a long text is cut in the middle, saying how much") {
  CHECK(printable_line(std::string(1024, 'x')) == std::string(1024, 'x'));
  const std::string huge = "--victim: '" + std::string(1 << 20, 'v') + "' is not random";
  const std::string line = printable_line(huge);
  CHECK(line.size() <= 1024);
  CHECK(line.rfind("--victim: 'vvv", 0) == 0);  // the start: which option
  CHECK(line.size() >= 16);
  CHECK(line.substr(line.size() - 16) == "v' is not random");  // the end: what is wrong
  CHECK(line.find("bytes left out)...") != std::string::npos);
  // The count is of the printable text: 1 MiB of newlines is 2 MiB escaped.
  const std::string cut = printable_line(std::string(1 << 20, '\n'));
  CHECK(cut.size() <= 1024);
  std::string count = "(";  // built with +=: GCC 12 warns falsely (-Wrestrict) on "(" + std::to_string()
  count += std::to_string(2 * (1 << 20) - 640 - 256);
  count += " bytes left out)";
  CHECK(cut.find(count) != std::string::npos);
  CHECK_FALSE(has_control(cut));
  // Never cut inside a UTF-8 character.
  std::string accents;
  for (int i = 0; i < 1000; ++i) accents += "\xc3\xa9";
  CHECK(printable(printable_line(accents)) == printable_line(accents));
}
