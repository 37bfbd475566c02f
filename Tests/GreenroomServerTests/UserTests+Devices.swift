import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension UserTests {
    @Test("push devices: a user registers APNs tokens in the chat SDK's shape, lists and removes them; a token moves to the user that registers it last; the oldest goes past 25; a bad token is refused and the connection goes on; a deleted user's devices go")
    func devices() async throws {
        try await withServer { server in
            let alice = try await server.client("alice")
            let bob = try await server.client("bob")
            let token = Data((0..<32).map { UInt8($0 * 7 & 0xFF) })
            let shared = PushDevice.apn(token: token)
            #expect(shared.id.count == 64 && shared.id.hasPrefix("00070e15"))
            let added = try await alice.currentUserController().addDevice(shared)
            #expect(added.id == shared.id && added.pushProvider == .apn)
            #expect(try await alice.currentUserController().devices().map(\.id) == [shared.id])

            // Not a token: refused with its code, and the connection answers on.
            for bad in ["abc", "zz" + String(repeating: "0", count: 62), String(repeating: "0", count: 202)] {
                #expect(await refusal { _ = try await alice.send(DeviceOperation.add, args: DeviceAddArgs(id: bad, pushProvider: .apn)) } == .invalidParameterValue)
            }
            #expect(try await alice.currentUserController().devices().count == 1)

            // The same phone signed in as bob: the token is his now, and only his.
            try await bob.currentUserController().addDevice(shared)
            #expect(try await alice.currentUserController().devices().isEmpty)
            #expect(try await bob.currentUserController().devices().map(\.id) == [shared.id])

            // Bob registers 25 more: the oldest (the shared one) goes.
            var ids = [shared.id]
            for index in 1...DeviceOperation.maxPerUser {
                let device = PushDevice.apn(token: Data((0..<32).map { UInt8(($0 + index * 3) & 0xFF) }))
                try await bob.currentUserController().addDevice(device)
                ids.append(device.id)
            }
            let kept = try await bob.currentUserController().devices().map(\.id)
            #expect(kept == Array(ids.dropFirst()))
            #expect(try await server.server.core.storage.load(DeviceOwnerRecord.self, id: shared.id) == nil)

            try await bob.currentUserController().removeDevice(id: kept[0])
            #expect(try await bob.currentUserController().devices().count == DeviceOperation.maxPerUser - 1)
            #expect(await refusal { try await bob.currentUserController().removeDevice(id: kept[0]) } == .notFound)
            // Alice cannot remove bob's.
            #expect(await refusal { try await alice.currentUserController().removeDevice(id: kept[1]) } == .notFound)

            // A deleted user's devices go with it.
            let (deleted, _) = try await server.rest("DELETE", "/v1/users/bob")
            #expect(deleted == 204)
            let storage = server.server.core.storage
            #expect(try await storage.list(DeviceRecord.self, RecordQuery(kind: DeviceRecord.recordKind, scope: "bob")).isEmpty)
            #expect(try await storage.load(DeviceOwnerRecord.self, id: kept[1]) == nil)
        }
    }
}
