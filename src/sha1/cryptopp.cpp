// The Crypto++ path in batches: each lane's child id from Crypto++'s
// one-block transform (child_id, sha1.hpp). Portable, and the oracle the
// SHA-NI and AVX-512 kernels are tested against.
#include "sha1/batch.hpp"
#include "sha1/sha1.hpp"

namespace uts::sha1 {

void child_ids_cryptopp(const Batch& in, int count, Ids& out) {
  for (int l = 0; l < count; ++l) out.put(l, child_id(in.parent(l), in.index(l)));
}
void child_ids_cryptopp(const RowBatch& in, int count, RowIds& out) {
  for (int l = 0; l < count; ++l) out.put(l, child_id(in.parent(l), in.index(l)));
}

}  // namespace uts::sha1
