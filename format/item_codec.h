// Items <-> FlatBuffers (schemas/item.fbs). WRITTEN TO DISK: see
// format/ITEM_FORMAT.md for the layout and the versioning rule.
//
// Reading does not require decoding: ItemView and ValueView
// (dynarock/item_view.h) walk the buffer in place. Version 1 of the encoding
// is read by item_codec_v1.h.
#ifndef DYNAROCK_FORMAT_ITEM_CODEC_H_
#define DYNAROCK_FORMAT_ITEM_CODEC_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "dynarock/attribute_value.h"
#include "dynarock/item_view.h"
#include "dynarock/status.h"
#include "format/key_codec.h"

namespace dynarock::format {

// Replaces *out with the encoding of `item` (version 2, format/ITEM_FORMAT.md),
// which stores the item's size (ItemSize(item)).
// REQUIRES: ValidateItem(item).ok() (nesting within limits).
void EncodeItem(const Item& item, std::string* out);
std::string EncodeItem(const Item& item);
// The same for a caller that has the size already.
// REQUIRES: size == ItemSize(item).
void EncodeItem(const Item& item, size_t size, std::string* out);

// Verify-then-decode in one call, for bytes of unknown origin in either
// encoding (version 1 as storage formats 1-9 wrote it, or version 2).
// Corruption for anything else.
Result<Item> DecodeItem(std::string_view bytes);
// Decode without the structural verification, for bytes an encoder wrote
// (either version) and storage returned checksummed (RocksDB checks every
// block it reads). Corruption only for what the decode itself meets.
Result<Item> DecodeTrustedItem(std::string_view bytes);

// ---- Items stored without their key attributes (base-table items) ------------------------

// A table's key attributes: names and types. The names are views: valid while
// what they point into (a TableInfo) lives.
struct KeyAttributeRef {
  std::string_view name;
  ScalarAttributeType type;
};

// Ids 0..4095 take one or two varint bytes (2 * id + 1 < 2^14). A table
// whose writes use more distinct names stores the rest inline: a dictionary
// stays small whatever the data.
inline constexpr uint32_t kMaxInternedNames = 4096;

// A table's interned attribute names: a table item's entry may name its
// attribute by a small id instead of its bytes (ITEM_FORMAT.md, "Interned
// names"). Implementations are thread-safe.
class AttributeNames {
 public:
  // Where names stand by id: published with release stores after the name
  // is in place, never moved or changed once set.
  using IdTable = std::array<std::atomic<const std::string*>, kMaxInternedNames>;

  virtual ~AttributeNames() = default;
  // Writers: the id of `name`, assigned now if it is new and the table has
  // room, and durable before this returns; nullopt: store the name inline.
  virtual std::optional<uint32_t> Intern(std::string_view name) = 0;
  // Readers: the name with `id` (valid as long as this object), or nullopt
  // for an id never assigned. Lock-free and inline: a read of a table item
  // resolves every name it meets.
  std::optional<std::string_view> Name(uint32_t id) const {
    if (id >= kMaxInternedNames) return std::nullopt;
    const std::string* name = by_id_[id].load(std::memory_order_acquire);
    if (name == nullptr) return std::nullopt;
    return std::string_view(*name);
  }

 protected:
  // REQUIRES: `by_id` outlives this object.
  explicit AttributeNames(const IdTable* by_id) : by_id_(*by_id) {}

 private:
  const IdTable& by_id_;
};

// How a table's items, or an index's entries, are stored: which attributes
// the key holds, and the names the table interns (null: none; every name
// is then stored inline, as the compaction filter's rewrites store them).
// An index key holds the index's partition and sort key, then the base
// table's (KEY_FORMAT.md); an attribute that is both (an LSI's partition
// key, a GSI keyed on the table's sort key) is one attribute of the item.
struct StoredKeySchema {
  KeyAttributeRef partition;
  std::optional<KeyAttributeRef> sort;
  AttributeNames* names = nullptr;
  // Index entries only: the base table's key attributes, after the index's.
  std::optional<KeyAttributeRef> table_partition = std::nullopt;
  std::optional<KeyAttributeRef> table_sort = std::nullopt;
  // A multi-attribute GSI's components after its first partition and its
  // first sort component. The key holds them too (for order), but the value
  // keeps them: decoding skips them in the key.
  MoreKeyTypes more_partition = {};
  MoreKeyTypes more_sort = {};

