import Foundation
import Greenroom
import GreenroomServer
import GreenroomUI
import Testing

// The seeds' own code (the `Seed00N+Code.swift` files beside this one) run against a real
// server: each test drives a page's code as the page's app would and checks what it did.

extension LiveEventItemsTests {
    @Test("seed 000's code: CreateParams' custom items, the three calls with their completion handlers, and MyClass told of each change")
    @MainActor
    func seed000Code() async throws {
        try await withServerOnMain { server in
            let host = try await server.client("host")
            let event = try await host.createLiveEvent(config: seed000Params(customItems: ["sku": "A-1"]))
            #expect(event.customItems == ["sku": "A-1"])
            try await event.enterAsHost()
            try await event.setEventReady()
            try await event.startEvent()
            let viewer = try await server.client("viewer").getLiveEvent(id: event.liveEventId)
            let myObject = MyClass()
            viewer.addDelegate(myObject, forKey: "main")
            try await viewer.enter()

            let calls = Seed000Calls()
            calls.update(event, newDictionary: ["price": "20", "sku": "A-2"])
            try await eventuallyOnMain("the update's handler ran") { !calls.updated.isEmpty }
            #expect(calls.updated.sorted() == ["price", "sku"])
            calls.delete(event, deleteKeys: ["sku"])
            try await eventuallyOnMain("the delete's handler ran") { !calls.deleted.isEmpty }
            #expect(calls.deleted == ["sku"])
            calls.deleteAll(event)
            try await eventuallyOnMain("the delete-all's handler ran") { calls.deletedAll }
            try await eventuallyOnMain("MyClass heard all three") { myObject.events.count == 3 }
            #expect(myObject.events == [#"updated ["price", "sku"] → ["price", "sku"]"#, #"deleted ["sku"] → ["price"]"#, #"deleted ["price"] → []"#])
        }
    }
}

