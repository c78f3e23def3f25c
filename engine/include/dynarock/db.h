// Dynarock's embedded API: a durable DynamoDB-model database in one directory.
//
//   auto db = dynarock::Database::Open("/var/lib/fleet", {});
//   if (!db.ok()) ...;                       // db.status() says why
//   (*db)->CreateTable({...});
//   (*db)->PutItem({.table_name = "Telemetry", .item = {...}});
//
// Every operation returns Result<Response> (or Status); an error Status
// carries the DynamoDB exception name (Status::ErrorName()) and DynamoDB's
// message, in the order DynamoDB checks. No
// exceptions cross this API. On error nothing was written.
//
// Errors every operation may return, besides those listed with it:
//   ValidationException: the request breaks DynamoDB's model constraints or
//     rules (lengths, ranges, required members, expressions, key shapes);
//   InternalServerError (Status::Code kCorruption / kIOError / kInternal):
//     the storage failed or its bytes are damaged.
//
// Thread safety: a Database may be used from any number of threads at once.
// Each write (single item, batch or transaction) is atomic with respect to
// every other write of the same items, and a write's indexes and statistics
// change in the same atomic batch as its items.
#ifndef DYNAROCK_DB_H_
#define DYNAROCK_DB_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dynarock/bulk.h"
#include "dynarock/types.h"

namespace rocksdb {
class FileSystem;
}  // namespace rocksdb

namespace dynarock {

// Collection traffic is counted in kTrafficSlices slices of kTrafficSliceMs
// each (6 minutes in all), kTrafficCounters collections per slice, per table
// and per GSI (Options::track_collection_traffic, HottestCollections).
inline constexpr int64_t kTrafficSliceMs = 5000;
inline constexpr size_t kTrafficSlices = 72;
inline constexpr size_t kTrafficCounters = 64;

struct Options {
  // Create the directory's database if it does not exist.
  bool create_if_missing = true;
  // fsync the write-ahead log on every write: an acknowledged write then
  // survives power loss, not just a process crash. Off: it survives a crash
  // of this process (the WAL is written before the write is acknowledged).
  bool sync_writes = false;
  // Memory. The block cache holds the data blocks read (and, with
  // cache_index_and_filter_blocks, the index and filter blocks).
  // Memtables: write_buffer_bytes each for the items and the indexes column
  // families (up to two of each), and every column family's together within
  // MemtableBudget() = 4 x write_buffer_bytes. block_cache_bytes = 0 turns
  // the cache off: every read reaches the files.
  size_t block_cache_bytes = 64 << 20;
  size_t write_buffer_bytes = 64 << 20;
  // Index and filter blocks in the block cache (partitioned), so RocksDB's
  // memory stays within MemoryBudget() however large the database grows.
  // Off, each open file holds its index and filter in memory outside the
  // budget: about 1.3 bytes per key of filter plus an index entry per 4 KB
  // block (a 10M-item fleet with a GSI: its process peaked at 461-466 MiB
  // against 320 MiB budgeted, 246-251 MiB with this on). On, every read
  // looks its index and filter partitions up in the cache: GetItem took
  // 1.4-1.9x as long on 1M items, 2.3x on 10M where the default 64 MiB cache
  // holds neither the partitions nor the data read (bench/run_10m.sh); give
  // the cache more of the budget with it. No effect when block_cache_bytes
  // is 0.
  bool cache_index_and_filter_blocks = false;
  size_t MemtableBudget() const { return 4 * write_buffer_bytes; }
  // RocksDB's memory: within it with cache_index_and_filter_blocks
  // (320 MiB by default), give or take the blocks pinned while reads use them.
  size_t MemoryBudget() const { return block_cache_bytes + MemtableBudget(); }
  // DynamoDB's 1 MB Query/Scan page. Configurable so tests can reach it.
  size_t max_page_bytes = 1 << 20;
  // The size limit of an item collection of a table with an LSI (DynamoDB:
  // 10 GB). Configurable so tests can reach it.
  int64_t item_collection_size_limit_bytes = int64_t{10} << 30;
  // Used in table ARNs: arn:aws:dynamodb:<region>:<account_id>:table/<name>
  // (us-east-1: what `dynarock serve` answers by default, so that a dump
  // written by the CLI names the table as the server does).
  std::string region = "us-east-1";
  std::string account_id = "000000000000";

