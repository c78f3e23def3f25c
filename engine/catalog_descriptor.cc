// The catalog's bytes (STORAGE_LAYOUT.md): the format record, catalog keys,
// and table and stream descriptors (schemas/catalog.fbs) with the stored
// values of their enums.
#include <flatbuffers/flatbuffers.h>

#include <cstring>

#include "engine/catalog.h"
#include "format/vector.h"
#include "schemas/catalog_generated.h"

namespace dynarock {
namespace {

constexpr uint8_t kDescriptorVersion = 1;

}  // namespace

std::string EncodeFormatRecord(uint32_t version) {
  std::string out(kFormatMagic);
  format::PutFixed32BE(&out, version);
  return out;
}

Result<uint32_t> DecodeFormatRecord(std::string_view bytes) {
  uint32_t version = 0;
  if (bytes.size() != kFormatMagic.size() + 4 || !bytes.starts_with(kFormatMagic)) {
    return Status::Corruption("catalog: the format record is not Dynarock's");
  }
  bytes.remove_prefix(kFormatMagic.size());
  if (!format::GetFixed32BE(&bytes, &version)) {
    return Status::Corruption("catalog: the format record is not Dynarock's");
  }
  return version;
}

std::string CatalogTableKey(std::string_view table_name) {
  return std::string(kCatalogTablePrefix) + std::string(table_name);
}

// Enum values stored in descriptors (schemas/catalog.fbs) are on disk.
static_assert(static_cast<int>(fb::ScalarType::S) == static_cast<int>(ScalarAttributeType::kS) &&
              static_cast<int>(fb::ScalarType::N) == static_cast<int>(ScalarAttributeType::kN) &&
              static_cast<int>(fb::ScalarType::B) == static_cast<int>(ScalarAttributeType::kB));
static_assert(static_cast<int>(DistanceFunction::kCosine) == 0 &&
              static_cast<int>(DistanceFunction::kEuclidean) == 1 &&
              static_cast<int>(DistanceFunction::kDotProduct) == 2);  // VectorIndexDescriptor
static_assert(static_cast<int>(TableClass::kStandard) == 0 &&
              static_cast<int>(TableClass::kStandardInfrequentAccess) == 1);  // catalog.fbs
static_assert(static_cast<int>(ProjectionType::kKeysOnly) == 0 &&
              static_cast<int>(ProjectionType::kInclude) == 1 &&
              static_cast<int>(ProjectionType::kAll) ==
                  2);  // catalog.fbs: IndexDescriptor.projection

namespace {

// Written only when set (storage format 16): a descriptor without them is
// byte for byte version 15's.
template <typename Builder>
void AddSettings(Builder& b, const ThroughputSettings& s) {
  if (s.max_read_request_units) b.add_max_read_request_units(s.max_read_request_units);
  if (s.max_write_request_units) b.add_max_write_request_units(s.max_write_request_units);
  if (s.warm_read_units) b.add_warm_read_units(s.warm_read_units);
  if (s.warm_write_units) b.add_warm_write_units(s.warm_write_units);
}

template <typename Descriptor>
Result<ThroughputSettings> SettingsOf(const Descriptor* d) {
  ThroughputSettings s{d->max_read_request_units(), d->max_write_request_units(),
                       d->warm_read_units(), d->warm_write_units()};
  if (s.max_read_request_units < 0 || s.max_write_request_units < 0 || s.warm_read_units < 0 ||
      s.warm_write_units < 0) {
    return Status::Corruption("catalog: negative throughput setting");
  }
  return s;
}

}  // namespace

std::string EncodeTableDescriptor(const TableInfo& t) {
  flatbuffers::FlatBufferBuilder b(256);
  std::vector<flatbuffers::Offset<fb::AttributeDefinition>> defs;
  for (const auto& d : t.attribute_definitions) {
    defs.push_back(fb::CreateAttributeDefinition(b, b.CreateString(d.attribute_name),
                                                 static_cast<fb::ScalarType>(d.attribute_type)));
  }
  auto defs_offset = b.CreateVector(defs);
  std::vector<flatbuffers::Offset<fb::IndexDescriptor>> index_offsets;
  for (const auto& i : t.indexes) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> nka;
    for (const auto& a : i.non_key_attributes) nka.push_back(b.CreateString(a));
    auto nka_offset = b.CreateVector(nka);
    auto iname = b.CreateString(i.name);
    auto ipk = b.CreateString(i.partition_key.name);
    flatbuffers::Offset<flatbuffers::String> isk;
    if (i.sort_key) isk = b.CreateString(i.sort_key->name);
    // Written only for a multi-attribute GSI (storage format 15).
    auto names_of = [&](const std::vector<KeyAttribute>& keys) {
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> out;
      if (keys.empty()) return out;
      std::vector<flatbuffers::Offset<flatbuffers::String>> names;
      for (const auto& k : keys) names.push_back(b.CreateString(k.name));
      return b.CreateVector(names);
    };
    auto more_pk = names_of(i.more_partition_keys);
    auto more_sk = names_of(i.more_sort_keys);
    fb::IndexDescriptorBuilder ib(b);
    ib.add_name(iname);
    ib.add_space_id(i.space_id);
    ib.add_global(i.global);
    ib.add_partition_key(ipk);
    if (i.sort_key) ib.add_sort_key(isk);
    if (!i.more_partition_keys.empty()) ib.add_more_partition_keys(more_pk);
    if (!i.more_sort_keys.empty()) ib.add_more_sort_keys(more_sk);
    ib.add_projection(static_cast<uint8_t>(i.projection));
    ib.add_non_key_attributes(nka_offset);
    ib.add_read_capacity_units(i.throughput.read_capacity_units);
    ib.add_write_capacity_units(i.throughput.write_capacity_units);
    ib.add_backfilling(i.backfilling);
    AddSettings(ib, i.settings);
    index_offsets.push_back(ib.Finish());
  }
  auto indexes_offset = b.CreateVector(index_offsets);
  std::vector<flatbuffers::Offset<fb::VectorIndexDescriptor>> vector_offsets;
  for (const auto& v : t.vector_indexes) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> filters, nka;
    for (const auto& f : v.inline_filters) filters.push_back(b.CreateString(f.name));
    for (const auto& a : v.non_key_attributes) nka.push_back(b.CreateString(a));
    auto filters_offset = b.CreateVector(filters);
    auto nka_offset = b.CreateVector(nka);
    auto vname = b.CreateString(v.name);
    auto vattr = b.CreateString(v.vector_attribute);
    flatbuffers::Offset<flatbuffers::String> hash;
    if (v.hash) hash = b.CreateString(v.hash->name);
    fb::VectorIndexDescriptorBuilder vb(b);
    vb.add_name(vname);
    vb.add_space_id(v.space_id);
    vb.add_vector_attribute(vattr);
    vb.add_dimensions(v.dimensions);
    vb.add_distance(static_cast<uint8_t>(v.distance));
    if (v.hash) vb.add_hash_attribute(hash);
    vb.add_inline_filters(filters_offset);
    vb.add_projection(static_cast<uint8_t>(v.projection));
    vb.add_non_key_attributes(nka_offset);
    vb.add_backfilling(v.backfilling);
    vector_offsets.push_back(vb.Finish());
  }
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::VectorIndexDescriptor>>>
      vectors_offset;
  if (!vector_offsets.empty()) vectors_offset = b.CreateVector(vector_offsets);
  flatbuffers::Offset<flatbuffers::String> ttl;
  if (t.ttl_attribute) ttl = b.CreateString(*t.ttl_attribute);
  std::vector<flatbuffers::Offset<fb::Tag>> tag_offsets;
  for (const auto& [k, v] : t.tags) {
    // One statement each: the order of function arguments' evaluation is
    // unspecified (gcc and clang differ), and so would the bytes be.
    auto key = b.CreateString(k);
    auto value = b.CreateString(v);
    tag_offsets.push_back(fb::CreateTag(b, key, value));
  }
  auto tags_offset = b.CreateVector(tag_offsets);
  flatbuffers::Offset<flatbuffers::String> stream_label;
  if (t.stream) stream_label = b.CreateString(t.stream->label);
  auto name = b.CreateString(t.name);
  auto uuid = b.CreateString(t.uuid);
  auto pk = b.CreateString(t.partition_key.name);
  flatbuffers::Offset<flatbuffers::String> sk;
  if (t.sort_key) sk = b.CreateString(t.sort_key->name);
  auto policy_of = [&](const std::optional<AttachedPolicy>& p) {
    flatbuffers::Offset<fb::ResourcePolicy> out;
    if (!p) return out;
    auto document = b.CreateString(p->document);
    auto revision = b.CreateString(p->revision_id);
    auto label = p->stream_label.empty() ? 0 : b.CreateString(p->stream_label);
    return fb::CreateResourcePolicy(b, document, revision, label);
  };
  auto policy = policy_of(t.policy);
  auto stream_policy = policy_of(t.stream_policy);
  fb::TableDescriptorBuilder d(b);
  d.add_format_version(kDescriptorVersion);
  d.add_name(name);
  d.add_space_id(t.space_id);
  d.add_uuid(uuid);
  d.add_partition_key(pk);
  if (t.sort_key) d.add_sort_key(sk);
  d.add_attribute_definitions(defs_offset);
  d.add_billing(t.billing_mode == BillingMode::kPayPerRequest ? fb::Billing::PayPerRequest
                                                              : fb::Billing::Provisioned);
  d.add_read_capacity_units(t.throughput.read_capacity_units);
  d.add_write_capacity_units(t.throughput.write_capacity_units);
  d.add_creation_time_ms(t.creation_time_ms);
  d.add_indexes(indexes_offset);
  if (!t.vector_indexes.empty()) d.add_vector_indexes(vectors_offset);
  if (t.ttl_attribute) d.add_ttl_attribute(ttl);
  d.add_ttl_enabled(t.ttl_enabled);
  d.add_ttl_changed_ms(t.ttl_changed_ms);
  d.add_pay_per_request_since_ms(t.pay_per_request_since_ms);
  d.add_pitr_enabled(t.pitr_enabled);
  d.add_pitr_enabled_ms(t.pitr_enabled_ms);
  // 35, the default, is stored as 0 (absent), so older descriptors read the same.
  d.add_pitr_recovery_days(t.pitr_recovery_days == 35 ? 0 : t.pitr_recovery_days);
  d.add_deletion_protection(t.deletion_protection);
  if (policy.o != 0) d.add_policy(policy);
  if (stream_policy.o != 0) d.add_stream_policy(stream_policy);
  d.add_table_class(static_cast<uint8_t>(t.table_class));
  d.add_table_class_since_ms(t.table_class_since_ms);
  AddSettings(d, t.settings);
  d.add_tags(tags_offset);
  if (t.stream) {
    d.add_latest_stream_id(t.stream->id);
    d.add_stream_enabled(t.stream->enabled);
    d.add_stream_view_type(static_cast<uint8_t>(t.stream->view_type));
    d.add_stream_label(stream_label);
  }
  b.Finish(d.Finish(), fb::TableDescriptorIdentifier());
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

