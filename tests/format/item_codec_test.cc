#include "format/item_codec.h"

#include <gtest/gtest.h>

#include <memory>
#include <iostream>
#include <random>

#include "format/attribute_names.h"
#include "format/item_size.h"
#include "format/json.h"
#include "format/key_codec.h"
#include "tests/util/hex.h"
#include "tests/util/item_v1.h"
#include "tests/util/item_view_check.h"
#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

namespace dynarock::format {
namespace {

using AV = AttributeValue;
Number N(std::string_view s) { return *Number::Parse(s); }

Item FleetReading() {
  return Item{
      {"PK", AV::S("VEH#V-7741")},
      {"SK", AV::S("TS#2026-06-23T09:00:01Z")},
      {"speedKph", AV::N(N("87.5"))},
      {"coolantC", AV::N(N("-3"))},
      {"fuelPct", AV::N(N("0.61"))},
      {"depotCode", AV::S("DEP-LON-3")},
      {"flags", AV::SS({"idle", "gps"})},
      {"ok", AV::Bool(true)},
      {"note", AV::Null()},
      {"raw", AV::B(std::string("\0\x01\xff", 3))},
      {"samples", AV::NS({N("1"), N("2.5"), N("-7")})},
      {"blobs", AV::BS({"a", std::string(1, '\0')})},
      {"geo", AV::M({{"lat", AV::N(N("51.5"))},
                     {"lon", AV::N(N("-0.12"))},
                     {"tags", AV::L({AV::S("x"), AV::L({}), AV::M({})})}})},
  };
}

TEST(ItemCodecTest, RoundTripAllTypes) {
  Item item = FleetReading();
  std::string bytes = EncodeItem(item);
  auto decoded = DecodeItem(bytes);
  ASSERT_OK(decoded);
  EXPECT_EQ(*decoded, item) << DebugString(*decoded);
  EXPECT_EQ(*DecodeItem(EncodeItem(Item{})), Item{});
}

TEST(ItemCodecTest, AttributeAccessWithoutDecoding) {
  std::string bytes = EncodeItem(FleetReading());
  auto view = ItemView::Open(bytes);
  ASSERT_OK(view);
  auto speed = view->Find("speedKph");
  ASSERT_TRUE(speed.has_value());
  EXPECT_EQ(speed->type(), AttrType::kN);
  EXPECT_EQ(*speed->number(), N("87.5"));
  EXPECT_EQ(view->Find("depotCode")->bytes(), "DEP-LON-3");
  EXPECT_FALSE(view->Find("missing").has_value());
  EXPECT_FALSE(view->Find("").has_value());

  std::vector<PathElement> path = {std::string("geo"), std::string("tags"), size_t{0}};
  auto tag = view->FindPath(path);
  ASSERT_TRUE(tag.has_value());
  EXPECT_EQ(tag->bytes(), "x");
  path = {std::string("geo"), std::string("lat")};
  EXPECT_EQ(*view->FindPath(path)->number(), N("51.5"));
  path = {std::string("geo"), std::string("tags"), size_t{3}};
  EXPECT_FALSE(view->FindPath(path).has_value());
  path = {std::string("geo"), size_t{0}};  // index into a map
  EXPECT_FALSE(view->FindPath(path).has_value());
  path = {std::string("PK"), std::string("x")};  // name into a string
  EXPECT_FALSE(view->FindPath(path).has_value());
  EXPECT_EQ(view->Find("flags")->size(), 2u);
  EXPECT_EQ(*view->Find("geo")->Decode(), FleetReading().at("geo"));
}

TEST(ItemCodecTest, MaxNestingRoundTrips) {
  AV v = AV::S("leaf");
  for (int i = 0; i < 30; ++i) v = i % 2 ? AV::L({v}) : AV::M({{"m", v}});
  Item item{{"deep", v}};
  ASSERT_OK(ValidateItem(item));
  auto decoded = DecodeItem(EncodeItem(item));
  ASSERT_OK(decoded);
  EXPECT_EQ(*decoded, item);
}

TEST(ItemCodecTest, ForeignBytesAreCorruption) {
  const std::string inputs[] = {"", "x", std::string(64, '\0'), std::string(64, '\xff'),
                                "DRKI DRKI DRKI DRKI"};
  for (const auto& in : inputs) {
    auto r = DecodeItem(in);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Status::Code::kCorruption);
  }
}

TEST(ItemCodecTest, VersionIsChecked) {
  std::string bytes = EncodeItem(Item{{"a", AV::S("b")}});
  // The payload's first byte is its version (2); patch each 02 to 05 (03
  // and 04 are table items) and expect a version error from one of them.
  bool saw_version_error = false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != 2) continue;
    std::string patched = bytes;
    patched[i] = 5;
    auto r = DecodeItem(patched);
    if (!r.ok() && r.status().message().find("format version 5") != std::string::npos) {
      saw_version_error = true;
    }
  }
  EXPECT_TRUE(saw_version_error);
}


