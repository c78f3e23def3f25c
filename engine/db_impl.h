// Database::Impl: the RocksDB instance, its column families, the in-memory
// catalog and the write locks. Internal to the engine.
#ifndef DYNAROCK_ENGINE_DB_IMPL_H_
#define DYNAROCK_ENGINE_DB_IMPL_H_

#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/write_batch.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "dynarock/db.h"
#include "engine/capacity.h"
#include "engine/catalog.h"
#include "engine/counters.h"
#include "engine/expr/expression.h"
#include "engine/item_upgrade.h"
#include "engine/keys.h"
#include "engine/streams/records.h"
#include "engine/tokens.h"
#include "engine/traffic.h"
#include "engine/vector_graph.h"
#include "engine/vector_index.h"
#include "engine/write/action.h"

namespace dynarock {

// Restores sort and build their SST files in a directory of this name
// (plus a random suffix) inside the database directory, so that ingestion
// hard-links them; Open removes the ones a crash left.
inline constexpr char kRestoreScratchPrefix[] = "restore-scratch-";

// A table as the running engine holds it. `mu` is shared by every item
// operation for its whole duration and taken exclusively by DeleteTable, so
// that no write lands in a table's key space after the table is deleted.
struct TableState {
  explicit TableState(TableInfo i) : info(std::move(i)) {}
  const TableInfo info;
  std::shared_mutex mu;
  bool deleted = false;   // guarded by mu
  bool replaced = false;  // guarded by mu: UpdateTable installed a newer TableState
};

// A live table held for one item operation: DeleteTable waits until the
// handle is gone, and a handle is never given out for a deleted table.
class TableHandle {
 public:
  explicit TableHandle(std::shared_ptr<TableState> state)
      : state_(std::move(state)), alive_(state_->mu) {}
  bool deleted() const { return state_->deleted; }
  bool replaced() const { return state_->replaced; }
  const TableInfo& info() const { return state_->info; }

 private:
  std::shared_ptr<TableState> state_;
  std::shared_lock<std::shared_mutex> alive_;
};

// An iterator over the keys [lower, upper) of one column family, in total
// order (no prefix bloom). It owns its bounds: RocksDB keeps pointers to
// them for the iterator's whole life.
class RangeIterator {
 public:
  RangeIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, std::string lower,
                std::string upper, const rocksdb::Snapshot* snapshot = nullptr)
      : lower_(std::move(lower)), upper_(std::move(upper)), lo_(lower_), hi_(upper_) {
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot;
    ro.iterate_lower_bound = &lo_;
    ro.iterate_upper_bound = &hi_;
    ro.total_order_seek = true;
    it_.reset(db->NewIterator(ro, cf));
    it_->Seek(lo_);
  }
  RangeIterator(const RangeIterator&) = delete;
  RangeIterator& operator=(const RangeIterator&) = delete;
  // Positioned at the first key at construction.
  rocksdb::Iterator* operator->() const { return it_.get(); }

 private:
  const std::string lower_, upper_;
  const rocksdb::Slice lo_, hi_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

// Catches the errors RocksDB's background work hits (a flush or compaction
// failing on a full disk or a bad sector), which RocksDB reports through no
// call a writer makes until the whole database stops.
class BackgroundErrors : public rocksdb::EventListener {
 public:
  const char* Name() const override { return "dynarock.BackgroundErrors"; }
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override;
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override;
  void OnErrorRecoveryCompleted(rocksdb::Status old_error) override;
  // OK, or an IOError/Corruption describing the standing error.
  Status Current() const;

 private:
  std::atomic<bool> failed_{false};
  mutable std::mutex mu_;
  Status error_;  // guarded by mu_
};

class Database::Impl {
 public:
  Impl(const Options& options)
      : options_(options),
        traffic_(options.track_collection_traffic, LimitsOf(options)),
        graphs_(std::make_unique<VectorGraphs>(
            options.vector_exact_limit,
            GraphParams{options.vector_graph_m, options.vector_graph_ef_construction,
                        options.vector_graph_ef_search})) {}
  ~Impl();

