// libFuzzer target: RawJSON's parser, the first thing every client frame meets, and the
// wire's decoder behind it. Whatever the parser accepts must write back out and parse to
// the same value; whatever `WireCoding.decode` reads must be what Foundation's decoder
// (`WireCoding.decoder`) reads, and it must fail where that fails; nothing may trap.
import Foundation
import GreenroomProtocol

/// A bit of every kind a wire type holds.
struct Probe: Decodable, Equatable {
    var a: Int?
    var b: String?
    var c: [Int8]?
    var d: Double?
    var e: Bool?
    var f: [String: RawJSON]?
    var g: Date?
    var h: [UInt64?]?
    var i: Float?
    var j: [Probe]?
}

/// Both decoders' readings of `bytes` as `T` agree: the same value, or both refuse. One
/// exception: Foundation's parser refuses a few numbers RFC 8259 allows (`0e1`, though
/// it reads `0E+1` and `0e-1`, and `JSONSerialization` reads all three); where it refuses
/// valid JSON text outright, RawJSON's reading stands.
func agree<T: Decodable & Equatable>(_ type: T.Type, _ bytes: Data) {
    let ours = try? WireCoding.decode(T.self, from: bytes)
    let theirs = try? WireCoding.decoder.decode(T.self, from: bytes)
    guard ours != theirs else { return }
    let refusesValidText = (try? WireCoding.decoder.decode(RawJSON.self, from: bytes)) == nil
        && (try? JSONSerialization.jsonObject(with: bytes, options: .fragmentsAllowed)) != nil
    if theirs == nil, refusesValidText { return }
    fatalError("\(T.self): WireCoding.decode read \(String(describing: ours)), Foundation's decoder \(String(describing: theirs))")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRawJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    agree(Probe.self, bytes)
    agree([Probe].self, bytes)
    agree(RawJSON.self, bytes)
    guard let value = try? RawJSON(json: bytes) else { return 0 }
    guard let written = try? value.jsonBytes() else {
        fatalError("parsed but cannot be written: \(value)")
    }
    guard let again = try? RawJSON(json: Data(written)), again == value else {
        fatalError("does not survive a round trip: \(String(decoding: written, as: UTF8.self))")
    }
    return 0
}