namespace {

// A copy of catalog bytes, aligned for FlatBuffers' verifier: the catalog is
// read once at open, the copy's cost is irrelevant.
struct AlignedCopy {
  explicit AlignedCopy(std::string_view bytes) : words((bytes.size() + 3) / 4), size(bytes.size()) {
    if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
  }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words.data()); }
  std::vector<uint32_t> words;
  size_t size;
};

}  // namespace

Result<TableInfo> DecodeTableDescriptor(std::string_view bytes) {
  const AlignedCopy aligned(bytes);
  const uint8_t* data = aligned.data();
  flatbuffers::Verifier verifier(data, aligned.size);
  if (!fb::VerifyTableDescriptorBuffer(verifier)) {
    return Status::Corruption("catalog: invalid table descriptor");
  }
  const fb::TableDescriptor* d = fb::GetTableDescriptor(data);
  if (d->format_version() != kDescriptorVersion) {
    return Status::Corruption("catalog: unsupported descriptor version " +
                              std::to_string(d->format_version()));
  }
  TableInfo t;
  t.name = d->name()->str();
  t.space_id = d->space_id();
  t.uuid = d->uuid() ? d->uuid()->str() : "";
  if (d->attribute_definitions()) {
    for (const auto* a : *d->attribute_definitions()) {
      if (static_cast<int>(a->type()) > 2) return Status::Corruption("catalog: bad attribute type");
      t.attribute_definitions.push_back(
          {a->name()->str(), static_cast<ScalarAttributeType>(a->type())});
    }
  }
  auto type_of = [&](const std::string& name) -> Result<ScalarAttributeType> {
    for (const auto& a : t.attribute_definitions) {
      if (a.attribute_name == name) return a.attribute_type;
    }
    return Status::Corruption("catalog: key attribute without definition: " + name);
  };
  DYNAROCK_ASSIGN_OR_RETURN(auto pk_type, type_of(d->partition_key()->str()));
  t.partition_key = {d->partition_key()->str(), pk_type};
  if (d->sort_key()) {
    DYNAROCK_ASSIGN_OR_RETURN(auto sk_type, type_of(d->sort_key()->str()));
    t.sort_key = KeyAttribute{d->sort_key()->str(), sk_type};
  }
  t.billing_mode = d->billing() == fb::Billing::PayPerRequest ? BillingMode::kPayPerRequest
                                                              : BillingMode::kProvisioned;
  t.throughput = {d->read_capacity_units(), d->write_capacity_units()};
  t.creation_time_ms = d->creation_time_ms();
  if (d->indexes()) {
    for (const auto* x : *d->indexes()) {
      IndexInfo i;
      i.name = x->name()->str();
      i.space_id = x->space_id();
      i.global = x->global();
      DYNAROCK_ASSIGN_OR_RETURN(auto ipk, type_of(x->partition_key()->str()));
      i.partition_key = {x->partition_key()->str(), ipk};
      if (x->sort_key()) {
        DYNAROCK_ASSIGN_OR_RETURN(auto isk, type_of(x->sort_key()->str()));
        i.sort_key = KeyAttribute{x->sort_key()->str(), isk};
      }
      auto more_of = [&](const auto* names, std::vector<KeyAttribute>* out) -> Status {
        if (names == nullptr) return Status::OK();
        if (names->size() + 1 > kMaxIndexPartitionKeys) {
          return Status::Corruption("catalog: too many index key attributes");
        }
        for (const auto* n : *names) {
          DYNAROCK_ASSIGN_OR_RETURN(auto type, type_of(n->str()));
          out->push_back({n->str(), type});
        }
        return Status::OK();
      };
      DYNAROCK_RETURN_IF_ERROR(more_of(x->more_partition_keys(), &i.more_partition_keys));
      DYNAROCK_RETURN_IF_ERROR(more_of(x->more_sort_keys(), &i.more_sort_keys));
      if (!i.sort_key && !i.more_sort_keys.empty()) {
        return Status::Corruption("catalog: index sort components without a sort key");
      }
      if (x->projection() > 2) return Status::Corruption("catalog: bad projection type");
      i.projection = static_cast<ProjectionType>(x->projection());
      if (x->non_key_attributes()) {
        for (const auto* a : *x->non_key_attributes()) i.non_key_attributes.push_back(a->str());
      }
      i.throughput = {x->read_capacity_units(), x->write_capacity_units()};
      i.backfilling = x->backfilling();
      DYNAROCK_ASSIGN_OR_RETURN(i.settings, SettingsOf(x));
      t.indexes.push_back(std::move(i));
    }
  }
  if (d->ttl_attribute()) t.ttl_attribute = d->ttl_attribute()->str();
  t.ttl_enabled = d->ttl_enabled();
  t.ttl_changed_ms = d->ttl_changed_ms();
  t.pay_per_request_since_ms = d->pay_per_request_since_ms();
  t.pitr_enabled = d->pitr_enabled();
  t.pitr_enabled_ms = d->pitr_enabled_ms();
  t.pitr_recovery_days = d->pitr_recovery_days() == 0 ? 35 : d->pitr_recovery_days();
  t.deletion_protection = d->deletion_protection();
  if (d->table_class() > static_cast<uint8_t>(TableClass::kStandardInfrequentAccess)) {
    return Status::Corruption("table descriptor: bad table class");
  }
  t.table_class = static_cast<TableClass>(d->table_class());
  t.table_class_since_ms = d->table_class_since_ms();
  DYNAROCK_ASSIGN_OR_RETURN(t.settings, SettingsOf(d));
  auto policy_from = [](const fb::ResourcePolicy* p) -> std::optional<AttachedPolicy> {
    if (p == nullptr) return std::nullopt;
    return AttachedPolicy{p->document()->str(), p->revision_id()->str(),
                          p->stream_label() ? p->stream_label()->str() : ""};
  };
  t.policy = policy_from(d->policy());
  t.stream_policy = policy_from(d->stream_policy());
  if (d->vector_indexes()) {
    for (const auto* x : *d->vector_indexes()) {
      VectorIndexInfo v;
      v.name = x->name()->str();
      v.space_id = x->space_id();
      v.vector_attribute = x->vector_attribute()->str();
      v.dimensions = x->dimensions();
      if (v.dimensions < 1 || v.dimensions > format::kMaxVectorDimensions || x->distance() > 2 ||
          x->projection() > 2) {
        return Status::Corruption("catalog: bad vector index " + v.name);
      }
      v.distance = static_cast<DistanceFunction>(x->distance());
      if (x->hash_attribute()) {
        DYNAROCK_ASSIGN_OR_RETURN(auto type, type_of(x->hash_attribute()->str()));
        v.hash = KeyAttribute{x->hash_attribute()->str(), type};
      }
      if (x->inline_filters()) {
        for (const auto* f : *x->inline_filters()) {
          DYNAROCK_ASSIGN_OR_RETURN(auto type, type_of(f->str()));
          v.inline_filters.push_back({f->str(), type});
        }
      }
      v.projection = static_cast<ProjectionType>(x->projection());
      if (x->non_key_attributes()) {
        for (const auto* a : *x->non_key_attributes()) v.non_key_attributes.push_back(a->str());
      }
      v.backfilling = x->backfilling();
      t.vector_indexes.push_back(std::move(v));
    }
  }
  if (t.pitr_recovery_days < 1 || t.pitr_recovery_days > 35) {
    return Status::Corruption("table descriptor: RecoveryPeriodInDays " +
                              std::to_string(t.pitr_recovery_days));
  }
  if (d->tags()) {
    for (const auto* tag : *d->tags())
      t.tags[tag->key()->str()] = tag->value() ? tag->value()->str() : "";
  }
  if (d->latest_stream_id() != 0) {
    if (d->stream_view_type() > 3 || !d->stream_label()) {
      return Status::Corruption("catalog: bad stream of table " + t.name);
    }
    t.stream =
        TableInfo::Stream{d->latest_stream_id(), static_cast<StreamViewType>(d->stream_view_type()),
                          d->stream_label()->str(), d->stream_enabled()};
  }
  return t;
}