  // The clock (milliseconds since the epoch) that TTL expiry, stream
  // retention, iterator ages and stream timestamps read. Null: the system
  // clock. Tests move it instead of sleeping.
  std::function<int64_t()> clock_ms;
  // Stream records older than this are trimmed (DynamoDB: 24 hours).
  int64_t stream_retention_ms = int64_t{24} * 3600 * 1000;
  // A stream's open shard is closed and a child opened after this long
  // (DynamoDB rolls shards every few hours), and at every Open.
  int64_t stream_shard_lifetime_ms = int64_t{4} * 3600 * 1000;
  // The background TTL sweep: every interval it examines up to
  // ttl_sweep_batch_items items of each table with TTL enabled, resuming
  // where it stopped (also across restarts), and deletes the expired ones.
  // 0: no background sweep (ExpireItems() still runs one).
  int64_t ttl_sweep_interval_ms = 1000;
  size_t ttl_sweep_batch_items = 1000;
  // UpdateTimeToLive accepts one change per table per this interval, as
  // DynamoDB (which documents up to an hour).
  int64_t ttl_change_cooldown_ms = int64_t{3600} * 1000;
  // A GSI that UpdateTable adds is filled in the background, this many
  // items per step (each step's position is saved, so a restart resumes
  // there). Configurable so tests can catch a backfill midway.
  size_t backfill_batch_items = 1000;

  // SearchVectors scores every entry of a collection (the HASH value's, or
  // a whole index without a HASH) exactly, up to this many entries: about
  // 2 ms at 128 dimensions on one core (bench/RESULTS.md). A larger one is
  // searched through an HNSW graph kept in memory (approximate: the
  // candidates it proposes are read and scored exactly), built in the
  // background when a search or the survey at Open finds it that large;
  // until then the search stays exact. 0: always exact.
  size_t vector_exact_limit = 20000;
  // HNSW's links per node, and its candidate lists while inserting and
  // while searching (at least TopK). ef_search 200 reaches recall@10 0.96
  // on 1M clustered 128-dimension vectors where 100 reaches 0.87
  // (bench/RESULTS.md); each doubling costs about 1.6x the latency.
  size_t vector_graph_m = 16;
  size_t vector_graph_ef_construction = 200;
  size_t vector_graph_ef_search = 200;
  // Background threads that build graphs, one graph each at a time (the
  // graphs of a HASH index's large partitions build side by side; one
  // graph is built by one thread).
  size_t vector_graph_threads = 2;

  // Count the capacity units each item collection consumes, for
  // HottestCollections. A request only appends its units to a pending batch;
  // a background thread of this Database applies batches to the summaries
  // (memory: kTrafficSlices * kTrafficCounters counters per table and GSI in
  // use, and at most a few MB of pending records). bench/RESULTS.md gives
  // its cost.
  bool track_collection_traffic = true;
  // Enforce DynamoDB's per-partition ceilings on each collection (table
  // collections, and GSI collections): a request to a collection whose
  // budget is spent gets ProvisionedThroughputExceededException (provisioned
  // tables) or ThrottlingException (on-demand), with ThrottlingDetail
  // (reason "...KeyRangeThroughputExceeded"), as DynamoDB answers a hot
  // partition. BatchGetItem and BatchWriteItem return throttled keys and
  // writes as unprocessed (the exception if none could be processed);
  // transactions are cancelled. Scans are not limited. Null: no limits.
  struct PartitionLimits {
    double read_units_per_second = 3000;  // FACTS.md 6
    double write_units_per_second = 1000;
    // Unused capacity a collection keeps for bursts (DynamoDB: up to 300 s),
    // at least one second's. A collection not seen before starts with all
    // of it.
    double burst_seconds = 300;
  };
  std::optional<PartitionLimits> partition_limits;

