// ViewShows: does an ItemView show exactly `item`, by every way a reader
// asks (in order, by name, whole, sized, and again after CopyTo)?
#ifndef DYNAROCK_TESTS_UTIL_ITEM_VIEW_CHECK_H_
#define DYNAROCK_TESTS_UTIL_ITEM_VIEW_CHECK_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "dynarock/item_view.h"
#include "format/item_size.h"

namespace dynarock::testing {

namespace internal {

inline ::testing::AssertionResult ViewShowsOnce(const ItemView& view, const Item& item) {
  if (view.size() != item.size()) {
    return ::testing::AssertionFailure()
           << "size " << view.size() << ", the item has " << item.size();
  }
  size_t i = 0;
  for (const auto& [name, value] : item) {  // Item is ordered by name
    if (view.name(i) != name) {
      return ::testing::AssertionFailure()
             << "attribute " << i << " is '" << view.name(i) << "', expected '" << name << "'";
    }
    auto at = view.value(i).Decode();
    if (!at.ok() || !(*at == value)) {
      return ::testing::AssertionFailure() << "value(" << i << ") differs for '" << name << "'";
    }
    auto found = view.Find(name);
    if (!found || found->name() != name) {
      return ::testing::AssertionFailure() << "Find('" << name << "') misses";
    }
    auto found_value = found->Decode();
    if (!found_value.ok() || !(*found_value == value)) {
      return ::testing::AssertionFailure() << "Find('" << name << "') gives another value";
    }
    ++i;
  }
  if (view.Find("no such attribute")) {
    return ::testing::AssertionFailure() << "Find of an absent name found something";
  }
  auto whole = view.Decode();
  if (!whole.ok() || !(*whole == item)) {
    return ::testing::AssertionFailure() << "Decode() gives another item";
  }
  if (format::ComputeItemSize(view) != format::ItemSize(item) ||
      view.stored_size() != format::ItemSize(item)) {
    return ::testing::AssertionFailure()
           << "sizes: computed " << format::ComputeItemSize(view) << ", stored "
           << view.stored_size() << ", expected " << format::ItemSize(item);
  }
  return ::testing::AssertionSuccess();
}

}  // namespace internal

// The view, and a copy of it (CopyTo, at an odd address), each show `item`.
inline ::testing::AssertionResult ViewShows(const ItemView& view, const Item& item) {
  auto shown = internal::ViewShowsOnce(view, item);
  if (!shown) return shown;
  const size_t n = view.ByteSize();
  auto buffer = std::make_unique<char[]>(n + 1);
  const ItemView copy = view.CopyTo(buffer.get() + 1);
  shown = internal::ViewShowsOnce(copy, item);
  if (!shown) return ::testing::AssertionFailure() << "the copy: " << shown.message();
  return ::testing::AssertionSuccess();
}

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UTIL_ITEM_VIEW_CHECK_H_
