-- Shared by the wire scripts: every request is a POST of DynamoDB JSON with
-- the target operation and a (dummy) SigV4 header, which both servers accept.
return function(operation)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
  wrk.headers["X-Amz-Target"] = "DynamoDB_20120810." .. operation
  wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00"
  wrk.headers["X-Amz-Date"] = "20261130T000000Z"
end
