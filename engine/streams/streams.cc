// DynamoDB Streams: enabling and disabling a table's stream, shard lineage,
// and the four read operations (ListStreams, DescribeStream,
// GetShardIterator, GetRecords). Records themselves are written by the write
// pipeline (engine/write/pipeline.cc) in the item's own WriteBatch; their
// layout and numbering are in engine/streams/records.h.
#include <rocksdb/write_batch.h>

#include <algorithm>

#include "dynarock/model/streams_constraints_gen.h"
#include "engine/db_impl.h"

namespace dynarock {
namespace {

constexpr int64_t kIteratorLifetimeMs = 15 * 60 * 1000;
// How far in the future an iterator's issue time may be: clocks of the
// processes sharing a database (a read-only instance beside the server)
// and a clock stepped back by NTP differ by less. Further is refused as a
// bad iterator: its expiry could not be trusted.
constexpr int64_t kIteratorClockSkewMs = 5 * 60 * 1000;
constexpr size_t kMaxRecordsPerCall = 1000;
constexpr size_t kMaxRecordBytesPerCall = 1 << 20;
constexpr size_t kMaxStreamsPerPage = 100;
constexpr size_t kMaxShardsPerPage = 100;

Status StreamNotFound(std::string_view arn) {
  return Status::ResourceNotFound("Requested resource not found: Stream: " + std::string(arn) +
                                  " not found");
}

Status ShardNotFound(std::string_view shard_id, std::string_view arn) {
  return Status::ResourceNotFound("Requested resource not found: Shard: " + std::string(shard_id) +
                                  " in Stream: " + std::string(arn) + " not found");
}

// arn:aws:dynamodb:<region>:<digits>:table/<name>/stream/<label>: the only
// shape a stream's ARN has (clients such as the Kinesis adapter check it).
bool IsStreamArn(std::string_view arn) {
  const auto rest = TableArnResource(arn);
  if (!rest) return false;
  const size_t stream = rest->find("/stream/");
  return stream != std::string_view::npos && stream > 0 && rest->size() > stream + 8 &&
         rest->substr(stream + 8).find('/') == std::string_view::npos;
}

}  // namespace

std::string Database::Impl::StreamArn(const StreamInfo& s) const {
  return TableArn(options_.region, options_.account_id, s.table_name) + "/stream/" + s.label;
}

uint64_t Database::Impl::TrimPoint() const {
  return streams::FirstSequenceAt(NowMs() - options_.stream_retention_ms);
}

Result<StreamInfo*> Database::Impl::FindStream(std::string_view arn) {
  // A malformed ARN is a ValidationException; a well-formed one of no
  // stream is not found.
  if (!IsStreamArn(arn)) return Status::Validation("Invalid StreamArn: " + std::string(arn));
  for (auto& [id, s] : streams_) {
    if (StreamArn(s) == arn) return &s;
  }
  return StreamNotFound(arn);
}

// ---- Lifecycle ---------------------------------------------------------------------------

Status Database::Impl::LoadStreams() {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
  const std::string prefix(kCatalogStreamPrefix);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    DYNAROCK_ASSIGN_OR_RETURN(
        auto s, DecodeStreamDescriptor(std::string_view(it->value().data(), it->value().size())));
    const uint32_t id = s.id;
    streams_.emplace(id, std::move(s));
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));

  // Sequence numbers continue above every number any stream used: its last
  // record and its shard bounds (records may all have been trimmed).
  uint64_t last = 0;
  for (const auto& [id, s] : streams_) {
    for (const auto& shard : s.shards) last = std::max({last, shard.start, shard.end});
    std::unique_ptr<rocksdb::Iterator> r(db_->NewIterator(rocksdb::ReadOptions(), streams_cf_));
    r->SeekForPrev(streams::RecordKey(id, UINT64_MAX));
    if (r->Valid() && r->key().size() == streams::kRecordKeyBytes &&
        streams::RecordStream(std::string_view(r->key().data(), r->key().size())) == id) {
      last = std::max(last, streams::RecordSequence(std::string_view(r->key().data(), 12)));
    }
    DYNAROCK_RETURN_IF_ERROR(FromRocks(r->status()));
  }
  sequencer_.Reset(last);

  // Each restart closes the open shards and opens their children, as
  // DynamoDB's shards roll; streams disabled longer ago than retention go.
  rocksdb::WriteBatch batch;
  const int64_t now = NowMs();
  for (auto s = streams_.begin(); s != streams_.end();) {
    if (!s->second.enabled && s->second.disabled_ms + options_.stream_retention_ms < now) {
      batch.Delete(catalog_cf_, CatalogStreamKey(s->first));
      s = streams_.erase(s);
      continue;
    }
    if (s->second.enabled) RollShard(&s->second, &batch);
    ++s;
  }
  // A read-only instance rolls in memory only: the primary owns the files.
  if (batch.Count() == 0 || options_.read_only) return Status::OK();
  rocksdb::WriteOptions sync;
  sync.sync = true;
  return FromRocks(db_->Write(sync, &batch));
}