  // Opens the directory's database (creating it if allowed): refuses a
  // RocksDB database that is not Dynarock's, and a newer format version,
  // leaving them untouched.
  Status Open(const std::string& path);
  // Starts the background backfill thread, queueing the GSI backfills a
  // crash or a close interrupted (they resume at their saved cursor).
  void StartBackfills();
  // Starts the threads that build vector index graphs, with the survey of
  // every vector index first (engine/db_impl_vector_graphs.cc).
  void StartVectorGraphs();
  Status WaitForBackfills();
  Status WaitForVectorGraphs();

  Result<CreateTableResponse> CreateTable(const CreateTableRequest& request);
  // A table CreateTable (or a restore) would make, checked as CreateTable
  // checks it, with its uuid and creation time; space ids left for the
  // caller, who also installs it.
  Result<TableInfo> NewTable(const CreateTableRequest& request);
  Result<DescribeTableResponse> DescribeTable(const DescribeTableRequest& request);
  Result<ListTablesResponse> ListTables(const ListTablesRequest& request);
  Result<DeleteTableResponse> DeleteTable(const DeleteTableRequest& request);
  Result<UpdateTableResponse> UpdateTable(const UpdateTableRequest& request);
  // UpdateTable's GSI creates and deletes on `info` and `batch`; the name of
  // a created index, to backfill once committed (empty: none).
  Result<std::string> ApplyIndexChanges(const UpdateTableRequest& request, TableInfo* info,
                                        rocksdb::WriteBatch* batch);
  Result<UpdateTimeToLiveResponse> UpdateTimeToLive(const UpdateTimeToLiveRequest& request);
  Result<DescribeTimeToLiveResponse> DescribeTimeToLive(const DescribeTimeToLiveRequest& request);
  Result<ContinuousBackupsDescription> UpdateContinuousBackups(
      const UpdateContinuousBackupsRequest& request);
  Result<ContinuousBackupsDescription> DescribeContinuousBackups(
      const DescribeContinuousBackupsRequest& request);
  Status CheckCreateTable(const CreateTableRequest& request);
  Status PutServiceRecord(std::string_view name, std::string_view value);
  Result<std::vector<std::pair<std::string, std::string>>> ServiceRecords(std::string_view prefix);
  Status TagResource(const TagResourceRequest& request);
  Status UntagResource(const UntagResourceRequest& request);
  Result<ListTagsOfResourceResponse> ListTagsOfResource(const ListTagsOfResourceRequest& request);
  Result<SearchVectorsResponse> SearchVectors(const SearchVectorsRequest& request);
  Result<PutResourcePolicyResponse> PutResourcePolicy(const PutResourcePolicyRequest& request);
  Result<GetResourcePolicyResponse> GetResourcePolicy(const GetResourcePolicyRequest& request);
  Result<DeleteResourcePolicyResponse> DeleteResourcePolicy(
      const DeleteResourcePolicyRequest& request);
  // The table a tagging request's ARN names (VALIDATION.md 5.8):
  // ValidationException for an empty or non-table ARN, AccessDenied (naming
  // `operation`) for one that is not an ARN, or names no table of this
  // database.
  // ValidationException unless `arn` has the shape of a table's ARN.
  static Status CheckTableArn(std::string_view arn);
  Result<std::string> TableNameFromArn(std::string_view arn, std::string_view operation);
  Result<PutItemResponse> PutItem(const PutItemRequest& request);
  Result<GetItemResponse> GetItem(const GetItemRequest& request);
  Result<DeleteItemResponse> DeleteItem(const DeleteItemRequest& request);
  Result<UpdateItemResponse> UpdateItem(const UpdateItemRequest& request);
  Result<BatchGetItemResponse> BatchGetItem(const BatchGetItemRequest& request);
  Result<BatchWriteItemResponse> BatchWriteItem(const BatchWriteItemRequest& request);
  Result<TransactWriteItemsResponse> TransactWriteItems(const TransactWriteItemsRequest& request);
  Result<TransactGetItemsResponse> TransactGetItems(const TransactGetItemsRequest& request);
  // ClientRequestToken: the token's committed record, if within its window.
  Result<std::optional<tokens::Record>> ReadToken(const std::string& token);
  // The answer to a retry of a committed transaction (nothing is applied).
  Result<TransactWriteItemsResponse> ReplayTransaction(const TransactWriteItemsRequest& request);
  Result<QueryResponse> Query(const QueryRequest& request);
  Result<ScanResponse> Scan(const ScanRequest& request);
  Result<DescribeCollectionResponse> DescribeCollection(const DescribeCollectionRequest& request);
  // LargestCollections and LargestIndexCollections by reading a key space
  // (each value's item after its first `value_offset` bytes).
  Result<std::vector<CollectionStatistics>> ScanLargestCollections(
      rocksdb::ColumnFamilyHandle* cf, uint32_t space_id,
      const std::vector<KeyAttribute>& partition, size_t limit,
      const std::function<void(int64_t)>& progress, size_t value_offset = 0);
  Result<std::vector<CollectionStatistics>> LargestIndexCollections(
      const std::string& table_name, const std::string& index_name, size_t limit,
      const std::function<void(int64_t entries_read)>& progress);
  Result<std::vector<CollectionStatistics>> LargestCollections(
      const std::string& table_name, size_t limit,
      const std::function<void(int64_t items_read)>& progress);
  Result<HottestCollectionsResponse> HottestCollections(const std::string& table_name, size_t limit,
                                                        int64_t window_ms);
  void SetCollectionTrafficTracking(bool on) { traffic_.SetTracking(on); }
  Result<StatisticsReport> RecountStatistics();
  Status WaitForCompactions();
  Status Health() { return background_errors_->Current(); }
  MemoryUsage GetMemoryUsage();
  // Dump and restore (engine/bulk/).
  Result<ExportTableResult> ExportTable(const ExportTableOptions& options);
  Result<ImportTableResult> ImportTable(const ImportTableOptions& options);
  Result<ListStreamsResponse> ListStreams(const ListStreamsRequest& request);
  Result<DescribeStreamResponse> DescribeStream(const DescribeStreamRequest& request);
  Result<GetShardIteratorResponse> GetShardIterator(const GetShardIteratorRequest& request);
  Result<GetRecordsResponse> GetRecords(const GetRecordsRequest& request);
  Result<std::vector<StreamRecord>> ReadStream(const std::string& stream_arn,
                                               const std::string& after, size_t limit);
  Result<int64_t> ExpireItems();
  Status Compact();
  // Starts the background TTL sweep (Options::ttl_sweep_interval_ms).
  void StartTtlSweeper();
  // The database's clock, ms since the epoch (Options::clock_ms).
  int64_t NowMs() const;
  // A copy of the live table's descriptor (PartiQL plans against its keys and
  // indexes), or ResourceNotFoundException.
  Result<TableInfo> FindTableInfo(std::string_view name);

