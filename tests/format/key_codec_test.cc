#include "format/key_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <set>

#include "tests/util/hex.h"
#include "tests/util/seed.h"
#include "tests/util/status_matchers.h"

namespace dynarock::format {
namespace {

using testing::Hex;

Number N(std::string_view s) {
  auto n = Number::Parse(s);
  EXPECT_OK(n);
  return n.ok() ? *n : Number();
}

std::string EncodeNumber(std::string_view s) {
  std::string out;
  PutNumberComponent(&out, N(s));
  return out;
}

std::string EncodeBytes(std::string_view s) {
  std::string out;
  PutBytesComponent(&out, s);
  return out;
}

// Golden vectors: the on-disk format, byte for byte. Never change an entry;
// they were computed by hand from KEY_FORMAT.md.
TEST(KeyCodecGoldenTest, Bytes) {
  struct Case {
    std::string in;
    const char* hex;
  } cases[] = {
      {"", "00 01"},
      {"a", "61 00 01"},
      {"ab", "61 62 00 01"},
      {std::string("a\0b", 3), "61 00 FF 62 00 01"},
      {std::string(1, '\0'), "00 FF 00 01"},
      {std::string(2, '\0'), "00 FF 00 FF 00 01"},
      {"\x01", "01 00 01"},
      {"\xff", "FF 00 01"},
      {"\xff\xff", "FF FF 00 01"},
      {std::string("\xff\0", 2), "FF 00 FF 00 01"},
      {"\xc2\xbf", "C2 BF 00 01"},  // U+00BF, sorts after "z"
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Hex(EncodeBytes(c.in)), c.hex) << Hex(c.in);
  }
}

TEST(KeyCodecGoldenTest, Numbers) {
  std::string nines38 = "9.9999999999999999999999999999999999999E+125";
  std::string max_pos = "21 3F";
  std::string max_neg = "09 C0";
  for (int i = 0; i < 18; ++i) {
    max_pos += " C7";
    max_neg += " 38";
  }
  max_pos += " C6";
  max_neg += " 39";
  struct Case {
    std::string in;
    std::string hex;
  } cases[] = {
      {"0", "15"},
      {"-0", "15"},
      {"1", "17 02"},
      {"1.0", "17 02"},
      {"10E-1", "17 02"},
      {"-1", "13 FD"},
      {"10", "17 14"},
      {"99", "17 C6"},
      {"100", "18 02"},
      {"12345", "19 03 2F 5A"},
      {"1.5", "17 03 64"},
      {"0.5", "16 FF 64"},
      {"-0.5", "14 00 9B"},
      {"0.05", "16 FF 0A"},
      {"0.001", "16 FE 14"},
      {"1E19", "20 14"},
      {"-1E19", "0A EB"},
      {"1E20", "21 0B 02"},
      {"-1E20", "09 F4 FD"},
      {"1E125", "21 3F 14"},
      {"1E-130", "16 BF 02"},
      {"-1E-130", "14 40 FD"},
      {nines38, max_pos},
      {"-" + nines38, max_neg},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Hex(EncodeNumber(c.in)), c.hex) << c.in;
    // And back.
    std::string bytes = EncodeNumber(c.in);
    std::string_view in = bytes;
    Number n;
    ASSERT_OK(GetNumberComponent(&in, &n));
    EXPECT_EQ(n, N(c.in));
    EXPECT_TRUE(in.empty());
  }
}

TEST(KeyCodecGoldenTest, ItemKey) {
  // table 7, partition "VEH#1", sort "TS#5": id | xxh64(enc(pk)) | enc(pk) | enc(sk)
  AttributeValue sk = AttributeValue::S("TS#5");
  EncodedKey key = EncodeItemKey(7, AttributeValue::S("VEH#1"), &sk);
  std::string pk = EncodeBytes("VEH#1");
  std::string expect = std::string("\0\0\0\x07", 4);
  PutFixed64BE(&expect, PartitionHash(pk));
  expect += pk + EncodeBytes("TS#5");
  EXPECT_EQ(Hex(key.bytes()), Hex(expect));
  EXPECT_EQ(Hex(key.bytes().substr(0, 4)), "00 00 00 07");
  // The hash is xxHash64 with seed 0 of the encoded partition key: pinned.
  EXPECT_EQ(PartitionHash(""), 0xEF46DB3751D8E999ull);  // XXH64 of the empty input
}

