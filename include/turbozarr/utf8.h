// UTF-8 from code points: what the fixed-size unicode type (UTF-32 in
// memory, as numpy's "<U") turns into when it is printed or compared as
// text, and what XML character references stand for.
//
// Thread safety: a pure function.
#pragma once

#include <string>

namespace turbozarr {

// Appends `code_point` to `out` as UTF-8. A surrogate (U+D800-U+DFFF) or a
// value past U+10FFFF, which no UTF-8 may hold, becomes U+FFFD, the
// replacement character.
void AppendUtf8(std::string& out, char32_t code_point);

}  // namespace turbozarr