void Database::Impl::RollShard(StreamInfo* stream, rocksdb::WriteBatch* batch) {
  // The closing number is taken from the sequencer: every record numbered
  // below it belongs to the closed shard, every later one to the child.
  const uint64_t end = sequencer_.Assign(NowMs(), 1);
  sequencer_.Release(end);
  std::string parent;
  if (!stream->shards.empty() && stream->shards.back().open()) {
    stream->shards.back().end = end;
    parent = stream->shards.back().id;
  }
  if (stream->enabled) {
    stream->shards.push_back({streams::ShardId(stream->id, end + 1), parent, end + 1, 0});
  }
  batch->Put(catalog_cf_, CatalogStreamKey(stream->id), EncodeStreamDescriptor(*stream));
}

StreamInfo Database::Impl::NewStream(const TableInfo& info, StreamViewType view) {
  StreamInfo s;
  s.id = next_space_id_++;
  s.table_name = info.name;
  s.created_ms = NowMs();
  s.label = streams::StreamLabel(s.created_ms);
  // A label names a stream only with its table: a re-enable within the same
  // millisecond must still get a new one.
  if (info.stream && info.stream->label == s.label) {
    s.label = streams::StreamLabel(++s.created_ms);
  }
  s.view_type = view;
  s.partition_key = info.partition_key;
  s.sort_key = info.sort_key;
  s.enabled = true;
  // Numbers carry their time: a shard's start says when it was opened (its
  // age, for rolling).
  const uint64_t start = std::max(sequencer_.Last() + 1, streams::FirstSequenceAt(s.created_ms));
  s.shards.push_back({streams::ShardId(s.id, start), "", start, 0});
  return s;
}

void Database::Impl::InstallStream(StreamInfo stream) {
  std::lock_guard lock(streams_mu_);
  const uint32_t id = stream.id;
  streams_[id] = std::move(stream);
}

Status Database::Impl::ApplyStreamChange(const StreamSpecification& spec, TableInfo* info,
                                         rocksdb::WriteBatch* batch,
                                         std::optional<StreamInfo>* changed) {
  if (spec.stream_enabled) {
    if (info->enabled_stream()) {
      return Status::Validation("Table already has an enabled stream: TableName: " + info->name);
    }
    StreamInfo s = NewStream(*info, *spec.stream_view_type);
    info->stream = TableInfo::Stream{s.id, s.view_type, s.label, true};
    batch->Put(catalog_cf_, CatalogStreamKey(s.id), EncodeStreamDescriptor(s));
    *changed = std::move(s);
    return Status::OK();
  }
  if (!info->enabled_stream()) {
    return Status::Validation("Table has no stream to disable: TableName: " + info->name);
  }
  info->stream->enabled = false;
  std::lock_guard lock(streams_mu_);
  auto it = streams_.find(info->stream->id);
  if (it == streams_.end()) return Status::Corruption("streams: no descriptor for " + info->name);
  StreamInfo s = it->second;
  s.enabled = false;
  s.disabled_ms = NowMs();
  RollShard(&s, batch);
  *changed = std::move(s);
  return Status::OK();
}

// ---- Reading ------------------------------------------------------------------------------

