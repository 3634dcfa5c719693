#pragma once
// Error lines that stay whole when the ranks of an mpirun job share one terminal: a line
// written in pieces (as std::cerr << a << b does, unbuffered) interleaves with another
// rank's mid-line.
#include <string>

namespace heed::dist {

// This process's rank as mpirun's environment gives it, without calling MPI (so usable
// before a World exists and after it is gone, e.g. to label an error line); -1 when not
// started by mpirun or the variable is missing.
int launched_rank();

// Writes text (one or more lines; a final newline is added when missing) to stderr in one
// write(2) call, each line prefixed "rank R: " under mpirun.
void write_error_lines(const std::string& text);

}  // namespace heed::dist