// ---- Golden vectors: the bytes on disk (format/ITEM_FORMAT.md) -------------------------------

// A reading without its key attributes, the shape the storage layout keeps:
// every byte of the version 2 encoding, as ITEM_FORMAT.md walks through it.
Item GoldenReading() {
  return Item{{"depotCode", AV::S("DEP-LON-3")},
              {"fuelPct", AV::N(N("0.61"))},
              {"ok", AV::Bool(true)},
              {"tags", AV::SS({"gps", "idle"})}};
}

constexpr std::string_view kGoldenReadingV2 =
    // FlatBuffers: root offset 12, 2 bytes of padding, the vtable (6 bytes:
    // one field at table offset 4), the table (vtable at -6, the payload
    // vector 4 bytes on), the payload's length (60)
    "0C 00 00 00 00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 3C 00 00 00 "
    // version 2, size 41, 4 entries with 1-byte offsets, their offsets
    "02 29 10 00 14 21 25 "
    // "depotCode", S of 9 bytes "DEP-LON-3"
    "09 64 65 70 6F 74 43 6F 64 65 90 44 45 50 2D 4C 4F 4E 2D 33 "
    // "fuelPct", N of 4 bytes "0.61"
    "07 66 75 65 6C 50 63 74 41 30 2E 36 31 "
    // "ok", BOOL true
    "02 6F 6B 13 "
    // "tags", SS of 10 bytes: 2 members, "gps", "idle"
    "04 74 61 67 73 A7 02 03 67 70 73 04 69 64 6C 65";

// The same item in version 1, as storage formats 8 and 9 wrote it.
constexpr std::string_view kGoldenReadingV1 =
    "14 00 00 00 44 52 4B 49 00 00 0A 00 10 00 07 00 08 00 0C 00 0A 00 00 00 "
    "00 00 00 01 08 00 00 00 29 00 00 00 04 00 00 00 CC 00 00 00 98 00 00 00 "
    "74 00 00 00 14 00 00 00 00 00 0E 00 10 00 08 00 07 00 00 00 00 00 0C 00 "
    "0E 00 00 00 00 00 00 07 3C 00 00 00 04 00 00 00 02 00 00 00 20 00 00 00 "
    "04 00 00 00 EE FF FF FF 04 00 00 00 04 00 00 00 69 64 6C 65 00 00 06 00 "
    "08 00 04 00 06 00 00 00 04 00 00 00 03 00 00 00 67 70 73 00 04 00 00 00 "
    "74 61 67 73 00 00 00 00 0C 00 0C 00 08 00 06 00 00 00 07 00 0C 00 00 00 "
    "00 00 03 01 04 00 00 00 02 00 00 00 6F 6B 00 00 00 00 0A 00 10 00 08 00 "
    "07 00 0C 00 0A 00 00 00 00 00 00 01 10 00 00 00 04 00 00 00 03 00 00 00 "
    "16 FF 7A 00 07 00 00 00 66 75 65 6C 50 63 74 00 00 00 0A 00 0C 00 04 00 "
    "00 00 08 00 0A 00 00 00 18 00 00 00 04 00 00 00 09 00 00 00 44 45 50 2D "
    "4C 4F 4E 2D 33 00 00 00 09 00 00 00 64 65 70 6F 74 43 6F 64 65 00 00 00";

TEST(ItemCodecGoldenTest, VersionTwoBytes) {
  EXPECT_EQ(testing::Hex(EncodeItem(GoldenReading())), kGoldenReadingV2);
  auto decoded = DecodeItem(testing::Unhex(kGoldenReadingV2));
  ASSERT_OK(decoded);
  EXPECT_EQ(*decoded, GoldenReading());
}

// A table's dictionary as the engine keeps one, its catalog writes
// succeeding for the first `capacity` names and failing after (those names
// then stay inline, as they do when a real write fails).
std::unique_ptr<NameDictionary> TestNames(size_t capacity = 100) {
  return std::make_unique<NameDictionary>(
      [capacity, written = size_t{0}](uint32_t, std::string_view) mutable {
        return written++ < capacity ? Status::OK() : Status::IOError("no room");
      });
}