  // Tables held by a multi-table operation, by name.
  using TableHandles = std::map<std::string, std::unique_ptr<TableHandle>>;

 private:
  // ExportTable's and ImportTable's phases (engine/bulk/export.cc, import.cc).
  class Exporter;
  class Importer;
  // Open's phases (engine/db_impl_open.cc).
  rocksdb::DBOptions DbOptions(const std::shared_ptr<rocksdb::FileSystem>& file_system);
  std::shared_ptr<rocksdb::TableFactory> TableFactory();
  std::vector<rocksdb::ColumnFamilyDescriptor> ColumnFamilies();
  Status OpenRocks(const std::string& path, const rocksdb::DBOptions& db_options,
                   const std::vector<rocksdb::ColumnFamilyDescriptor>& cfs,
                   rocksdb::FileSystem* file_system);
  Status LoadCatalog();
  // Checks the format record (writing it, with a new iterator secret, into
  // a new database), upgrading an older version.
  Status CheckFormatRecord(const std::string& path);
  // CheckFormatRecord's steps from an older format `version` to this build's,
  // each recorded (fsynced) as it completes.
  Status UpgradeFormat(uint32_t version);
  // The format record of `version` and a new iterator secret, in one synced
  // batch: a database of format 9 or later has both or neither.
  Status WriteFormatRecordWithNewSecret(uint32_t version);
  // Reads the secret that signs shard iterators into iterator_secret_.
  // Corruption if the catalog has none (every database of format 9 has
  // one) or not 32 bytes.
  Status LoadIteratorSecret(const std::string& path);
  // Fills a new GSI from the table's items, Options::backfill_batch_items
  // per step, saving its position after each (BackfillCursorKey), then
  // marks it ACTIVE with exact totals. Idempotent; returns early (OK) when
  // the database is closing, and the next Open resumes at the cursor.
  Status BackfillIndex(const std::string& table_name, const std::string& index_name);
  // Queues a backfill for the background thread.
  void QueueBackfill(std::string table_name, std::string index_name);
  void BackfillLoop();
  // Items and bytes of an index's entries, counted by a scan of its key
  // space (at `snapshot`, if given).
  Result<Counter> CountIndexEntries(const TableInfo& table, const IndexInfo& index,
                                    const rocksdb::Snapshot* snapshot = nullptr);
  // The same for a vector index's entries.
  Result<Counter> CountVectorEntries(const VectorIndexInfo& index,
                                     const rocksdb::Snapshot* snapshot = nullptr);
  // Vector index graphs (engine/db_impl_vector_graphs.cc): the background
  // thread, a job for it, the survey of every index's buckets at Open, one
  // bucket's build, and waiting for the queue to empty.
  void QueueGraphJob(GraphJob job);
  void GraphLoop();
  Status SurveyVectorIndexes();
  Status BuildGraph(const GraphJob& job);
  // RecountStatistics for one table held by the caller (engine/db_impl_statistics.cc).
  Status RecountTable(const TableInfo& table, StatisticsReport* report);
  // Installs a changed descriptor (catalog write + a new TableState).
  // REQUIRES: catalog_mu_ and old->mu held exclusively.
  Status ReplaceTable(const std::shared_ptr<TableState>& old, TableInfo info,
                      rocksdb::WriteBatch* extra);
  // Tag/UntagResource: applies `change` to the tags of the table `arn` names.
  // The policy `arn` names (a table's, or its latest stream's) changed by
  // `change` under the table's exclusive lock, then stored.
  Status ChangePolicy(
      std::string_view arn,
      const std::function<Status(std::optional<AttachedPolicy>*, const std::string&)>& change);
  Status ChangeTags(std::string_view arn, std::string_view operation,
                    const std::function<Status(TableInfo*)>& change);