  // Open for reading only, also while another process (`dynarock serve`)
  // has the directory open: a RocksDB secondary instance, which sees the
  // primary's state as of Open (its WAL included). Every write returns
  // NotSupported; no background work runs. A database in an older storage
  // format is not upgraded: NotSupported until a read-write Open upgrades it.
  bool read_only = false;

  // The file system RocksDB runs on; null: the operating system's. A test
  // seam (tests/util/fault_fs.h injects power cuts and I/O errors through
  // it); a restore's SST files are written through it too.
  std::shared_ptr<rocksdb::FileSystem> file_system;
  // RocksDB's max_compaction_bytes for every column family (0: RocksDB's
  // default, 25 write buffers). Small values split manual compactions into
  // many, as large databases do; tests use it to show that nothing here
  // depends on one compaction covering everything.
  uint64_t max_compaction_bytes = 0;
  // How long WaitForCompactions() waits before it gives up (an Internal
  // error, as for a background error that stopped RocksDB's work).
  int64_t wait_for_compactions_timeout_ms = int64_t{10} * 60 * 1000;
};

// What this build is: Dynarock's release, the storage format version it
// writes (Open upgrades an older database and refuses a newer one), and the
// RocksDB it runs on.
struct BuildInfo {
  std::string version;
  uint32_t storage_format = 0;
  std::string rocksdb_version;
};
BuildInfo GetBuildInfo();

class Database {
 public:
  // Opens the database in directory `path`, creating it when the directory
  // holds none and options.create_if_missing is set (a new database gets the
  // format record of format/STORAGE_LAYOUT.md). A GSI backfill that a crash
  // or a close interrupted resumes in the background where it stopped.
  // Errors, each leaving the directory untouched:
  //   InvalidArgument: the directory holds a RocksDB database that is not a
  //     Dynarock database, or holds none and create_if_missing is false;
  //   NotSupported: the database was written by a newer storage format;
  //   Corruption: the files are damaged; IOError: the file system failed
  //     (including the directory being open in another process).
  static Result<std::unique_ptr<Database>> Open(const std::string& path, const Options& options);

  // Whether a read-write Open may create a database in `path`, asked before
  // RocksDB opens anything there (dynarock restore asks first, so a refused
  // directory is left as it was). OK if `path` does not exist, is an empty
  // directory, or holds a RocksDB database (Open then checks that it is a
  // Dynarock one). Otherwise InvalidArgument: "PATH holds no Dynarock
  // database", the message of a read-only Open (dynarock dump, collection),
  // for a directory of other files or one whose CURRENT leads to no
  // database; "PATH is not a directory" for a file. Reads only.
  static Status CheckDirectory(const std::string& path);