TEST(KeyCodecGoldenTest, MultiAttributeIndexKey) {
  // GSI 9 keyed (tournamentId, region) / (round, bracket) on a table keyed
  // matchId: id | xxh64(enc(h1) enc(h2)) | enc(h1) enc(h2) | enc(r1) enc(r2) | enc(pk).
  const AttributeValue h1 = AttributeValue::S("WINTER"), h2 = AttributeValue::S("EU");
  const AttributeValue r1 = AttributeValue::N(N("2")), r2 = AttributeValue::S("UP");
  const AttributeValue pk = AttributeValue::S("m1");
  const AttributeValue* partition[] = {&h1, &h2};
  const AttributeValue* sort[] = {&r1, &r2};
  EncodedKey key = EncodeIndexKey(9, partition, sort, pk, nullptr);
  EXPECT_EQ(Hex(key.bytes()),
            "00 00 00 09 "              // space id
            "61 D6 BC 1A ED 24 6A 94 "  // XXH64("WINTER" 00 01 "EU" 00 01)
            "57 49 4E 54 45 52 00 01 "  // "WINTER"
            "45 55 00 01 "              // "EU"
            "17 04 "                    // 2
            "55 50 00 01 "              // "UP"
            "6D 31 00 01");             // "m1"
  EXPECT_EQ(PartitionHash(EncodeBytes("WINTER") + EncodeBytes("EU")), 0x61d6bc1aed246a94ull);
  // The collection prefix is every partition component, hashed together.
  EXPECT_EQ(key.bytes().rfind(CollectionPrefix(9, partition).bytes(), 0), 0u);
  // One component is byte for byte the single-attribute key.
  const AttributeValue* one[] = {&h1};
  const AttributeValue* first[] = {&r1};
  EXPECT_EQ(EncodeIndexKey(9, one, first, pk, nullptr), EncodeIndexKey(9, h1, &r1, pk, nullptr));
  EXPECT_EQ(CollectionPrefix(9, one), CollectionPrefix(9, h1));

  KeySchemaTypes types{ScalarAttributeType::kS, ScalarAttributeType::kN};
  types.more_partition.push_back(ScalarAttributeType::kS);
  types.more_sort.push_back(ScalarAttributeType::kS);
  auto d = DecodeIndexKey(key.bytes(), types, {ScalarAttributeType::kS, std::nullopt});
  ASSERT_OK(d);
  EXPECT_EQ(d->index.pk, h1);
  EXPECT_EQ(d->index.more_pk, std::vector<AttributeValue>{h2});
  EXPECT_EQ(*d->index.sk, r1);
  EXPECT_EQ(d->index.more_sk, std::vector<AttributeValue>{r2});
  EXPECT_EQ(d->pk, pk);
  // A component short, or of another type: Corruption, never a wrong key.
  types.more_sort.count = 0;
  EXPECT_FALSE(DecodeIndexKey(key.bytes(), types, {ScalarAttributeType::kS, std::nullopt}).ok());
  types.more_sort.push_back(ScalarAttributeType::kN);
  EXPECT_FALSE(DecodeIndexKey(key.bytes(), types, {ScalarAttributeType::kS, std::nullopt}).ok());
}

// ---- Randomized ---------------------------------------------------------------

class KeyCodecRandomTest : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = testing::TestSeed(
        ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() +
        std::string(".") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    rng_.seed(seed_);
  }

  Number RandomNumber() {
    if (rng_() % 50 == 0) return Number();
    int digits = 1 + static_cast<int>(rng_() % 38);
    std::string d;
    for (int i = 0; i < digits; ++i) d.push_back(static_cast<char>('0' + rng_() % 10));
    d[0] = static_cast<char>('1' + rng_() % 9);
    // Few distinct exponents make close values (same class, same E) common.
    int top = rng_() % 2 ? static_cast<int>(rng_() % 8) - 4
                         : Number::kMinTopPosition +
                               static_cast<int>(rng_() % (Number::kMaxTopPosition -
                                                          Number::kMinTopPosition + 1));
    std::string text = (rng_() % 2 ? "-" : "") + d + "E" + std::to_string(top - digits + 1);
    auto n = Number::Parse(text);
    EXPECT_OK(n);
    return *n;
  }

  std::string RandomBytes() {
    static constexpr char kAlphabet[] = {'\0', '\x01', '\xfe', '\xff', 'a', 'b'};
    size_t len = rng_() % 6;
    std::string s;
    for (size_t i = 0; i < len; ++i) {
      s.push_back(rng_() % 4 ? kAlphabet[rng_() % 6] : static_cast<char>(rng_()));
    }
    return s;
  }

  uint64_t seed_;
  std::mt19937_64 rng_;
};

