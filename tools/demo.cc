// The fleet example on the format layer: builds the seed's items (vehicle
// profiles and telemetry readings), encodes their RocksDB keys and values, and
// prints the keys in byte order, showing that each vehicle's item collection
// is one contiguous range ordered by sort key.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "format/item_codec.h"
#include "format/item_size.h"
#include "format/json.h"
#include "format/key_codec.h"

namespace {

using dynarock::format::AttributeValue;
using dynarock::format::EncodedKey;
using dynarock::format::Item;
using dynarock::format::Number;

constexpr uint32_t kTelemetryTableId = 1;

Number Num(const char* text) { return *Number::Parse(text); }

std::vector<Item> FleetSeed() {
  std::vector<Item> items;
  const char* vehicles[] = {"VEH#V-7741", "VEH#V-0002", "VEH#V-0150"};
  const char* depots[] = {"DEP-LON-3", "DEP-MAN-1", "DEP-LON-3"};
  for (int v = 0; v < 3; ++v) {
    items.push_back(Item{{"PK", AttributeValue::S(vehicles[v])},
                         {"SK", AttributeValue::S("META")},
                         {"model", AttributeValue::S("eVan 2")},
                         {"depotCode", AttributeValue::S(depots[v])}});
    for (int minute = 0; minute < 4; ++minute) {
      char ts[64];
      std::snprintf(ts, sizeof ts, "TS#2026-06-23T09:%02d:01Z", minute * 5);
      char speed[16];
      std::snprintf(speed, sizeof speed, "%d.5", 40 + 7 * minute + v);
      items.push_back(Item{{"PK", AttributeValue::S(vehicles[v])},
                           {"SK", AttributeValue::S(ts)},
                           {"speedKph", AttributeValue::N(Num(speed))},
                           {"coolantC", AttributeValue::N(Num("88"))},
                           {"fuelPct", AttributeValue::N(Num("0.61"))},
                           {"depotCode", AttributeValue::S(depots[v])}});
    }
  }
  return items;
}

std::string Hex(const std::string& bytes, size_t max) {
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < max; ++i) {
    char b[4];
    std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char>(bytes[i]));
    out += b;
  }
  return bytes.size() > max ? out + ".." : out;
}

}  // namespace

int main() {
  struct Row {
    EncodedKey key;
    const Item* item;
    size_t value_bytes;
  };
  std::vector<Item> items = FleetSeed();
  std::vector<Row> rows;
  for (const Item& item : items) {
    const AttributeValue& pk = item.at("PK");
    const AttributeValue& sk = item.at("SK");
    std::string value = dynarock::format::EncodeItem(item);
    rows.push_back({dynarock::format::EncodeItemKey(kTelemetryTableId, pk, &sk), &item, value.size()});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.key < b.key; });

  std::printf("Telemetry keys in RocksDB order (table id | xxh64(PK) | PK | SK):\n\n");
  std::string previous_pk;
  int collections = 0;
  for (const Row& r : rows) {
    const std::string& pk = r.item->at("PK").s();
    if (pk != previous_pk) {
      std::printf("%scollection %s\n", collections++ ? "\n" : "", pk.c_str());
      previous_pk = pk;
    }
    std::printf("  %-36s key %s  item %zu B (DynamoDB size %zu B)\n", r.item->at("SK").s().c_str(),
                Hex(r.key.bytes(), 20).c_str(), r.value_bytes,
                dynarock::format::ItemSize(*r.item));
  }
  std::printf("\n%zu items in %d contiguous collections; one reading as DynamoDB JSON:\n%s\n",
              rows.size(), collections, dynarock::format::ToJson(items[1]).c_str());
  return 0;
}