// A table item is stored without its key attributes, its names interned:
// the golden reading under a key (PK, SK), every byte.
TEST(ItemCodecGoldenTest, TableItemBytes) {
  Item item = GoldenReading();
  item["PK"] = AV::S("VEH#V-7741");
  item["SK"] = AV::S("TS#2026-06-23T09:00:01Z");
  auto names = TestNames();
  StoredKeySchema keys{
      {"PK", ScalarAttributeType::kS}, KeyAttributeRef{"SK", ScalarAttributeType::kS}, names.get()};
  std::string stored;
  EncodeItemWithoutKey(item, ItemSize(item), keys, &stored);
  EXPECT_EQ(testing::Hex(stored),
            // The envelope as in kGoldenReadingV2, the payload 38 bytes (26).
            "0C 00 00 00 00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 26 00 00 00 "
            // version 4, size 78 (the whole item's), 4 entries, offsets 0 11 17 19
            "04 4E 10 00 0B 11 13 "
            // name 0 (depotCode), S "DEP-LON-3"; name 1 (fuelPct), N "0.61";
            // name 2 (ok), BOOL true; name 3 (tags), SS "gps" "idle"
            "01 90 44 45 50 2D 4C 4F 4E 2D 33 03 41 30 2E 36 31 05 13 "
            "07 A7 02 03 67 70 73 04 69 64 6C 65 "
            // FlatBuffers' padding to 4 bytes
            "00 00");
  EXPECT_EQ(*names->Name(0), "depotCode");
  EXPECT_EQ(*names->Name(3), "tags");
  // Read back whole, and as a view with the key attributes beside.
  const AV& sk = item.at("SK");
  const std::string key = EncodeItemKey(7, item.at("PK"), &sk).bytes();
  EXPECT_EQ(*DecodeStoredItem(key, stored, keys), item);
  std::string scratch;
  auto view = OpenStoredItem(key, stored, keys, &scratch);
  ASSERT_OK(view);
  EXPECT_TRUE(testing::ViewShows(*view, item));
  // Without a dictionary, names are written out: varint(2 x length), bytes.
  keys.names = nullptr;
  EncodeItemWithoutKey(item, ItemSize(item), keys, &stored);
  EXPECT_NE(testing::Hex(stored).find("12 64 65 70 6F 74 43 6F 64 65 90"), std::string::npos);
  EXPECT_EQ(*DecodeStoredItem(key, stored, keys), item);
}

// Table items of unknown origin (the recount's): every truncation and many
// byte flips of a stored item are Corruption from VerifyStoredItem, never a
// crash or an out-of-bounds read (ASan watches), and the intact bytes pass.
// `stored` (under `key`, stored as `keys` say) verifies as `item`, and
// every truncation and many single-bit flips are Corruption, none read out
// of bounds (ASan).
void ExpectEveryDamageRefused(const std::string& key, const std::string& stored,
                              const StoredKeySchema& keys, const Item& item) {
  auto good = VerifyStoredItem(key, stored, keys);
  ASSERT_OK(good);
  EXPECT_EQ(*good, item);
  for (size_t n = 0; n < stored.size(); ++n) {
    auto cut = VerifyStoredItem(key, stored.substr(0, n), keys);
    ASSERT_FALSE(cut.ok()) << n;
    EXPECT_EQ(cut.status().code(), Status::Code::kCorruption);
  }
  int refused = 0;
  for (size_t at = 0; at < stored.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = stored;
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
      auto r = VerifyStoredItem(key, flipped, keys);
      if (!r.ok()) {
        EXPECT_EQ(r.status().code(), Status::Code::kCorruption);
        ++refused;
      }
    }
  }
  EXPECT_GT(refused, static_cast<int>(stored.size()) * 2);
}