TEST_F(KeyCodecRandomTest, NumberByteOrderIsNumericOrder) {
  std::vector<std::pair<Number, std::string>> values;
  for (int i = 0; i < 100000; ++i) {
    Number n = RandomNumber();
    std::string enc;
    PutNumberComponent(&enc, n);
    ASSERT_LE(enc.size(), kMaxNumberComponentBytes);
    values.emplace_back(n, enc);
  }
  std::sort(values.begin(), values.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  for (size_t i = 1; i < values.size(); ++i) {
    const auto& [a, ea] = values[i - 1];
    const auto& [b, eb] = values[i];
    ASSERT_EQ(a <=> b, ea <=> eb) << a.ToString() << " vs " << b.ToString();
  }
}

TEST_F(KeyCodecRandomTest, NumberRoundTripWithTrailingBytes) {
  for (int i = 0; i < 100000; ++i) {
    Number n = RandomNumber();
    std::string enc;
    PutNumberComponent(&enc, n);
    std::string suffix = RandomBytes();
    std::string buf = enc + suffix;
    std::string_view in = buf;
    Number out;
    ASSERT_OK(GetNumberComponent(&in, &out));
    ASSERT_EQ(out, n);
    ASSERT_EQ(in, suffix);
  }
}

// The decoder as first written: digits into a string, then a re-encoding
// compared byte for byte. Slow, but canonical by construction: the fast
// decoder must accept exactly what it accepts, with the same result.
bool ReferenceGetNumber(std::string_view* in, Number* out) {
  std::string_view p = *in;
  if (p.empty()) return false;
  const uint8_t tag = static_cast<uint8_t>(p[0]);
  p.remove_prefix(1);
  if (tag == 0x15) {
    *out = Number();
    *in = p;
    return true;
  }
  bool neg = tag < 0x15;
  int e;
  auto byte = [&](uint8_t* b) {
    if (p.empty()) return false;
    *b = static_cast<uint8_t>(p[0]);
    p.remove_prefix(1);
    return true;
  };
  uint8_t b = 0;
  if (tag == 0x09) {
    if (!byte(&b)) return false;
    e = 0xFF - b;
  } else if (tag > 0x09 && tag < 0x14) {
    e = 0x14 - tag;
  } else if (tag == 0x14) {
    if (!byte(&b)) return false;
    e = -static_cast<int>(b);
  } else if (tag == 0x16) {
    if (!byte(&b)) return false;
    e = static_cast<int>(b) - 0xFF;
  } else if (tag > 0x16 && tag < 0x21) {
    e = tag - 0x16;
  } else if (tag == 0x21) {
    if (!byte(&b)) return false;
    e = b;
  } else {
    return false;
  }
  std::string digits;
  for (int i = 0;; ++i) {
    if (p.empty() || i == 20) return false;
    uint8_t m = static_cast<uint8_t>(p[0]);
    if (neg) m = static_cast<uint8_t>(~m);
    p.remove_prefix(1);
    int x = m >> 1;
    if (x > 99) return false;
    digits.push_back(static_cast<char>('0' + x / 10));
    digits.push_back(static_cast<char>('0' + x % 10));
    if ((m & 1) == 0) break;
  }
  int top = digits[0] != '0' ? 2 * e - 1 : 2 * e - 2;
  size_t first = digits.find_first_not_of('0');
  size_t last = digits.find_last_not_of('0');
  if (first == std::string::npos || first > 1) return false;
  std::string_view sig = std::string_view(digits).substr(first, last - first + 1);
  if (sig.size() > static_cast<size_t>(Number::kMaxDigits) || top > Number::kMaxTopPosition ||
      top < Number::kMinTopPosition) {
    return false;
  }
  Number::uint128 c = 0;
  for (char d : sig) c = c * 10 + static_cast<unsigned>(d - '0');
  Number n = Number::FromParts(neg, c, top - static_cast<int>(sig.size()) + 1);
  std::string canonical;
  PutNumberComponent(&canonical, n);
  if (std::string_view(canonical) != in->substr(0, in->size() - p.size())) return false;
  *out = n;
  *in = p;
  return true;
}

TEST_F(KeyCodecRandomTest, NumberDecoderAgreesWithTheReencodingDecoder) {
  auto check = [&](const std::string& bytes) {
    std::string_view fast_in = bytes, ref_in = bytes;
    Number fast, ref;
    const bool fast_ok = GetNumberComponent(&fast_in, &fast).ok();
    ASSERT_EQ(fast_ok, ReferenceGetNumber(&ref_in, &ref)) << Hex(bytes);
    if (!fast_ok) return;
    ASSERT_EQ(fast, ref) << Hex(bytes);
    ASSERT_EQ(fast_in.size(), ref_in.size()) << Hex(bytes);
  };
  int accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string enc;
    PutNumberComponent(&enc, RandomNumber());
    switch (rng_() % 5) {
      case 0:
        break;  // valid
      case 1:
        enc[rng_() % enc.size()] = static_cast<char>(rng_());
        break;
      case 2:
        enc[rng_() % enc.size()] ^= static_cast<char>(1u << (rng_() % 8));
        break;
      case 3:
        enc.resize(rng_() % (enc.size() + 1));
        break;
      case 4:  // a random tag and mantissa of random length
        enc.assign(1, static_cast<char>(0x08 + rng_() % 0x1b));
        for (size_t n = rng_() % 23; n > 0; --n) enc.push_back(static_cast<char>(rng_()));
        break;
    }
    check(enc);
    if (HasFatalFailure()) return;
    std::string_view in = enc;
    Number n;
    accepted += GetNumberComponent(&in, &n).ok();
  }
  // Both outcomes were exercised.
  EXPECT_GT(accepted, 40000);
  EXPECT_LT(accepted, 190000);
}