  // Stops a running backfill at its next step (the next Open resumes it),
  // flushes nothing extra (every acknowledged write is already in the WAL)
  // and releases the directory lock.
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // ---- Tables. Catalog changes are always fsynced, whatever sync_writes.
  //
  // Creates the table (with its LSIs and GSIs), ACTIVE when this returns.
  // The response describes it as DynamoDB's does, CREATING (its GSIs too);
  // DescribeTable already says ACTIVE. ResourceInUseException if a table of
  // that name exists.
  Result<CreateTableResponse> CreateTable(const CreateTableRequest& request);
  // The table's description with exact statistics. ResourceNotFoundException
  // for an unknown table (this and the operations below).
  Result<DescribeTableResponse> DescribeTable(const DescribeTableRequest& request);
  // The errors CreateTable would return for `request` now, without creating
  // anything (ImportTable's synchronous checks).
  Status CheckCreateTable(const CreateTableRequest& request);
  // Table names in ascending order, at most `limit` (100) per page.
  Result<ListTablesResponse> ListTables(const ListTablesRequest& request);
  // Waits for the table's in-flight operations, then drops it: cheap
  // whatever its size (one range deletion, not a scan). Later operations on
  // the name get ResourceNotFoundException.
  Result<DeleteTableResponse> DeleteTable(const DeleteTableRequest& request);
  // Adds a GSI or deletes one (a range deletion), and changes billing mode
  // or throughput. A new GSI is returned CREATING with Backfilling true (the
  // table UPDATING) and filled from the table's items in the background;
  // the table serves reads and writes meanwhile (writes maintain the new
  // index), the index itself answers ValidationException until it is ACTIVE
  // (see WaitForBackfills). LimitExceededException for more than one index
  // change per call or while a backfill runs; ResourceNotFoundException for
  // an unknown index to delete. As DynamoDB's, the response says UPDATING
  // for a billing, throughput, index or stream change (DescribeTable says
  // ACTIVE once nothing is backfilling); a change of deletion protection
  // alone leaves the status as it is.
  Result<UpdateTableResponse> UpdateTable(const UpdateTableRequest& request);
  // UpdateTable also enables a stream (a new one, with a new label and ARN)
  // or disables the current one (its records stay readable until
  // retention); ValidationException as DynamoDB for enabling twice,
  // disabling none, a missing or superfluous view type, or a stream change
  // combined with a throughput or index change.
  //
  // TTL settings and tags are stored with the table descriptor; items whose
  // TTL attribute is in the past are deleted by the TTL sweep (Options).
  // Tags address the table by its ARN; an ARN of another region or account
  // is ResourceNotFoundException; LimitExceededException beyond 50 tags.
  Result<UpdateTimeToLiveResponse> UpdateTimeToLive(const UpdateTimeToLiveRequest& request);
  Result<DescribeTimeToLiveResponse> DescribeTimeToLive(const DescribeTimeToLiveRequest& request);
  Status TagResource(const TagResourceRequest& request);
  Status UntagResource(const UntagResourceRequest& request);
  // Resource-based policies on a table's ARN or its latest stream's. Dynarock
  // has no IAM: a policy is validated (a JSON object of at most 20 KB,
  // ValidationException otherwise), stored with the table and versioned;
  // it grants and denies nothing. ResourceNotFoundException for a table or
  // stream that does not exist; PolicyNotFoundException for no policy (Get),
  // or an ExpectedRevisionId that is not the current one. Putting the
  // current document again keeps its revision id.
  Result<PutResourcePolicyResponse> PutResourcePolicy(const PutResourcePolicyRequest& request);
  Result<GetResourcePolicyResponse> GetResourcePolicy(const GetResourcePolicyRequest& request);
  Result<DeleteResourcePolicyResponse> DeleteResourcePolicy(
      const DeleteResourcePolicyRequest& request);
  // SearchVectors on a vector index: ValidationException with DynamoDB's
  // texts for a TopK outside 1..100, a condition that is not an AND of
  // equalities on search attributes (or lacks the HASH one), a search vector
  // of invalid values or of another dimension, an unknown or backfilling
  // index; ResourceNotFoundException for an unknown table. Sees every
  // acknowledged write. Exact up to Options::vector_exact_limit entries in
  // the collection searched; above, approximate (an HNSW graph's candidates,
  // each read and scored exactly: never an entry the index no longer holds;
  // with filters, exact again when the candidates hold fewer than TopK
  // matches). Thread-safe.
  Result<SearchVectorsResponse> SearchVectors(const SearchVectorsRequest& request);
  Result<ListTagsOfResourceResponse> ListTagsOfResource(const ListTagsOfResourceRequest& request);