Result<uint64_t> Database::Impl::ReadRecords(uint32_t stream_id, StreamViewType view, uint64_t from,
                                             uint64_t to, size_t limit, size_t max_bytes,
                                             std::vector<StreamRecord>* out) {
  from = std::max(from, TrimPoint());
  if (from > to) return from;
  const std::string upper = to == UINT64_MAX ? streams::RecordKey(stream_id + 1, 0)
                                             : streams::RecordKey(stream_id, to + 1);
  RangeIterator it(db_.get(), streams_cf_, streams::RecordKey(stream_id, from), upper);
  size_t bytes = 0;
  size_t taken = 0;
  for (; it->Valid(); it->Next()) {
    if (taken == limit) {
      return streams::RecordSequence(std::string_view(it->key().data(), it->key().size()));
    }
    const uint64_t seq =
        streams::RecordSequence(std::string_view(it->key().data(), it->key().size()));
    DYNAROCK_ASSIGN_OR_RETURN(
        auto record,
        streams::DecodeRecord(stream_id, seq,
                              std::string_view(it->value().data(), it->value().size()), view));
    bytes += static_cast<size_t>(record.size_bytes);
    if (taken > 0 && bytes > max_bytes) return seq;  // the next page starts here
    record.aws_region = options_.region;
    out->push_back(std::move(record));
    ++taken;
  }
  DYNAROCK_RETURN_IF_ERROR(FromRocks(it->status()));
  return to == UINT64_MAX ? to : to + 1;  // the whole range was read
}

Result<ListStreamsResponse> Database::Impl::ListStreams(const ListStreamsRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::streams::CheckListStreams(request));
  if (request.table_name) {
    std::shared_lock catalog(catalog_mu_);
    std::lock_guard lock(streams_mu_);
    const bool known = tables_.count(*request.table_name) > 0 ||
                       std::any_of(streams_.begin(), streams_.end(), [&](const auto& s) {
                         return s.second.table_name == *request.table_name;
                       });
    if (!known) {
      return Status::ResourceNotFound(
          "Requested resource not found: Table: " + *request.table_name + " not found");
    }
  }
  const size_t limit =
      std::min(static_cast<size_t>(request.limit.value_or(100)), kMaxStreamsPerPage);
  std::lock_guard lock(streams_mu_);
  auto it = streams_.begin();
  if (request.exclusive_start_stream_arn) {
    DYNAROCK_ASSIGN_OR_RETURN(StreamInfo * start, FindStream(*request.exclusive_start_stream_arn));
    it = streams_.upper_bound(start->id);
  }
  ListStreamsResponse response;
  const int64_t now = NowMs();
  for (; it != streams_.end(); ++it) {
    const StreamInfo& s = it->second;
    if (request.table_name && s.table_name != *request.table_name) continue;
    if (!s.enabled && s.disabled_ms + options_.stream_retention_ms < now) continue;
    if (response.streams.size() == limit) {
      response.last_evaluated_stream_arn = response.streams.back().stream_arn;
      break;
    }
    response.streams.push_back({StreamArn(s), s.table_name, s.label});
  }
  return response;
}