  // Item writes to the same key serialize on one of these stripes, chosen by
  // the key's hash. Why stripes and not RocksDB's TransactionDB: every write
  // here is a short read-modify-write of keys known up front (the old item is
  // read for statistics, conditions and ReturnValues), so a fixed array of
  // mutexes gives per-item atomicity with no lock manager, no deadlock
  // detection and no extra WAL records; multi-item transactions take their
  // stripes in ascending order, so they cannot deadlock either.
  static constexpr size_t kLockStripes = 1024;
  std::mutex& StripeFor(const format::EncodedKey& key);

  // The live table called `name`, or ResourceNotFoundException.
  Result<std::shared_ptr<TableState>> FindTable(std::string_view name, bool describe_style);
  // The same, held against DeleteTable for the caller's operation.
  Result<std::unique_ptr<TableHandle>> AcquireTable(std::string_view name);
  // Acquires each table of `*handles` (its keys), in name order, so that
  // multi-table operations take table locks in one order.
  Status AcquireTables(TableHandles* handles);

  // A table held exclusively for a catalog change, with the catalog lock.
  // Lock order everywhere: a table's mu before the catalog lock (item
  // operations hold a table's mu shared while they look up other tables), so
  // this waits for the table's in-flight operations without holding the
  // catalog, then checks the table was not replaced or deleted meanwhile.
  struct ExclusiveTable {
    std::shared_ptr<TableState> state;
    std::unique_lock<std::shared_mutex> table_lock;
    std::unique_lock<std::shared_mutex> catalog_lock;
  };
  Result<ExclusiveTable> LockTableExclusive(std::string_view name);
  Result<Counter> ReadTableStats(uint32_t space_id, const rocksdb::Snapshot* snapshot = nullptr);
  // How `table`'s items are stored: its key schema and interned names.
  // With `index`: how that index's entries are stored.
  format::StoredKeySchema StoredKey(const TableInfo& table, const IndexInfo* index = nullptr) const {
    return key_schemas_.Of(table, index);
  }
  // Registers a table's item schema (at open, CreateTable, a restore):
  // its new interned names go to the catalog with a synced write.
  void AddStoredKey(const TableInfo& table);
  format::NameDictionary::Persist NamePersister(uint32_t space_id);
  // Reads and decodes the item of `table` at `key` (nullopt if absent), its
  // key attributes restored from the key (the value omits them).
  // `snapshot` (optional) pins the read to the state an iterator sees.
  Result<std::optional<Item>> ReadItem(const TableInfo& table, const format::EncodedKey& key,
                                       const rocksdb::Snapshot* snapshot = nullptr);
  // A statistics counter (stats column family); zero if absent, Corruption
  // if malformed, and the read's error if it failed: never a zero that a
  // write would store back as the whole counter.
  Result<Counter> ReadStatsCounter(const std::string& stats_key,
                                   const rocksdb::Snapshot* snapshot = nullptr);
  // The lock a write of `item_key` takes: the item's stripe, or for a table
  // with an LSI the collection's, so that the collection size limit is
  // checked and enforced atomically.
  std::mutex& WriteLock(const TableInfo& table, const format::EncodedKey& item_key,
                        const AttributeValue& pk);
  // The write pipeline (engine/write/pipeline.cc): runs `actions`
  // atomically through the steps of engine/write/action.h. The outcomes say
  // what each action found; if any failed, nothing was written. An error
  // Result only for I/O and corruption.
  Result<std::vector<write::Outcome>> RunWrites(const std::vector<write::Action>& actions,
                                                const write::RunOptions& options);
  // RunWrites' phases. Each Admit throttles the actions whose collection's
  // budget is spent (the table's, then, once the new items are known, their
  // GSIs'), and says whether it throttled any.
  bool AdmitWrites(const std::vector<write::Action>& actions,
                   std::vector<write::Outcome>* outcomes);
  bool AdmitIndexWrites(const std::vector<write::Action>& actions,
                        std::vector<write::Outcome>* outcomes);
  // Reads each action's item, checks its condition and computes the new
  // item; true if an action failed (a transaction goes on to report every
  // failure).
  Result<bool> ReadAndEvaluate(const std::vector<write::Action>& actions,
                               const write::RunOptions& options,
                               std::vector<write::Outcome>* outcomes);
  // PutItem and DeleteItem (engine/db_impl_items.cc): `plan` makes the action.
  template <typename Response, typename Request, typename Plan>
  Result<Response> RunPutOrDelete(const Request& request, Plan plan);
  // RunWrites for one action, its failure returned as the error.
  Result<write::Outcome> RunWrite(write::Action action, ReturnItemCollectionMetrics metrics,
                                  CapacityMeter* meter);
  // One atomic batch of item writes being assembled, with the collection
  // growth it already contains so the size limit sees every write of it.
  struct PendingWrite {
    rocksdb::WriteBatch batch;
    // LSI tables: collection stats key -> its counter with this batch's writes.
    std::map<std::string, Counter> collections;
    std::vector<IndexWriteUnits> index_writes;    // for consumed capacity
    std::vector<VectorWriteBytes> vector_writes;  // likewise
    TotalsDelta totals;  // merged into `batch` once it holds every write
    // Vector index entries changed, for the in-memory graphs (only while
    // any exists): applied once the batch is committed.
    std::vector<VectorGraphChange> graph_changes;
  };
  // Adds the write of `after` (or the deletion of the item when null) to
  // `pending`: the item, its index entries and statistics; enforces the
  // collection size limit. Sets `*item_bytes` to the larger of the two
  // items' sizes (what the write's capacity units are counted on).
  // REQUIRES: WriteLock held, `before` read under it.
  Result<std::optional<ItemCollectionMetrics>> PrepareItemWrite(
      PendingWrite* pending, const TableInfo& table, const format::EncodedKey& key,
      const std::optional<Item>& before, const Item* after, ReturnItemCollectionMetrics metrics,
      int64_t* item_bytes);
  // The stream records of the changes, then `pending` as one WriteBatch.
  Status CommitWrites(const std::vector<write::Action>& actions,
                      const std::vector<write::Outcome>& outcomes,
                      const write::RunOptions& options, PendingWrite* pending);
  // Where action i's index writes end in `pending`.
  struct WritesEnd {
    size_t index = 0;   // in index_writes
    size_t vector = 0;  // in vector_writes
  };
  // Consumed capacity and each collection's traffic for the written
  // actions.
  void ChargeWrites(const std::vector<write::Action>& actions,
                    const std::vector<write::Outcome>& outcomes, const write::RunOptions& options,
                    const PendingWrite& pending, const std::vector<WritesEnd>& ends);
  Status Write(rocksdb::WriteBatch* batch);
  Status FromRocks(const rocksdb::Status& s);