  // ---- Point-in-time recovery, the prerequisite of a point-in-time export.
  // Synchronous and idempotent; an enable (re)starts the window. Errors:
  // TableNotFoundException for an unknown table; ValidationException for a
  // RecoveryPeriodInDays outside 1-35 or sent with a disable.
  Result<ContinuousBackupsDescription> UpdateContinuousBackups(
      const UpdateContinuousBackupsRequest& request);
  Result<ContinuousBackupsDescription> DescribeContinuousBackups(
      const DescribeContinuousBackupsRequest& request);

  // ---- Service records: small documents a service built on the engine
  // keeps durably with the database (the server's export and import job
  // descriptions), in the catalog under "service/<name>", fsynced. They are
  // not part of any table and survive DeleteTable. NotSupported when opened
  // read_only.
  Status PutServiceRecord(std::string_view name, std::string_view value);
  // Every record whose name starts with `prefix`, in name order.
  Result<std::vector<std::pair<std::string, std::string>>> ServiceRecords(std::string_view prefix);

  // ---- Items. Key and item validation as DynamoDB (missing or mistyped key
  // attributes, empty keys, key and item size limits: ValidationException).
  // Writes to a table with an LSI fail with
  // ItemCollectionSizeLimitExceededException when they would grow the
  // collection past Options::item_collection_size_limit_bytes.
  //
  // Replaces (or creates) the item with request.item.
  Result<PutItemResponse> PutItem(const PutItemRequest& request);
  // The item, or an empty `item` when there is none (not an error).
  Result<GetItemResponse> GetItem(const GetItemRequest& request);
  // Deletes the item; deleting an absent item succeeds and writes nothing.
  Result<DeleteItemResponse> DeleteItem(const DeleteItemRequest& request);
  // Applies an UpdateExpression (or legacy AttributeUpdates) atomically,
  // creating the item if it is absent. Puts, Deletes and Updates take an
  // optional ConditionExpression (or legacy Expected), checked against the
  // current item atomically with the write: ConditionalCheckFailedException
  // when it is false, with the old item as a ConditionalCheckFailedDetail
  // payload if ReturnValuesOnConditionCheckFailure is ALL_OLD.
  Result<UpdateItemResponse> UpdateItem(const UpdateItemRequest& request);

  // ---- Batches: up to 100 keys read, up to 25 puts/deletes written, across
  // tables. A batch write commits in one RocksDB batch (all or none: stronger
  // than DynamoDB's per-item atomicity). ValidationException for duplicate
  // keys or too many items; ResourceNotFoundException for an unknown table
  // (before anything is read or written).
  Result<BatchGetItemResponse> BatchGetItem(const BatchGetItemRequest& request);
  Result<BatchWriteItemResponse> BatchWriteItem(const BatchWriteItemRequest& request);

  // ---- Transactions: up to 100 actions on distinct items, all or nothing
  // (indexes and statistics included); TransactionCanceledException with a
  // TransactionCanceledDetail payload when any condition fails (or an update
  // is invalid, or a collection would grow past its limit). Reads come from
  // one consistent snapshot. IdempotentParameterMismatchException /
  // TransactionInProgressException for a reused ClientRequestToken.
  Result<TransactWriteItemsResponse> TransactWriteItems(const TransactWriteItemsRequest& request);
  Result<TransactGetItemsResponse> TransactGetItems(const TransactGetItemsRequest& request);

  // ---- Query reads one item collection: one seek, then only the items it
  // returns. Scan walks the table in hash order; a parallel Scan segment is a
  // contiguous hash range. A page ends at `limit` items evaluated or at
  // Options::max_page_bytes; last_evaluated_key then says where to resume.
  // ResourceNotFoundException for an unknown table or index.
  Result<QueryResponse> Query(const QueryRequest& request);
  Result<ScanResponse> Scan(const ScanRequest& request);

