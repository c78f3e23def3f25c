// Database's public methods: each forwards to Database::Impl, but for the
// static CheckDirectory.
#include <rocksdb/version.h>

#include <filesystem>

#include "dynarock/db.h"
#include "engine/db_impl.h"

namespace dynarock {

BuildInfo GetBuildInfo() {
  return {DYNAROCK_VERSION, kStorageFormatVersion, rocksdb::GetRocksVersionAsString()};
}

Status Database::CheckDirectory(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) {
    std::error_code ignored;
    if (fs::is_symlink(fs::symlink_status(path, ignored))) {
      return Status::InvalidArgument(path + " is a symbolic link to nothing");
    }
    return Status::OK();  // Open creates it
  }
  if (ec) return Status::IOError(path + ": " + ec.message());
  if (!fs::is_directory(st)) return Status::InvalidArgument(path + " is not a directory");
  const bool empty = fs::is_empty(path, ec);
  if (ec) return Status::IOError(path + " cannot be listed: " + ec.message());
  if (empty) return Status::OK();
  // What a read-only Open asks first (engine/db_impl_open.cc): RocksDB reads CURRENT
  // and the MANIFEST it names, and writes nothing. A database found here is
  // Open's to accept or refuse (a foreign one, untouched).
  std::vector<std::string> families;
  if (rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &families).ok()) {
    return Status::OK();
  }
  return Status::InvalidArgument(path + " holds no Dynarock database");
}

Result<CreateTableResponse> Database::CreateTable(const CreateTableRequest& r) {
  return impl_->CreateTable(r);
}
Result<DescribeTableResponse> Database::DescribeTable(const DescribeTableRequest& r) {
  return impl_->DescribeTable(r);
}
Result<ListTablesResponse> Database::ListTables(const ListTablesRequest& r) {
  return impl_->ListTables(r);
}
Result<DeleteTableResponse> Database::DeleteTable(const DeleteTableRequest& r) {
  return impl_->DeleteTable(r);
}
Result<UpdateTableResponse> Database::UpdateTable(const UpdateTableRequest& r) {
  return impl_->UpdateTable(r);
}
Result<UpdateTimeToLiveResponse> Database::UpdateTimeToLive(const UpdateTimeToLiveRequest& r) {
  return impl_->UpdateTimeToLive(r);
}
Result<DescribeTimeToLiveResponse> Database::DescribeTimeToLive(
    const DescribeTimeToLiveRequest& r) {
  return impl_->DescribeTimeToLive(r);
}
Result<ContinuousBackupsDescription> Database::UpdateContinuousBackups(
    const UpdateContinuousBackupsRequest& r) {
  return impl_->UpdateContinuousBackups(r);
}
Result<ContinuousBackupsDescription> Database::DescribeContinuousBackups(
    const DescribeContinuousBackupsRequest& r) {
  return impl_->DescribeContinuousBackups(r);
}
Status Database::CheckCreateTable(const CreateTableRequest& r) {
  return impl_->CheckCreateTable(r);
}
Status Database::PutServiceRecord(std::string_view name, std::string_view value) {
  return impl_->PutServiceRecord(name, value);
}
Result<std::vector<std::pair<std::string, std::string>>> Database::ServiceRecords(
    std::string_view prefix) {
  return impl_->ServiceRecords(prefix);
}
Status Database::TagResource(const TagResourceRequest& r) { return impl_->TagResource(r); }
Status Database::UntagResource(const UntagResourceRequest& r) { return impl_->UntagResource(r); }
Result<PutResourcePolicyResponse> Database::PutResourcePolicy(const PutResourcePolicyRequest& r) {
  return impl_->PutResourcePolicy(r);
}
Result<GetResourcePolicyResponse> Database::GetResourcePolicy(const GetResourcePolicyRequest& r) {
  return impl_->GetResourcePolicy(r);
}
Result<DeleteResourcePolicyResponse> Database::DeleteResourcePolicy(
    const DeleteResourcePolicyRequest& r) {
  return impl_->DeleteResourcePolicy(r);
}

Result<SearchVectorsResponse> Database::SearchVectors(const SearchVectorsRequest& r) {
  return impl_->SearchVectors(r);
}

