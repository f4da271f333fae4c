// The shared counter tree of Manber's search (manber.hpp), sized to the
// next power of two of the thread count.
#include "steal/victims/manber.hpp"

#include <bit>

namespace uts {

ManberTree::ManberTree(int threads)
    : threads_(threads),
      leaves_(static_cast<int>(std::bit_ceil(static_cast<unsigned>(threads < 1 ? 1 : threads)))),
      counters_(static_cast<std::size_t>(2 * leaves_)) {}

}  // namespace uts
