import Foundation
import GreenroomProtocol
import Testing

/// The wire's own ISO 8601 formatter and parser, checked against Foundation's.
@Suite("Wire dates")
struct WireDateTests {
    @Test("20,000 dates from 1601 to 2400 format as Foundation formats them (to the nearest millisecond), and read back to it")
    func againstFoundation() throws {
        var generator = JSONParsingTests.Generator(state: 7)
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for _ in 0..<20_000 {
            let millis = Int64.random(in: -11_644_473_600_000...13_569_465_600_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(millis) / 1000 + Double.random(in: -0.000_49...0.000_49, using: &generator))
            let ours = WireCoding.formatDate(date)
            // Foundation truncates to the millisecond; the wire rounds to the nearest one.
            let (seconds, fraction) = millis.quotientAndRemainder(dividingBy: 1000)
            let whole = fraction < 0 ? seconds - 1 : seconds
            let foundation = Date(timeIntervalSince1970: Double(whole)).formatted(Date.ISO8601FormatStyle())
            #expect(ours == "\(foundation.dropLast()).\(String((fraction + 1000) % 1000 + 1000).dropFirst())Z", "\(millis)")
            let parsed = try #require(WireCoding.parseDate(ours))
            #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == millis)
            #expect(abs(parsed.timeIntervalSince1970 - (try style.parse(ours)).timeIntervalSince1970) < 0.000_5)
        }
    }

    @Test("other precisions and offsets parse; malformed text and impossible months do not")
    func forms() {
        #expect(WireCoding.parseDate("2026-11-22T14:13:19Z")?.timeIntervalSince1970 == 1_795_356_799)
        #expect(WireCoding.parseDate("2026-11-22T14:13:19.5Z")?.timeIntervalSince1970 == 1_795_356_799.5)
        #expect(WireCoding.parseDate("2026-11-22T14:13:19.123456Z")?.timeIntervalSince1970 == 1_795_356_799.123456)
        #expect(WireCoding.parseDate("2024-02-29T00:00:00Z") != nil)
        #expect(WireCoding.parseDate("2026-11-22T15:13:19+01:00")?.timeIntervalSince1970 == 1_795_356_799)
        for text in ["2026-13-01T00:00:00Z", "2026-00-10T10:00:00Z", "2026-11-22T14:13:19.Z",
                     "2026-11-22 14:13:19Z", "2026-11-22T14:13:19.1234567890Z", "20x6-11-22T14:13:19Z", ""] {
            #expect(WireCoding.parseDate(text) == nil, "\(text)")
        }
    }
}
