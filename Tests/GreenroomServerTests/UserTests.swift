import Foundation
import Greenroom
import GreenroomServer
import Testing

@Suite("Users over REST and the WebSocket", .wholeRun)
struct UserTests {
    @Test("create, get, full update, partial update, list pages with filters, delete")
    func restLifecycle() async throws {
        try await withServer { server in
            let (created, user) = try await server.rest("POST", "/v1/users", body: [
                "id": "u1", "nickname": "Ann", "profileURL": "https://example.com/a.png",
                "extraData": ["email": "ann@example.com", "age": 31],
            ])
            #expect(created == 201)
            #expect(user["nickname"]?.stringValue == "Ann")
            #expect(user["extraData"]?["age"]?.numberValue == 31)

            let (duplicate, duplicateBody) = try await server.rest("POST", "/v1/users", body: ["id": "u1"])
            #expect(duplicate == 409)
            #expect(duplicateBody["error"]?["name"]?.stringValue == "alreadyExists")

            let (got, fetched) = try await server.rest("GET", "/v1/users/u1")
            #expect(got == 200 && fetched["profileURL"]?.stringValue == "https://example.com/a.png")

            // A full update replaces everything given and clears what is left out.
            let (_, replaced) = try await server.rest("PUT", "/v1/users/u1", body: ["nickname": "Annie", "extraData": ["team": "blue"]])
            #expect(replaced["nickname"]?.stringValue == "Annie")
            #expect(replaced["profileURL"] == nil)
            #expect(replaced["extraData"] == ["team": "blue"])

            // A partial update sets keys and unsets others, leaving the rest.
            let (_, patched) = try await server.rest("PATCH", "/v1/users/u1", body: [
                "set": ["extraData": ["level": 3], "profileURL": "https://example.com/b.png"], "unset": ["team"],
            ])
            #expect(patched["nickname"]?.stringValue == "Annie")
            #expect(patched["extraData"] == ["level": 3])
            #expect(patched["profileURL"]?.stringValue == "https://example.com/b.png")
            let (_, unsetURL) = try await server.rest("PATCH", "/v1/users/u1", body: ["unset": ["profileURL"]])
            #expect(unsetURL["profileURL"] == nil)
            #expect(unsetURL["extraData"] == ["level": 3])

            for index in 0..<25 {
                let nickname = index % 2 == 0 ? "even\(index)" : "odd\(index)"
                let (status, _) = try await server.rest("POST", "/v1/users", body: ["id": .string(String(format: "p%02d", index)), "nickname": .string(nickname)])
                #expect(status == 201)
            }
            var ids: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let query = "/v1/users?limit=10" + (cursor.map { "&cursor=\($0)" } ?? "")
                let (status, page) = try await server.rest("GET", query)
                #expect(status == 200)
                ids += page["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                cursor = page["next"]?.stringValue
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 3)
            #expect(ids == ["p00", "p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08", "p09", "p10", "p11", "p12",
                            "p13", "p14", "p15", "p16", "p17", "p18", "p19", "p20", "p21", "p22", "p23", "p24", "u1"])

            let (_, evens) = try await server.rest("GET", "/v1/users?nicknamePrefix=EVEN&limit=100")
            #expect(evens["items"]?.arrayValue?.count == 13)
            let (_, some) = try await server.rest("GET", "/v1/users?ids=p03,u1,nobody")
            #expect(some["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["p03", "u1"])
            let (badLimit, _) = try await server.rest("GET", "/v1/users?limit=1000")
            #expect(badLimit == 400)
            let (badCursor, badCursorBody) = try await server.rest("GET", "/v1/users?cursor=%25%25")
            #expect(badCursor == 400 && badCursorBody["error"]?["name"]?.stringValue == "invalidParameterValue")