TEST(ItemCodecInternTest, VerifyStoredItemRefusesDamagedTableItems) {
  const Item item = FleetReading();
  const AV& sk = item.at("SK");
  const std::string key = EncodeItemKey(7, item.at("PK"), &sk).bytes();
  auto names = TestNames();
  const StoredKeySchema keys{
      {"PK", ScalarAttributeType::kS}, KeyAttributeRef{"SK", ScalarAttributeType::kS}, names.get()};
  std::string stored;
  EncodeItemWithoutKey(item, ItemSize(item), keys, &stored);
  ExpectEveryDamageRefused(key, stored, keys, item);
  // The wrong key (another size, or a value stored for a key attribute) too.
  const AV other = AV::S("TS#2026-06-23T09:00:02Z and more");
  EXPECT_FALSE(VerifyStoredItem(EncodeItemKey(7, item.at("PK"), &other).bytes(), stored, keys).ok());
  Item with_key_inside = item;
  with_key_inside["SK"] = sk;
  std::string whole_but_marked;
  const StoredKeySchema pk_only{{"PK", ScalarAttributeType::kS}, std::nullopt, names.get()};
  EncodeItemWithoutKey(with_key_inside, ItemSize(with_key_inside), pk_only, &whole_but_marked);
  EXPECT_FALSE(VerifyStoredItem(key, whole_but_marked, keys).ok());
}

// An index entry (storage format 13): its key holds the index's key, then
// the table's, sharing SK here; verified, damaged, and under a key whose
// two copies of SK disagree.
TEST(ItemCodecInternTest, VerifyStoredItemRefusesDamagedIndexEntries) {
  const Item item = FleetReading();
  const AV& sk = item.at("SK");
  const std::string key = EncodeIndexKey(9, item.at("depotCode"), &sk, item.at("PK"), &sk).bytes();
  auto names = TestNames();
  StoredKeySchema keys{{"depotCode", ScalarAttributeType::kS},
                       KeyAttributeRef{"SK", ScalarAttributeType::kS},
                       names.get()};
  keys.table_partition = KeyAttributeRef{"PK", ScalarAttributeType::kS};
  keys.table_sort = KeyAttributeRef{"SK", ScalarAttributeType::kS};
  std::string stored;
  EncodeItemWithoutKey(item, ItemSize(item), keys, &stored);
  EXPECT_EQ(stored.find("DEP-LON-3"), std::string::npos);
  EXPECT_EQ(stored.find("VEH#V-7741"), std::string::npos);
  ExpectEveryDamageRefused(key, stored, keys, item);
  std::string scratch;
  auto view = OpenStoredItem(key, stored, keys, &scratch);
  ASSERT_OK(view);
  EXPECT_TRUE(testing::ViewShows(*view, item));
  const AV other = AV::S("TS#2026-06-23T09:00:02Z");
  const std::string torn = EncodeIndexKey(9, item.at("depotCode"), &other, item.at("PK"), &sk).bytes();
  EXPECT_EQ(VerifyStoredItem(torn, stored, keys).status().code(), Status::Code::kCorruption);
  EXPECT_EQ(DecodeStoredItem(torn, stored, keys).status().code(), Status::Code::kCorruption);
}

// An id the table's names do not hold is corruption, never a wrong name;
// past the dictionary's capacity names are stored inline, mixed with ids.
TEST(ItemCodecInternTest, UnknownIdsAreCorruptionAndFullDictionariesStoreInline) {
  const Item item = FleetReading();
  const AV& sk = item.at("SK");
  const std::string key = EncodeItemKey(7, item.at("PK"), &sk).bytes();
  auto two = TestNames(2);
  const StoredKeySchema keys{
      {"PK", ScalarAttributeType::kS}, KeyAttributeRef{"SK", ScalarAttributeType::kS}, two.get()};
  std::string stored;
  EncodeItemWithoutKey(item, ItemSize(item), keys, &stored);
  EXPECT_TRUE(two->Name(1).has_value());
  EXPECT_FALSE(two->Name(2).has_value());
  EXPECT_EQ(*DecodeStoredItem(key, stored, keys), item);
  std::string scratch;
  auto view = OpenStoredItem(key, stored, keys, &scratch);
  ASSERT_OK(view);
  EXPECT_TRUE(testing::ViewShows(*view, item));
  auto empty = TestNames();
  const StoredKeySchema other{
      {"PK", ScalarAttributeType::kS}, KeyAttributeRef{"SK", ScalarAttributeType::kS}, empty.get()};
  EXPECT_EQ(DecodeStoredItem(key, stored, other).status().code(), Status::Code::kCorruption);
  EXPECT_EQ(OpenStoredItem(key, stored, other, &scratch).status().code(),
            Status::Code::kCorruption);
}

