// UTF-8 to and from code points: what the fixed-size unicode type (UTF-32
// in memory, as numpy's "<U") turns into when it is printed or compared as
// text, what JSON text becomes in it, and what XML character references
// stand for.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace turbozarr {

// Appends `code_point` to `out` as UTF-8. A surrogate (U+D800-U+DFFF) or a
// value past U+10FFFF, which no UTF-8 may hold, becomes U+FFFD, the
// replacement character.
void AppendUtf8(std::string& out, char32_t code_point);

// The code points of UTF-8 `text`; nullopt when it is malformed (a bad or
// overlong sequence, a surrogate, a value past U+10FFFF, a cut sequence).
std::optional<std::u32string> DecodeUtf8(std::string_view text);

}  // namespace turbozarr
