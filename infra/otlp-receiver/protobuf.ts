/**
 * OTLP trace export requests in their binary protobuf encoding (OTLP/HTTP `application/x-protobuf`
 * and OTLP/gRPC), decoded with protobufjs from the message definitions below, then read as the JSON
 * encoding is (decode.ts): ids as base64, 64-bit integers as strings.
 *
 * The definitions are the fields of the OTLP trace messages this receiver reads, with the field
 * numbers the OpenTelemetry protocol (opentelemetry-proto, collector/trace/v1 and trace/v1) gives
 * them; enums are read as their numbers (int32 has the same wire encoding). Fields not listed here
 * are skipped by the decoder, as protobuf decoders skip unknown fields.
 */
import protobuf from 'protobufjs';
import { decodeTraces, OtlpDecodeError, type ReceivedSpan } from './decode';

const DEFINITIONS = `
syntax = "proto3";
package opentelemetry.proto;

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }

message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }

message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;
  fixed32 flags = 16;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; uint32 dropped_attributes_count = 5; fixed32 flags = 6; }
message Status { string message = 2; int32 code = 3; }

message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;

const root = protobuf.parse(DEFINITIONS).root;
const request = root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');
const response = root.lookupType('opentelemetry.proto.ExportTraceServiceResponse');

/** The gRPC method OTLP/gRPC trace exporters call. */
export const TRACE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

export function decodeProtobufTraces(body: Uint8Array): ReceivedSpan[] {
  let message: protobuf.Message;
  try {
    message = request.decode(body);
  } catch (err) {
    throw new OtlpDecodeError(`not a protobuf ExportTraceServiceRequest: ${(err as Error).message}`);
  }
  return decodeTraces(request.toObject(message, { longs: String, bytes: String, defaults: false }));
}

/** An empty ExportTraceServiceResponse (every span accepted), encoded. */
export function encodedExportResponse(): Buffer {
  return Buffer.from(response.encode(response.create({})).finish());
}