Result<ListTagsOfResourceResponse> Database::ListTagsOfResource(
    const ListTagsOfResourceRequest& r) {
  return impl_->ListTagsOfResource(r);
}
Result<ExportTableResult> Database::ExportTable(const ExportTableOptions& o) {
  return impl_->ExportTable(o);
}
Result<ImportTableResult> Database::ImportTable(const ImportTableOptions& o) {
  return impl_->ImportTable(o);
}
Result<ListStreamsResponse> Database::ListStreams(const ListStreamsRequest& r) {
  return impl_->ListStreams(r);
}
Result<DescribeStreamResponse> Database::DescribeStream(const DescribeStreamRequest& r) {
  return impl_->DescribeStream(r);
}
Result<GetShardIteratorResponse> Database::GetShardIterator(const GetShardIteratorRequest& r) {
  return impl_->GetShardIterator(r);
}
Result<GetRecordsResponse> Database::GetRecords(const GetRecordsRequest& r) {
  return impl_->GetRecords(r);
}
Result<std::vector<StreamRecord>> Database::ReadStream(const std::string& stream_arn,
                                                       const std::string& after, size_t limit) {
  return impl_->ReadStream(stream_arn, after, limit);
}
Result<int64_t> Database::ExpireItems() { return impl_->ExpireItems(); }
Status Database::Compact() { return impl_->Compact(); }
Result<PutItemResponse> Database::PutItem(const PutItemRequest& r) { return impl_->PutItem(r); }
Result<GetItemResponse> Database::GetItem(const GetItemRequest& r) { return impl_->GetItem(r); }
Result<DeleteItemResponse> Database::DeleteItem(const DeleteItemRequest& r) {
  return impl_->DeleteItem(r);
}
Result<UpdateItemResponse> Database::UpdateItem(const UpdateItemRequest& r) {
  return impl_->UpdateItem(r);
}
Result<BatchGetItemResponse> Database::BatchGetItem(const BatchGetItemRequest& r) {
  return impl_->BatchGetItem(r);
}
Result<BatchWriteItemResponse> Database::BatchWriteItem(const BatchWriteItemRequest& r) {
  return impl_->BatchWriteItem(r);
}
Result<TransactWriteItemsResponse> Database::TransactWriteItems(
    const TransactWriteItemsRequest& r) {
  return impl_->TransactWriteItems(r);
}
Result<TransactGetItemsResponse> Database::TransactGetItems(const TransactGetItemsRequest& r) {
  return impl_->TransactGetItems(r);
}
Result<QueryResponse> Database::Query(const QueryRequest& r) { return impl_->Query(r); }
Result<ScanResponse> Database::Scan(const ScanRequest& r) { return impl_->Scan(r); }
Result<std::vector<CollectionStatistics>> Database::LargestCollections(
    const std::string& table, size_t limit, const std::function<void(int64_t)>& progress) {
  return impl_->LargestCollections(table, limit, progress);
}
Result<std::vector<CollectionStatistics>> Database::LargestIndexCollections(
    const std::string& table, const std::string& index, size_t limit,
    const std::function<void(int64_t)>& progress) {
  return impl_->LargestIndexCollections(table, index, limit, progress);
}
Result<DescribeCollectionResponse> Database::DescribeCollection(
    const DescribeCollectionRequest& request) {
  return impl_->DescribeCollection(request);
}
Result<HottestCollectionsResponse> Database::HottestCollections(const std::string& table,
                                                                size_t limit, int64_t window_ms) {
  return impl_->HottestCollections(table, limit, window_ms);
}
void Database::SetCollectionTrafficTracking(bool on) { impl_->SetCollectionTrafficTracking(on); }
Result<StatisticsReport> Database::RecountStatistics() { return impl_->RecountStatistics(); }
Status Database::WaitForCompactions() { return impl_->WaitForCompactions(); }
Status Database::Health() { return impl_->Health(); }
MemoryUsage Database::GetMemoryUsage() { return impl_->GetMemoryUsage(); }
Status Database::WaitForBackfills() { return impl_->WaitForBackfills(); }
Status Database::WaitForVectorGraphs() { return impl_->WaitForVectorGraphs(); }
}  // namespace dynarock