Result<DescribeStreamResponse> Database::Impl::DescribeStream(
    const DescribeStreamRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::streams::CheckDescribeStream(request));
  std::lock_guard lock(streams_mu_);
  DYNAROCK_ASSIGN_OR_RETURN(StreamInfo * s, FindStream(request.stream_arn));
  // An open shard older than its lifetime rolls now.
  if (s->enabled && !s->shards.empty() && s->shards.back().open() &&
      streams::SequenceTimeMs(s->shards.back().start) + options_.stream_shard_lifetime_ms <=
          NowMs()) {
    StreamInfo rolled = *s;
    rocksdb::WriteBatch batch;
    RollShard(&rolled, &batch);
    rocksdb::WriteOptions sync;
    sync.sync = true;
    DYNAROCK_RETURN_IF_ERROR(FromRocks(db_->Write(sync, &batch)));
    *s = std::move(rolled);
  }

  DescribeStreamResponse response;
  StreamDescription& d = response.stream_description;
  d.stream_arn = StreamArn(*s);
  d.stream_label = s->label;
  d.stream_status = s->enabled ? StreamStatus::kEnabled : StreamStatus::kDisabled;
  d.stream_view_type = s->view_type;
  d.creation_request_date_time = static_cast<double>(s->created_ms / 1000);
  d.table_name = s->table_name;
  d.key_schema.push_back({s->partition_key.name, KeyType::kHash});
  if (s->sort_key) d.key_schema.push_back({s->sort_key->name, KeyType::kRange});

  const size_t limit =
      std::min(static_cast<size_t>(request.limit.value_or(100)), kMaxShardsPerPage);
  const uint64_t trim = TrimPoint();
  // CHILD_SHARDS (the only filter type): the shards whose parent is the one named.
  const std::string* parent = nullptr;
  if (request.shard_filter) {
    if (!request.shard_filter->shard_id) {
      return Status::Validation("ShardFilter requires a ShardId: the shard whose children to list");
    }
    parent = &*request.shard_filter->shard_id;
  }
  bool started = !request.exclusive_start_shard_id;
  for (const ShardInfo& shard : s->shards) {
    if (!started) {
      started = shard.id == *request.exclusive_start_shard_id;
      continue;
    }
    if (parent && shard.parent_id != *parent) continue;
    if (!shard.open() && shard.end < trim) continue;  // fully trimmed: gone
    if (d.shards.size() == limit) {
      d.last_evaluated_shard_id = d.shards.back().shard_id;
      break;
    }
    StreamShard out;
    out.shard_id = shard.id;
    out.sequence_number_range.starting_sequence_number = streams::SequenceString(shard.start);
    if (!shard.open()) {
      out.sequence_number_range.ending_sequence_number = streams::SequenceString(shard.end);
    }
    if (!shard.parent_id.empty()) out.parent_shard_id = shard.parent_id;
    d.shards.push_back(std::move(out));
  }
  // A start shard that is not (or no longer) in the stream ends the list:
  // DynamoDB answers an empty Shards, not an error.
  return response;
}

Result<GetShardIteratorResponse> Database::Impl::GetShardIterator(
    const GetShardIteratorRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::streams::CheckGetShardIterator(request));
  const bool positioned = request.shard_iterator_type == ShardIteratorType::kAtSequenceNumber ||
                          request.shard_iterator_type == ShardIteratorType::kAfterSequenceNumber;
  if (positioned && !request.sequence_number) {
    return Status::Validation("Missing required parameter \"SequenceNumber\"");
  }
  if (!positioned && request.sequence_number) {
    return Status::Validation("Iterator of this type should not have sequence number");
  }
  std::lock_guard lock(streams_mu_);
  DYNAROCK_ASSIGN_OR_RETURN(StreamInfo * s, FindStream(request.stream_arn));
  const uint64_t trim = TrimPoint();
  auto shard = std::find_if(s->shards.begin(), s->shards.end(),
                            [&](const ShardInfo& x) { return x.id == request.shard_id; });
  if (shard == s->shards.end() || (!shard->open() && shard->end < trim)) {
    return ShardNotFound(request.shard_id, request.stream_arn);
  }
  streams::IteratorState state;
  state.stream_id = s->id;
  state.shard_start = shard->start;
  state.issued_ms = NowMs();
  switch (request.shard_iterator_type) {
    case ShardIteratorType::kTrimHorizon:
      state.position = std::max(shard->start, trim);
      state.horizon = true;
      break;
    case ShardIteratorType::kLatest:
      state.position =
          shard->open() ? std::max(shard->start, sequencer_.Visible() + 1) : shard->end + 1;
      break;
    case ShardIteratorType::kAtSequenceNumber:
    case ShardIteratorType::kAfterSequenceNumber: {
      auto seq = streams::ParseSequence(*request.sequence_number);
      if (!seq || *seq < shard->start || (!shard->open() && *seq > shard->end)) {
        return Status::Validation("Invalid SequenceNumber: " + *request.sequence_number +
                                  " is not a sequence number of shard " + request.shard_id);
      }
      if (*seq < trim) return Status::TrimmedDataAccess();
      state.position =
          request.shard_iterator_type == ShardIteratorType::kAtSequenceNumber ? *seq : *seq + 1;
      break;
    }
  }
  return GetShardIteratorResponse{streams::EncodeIterator(StreamArn(*s), state, iterator_secret_)};
}

