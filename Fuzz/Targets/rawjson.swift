// libFuzzer target: RawJSON's parser, the first thing every client frame meets.
// Whatever it accepts must write back out and parse to the same value; nothing may trap.
import Foundation
import GreenroomProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRawJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let value = try? RawJSON(json: Data(bytes)) else { return 0 }
    guard let written = try? value.jsonBytes() else {
        fatalError("parsed but cannot be written: \(value)")
    }
    guard let again = try? RawJSON(json: Data(written)), again == value else {
        fatalError("does not survive a round trip: \(String(decoding: written, as: UTF8.self))")
    }
    return 0
}