// Version 1 bytes still read, and the move rewrites them as version 2
// writes the item.
TEST(ItemCodecGoldenTest, VersionOneBytesReadAndUpgrade) {
  ASSERT_EQ(testing::Hex(testing::EncodeItemV1(GoldenReading())), kGoldenReadingV1);
  const std::string v1 = testing::Unhex(kGoldenReadingV1);
  EXPECT_FALSE(IsCurrentItemEncoding(v1));
  EXPECT_TRUE(IsCurrentItemEncoding(testing::Unhex(kGoldenReadingV2)));
  ASSERT_OK(DecodeItem(v1));
  EXPECT_EQ(*DecodeItem(v1), GoldenReading());
  EXPECT_EQ(*DecodeTrustedItem(v1), GoldenReading());
  auto upgraded = UpgradeStoredItem(v1);
  ASSERT_OK(upgraded);
  ASSERT_TRUE(upgraded->has_value());
  EXPECT_EQ(testing::Hex(**upgraded), kGoldenReadingV2);
  // Bytes already in version 2 need no move.
  auto again = UpgradeStoredItem(**upgraded);
  ASSERT_OK(again);
  EXPECT_FALSE(again->has_value());
  // A stored view of version 1 bytes reads the re-encoded item.
  std::string scratch;
  auto view = OpenStoredItem(v1, &scratch);
  ASSERT_OK(view);
  EXPECT_EQ(view->Find("depotCode")->bytes(), "DEP-LON-3");
  EXPECT_EQ(view->stored_size(), ItemSize(GoldenReading()));
  // Views read version 2 only: version 1 to Open is not silently misread.
  EXPECT_EQ(ItemView::Open(v1).status().code(), Status::Code::kCorruption);
}

// Views take buffers at any alignment: RocksDB's values sit anywhere in a
// block, and a view reads them in place.
TEST(ItemCodecTest, ViewsReadMisalignedBuffers) {
  const std::string bytes = EncodeItem(FleetReading());
  for (size_t shift = 0; shift < 8; ++shift) {
    std::string buffer(shift, 'x');
    buffer += bytes;
    const std::string_view at = std::string_view(buffer).substr(shift);
    const ItemView trusted = ItemView::OpenTrusted(at);
    EXPECT_EQ(trusted.Find("depotCode")->bytes(), "DEP-LON-3") << shift;
    EXPECT_EQ(*trusted.Decode(), FleetReading()) << shift;
    auto verified = ItemView::Open(at);
    ASSERT_OK(verified);
    EXPECT_EQ(verified->Find("speedKph")->number_text(), "87.5");
    std::string scratch;
    auto stored = OpenStoredItem(at, &scratch);
    ASSERT_OK(stored);
    EXPECT_TRUE(scratch.empty());  // version 2: read in place
    EXPECT_EQ(*stored->Decode(), FleetReading());
  }
}

// ---- Base-table items stored without their key attributes ---------------------------------

const StoredKeySchema kFleetKeys{{"PK", ScalarAttributeType::kS},
                                 KeyAttributeRef{"SK", ScalarAttributeType::kS}};

std::string FleetKey(const Item& item) {
  const AV& sk = item.at("SK");
  return EncodeItemKey(7, item.at("PK"), &sk).bytes();
}