  // ---- Streams (engine/streams/streams.cc) ----
  // Loads the stream descriptors, sets the sequencer past every number
  // used, rolls each enabled stream's open shard and forgets streams past
  // retention. At Open, after the catalog.
  Status LoadStreams();
  // CreateTable's, UpdateTable's and DeleteTable's stream change: a new
  // stream for `info` (enable) or the end of its current one (disable),
  // recorded in `info` and `batch`; *changed is the stream descriptor to
  // InstallStream once the batch is written. ValidationException for
  // enabling an enabled stream or disabling none.
  // REQUIRES: catalog_mu_ held exclusively and the table held exclusively
  // (no write of it in flight); spec.stream_view_type set iff enabling.
  Status ApplyStreamChange(const StreamSpecification& spec, TableInfo* info,
                           rocksdb::WriteBatch* batch, std::optional<StreamInfo>* changed);
  StreamInfo NewStream(const TableInfo& info, StreamViewType view);
  void InstallStream(StreamInfo stream);
  // Closes the open shard of `stream` at the last number issued and opens
  // its child. REQUIRES: streams_mu_ held.
  void RollShard(StreamInfo* stream, rocksdb::WriteBatch* batch);
  // The stream an ARN of this database names. REQUIRES: streams_mu_ held.
  Result<StreamInfo*> FindStream(std::string_view arn);
  std::string StreamArn(const StreamInfo& stream) const;
  // The first sequence number not yet past retention.
  uint64_t TrimPoint() const;
  // Records of `stream_id` with numbers in [from, to], at most `limit` and
  // about max_bytes (at least one), appended to `out`. Returns the number
  // after the last one read (from, if none).
  Result<uint64_t> ReadRecords(uint32_t stream_id, StreamViewType view, uint64_t from, uint64_t to,
                               size_t limit, size_t max_bytes, std::vector<StreamRecord>* out);

