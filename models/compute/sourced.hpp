#pragma once
/// A model constant with where it comes from.
/// Source: written here.

#include <string>

namespace clustersim::models {

template <class T>
struct Sourced {
  T value{};
  std::string source;  // measured where and how, fitted from what, or "assumption: why"
};

}  // namespace clustersim::models