// The stored value omits PK and SK, which the key holds, and the reading is
// whole again with the key: as a decoded item and as a view.
TEST(ItemCodecWithoutKeyTest, TheKeyAttributesLiveInTheKeyOnly) {
  const Item item = FleetReading();
  const std::string key = FleetKey(item);
  std::string stored;
  EncodeItemWithoutKey(item, ItemSize(item), kFleetKeys, &stored);
  EXPECT_TRUE(IsCurrentItemEncoding(stored));
  EXPECT_TRUE(IsStoredWithoutKey(stored));
  EXPECT_FALSE(IsStoredWithoutKey(EncodeItem(item)));
  // Shorter than the whole item by the two entries (name and value:
  // 1+2+1+10 and 1+2+2+23 bytes) and their two index bytes, give or take
  // the envelope's padding to 4 bytes.
  const size_t key_entries = (1 + 2 + 1 + 10) + (1 + 2 + 2 + 23) + 2;
  EXPECT_LE(stored.size() + key_entries, EncodeItem(item).size() + 3);
  EXPECT_GE(stored.size() + key_entries + 3, EncodeItem(item).size());
  EXPECT_EQ(stored.find("VEH#V-7741"), std::string::npos);
  EXPECT_EQ(stored.find("TS#2026"), std::string::npos);
  EXPECT_EQ(*StoredItemSize(stored), ItemSize(item));
  auto decoded = DecodeStoredItem(key, stored, kFleetKeys);
  ASSERT_OK(decoded);
  EXPECT_EQ(*decoded, item);
  std::string scratch;
  auto view = OpenStoredItem(key, stored, kFleetKeys, &scratch);
  ASSERT_OK(view);
  EXPECT_TRUE(testing::ViewShows(*view, item));
  EXPECT_EQ(view->Find("PK")->bytes(), "VEH#V-7741");
  // Read in place: the view reads the stored value, and only the key
  // attributes (tag, length, bytes) were written out for it.
  const std::string key_values =
      testing::Unhex("A0") + "VEH#V-7741" + testing::Unhex("F0 17") + "TS#2026-06-23T09:00:01Z";
  EXPECT_EQ(scratch.substr(0, key_values.size()), key_values);
  // A copy holds the stored map (not the envelope), the key values and names.
  EXPECT_GT(view->ByteSize(), key_values.size() + std::string("PKSK").size());
  EXPECT_LT(view->ByteSize(), stored.size() + key_values.size() + std::string("PKSK").size());
  // A copy stands alone: the bytes it was read from may go.
  {
    std::string value = stored, key_values;
    auto original = OpenStoredItem(key, value, kFleetKeys, &key_values);
    ASSERT_OK(original);
    std::string buffer(original->ByteSize(), '\0');
    const ItemView copy = original->CopyTo(buffer.data());
    std::fill(value.begin(), value.end(), '\xff');
    std::fill(key_values.begin(), key_values.end(), '\xff');
    EXPECT_TRUE(testing::ViewShows(copy, item));
  }
  // Without the key it cannot be read, and says so.
  EXPECT_EQ(DecodeTrustedItem(stored).status().code(), Status::Code::kCorruption);
  EXPECT_EQ(OpenStoredItem(stored, &scratch).status().code(), Status::Code::kCorruption);
  auto untrusted = ItemView::Open(stored);
  ASSERT_FALSE(untrusted.ok());
  EXPECT_NE(untrusted.status().message().find("without its key"), std::string::npos);
  // A whole item stored by storage format 10 reads the same way, in place.
  scratch.clear();
  const std::string whole = EncodeItem(item);
  auto in_place = OpenStoredItem(key, whole, kFleetKeys, &scratch);
  ASSERT_OK(in_place);
  EXPECT_TRUE(scratch.empty());
  EXPECT_EQ(*DecodeStoredItem(key, whole, kFleetKeys), item);
}

// The moves: version 1 bytes and whole version 2 items become the encoding
// without the key; bytes already so need none; a stored key attribute that
// is not the key's is corruption, not silently dropped.
TEST(ItemCodecWithoutKeyTest, UpgradesDropTheKeyAttributes) {
  const Item item = FleetReading();
  const std::string key = FleetKey(item);
  std::string want;
  EncodeItemWithoutKey(item, ItemSize(item), kFleetKeys, &want);
  for (const std::string& old : {testing::EncodeItemV1(item), EncodeItem(item)}) {
    auto upgraded = UpgradeStoredItem(key, old, kFleetKeys);
    ASSERT_OK(upgraded);
    ASSERT_TRUE(upgraded->has_value());
    EXPECT_EQ(**upgraded, want);
  }
  // Format 11's table item (names written out, version byte 03) reads, and
  // moves to references.
  Item small = GoldenReading();
  small["PK"] = AV::S("VEH#V-7741");
  small["SK"] = AV::S("TS#2026-06-23T09:00:01Z");
  const std::string small_key = FleetKey(small);
  const std::string format11 = testing::EncodeTableItemFormat11(small, kFleetKeys);
  EXPECT_TRUE(IsStoredWithoutKey(format11));
  EXPECT_EQ(*DecodeStoredItem(small_key, format11, kFleetKeys), small);
  std::string scratch;
  auto view11 = OpenStoredItem(small_key, format11, kFleetKeys, &scratch);
  ASSERT_OK(view11);
  EXPECT_TRUE(testing::ViewShows(*view11, small));
  auto from11 = UpgradeStoredItem(small_key, format11, kFleetKeys);
  ASSERT_OK(from11);
  ASSERT_TRUE(from11->has_value());
  std::string small_want;
  EncodeItemWithoutKey(small, ItemSize(small), kFleetKeys, &small_want);
  EXPECT_EQ(**from11, small_want);
  auto again = UpgradeStoredItem(key, want, kFleetKeys);
  ASSERT_OK(again);
  EXPECT_FALSE(again->has_value());
  Item other = item;
  other["SK"] = AV::S("TS#other");
  auto mismatch = UpgradeStoredItem(key, EncodeItem(other), kFleetKeys);
  EXPECT_EQ(mismatch.status().code(), Status::Code::kCorruption);
}

