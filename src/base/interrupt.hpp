// SIGINT handling: the first Ctrl-C asks running traversals to stop at their
// next poll so partial results can be printed; a second one kills at once.
#pragma once

namespace uts::interrupt {

void install();
bool requested();

}  // namespace uts::interrupt