std::string TtlCursorKey(uint32_t space_id) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", space_id);
  return std::string("ttl_cursor/") + hex;
}

std::string BackfillCursorKey(uint32_t index_space_id) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", index_space_id);
  return std::string("backfill_cursor/") + hex;
}

std::string InternedNamesPrefix(uint32_t space_id) {
  char hex[10];
  std::snprintf(hex, sizeof hex, "%08x/", space_id);
  return std::string(kCatalogNamesPrefix) + hex;
}

std::string InternedNameKey(uint32_t space_id, uint32_t id) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", id);
  return InternedNamesPrefix(space_id) + hex;
}

std::string CatalogStreamKey(uint32_t stream_id) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", stream_id);
  return std::string(kCatalogStreamPrefix) + hex;
}

static_assert(static_cast<int>(StreamViewType::kKeysOnly) == 0 &&
              static_cast<int>(StreamViewType::kNewImage) == 1 &&
              static_cast<int>(StreamViewType::kOldImage) == 2 &&
              static_cast<int>(StreamViewType::kNewAndOldImages) == 3);  // catalog.fbs

std::string EncodeStreamDescriptor(const StreamInfo& s) {
  flatbuffers::FlatBufferBuilder b(256);
  std::vector<flatbuffers::Offset<fb::ShardDescriptor>> shards;
  for (const auto& shard : s.shards) {
    auto id = b.CreateString(shard.id);
    flatbuffers::Offset<flatbuffers::String> parent;
    if (!shard.parent_id.empty()) parent = b.CreateString(shard.parent_id);
    fb::ShardDescriptorBuilder sb(b);
    sb.add_id(id);
    if (!shard.parent_id.empty()) sb.add_parent_id(parent);
    sb.add_start(shard.start);
    sb.add_end(shard.end);
    shards.push_back(sb.Finish());
  }
  auto shards_offset = b.CreateVector(shards);
  auto table = b.CreateString(s.table_name);
  auto label = b.CreateString(s.label);
  auto pk = b.CreateString(s.partition_key.name);
  flatbuffers::Offset<flatbuffers::String> sk;
  if (s.sort_key) sk = b.CreateString(s.sort_key->name);
  fb::StreamDescriptorBuilder d(b);
  d.add_format_version(kDescriptorVersion);
  d.add_stream_id(s.id);
  d.add_table_name(table);
  d.add_label(label);
  d.add_view_type(static_cast<uint8_t>(s.view_type));
  d.add_partition_key(pk);
  if (s.sort_key) d.add_sort_key(sk);
  d.add_enabled(s.enabled);
  d.add_created_ms(s.created_ms);
  d.add_disabled_ms(s.disabled_ms);
  d.add_shards(shards_offset);
  b.Finish(d.Finish(), "DRKC");
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

Result<StreamInfo> DecodeStreamDescriptor(std::string_view bytes) {
  const AlignedCopy aligned(bytes);
  const uint8_t* data = aligned.data();
  flatbuffers::Verifier verifier(data, aligned.size);
  if (!verifier.VerifyBuffer<fb::StreamDescriptor>("DRKC")) {
    return Status::Corruption("catalog: invalid stream descriptor");
  }
  const auto* d = flatbuffers::GetRoot<fb::StreamDescriptor>(data);
  if (d->format_version() != kDescriptorVersion || d->view_type() > 3) {
    return Status::Corruption("catalog: unsupported stream descriptor");
  }
  StreamInfo s;
  s.id = d->stream_id();
  s.table_name = d->table_name()->str();
  s.label = d->label()->str();
  s.view_type = static_cast<StreamViewType>(d->view_type());
  // Key types are not needed: DescribeStream reports names and roles only.
  s.partition_key = {d->partition_key()->str(), ScalarAttributeType::kS};
  if (d->sort_key()) s.sort_key = KeyAttribute{d->sort_key()->str(), ScalarAttributeType::kS};
  s.enabled = d->enabled();
  s.created_ms = d->created_ms();
  s.disabled_ms = d->disabled_ms();
  if (d->shards()) {
    for (const auto* x : *d->shards()) {
      s.shards.push_back(
          {x->id()->str(), x->parent_id() ? x->parent_id()->str() : "", x->start(), x->end()});
    }
  }
  return s;
}

}  // namespace dynarock
