import Foundation

// Frames read in one pass through ``RawJSON``'s parser, instead of a `JSONDecoder` that
// tries each kind of value in turn for every ``RawJSON`` inside a frame.

extension CommandFrame {
    /// Reads a command frame's JSON text (strictly, in one pass): an object with a
    /// non-negative integer `id`, a string `op` and optional `args`.
    /// - Throws: `DecodingError` naming what is wrong.
    public static func parse(_ data: some Collection<UInt8>) throws -> CommandFrame {
        let members = try FrameKey.object(try RawJSON.parse(data), "a command")
        guard let idValue = members["id"] else {
            throw DecodingError.keyNotFound(FrameKey.id, .init(codingPath: [], debugDescription: "id is required"))
        }
        let id = try FrameKey.unsigned(idValue, at: [.id])
        guard let opValue = members["op"] else {
            throw DecodingError.keyNotFound(FrameKey.op, .init(codingPath: [], debugDescription: "op is required"))
        }
        guard case .string(let op) = opValue else {
            throw DecodingError.typeMismatch(String.self, .init(codingPath: [FrameKey.op], debugDescription: "op is a string"))
        }
        let args = members["args"].flatMap { $0 == .nil ? nil : $0 }
        return CommandFrame(id: id, op: op, args: args)
    }
}

extension ServerFrame {
    /// Reads a server frame's JSON text (a reply or an event) in one pass.
    /// - Throws: `DecodingError` naming what is wrong.
    public static func parse(_ data: some Collection<UInt8>) throws -> ServerFrame {
        let members = try FrameKey.object(try RawJSON.parse(data), "a server frame")
        var frame = ServerFrame()
        if let re = members["re"], re != .nil { frame.re = try FrameKey.unsigned(re, at: [.re]) }
        frame.result = members["result"].flatMap { $0 == .nil ? nil : $0 }
        if let error = members["error"], error != .nil { frame.error = try error.decode(as: GreenroomError.self) }
        if let event = members["event"], event != .nil { frame.event = try StreamEvent(parsing: event) }
        if let signal = members["signal"], signal != .nil { frame.signal = try signal.decode(as: StreamSignal.self) }
        return frame
    }
}

extension StreamEvent {
    /// Reads an event from its JSON shape (as ``StreamEvent``'s `Codable` form writes it),
    /// already parsed: one pass through the text, without a `JSONDecoder`.
    /// - Throws: `DecodingError` naming what is wrong.
    package init(parsing value: RawJSON) throws {
        let members = try FrameKey.object(value, "an event")
        func text(_ key: FrameKey) throws -> String {
            guard case .string(let text) = members[key.rawValue] else {
                throw DecodingError.typeMismatch(String.self, .init(codingPath: [FrameKey.event, key], debugDescription: "\(key.rawValue) is a string"))
            }
            return text
        }
        let offset = try FrameKey.unsigned(members["offset"], at: [.event, .offset])
        guard let at = WireCoding.parseDate(try text(.at)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [FrameKey.event, FrameKey.at], debugDescription: "at is an ISO 8601 date"))
        }
        self.init(stream: try text(.stream), offset: offset, epoch: try text(.epoch), type: try text(.type),
                  data: members["data"] ?? .nil, at: at)
    }
}

private enum FrameKey: String, CodingKey {
    case id, op, re, event, stream, offset, epoch, type, at

    /// The members of an object; throws when `value` is not one.
    static func object(_ value: RawJSON, _ what: String) throws -> [String: RawJSON] {
        guard case .dictionary(let members) = value else {
            throw DecodingError.typeMismatch([String: RawJSON].self, .init(codingPath: [], debugDescription: "\(what) is an object"))
        }
        return members
    }

    /// A number that is a non-negative integer; throws naming the key at the end of `path`.
    static func unsigned(_ value: RawJSON?, at path: [FrameKey]) throws -> UInt64 {
        guard case .number(let number) = value, let unsigned = UInt64(exactly: number) else {
            let name = path.last?.rawValue ?? "value"
            throw DecodingError.typeMismatch(UInt64.self, .init(codingPath: path, debugDescription: "\(name) is a non-negative integer"))
        }
        return unsigned
    }
}