  // ---- PartiQL: DynamoDB's SQL-compatible statements (PARTIQL.md), run as
  // the operations above run them.
  //
  // SELECT runs as a Query (one per partition key value) when its WHERE pins
  // the partition key of the table or index with = or IN, with a sort-key
  // condition as the key range; otherwise as a Scan. The WHERE is applied to
  // every item read (Limit and the 1 MB page count items read, as Query's),
  // and the projection keys each path by its last segment. INSERT fails with
  // DuplicateItemException if the key exists; UPDATE and DELETE need the full
  // primary key by equality in their WHERE, whose other predicates are their
  // condition (ConditionalCheckFailedException); UPDATE never creates an
  // item. Errors: ValidationException "Statement wasn't well formed, can't be
  // processed: ..." for a syntax error, and DynamoDB's messages for
  // unsupported constructs, parameter counts, keys and tokens;
  // ResourceNotFoundException for an unknown table.
  Result<ExecuteStatementResponse> ExecuteStatement(const ExecuteStatementRequest& request);
  // Up to 25 statements, all reads (each naming one item's full key) or all
  // writes, each run on its own (not atomically); a statement's failure is
  // its response's error, the others still run. ValidationException for the
  // whole request for mixed reads and writes or two statements on one item.
  Result<BatchExecuteStatementResponse> BatchExecuteStatement(
      const BatchExecuteStatementRequest& request);
  // Up to 100 statements, all reads (TransactGetItems) or all writes and
  // EXISTS checks (TransactWriteItems), all or nothing:
  // TransactionCanceledException with one reason per statement
  // (DuplicateItem for an INSERT of an existing key).
  Result<ExecuteTransactionResponse> ExecuteTransaction(const ExecuteTransactionRequest& request);

  // ---- Dump and restore (dynarock/bulk.h) ----

  // Writes table `options.table_name` as DynamoDB's full export (files and
  // manifests as in bulk.h), read from one snapshot: the export is the table
  // at one point (ExportTableResult::export_time_ms) while writes go on.
  // Memory stays bounded (each segment streams its items). Errors:
  // ResourceNotFoundException (no such table), IOError (the files).
  Result<ExportTableResult> ExportTable(const ExportTableOptions& options);
  // Creates table `options.table.table_name` holding the items of
  // `options.files`, atomically: on any error, and after a crash at any
  // point, the database is as it was (no table, no items). Items are
  // checked as PutItem checks them; a bad one is counted and skipped
  // (ImportTableResult::errors), or with `strict` aborts the import.
  // Duplicate keys: the last in input order wins. Errors: CreateTable's
  // (ValidationException, ResourceInUseException: the table exists,
  // LimitExceededException), InvalidArgument (a file that cannot be parsed
  // or decompressed, a checksum or item count that differs from the
  // manifest, the first bad item under `strict`), NotSupported (read_only),
  // IOError.
  Result<ImportTableResult> ImportTable(const ImportTableOptions& options);

  // ---- DynamoDB Streams. Each item change of a table with an enabled stream
  // has exactly one record, written in the same atomic batch as the change
  // (a write that changes nothing has none). A stream has one open shard at
  // a time; it is closed (and a child opened) at every Open and after
  // Options::stream_shard_lifetime_ms, and when the stream is disabled.
  //
  // Streams of every table (disabled ones too, until retention), in
  // creation order. ResourceNotFoundException for an unknown table or
  // ExclusiveStartStreamArn.
  Result<ListStreamsResponse> ListStreams(const ListStreamsRequest& request);
  // A stream and its shards with their lineage. ResourceNotFoundException
  // for an unknown stream.
  Result<DescribeStreamResponse> DescribeStream(const DescribeStreamRequest& request);
  // An iterator into a shard. ResourceNotFoundException for an unknown
  // stream or shard; ValidationException for a sequence number missing,
  // superfluous, malformed or outside the shard; TrimmedDataAccessException
  // for one past retention.
  Result<GetShardIteratorResponse> GetShardIterator(const GetShardIteratorRequest& request);
  // Up to `limit` records (and about 1 MB) from an iterator, and the
  // iterator to continue with (absent at the end of a closed shard).
  // ExpiredIteratorException 15 minutes after the iterator was issued;
  // TrimmedDataAccessException when its position is past retention;
  // ValidationException "Invalid ShardIterator" for an iterator this
  // database did not issue. Iterators are signed (HMAC-SHA256) with a
  // secret kept in the database, so that covers any altered or made-up
  // one, another database's, one issued before storage format 9, one
  // whose stream's ARN has changed since (Options::region, account_id), and
  // one issued more than 5 minutes ahead of this database's clock.
  Result<GetRecordsResponse> GetRecords(const GetRecordsRequest& request);
  // The consumer helper for C++ users: up to `limit` records of the stream
  // with sequence numbers above `after_sequence_number` (empty: from the
  // oldest record retained), in order across all its shards; pass the last
  // record's sequence number to continue. No iterator, no expiry.
  // ResourceNotFoundException for an unknown stream; ValidationException
  // for a malformed sequence number.
  Result<std::vector<StreamRecord>> ReadStream(const std::string& stream_arn,
                                               const std::string& after_sequence_number,
                                               size_t limit);