  // ---- TTL (engine/ttl.cc) ----
  // Examines up to `budget` items of the table after *cursor (an item key;
  // empty: from the start), deletes the expired ones (adding to *deleted)
  // and moves *cursor on; true when it reached the end of the table (the
  // cursor then starts over).
  Result<bool> SweepTable(const std::string& table_name, size_t budget, std::string* cursor,
                          int64_t* deleted);
  void TtlSweeperLoop();

  struct Page;  // Query/Scan iteration, in db_impl_query.cc
  // One Query/Scan page over [lower, upper): items evaluated up to Limit or
  // the page size; the filter (if any) decides what counts, evaluated on the
  // encoded item in place; the projection (if any) shapes what is returned.
  struct PageSpec {
    std::string lower, upper;
    bool forward = true;
    bool prefix_mode = false;
    std::optional<int32_t> limit;
    bool count_only = false;
    const expr::Condition* filter = nullptr;
    const std::vector<expr::Path>* projection = nullptr;
    // Reading an index instead of the table; for an LSI, whether each entry
    // is replaced by the table's item (attributes the index does not project).
    const IndexInfo* index = nullptr;
    bool fetch_table_item = false;
    ItemEncoding encoding = ItemEncoding::kDecoded;
  };
  // What a page read, for its read capacity: the entries' bytes (the
  // table's or the index's), and the table items an LSI page fetched, each
  // charged as a read of its own (its size rounded up to 4 KB).
  struct PageCost {
    size_t bytes = 0;
    int64_t fetched_4k_units = 0;
    // The table's share of an LSI page (strong units; half if eventual).
    double FetchUnits(bool strongly_consistent) const {
      return strongly_consistent ? double(fetched_4k_units) : double(fetched_4k_units) / 2;
    }
  };
  Result<QueryResponse> RunPage(const TableInfo& table, const PageSpec& spec, PageCost* cost);

