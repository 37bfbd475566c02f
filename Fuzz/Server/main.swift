// libFuzzer target for what the server reads from the network before and around every
// command: the token check, the REST request's numbers, ranges and credentials, and the
// WebSocket frame reader. Fuzz/run builds it from the server's own files (the links beside
// this one) with coverage and AddressSanitizer, and runs it once per mode
// (GREENROOM_FUZZ_MODE = token, request or frames). Bad input must be refused with the
// documented error or close code, never trap, and never be let through as good.
import Foundation
import FuzzerDriver
import GreenroomProtocol
import NIOCore
import NIOEmbedded
import NIOWebSocket

enum Mode: String {
    case token, request, frames
}

let mode: Mode = {
    let name = ProcessInfo.processInfo.environment["GREENROOM_FUZZ_MODE"] ?? ""
    guard let mode = Mode(rawValue: name) else { fatalError("set GREENROOM_FUZZ_MODE to token, request or frames (not '\(name)')") }
    return mode
}()

/// One input, in the chosen mode. (Exported under libFuzzer's name as well: its own `main`,
/// unused here but linked in, refers to it.)
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzServer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    switch mode {
    case .token: checkToken(bytes)
    case .request: checkRequest(bytes)
    case .frames: checkFrames(bytes)
    }
    return 0
}

// MARK: - The token check

/// The secret the corpus's tokens are signed with (Fuzz/Corpus/server-token); at least
/// 32 bytes, as `Secrets` requires.
let tokens = blocking { await TokenService(secret: "greenroom-fuzz-secret-long-enough-for-hs256") }

/// A token is an identity with a valid user id, or `invalidToken` / `tokenExpired`.
func checkToken(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let result = blocking { () -> Result<Identity, any Error> in
        do { return .success(try await tokens.verify(text)) } catch { return .failure(error) }
    }
    switch result {
    case .success(let identity):
        guard Limits.isValidId(identity.userId) else { fatalError("a token for an invalid user id was accepted: \(text)") }
    case .failure(let error as GreenroomError):
        guard error.errorCode == .invalidToken || error.errorCode == .tokenExpired else { fatalError("token refused with \(error.code): \(text)") }
    case .failure(let error):
        fatalError("token refused with an error that is not a GreenroomError: \(error)")
    }
}

/// Runs `body` to the end on a task and waits for it (libFuzzer calls in synchronously).
func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let box = Locked<T?>(nil)
    Task {
        let value = await body()
        box.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    guard let value = box.value else { fatalError("the task ended without a value") }
    return value
}

// MARK: - REST numbers, ranges and credentials

/// The first byte picks the parser and, for ranges, the file's size; the rest is the text.
func checkRequest(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    switch selector % 6 {
    case 0:
        // `after` on a stream: any UInt64 text, only 0...Int64.max accepted.
        if let after = try? RequestParsing.integer(text, name: "after", in: 0...UInt64(Int64.max)) {
            guard after <= UInt64(Int64.max), Int64(exactly: after) != nil else { fatalError("after \(after) accepted") }
        }
    case 1:
        // `limit` with and without bounds, as Int and as Int32.
        if let limit = try? RequestParsing.integer(text, name: "limit", in: 1...1000) as Int?, !(1...1000).contains(limit) {
            fatalError("limit \(limit) accepted")
        }
        _ = try? RequestParsing.integer(text, name: "limit") as Int32?
    case 2:
        if let offset = try? RequestParsing.uploadOffset(text), offset < 0 { fatalError("Upload-Offset \(offset) accepted") }
    case 3:
        let sizes: [Int64] = [1, 2, 1000, 1 << 31, Int64.max - 1, Int64.max]
        let size = sizes[Int(selector / 5) % sizes.count]
        if let (first, last) = RequestParsing.byteRange(text, size: size) {
            guard 0 <= first, first <= last, last < size else { fatalError("range \(first)-\(last) of \(size) from '\(text)'") }
            // The length the response announces.
            _ = last - first + 1
        }
    case 4:
        // A path parameter: decoded once, or refused; text without escapes as it is, and
        // what is decoded, escaped byte by byte, decodes to itself.
        if let decoded = RequestParsing.percentDecoded(text) {
            if !text.contains("%"), decoded != text { fatalError("'\(text)' without escapes decoded as '\(decoded)'") }
            let escaped = decoded.utf8.map { byte in "%" + String(byte, radix: 16).leftPadded }.joined()
            guard RequestParsing.percentDecoded(escaped) == decoded else { fatalError("'\(decoded)' does not survive escaping") }
        }
    default:
        // A bearer credential comes back without its scheme and surrounding blanks.
        let credential = RequestParsing.bearer("Bearer " + text)
        let expected = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard credential == expected else { fatalError("bearer '\(text)' read as '\(credential ?? "nil")'") }
        // The scheme is compared byte by byte, ASCII case folded (RFC 9110), not with
        // `String.hasPrefix`, which compares characters: a combining mark after the space
        // joins it into one character, and the prefix no longer matches (found by fuzzing).
        let scheme = Array("bearer ".utf8)
        let head = text.utf8.prefix(scheme.count).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        if let other = RequestParsing.bearer(text), head != scheme {
            fatalError("'\(text)' read as a bearer credential '\(other)'")
        }
    }
}