TEST_F(KeyCodecRandomTest, BytesOrderRoundTripAndAppend) {
  std::vector<std::pair<std::string, std::string>> values;
  for (int i = 0; i < 100000; ++i) {
    std::string s = RandomBytes();
    // Append leaves the existing prefix intact.
    std::string enc = "prefix";
    PutBytesComponent(&enc, s);
    ASSERT_EQ(enc.substr(0, 6), "prefix");
    enc.erase(0, 6);
    // Decode tolerates whatever follows.
    std::string suffix = RandomBytes();
    std::string buf = enc + suffix;
    std::string_view in = buf;
    std::string out;
    ASSERT_OK(GetBytesComponent(&in, &out));
    ASSERT_EQ(out, s);
    ASSERT_EQ(in, suffix);
    values.emplace_back(s, enc);
  }
  std::sort(values.begin(), values.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  for (size_t i = 1; i < values.size(); ++i) {
    // Unsigned bytewise order of the raw values (std::string compares as memcmp).
    ASSERT_LE(values[i - 1].first, values[i].first) << Hex(values[i].first);
    ASSERT_EQ(values[i - 1].first == values[i].first, values[i - 1].second == values[i].second);
  }
}

TEST_F(KeyCodecRandomTest, BeginsWithRangeContainsExactlyTheMatches) {
  for (int i = 0; i < 100000; ++i) {
    std::string p = RandomBytes();
    std::string s = rng_() % 2 ? p + RandomBytes() : RandomBytes();
    std::string lower;
    PutBytesPrefix(&lower, p);
    std::optional<std::string> upper = PrefixSuccessor(lower);
    std::string enc;
    PutBytesComponent(&enc, s);
    bool in_range = enc >= lower && (!upper || enc < *upper);
    bool matches = s.compare(0, p.size(), p) == 0;
    ASSERT_EQ(in_range, matches) << "prefix " << Hex(p) << " value " << Hex(s);
  }
}

TEST_F(KeyCodecRandomTest, CollectionsAreContiguous) {
  // Keys of many collections, sorted: each collection is one run, ordered by sort key.
  std::vector<std::pair<EncodedKey, std::pair<int, Number>>> keys;
  for (int i = 0; i < 20000; ++i) {
    int vehicle = static_cast<int>(rng_() % 200);
    Number sk = RandomNumber();
    AttributeValue pk = AttributeValue::S("VEH#" + std::to_string(vehicle));
    AttributeValue sort = AttributeValue::N(sk);
    keys.emplace_back(EncodeItemKey(1, pk, &sort), std::make_pair(vehicle, sk));
  }
  std::sort(keys.begin(), keys.end());
  std::set<int> finished;
  for (size_t i = 0; i < keys.size(); ++i) {
    int v = keys[i].second.first;
    if (i > 0 && keys[i - 1].second.first == v) {
      ASSERT_LE(keys[i - 1].second.second, keys[i].second.second);
    } else {
      ASSERT_TRUE(finished.insert(v).second) << "collection " << v << " is split";
    }
  }
}

// Multi-attribute index keys: random tuples of S, N and B components. Within
// one partition tuple, byte order is the order of the sort tuples compared
// component by component (each by its type); each partition tuple is one
// contiguous run; every key decodes back to its components.
TEST_F(KeyCodecRandomTest, MultiAttributeKeysOrderAsTuples) {
  const ScalarAttributeType kTypes[] = {ScalarAttributeType::kS, ScalarAttributeType::kN,
                                        ScalarAttributeType::kB};
  for (int schema = 0; schema < 20; ++schema) {
    const size_t partitions = 1 + rng_() % 4, sorts = rng_() % 5;
    std::vector<ScalarAttributeType> types;
    for (size_t i = 0; i < partitions + sorts; ++i) types.push_back(kTypes[rng_() % 3]);
    auto random_value = [&](ScalarAttributeType t, bool few) {
      if (t == ScalarAttributeType::kN) {
        return few ? AttributeValue::N(Number::FromInt64(static_cast<int64_t>(rng_() % 3)))
                   : AttributeValue::N(RandomNumber());
      }
      std::string bytes = few ? std::string(1, static_cast<char>('a' + rng_() % 2)) : RandomBytes();
      if (bytes.empty()) bytes = "z";
      return t == ScalarAttributeType::kS ? AttributeValue::S(bytes) : AttributeValue::B(bytes);
    };
    struct Entry {
      EncodedKey key;
      std::vector<AttributeValue> values;  // partition components, then sort components
    };
    std::vector<Entry> entries;
    for (int i = 0; i < 400; ++i) {
      Entry e;
      // Few partition values, so collections hold many entries.
      for (size_t c = 0; c < types.size(); ++c)
        e.values.push_back(random_value(types[c], c < partitions));
      std::vector<const AttributeValue*> p, s;
      for (size_t c = 0; c < types.size(); ++c) (c < partitions ? p : s).push_back(&e.values[c]);
      const AttributeValue table_pk = AttributeValue::S("t" + std::to_string(i));
      e.key = EncodeIndexKey(3, p, s, table_pk, nullptr);
      KeySchemaTypes schema{types[0], sorts ? std::optional(types[partitions]) : std::nullopt};
      for (size_t c = 1; c < partitions; ++c) schema.more_partition.push_back(types[c]);
      for (size_t c = partitions + 1; c < types.size(); ++c) schema.more_sort.push_back(types[c]);
      auto d = DecodeIndexKey(e.key.bytes(), schema, {ScalarAttributeType::kS, std::nullopt});
      ASSERT_OK(d);
      std::vector<AttributeValue> back{d->index.pk};
      back.insert(back.end(), d->index.more_pk.begin(), d->index.more_pk.end());
      if (d->index.sk) back.push_back(*d->index.sk);
      back.insert(back.end(), d->index.more_sk.begin(), d->index.more_sk.end());
      ASSERT_EQ(back, e.values) << "seed " << seed_;
      entries.push_back(std::move(e));
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.key < b.key; });
    auto compare = [](const AttributeValue& a, const AttributeValue& b) {
      if (a.is(AttrType::kN)) return a.n() <=> b.n();
      const std::string& x = a.is(AttrType::kS) ? a.s() : a.b();
      const std::string& y = a.is(AttrType::kS) ? b.s() : b.b();
      const int c = std::string_view(x).compare(y);  // unsigned bytes, as DynamoDB orders them
      return c < 0   ? std::strong_ordering::less
             : c > 0 ? std::strong_ordering::greater
                     : std::strong_ordering::equal;
    };
    std::set<std::vector<std::string>> finished;
    auto partition_of = [&](const Entry& e) {
      std::vector<std::string> out;
      for (size_t c = 0; c < partitions; ++c)
        out.push_back(Hex(CollectionPrefix(0, e.values[c]).bytes()));
      return out;
    };
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i > 0 && partition_of(entries[i - 1]) == partition_of(entries[i])) {
        std::strong_ordering order = std::strong_ordering::equal;
        for (size_t c = partitions; c < types.size() && order == 0; ++c) {
          order = compare(entries[i - 1].values[c], entries[i].values[c]);
        }
        ASSERT_TRUE(order <= 0) << "seed " << seed_ << " schema " << schema;
      } else {
        ASSERT_TRUE(finished.insert(partition_of(entries[i])).second)
            << "a collection is split; seed " << seed_;
      }
    }
  }
}