  // ---- Collection traffic (engine/db_impl_collection_traffic.cc) ----
  static std::optional<Traffic::Limits> LimitsOf(const Options& options);
  // Where a collection's traffic counts: a GSI's own collections; the
  // table's for the table and its LSIs (which live in its partitions).
  static uint32_t TrafficSpace(const TableInfo& table, const IndexInfo* index);
  // OK if the collection's read (or write) budget admits a request now
  // (always without partition limits); else DynamoDB's throttling error.
  Status AdmitCollection(const TableInfo& table, const IndexInfo* index, const AttributeValue& pk,
                         bool write);
  // True if any action's table has an OnDemandThroughput maximum.
  static bool AnyMaxima(const std::vector<write::Action>& actions);
  // OnDemandThroughput: OK if the table's (or GSI's) maximum admits a read
  // (or write) now, or it has none (or is not on-demand); else DynamoDB's
  // throttling error. AdmitCollection asks it first.
  Status AdmitMaximum(const TableInfo& table, const IndexInfo* index, bool write);
  // Charges what a request consumed to the maxima it falls under.
  void ChargeMaximum(const TableInfo& table, const IndexInfo* index, double read_units,
                     double write_units);
  // The same for an index collection named by all its partition values.
  Status AdmitCollection(const TableInfo& table, const IndexInfo* index,
                         format::KeyValues partition, bool write);
  // Counts what a request consumed on a collection (HottestCollections and
  // the partition budgets).
  void RecordCollection(const TableInfo& table, const IndexInfo* index, const AttributeValue& pk,
                        double read_units, double write_units);
  void RecordCollection(const TableInfo& table, const IndexInfo* index, format::KeyValues partition,
                        double read_units, double write_units);
  // The same for a table collection whose prefix (format::CollectionPrefix)
  // the caller has already encoded: GetItem's key starts with it.
  void RecordTableCollection(const TableInfo& table, std::string_view collection_prefix,
                             double read_units, double write_units);
  bool TracksTraffic() const { return traffic_.tracking() || traffic_.limiting(); }
  // ProvisionedThroughputExceededException (provisioned table) or
  // ThrottlingException (on-demand), with its ThrottlingDetail.
  Status Throttled(const TableInfo& table, const IndexInfo* index, bool write) const;