// MARK: - The WebSocket frame reader

/// The first byte picks raw bytes (fed to NIO's decoder as they are) or frames described by
/// the input (each masked and encoded as a client would, so that the reader's rules are
/// reached); either way the server's pipeline order: NIO's decoder, its protocol error
/// handler, then ``ClientFrameReader``.
func checkFrames(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let input = Array(bytes.dropFirst())
    let wire = selector & 1 == 0 ? input : clientFrames(described: input)
    let channel = EmbeddedChannel()
    defer {
        // Run what a failure scheduled (the error handler's close) before tearing down, or
        // the channel and its pipeline keep each other alive.
        channel.embeddedEventLoop.run()
        _ = try? channel.finish()
    }
    do {
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: Limits.maxClientFrameBytes)))
        try channel.pipeline.syncOperations.addHandler(WebSocketProtocolErrorHandler())
    } catch {
        fatalError("cannot build the pipeline: \(error)")
    }
    var reader = ClientFrameReader()
    var delivered = 0
    // In slices, as a socket would deliver them (at most 64 of them, for speed).
    var offset = 0
    let slice = max(1, Int(selector >> 1) * 7, wire.count / 64)
    while offset < wire.count {
        let end = min(wire.count, offset + slice)
        do {
            try channel.writeInbound(ByteBuffer(bytes: wire[offset..<end]))
        } catch {
            // NIO's decoder refused the bytes (and answered with a close frame): done.
            return
        }
        offset = end
        while let frame = try? channel.readInbound(as: WebSocketFrame.self) {
            let wasDone = reader.isDone
            let action = reader.read(frame)
            if wasDone, action != .none { fatalError("the reader acted after the connection failed or closed: \(action)") }
            switch action {
            case .message(let message):
                delivered += 1
                guard message.readableBytes <= Limits.maxClientFrameBytes else { fatalError("a message of \(message.readableBytes) bytes") }
            case .close(let code):
                // RFC 6455, 7.4, written out again here rather than asking the reader.
                let allowed = (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
                guard allowed else { fatalError("close code \(code) echoed") }
            case .fail(let code):
                let allowed: [WebSocketErrorCode] = [.protocolError, .dataInconsistentWithMessage, .messageTooLarge]
                guard allowed.contains(code) else { fatalError("failed with \(code)") }
            case .none, .pong:
                break
            }
        }
    }
    _ = delivered
}

/// Client frames described by `input`: per frame a header byte (bit 7 FIN, bits 4–6 the
/// reserved bits, bits 0–3 the opcode), a length byte (0–125 as is; 126 and 127 take the
/// next one or two bytes as a length up to 65,535, filled with a repeating pattern when the
/// input runs short), a byte choosing whether to mask, then the payload.
func clientFrames(described input: [UInt8]) -> [UInt8] {
    var wire: [UInt8] = []
    var at = 0
    func next() -> UInt8? {
        guard at < input.count else { return nil }
        defer { at += 1 }
        return input[at]
    }
    while let header = next(), let lengthByte = next() {
        var length = Int(lengthByte & 0x7F)
        if length == 126 { length = Int(next() ?? 0) << 8 | Int(next() ?? 0) }
        if length == 127 { length = Int(next() ?? 0) << 8 | Int(next() ?? 0) | 0x1_0000 }
        let masked = (next() ?? 0) & 1 == 0
        if length > Limits.maxClientFrameBytes {
            // NIO's decoder refuses it on the header alone (1009): no payload needed.
            wire.append(header)
            wire.append(127 | (masked ? 0x80 : 0))
            wire += (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) }
            break
        }
        var payload: [UInt8] = []
        payload.reserveCapacity(length)
        while payload.count < length { payload.append(next() ?? UInt8(truncatingIfNeeded: payload.count)) }
        wire.append(header)
        switch length {
        case ..<126: wire.append(UInt8(length) | (masked ? 0x80 : 0))
        case ..<65_536: wire.append(126 | (masked ? 0x80 : 0)); wire += [UInt8(length >> 8), UInt8(length & 0xFF)]
        default: wire.append(127 | (masked ? 0x80 : 0)); wire += (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) }
        }
        if masked {
            let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
            wire.append(contentsOf: key)
            wire.append(contentsOf: payload.enumerated().map { $0.element ^ key[$0.offset % 4] })
        } else {
            wire.append(contentsOf: payload)
        }
    }
    return wire
}

// MARK: - The program

// SwiftPM makes this file's top-level code the program's `main`; it hands the command line
// over to libFuzzer's driver.
var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
_ = mode
exit(LLVMFuzzerRunDriver(&arguments, &argv) { data, size in fuzzServer(data, size) })

extension String {
    /// Two hex digits: a leading zero for one.
    var leftPadded: String { count == 1 ? "0" + self : self }
}

