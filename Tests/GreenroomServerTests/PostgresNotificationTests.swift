import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// What a node reads from a `NOTIFY` payload (``PostgresEventRelay/parse(_:)``): the whole
/// event as the writing node sent it, or a position to read from the log; never a trap.
@Suite("PostgreSQL notification payloads")
struct PostgresNotificationTests {
    @Test("an event's payload reads back as the same event; a routed event goes as a hint")
    func events() throws {
        let at = try #require(WireCoding.parseDate("2026-11-25T14:00:00.125Z"))
        let event = StreamEvent(stream: "app:scores", offset: 42, epoch: "e49c49d0", type: "goal",
                                data: ["team": "home", "minute": 17, "scorers": ["a", "b"], "extra": .nil], at: at)
        guard case .event(let read, _)? = PostgresEventRelay.parse(PostgresStorage.notifyPayload(event, dataJSON: try event.data.jsonBytes())) else {
            Issue.record("the payload of a small event without routing did not read as an event")
            return
        }
        #expect(read == event)

        var routed = event
        routed.setRouting(audience: "alice\nbob", revokes: nil)
        guard case .hint(let stream, let offset, _)? = PostgresEventRelay.parse(PostgresStorage.notifyPayload(routed, dataJSON: try routed.data.jsonBytes())) else {
            Issue.record("a routed event's payload did not read as a hint")
            return
        }
        #expect(stream == "app:scores" && offset == 42)

        // With a trace: the same event and hint, and the trace beside them.
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let traced = PostgresStorage.notifyPayload(event, dataJSON: try event.data.jsonBytes(), trace: traceparent)
        #expect(traced.contains(traceparent))
        guard case .event(let tracedRead, _)? = PostgresEventRelay.parse(traced) else {
            Issue.record("a traced event's payload did not read as an event: \(traced)")
            return
        }
        #expect(tracedRead == event)
        let tracedHint = PostgresStorage.notifyPayload(routed, dataJSON: try routed.data.jsonBytes(), trace: traceparent)
        #expect(tracedHint.contains(traceparent))
        guard case .hint(let hintStream, let hintOffset, _)? = PostgresEventRelay.parse(tracedHint) else {
            Issue.record("a traced hint did not read as a hint: \(tracedHint)")
            return
        }
        #expect(hintStream == "app:scores" && hintOffset == 42)
    }

    @Test("an event that does not read whole falls back to its position; anything else is ignored")
    func malformed() {
        let badDate = #"{"stream":"app:x","offset":7,"epoch":"e1","type":"t","data":{},"at":"yesterday"}"#
        guard case .hint(let stream, let offset, _)? = PostgresEventRelay.parse(badDate) else {
            Issue.record("an event with an unreadable date was not read as a hint")
            return
        }
        #expect(stream == "app:x" && offset == 7)
        for payload in ["", "not json", "[]", #"{"stream":"app:x"}"#, #"{"stream":"app:x","offset":0}"#,
                        #"{"stream":"app:x","offset":-3}"#, #"{"stream":"app:x","offset":1.5}"#,
                        #"{"stream":"app:x","offset":1e300}"#, #"{"stream":5,"offset":1}"#] {
            #expect(PostgresEventRelay.parse(payload) == nil, "\(payload)")
        }
    }
}