class ItemCodecRandomTest : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = testing::TestSeed(
        ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() +
        std::string(".") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    rng_.seed(seed_);
  }
  std::string RandomString() {
    std::string s(rng_() % 8, '\0');
    for (auto& c : s) c = static_cast<char>(rng_() % 4 ? 'a' + rng_() % 3 : rng_());
    return s;
  }
  Number RandomNumber() {
    return Number::FromParts(rng_() % 2, rng_() % 1000000, static_cast<int>(rng_() % 20) - 10);
  }
  AV RandomValue(int level) {
    int kind = static_cast<int>(rng_() % (level >= kMaxNestingLevels ? 8 : 10));
    switch (kind) {
      case 0: return AV::S(RandomString());
      case 1: return AV::N(RandomNumber());
      case 2: return AV::B(RandomString());
      case 3: return AV::Bool(rng_() % 2);
      case 4: return AV::Null();
      case 5: {
        std::set<std::string> m;
        for (int i = 0, n = 1 + rng_() % 4; i < n; ++i) m.insert(RandomString());
        return AV::SS({m.begin(), m.end()});
      }
      case 6: {
        std::vector<Number> ns;
        for (int i = 0, n = 1 + rng_() % 4; i < n; ++i) {
          Number x = RandomNumber();
          if (std::find(ns.begin(), ns.end(), x) == ns.end()) ns.push_back(x);
        }
        return AV::NS(ns);
      }
      case 7: {
        std::set<std::string> m;
        for (int i = 0, n = 1 + rng_() % 4; i < n; ++i) m.insert(RandomString());
        return AV::BS({m.begin(), m.end()});
      }
      case 8: {
        AV::List l;
        for (int i = 0, n = rng_() % 4; i < n; ++i) l.push_back(RandomValue(level + 1));
        return AV::L(std::move(l));
      }
      default: {
        AV::Map m;
        for (int i = 0, n = rng_() % 4; i < n; ++i) m.emplace_back(RandomString(), RandomValue(level + 1));
        return AV::M(std::move(m));
      }
    }
  }
  Item RandomItem() {
    Item item;
    for (int i = 0, n = rng_() % 8; i < n; ++i) {
      std::string name = RandomString();
      if (name.empty()) name = "n";
      item[name] = RandomValue(2);
    }
    return item;
  }

  uint64_t seed_;
  std::mt19937_64 rng_;
};

TEST_F(ItemCodecRandomTest, RoundTrip) {
  for (int i = 0; i < 3000; ++i) {
    Item item = RandomItem();
    ASSERT_OK(ValidateItem(item));
    std::string bytes = EncodeItem(item);
    auto decoded = DecodeItem(bytes);
    ASSERT_OK(decoded);
    ASSERT_EQ(*decoded, item) << DebugString(item);
    // Every top-level attribute is reachable without decoding the rest.
    auto view = ItemView::Open(bytes);
    ASSERT_OK(view);
    // The stored size is the item's, and what the attributes give.
    ASSERT_EQ(view->stored_size(), ItemSize(item)) << DebugString(item);
    ASSERT_EQ(ComputeItemSize(*view), ItemSize(item)) << DebugString(item);
    for (const auto& [name, value] : item) {
      auto v = view->Find(name);
      ASSERT_TRUE(v.has_value());
      ASSERT_EQ(*v->Decode(), value);
    }
  }
}

// 100,000 items of every type, each with a chain nested to a random depth
// up to the limit (32 levels): version 2 round trips, and version 1 bytes of
// the same item move to exactly what version 2 writes.
TEST_F(ItemCodecRandomTest, HundredThousandDeepRoundTripsAndUpgrades) {
  for (int i = 0; i < 100000; ++i) {
    Item item = RandomItem();
    const int depth = static_cast<int>(rng_() % (kMaxNestingLevels - 1));
    AV chain = RandomValue(kMaxNestingLevels);  // a leaf or a set
    for (int level = depth; level > 0; --level) {
      chain = level % 2 ? AV::L({chain, RandomValue(kMaxNestingLevels)})
                        : AV::M({{RandomString(), chain}});
    }
    item["chain"] = chain;
    ASSERT_OK(ValidateItem(item));
    const std::string bytes = EncodeItem(item);
    auto view = ItemView::Open(bytes);
    ASSERT_OK(view);
    ASSERT_EQ(*view->Decode(), item) << DebugString(item);
    if (i % 10 == 0) {
      auto upgraded = UpgradeStoredItem(testing::EncodeItemV1(item));
      ASSERT_OK(upgraded);
      ASSERT_TRUE(upgraded->has_value());
      ASSERT_EQ(**upgraded, bytes) << DebugString(item);
    }
  }
}

