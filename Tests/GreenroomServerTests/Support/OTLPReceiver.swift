import Foundation
import GreenroomProtocol
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small OpenTelemetry collector on loopback: it takes OTLP/HTTP JSON exports at
/// `/v1/traces` (as the OTLP specification writes them: `resourceSpans`, `scopeSpans`,
/// `spans`) and keeps every span, with its resource's `service.name`; binary protobuf
/// exports it keeps whole (``protobufBodies``), answered as a collector answers them.
final class OTLPReceiver: Sendable {
    /// One span as it arrived.
    struct ReceivedSpan: Sendable, CustomStringConvertible {
        var service: String
        var traceId: String
        var spanId: String
        var parentSpanId: String
        var name: String
        var kind: Int
        var start: UInt64
        var end: UInt64
        var attributes: [String: String]
        /// `2` for an error (OTLP's `STATUS_CODE_ERROR`).
        var statusCode: Int

        var description: String { "\(name) [\(service)] \(spanId) ← \(parentSpanId) \(attributes)" }
    }

    let spans = Locked<[ReceivedSpan]>([])
    /// Each request's path and content type, in arrival order.
    let requests = Locked<[(path: String, contentType: String)]>([])
    /// The bodies of the binary protobuf exports, in arrival order.
    let protobufBodies = Locked<[Data]>([])
    private let channel = Locked<(any Channel)?>(nil)

    /// Starts listening on a free loopback port; returns the base URL to export to.
    func start() async throws -> String {
        let bound = try await LoopbackHTTPServer.listen { head, body, reply in
            // An OTLP success: 200 with an empty ExportTraceServiceResponse (no bytes in protobuf).
            guard let contentType = self.arrived(head: head, body: body) else {
                reply.send(status: 400)
                return
            }
            reply.send(status: 200, headers: [("Content-Type", contentType)],
                       body: ByteBuffer(string: contentType == "application/json" ? "{}" : ""))
        }
        channel.withLock { $0 = bound }
        return "http://127.0.0.1:\(bound.localAddress?.port ?? 0)"
    }

    /// Stops listening.
    func stop() async {
        try? await channel.withLock { $0 }?.close()
    }

    /// Reads one export; returns the content type to answer with, `nil` when it was none.
    private func arrived(head: HTTPRequestHead, body: Data) -> String? {
        let contentType = head.headers.first(name: "Content-Type") ?? ""
        requests.withLock { $0.append((head.uri, contentType)) }
        guard head.method == .POST, head.uri == "/v1/traces" else { return nil }
        if contentType == "application/x-protobuf" {
            protobufBodies.withLock { $0.append(body) }
            return contentType
        }
        return readJSON(body) ? "application/json" : nil
    }

    private func readJSON(_ body: Data) -> Bool {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let resources = root["resourceSpans"] as? [[String: Any]] else { return false }
        var received: [ReceivedSpan] = []
        for resource in resources {
            let resourceAttributes = Self.attributes((resource["resource"] as? [String: Any])?["attributes"])
            for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    received.append(ReceivedSpan(
                        service: resourceAttributes["service.name"] ?? "",
                        traceId: span["traceId"] as? String ?? "",
                        spanId: span["spanId"] as? String ?? "",
                        parentSpanId: span["parentSpanId"] as? String ?? "",
                        name: span["name"] as? String ?? "",
                        kind: Self.integer(span["kind"]) ?? 0,
                        start: UInt64(Self.integer(span["startTimeUnixNano"]) ?? 0),
                        end: UInt64(Self.integer(span["endTimeUnixNano"]) ?? 0),
                        attributes: Self.attributes(span["attributes"]),
                        statusCode: Self.integer((span["status"] as? [String: Any])?["code"]) ?? 0))
                }
            }
        }
        spans.withLock { $0 += received }
        return true
    }

    /// An OTLP integer: a JSON number, or (64-bit ones) a string of digits.
    private static func integer(_ value: Any?) -> Int? {
        if let number = value as? NSNumber { return number.intValue }
        if let text = value as? String { return Int(text) }
        return nil
    }

    /// OTLP `KeyValue`s as text: strings, integers, doubles and booleans.
    private static func attributes(_ value: Any?) -> [String: String] {
        var result: [String: String] = [:]
        for pair in value as? [[String: Any]] ?? [] {
            guard let key = pair["key"] as? String, let value = pair["value"] as? [String: Any] else { continue }
            if let text = value["stringValue"] as? String {
                result[key] = text
            } else if let number = integer(value["intValue"]) {
                result[key] = String(number)
            } else if let double = value["doubleValue"] as? NSNumber {
                result[key] = "\(double.doubleValue)"
            } else if let bool = value["boolValue"] as? Bool {
                result[key] = "\(bool)"
            }
        }
        return result
    }
}