  // ---- TTL. Runs one complete sweep now: deletes every item whose TTL
  // attribute is a number of epoch seconds in the past (by Options::clock_ms)
  // but not more than 5 years old, as DynamoDB does; through the write
  // path, so indexes, statistics and the stream (a REMOVE record marked as
  // a TTL deletion) stay exact. Returns the number of items deleted.
  Result<int64_t> ExpireItems();

  // Compacts every column family fully: what the compaction filters do
  // happens now, for every file (stream records past retention go; items
  // and index entries written in an older item encoding are rewritten in the
  // current one, format/ITEM_FORMAT.md). Errors: RocksDB's, as IOError or
  // Corruption. REQUIRES: a read-write instance.
  Status Compact();

  // The `limit` largest item collections of a table by size, largest first:
  // where hot and big collections are. Exact either way: a table with an LSI
  // reads the collection counters it keeps with every write (its 10 GB
  // limit); any other table keeps none, and this reads every item, so it
  // takes time in proportion to the table; `progress`, when set, is then
  // called with the number of items read so far every 16,384 items.
  // ResourceNotFoundException for an unknown table.
  Result<std::vector<CollectionStatistics>> LargestCollections(
      const std::string& table_name, size_t limit,
      const std::function<void(int64_t items_read)>& progress = {});
  // The same for an index's collections (the entries sharing an index
  // partition key value, e.g. every reading of one depot), largest first.
  // Index collections have no statistics: this reads every entry of the
  // index, so it takes time in proportion to the index; `progress`, when
  // set, is called with the number of entries read so far every 16,384
  // entries (for a progress line). ValidationException for an unknown index.
  // A vector index's collections are its HASH values' (each entry sized as
  // the index counts it: projected item, vector attribute name, 4 bytes a
  // dimension); one without a HASH is one collection, keyed by nothing.
  Result<std::vector<CollectionStatistics>> LargestIndexCollections(
      const std::string& table_name, const std::string& index_name, size_t limit,
      const std::function<void(int64_t entries_read)>& progress = {});
  // One collection's statistics (table collections: from its counter on a
  // table with an LSI, by reading its items on any other) and the SST files
  // and levels its key range spans. ResourceNotFoundException for an unknown
  // table; ValidationException for an unknown index or a partition key
  // value of the wrong type.
  Result<DescribeCollectionResponse> DescribeCollection(const DescribeCollectionRequest& request);

  // The `limit` collections of the table, and as many of each of its GSIs,
  // that consumed the most capacity units over the last `window_ms` (at
  // most kTrafficSlices * kTrafficSliceMs; a window is rounded out to whole
  // slices), as Options::track_collection_traffic counts them: in this
  // process, since Open. ResourceNotFoundException for an unknown table;
  // empty lists when tracking is off.
  Result<HottestCollectionsResponse> HottestCollections(const std::string& table_name, size_t limit,
                                                        int64_t window_ms);
  // Turns collection traffic counting (Options::track_collection_traffic)
  // on or off while the database is open, for every table. Off discards
  // the counts made so far, and HottestCollections gives empty lists; on
  // again counts from then on. Partition limits (Options::partition_limits)
  // are not affected. Thread-safe; requests racing with the switch may or
  // may not be counted.
  void SetCollectionTrafficTracking(bool on);