  // At most four held: an index's first two, then the table's two.
  static constexpr size_t kMaxKeyAttributes = 4;
  // At most ten components in a key: four partition and four sort
  // components of an index, then the table's two.
  static constexpr size_t kMaxKeyComponents = 10;
  // True if `name` is one of the key's attributes (so not in the value).
  bool Holds(std::string_view name) const {
    return name == partition.name || (sort && name == sort->name) ||
           (table_partition && name == table_partition->name) ||
           (table_sort && name == table_sort->name);
  }
};

// A base-table item as the items column family stores it since storage
// format 11 (and an index entry since format 13, with the index's key
// schema): the encoding without the key attributes, which the item's
// RocksDB key holds (KEY_FORMAT.md), so they are not stored twice. The
// stored size is still the whole item's. REQUIRES: ValidateItem(item), the
// item holds the attributes `keys` names, size == ItemSize(item).
void EncodeItemWithoutKey(const Item& item, size_t size, const StoredKeySchema& keys,
                          std::string* out);

// A base-table item from its RocksDB key and its stored value in any
// version: the key attributes are restored from the key when the value
// omits them. Corruption if the key does not decode with `keys`' types or
// the value does not decode. REQUIRES: bytes an encoder wrote and storage
// checksummed.
Result<Item> DecodeStoredItem(std::string_view key, std::string_view value,
                              const StoredKeySchema& keys);
// The same for bytes of unknown origin (the recount, which finds unreadable
// items): the envelope and the whole payload are checked first, as
// ItemView::Open checks a whole item's (an interned name must be one
// `keys.names` holds, no key attribute may be stored in the value, the
// stored size must be what the attributes and the key add up to).
// Corruption if any check fails; never reads out of bounds.
Result<Item> VerifyStoredItem(std::string_view key, std::string_view value,
                              const StoredKeySchema& keys);
// The same as a view, without rewriting the item: a whole stored item
// (version 2) is read in place; one without its key attributes is read in
// place too, with the key attributes decoded from `key`, written at the
// start of *scratch (which may keep spare bytes after them) and held
// beside its entries (names resolved in `keys.names`); a version 1
// item is re-encoded into *scratch. The view reads `value` and *scratch,
// and a table item's names through `keys`: valid while they live and
// *scratch is not changed. Corruption if the key does not decode with
// `keys`' types or a stored name is an id `keys.names` does not hold.
Result<ItemView> OpenStoredItem(std::string_view key, std::string_view value,
                                const StoredKeySchema& keys, std::string* scratch);

// Stored bytes of a whole item (an index entry, or a base item of storage
// format 10 or before) in either whole-item encoding, as a view: version 2
// in place; version 1 decoded and re-encoded into *scratch. Corruption if
// version 1 bytes do not decode, or for bytes without their key attributes
// (which need the key: the overload above).
// REQUIRES: bytes an encoder wrote and storage checksummed.
Result<ItemView> OpenStoredItem(std::string_view bytes, std::string* scratch);

// The DynamoDB size of a stored item in any version, without decoding it
// (version 1 items of storage format 7 and before, which stored none, are
// decoded and sized). REQUIRES: bytes an encoder wrote and storage checksummed.
Result<size_t> StoredItemSize(std::string_view bytes);

// True for bytes in the current encoding (version 2: whole items, or items
// without their key attributes), false for version 1.
bool IsCurrentItemEncoding(std::string_view bytes);
// True for a value stored without its key attributes (EncodeItemWithoutKey,
// or storage format 11's table items). REQUIRES: IsCurrentItemEncoding(bytes),
// bytes an encoder wrote.
bool IsStoredWithoutKey(std::string_view bytes);
// True for a table item as EncodeItemWithoutKey writes it now (names as
// references), false for every older encoding. REQUIRES: bytes an encoder wrote.
bool IsCurrentTableItem(std::string_view bytes);

// The move to the current encoding (the compaction filters, ITEM_FORMAT.md).
// An index entry: the version 2 encoding of version 1 bytes (verified
// first: Corruption if they are not a valid version 1 item), or nullopt for
// bytes already version 2.
Result<std::optional<std::string>> UpgradeStoredItem(std::string_view bytes);
// A base item: its current encoding (without the key attributes, names as
// references), from version 1 bytes or a whole version 2 item (verified
// first; Corruption if they are not a valid item holding the key attributes
// `key` holds) or from storage format 11's encoding without the key (names
// written out); nullopt for bytes already current. `keys.names` null: every
// name stays inline.
Result<std::optional<std::string>> UpgradeStoredItem(std::string_view key, std::string_view value,
                                                     const StoredKeySchema& keys);

}  // namespace dynarock::format

#endif  // DYNAROCK_FORMAT_ITEM_CODEC_H_