            let (deleted, _) = try await server.rest("DELETE", "/v1/users/u1")
            #expect(deleted == 204)
            let (gone, goneBody) = try await server.rest("GET", "/v1/users/u1")
            #expect(gone == 404 && goneBody["error"]?["code"]?.numberValue == Double(ErrorCode.notFound.rawValue))
        }
    }

    @Test("extra data over 5 KB and reserved keys are refused with their codes, and nothing changes")
    func extraDataLimits() async throws {
        try await withServer { server in
            let big = RawJSON.string(String(repeating: "x", count: 5 * 1024))
            let (tooBig, tooBigBody) = try await server.rest("POST", "/v1/users", body: ["id": "big", "extraData": ["blob": big]])
            #expect(tooBig == 413)
            #expect(tooBigBody["error"]?["code"]?.numberValue == Double(ErrorCode.payloadTooLarge.rawValue))
            let (missing, _) = try await server.rest("GET", "/v1/users/big")
            #expect(missing == 404)

            let (reserved, reservedBody) = try await server.rest("POST", "/v1/users", body: ["id": "r", "extraData": ["id": "x", "role": "admin"]])
            #expect(reserved == 400)
            #expect(reservedBody["error"]?["name"]?.stringValue == "reservedKey")
            #expect(reservedBody["error"]?["message"]?.stringValue?.contains("id, role") == true)

            let fits = RawJSON.string(String(repeating: "x", count: 4 * 1024))
            let (ok, _) = try await server.rest("POST", "/v1/users", body: ["id": "fits", "extraData": ["blob": fits]])
            #expect(ok == 201)

            let client = try await server.client("fits")
            let controller = client.currentUserController()
            await #expect(throws: GreenroomError.self) {
                try await controller.updateUserData(userExtraData: ["more": .string(String(repeating: "y", count: 2 * 1024))])
            }
            do {
                try await controller.updateUserData(userExtraData: ["created_at": "now"])
                Issue.record("a reserved key was accepted")
            } catch let error as GreenroomError {
                #expect(error.is(.reservedKey))
            }
            let unchanged = try await controller.currentUser()
            #expect(unchanged.extraData == ["blob": fits])
            await client.disconnect()
        }
    }

    @Test("over the WebSocket a user reads users and changes only itself")
    func webSocketUsers() async throws {
        try await withServer { server in
            let alice = try await server.client("alice")
            let bob = try await server.client("bob")
            let me = try await bob.currentUserController().currentUser()
            #expect(me.id == "bob" && me.nickname == "bob")

            let updated = try await alice.currentUserController().updateUserData(
                name: "Alice A.", imageURL: URL(string: "https://example.com/alice.png"),
                userExtraData: ["email": .string("alice@example.com"), "plan": "pro"])
            #expect(updated.nickname == "Alice A.")
            let seenByBob = try await bob.user(id: "alice")
            #expect(seenByBob.extraData["email"]?.stringValue == "alice@example.com")
            #expect(seenByBob.profileURL == "https://example.com/alice.png")

            let unset = try await alice.currentUserController().updateUserData(unsetProperties: ["plan"])
            #expect(unset.extraData == ["email": "alice@example.com"])
            #expect(unset.nickname == "Alice A.")

            do {
                let _: User = try await bob.send(UserOperation.update, args: UserUpdateArgs(id: "alice", nickname: "Mallory"))
                Issue.record("bob updated alice")
            } catch let error as GreenroomError {
                #expect(error.is(.permissionDenied))
            }
            #expect(try await bob.user(id: "alice").nickname == "Alice A.")

            let page = try await bob.users(UserListArgs(nicknamePrefix: "ali"))
            #expect(page.items.map(\.id) == ["alice"])
            await #expect(throws: GreenroomError.self) { try await bob.user(id: "nobody") }

            // The seed's completion-handler form.
            let done = Counter()
            await MainActor.run {
                alice.currentUserController().updateUserData(
                    name: "John Doe", imageURL: nil, userExtraData: ["email": .string("john.doe@example.com")],
                    completion: { error in if error == nil { done.increment() } })
            }
            try await eventually("the completion ran") { done.value == 1 }
            #expect(try await bob.user(id: "alice").nickname == "John Doe")
            await alice.disconnect()
            await bob.disconnect()
        }
    }

    @Test("a user's own stream tells it of changes to itself")
    func userStream() async throws {
        try await withServer { server in
            let alice = try await server.client("alice")
            let mine = try await alice.subscribe(to: StreamName.user("alice"))
            let (status, _) = try await server.rest("PATCH", "/v1/users/alice", body: ["set": ["nickname": "Queen"]])
            #expect(status == 200)
            let (events, _) = try await collect(mine, count: 1)
            #expect(events.first?.type == "user.updated")
            #expect(events.first?.data["nickname"]?.stringValue == "Queen")
            await #expect(throws: GreenroomError.self) { _ = try await alice.subscribe(to: StreamName.user("bob")) }
            await alice.disconnect()
        }
    }
}
