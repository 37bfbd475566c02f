import Foundation
import GreenroomProtocol
import Logging
import NIOCore
import NIOPosix
import Synchronization
import WSClient

/// A cheap subscriber for the load generator: a raw WebSocket that subscribes to one
/// stream and reads only what the figures need (offset and send time) from each frame,
/// without decoding JSON. All subscribers share one event loop per core.
struct BenchSubscriber: Sendable {
    struct Result: Sendable {
        var latencies: [Double] = []
        var received = 0
        var duplicates = 0
        var outOfOrder = 0
    }

    static let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)

    let url: String
    let token: String
    let stream: String

    /// Connects, subscribes (counting `ready`), reads until `expected` events or `deadline`.
    func run(expected: Int, ready: Tally, deadline: ContinuousClock.Instant) async throws -> Result {
        var config = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
        config.additionalHeaders[.authorization] = "Bearer \(token)"
        let box = Mutex(Result())
        let subscribe = #"{"id":1,"op":"stream.subscribe","args":{"stream":"\#(stream)"}}"#
        try await WebSocketClient.connect(url: url, configuration: config, eventLoopGroup: Self.group, logger: Logger(label: "bench")) { inbound, outbound, _ in
            try await outbound.write(.text(subscribe))
            var result = Result()
            var last: UInt64 = 0
            var subscribed = false
            let timeout = Task {
                try await Task.sleep(until: deadline)
                try await outbound.close(.normalClosure, reason: "bench deadline")
            }
            defer { timeout.cancel() }
            for try await frame in inbound where frame.opcode == .text {
                let now = Date().timeIntervalSince1970
                let view = frame.data.readableBytesView
                if !subscribed {
                    if Self.number(after: Array(#""re":"#.utf8), in: view) != nil {
                        subscribed = true
                        ready.add()
                    }
                    continue
                }
                guard let offset = Self.number(after: Array(#""offset":"#.utf8), in: view) else { continue }
                let value = UInt64(offset)
                if value <= last {
                    result.duplicates += value == last ? 1 : 0
                    result.outOfOrder += value < last ? 1 : 0
                    continue
                }
                if value != last + 1 && last != 0 { result.outOfOrder += 1 }
                last = value
                result.received += 1
                if let sent = Self.number(after: Array(#""t":"#.utf8), in: view) { result.latencies.append((now - sent) * 1000) }
                if result.received >= expected { break }
            }
            box.withLock { $0 = result }
            try? await outbound.close(.normalClosure, reason: nil)
        }
        return box.withLock { $0 }
    }

    /// The number after `key` in a JSON text, by scanning (no JSON decoding).
    static func number(after key: [UInt8], in bytes: ByteBufferView) -> Double? {
        let count = bytes.count, keyCount = key.count
        guard count > keyCount else { return nil }
        var i = bytes.startIndex
        let end = bytes.endIndex - keyCount
        while i < end {
            var matched = true
            for k in 0..<keyCount where bytes[i + k] != key[k] {
                matched = false
                break
            }
            if matched {
                var j = i + keyCount
                var text = ""
                while j < bytes.endIndex {
                    let byte = bytes[j]
                    if (byte >= 48 && byte <= 57) || byte == 46 || byte == 45 || byte == 101 || byte == 69 || byte == 43 {
                        text.append(Character(UnicodeScalar(byte)))
                        j += 1
                    } else {
                        break
                    }
                }
                return Double(text)
            }
            i += 1
        }
        return nil
    }
}