Result<GetRecordsResponse> Database::Impl::GetRecords(const GetRecordsRequest& request) {
  DYNAROCK_RETURN_IF_ERROR(model::streams::CheckGetRecords(request));  // Limit 1..1000
  // Forged, altered, another database's, or from before storage format 9:
  // the same error as for any string that is not an iterator.
  auto decoded = streams::DecodeIterator(request.shard_iterator, iterator_secret_);
  if (!decoded) return Status::Validation("Invalid ShardIterator");
  const streams::IteratorState* state = &decoded->state;
  const int64_t now = NowMs();
  // Differences as unsigned: exact whichever the order, for any two int64s.
  const auto ms_between = [](int64_t earlier, int64_t later) {
    return static_cast<uint64_t>(later) - static_cast<uint64_t>(earlier);
  };
  if (state->issued_ms > now &&
      ms_between(now, state->issued_ms) > static_cast<uint64_t>(kIteratorClockSkewMs)) {
    return Status::Validation("Invalid ShardIterator");
  }
  if (now > state->issued_ms &&
      ms_between(state->issued_ms, now) > static_cast<uint64_t>(kIteratorLifetimeMs)) {
    return Status::ExpiredIterator("Iterator expired. The iterator was created at time " +
                                   streams::StreamLabel(state->issued_ms) +
                                   " while right now the time is " + streams::StreamLabel(now));
  }
  std::string arn;
  StreamViewType view;
  ShardInfo shard;
  {
    std::lock_guard lock(streams_mu_);
    auto s = streams_.find(state->stream_id);
    if (s == streams_.end()) return StreamNotFound(decoded->stream_arn);
    arn = StreamArn(s->second);
    // Signed with the ARN it was issued under: a stream whose ARN has
    // changed since (another Options::region or account_id) is not the
    // one it names.
    if (arn != decoded->stream_arn) return Status::Validation("Invalid ShardIterator");
    view = s->second.view_type;
    auto found = std::find_if(s->second.shards.begin(), s->second.shards.end(),
                              [&](const ShardInfo& x) { return x.start == state->shard_start; });
    if (found == s->second.shards.end()) return Status::Validation("Invalid ShardIterator");
    shard = *found;
  }
  const uint64_t trim = TrimPoint();
  uint64_t position = state->position;
  if (position < trim) {
    if (!state->horizon) return Status::TrimmedDataAccess();
    position = trim;
  }
  // Read only where every record is committed; a closed shard ends at its end.
  const uint64_t visible = sequencer_.Visible();
  const uint64_t to = shard.open() ? visible : std::min(shard.end, visible);
  GetRecordsResponse response;
  DYNAROCK_ASSIGN_OR_RETURN(
      uint64_t next, ReadRecords(state->stream_id, view, position, to,
                                 static_cast<size_t>(request.limit.value_or(kMaxRecordsPerCall)),
                                 kMaxRecordBytesPerCall, &response.records));
  if (!shard.open() && next > shard.end) return response;  // the shard is done
  streams::IteratorState following = *state;
  following.position = next;
  following.horizon = state->horizon && response.records.empty();
  following.issued_ms = now;
  response.next_shard_iterator = streams::EncodeIterator(arn, following, iterator_secret_);
  return response;
}

Result<std::vector<StreamRecord>> Database::Impl::ReadStream(const std::string& stream_arn,
                                                             const std::string& after,
                                                             size_t limit) {
  uint64_t from = 0;
  if (!after.empty()) {
    auto seq = streams::ParseSequence(after);
    if (!seq) return Status::Validation("Invalid SequenceNumber: " + after);
    from = *seq + 1;
  }
  uint32_t id;
  StreamViewType view;
  {
    std::lock_guard lock(streams_mu_);
    DYNAROCK_ASSIGN_OR_RETURN(StreamInfo * s, FindStream(stream_arn));
    id = s->id;
    view = s->view_type;
  }
  std::vector<StreamRecord> out;
  DYNAROCK_RETURN_IF_ERROR(
      ReadRecords(id, view, from, sequencer_.Visible(), limit, SIZE_MAX, &out).status());
  return out;
}

}  // namespace dynarock