extension MeetingTests {
    @Test("seed 001's controller: request, accept (the mode changes, the host pins the new co-host) and decline, through its own pub/sub code")
    @MainActor
    func seed001Code() async throws {
        try await withServerOnMain { server in
            @MainActor func controller(_ user: String, _ id: String, _ mode: Greenroom.Mode) async throws -> LiveStreamViewController {
                let client = try await server.client(user)
                let meeting = client.initMeeting(meetingId: "stage", participantId: id, participantName: id.capitalized,
                                                 micEnabled: false, webcamEnabled: false, mode: mode)
                let controller = LiveStreamViewController()
                controller.meeting = meeting
                meeting.addEventListener(controller)
                try await meeting.join()
                return controller
            }
            let host = try await controller("hostuser", "host", .SEND_AND_RECV)
            let viewer = try await controller("viewer", "viewer", .SIGNALLING_ONLY)
            let shy = try await controller("shy", "shy", .SIGNALLING_ONLY)
            let hostMeeting = try #require(host.meeting)
            try await eventuallyOnMain("the host sees both viewers") { hostMeeting.participants.count == 3 }
            for side in [host, viewer, shy] { side.participants = side.meeting?.participants ?? [] }
            // onMeetingJoined subscribes on a task of its own; subscribing again (a listener is
            // kept once per topic) makes sure it has before anything is published.
            for side in [host, viewer, shy] {
                for topic in ["HOSTREQUESTED", "ACK"] { await side.meeting?.pubsub.subscribe(topic: topic, forListener: side) }
            }

            // Step 2 and 3: the host asks; the viewer's alert shows; accepting changes its mode.
            let invitee = try #require(host.participants.first { $0.id == "viewer" })
            host.sendTheHostRequest(invitee)
            try await eventuallyOnMain("the viewer's alert") { viewer.showAlert }
            #expect(viewer.alertTitle == "Host Request" && viewer.showActionButtons && viewer.requestFrom == "host")
            #expect(viewer.alertMessage == "Host has requested to become the host. Do you accept?")
            #expect(!shy.showAlert, "the request was for the viewer only")
            viewer.acceptHostChange()
            try await eventuallyOnMain("the host hears it was accepted") { host.alertTitle == "Host Request Accepted" }
            #expect(host.alertMessage == "The request to become the host has been accepted by Viewer." && !host.showActionButtons)
            #expect(viewer.meeting?.localParticipant.mode == .SEND_AND_RECV)
            // Step 4: the host's onParticipantModeChanged pins the new co-host.
            try await eventuallyOnMain("the co-host is pinned") { hostMeeting.participants.first { $0.id == "viewer" }?.pinState.isPinned == true }

            // Declining leaves the mode as it was.
            host.showAlert = false
            host.sendTheHostRequest(try #require(host.participants.first { $0.id == "shy" }))
            try await eventuallyOnMain("the second viewer's alert") { shy.showAlert }
            shy.declineHostChange()
            try await eventuallyOnMain("the host hears it was declined") { host.alertTitle == "Host Request Rejected" }
            #expect(host.alertMessage == "The request to become the host has been declined by Shy.")
            #expect(shy.meeting?.localParticipant.mode == .SIGNALLING_ONLY)
        }
    }
}

extension ChatTests {
    @Test("seed 002's code: the email, the ticket (both literals) and the booking flight written by one user and read by another; a date that is not one is nil")
    func seed002Code() async throws {
        try await withServer { server in
            let john = try await server.client("john")
            let reader = try await server.client("reader")
            _ = try await john.createChannel(id: "trips", members: ["reader"])
            seed002UpdateEmail(client: john)
            try await eventually("the email is stored") { try await reader.user(id: "john").email == "john.doe@example.com" }
            let stored = try await reader.user(id: "john")
            #expect(seed002Email(user: stored) == "john.doe@example.com" && seed002EmailBefore419(user: stored) == "john.doe@example.com")
            #expect(stored.nickname == "John Doe")

            seed002SendTicket(client: john, yourChannelId: "trips")
            let flight = BookingFlight(flightNumber: 714, departureDate: Date(timeIntervalSince1970: 1_800_000_000.25),
                                       arrivalDate: Date(timeIntervalSince1970: 1_800_030_600), price: 1_234.5,
                                       passengers: [Passenger(name: "Ann", age: 34)], destinations: ["LIS", "NRT"])
            try await eventually("the ticket is stored") { try await reader.channelController(for: "trips").loadPreviousMessages(limit: 10).items.count == 1 }
            seed002SendBooking(client: john, yourChannelId: "trips", bookingFlight: flight)
            try await eventually("the booking is stored") { try await reader.channelController(for: "trips").loadPreviousMessages(limit: 10).items.count == 2 }
            let messages = try await reader.channelController(for: "trips").loadPreviousMessages(limit: 10).items
            let ticket = try #require(messages.first { $0.extraData["ticket"] != nil })
            #expect(seed002Ticket(message: ticket) == ("Rock Concert", 20))
            #expect(ticket.extraData == seed002TicketLiteral())
            #expect(messages.first { $0.extraData["flight"] != nil }?.bookingFlight == flight)

            // The vendor's formatter returns nil for a string that is not a date; so does ours.
            #expect(GreenroomDateFormatter.date(from: "not a date") == nil)
            #expect(GreenroomDateFormatter.date(from: "2026-13-45T99:00:00Z") == nil)
            #expect(GreenroomDateFormatter.date(from: "") == nil)
            #expect(GreenroomDateFormatter.date(from: "2027-01-15T08:00:00.250Z") == Date(timeIntervalSince1970: 1_800_000_000.25))
            var broken = flight.toExtraData()
            broken["arrivalDate"] = "tomorrow"
            #expect(BookingFlight(extraData: broken) == nil)
        }
    }
}

extension ViewModelTests {
    @Test("seed 003's code: a view controller's createViewModel makes the custom view model; its filter and the delegate's didInviteUserIds work")
    @MainActor
    func seed003Code() async throws {
        try await withServerOnMain { server in
            try await server.createUsers(["Ada", "bob", "Cy", "dee"])
            let owner = try await server.client("owner")
            let channel = try await owner.createChannel(id: "team", members: ["Cy"])
            let screen = CustomViewController(channel: channel, users: nil)
            let viewModel = try #require(screen.viewModel as? CustomViewModel)
            viewModel.client = owner
            try await eventuallyOnMain("the first page") { !viewModel.userList.isEmpty }
            // Capitalized nicknames only (the custom filter), without the member Cy (the default one).
            #expect(viewModel.userList.map(\.id) == ["Ada"])
            viewModel.selectUser(user: viewModel.userList[0])
            viewModel.inviteUsers()
            try await eventuallyOnMain("the screen hears of the invitation") { !screen.invited.isEmpty }
            #expect(screen.invited == [["Ada"]] && viewModel.userList.isEmpty)
        }
    }
}

extension VideoTests {
    @Test("seed 004's handlers: created, updated (processing done) and deleted reach them with the page's userInfo casts")
    func seed004Code() async throws {
        try await withVideoServer { server, tools in
            let file = try await Self.makeVideo(tools.ffmpeg, seconds: 1)
            defer { try? FileManager.default.removeItem(at: file) }
            let watcher = try await session(server, "watcher", scopes: [VideoScope.read])
            let feed = await Seed004Feed()
            await feed.observe(watcher.notificationCenter)
            let uploader = try await session(server, "uploader")
            let video = try await uploader.upload(fileURL: file, title: "seed 004").result()
            try await eventually("created", timeout: .seconds(60)) { await feed.created == [video.id] }
            try await eventually("updated when processed", timeout: .seconds(60)) { await feed.updated[video.id]?.contains("status") == true }
            try await uploader.deleteVideo(id: video.id)
            try await eventually("deleted") { await feed.deleted == [video.id] }
            await feed.stop()
        }
    }
}