  // Recounts each table's totals, each index's, and the collection
  // counters of tables with an LSI (the only ones that keep them) from
  // the items and entries themselves, table by table, each read from one
  // snapshot; corrects counters that drifted (by the difference seen at the
  // snapshot, which later writes do not change) and has the statistics
  // family's compaction filter drop the counters of collections that became
  // empty. Item operations go on meanwhile (a table is held only against
  // DeleteTable while it is counted); memory stays one collection's worth.
  // Corruption if a counter cannot be decoded, IOError if a read fails
  // (unreadable items are reported, not fatal).
  Result<StatisticsReport> RecountStatistics();

  // Waits until RocksDB has no memtable flush or compaction running or
  // pending: after a bulk load, reads then meet a settled tree instead of
  // the L0 files the load left behind. Item operations may run meanwhile
  // (the wait then covers the work they cause too). Returns the background
  // error instead if one stops RocksDB's work (see Health()), and Internal
  // after Options::wait_for_compactions_timeout_ms.
  Status WaitForCompactions();

  // OK, or the error a background flush or compaction hit (IOError, e.g. a
  // full disk, or Corruption). While one stands, every write returns it and
  // changes nothing; reads go on. It clears when RocksDB reports that it
  // recovered (it retries some errors itself, e.g. NoSpace once space is
  // freed) or at the next Open.
  Status Health();

  // RocksDB's memory now: the block cache, the memtables and the table
  // readers outside the cache. With Options::cache_index_and_filter_blocks
  // it stays within Options::MemoryBudget() however large the database
  // grows, give or take the blocks pinned while reads use them; without,
  // the table readers grow with the data. Thread-safe.
  MemoryUsage GetMemoryUsage();

  // Waits until no GSI backfill is queued or running (every index ACTIVE),
  // as a DynamoDB client polls DescribeTable. The error of a backfill that
  // failed (it stays CREATING and is retried at the next Open), else OK.
  Status WaitForBackfills();
  // Waits until every vector index graph queued so far (by the survey at
  // Open, or by a search of a collection over Options::vector_exact_limit)
  // is built and serving searches.
  Status WaitForVectorGraphs();

  class Impl;

 private:
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// DynamoDB's first semantic check of a request, on its own: the mixing of
// expression and legacy parameters, and the placeholder maps' own checks
// (an unused or undefined placeholder, an empty map). Every operation makes
// it first, after the model's constraints. A front end that translated a
// client's request and held back an invalid AttributeValue asks for it before
// reporting the value, because DynamoDB reports such a value only after this
// check (the server does: tools/server/wire.cc). ValidationException, in
// DynamoDB's words, or OK.
Status CheckParameters(const PutItemRequest& request);
Status CheckParameters(const GetItemRequest& request);
Status CheckParameters(const DeleteItemRequest& request);
Status CheckParameters(const UpdateItemRequest& request);
Status CheckParameters(const QueryRequest& request);
Status CheckParameters(const ScanRequest& request);
Status CheckParameters(const BatchGetItemRequest& request);

// Counts the storage work done by the calling thread while it lives (RocksDB's
// perf context): what a Query or Scan touched, for tests and the demo.
class ReadCounter {
 public:
  ReadCounter();
  ~ReadCounter();
  // Keys the iterators stepped over or landed on, and seeks issued.
  uint64_t keys_touched() const;
  uint64_t seeks() const;

 private:
  int previous_level_;
};

}  // namespace dynarock

#endif  // DYNAROCK_DB_H_