// Random items under random keys of each type (S and B with NUL and 0xFF
// bytes, N of every shape), the key attributes sorting anywhere among the
// others: stored without them and read back whole, as items and as views.
TEST_F(ItemCodecRandomTest, WithoutKeyRoundTrips) {
  // One table's dictionary for every item: full after 64 names, so later
  // items mix interned names with names written out.
  auto names = TestNames(64);
  for (int i = 0; i < 20000; ++i) {
    Item item = RandomItem();
    const ScalarAttributeType types[] = {ScalarAttributeType::kS, ScalarAttributeType::kN,
                                         ScalarAttributeType::kB};
    const ScalarAttributeType pt = types[rng_() % 3], st = types[rng_() % 3];
    auto key_value = [&](ScalarAttributeType t) {
      if (t == ScalarAttributeType::kN) return AV::N(RandomNumber());
      std::string v = RandomString() + static_cast<char>(rng_());
      return t == ScalarAttributeType::kS ? AV::S(v) : AV::B(v);
    };
    std::string pk_name = RandomString() + "p", sk_name = RandomString() + "s";
    const bool with_sort = rng_() % 4 != 0;
    item[pk_name] = key_value(pt);
    if (with_sort) item[sk_name] = key_value(st);
    StoredKeySchema keys{{pk_name, pt}, std::nullopt, i % 3 ? names.get() : nullptr};
    if (with_sort) keys.sort = KeyAttributeRef{sk_name, st};
    const AV* sk = with_sort ? &item.at(sk_name) : nullptr;
    const std::string key = EncodeItemKey(3, item.at(pk_name), sk).bytes();
    std::string stored, scratch;
    EncodeItemWithoutKey(item, ItemSize(item), keys, &stored);
    auto decoded = DecodeStoredItem(key, stored, keys);
    ASSERT_OK(decoded);
    ASSERT_EQ(*decoded, item) << DebugString(item);
    auto view = OpenStoredItem(key, stored, keys, &scratch);
    ASSERT_OK(view);
    ASSERT_TRUE(testing::ViewShows(*view, item)) << DebugString(item);
  }
}

// Nesting past the limit is refused by Open, though the bytes are well formed.
TEST(ItemCodecTest, OpenRefusesNestingPastTheLimit) {
  AV v = AV::S("leaf");
  for (int i = 0; i < kMaxNestingLevels; ++i) v = AV::L({v});
  const Item item{{"deep", v}};
  ASSERT_FALSE(ValidateItem(item).ok());
  const std::string bytes = EncodeItem(item);  // the encoder does not check: REQUIRES
  auto view = ItemView::Open(bytes);
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.status().message().find("nested too deep"), std::string::npos);
}

TEST_F(ItemCodecRandomTest, JsonFromViewMatchesJsonFromItem) {
  for (int i = 0; i < 3000; ++i) {
    Item item = RandomItem();
    std::string bytes = EncodeItem(item);
    auto view = ItemView::Open(bytes);
    ASSERT_OK(view);
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    ASSERT_OK(WriteJson(&w, *view));
    ASSERT_EQ(std::string(buf.GetString(), buf.GetSize()), ToJson(item)) << DebugString(item);
  }
}

TEST_F(ItemCodecRandomTest, CorruptedAndTruncatedBuffersAreErrorsNotCrashes) {
  int rejected = 0, total = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string bytes = EncodeItem(RandomItem());
    std::string mutated = bytes;
    if (rng_() % 2) {
      mutated.resize(rng_() % bytes.size());
    } else {
      for (int k = 0, n = 1 + rng_() % 4; k < n; ++k) {
        mutated[rng_() % mutated.size()] = static_cast<char>(rng_());
      }
    }
    ++total;
    auto r = DecodeItem(mutated);
    if (!r.ok()) {
      ASSERT_EQ(r.status().code(), Status::Code::kCorruption);
      ++rejected;
    } else {
      // A mutation that still decodes must re-encode to a valid item.
      ASSERT_OK(DecodeItem(EncodeItem(*r)));
    }
  }
  // Truncation always breaks the buffer; at least those must be rejected.
  EXPECT_GT(rejected, total / 3);
}

}  // namespace
}  // namespace dynarock::format