// ---- Keys ----------------------------------------------------------------------

TEST(KeyCodecTest, ItemKeyRoundTrip) {
  AttributeValue pk = AttributeValue::B(std::string("\0\xff", 2));
  AttributeValue sk = AttributeValue::N(N("-12.5"));
  EncodedKey key = EncodeItemKey(42, pk, &sk);
  auto decoded = DecodeItemKey(key.bytes(), {ScalarAttributeType::kB, ScalarAttributeType::kN});
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->space_id, 42u);
  EXPECT_EQ(decoded->pk, pk);
  ASSERT_TRUE(decoded->sk.has_value());
  EXPECT_EQ(*decoded->sk, sk);
  // The collection prefix is a prefix of every key in the collection.
  EXPECT_EQ(key.bytes().rfind(CollectionPrefix(42, pk).bytes(), 0), 0u);

  EncodedKey hash_only = EncodeItemKey(3, AttributeValue::S("x"), nullptr);
  auto d2 = DecodeItemKey(hash_only.bytes(), {ScalarAttributeType::kS, std::nullopt});
  ASSERT_OK(d2);
  EXPECT_FALSE(d2->sk.has_value());
}

TEST(KeyCodecTest, IndexKeyRoundTrip) {
  AttributeValue ipk = AttributeValue::S("DEP-LON-3");
  AttributeValue isk = AttributeValue::S("2026-06-23T09:00:01Z");
  AttributeValue pk = AttributeValue::S("VEH#V-7741");
  AttributeValue sk = AttributeValue::S("TS#2026-06-23T09:00:01Z");
  EncodedKey key = EncodeIndexKey(9, ipk, &isk, pk, &sk);
  auto d = DecodeIndexKey(key.bytes(), {ScalarAttributeType::kS, ScalarAttributeType::kS},
                          {ScalarAttributeType::kS, ScalarAttributeType::kS});
  ASSERT_OK(d);
  EXPECT_EQ(d->index.space_id, 9u);
  EXPECT_EQ(d->index.pk, ipk);
  EXPECT_EQ(*d->index.sk, isk);
  EXPECT_EQ(d->pk, pk);
  EXPECT_EQ(*d->sk, sk);
}