  const Options options_;
  Traffic traffic_;
  MaxThroughput max_throughput_;  // OnDemandThroughput's maxima
  std::string path_;  // the database directory
  // Options::read_only: the secondary instance's own directory (removed at close).
  std::string secondary_dir_;
  // RocksDB's Env: its file system is Options::file_system (or the
  // operating system's) under a WalOrderFileSystem. Declared before db_: it
  // outlives the DB.
  std::unique_ptr<rocksdb::Env> env_;
  // The block cache (null when Options::block_cache_bytes is 0).
  std::shared_ptr<rocksdb::Cache> block_cache_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::ColumnFamilyHandle* catalog_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* items_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* stats_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* indexes_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* streams_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* tokens_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* vectors_cf_ = nullptr;           // vector index entries
  EmptyCounterFilter empty_counter_filter_;                     // the stats column family's
  KeySchemas key_schemas_;  // every table's, for the items' filter (declared before it)
  ItemUpgradeFilter item_upgrade_filter_{&key_schemas_, false};       // the items column family's
  ItemUpgradeFilter index_entry_upgrade_filter_{&key_schemas_, true};  // the indexes column family's
  std::unique_ptr<streams::RetentionFilter> retention_filter_;  // the streams column family's
  std::unique_ptr<tokens::ExpiryFilter> token_filter_;          // the tokens column family's
  rocksdb::WriteOptions write_options_;
  std::shared_ptr<BackgroundErrors> background_errors_ = std::make_shared<BackgroundErrors>();

  std::shared_mutex catalog_mu_;  // guards tables_ and next_space_id_
  std::map<std::string, std::shared_ptr<TableState>, std::less<>> tables_;
  uint32_t next_space_id_ = 1;

  std::array<std::mutex, kLockStripes> stripes_;

  // Streams: the sequence numbers of every stream's records, and the
  // streams themselves by id (guarded by streams_mu_; lock order: a table's
  // mu, then catalog_mu_, then streams_mu_).
  streams::Sequencer sequencer_;
  std::mutex streams_mu_;
  std::map<uint32_t, StreamInfo> streams_;
  // Signs and checks shard iterators (kCatalogIteratorSecretKey). Set by
  // Open, constant after: read without a lock.
  streams::IteratorSecret iterator_secret_{};

  // The TTL sweeper thread and how to stop it.
  std::thread ttl_thread_;
  std::mutex ttl_mu_;
  std::condition_variable ttl_cv_;
  bool stopping_ = false;  // guarded by ttl_mu_

  // The background GSI backfill thread: its queue of (table, index), the
  // one it runs, and the first error of a failed one (all guarded by
  // backfill_mu_; backfill_cv_ signals both new work and completion).
  std::thread backfill_thread_;
  std::mutex backfill_mu_;
  std::condition_variable backfill_cv_;
  std::vector<std::pair<std::string, std::string>> backfill_queue_;
  bool backfill_running_ = false;
  bool backfill_stopping_ = false;
  Status backfill_error_;

  // Vector index graphs (engine/vector_graph.h) and the background thread
  // that surveys the indexes at Open and builds graphs (its queue and
  // state guarded by graph_mu_; graph_cv_ signals new work and completion).
  std::unique_ptr<VectorGraphs> graphs_;
  std::vector<std::thread> graph_threads_;  // Options::vector_graph_threads
  std::mutex graph_mu_;
  std::condition_variable graph_cv_;
  std::vector<GraphJob> graph_queue_;
  bool graph_started_ = false;  // StartVectorGraphs ran (not read-only, not exact-only)
  size_t graph_running_ = 0;    // jobs being done
  bool graph_stopping_ = false;
  Status graph_error_;

  // TransactWriteItems idempotency. Committed tokens are records in the
  // tokens column family (engine/tokens.h); in memory only the tokens of
  // requests still running, with their request's digest (so at most one
  // entry per request in flight).
  std::mutex tokens_mu_;
  std::map<std::string, tokens::Digest, std::less<>> tokens_in_flight_;
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_DB_IMPL_H_
