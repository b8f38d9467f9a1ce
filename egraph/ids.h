#pragma once
#include <cstdint>

namespace smelt::egraph {

// An e-node id. Every e-node gets its own id when it is created, and that id
// is also a union-find element: the e-class of any id is find(id), so a class
// id is simply the id of its current representative.
using Id = std::uint32_t;
inline constexpr Id kNoId = ~Id{0};

// An interned operator name (see SymbolTable).
using Op = std::uint32_t;

}  // namespace smelt::egraph