TEST(KeyCodecTest, CorruptKeysAreErrors) {
  AttributeValue pk = AttributeValue::S("abc");
  std::string good = EncodeItemKey(1, pk, nullptr).bytes();
  KeySchemaTypes schema{ScalarAttributeType::kS, std::nullopt};
  ASSERT_OK(DecodeItemKey(good, schema));
  // Every truncation fails; so does a flipped hash byte and a trailing byte.
  for (size_t len = 0; len < good.size(); ++len) {
    EXPECT_EQ(DecodeItemKey(good.substr(0, len), schema).status().code(),
              Status::Code::kCorruption)
        << len;
  }
  std::string bad_hash = good;
  bad_hash[5] ^= 1;
  EXPECT_EQ(DecodeItemKey(bad_hash, schema).status().code(), Status::Code::kCorruption);
  EXPECT_EQ(DecodeItemKey(good + "x", schema).status().code(), Status::Code::kCorruption);
  // Bad escape.
  std::string_view bad_escape("a\x00\x02", 3);
  std::string out;
  EXPECT_FALSE(GetBytesComponent(&bad_escape, &out).ok());
}

TEST(KeyCodecTest, NonCanonicalNumbersAreRejected) {
  const std::string bad[] = {
      std::string("\x17", 1),              // truncated mantissa
      std::string("\x17\x00", 2),          // zero digit as the last
      std::string("\x17\x01\x02", 3),      // leading zero pair
      std::string("\x17\xc8", 2),          // digit 100
      std::string("\x21\x05\x02", 3),      // large class with a medium exponent
      std::string("\x16\xff\x03", 3),      // odd last byte then end of input
      std::string("\x22", 1),              // not a number tag
      std::string("\x08", 1),
  };
  for (const auto& b : bad) {
    std::string_view in = b;
    Number n;
    EXPECT_FALSE(GetNumberComponent(&in, &n).ok()) << Hex(b);
  }
}

TEST(KeyCodecTest, PrefixSuccessor) {
  EXPECT_EQ(PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(PrefixSuccessor("a\xff\xff"), "b");
  EXPECT_EQ(PrefixSuccessor("\xff\xff"), std::nullopt);
  EXPECT_EQ(PrefixSuccessor(""), std::nullopt);
}

}  // namespace
}  // namespace dynarock::format
