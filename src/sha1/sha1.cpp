// SHA-1 through Crypto++, out of line: the streaming digest (root ids,
// tests) and uts-sha1-rate's chained one-block probe.
#include "sha1/sha1.hpp"

#include <cryptopp/sha.h>

namespace uts::sha1 {

Words digest(const std::uint8_t* data, std::size_t length) {
  std::uint8_t out[CryptoPP::SHA1::DIGESTSIZE];
  CryptoPP::SHA1().CalculateDigest(out, data, length);
  return from_bytes(out);
}

std::uint32_t compress_blocks(std::uint64_t blocks) {
  Words id{};
  for (std::uint64_t i = 0; i < blocks; ++i) id = child_id(id, static_cast<std::uint32_t>(i));
  return id[4];
}

}  // namespace uts::sha1
