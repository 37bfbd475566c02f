import GreenroomProtocol
import NIOCore
import NIOWebSocket

/// The rules a client's WebSocket frames must follow (RFC 6455), as a value that reads one
/// frame at a time and says what to do: hand on a whole message, answer a ping or a close,
/// or fail the connection with a code. It joins a message's fragments (at most
/// ``Limits/maxClientFrameBytes`` in all) and touches no channel, so `Fuzz/run` drives it
/// straight from NIO's frame decoder.
///
/// A protocol violation (an unmasked frame, reserved bits, an unknown opcode, a fragmented
/// control frame, a continuation out of order, a bad close frame) fails with 1002, text
/// that is not UTF-8 with 1007, a message too big with 1009. Frames too large or malformed
/// on the wire are refused before they get here, by NIO's frame decoder (1009 and 1002).
struct ClientFrameReader {
    /// What to do with a frame.
    enum Action: Equatable {
        /// Nothing yet: a fragment of a message still arriving, or a pong.
        case none
        /// A whole message, for the command queue.
        case message(ByteBuffer)
        /// Answer a ping with a pong carrying this payload.
        case pong(ByteBuffer)
        /// The client closes with this code (1000 when it gave none): answer and close.
        case close(UInt16)
        /// The client broke the protocol: close with this code.
        case fail(WebSocketErrorCode)
    }

    /// The fragments of a message still arriving.
    private var fragments: ByteBuffer?
    /// Whether the message arriving in fragments is text (checked as UTF-8 when whole).
    private var fragmentsAreText = false
    /// Set by a close or a failure: later frames are ignored.
    private(set) var isDone = false

    /// Reads one frame.
    mutating func read(_ frame: WebSocketFrame) -> Action {
        guard !isDone else { return .none }
        let action = step(frame)
        switch action {
        case .close, .fail:
            isDone = true
            fragments = nil
        case .none, .message, .pong:
            break
        }
        return action
    }

    private mutating func step(_ frame: WebSocketFrame) -> Action {
        // A client must mask every frame it sends (RFC 6455, 5.1), and no extension that
        // would use the reserved bits was agreed.
        guard frame.maskKey != nil, frame.rsv1 == false, frame.rsv2 == false, frame.rsv3 == false else {
            return .fail(.protocolError)
        }
        switch frame.opcode {
        case .text, .binary:
            guard fragments == nil else { return .fail(.protocolError) }
            if frame.fin { return whole(frame.unmaskedData, isText: frame.opcode == .text) }
            fragments = frame.unmaskedData
            fragmentsAreText = frame.opcode == .text
            return .none
        case .continuation:
            guard var message = fragments else { return .fail(.protocolError) }
            guard frame.length <= Limits.maxClientFrameBytes - message.readableBytes else { return .fail(.messageTooLarge) }
            var data = frame.unmaskedData
            message.writeBuffer(&data)
            guard frame.fin else {
                fragments = message
                return .none
            }
            fragments = nil
            return whole(message, isText: fragmentsAreText)
        case .ping:
            return frame.fin ? .pong(frame.unmaskedData) : .fail(.protocolError)
        case .pong:
            return .none
        case .connectionClose:
            return close(frame)
        default:
            return .fail(.protocolError)
        }
    }

    /// A whole message; text that is not valid UTF-8 fails with 1007 (RFC 6455, 8.1).
    private func whole(_ message: ByteBuffer, isText: Bool) -> Action {
        guard !isText || Self.isValidUTF8(message.readableBytesView) else { return .fail(.dataInconsistentWithMessage) }
        return .message(message)
    }

    /// A close frame: its code, or 1000 when empty. A close frame that breaks the rules
    /// fails instead: fragmented, a 1-byte payload or a code not allowed on the wire with
    /// 1002, a reason that is not UTF-8 with 1007.
    private func close(_ frame: WebSocketFrame) -> Action {
        var data = frame.unmaskedData
        guard frame.fin, data.readableBytes != 1,
              let code = data.readableBytes == 0 ? 1000 : data.readInteger(as: UInt16.self),
              Self.isAllowedCloseCode(code) else { return .fail(.protocolError) }
        guard Self.isValidUTF8(data.readableBytesView) else { return .fail(.dataInconsistentWithMessage) }
        return .close(code)
    }

    /// Whether a peer may send `code` in a close frame (RFC 6455, 7.4): the defined codes
    /// but 1004–1006 and 1015, and 3000–4999 for libraries and applications.
    static func isAllowedCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// Whether `bytes` are valid UTF-8; ASCII (most commands) is checked without decoding.
    static func isValidUTF8(_ bytes: ByteBufferView) -> Bool {
        bytes.withContiguousStorageIfAvailable { storage in
            storage.allSatisfy { $0 < 0x80 } || String(validating: storage, as: UTF8.self) != nil
        } ?? (String(validating: bytes, as: UTF8.self) != nil)
    }
}
